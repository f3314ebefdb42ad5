/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

#include <errno.h>
#include <string.h>

#include "tep_ctl_proto.h"

const char *
tep_ctl_perr_str(int perr)
{
	switch (perr) {
	case TEP_CTL_PERR_OK:
		return "ok";
	case TEP_CTL_PERR_INCOMPLETE:
		return "truncated message";
	case TEP_CTL_PERR_TOO_LONG:
		return "message too long";
	case TEP_CTL_PERR_SHORT:
		return "message shorter than its header";
	case TEP_CTL_PERR_VERSION:
		return "unsupported protocol version";
	case TEP_CTL_PERR_FLAGS:
		return "unknown request flags";
	case TEP_CTL_PERR_KIND:
		return "unknown reply kind";
	case TEP_CTL_PERR_NO_NUL:
		return "word not NUL-terminated";
	case TEP_CTL_PERR_TOO_MANY_WORDS:
		return "too many words";
	case TEP_CTL_PERR_WORD_TOO_LONG:
		return "word too long";
	case TEP_CTL_PERR_NUL_IN_BODY:
		return "NUL byte in reply body";
	case TEP_CTL_PERR_ITEM_STATUS:
		return "stream item with an error status";
	case TEP_CTL_PERR_NO_SPACE:
		return "buffer too small";
	case TEP_CTL_PERR_INVAL:
		return "invalid argument";
	default:
		return "unknown framing error";
	}
}

int
tep_ctl_perr_errno(int perr)
{
	switch (perr) {
	case TEP_CTL_PERR_OK:
		return 0;
	case TEP_CTL_PERR_TOO_LONG:
	case TEP_CTL_PERR_WORD_TOO_LONG:
		return EMSGSIZE;
	case TEP_CTL_PERR_TOO_MANY_WORDS:
		return E2BIG;
	case TEP_CTL_PERR_NO_SPACE:
		return ENOBUFS;
	case TEP_CTL_PERR_INVAL:
		return EINVAL;
	default:
		return EPROTO;
	}
}

int
tep_ctl_frame_check(const uint8_t *buf, size_t len, size_t max_payload,
		    size_t *frame_len)
{
	uint32_t plen;

	if (len < TEP_CTL_LEN_SIZE)
		return TEP_CTL_PERR_INCOMPLETE;
	plen = tep_ctl_get_be32(buf);
	if (plen > max_payload)
		return TEP_CTL_PERR_TOO_LONG;
	if (len - TEP_CTL_LEN_SIZE < plen)
		return TEP_CTL_PERR_INCOMPLETE;
	*frame_len = TEP_CTL_LEN_SIZE + (size_t)plen;
	return TEP_CTL_PERR_OK;
}

/* Payload size of a request, or the limit it breaks (*perr). */
static size_t
req_payload_size(int argc, char *const argv[], int *perr)
{
	size_t total = TEP_CTL_REQ_HDR, wl;
	int i;

	*perr = TEP_CTL_PERR_OK;
	if (argc < 0 || (argc > 0 && argv == NULL)) {
		*perr = TEP_CTL_PERR_INVAL;
		return 0;
	}
	if (argc > TEP_CTL_MAX_ARGS) {
		*perr = TEP_CTL_PERR_TOO_MANY_WORDS;
		return 0;
	}
	for (i = 0; i < argc; i++) {
		if (argv[i] == NULL) {
			*perr = TEP_CTL_PERR_INVAL;
			return 0;
		}
		wl = strnlen(argv[i], TEP_CTL_MAX_WORD + 1);
		if (wl > TEP_CTL_MAX_WORD) {
			*perr = TEP_CTL_PERR_WORD_TOO_LONG;
			return 0;
		}
		total += wl + 1;
		if (total > TEP_CTL_MAX_REQ) {
			*perr = TEP_CTL_PERR_TOO_LONG;
			return 0;
		}
	}
	return total;
}

size_t
tep_ctl_req_size(int argc, char *const argv[])
{
	int perr;
	size_t plen = req_payload_size(argc, argv, &perr);

	return perr == TEP_CTL_PERR_OK ? TEP_CTL_LEN_SIZE + plen : 0;
}

int
tep_ctl_req_encode(uint8_t *buf, size_t cap, uint8_t flags, int argc,
		   char *const argv[], size_t *frame_len)
{
	size_t plen, off, wl;
	int perr, i;

	if (flags & ~TEP_CTL_F_ALL)
		return TEP_CTL_PERR_FLAGS;
	plen = req_payload_size(argc, argv, &perr);
	if (perr != TEP_CTL_PERR_OK)
		return perr;
	if (buf == NULL || cap < TEP_CTL_LEN_SIZE + plen)
		return TEP_CTL_PERR_NO_SPACE;
	tep_ctl_put_be32(buf, (uint32_t)plen);
	buf[TEP_CTL_LEN_SIZE] = TEP_CTL_VERSION;
	buf[TEP_CTL_LEN_SIZE + 1] = flags;
	off = TEP_CTL_LEN_SIZE + TEP_CTL_REQ_HDR;
	for (i = 0; i < argc; i++) {
		wl = strlen(argv[i]) + 1;
		memcpy(buf + off, argv[i], wl);
		off += wl;
	}
	*frame_len = off;
	return TEP_CTL_PERR_OK;
}

