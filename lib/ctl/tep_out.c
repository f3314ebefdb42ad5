/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tep_out.h"

/* Buffers larger than this are freed by tep_out_reset(). */
#define OUT_KEEP_MAX (64u * 1024)
#define OUT_MIN_ALLOC 1024u

static void
out_fail(struct tep_out *o, int err)
{
	if (o->err == 0)
		o->err = err;
	if (err == EMSGSIZE)
		o->truncated = true;
}

/* Make room for n more bytes plus a NUL (for vsnprintf). */
static bool
out_reserve(struct tep_out *o, size_t n)
{
	size_t want, ncap;
	char *nbuf;

	if (o->err != 0)
		return false;
	if (n > o->max - o->len) {
		out_fail(o, EMSGSIZE);
		return false;
	}
	want = o->len + n + 1;
	if (want <= o->cap)
		return true;
	ncap = o->cap < OUT_MIN_ALLOC ? OUT_MIN_ALLOC : o->cap;
	while (ncap < want)
		ncap *= 2;
	if (ncap > o->max + 1)
		ncap = o->max + 1;
	nbuf = realloc(o->buf, ncap);
	if (nbuf == NULL) {
		out_fail(o, ENOMEM);
		return false;
	}
	o->buf = nbuf;
	o->cap = ncap;
	return true;
}

static void
out_put(struct tep_out *o, const char *s, size_t n)
{
	if (!out_reserve(o, n))
		return;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void
out_putc(struct tep_out *o, char c)
{
	out_put(o, &c, 1);
}

static void out_vprintf(struct tep_out *o, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void
out_vprintf(struct tep_out *o, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	if (o->err != 0)
		return;
	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0) {
		out_fail(o, EINVAL);
		return;
	}
	if (!out_reserve(o, (size_t)n))
		return;
	vsnprintf(o->buf + o->len, (size_t)n + 1, fmt, ap);
	o->len += (size_t)n;
}

static void out_printf(struct tep_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
out_printf(struct tep_out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out_vprintf(o, fmt, ap);
	va_end(ap);
}

/* ---- text format checking -------------------------------------------- */

enum fmt_kind { FMT_STR, FMT_INT, FMT_NONE };

enum fmt_len { LEN_NONE, LEN_L, LEN_LL, LEN_J, LEN_OTHER };

struct fmt_info {
	int nconv;
	enum fmt_len len;
	char conv;
};

/* Count the conversions of a printf format; false if it is malformed. */
static bool
fmt_scan(const char *fmt, struct fmt_info *fi)
{
	const char *p = fmt;

	fi->nconv = 0;
	fi->len = LEN_NONE;
	fi->conv = 0;
	while ((p = strchr(p, '%')) != NULL) {
		p++;
		if (*p == '%') {
			p++;
			continue;
		}
		while (*p != '\0' && strchr("-+ #0'", *p) != NULL)
			p++;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == '.') {
			p++;
			while (*p >= '0' && *p <= '9')
				p++;
		}
		if (p[0] == 'l' && p[1] == 'l') {
			fi->len = LEN_LL;
			p += 2;
		} else if (p[0] == 'l') {
			fi->len = LEN_L;
			p++;
		} else if (p[0] == 'j') {
			fi->len = LEN_J;
			p++;
		} else if (*p != '\0' && strchr("hzLqt", *p) != NULL) {
			fi->len = LEN_OTHER;
			p++;
		}
		if (*p == '\0')
			return false;
		fi->conv = *p++;
		fi->nconv++;
	}
	return fi->nconv <= 1;
}

static bool
fmt_ok(const char *fmt, enum fmt_kind kind, struct fmt_info *fi)
{
	if (!fmt_scan(fmt, fi))
		return false;
	if (fi->nconv == 0)
		return true;
	switch (kind) {
	case FMT_STR:
		return fi->conv == 's' && fi->len == LEN_NONE;
	case FMT_INT:
		if (strchr("diouxX", fi->conv) == NULL)
			return false;
		if (fi->len == LEN_L)
			return sizeof(long) == sizeof(int64_t);
		return fi->len == LEN_LL || fi->len == LEN_J;
	case FMT_NONE:
	default:
		return false;
	}
}

/*
 * The text format was checked by fmt_ok() against the value's type, so
 * the non-literal formats below are safe.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

static void
text_str(struct tep_out *o, const char *fmt, const char *s)
{
	struct fmt_info fi;

	if (!fmt_ok(fmt, FMT_STR, &fi)) {
		out_fail(o, EINVAL);
		return;
	}
	out_printf(o, fmt, s);
}

static void
text_int(struct tep_out *o, const char *fmt, uint64_t u)
{
	struct fmt_info fi;
	bool sconv;

	if (!fmt_ok(fmt, FMT_INT, &fi)) {
		out_fail(o, EINVAL);
		return;
	}
	if (fi.nconv == 0) {
		out_printf(o, fmt, 0);
		return;
	}
	/* d and i read a signed argument, the others an unsigned one. */
	sconv = fi.conv == 'd' || fi.conv == 'i';
	switch (fi.len) {
	case LEN_L:
		if (sconv)
			out_printf(o, fmt, (long)(int64_t)u);
		else
			out_printf(o, fmt, (unsigned long)u);
		break;
	case LEN_J:
		if (sconv)
			out_printf(o, fmt, (intmax_t)(int64_t)u);
		else
			out_printf(o, fmt, (uintmax_t)u);
		break;
	default:
		if (sconv)
			out_printf(o, fmt, (long long)(int64_t)u);
		else
			out_printf(o, fmt, (unsigned long long)u);
		break;
	}
}

