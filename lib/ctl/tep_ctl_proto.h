/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_CTL_PROTO_H
#define TEP_CTL_PROTO_H

/*
 * Control protocol framing (docs/control-protocol.md), as pure functions
 * on byte buffers: nothing here does I/O or allocates.
 *
 * Every message is a frame: a 4-byte big-endian payload length, then the
 * payload.
 *
 * Request payload:  version (1 byte, TEP_CTL_VERSION)
 *                   flags   (1 byte, TEP_CTL_F_*)
 *                   argv    (0 to TEP_CTL_MAX_ARGS NUL-terminated words)
 * Reply payload:    version (1 byte)
 *                   kind    (1 byte, TEP_CTL_REPLY_*)
 *                   status  (4 bytes big-endian, 0 or a positive errno)
 *                   body    (text or JSON, UTF-8, no NUL, no terminator)
 *
 * Functions return TEP_CTL_PERR_OK (0) or one of enum tep_ctl_perr;
 * tep_ctl_perr_str() names it.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TEP_CTL_VERSION		1

/* Where tepd listens and tepctl connects by default */
#define TEP_CTL_DEFAULT_SOCKET	"/run/tepd/tepd.sock"

/* Request flags */
#define TEP_CTL_F_JSON		0x01	/* reply body in JSON */
#define TEP_CTL_F_ALL		TEP_CTL_F_JSON

/* Sizes */
#define TEP_CTL_LEN_SIZE	4	/* the length prefix */
#define TEP_CTL_REQ_HDR		2	/* version, flags */
#define TEP_CTL_REPLY_HDR	6	/* version, kind, status */
/* a reply frame's bytes before the body */
#define TEP_CTL_REPLY_PREFIX	(TEP_CTL_LEN_SIZE + TEP_CTL_REPLY_HDR)

/* Limits, in bytes of payload (prefix excluded) and words */
#define TEP_CTL_MAX_REQ		8192u		/* request payload */
#define TEP_CTL_MAX_ARGS	128		/* words in a request */
#define TEP_CTL_MAX_WORD	1024u		/* one word, NUL excluded */
#define TEP_CTL_MAX_REPLY	(4u << 20)	/* reply payload */
#define TEP_CTL_MAX_BODY	(TEP_CTL_MAX_REPLY - TEP_CTL_REPLY_HDR)

/* Reply kinds */
enum tep_ctl_kind {
	TEP_CTL_REPLY_FINAL = 0,	/* last reply to a request */
	TEP_CTL_REPLY_ITEM = 1,		/* a stream item, more follow */
};

enum tep_ctl_perr {
	TEP_CTL_PERR_OK = 0,
	/* Not an error on a stream socket: wait for more bytes. */
	TEP_CTL_PERR_INCOMPLETE,
	TEP_CTL_PERR_TOO_LONG,		/* a length over its limit */
	TEP_CTL_PERR_SHORT,		/* payload shorter than its header */
	TEP_CTL_PERR_VERSION,		/* unsupported version */
	TEP_CTL_PERR_FLAGS,		/* unknown request flags */
	TEP_CTL_PERR_KIND,		/* unknown reply kind */
	TEP_CTL_PERR_NO_NUL,		/* the last word lacks its NUL */
	TEP_CTL_PERR_TOO_MANY_WORDS,	/* more than TEP_CTL_MAX_ARGS */
	TEP_CTL_PERR_WORD_TOO_LONG,	/* a word over TEP_CTL_MAX_WORD */
	TEP_CTL_PERR_NUL_IN_BODY,	/* a reply body holds a NUL byte */
	TEP_CTL_PERR_ITEM_STATUS,	/* a stream item with a status */
	TEP_CTL_PERR_NO_SPACE,		/* encode: buffer too small */
	TEP_CTL_PERR_INVAL,		/* encode: bad argument */
};

/* A short lowercase phrase, e.g. "too many words". Never NULL. */
const char *tep_ctl_perr_str(int perr);

/* The reply status for a request that failed to decode. */
int tep_ctl_perr_errno(int perr);

static inline uint32_t
tep_ctl_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline void
tep_ctl_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = (v >> 16) & 0xff;
	p[2] = (v >> 8) & 0xff;
	p[3] = v & 0xff;
}

/*
 * Is there a whole frame at the start of buf[0..len)? OK with
 * *frame_len = prefix + payload; INCOMPLETE; or TOO_LONG as soon as the
 * length prefix announces more than max_payload bytes.
 */
int tep_ctl_frame_check(const uint8_t *buf, size_t len, size_t max_payload,
			size_t *frame_len);

/*
 * Frame size of a request with these words: the prefix included. 0 if it
 * breaks a limit (too many words, a word too long, payload too long);
 * then tep_ctl_req_encode() says which.
 */
size_t tep_ctl_req_size(int argc, char *const argv[]);

/* Write a request frame into buf (cap bytes); *frame_len its size. */
int tep_ctl_req_encode(uint8_t *buf, size_t cap, uint8_t flags, int argc,
		       char *const argv[], size_t *frame_len);

struct tep_ctl_req {
	uint8_t version;
	uint8_t flags;
	int argc;
	/* into the decoded buffer; argv[argc] is NULL */
	char *argv[TEP_CTL_MAX_ARGS + 1];
};

/*
 * Decode the request frame at the start of buf[0..len). The words are
 * left in place: req->argv points into buf, so buf must outlive req.
 * INCOMPLETE when buf does not hold the whole frame yet; any other
 * error means the stream is unusable (the framing is lost).
 */
int tep_ctl_req_decode(uint8_t *buf, size_t len, struct tep_ctl_req *req,
		       size_t *frame_len);

/*
 * Write the TEP_CTL_REPLY_PREFIX bytes that precede a body of body_len
 * bytes (which the caller sends right after).
 */
int tep_ctl_reply_header(uint8_t hdr[TEP_CTL_REPLY_PREFIX], uint8_t kind,
			 uint32_t status, size_t body_len);

/* Write a whole reply frame into buf (cap bytes). */
int tep_ctl_reply_encode(uint8_t *buf, size_t cap, uint8_t kind,
			 uint32_t status, const void *body, size_t body_len,
			 size_t *frame_len);

struct tep_ctl_reply {
	uint8_t version;
	uint8_t kind;
	uint32_t status;
	const char *body;	/* in the decoded buffer, no NUL */
	size_t body_len;
};

/* Decode the reply frame at the start of buf[0..len). */
int tep_ctl_reply_decode(const uint8_t *buf, size_t len,
			 struct tep_ctl_reply *rep, size_t *frame_len);

#ifdef __cplusplus
}
#endif

#endif /* TEP_CTL_PROTO_H */
