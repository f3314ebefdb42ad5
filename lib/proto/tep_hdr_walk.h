/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_HDR_WALK_H
#define TEP_HDR_WALK_H

/*
 * The one walk over a packet's L2/L3 layout: Ethernet (and an 802.1Q tag
 * where the caller allows one), the IPv4 header with its options, the
 * IPv6 header and, where the caller asks, its extension headers; where
 * L4 starts and whether it is all there (not a fragment). Plain bytes, no
 * EAL: every parser in lib/proto, the datapath and drivers/ uses it.
 *
 *   len    the packet's length: IP lengths are checked against it
 *   hroom  how many bytes from buf on are readable (a chain's first
 *          segment); nothing at or after buf + hroom is read
 *
 * The common case (untagged, IPv4, or IPv6 without extension headers) is
 * a straight line inlined into the caller; the flags are constants at
 * each call, so what a caller does not ask for is not compiled in. The
 * rare cases (a length that does not add up, an IPv6 extension chain) are
 * out of line.
 *
 * On TEP_R_OK every field of the result is set. On an error only
 * ethertype and l2_len may be read, and only after TEP_R_UNKNOWN_PROTO
 * (an Ethernet frame that is not IP: the caller decides what that is).
 */

#include <stdbool.h>
#include <stdint.h>

#include "tep_bytes.h"
#include "tep_reason.h"

/* buf starts with an Ethernet header (else with the IP header, whose
 * version nibble gives the family) */
#define TEP_WALK_ETH		0x01u
/* ... which may carry one 802.1Q tag */
#define TEP_WALK_VLAN		0x02u
/* walk IPv6 extension headers to L4 (else l4_proto is the fixed
 * header's next header, l3_len 40, and ext says whether one follows) */
#define TEP_WALK_EXT		0x04u
/*
 * Which reason a bad length gets when several apply. The parsers grew
 * with different orders and their counters are part of their contract:
 *   default            the packet too short (TRUNCATED), then the IP
 *                      lengths disagreeing (BAD_LENGTH), then a header
 *                      beyond the first segment (HDR_SPLIT): tep_flow
 *   TEP_WALK_SPLIT_EARLY  the IP header must be readable before its
 *                      total length is judged: tep_parse_outer
 *   TEP_WALK_NO_SPLIT  headers are pulled up into the first segment, a
 *                      header beyond it is short (TRUNCATED) or
 *                      inconsistent (BAD_LENGTH): the datapath's classify
 */
#define TEP_WALK_SPLIT_EARLY	0x08u
#define TEP_WALK_NO_SPLIT	0x10u

/* More extension headers than this are not walked (ext gets
 * TEP_WALK_X_LONG, L4 is treated as not there). */
#define TEP_WALK_EXT_MAX	8

/* ext bits */
#define TEP_WALK_X_PRESENT	0x01u	/* an extension header follows */
#define TEP_WALK_X_FRAG		0x02u	/* a fragment header */
#define TEP_WALK_X_RT		0x04u	/* a routing header */
#define TEP_WALK_X_RT_LEFT	0x08u	/* ... with segments left: the
					 * pseudo-header's destination is
					 * not the fixed header's */
#define TEP_WALK_X_LONG		0x10u	/* chain longer than EXT_MAX */

#define TEP_WALK_ETH_IPV4	0x0800
#define TEP_WALK_ETH_IPV6	0x86dd
#define TEP_WALK_ETH_VLAN	0x8100

struct tep_walk {
	uint32_t l2_len;	/* 0 (no Ethernet), 14, 18 with a tag */
	uint32_t l3_len;	/* IP header with options, extension headers */
	uint32_t l4_off;	/* l2_len + l3_len */
	uint32_t ip_len;	/* the IP datagram's length, from its header */
	uint16_t ethertype;	/* also without Ethernet: of the version */
	uint8_t family;		/* 4 or 6 */
	uint8_t l4_proto;	/* protocol of what starts at l4_off */
	uint8_t frag;		/* IPv4 MF or offset, or an IPv6 fragment
				 * header: L4 is not (all) here */
	uint8_t ext;		/* TEP_WALK_X_* */
};

#define TEP_WALK_LIKELY(x)	__builtin_expect(!!(x), 1)
#define TEP_WALK_UNLIKELY(x)	__builtin_expect(!!(x), 0)

