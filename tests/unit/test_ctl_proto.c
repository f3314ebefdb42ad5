/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Control protocol framing: exact bytes of encoded frames (written out by
 * hand from docs/control-protocol.md), round trips, and every malformed
 * input the decoders must refuse.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tep_ctl_proto.h"

#define REQ_BUF (TEP_CTL_LEN_SIZE + TEP_CTL_MAX_REQ + 64)

static uint8_t reqbuf[REQ_BUF];

/* A request frame built by hand: words joined with their NULs. */
static size_t
hand_req(uint8_t *buf, uint8_t version, uint8_t flags, const void *words,
	 size_t wlen)
{
	size_t plen = 2 + wlen;

	buf[0] = (uint8_t)(plen >> 24);
	buf[1] = (uint8_t)(plen >> 16);
	buf[2] = (uint8_t)(plen >> 8);
	buf[3] = (uint8_t)plen;
	buf[4] = version;
	buf[5] = flags;
	memcpy(buf + 6, words, wlen);
	return 4 + plen;
}

static void
test_req_exact_bytes(void **state)
{
	char *argv[] = { "route", "add", "10.0.0.0/8", "", NULL };
	static const uint8_t want[] = {
		0, 0, 0, 24,
		1, TEP_CTL_F_JSON,
		'r', 'o', 'u', 't', 'e', 0,
		'a', 'd', 'd', 0,
		'1', '0', '.', '0', '.', '0', '.', '0', '/', '8', 0,
		0,
	};
	struct tep_ctl_req req;
	size_t len, flen;

	(void)state;
	assert_int_equal(tep_ctl_req_encode(reqbuf, sizeof(reqbuf),
					    TEP_CTL_F_JSON, 4, argv, &len),
			 TEP_CTL_PERR_OK);
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(reqbuf, want, sizeof(want));
	assert_int_equal(tep_ctl_req_size(4, argv), sizeof(want));

	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_OK);
	assert_int_equal(flen, len);
	assert_int_equal(req.version, 1);
	assert_int_equal(req.flags, TEP_CTL_F_JSON);
	assert_int_equal(req.argc, 4);
	assert_string_equal(req.argv[0], "route");
	assert_string_equal(req.argv[1], "add");
	assert_string_equal(req.argv[2], "10.0.0.0/8");
	assert_string_equal(req.argv[3], "");
	assert_null(req.argv[4]);
	/* in place */
	assert_ptr_equal(req.argv[0], (char *)reqbuf + 6);
}

static void
test_req_no_words(void **state)
{
	struct tep_ctl_req req;
	size_t len, flen;

	(void)state;
	assert_int_equal(tep_ctl_req_encode(reqbuf, sizeof(reqbuf), 0, 0, NULL,
					    &len), TEP_CTL_PERR_OK);
	assert_int_equal(len, 6);
	assert_int_equal(tep_ctl_get_be32(reqbuf), 2);
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_OK);
	assert_int_equal(req.argc, 0);
	assert_null(req.argv[0]);
	assert_int_equal(req.flags, 0);
}

/* Every prefix of a frame is incomplete; bytes after it are left alone. */
static void
test_req_truncated_everywhere(void **state)
{
	char *argv[] = { "stats", "watch", "interval", "1000", NULL };
	uint8_t copy[64];
	struct tep_ctl_req req;
	size_t len, flen, k;

	(void)state;
	assert_int_equal(tep_ctl_req_encode(reqbuf, sizeof(reqbuf), 0, 4, argv,
					    &len), TEP_CTL_PERR_OK);
	for (k = 0; k < len; k++) {
		memcpy(copy, reqbuf, len);
		assert_int_equal(tep_ctl_req_decode(copy, k, &req, &flen),
				 TEP_CTL_PERR_INCOMPLETE);
	}
	/* the next frame's first bytes follow */
	memcpy(copy, reqbuf, len);
	memcpy(copy + len, "\0\0\0\x09\x01", 5);
	assert_int_equal(tep_ctl_req_decode(copy, len + 5, &req, &flen),
			 TEP_CTL_PERR_OK);
	assert_int_equal(flen, len);
	assert_int_equal(req.argc, 4);
	assert_string_equal(req.argv[3], "1000");
}