#pragma GCC diagnostic pop

/* ---- JSON ------------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
size_t
tep_utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (c == 0xed)
			hi = 0x9f;	/* UTF-16 surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;	/* overlong */
		else if (c == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static void
json_string(struct tep_out *o, const char *str)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str);
	size_t i = 0, run, k;
	char esc[6];

	out_putc(o, '"');
	while (i < n) {
		/* Copy the longest stretch that needs no escaping at once. */
		run = 0;
		while (i + run < n && s[i + run] >= 0x20 && s[i + run] < 0x7f &&
		       s[i + run] != '"' && s[i + run] != '\\')
			run++;
		if (run > 0) {
			out_put(o, (const char *)s + i, run);
			i += run;
			continue;
		}
		switch (s[i]) {
		case '"':
			out_put(o, "\\\"", 2);
			break;
		case '\\':
			out_put(o, "\\\\", 2);
			break;
		case '\b':
			out_put(o, "\\b", 2);
			break;
		case '\f':
			out_put(o, "\\f", 2);
			break;
		case '\n':
			out_put(o, "\\n", 2);
			break;
		case '\r':
			out_put(o, "\\r", 2);
			break;
		case '\t':
			out_put(o, "\\t", 2);
			break;
		default:
			if (s[i] < 0x80) {
				/* other C0 controls and DEL */
				esc[0] = '\\';
				esc[1] = 'u';
				esc[2] = '0';
				esc[3] = '0';
				esc[4] = hex[s[i] >> 4];
				esc[5] = hex[s[i] & 0xf];
				out_put(o, esc, 6);
				break;
			}
			k = tep_utf8_seq_len(s + i, n - i);
			if (k == 0) {
				/* U+FFFD REPLACEMENT CHARACTER */
				out_put(o, "\xef\xbf\xbd", 3);
				break;
			}
			out_put(o, (const char *)s + i, k);
			i += k;
			continue;
		}
		i++;
	}
	out_putc(o, '"');
}

/*
 * Before a value or container: the comma, and the key inside an object.
 * False when the output is in error or the call is misused.
 */
static bool
json_member(struct tep_out *o, const char *key)
{
	unsigned int lvl;

	if (o->err != 0)
		return false;
	if (o->depth == 0 || o->finished) {
		out_fail(o, EINVAL);
		return false;
	}
	lvl = o->depth - 1;
	if (!o->is_array[lvl] && key == NULL) {
		out_fail(o, EINVAL);
		return false;
	}
	if (!o->first[lvl])
		out_putc(o, ',');
	o->first[lvl] = 0;
	if (!o->is_array[lvl]) {
		json_string(o, key);
		out_putc(o, ':');
	}
	return o->err == 0;
}

/* ---- public API ------------------------------------------------------- */

static void
out_start(struct tep_out *o)
{
	o->len = 0;
	o->truncated = false;
	o->finished = false;
	o->err = 0;
	o->depth = 0;
	o->nvalues = 0;
	if (o->json) {
		/* the root object */
		o->is_array[0] = 0;
		o->first[0] = 1;
		o->depth = 1;
		out_putc(o, '{');
	}
}

void
tep_out_init(struct tep_out *o, bool json, size_t max)
{
	memset(o, 0, sizeof(*o));
	o->json = json;
	o->max = max != 0 ? max : TEP_OUT_DEFAULT_MAX;
	out_start(o);
}

void
tep_out_reset(struct tep_out *o)
{
	if (o->cap > OUT_KEEP_MAX) {
		free(o->buf);
		o->buf = NULL;
		o->cap = 0;
	}
	out_start(o);
}

