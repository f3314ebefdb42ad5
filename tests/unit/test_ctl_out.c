/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * tep_out: the text and JSON output of control commands. Every expected
 * JSON document below is written out by hand (RFC 8259 escapes, UTF-8
 * checked byte by byte), never produced by the code under test.
 */

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tep_out.h"

/* The finished body as a NUL-terminated string (the test owns it). */
static char *
body(struct tep_out *o)
{
	char *s;

	tep_out_finish(o);
	s = malloc(tep_out_len(o) + 1);
	assert_non_null(s);
	memcpy(s, tep_out_data(o), tep_out_len(o));
	s[tep_out_len(o)] = '\0';
	return s;
}

static void
assert_body(struct tep_out *o, const char *want)
{
	char *got = body(o);

	assert_int_equal(tep_out_error(o), 0);
	assert_string_equal(got, want);
	/* no NUL inside: the protocol forbids it */
	assert_int_equal(strlen(got), tep_out_len(o));
	free(got);
}

/* The sample from tep_out.h, in both modes. */
static void
route_sample(struct tep_out *o)
{
	tep_out_open_array(o, "routes");
	tep_out_open_object(o, NULL);
	tep_out_str(o, "prefix", "%s", "10.0.0.0/8");
	tep_out_u64(o, "metric", " metric %" PRIu64, 20);
	tep_out_newline(o);
	tep_out_close_object(o);
	tep_out_open_object(o, NULL);
	tep_out_str(o, "prefix", "%s", "192.0.2.0/24");
	tep_out_u64(o, "metric", " metric %" PRIu64, 5);
	tep_out_newline(o);
	tep_out_close_object(o);
	tep_out_close_array(o);
}

static void
test_text_basic(void **state)
{
	struct tep_out o;

	(void)state;
	tep_out_init(&o, false, 0);
	assert_true(tep_out_empty(&o));
	route_sample(&o);
	assert_false(tep_out_empty(&o));
	assert_body(&o, "10.0.0.0/8 metric 20\n192.0.2.0/24 metric 5\n");
	tep_out_fini(&o);
}

static void
test_json_basic(void **state)
{
	struct tep_out o;

	(void)state;
	tep_out_init(&o, true, 0);
	assert_true(tep_out_empty(&o));
	route_sample(&o);
	assert_false(tep_out_empty(&o));
	assert_body(&o, "{\"routes\":[{\"prefix\":\"10.0.0.0/8\",\"metric\":20},"
		    "{\"prefix\":\"192.0.2.0/24\",\"metric\":5}]}\n");
	tep_out_fini(&o);
}

static void
test_json_empty_and_finish_twice(void **state)
{
	struct tep_out o;

	(void)state;
	tep_out_init(&o, true, 0);
	/* text-only calls leave JSON alone */
	tep_out_text(&o, "ignored %d", 1);
	tep_out_newline(&o);
	assert_true(tep_out_empty(&o));
	assert_body(&o, "{}\n");
	tep_out_finish(&o);
	assert_int_equal(tep_out_len(&o), 3);
	tep_out_fini(&o);

	tep_out_init(&o, false, 0);
	assert_body(&o, "");
	assert_true(tep_out_empty(&o));
	tep_out_fini(&o);
}

static void
test_json_types(void **state)
{
	struct tep_out o;

	(void)state;
	tep_out_init(&o, true, 0);
	tep_out_u64(&o, "u0", NULL, 0);
	tep_out_u64(&o, "umax", NULL, UINT64_MAX);
	tep_out_i64(&o, "imin", NULL, INT64_MIN);
	tep_out_i64(&o, "ineg", NULL, -1);
	tep_out_bool(&o, "t", NULL, true);
	tep_out_bool(&o, "f", NULL, false);
	tep_out_null(&o, "n", NULL);
	tep_out_str(&o, "s", NULL, NULL);
	tep_out_str(&o, "e", NULL, "");
	tep_out_open_array(&o, "a");
	tep_out_u64(&o, "ignored-key", NULL, 1);
	tep_out_str(&o, NULL, NULL, "x");
	tep_out_open_array(&o, NULL);
	tep_out_close_array(&o);
	tep_out_open_object(&o, NULL);
	tep_out_close_object(&o);
	tep_out_open_array(&o, NULL);
	tep_out_bool(&o, NULL, NULL, false);
	tep_out_null(&o, NULL, NULL);
	tep_out_close_array(&o);
	tep_out_close_array(&o);
	tep_out_open_object(&o, "o");
	tep_out_open_object(&o, "inner");
	tep_out_i64(&o, "k", NULL, 42);
	tep_out_close_object(&o);
	tep_out_close_object(&o);
	assert_body(&o,
		"{\"u0\":0,\"umax\":18446744073709551615,"
		"\"imin\":-9223372036854775808,\"ineg\":-1,"
		"\"t\":true,\"f\":false,\"n\":null,\"s\":null,\"e\":\"\","
		"\"a\":[1,\"x\",[],{},[false,null]],"
		"\"o\":{\"inner\":{\"k\":42}}}\n");
	tep_out_fini(&o);
}

