/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_REF_WALK_H
#define TEP_REF_WALK_H

/*
 * The tests' independent reference for lib/proto/tep_hdr_walk.h: the same
 * contract written plainly, one byte at a time, sharing no code with it
 * (only the flag values, the reason enum and the result struct, which are
 * the contract itself). Slow on purpose: a list of facts about the packet
 * first, then the verdict read off them in the documented order.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tep_hdr_walk.h"

static inline uint32_t
tep_ref_walk_be16(const uint8_t *b, uint32_t at)
{
	return (uint32_t)b[at] * 256u + (uint32_t)b[at + 1];
}

/* Is byte `at` of the packet one the walk may read? */
static inline bool
tep_ref_walk_can_read(uint32_t at, uint32_t readable)
{
	return at < readable;
}

static inline enum tep_reason
tep_ref_walk_unreadable(uint32_t pkt_len, uint32_t need, unsigned int flags)
{
	if (pkt_len < need)
		return TEP_R_TRUNCATED;
	if (flags & TEP_WALK_NO_SPLIT)
		return TEP_R_TRUNCATED;
	return TEP_R_HDR_SPLIT;
}

static inline enum tep_reason
tep_ref_walk(const uint8_t *pkt, uint32_t pkt_len, uint32_t readable,
	     unsigned int flags, struct tep_walk *out)
{
	uint32_t start;	/* where the IP header begins */
	uint32_t type;	/* 0x0800, 0x86dd, anything else */
	uint32_t version, hdr_len, total;
	uint32_t after_start, readable_after;

	if (readable > pkt_len)
		readable = pkt_len;
	memset(out, 0, sizeof(*out));

	/* ---- layer 2 ---- */
	if (flags & TEP_WALK_ETH) {
		if (!tep_ref_walk_can_read(13, readable))
			return tep_ref_walk_unreadable(pkt_len, 14, flags);
		type = tep_ref_walk_be16(pkt, 12);
		start = 14;
		if ((flags & TEP_WALK_VLAN) && type == 0x8100) {
			if (!tep_ref_walk_can_read(17, readable))
				return tep_ref_walk_unreadable(pkt_len, 18,
							       flags);
			type = tep_ref_walk_be16(pkt, 16);
			start = 18;
		}
	} else {
		if (!tep_ref_walk_can_read(0, readable))
			return tep_ref_walk_unreadable(pkt_len, 1, flags);
		start = 0;
		if (pkt[0] / 16 == 4)
			type = 0x0800;
		else if (pkt[0] / 16 == 6)
			type = 0x86dd;
		else
			type = 0;
	}
	out->ethertype = (uint16_t)type;
	out->l2_len = start;
	after_start = pkt_len - start;
	readable_after = readable - start;

	if (type == 0x0800) {
		bool too_short, inconsistent, split;

		if (readable_after < 20)
			return tep_ref_walk_unreadable(after_start, 20, flags);
		version = pkt[start] / 16;
		hdr_len = (pkt[start] % 16) * 4;
		total = tep_ref_walk_be16(pkt, start + 2);
		if (version != 4)
			return TEP_R_BAD_VERSION;
		if (hdr_len < 20)
			return TEP_R_BAD_HDR_LEN;
		too_short = hdr_len > after_start || total > after_start;
		inconsistent = total < hdr_len;
		split = hdr_len > readable_after;
		if (flags & TEP_WALK_SPLIT_EARLY) {
			if (hdr_len > after_start)
				return TEP_R_TRUNCATED;
			if (split)
				return TEP_R_HDR_SPLIT;
			if (inconsistent)
				return TEP_R_BAD_LENGTH;
			if (total > after_start)
				return TEP_R_TRUNCATED;
		} else if (flags & TEP_WALK_NO_SPLIT) {
			if (total > after_start)
				return TEP_R_TRUNCATED;
			if (inconsistent || split)
				return TEP_R_BAD_LENGTH;
		} else {
			if (too_short)
				return TEP_R_TRUNCATED;
			if (inconsistent)
				return TEP_R_BAD_LENGTH;
			if (split)
				return TEP_R_HDR_SPLIT;
		}
		out->family = 4;
		out->l3_len = hdr_len;
		out->l4_off = start + hdr_len;
		out->ip_len = total;
		out->l4_proto = pkt[start + 9];
		/* flags and offset: byte 6 low 6 bits (MF, offset high),
		 * byte 7 (offset low); DF and the reserved bit do not count */
		out->frag = (pkt[start + 6] & 0x3f) != 0 || pkt[start + 7] != 0;
		out->ext = 0;
		return TEP_R_OK;
	}

	if (type == 0x86dd) {
		uint32_t pos, count = 0;
		uint8_t next;
		unsigned int bits = 0;

		if (readable_after < 40)
			return tep_ref_walk_unreadable(after_start, 40, flags);
		if (pkt[start] / 16 != 6)
			return TEP_R_BAD_VERSION;
		total = 40 + tep_ref_walk_be16(pkt, start + 4);
		if (total > after_start)
			return TEP_R_TRUNCATED;
		out->family = 6;
		out->ip_len = total;
		next = pkt[start + 6];
		pos = 40;
		if (next == 0 || next == 43 || next == 44 || next == 60)
			bits = TEP_WALK_X_PRESENT;
		if (flags & TEP_WALK_EXT) {
			while (next == 0 || next == 43 || next == 44 ||
			       next == 60) {
				uint32_t size;

				if (count == TEP_WALK_EXT_MAX) {
					bits |= TEP_WALK_X_LONG;
					break;
				}
				count++;
				if (pos + 8 > total)
					return TEP_R_TRUNCATED;
				if (pos + 8 > readable_after)
					return TEP_R_HDR_SPLIT;
				if (next == 44) {
					size = 8;
					bits |= TEP_WALK_X_FRAG;
				} else {
					size = 8 + 8 * (uint32_t)pkt[start + pos + 1];
				}
				if (pos + size > total)
					return TEP_R_TRUNCATED;
				if (next == 43) {
					bits |= TEP_WALK_X_RT;
					if (pkt[start + pos + 3] != 0)
						bits |= TEP_WALK_X_RT_LEFT;
				}
				next = pkt[start + pos];
				pos += size;
			}
		}
		out->l3_len = pos;
		out->l4_off = start + pos;
		out->l4_proto = next;
		out->frag = (bits & TEP_WALK_X_FRAG) ? 1 : 0;
		out->ext = (uint8_t)bits;
		return TEP_R_OK;
	}

	if (flags & TEP_WALK_ETH)
		return TEP_R_UNKNOWN_PROTO;
	return TEP_R_BAD_VERSION;
}

#endif /* TEP_REF_WALK_H */