void
tep_out_fini(struct tep_out *o)
{
	free(o->buf);
	o->buf = NULL;
	o->cap = 0;
	o->len = 0;
}

void
tep_out_finish(struct tep_out *o)
{
	bool misnested;

	if (o->finished)
		return;
	/* Containers left open (besides the JSON root) are a handler bug. */
	misnested = o->depth != (o->json ? 1u : 0u);
	if (o->json) {
		while (o->depth > 0) {
			o->depth--;
			out_putc(o, o->is_array[o->depth] ? ']' : '}');
		}
		out_putc(o, '\n');
	}
	o->depth = 0;
	if (misnested)
		out_fail(o, EINVAL);
	o->finished = true;
}

bool
tep_out_empty(const struct tep_out *o)
{
	return o->json ? o->nvalues == 0 : o->len == 0;
}

static void
out_open(struct tep_out *o, const char *key, bool array)
{
	if (o->err != 0)
		return;
	if (o->depth >= TEP_OUT_MAX_DEPTH || o->finished) {
		out_fail(o, EINVAL);
		return;
	}
	if (o->json) {
		if (!json_member(o, key))
			return;
		out_putc(o, array ? '[' : '{');
	}
	o->is_array[o->depth] = array;
	o->first[o->depth] = 1;
	o->depth++;
	o->nvalues++;
}

static void
out_close(struct tep_out *o, bool array)
{
	unsigned int min = o->json ? 2 : 1;	/* the root is not ours */

	if (o->err != 0)
		return;
	if (o->depth < min || o->is_array[o->depth - 1] != array ||
	    o->finished) {
		out_fail(o, EINVAL);
		return;
	}
	o->depth--;
	if (o->json)
		out_putc(o, array ? ']' : '}');
}

void
tep_out_open_object(struct tep_out *o, const char *key)
{
	out_open(o, key, false);
}

void
tep_out_close_object(struct tep_out *o)
{
	out_close(o, false);
}

void
tep_out_open_array(struct tep_out *o, const char *key)
{
	out_open(o, key, true);
}

void
tep_out_close_array(struct tep_out *o)
{
	out_close(o, true);
}

void
tep_out_str(struct tep_out *o, const char *key, const char *text_fmt,
	    const char *value)
{
	if (o->err != 0)
		return;
	if (o->json) {
		if (!json_member(o, key))
			return;
		if (value == NULL)
			out_put(o, "null", 4);
		else
			json_string(o, value);
	} else if (text_fmt != NULL) {
		text_str(o, text_fmt, value != NULL ? value : "");
	}
	o->nvalues++;
}

void
tep_out_u64(struct tep_out *o, const char *key, const char *text_fmt,
	    uint64_t value)
{
	if (o->err != 0)
		return;
	if (o->json) {
		if (json_member(o, key))
			out_printf(o, "%llu", (unsigned long long)value);
	} else if (text_fmt != NULL) {
		text_int(o, text_fmt, value);
	}
	o->nvalues++;
}

void
tep_out_i64(struct tep_out *o, const char *key, const char *text_fmt,
	    int64_t value)
{
	if (o->err != 0)
		return;
	if (o->json) {
		if (json_member(o, key))
			out_printf(o, "%lld", (long long)value);
	} else if (text_fmt != NULL) {
		text_int(o, text_fmt, (uint64_t)value);
	}
	o->nvalues++;
}

void
tep_out_bool(struct tep_out *o, const char *key, const char *text_fmt,
	     bool value)
{
	const char *s = value ? "true" : "false";

	if (o->err != 0)
		return;
	if (o->json) {
		if (json_member(o, key))
			out_put(o, s, strlen(s));
	} else if (text_fmt != NULL) {
		text_str(o, text_fmt, s);
	}
	o->nvalues++;
}

void
tep_out_null(struct tep_out *o, const char *key, const char *text_fmt)
{
	struct fmt_info fi;

	if (o->err != 0)
		return;
	if (o->json) {
		if (json_member(o, key))
			out_put(o, "null", 4);
	} else if (text_fmt != NULL) {
		if (!fmt_scan(text_fmt, &fi) || fi.nconv != 0) {
			out_fail(o, EINVAL);
			return;
		}
		/* only %% left: print through printf to collapse them */
		text_str(o, text_fmt, "");
	}
	o->nvalues++;
}

void
tep_out_text(struct tep_out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->json || o->err != 0)
		return;
	va_start(ap, fmt);
	out_vprintf(o, fmt, ap);
	va_end(ap);
}

void
tep_out_newline(struct tep_out *o)
{
	if (!o->json)
		out_putc(o, '\n');
}