/* Length prefixes that disagree with the words. */
static void
test_req_lying_lengths(void **state)
{
	char *argv[] = { "vrf", "add", "red", NULL };
	struct tep_ctl_req req;
	size_t len, flen;
	uint32_t plen;

	(void)state;
	assert_int_equal(tep_ctl_req_encode(reqbuf, sizeof(reqbuf), 0, 3, argv,
					    &len), TEP_CTL_PERR_OK);
	plen = (uint32_t)len - 4;

	/* one byte short: the last word loses its NUL */
	tep_ctl_put_be32(reqbuf, plen - 1);
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_NO_NUL);
	/* two short: "re" without NUL */
	tep_ctl_put_be32(reqbuf, plen - 2);
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_NO_NUL);
	/* cut right after a NUL: fewer words, but well-formed */
	tep_ctl_put_be32(reqbuf, plen - 4);
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_OK);
	assert_int_equal(req.argc, 2);
	assert_int_equal(flen, len - 4);
	/* longer than what is there: wait for more */
	tep_ctl_put_be32(reqbuf, plen + 1);
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_INCOMPLETE);
	/* shorter than the header */
	tep_ctl_put_be32(reqbuf, 0);
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_SHORT);
	tep_ctl_put_be32(reqbuf, 1);
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_SHORT);
	/* over the limit: known from the prefix alone */
	tep_ctl_put_be32(reqbuf, TEP_CTL_MAX_REQ + 1);
	assert_int_equal(tep_ctl_req_decode(reqbuf, 4, &req, &flen),
			 TEP_CTL_PERR_TOO_LONG);
	tep_ctl_put_be32(reqbuf, 0xffffffffu);
	assert_int_equal(tep_ctl_req_decode(reqbuf, 4, &req, &flen),
			 TEP_CTL_PERR_TOO_LONG);
	/* ASCII garbage reads as a huge length */
	memcpy(reqbuf, "GET / HTTP/1.0\r\n", 16);
	assert_int_equal(tep_ctl_req_decode(reqbuf, 16, &req, &flen),
			 TEP_CTL_PERR_TOO_LONG);
}

static void
test_req_version_flags(void **state)
{
	struct tep_ctl_req req;
	size_t len, flen;
	char *argv[] = { "help", NULL };
	static const uint8_t bad_versions[] = { 0, 2, 0xff };
	static const uint8_t bad_flags[] = { 0x02, 0x80, 0xff };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_versions); i++) {
		len = hand_req(reqbuf, bad_versions[i], 0, "help", 5);
		assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
				 TEP_CTL_PERR_VERSION);
	}
	for (i = 0; i < sizeof(bad_flags); i++) {
		len = hand_req(reqbuf, 1, bad_flags[i], "help", 5);
		assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
				 TEP_CTL_PERR_FLAGS);
		assert_int_equal(tep_ctl_req_encode(reqbuf, sizeof(reqbuf),
						    bad_flags[i], 1, argv,
						    &len),
				 TEP_CTL_PERR_FLAGS);
	}
	/* a bad version wins over bad flags: the layout is unknown */
	len = hand_req(reqbuf, 2, 0xff, "help", 5);
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_VERSION);
	/* the version alone */
	len = hand_req(reqbuf, 1, 0, "", 0);
	tep_ctl_put_be32(reqbuf, 1);
	assert_int_equal(tep_ctl_req_decode(reqbuf, 5, &req, &flen),
			 TEP_CTL_PERR_SHORT);
}

static void
test_req_missing_nul(void **state)
{
	struct tep_ctl_req req;
	size_t len, flen;

	(void)state;
	len = hand_req(reqbuf, 1, 0, "route\0add", 9);
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_NO_NUL);
	len = hand_req(reqbuf, 1, 0, "x", 1);
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_NO_NUL);
}