int
tep_ctl_req_decode(uint8_t *buf, size_t len, struct tep_ctl_req *req,
		   size_t *frame_len)
{
	size_t flen, off, end, rest;
	uint8_t *nul;
	int perr;

	perr = tep_ctl_frame_check(buf, len, TEP_CTL_MAX_REQ, &flen);
	if (perr != TEP_CTL_PERR_OK)
		return perr;
	if (flen < TEP_CTL_LEN_SIZE + TEP_CTL_REQ_HDR)
		return TEP_CTL_PERR_SHORT;
	/* The version first: another version may lay out what follows. */
	req->version = buf[TEP_CTL_LEN_SIZE];
	if (req->version != TEP_CTL_VERSION)
		return TEP_CTL_PERR_VERSION;
	req->flags = buf[TEP_CTL_LEN_SIZE + 1];
	if (req->flags & ~TEP_CTL_F_ALL)
		return TEP_CTL_PERR_FLAGS;
	req->argc = 0;
	off = TEP_CTL_LEN_SIZE + TEP_CTL_REQ_HDR;
	end = flen;
	while (off < end) {
		if (req->argc == TEP_CTL_MAX_ARGS)
			return TEP_CTL_PERR_TOO_MANY_WORDS;
		rest = end - off;
		if (rest > TEP_CTL_MAX_WORD + 1)
			rest = TEP_CTL_MAX_WORD + 1;
		nul = memchr(buf + off, '\0', rest);
		if (nul == NULL)
			return rest > TEP_CTL_MAX_WORD ?
			       TEP_CTL_PERR_WORD_TOO_LONG :
			       TEP_CTL_PERR_NO_NUL;
		req->argv[req->argc++] = (char *)buf + off;
		off = (size_t)(nul - buf) + 1;
	}
	req->argv[req->argc] = NULL;
	*frame_len = flen;
	return TEP_CTL_PERR_OK;
}

static int
reply_check(uint8_t kind, uint32_t status, size_t body_len)
{
	if (kind != TEP_CTL_REPLY_FINAL && kind != TEP_CTL_REPLY_ITEM)
		return TEP_CTL_PERR_KIND;
	if (kind == TEP_CTL_REPLY_ITEM && status != 0)
		return TEP_CTL_PERR_ITEM_STATUS;
	if (body_len > TEP_CTL_MAX_BODY)
		return TEP_CTL_PERR_TOO_LONG;
	return TEP_CTL_PERR_OK;
}

int
tep_ctl_reply_header(uint8_t hdr[TEP_CTL_REPLY_PREFIX], uint8_t kind,
		     uint32_t status, size_t body_len)
{
	int perr = reply_check(kind, status, body_len);

	if (perr != TEP_CTL_PERR_OK)
		return perr;
	tep_ctl_put_be32(hdr, (uint32_t)(TEP_CTL_REPLY_HDR + body_len));
	hdr[TEP_CTL_LEN_SIZE] = TEP_CTL_VERSION;
	hdr[TEP_CTL_LEN_SIZE + 1] = kind;
	tep_ctl_put_be32(hdr + TEP_CTL_LEN_SIZE + 2, status);
	return TEP_CTL_PERR_OK;
}

int
tep_ctl_reply_encode(uint8_t *buf, size_t cap, uint8_t kind, uint32_t status,
		     const void *body, size_t body_len, size_t *frame_len)
{
	int perr;

	if (body_len > 0 && body == NULL)
		return TEP_CTL_PERR_INVAL;
	perr = reply_check(kind, status, body_len);
	if (perr != TEP_CTL_PERR_OK)
		return perr;
	if (body_len > 0 && memchr(body, '\0', body_len) != NULL)
		return TEP_CTL_PERR_NUL_IN_BODY;
	if (buf == NULL || cap < TEP_CTL_REPLY_PREFIX + body_len)
		return TEP_CTL_PERR_NO_SPACE;
	tep_ctl_reply_header(buf, kind, status, body_len);
	if (body_len > 0)
		memcpy(buf + TEP_CTL_REPLY_PREFIX, body, body_len);
	*frame_len = TEP_CTL_REPLY_PREFIX + body_len;
	return TEP_CTL_PERR_OK;
}

int
tep_ctl_reply_decode(const uint8_t *buf, size_t len,
		     struct tep_ctl_reply *rep, size_t *frame_len)
{
	size_t flen;
	int perr;

	perr = tep_ctl_frame_check(buf, len, TEP_CTL_MAX_REPLY, &flen);
	if (perr != TEP_CTL_PERR_OK)
		return perr;
	if (flen < TEP_CTL_REPLY_PREFIX)
		return TEP_CTL_PERR_SHORT;
	rep->version = buf[TEP_CTL_LEN_SIZE];
	if (rep->version != TEP_CTL_VERSION)
		return TEP_CTL_PERR_VERSION;
	rep->kind = buf[TEP_CTL_LEN_SIZE + 1];
	if (rep->kind != TEP_CTL_REPLY_FINAL && rep->kind != TEP_CTL_REPLY_ITEM)
		return TEP_CTL_PERR_KIND;
	rep->status = tep_ctl_get_be32(buf + TEP_CTL_LEN_SIZE + 2);
	if (rep->kind == TEP_CTL_REPLY_ITEM && rep->status != 0)
		return TEP_CTL_PERR_ITEM_STATUS;
	rep->body = (const char *)buf + TEP_CTL_REPLY_PREFIX;
	rep->body_len = flen - TEP_CTL_REPLY_PREFIX;
	if (memchr(rep->body, '\0', rep->body_len) != NULL)
		return TEP_CTL_PERR_NUL_IN_BODY;
	*frame_len = flen;
	return TEP_CTL_PERR_OK;
}
