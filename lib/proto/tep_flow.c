/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Inner packet inspection for the encapsulator: where the inner IP and L4
 * headers are, what checksum the L4 header carries (so the outer checksum
 * method can be chosen), the flow hash for the outer source port and IPv6
 * flow label, and the TOS/DF bits the outer header may inherit.
 */

#include <rte_hash_crc.h>

#include "tep_bytes.h"
#include "tep_csum.h"
#include "tep_hdr_walk.h"
#include "tep_proto.h"

#define IPPROTO_ICMP_		1
#define IPPROTO_TCP_		6
#define IPPROTO_UDP_		17
#define IPPROTO_ICMPV6_		58
#define IPPROTO_SCTP_		132

/* Inline: n is a constant at each call, so the loop unrolls into its two
 * to eight CRC32 instructions. */
static inline uint32_t
hash_bytes(const uint8_t *p, size_t n, uint32_t h)
{
	size_t i;

	for (i = 0; i + 4 <= n; i += 4)
		h = rte_hash_crc_4byte(tep_rd32(p + i), h);
	return h;
}

/* Fill f->l4 for the L4 header at l4 (l4_len bytes, the L4 datagram, of
 * which the first l4_have or more are readable). */
static inline __attribute__((always_inline)) void
flow_l4(struct tep_flow *f, const uint8_t *l4, uint32_t l4_len,
	uint32_t l4_have, bool v4, uint32_t phdr)
{
	struct tep_inner_l4 *x = &f->l4;

	x->kind = TEP_L4_NONE;
	x->state = TEP_L4_COMPLETE;
	x->phdr = phdr;
	/* Its header must be readable (a chain's first segment): the TCP
	 * header's length is checked against the datagram below. */
	if (l4_have < l4_len && l4_have < 20)
		return;
	switch (f->l4_proto) {
	case IPPROTO_TCP_:
		if (l4_len < 20 || (l4[12] >> 4) * 4u < 20 ||
		    (l4[12] >> 4) * 4u > l4_len)
			return;
		x->kind = TEP_L4_TCP;
		x->csum_offset = 16;
		break;
	case IPPROTO_UDP_:
		if (l4_len < 8)
			return;
		/* IPv4 UDP without a checksum: nothing for LCO to rely on.
		 * (IPv6 UDP must have one; 0 there is treated the same.) */
		if (tep_rd16(l4 + 6) == 0)
			return;
		x->kind = TEP_L4_UDP;
		x->csum_offset = 6;
		break;
	case IPPROTO_ICMP_:
		if (!v4 || l4_len < 4)
			return;
		x->kind = TEP_L4_ICMP;
		x->csum_offset = 2;
		x->phdr = 0;	/* ICMPv4 has no pseudo-header */
		break;
	case IPPROTO_ICMPV6_:
		if (v4 || l4_len < 4)
			return;
		x->kind = TEP_L4_ICMP6;
		x->csum_offset = 2;
		break;
	case IPPROTO_SCTP_:
		if (l4_len < 12)
			return;
		x->kind = TEP_L4_SCTP;
		x->csum_offset = 8;
		break;
	default:
		return;
	}
	if (f->l4_proto != IPPROTO_ICMP_ && f->l4_proto != IPPROTO_ICMPV6_) {
		f->sport = tep_rd16(l4);
		f->dport = tep_rd16(l4 + 2);
	}
}

/* How many bytes from offset l4_off on are readable (flow_l4() sees no
 * header that is not all in the first segment). Not capped at the L4
 * length: flow_l4() needs no cap, and the min() the compiler made of one
 * read a spilled value back with a wider load, a store-forwarding stall
 * that cost a twentieth of the worker. */
static uint32_t
l4_room(size_t hdr_room, uint32_t l4_off)
{
	return hdr_room > l4_off ? (uint32_t)(hdr_room - l4_off) : 0;
}

/*
 * The flow of a packet whose IP header at buf + f->l3_off l3 describes
 * (checked by the walk, tep_hdr_walk.h, here or in the caller's
 * classifier): TOS, DF, the
 * L4 header, the hash.
 */