static void
test_req_word_limits(void **state)
{
	static char word[TEP_CTL_MAX_WORD + 2];
	char *argv[3] = { "w", word, NULL };
	uint8_t words[TEP_CTL_MAX_WORD + 8];
	struct tep_ctl_req req;
	size_t len, flen;

	(void)state;
	/* exactly the limit */
	memset(word, 'a', TEP_CTL_MAX_WORD);
	word[TEP_CTL_MAX_WORD] = '\0';
	assert_int_equal(tep_ctl_req_encode(reqbuf, sizeof(reqbuf), 0, 2, argv,
					    &len), TEP_CTL_PERR_OK);
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_OK);
	assert_int_equal(strlen(req.argv[1]), TEP_CTL_MAX_WORD);
	/* one more */
	word[TEP_CTL_MAX_WORD] = 'a';
	word[TEP_CTL_MAX_WORD + 1] = '\0';
	assert_int_equal(tep_ctl_req_encode(reqbuf, sizeof(reqbuf), 0, 2, argv,
					    &len), TEP_CTL_PERR_WORD_TOO_LONG);
	assert_int_equal(tep_ctl_req_size(2, argv), 0);
	memset(words, 'a', TEP_CTL_MAX_WORD + 1);
	words[TEP_CTL_MAX_WORD + 1] = 0;
	len = hand_req(reqbuf, 1, 0, words, TEP_CTL_MAX_WORD + 2);
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_WORD_TOO_LONG);
	/* too long and unterminated: still "too long" */
	len = hand_req(reqbuf, 1, 0, words, TEP_CTL_MAX_WORD + 1);
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_WORD_TOO_LONG);
	/* exactly the limit, unterminated: the NUL is missing */
	len = hand_req(reqbuf, 1, 0, words, TEP_CTL_MAX_WORD);
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_NO_NUL);
}

static void
test_req_count_limits(void **state)
{
	char *argv[TEP_CTL_MAX_ARGS + 2];
	uint8_t words[2 * (TEP_CTL_MAX_ARGS + 1)];
	struct tep_ctl_req req;
	size_t len, flen;
	int i;

	(void)state;
	for (i = 0; i < TEP_CTL_MAX_ARGS + 1; i++) {
		argv[i] = "x";
		words[2 * i] = 'x';
		words[2 * i + 1] = 0;
	}
	argv[TEP_CTL_MAX_ARGS + 1] = NULL;
	assert_int_equal(tep_ctl_req_encode(reqbuf, sizeof(reqbuf), 0,
					    TEP_CTL_MAX_ARGS, argv, &len),
			 TEP_CTL_PERR_OK);
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_OK);
	assert_int_equal(req.argc, TEP_CTL_MAX_ARGS);
	assert_null(req.argv[TEP_CTL_MAX_ARGS]);
	assert_int_equal(tep_ctl_req_encode(reqbuf, sizeof(reqbuf), 0,
					    TEP_CTL_MAX_ARGS + 1, argv, &len),
			 TEP_CTL_PERR_TOO_MANY_WORDS);
	assert_int_equal(tep_ctl_req_size(TEP_CTL_MAX_ARGS + 1, argv), 0);
	len = hand_req(reqbuf, 1, 0, words, sizeof(words));
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_TOO_MANY_WORDS);
	/* 128 words and a stray byte: too many, not missing NUL */
	len = hand_req(reqbuf, 1, 0, words, sizeof(words) - 1);
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_TOO_MANY_WORDS);
	/* bad arguments */
	assert_int_equal(tep_ctl_req_encode(reqbuf, sizeof(reqbuf), 0, -1,
					    argv, &len), TEP_CTL_PERR_INVAL);
	assert_int_equal(tep_ctl_req_encode(reqbuf, sizeof(reqbuf), 0, 1,
					    NULL, &len), TEP_CTL_PERR_INVAL);
}

static void
test_req_payload_limit(void **state)
{
	/* 7 words of 1024 bytes and one of 1014: payload 8192 exactly */
	static char w[8][TEP_CTL_MAX_WORD + 1];
	char *argv[9];
	struct tep_ctl_req req;
	size_t len, flen;
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		memset(w[i], 'a' + i, TEP_CTL_MAX_WORD);
		w[i][TEP_CTL_MAX_WORD] = '\0';
		argv[i] = w[i];
	}
	w[7][1014] = '\0';
	argv[8] = NULL;
	assert_int_equal(tep_ctl_req_encode(reqbuf, sizeof(reqbuf), 0, 8, argv,
					    &len), TEP_CTL_PERR_OK);
	assert_int_equal(len, 4 + TEP_CTL_MAX_REQ);
	assert_int_equal(tep_ctl_req_decode(reqbuf, len, &req, &flen),
			 TEP_CTL_PERR_OK);
	assert_int_equal(req.argc, 8);
	assert_int_equal(strlen(req.argv[7]), 1014);
	/* one byte more */
	w[7][1014] = 'h';
	w[7][1015] = '\0';
	assert_int_equal(tep_ctl_req_encode(reqbuf, sizeof(reqbuf), 0, 8, argv,
					    &len), TEP_CTL_PERR_TOO_LONG);
	assert_int_equal(tep_ctl_req_size(8, argv), 0);
}