static void
test_json_escapes(void **state)
{
	struct tep_out o;

	(void)state;
	tep_out_init(&o, true, 0);
	tep_out_str(&o, "quote", NULL, "say \"hi\"");
	tep_out_str(&o, "backslash", NULL, "a\\b");
	tep_out_str(&o, "named", NULL, "\b\f\n\r\t");
	tep_out_str(&o, "ctl", NULL, "\x01\x1f\x7f");
	tep_out_str(&o, "slash", NULL, "a/b");
	/* valid UTF-8: 2, 3 and 4 bytes, passed through */
	tep_out_str(&o, "utf8", NULL, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* the key is escaped too */
	tep_out_str(&o, "k\"\n", NULL, "v");
	assert_body(&o,
		"{\"quote\":\"say \\\"hi\\\"\","
		"\"backslash\":\"a\\\\b\","
		"\"named\":\"\\b\\f\\n\\r\\t\","
		"\"ctl\":\"\\u0001\\u001f\\u007f\","
		"\"slash\":\"a/b\","
		"\"utf8\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\","
		"\"k\\\"\\n\":\"v\"}\n");
	tep_out_fini(&o);
}

/* Invalid UTF-8: every byte of a bad sequence becomes U+FFFD. */
static void
test_json_bad_utf8(void **state)
{
#define R "\xef\xbf\xbd"
	static const struct {
		const char *in;
		const char *want;
	} cases[] = {
		{ "\x80", R },				/* lone continuation */
		{ "a\xc3", "a" R },			/* cut at the end */
		{ "\xc3z", R "z" },			/* no continuation */
		{ "\xc0\xaf", R R },			/* overlong '/' */
		{ "\xe0\x80\xaf", R R R },		/* overlong, 3 bytes */
		{ "\xed\xa0\x80", R R R },		/* UTF-16 surrogate */
		{ "\xf4\x90\x80\x80", R R R R },	/* above U+10FFFF */
		{ "\xe2\x82", R R },			/* cut 3-byte */
		{ "\xff\xfe", R R },			/* never valid */
		{ "\xf0\x9f\x98\x80\x80", "\xf0\x9f\x98\x80" R },
		{ "\xed\x9f\xbf", "\xed\x9f\xbf" },	/* U+D7FF is fine */
		{ "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf" }, /* U+10FFFF */
	};
#undef R
	struct tep_out o;
	char want[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tep_out_init(&o, true, 0);
		tep_out_str(&o, "s", NULL, cases[i].in);
		snprintf(want, sizeof(want), "{\"s\":\"%s\"}\n", cases[i].want);
		assert_body(&o, want);
		tep_out_fini(&o);
	}
}

static void
test_text_formats(void **state)
{
	struct tep_out o;

	(void)state;
	tep_out_init(&o, false, 0);
	tep_out_str(&o, "a", "[%-6s]", "ab");
	tep_out_str(&o, "b", "[%.2s]", "abcdef");
	tep_out_u64(&o, "c", "[%08" PRIx64 "]", 0xbeef);
	tep_out_u64(&o, "d", "[%" PRIu64 "]", UINT64_MAX);
	tep_out_i64(&o, "e", "[%" PRId64 "]", -5);
	tep_out_u64(&o, "f", "[%llu]", 7);
	tep_out_u64(&o, "g", "[%ju]", 8);
	tep_out_u64(&o, "h", "[100%%]", 9);	/* no conversion */
	tep_out_bool(&o, "i", "[%s]", true);
	tep_out_bool(&o, "j", " blackhole", false);
	tep_out_null(&o, "k", "[-]");
	tep_out_str(&o, "l", NULL, "json only");
	tep_out_str(&o, "m", "[%s]", NULL);
	tep_out_text(&o, "[%d %s]", 3, "free");
	tep_out_newline(&o);
	assert_body(&o, "[ab    ][ab][0000beef][18446744073709551615][-5]"
		    "[7][8][100%][true] blackhole[-][][3 free]\n");
	tep_out_fini(&o);
}

/* Formats that do not match the value are refused, not printed. */
static void
test_text_bad_formats(void **state)
{
	static const char *const str_bad[] = {
		"%d", "%s %s", "%*s", "%ls", "%", "%c", "%n",
	};
	static const char *const int_bad[] = {
		"%s", "%d", "%u", "%hhu", "%zu", "%lu %lu", "%f", "%.*lu",
	};
	struct tep_out o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(str_bad) / sizeof(str_bad[0]); i++) {
		tep_out_init(&o, false, 0);
		tep_out_str(&o, "k", str_bad[i], "v");
		assert_int_equal(tep_out_error(&o), EINVAL);
		assert_int_equal(tep_out_len(&o), 0);
		tep_out_fini(&o);
	}
	for (i = 0; i < sizeof(int_bad) / sizeof(int_bad[0]); i++) {
		tep_out_init(&o, false, 0);
		tep_out_u64(&o, "k", int_bad[i], 1);
		assert_int_equal(tep_out_error(&o), EINVAL);
		assert_int_equal(tep_out_len(&o), 0);
		tep_out_fini(&o);
	}
	/* bool takes %s only; null takes no conversion */
	tep_out_init(&o, false, 0);
	tep_out_bool(&o, "k", "%d", true);
	assert_int_equal(tep_out_error(&o), EINVAL);
	tep_out_fini(&o);
	tep_out_init(&o, false, 0);
	tep_out_null(&o, "k", "%s");
	assert_int_equal(tep_out_error(&o), EINVAL);
	tep_out_fini(&o);

	/* sticky: nothing is written after the error */
	tep_out_init(&o, false, 0);
	tep_out_str(&o, "k", "ok ", "v");
	tep_out_u64(&o, "k", "%s", 1);
	tep_out_str(&o, "k", "%s", "later");
	tep_out_text(&o, "later");
	assert_int_equal(tep_out_error(&o), EINVAL);
	assert_int_equal(tep_out_len(&o), 3);
	tep_out_fini(&o);

	/* JSON ignores text formats, bad ones included */
	tep_out_init(&o, true, 0);
	tep_out_u64(&o, "k", "%s", 1);
	assert_body(&o, "{\"k\":1}\n");
	tep_out_fini(&o);
}