static inline __attribute__((always_inline)) void
flow_l3(const uint8_t *buf, size_t hdr_room, const struct tep_l3_info *l3,
	bool hash_given, struct tep_flow *f)
{
	const uint8_t *ip = buf + f->l3_off;
	uint32_t l4_off = f->l3_off + (uint32_t)l3->l3_len;
	uint32_t l4_len = (uint32_t)l3->ip_len - l3->l3_len;

	f->ip_version = l3->family;
	f->l3_len = l3->l3_len;
	f->l4_proto = l3->l4_proto;
	f->ip_len = l3->ip_len;
	f->l4.csum_start = (uint16_t)l4_off;
	if (l3->family == 4) {
		f->tos = ip[1];
		f->df = (tep_rd16(ip + 6) & 0x4000) != 0;
		if (l3->l4_usable)
			flow_l4(f, buf + l4_off, l4_len,
				l4_room(hdr_room, l4_off), true,
				tep_ipv4_phdr_sum(ip + 12, ip + 16,
						  l3->l4_proto,
						  (uint16_t)l4_len));
		if (!hash_given)
			f->hash = hash_bytes(ip + 12, 8, l3->l4_proto);
	} else {
		f->tos = (uint8_t)(tep_rd16(ip) >> 4);
		f->df = 1;
		if (l3->l4_usable)
			flow_l4(f, buf + l4_off, l4_len,
				l4_room(hdr_room, l4_off), false,
				tep_ipv6_phdr_sum(ip + 8, ip + 24,
						  l3->l4_proto, l4_len));
		if (!hash_given)
			f->hash = hash_bytes(ip + 8, 32, l3->l4_proto);
	}
	f->l4.l4_end = (uint16_t)(f->l3_off + f->ip_len);
	f->l4.l3_off = f->l3_off;
	if (!hash_given && (f->sport | f->dport))
		f->hash = rte_hash_crc_4byte((uint32_t)f->sport << 16 | f->dport,
					     f->hash);
}

uint32_t
tep_flow_hash_ip(const uint8_t *ip, size_t room, const struct tep_l3_info *l3)
{
	uint32_t h = l3->family == 4 ? hash_bytes(ip + 12, 8, l3->l4_proto) :
		     hash_bytes(ip + 8, 32, l3->l4_proto);

	if (l3->l4_usable && room >= (size_t)l3->l3_len + 4 &&
	    (uint32_t)l3->ip_len >= (uint32_t)l3->l3_len + 4 &&
	    (l3->l4_proto == IPPROTO_TCP_ || l3->l4_proto == IPPROTO_UDP_ ||
	     l3->l4_proto == IPPROTO_SCTP_))
		h = rte_hash_crc_4byte(tep_rd32(ip + l3->l3_len), h);
	return h;
}

enum tep_reason
tep_flow_parse(const uint8_t *buf, size_t len, bool eth, struct tep_flow *f)
{
	return tep_flow_parse_seg(buf, len, len, eth, f);
}

enum tep_reason
tep_flow_parse_seg(const uint8_t *buf, size_t hdr_room, size_t len, bool eth,
		   struct tep_flow *f)
{
	struct tep_l3_info l3;
	struct tep_walk w;
	enum tep_reason r;

	memset(f, 0, sizeof(*f));
	f->l4.kind = TEP_L4_NONE;
	if (hdr_room > len)
		hdr_room = len;
	if (eth) {
		if (len < 14)
			return TEP_R_TRUNCATED;
		/* A tag's room, whether there is one or not. */
		if (hdr_room < 18 && hdr_room < len)
			return TEP_R_HDR_SPLIT;
	}
	if (len > UINT32_MAX)
		return TEP_R_BAD_LENGTH;
	r = eth ? tep_hdr_walk(buf, (uint32_t)len, (uint32_t)hdr_room,
			       TEP_WALK_ETH | TEP_WALK_VLAN | TEP_WALK_EXT, &w) :
		  tep_hdr_walk(buf, (uint32_t)len, (uint32_t)hdr_room,
			       TEP_WALK_EXT, &w);
	if (r == TEP_R_UNKNOWN_PROTO) {
		/* Not IP: opaque L2, hashed on its MAC addresses. */
		f->l3_off = (uint16_t)w.l2_len;
		f->hash = hash_bytes(buf, 12, w.ethertype);
		return TEP_R_OK;
	}
	if (r != TEP_R_OK)
		return r;
	f->l3_off = (uint16_t)w.l2_len;
	l3.l3_len = (uint16_t)w.l3_len;
	l3.ip_len = (uint16_t)w.ip_len;
	l3.family = w.family;
	l3.l4_proto = w.l4_proto;
	/* A fragment's L4 checksum covers the whole datagram, not this
	 * piece: its region sums to nothing LCO can use; a routing header
	 * changes the pseudo-header's destination. */
	l3.l4_usable = tep_walk_l4_whole(&w);
	l3.pad = 0;
	flow_l3(buf, hdr_room, &l3, false, f);
	return TEP_R_OK;
}

enum tep_reason
tep_flow_parse_l3(const uint8_t *buf, size_t hdr_room, bool eth,
		  const struct tep_l3_info *l3, const uint32_t *hash,
		  struct tep_flow *f)
{
	memset(f, 0, sizeof(*f));
	f->l4.kind = TEP_L4_NONE;
	f->l3_off = eth ? 14 : 0;
	if (hash != NULL)
		f->hash = *hash;
	if (hdr_room < f->l3_off + (size_t)l3->l3_len)
		return TEP_R_HDR_SPLIT;
	flow_l3(buf, hdr_room, l3, hash != NULL, f);
	return TEP_R_OK;
}