static void
test_req_no_space(void **state)
{
	char *argv[] = { "route", "show", NULL };
	uint8_t small[32];
	size_t len, cap;

	(void)state;
	assert_int_equal(tep_ctl_req_size(2, argv), 4 + 2 + 6 + 5);
	for (cap = 0; cap < 17; cap++)
		assert_int_equal(tep_ctl_req_encode(small, cap, 0, 2, argv,
						    &len),
				 TEP_CTL_PERR_NO_SPACE);
	assert_int_equal(tep_ctl_req_encode(small, 17, 0, 2, argv, &len),
			 TEP_CTL_PERR_OK);
	assert_int_equal(len, 17);
}

static void
test_reply_exact_bytes(void **state)
{
	static const uint8_t want_ok[] = {
		0, 0, 0, 12,
		1, TEP_CTL_REPLY_FINAL,
		0, 0, 0, 0,
		'h', 'e', 'l', 'l', 'o', '\n',
	};
	static const uint8_t want_item[] = {
		0, 0, 0, 6,
		1, TEP_CTL_REPLY_ITEM,
		0, 0, 0, 0,
	};
	static const uint8_t want_err[] = {
		0, 0, 0, 9,
		1, TEP_CTL_REPLY_FINAL,
		0, 0, 0, ENOENT,
		'n', 'o', '!',
	};
	struct tep_ctl_reply rep;
	uint8_t buf[64], hdr[TEP_CTL_REPLY_PREFIX];
	size_t len, flen;

	(void)state;
	assert_int_equal(tep_ctl_reply_encode(buf, sizeof(buf),
					      TEP_CTL_REPLY_FINAL, 0,
					      "hello\n", 6, &len),
			 TEP_CTL_PERR_OK);
	assert_int_equal(len, sizeof(want_ok));
	assert_memory_equal(buf, want_ok, len);
	assert_int_equal(tep_ctl_reply_decode(buf, len, &rep, &flen),
			 TEP_CTL_PERR_OK);
	assert_int_equal(flen, len);
	assert_int_equal(rep.version, 1);
	assert_int_equal(rep.kind, TEP_CTL_REPLY_FINAL);
	assert_int_equal(rep.status, 0);
	assert_int_equal(rep.body_len, 6);
	assert_memory_equal(rep.body, "hello\n", 6);

	assert_int_equal(tep_ctl_reply_encode(buf, sizeof(buf),
					      TEP_CTL_REPLY_ITEM, 0, NULL, 0,
					      &len), TEP_CTL_PERR_OK);
	assert_int_equal(len, sizeof(want_item));
	assert_memory_equal(buf, want_item, len);
	assert_int_equal(tep_ctl_reply_decode(buf, len, &rep, &flen),
			 TEP_CTL_PERR_OK);
	assert_int_equal(rep.kind, TEP_CTL_REPLY_ITEM);
	assert_int_equal(rep.body_len, 0);

	assert_int_equal(tep_ctl_reply_encode(buf, sizeof(buf),
					      TEP_CTL_REPLY_FINAL, ENOENT,
					      "no!", 3, &len), TEP_CTL_PERR_OK);
	assert_memory_equal(buf, want_err, sizeof(want_err));
	assert_int_equal(tep_ctl_reply_decode(buf, len, &rep, &flen),
			 TEP_CTL_PERR_OK);
	assert_int_equal(rep.status, ENOENT);

	/* the header alone, as the server sends it */
	assert_int_equal(tep_ctl_reply_header(hdr, TEP_CTL_REPLY_FINAL, 0, 6),
			 TEP_CTL_PERR_OK);
	assert_memory_equal(hdr, want_ok, sizeof(hdr));

	/* large status values survive */
	assert_int_equal(tep_ctl_reply_encode(buf, sizeof(buf),
					      TEP_CTL_REPLY_FINAL, 0x81020304u,
					      "", 0, &len), TEP_CTL_PERR_OK);
	assert_int_equal(tep_ctl_reply_decode(buf, len, &rep, &flen),
			 TEP_CTL_PERR_OK);
	assert_int_equal(rep.status, 0x81020304u);
}