static void
test_misuse(void **state)
{
	struct tep_out o;
	char *s;
	int i;

	(void)state;
	/* a key is required inside an object */
	tep_out_init(&o, true, 0);
	tep_out_u64(&o, NULL, NULL, 1);
	assert_int_equal(tep_out_error(&o), EINVAL);
	tep_out_fini(&o);

	/* closing the wrong kind */
	tep_out_init(&o, true, 0);
	tep_out_open_array(&o, "a");
	tep_out_close_object(&o);
	assert_int_equal(tep_out_error(&o), EINVAL);
	tep_out_fini(&o);

	tep_out_init(&o, false, 0);
	tep_out_open_object(&o, "a");
	tep_out_close_array(&o);
	assert_int_equal(tep_out_error(&o), EINVAL);
	tep_out_fini(&o);

	/* the JSON root is not the handler's to close */
	tep_out_init(&o, true, 0);
	tep_out_close_object(&o);
	assert_int_equal(tep_out_error(&o), EINVAL);
	tep_out_fini(&o);

	tep_out_init(&o, false, 0);
	tep_out_close_object(&o);
	assert_int_equal(tep_out_error(&o), EINVAL);
	tep_out_fini(&o);

	/* left open: closed by finish, but flagged */
	tep_out_init(&o, true, 0);
	tep_out_open_array(&o, "a");
	tep_out_open_object(&o, NULL);
	s = body(&o);
	assert_string_equal(s, "{\"a\":[{}]}\n");
	assert_int_equal(tep_out_error(&o), EINVAL);
	free(s);
	tep_out_fini(&o);

	tep_out_init(&o, false, 0);
	tep_out_open_array(&o, "a");
	tep_out_finish(&o);
	assert_int_equal(tep_out_error(&o), EINVAL);
	tep_out_fini(&o);

	/* nothing after finish */
	tep_out_init(&o, true, 0);
	tep_out_finish(&o);
	tep_out_u64(&o, "late", NULL, 1);
	assert_int_equal(tep_out_error(&o), EINVAL);
	tep_out_fini(&o);

	/* depth limit */
	tep_out_init(&o, true, 0);
	for (i = 0; i < TEP_OUT_MAX_DEPTH - 1; i++)
		tep_out_open_array(&o, i == 0 ? "a" : NULL);
	assert_int_equal(tep_out_error(&o), 0);
	tep_out_open_array(&o, NULL);
	assert_int_equal(tep_out_error(&o), EINVAL);
	tep_out_fini(&o);
}

