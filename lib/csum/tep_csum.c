/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * The one loop that reads packet bytes for checksums.
 *
 * Why not DPDK's rte_raw_cksum(): in 22.11 __rte_raw_cksum() adds one 16-bit
 * word per iteration into a 32-bit accumulator, which also overflows past
 * 128 KiB. This loop reads 8 bytes a step and adds their two 32-bit halves
 * into independent 64-bit accumulators: no carry flag dependency, so the
 * compiler pipelines (and may vectorise) it, and 2^32 steps cannot overflow.
 * The result is the same modulo 2^16-1 (2^16 == 1 there), which the tests
 * check against a naive RFC 1071 reference and against rte_raw_cksum().
 */

#include <arpa/inet.h>

#include "tep_csum.h"

static inline uint64_t
load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t
load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

uint32_t
tep_csum_partial(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *p = buf;
	uint64_t a0 = sum, a1 = 0;

	while (len >= 32) {
		uint64_t w0 = load64(p), w1 = load64(p + 8);
		uint64_t w2 = load64(p + 16), w3 = load64(p + 24);

		a0 += (w0 & 0xffffffff) + (w0 >> 32);
		a1 += (w1 & 0xffffffff) + (w1 >> 32);
		a0 += (w2 & 0xffffffff) + (w2 >> 32);
		a1 += (w3 & 0xffffffff) + (w3 >> 32);
		p += 32;
		len -= 32;
	}
	while (len >= 8) {
		uint64_t w = load64(p);

		a0 += (w & 0xffffffff) + (w >> 32);
		p += 8;
		len -= 8;
	}
	if (len >= 4) {
		a1 += load32(p);
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		uint16_t w;

		memcpy(&w, p, 2);
		a0 += w;
		p += 2;
		len -= 2;
	}
	if (len) {
		/* The odd last byte is the first byte of a zero-padded word
		 * (RFC 1071 section 4.1); a 2-byte load of {byte, 0} gives
		 * the right lane on either endianness. */
		uint8_t last[2] = { *p, 0 };
		uint16_t w;

		memcpy(&w, last, 2);
		a1 += w;
	}

	a0 = (a0 & 0xffffffff) + (a0 >> 32) + (a1 & 0xffffffff) + (a1 >> 32);
	a0 = (a0 & 0xffffffff) + (a0 >> 32);
	a0 = (a0 & 0xffffffff) + (a0 >> 32);
	return (uint32_t)a0;
}

uint32_t
tep_ipv4_phdr_sum(const void *saddr, const void *daddr, uint8_t proto,
		  uint16_t l4_len)
{
	uint64_t s = (uint64_t)load32(saddr) + load32(daddr) +
		     htons((uint16_t)proto) + htons(l4_len);

	s = (s & 0xffffffff) + (s >> 32);
	return (uint32_t)s + (uint32_t)(s >> 32);
}

uint32_t
tep_ipv6_phdr_sum(const void *saddr, const void *daddr, uint8_t proto,
		  uint32_t l4_len)
{
	uint32_t s = tep_csum_partial(saddr, 16, 0);
	uint32_t tail[2] = { htonl(l4_len), htonl(proto) };

	s = tep_csum_partial(daddr, 16, s);
	return tep_csum_partial(tail, sizeof(tail), s);
}