/* The extension headers that may come before L4 (RFC 8200 4.1) and that
 * the walk steps over: hop-by-hop 0, routing 43, fragment 44,
 * destination options 60. */
static inline bool
tep_walk_is_ext(uint8_t nh)
{
	return nh == 0 || nh == 43 || nh == 44 || nh == 60;
}

/* The reason for a fixed IP header (fix bytes) that is not readable. */
static inline enum tep_reason
tep_walk_short(uint32_t room, uint32_t fix, unsigned int flags)
{
	return room < fix || (flags & TEP_WALK_NO_SPLIT) ? TEP_R_TRUNCATED :
							    TEP_R_HDR_SPLIT;
}

/* An IPv4 header whose lengths do not add up: the reason, in the
 * caller's order (see the flags). */
static __attribute__((noinline, cold, unused)) enum tep_reason
tep_walk_ip4_bad(uint32_t ihl, uint32_t tot, uint32_t room, uint32_t hroom,
		 unsigned int flags)
{
	if (flags & TEP_WALK_SPLIT_EARLY) {
		if (ihl > room)
			return TEP_R_TRUNCATED;
		if (ihl > hroom)
			return TEP_R_HDR_SPLIT;
		return tot < ihl ? TEP_R_BAD_LENGTH : TEP_R_TRUNCATED;
	}
	if (flags & TEP_WALK_NO_SPLIT)
		return tot > room ? TEP_R_TRUNCATED : TEP_R_BAD_LENGTH;
	if (ihl > room || tot > room)
		return TEP_R_TRUNCATED;
	return tot < ihl ? TEP_R_BAD_LENGTH : TEP_R_HDR_SPLIT;
}

/* The IPv6 extension chain after the fixed header at ip (w filled for
 * the fixed header, hroom readable from ip on): where L4 starts. */
static __attribute__((noinline, cold, unused)) enum tep_reason
tep_walk_ip6_ext(const uint8_t *ip, uint32_t hroom, struct tep_walk *w)
{
	uint32_t off = 40, end = w->ip_len, n;
	unsigned int x = TEP_WALK_X_PRESENT;
	uint8_t nh = ip[6];

	for (n = 0; tep_walk_is_ext(nh); n++) {
		uint32_t hlen;

		if (n == TEP_WALK_EXT_MAX) {
			x |= TEP_WALK_X_LONG;
			break;
		}
		if (end - off < 8)
			return TEP_R_TRUNCATED;
		if (hroom < off + 8)
			return TEP_R_HDR_SPLIT;
		hlen = nh == 44 ? 8 : (ip[off + 1] + 1u) * 8;
		if (end - off < hlen)
			return TEP_R_TRUNCATED;
		if (nh == 44)
			x |= TEP_WALK_X_FRAG;
		else if (nh == 43)
			x |= TEP_WALK_X_RT |
			     (ip[off + 3] != 0 ? TEP_WALK_X_RT_LEFT : 0);
		nh = ip[off];
		off += hlen;
	}
	w->l3_len = off;
	w->l4_off = w->l2_len + off;
	w->l4_proto = nh;
	w->frag = (x & TEP_WALK_X_FRAG) != 0;
	w->ext = (uint8_t)x;
	return TEP_R_OK;
}

/* The IPv4 header at ip (room bytes to the packet's end, hroom of them
 * readable). */
static inline __attribute__((always_inline)) enum tep_reason
tep_walk_ip4(const uint8_t *ip, uint32_t room, uint32_t hroom,
	     unsigned int flags, struct tep_walk *w)
{
	uint32_t ihl, tot;

	if (TEP_WALK_UNLIKELY(hroom < 20))
		return tep_walk_short(room, 20, flags);
	ihl = (ip[0] & 0xfu) * 4;
	tot = tep_rd16(ip + 2);
	if (TEP_WALK_UNLIKELY((ip[0] >> 4) != 4))
		return TEP_R_BAD_VERSION;
	if (TEP_WALK_UNLIKELY(ihl < 20))
		return TEP_R_BAD_HDR_LEN;
	if (TEP_WALK_UNLIKELY(tot > room || tot < ihl || ihl > hroom)) {
		enum tep_reason r = tep_walk_ip4_bad(ihl, tot, room, hroom,
						     flags);

		/* Never OK (w is not filled): said so that the compiler
		 * knows, out of line as the function is. */
		if (r == TEP_R_OK)
			__builtin_unreachable();
		return r;
	}
	w->family = 4;
	w->l3_len = ihl;
	w->l4_off = w->l2_len + ihl;
	w->ip_len = tot;
	w->l4_proto = ip[9];
	w->frag = (tep_rd16(ip + 6) & 0x3fff) != 0;	/* MF or an offset */
	w->ext = 0;
	return TEP_R_OK;
}