static void
test_reply_truncated_everywhere(void **state)
{
	struct tep_ctl_reply rep;
	uint8_t buf[64];
	size_t len, flen, k;

	(void)state;
	assert_int_equal(tep_ctl_reply_encode(buf, sizeof(buf),
					      TEP_CTL_REPLY_ITEM, 0,
					      "{\"a\":1}\n", 8, &len),
			 TEP_CTL_PERR_OK);
	for (k = 0; k < len; k++)
		assert_int_equal(tep_ctl_reply_decode(buf, k, &rep, &flen),
				 TEP_CTL_PERR_INCOMPLETE);
	assert_int_equal(tep_ctl_reply_decode(buf, len, &rep, &flen),
			 TEP_CTL_PERR_OK);
	/* and the encoder needs the whole size */
	for (k = 0; k < len; k++)
		assert_int_equal(tep_ctl_reply_encode(buf, k,
						      TEP_CTL_REPLY_ITEM, 0,
						      "{\"a\":1}\n", 8, &flen),
				 TEP_CTL_PERR_NO_SPACE);
}

static void
test_reply_malformed(void **state)
{
	struct tep_ctl_reply rep;
	uint8_t buf[64], good[64];
	size_t len, flen;

	(void)state;
	assert_int_equal(tep_ctl_reply_encode(good, sizeof(good),
					      TEP_CTL_REPLY_FINAL, 0, "ok", 2,
					      &len), TEP_CTL_PERR_OK);

	memcpy(buf, good, len);
	buf[4] = 2;
	assert_int_equal(tep_ctl_reply_decode(buf, len, &rep, &flen),
			 TEP_CTL_PERR_VERSION);

	memcpy(buf, good, len);
	buf[5] = 2;
	assert_int_equal(tep_ctl_reply_decode(buf, len, &rep, &flen),
			 TEP_CTL_PERR_KIND);

	/* an item never carries an error */
	memcpy(buf, good, len);
	buf[5] = TEP_CTL_REPLY_ITEM;
	buf[9] = EIO;
	assert_int_equal(tep_ctl_reply_decode(buf, len, &rep, &flen),
			 TEP_CTL_PERR_ITEM_STATUS);

	memcpy(buf, good, len);
	buf[11] = 0;
	assert_int_equal(tep_ctl_reply_decode(buf, len, &rep, &flen),
			 TEP_CTL_PERR_NUL_IN_BODY);

	/* payload shorter than the reply header */
	memcpy(buf, good, len);
	tep_ctl_put_be32(buf, 5);
	assert_int_equal(tep_ctl_reply_decode(buf, len, &rep, &flen),
			 TEP_CTL_PERR_SHORT);
	tep_ctl_put_be32(buf, 0);
	assert_int_equal(tep_ctl_reply_decode(buf, len, &rep, &flen),
			 TEP_CTL_PERR_SHORT);

	tep_ctl_put_be32(buf, TEP_CTL_MAX_REPLY + 1);
	assert_int_equal(tep_ctl_reply_decode(buf, 4, &rep, &flen),
			 TEP_CTL_PERR_TOO_LONG);

	/* encoder refusals */
	assert_int_equal(tep_ctl_reply_encode(buf, sizeof(buf), 2, 0, "", 0,
					      &flen), TEP_CTL_PERR_KIND);
	assert_int_equal(tep_ctl_reply_encode(buf, sizeof(buf),
					      TEP_CTL_REPLY_ITEM, EIO, "", 0,
					      &flen), TEP_CTL_PERR_ITEM_STATUS);
	assert_int_equal(tep_ctl_reply_encode(buf, sizeof(buf),
					      TEP_CTL_REPLY_FINAL, 0, "a\0b", 3,
					      &flen), TEP_CTL_PERR_NUL_IN_BODY);
	assert_int_equal(tep_ctl_reply_encode(buf, sizeof(buf),
					      TEP_CTL_REPLY_FINAL, 0, NULL, 1,
					      &flen), TEP_CTL_PERR_INVAL);
	/* limits are checked before the body is read */
	assert_int_equal(tep_ctl_reply_encode(buf, sizeof(buf),
					      TEP_CTL_REPLY_FINAL, 0, "x",
					      TEP_CTL_MAX_BODY + 1, &flen),
			 TEP_CTL_PERR_TOO_LONG);
	assert_int_equal(tep_ctl_reply_header(buf, TEP_CTL_REPLY_FINAL, 0,
					      TEP_CTL_MAX_BODY + 1),
			 TEP_CTL_PERR_TOO_LONG);
}

