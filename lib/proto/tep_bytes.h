/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_BYTES_H
#define TEP_BYTES_H

/*
 * Alignment-safe network-order loads and stores. Headers after a 14-byte
 * Ethernet header, or after decapsulation, are not 4-byte aligned, so no
 * header is ever accessed through a cast pointer.
 */

#include <stdint.h>
#include <string.h>

static inline uint16_t
tep_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
tep_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline void
tep_wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
tep_wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* A checksum value from lib/csum (memory order) into a packet. */
static inline void
tep_wr_csum(uint8_t *p, uint16_t memval)
{
	memcpy(p, &memval, sizeof(memval));
}

static inline uint16_t
tep_rd_csum(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

#endif /* TEP_BYTES_H */