/* The IPv6 header at ip; its extension headers when flags ask. */
static inline __attribute__((always_inline)) enum tep_reason
tep_walk_ip6(const uint8_t *ip, uint32_t room, uint32_t hroom,
	     unsigned int flags, struct tep_walk *w)
{
	uint32_t tot;

	if (TEP_WALK_UNLIKELY(hroom < 40))
		return tep_walk_short(room, 40, flags);
	if (TEP_WALK_UNLIKELY((ip[0] >> 4) != 6))
		return TEP_R_BAD_VERSION;
	tot = 40u + tep_rd16(ip + 4);
	if (TEP_WALK_UNLIKELY(tot > room))
		return TEP_R_TRUNCATED;
	w->family = 6;
	w->l3_len = 40;
	w->l4_off = w->l2_len + 40;
	w->ip_len = tot;
	w->l4_proto = ip[6];
	w->frag = 0;
	w->ext = tep_walk_is_ext(ip[6]) ? TEP_WALK_X_PRESENT : 0;
	if (TEP_WALK_LIKELY(w->ext == 0) || !(flags & TEP_WALK_EXT))
		return TEP_R_OK;
	return tep_walk_ip6_ext(ip, hroom, w);
}

/*
 * Walk the packet at buf (len bytes long, hroom of them readable) as
 * flags say. TEP_R_OK and w filled, or the reason the packet is not a
 * well-formed IP packet; TEP_R_UNKNOWN_PROTO (with TEP_WALK_ETH) for
 * an Ethernet frame of another protocol.
 */
static inline __attribute__((always_inline)) enum tep_reason
tep_hdr_walk(const uint8_t *buf, uint32_t len, uint32_t hroom,
	     unsigned int flags, struct tep_walk *w)
{
	uint32_t off = 0;
	uint16_t et;

	if (hroom > len)
		hroom = len;
	if (flags & TEP_WALK_ETH) {
		if (TEP_WALK_UNLIKELY(hroom < 14))
			return tep_walk_short(len, 14, flags);
		et = tep_rd16(buf + 12);
		off = 14;
		if ((flags & TEP_WALK_VLAN) && et == TEP_WALK_ETH_VLAN) {
			if (hroom < 18)
				return tep_walk_short(len, 18, flags);
			et = tep_rd16(buf + 16);
			off = 18;
		}
	} else {
		if (TEP_WALK_UNLIKELY(hroom < 1))
			return tep_walk_short(len, 1, flags);
		et = (buf[0] >> 4) == 4 ? TEP_WALK_ETH_IPV4 :
		     (buf[0] >> 4) == 6 ? TEP_WALK_ETH_IPV6 : 0;
	}
	w->ethertype = et;
	w->l2_len = off;
	if (TEP_WALK_LIKELY(et == TEP_WALK_ETH_IPV4))
		return tep_walk_ip4(buf + off, len - off, hroom - off, flags, w);
	if (TEP_WALK_LIKELY(et == TEP_WALK_ETH_IPV6))
		return tep_walk_ip6(buf + off, len - off, hroom - off, flags, w);
	return (flags & TEP_WALK_ETH) ? TEP_R_UNKNOWN_PROTO :
					TEP_R_BAD_VERSION;
}

/* Is the L4 header of a walked packet usable as a whole datagram with
 * the fixed header's pseudo-header: not a fragment, no routing header,
 * the chain walked to its end? */
static inline bool
tep_walk_l4_whole(const struct tep_walk *w)
{
	return !w->frag && !(w->ext & (TEP_WALK_X_RT | TEP_WALK_X_LONG));
}

#endif /* TEP_HDR_WALK_H */