/* The largest reply: a 4 MiB payload. */
static void
test_reply_max(void **state)
{
	size_t size = TEP_CTL_LEN_SIZE + TEP_CTL_MAX_REPLY;
	uint8_t *buf = malloc(size);
	char *b = malloc(TEP_CTL_MAX_BODY);
	struct tep_ctl_reply rep;
	size_t len, flen;

	(void)state;
	assert_non_null(buf);
	assert_non_null(b);
	memset(b, 'z', TEP_CTL_MAX_BODY);
	assert_int_equal(tep_ctl_reply_encode(buf, size, TEP_CTL_REPLY_FINAL,
					      0, b, TEP_CTL_MAX_BODY, &len),
			 TEP_CTL_PERR_OK);
	assert_int_equal(len, size);
	assert_int_equal(tep_ctl_get_be32(buf), TEP_CTL_MAX_REPLY);
	assert_int_equal(tep_ctl_reply_decode(buf, len, &rep, &flen),
			 TEP_CTL_PERR_OK);
	assert_int_equal(rep.body_len, TEP_CTL_MAX_BODY);
	assert_int_equal(rep.body[TEP_CTL_MAX_BODY - 1], 'z');
	assert_int_equal(tep_ctl_reply_decode(buf, len - 1, &rep, &flen),
			 TEP_CTL_PERR_INCOMPLETE);
	free(buf);
	free(b);
}

/* The two examples in docs/control-protocol.md. */
static void
test_doc_examples(void **state)
{
	static const uint8_t req[] = {
		0x00, 0x00, 0x00, 0x08, 0x01, 0x01,
		0x73, 0x74, 0x61, 0x74, 0x73, 0x00,
	};
	static const uint8_t rep[] = {
		0x00, 0x00, 0x00, 0x18, 0x01, 0x00, 0x00, 0x00, 0x00, 0x02,
		0x75, 0x6e, 0x6b, 0x6e, 0x6f, 0x77, 0x6e, 0x20,
	};
	static const char body[] = "unknown vrf \"blue\"";
	char *argv[] = { "stats", NULL };
	uint8_t buf[64];
	size_t len;

	(void)state;
	assert_int_equal(tep_ctl_req_encode(buf, sizeof(buf), TEP_CTL_F_JSON,
					    1, argv, &len), TEP_CTL_PERR_OK);
	assert_int_equal(len, sizeof(req));
	assert_memory_equal(buf, req, sizeof(req));
	assert_int_equal(tep_ctl_reply_encode(buf, sizeof(buf),
					      TEP_CTL_REPLY_FINAL, ENOENT,
					      body, sizeof(body) - 1, &len),
			 TEP_CTL_PERR_OK);
	assert_int_equal(len, 4 + 24);
	assert_memory_equal(buf, rep, sizeof(rep));
}

static void
test_perr_strings(void **state)
{
	const char *s[TEP_CTL_PERR_INVAL + 1];
	int i, j;

	(void)state;
	for (i = 0; i <= TEP_CTL_PERR_INVAL; i++) {
		s[i] = tep_ctl_perr_str(i);
		assert_non_null(s[i]);
		assert_true(strlen(s[i]) > 0);
		for (j = 0; j < i; j++)
			assert_string_not_equal(s[i], s[j]);
	}
	assert_string_equal(tep_ctl_perr_str(TEP_CTL_PERR_TOO_MANY_WORDS),
			    "too many words");
	assert_string_equal(tep_ctl_perr_str(999), "unknown framing error");
	assert_int_equal(tep_ctl_perr_errno(TEP_CTL_PERR_OK), 0);
	assert_int_equal(tep_ctl_perr_errno(TEP_CTL_PERR_TOO_LONG), EMSGSIZE);
	assert_int_equal(tep_ctl_perr_errno(TEP_CTL_PERR_VERSION), EPROTO);
	assert_int_equal(tep_ctl_perr_errno(TEP_CTL_PERR_NO_NUL), EPROTO);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_req_exact_bytes),
		cmocka_unit_test(test_req_no_words),
		cmocka_unit_test(test_req_truncated_everywhere),
		cmocka_unit_test(test_req_lying_lengths),
		cmocka_unit_test(test_req_version_flags),
		cmocka_unit_test(test_req_missing_nul),
		cmocka_unit_test(test_req_word_limits),
		cmocka_unit_test(test_req_count_limits),
		cmocka_unit_test(test_req_payload_limit),
		cmocka_unit_test(test_req_no_space),
		cmocka_unit_test(test_reply_exact_bytes),
		cmocka_unit_test(test_reply_truncated_everywhere),
		cmocka_unit_test(test_reply_malformed),
		cmocka_unit_test(test_reply_max),
		cmocka_unit_test(test_doc_examples),
		cmocka_unit_test(test_perr_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