static void
test_cap(void **state)
{
	struct tep_out o;

	(void)state;
	/* exactly at the cap is fine */
	tep_out_init(&o, false, 16);
	tep_out_text(&o, "%s", "0123456789abcdef");
	assert_int_equal(tep_out_error(&o), 0);
	assert_false(o.truncated);
	assert_body(&o, "0123456789abcdef");
	tep_out_fini(&o);

	/* one byte over: refused whole, flagged, sticky */
	tep_out_init(&o, false, 16);
	tep_out_text(&o, "%s", "0123456789");
	tep_out_str(&o, "k", "%s", "abcdefg");
	assert_int_equal(tep_out_error(&o), EMSGSIZE);
	assert_true(o.truncated);
	assert_int_equal(tep_out_len(&o), 10);
	tep_out_text(&o, "x");
	assert_int_equal(tep_out_len(&o), 10);
	tep_out_fini(&o);

	/* JSON: escapes count */
	tep_out_init(&o, true, 12);
	tep_out_str(&o, "k", NULL, "\x01");	/* {"k":"\u0001" = 13 */
	assert_int_equal(tep_out_error(&o), EMSGSIZE);
	assert_true(o.truncated);
	tep_out_fini(&o);

	/* the closing bytes count too */
	tep_out_init(&o, true, 8);
	tep_out_u64(&o, "k", NULL, 1);		/* {"k":1 = 6 */
	assert_int_equal(tep_out_error(&o), 0);
	tep_out_finish(&o);			/* }\n = 8 */
	assert_int_equal(tep_out_error(&o), 0);
	tep_out_fini(&o);

	tep_out_init(&o, true, 7);
	tep_out_u64(&o, "k", NULL, 1);
	tep_out_finish(&o);
	assert_int_equal(tep_out_error(&o), EMSGSIZE);
	tep_out_fini(&o);
}

/* Growth through many reallocations keeps every byte. */
static void
test_large(void **state)
{
	struct tep_out o;
	size_t i, n = 200000;
	const char *d;
	char want[16];

	(void)state;
	tep_out_init(&o, true, 0);
	tep_out_open_array(&o, "v");
	for (i = 0; i < n; i++)
		tep_out_u64(&o, NULL, NULL, i % 10);
	tep_out_close_array(&o);
	tep_out_finish(&o);
	assert_int_equal(tep_out_error(&o), 0);
	/* {"v":[0,1,...]}\n: 6 + 2n - 1 + 3 */
	assert_int_equal(tep_out_len(&o), 6 + 2 * n - 1 + 3);
	d = tep_out_data(&o);
	for (i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "%zu", i % 10);
		assert_int_equal(d[6 + 2 * i], want[0]);
		if (i + 1 < n)
			assert_int_equal(d[6 + 2 * i + 1], ',');
	}
	tep_out_fini(&o);
}

static void
test_reset(void **state)
{
	struct tep_out o;

	(void)state;
	tep_out_init(&o, true, 0);
	tep_out_u64(&o, "a", NULL, 1);
	tep_out_open_array(&o, "b");
	tep_out_reset(&o);
	assert_true(tep_out_empty(&o));
	tep_out_u64(&o, "c", NULL, 2);
	assert_body(&o, "{\"c\":2}\n");
	tep_out_reset(&o);
	assert_body(&o, "{}\n");
	tep_out_fini(&o);

	tep_out_init(&o, false, 4);
	tep_out_text(&o, "toolong");
	assert_int_equal(tep_out_error(&o), EMSGSIZE);
	tep_out_reset(&o);
	assert_int_equal(tep_out_error(&o), 0);
	tep_out_text(&o, "ok");
	assert_body(&o, "ok");
	tep_out_fini(&o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_basic),
		cmocka_unit_test(test_json_basic),
		cmocka_unit_test(test_json_empty_and_finish_twice),
		cmocka_unit_test(test_json_types),
		cmocka_unit_test(test_json_escapes),
		cmocka_unit_test(test_json_bad_utf8),
		cmocka_unit_test(test_text_formats),
		cmocka_unit_test(test_text_bad_formats),
		cmocka_unit_test(test_misuse),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
