/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_OUT_H
#define TEP_OUT_H

/*
 * One output API for the control plane's two formats, text and JSON.
 *
 * A command handler describes what it prints once, as a tree of keyed
 * values; each call carries both the JSON key and the text format:
 *
 *	tep_out_open_array(o, "routes");
 *	tep_out_open_object(o, NULL);
 *	tep_out_str(o, "prefix", "%s", "10.0.0.0/8");
 *	tep_out_u64(o, "metric", " metric %" PRIu64, 20);
 *	tep_out_newline(o);
 *	tep_out_close_object(o);
 *	tep_out_close_array(o);
 *
 * gives "10.0.0.0/8 metric 20\n" in text mode and
 * {"routes":[{"prefix":"10.0.0.0/8","metric":20}]}\n in JSON mode.
 *
 * Text mode: keys and containers print nothing; each value prints its text
 * format (none if the format is NULL). tep_out_text() and
 * tep_out_newline() print in text mode only.
 *
 * JSON mode: text formats are ignored. The document is one object, opened
 * by tep_out_init() and closed by tep_out_finish(), so a handler writes
 * keyed values or containers at the top level. Keys are required inside
 * objects and ignored inside arrays. Strings are escaped as RFC 8259 asks;
 * bytes >= 0x80 pass through when they form valid UTF-8, and each byte of
 * an invalid sequence becomes U+FFFD, so the document is always valid UTF-8.
 *
 * Text formats hold at most one conversion, which must match the value's
 * type: %s (flags, width, precision allowed) for strings, a 64-bit integer
 * conversion (PRIu64, PRIx64, PRId64, ...) for integers, %s for booleans
 * (which print "true" or "false"). "%%" is allowed anywhere. The compiler
 * cannot check this (the value is not a variadic argument), so it is
 * checked at run time: a format that breaks the rule is not used, and the
 * output gets an EINVAL error instead.
 *
 * Errors are sticky: once the buffer would exceed its cap (the output is
 * then "truncated", error EMSGSIZE), memory runs out (ENOMEM) or the calls
 * are misnested (EINVAL), later calls do nothing and tep_out_error()
 * reports the first error. The control server turns any of them into an
 * error reply ("reply too large" for EMSGSIZE).
 *
 * Not thread-safe; one struct per writer.
 */

#include <inttypes.h>	/* PRIu64 and friends, for text formats */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Length of the valid UTF-8 sequence at s (n bytes left, n >= 1), or 0
 * if it is not one (overlong, surrogate, beyond U+10FFFF, truncated). */
size_t tep_utf8_seq_len(const unsigned char *s, size_t n);

/* Containers nested deeper than this are a programming error (EINVAL). */
#define TEP_OUT_MAX_DEPTH 32

struct tep_out {
	char *buf;		/* bytes written so far, no NUL */
	size_t len;
	size_t cap;		/* allocated size of buf */
	size_t max;		/* hard cap on len */
	bool json;
	bool truncated;		/* a write would have exceeded max */
	bool finished;
	int err;		/* first error, 0 if none */
	unsigned int depth;	/* open containers, the JSON root included */
	unsigned int nvalues;	/* values and containers written */
	/* per level: 1 for an array, 0 for an object */
	uint8_t is_array[TEP_OUT_MAX_DEPTH + 1];
	/* per level: nothing written yet, so no comma needed */
	uint8_t first[TEP_OUT_MAX_DEPTH + 1];
};

/*
 * Start an output in text or JSON mode with a hard cap of max bytes
 * (0 means TEP_OUT_DEFAULT_MAX). JSON mode writes the root's "{" at once.
 */
#define TEP_OUT_DEFAULT_MAX (4u << 20)
void tep_out_init(struct tep_out *o, bool json, size_t max);

/* Start over (same mode and cap); keeps a small buffer for reuse. */
void tep_out_reset(struct tep_out *o);

/* Release the buffer. The struct can be initialised again. */
void tep_out_fini(struct tep_out *o);

/*
 * End the output. JSON: close the root object and add a final newline.
 * A container still open (other than the root) is misnesting: it is
 * closed too, and the output gets an EINVAL error. Idempotent. Then
 * tep_out_data()/tep_out_len() give the complete body.
 */
void tep_out_finish(struct tep_out *o);

static inline const char *
tep_out_data(const struct tep_out *o)
{
	return o->buf != NULL ? o->buf : "";
}

static inline size_t
tep_out_len(const struct tep_out *o)
{
	return o->len;
}

static inline bool
tep_out_is_json(const struct tep_out *o)
{
	return o->json;
}

/* 0, or EMSGSIZE (over the cap), ENOMEM, EINVAL (misuse). */
static inline int
tep_out_error(const struct tep_out *o)
{
	return o->err;
}

/* Text: no byte written yet. JSON: no value or container written yet. */
bool tep_out_empty(const struct tep_out *o);

/* Containers. key: the member name inside an object, NULL inside arrays. */
void tep_out_open_object(struct tep_out *o, const char *key);
void tep_out_close_object(struct tep_out *o);
void tep_out_open_array(struct tep_out *o, const char *key);
void tep_out_close_array(struct tep_out *o);

/* Values. text_fmt may be NULL (JSON only); see the format rules above. */
void tep_out_str(struct tep_out *o, const char *key, const char *text_fmt,
		 const char *value);
void tep_out_u64(struct tep_out *o, const char *key, const char *text_fmt,
		 uint64_t value);
void tep_out_i64(struct tep_out *o, const char *key, const char *text_fmt,
		 int64_t value);
void tep_out_bool(struct tep_out *o, const char *key, const char *text_fmt,
		  bool value);
/* JSON null; text_fmt is printed as is (no conversion but %%). */
void tep_out_null(struct tep_out *o, const char *key, const char *text_fmt);

/* Text mode only: printf-style free text, and a line break. */
void tep_out_text(struct tep_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tep_out_newline(struct tep_out *o);

#ifdef __cplusplus
}
#endif

#endif /* TEP_OUT_H */
