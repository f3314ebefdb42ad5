/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_REF_H
#define TEP_REF_H

/*
 * The tests' independent reference: a naive RFC 1071 sum, byte by byte in
 * network order, and pseudo-headers laid out byte by byte as the RFCs draw
 * them. It shares no code with lib/csum on purpose: a checksum test must
 * not check the code with itself. One copy for every test and fuzz target.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* RFC 1071 section 4.1 in network order; returns the folded sum. */
static inline uint16_t
tep_ref_sum(const uint8_t *b, size_t len, uint32_t start)
{
	uint64_t s = start;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)b[i] << 8 | b[i + 1];
	if (len & 1)
		s += (uint32_t)b[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static inline uint16_t
tep_ref_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void
tep_ref_wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Pseudo-header bytes as on the wire (RFC 768; RFC 8200 section 8.1).
 * Returns the number of bytes written to out (12 or 40). */
static inline size_t
tep_ref_phdr_bytes(uint8_t *out, bool v6, const uint8_t *src,
		   const uint8_t *dst, uint8_t proto, uint32_t len)
{
	if (!v6) {
		memcpy(out, src, 4);
		memcpy(out + 4, dst, 4);
		out[8] = 0;
		out[9] = proto;
		tep_ref_wr16(out + 10, (uint16_t)len);
		return 12;
	}
	memcpy(out, src, 16);
	memcpy(out + 16, dst, 16);
	out[32] = (uint8_t)(len >> 24);
	out[33] = (uint8_t)(len >> 16);
	out[34] = (uint8_t)(len >> 8);
	out[35] = (uint8_t)len;
	out[36] = out[37] = out[38] = 0;
	out[39] = proto;
	return 40;
}

/* The folded pseudo-header sum. */
static inline uint16_t
tep_ref_phdr(bool v6, const uint8_t *src, const uint8_t *dst, uint8_t proto,
	     uint32_t len)
{
	uint8_t ph[40];

	return tep_ref_sum(ph, tep_ref_phdr_bytes(ph, v6, src, dst, proto, len),
			   0);
}

/* A deterministic PRNG (xorshift64*): each test seeds its own state, so a
 * failure replays exactly. */
static inline uint64_t
tep_ref_rnd(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 2685821657736338717ull;
}

static inline void
tep_ref_rnd_fill(uint64_t *state, uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)tep_ref_rnd(state);
}

#endif /* TEP_REF_H */
