/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Strict parsers for what arrives from the underlay. Each returns
 * TEP_R_OK or the reason the packet must be dropped, reads nothing outside
 * buf[0 .. len), and touches no memory through a cast pointer.
 *
 * Where an RFC says "ignore on receipt" tepd ignores (GENEVE Rsvd, GRE bits
 * 6-12); where Linux is stricter than the RFC for safety tepd follows Linux
 * (unknown VXLAN flags, unknown GUE flags), so that what one accepts the
 * other accepts too.
 */

#include "tep_bytes.h"
#include "tep_csum.h"
#include "tep_hdr_walk.h"
#include "tep_proto.h"

#define IPPROTO_UDP_	17
#define IPPROTO_GRE_	47

#define GUE_F_PRIV	0x0001
#define GUE_PF_REMCSUM	0x80000000u

static uint32_t
outer_phdr(const uint8_t *buf, const struct tep_decap *d, uint8_t proto,
	   uint32_t l4_len)
{
	const uint8_t *s = buf + d->src_off, *t = buf + d->dst_off;

	return d->outer_v6 ? tep_ipv6_phdr_sum(s, t, proto, l4_len) :
			     tep_ipv4_phdr_sum(s, t, proto, (uint16_t)l4_len);
}

uint32_t
tep_decap_outer_phdr(const uint8_t *buf, const struct tep_decap *d)
{
	return outer_phdr(buf, d, IPPROTO_UDP_, d->l4_len);
}

/* Are the bytes up to `end` (an offset in buf) readable? A packet that
 * has them but not in its first segment is a split, not a short one. */
static inline enum tep_reason
hdr_reach(const struct tep_decap *d, uint32_t end)
{
	return end <= d->hdr_room ? TEP_R_OK : TEP_R_HDR_SPLIT;
}

enum tep_reason
tep_parse_outer(const uint8_t *buf, size_t len, unsigned int flags,
		struct tep_decap *d)
{
	return tep_parse_outer_seg(buf, len, len, flags, d);
}

/* The fields of an outer IPv4 header (checked for lengths) at buf + off:
 * its checksum, unless the caller knows it good; fragments are refused, a
 * tunnel packet is never one. */
static enum tep_reason
outer_ip4(const uint8_t *ip, uint32_t off, uint32_t ihl, unsigned int flags,
	  struct tep_decap *d)
{
	uint16_t frag = tep_rd16(ip + 6);

	if (!(flags & TEP_PARSE_IP4_CSUM_OK) &&
	    tep_csum_fold(tep_csum_partial(ip, ihl, 0)) != 0xffff)
		return TEP_R_BAD_IP_CSUM;
	if (frag & 0x8000)	/* RFC 791: reserved, must be zero */
		return TEP_R_RESERVED_SET;
	if (frag & 0x3fff)	/* MF or an offset */
		return TEP_R_FRAGMENT;
	d->tos = ip[1];
	d->ttl = ip[8];
	d->l4_proto = ip[9];
	d->src_off = (uint16_t)(off + 12);
	d->dst_off = (uint16_t)(off + 16);
	d->outer_l3_len = (uint16_t)ihl;
	return TEP_R_OK;
}

/* The fields of an outer IPv6 header at buf + off. No extension headers
 * on the underlay: a tunnel packet to us has UDP or GRE straight after
 * the fixed header (anything else is an unknown protocol). */
static void
outer_ip6(const uint8_t *ip, uint32_t off, struct tep_decap *d)
{
	d->outer_v6 = 1;
	d->tos = (uint8_t)(tep_rd16(ip) >> 4);
	d->ttl = ip[7];
	d->l4_proto = ip[6];
	d->src_off = (uint16_t)(off + 8);
	d->dst_off = (uint16_t)(off + 24);
	d->outer_l3_len = 40;
}

static enum tep_reason outer_l4(const uint8_t *buf, unsigned int flags,
				uint32_t ip_end, struct tep_decap *d);

enum tep_reason
tep_parse_outer_l3(const uint8_t *buf, size_t hdr_room, size_t len,
		   unsigned int flags, const struct tep_l3_info *l3,
		   struct tep_decap *d)
{
	const uint8_t *ip = buf + 14;
	enum tep_reason r;

	memset(d, 0, sizeof(*d));
	if (hdr_room > len)
		hdr_room = len;
	d->hdr_room = (uint32_t)hdr_room;
	if (len > 0xffff + 18)
		return TEP_R_BAD_LENGTH;
	d->outer_l2_len = 14;
	if (l3->family == 4) {
		if (hdr_reach(d, 14u + l3->l3_len) != TEP_R_OK)
			return TEP_R_HDR_SPLIT;
		r = outer_ip4(ip, 14, l3->l3_len, flags, d);
		if (r != TEP_R_OK)
			return r;
	} else {
		if (hdr_reach(d, 14 + 40) != TEP_R_OK)
			return TEP_R_HDR_SPLIT;
		outer_ip6(ip, 14, d);
	}
	return outer_l4(buf, flags, 14u + l3->ip_len, d);
}

enum tep_reason
tep_parse_outer_seg(const uint8_t *buf, size_t hdr_room, size_t len,
		    unsigned int flags, struct tep_decap *d)
{
	struct tep_walk w;
	enum tep_reason r;

	memset(d, 0, sizeof(*d));
	if (hdr_room > len)
		hdr_room = len;
	d->hdr_room = (uint32_t)hdr_room;
	if (len < 14)
		return TEP_R_TRUNCATED;
	if (len > 0xffff + 18)
		return TEP_R_BAD_LENGTH;
	/* No extension headers on the underlay: a tunnel packet to us has
	 * UDP or GRE straight after the fixed IPv6 header (anything else is
	 * an unknown protocol, below). */
	r = tep_hdr_walk(buf, (uint32_t)len, (uint32_t)hdr_room,
			 TEP_WALK_ETH | TEP_WALK_VLAN | TEP_WALK_SPLIT_EARLY,
			 &w);
	if (r != TEP_R_OK)
		return r;
	if (w.l2_len == 18)
		d->vlan_tci = tep_rd16(buf + 14);
	d->outer_l2_len = (uint16_t)w.l2_len;
	if (w.family == 4) {
		r = outer_ip4(buf + w.l2_len, w.l2_len, w.l3_len, flags, d);
		if (r != TEP_R_OK)
			return r;
	} else {
		outer_ip6(buf + w.l2_len, w.l2_len, d);
	}
	return outer_l4(buf, flags, w.l2_len + w.ip_len, d);
}

/* The outer UDP or GRE header of a packet whose IP header ends at ip_end
 * and is described in d. */
static enum tep_reason
outer_l4(const uint8_t *buf, unsigned int flags, uint32_t ip_end,
	 struct tep_decap *d)
{
	uint32_t room;

	d->l4_off = (uint16_t)(d->outer_l2_len + d->outer_l3_len);
	room = ip_end - d->l4_off;	/* Ethernet padding is not counted */

	if (d->l4_proto == IPPROTO_UDP_) {
		const uint8_t *udp = buf + d->l4_off;
		uint16_t ulen;

		if (room < 8)
			return TEP_R_TRUNCATED;
		if (hdr_reach(d, d->l4_off + 8u) != TEP_R_OK)
			return TEP_R_HDR_SPLIT;
		ulen = tep_rd16(udp + 4);
		if (ulen < 8 || ulen > room)
			return TEP_R_BAD_LENGTH;
		d->sport = tep_rd16(udp);
		d->dport = tep_rd16(udp + 2);
		d->l4_len = ulen;
		d->tun_off = (uint16_t)(d->l4_off + 8);
		if (tep_rd16(udp + 6) == 0) {
			if (d->outer_v6 && !(flags & TEP_PARSE_ZERO_CSUM6))
				return TEP_R_ZERO_UDP6_CSUM;
			return TEP_R_OK;
		}
		d->csum_present = 1;
		if ((flags & TEP_PARSE_VERIFY_CSUM) &&
		    hdr_reach(d, d->l4_off + (uint32_t)ulen) == TEP_R_OK) {
			uint32_t s = outer_phdr(buf, d, IPPROTO_UDP_, ulen);

			if (tep_csum_fold(tep_csum_partial(udp, ulen, s)) !=
			    0xffff)
				return TEP_R_BAD_OUTER_CSUM;
			d->csum_verified = 1;
		}
		return TEP_R_OK;
	}
	if (d->l4_proto == IPPROTO_GRE_) {
		d->l4_len = (uint16_t)room;
		d->tun_off = d->l4_off;
		return TEP_R_OK;
	}
	return TEP_R_UNKNOWN_PROTO;
}

/* Set the inner packet, which runs to the end of the UDP/GRE payload. */
static enum tep_reason
set_inner(struct tep_decap *d, uint32_t inner_off, uint16_t proto)
{
	uint32_t end = (uint32_t)d->l4_off + d->l4_len;

	if (inner_off > end)
		return TEP_R_TRUNCATED;
	d->inner_off = (uint16_t)inner_off;
	d->inner_len = (uint16_t)(end - inner_off);
	d->inner_proto = proto;
	d->tun_len = (uint16_t)(inner_off - d->tun_off);
	if (proto == TEP_ETH_P_TEB && d->inner_len < 14)
		return TEP_R_TRUNCATED;
	if (proto != TEP_ETH_P_TEB && d->inner_len < 1)
		return TEP_R_TRUNCATED;
	return TEP_R_OK;
}

/* Bytes of tunnel header available (UDP payload, or GRE to IP end). */
static uint32_t
tun_room(const struct tep_decap *d)
{
	return (uint32_t)d->l4_off + d->l4_len - d->tun_off;
}

enum tep_reason
tep_parse_vxlan(const uint8_t *buf, size_t len, struct tep_decap *d)
{
	const uint8_t *h = buf + d->tun_off;
	enum tep_reason r;

	/* len: what may be read at buf (a chain: its first segment) */
	d->hdr_room = (uint32_t)len;
	d->type = TEP_TUN_VXLAN;
	if (tun_room(d) < 8)
		return TEP_R_TRUNCATED;
	if (hdr_reach(d, d->tun_off + 8u) != TEP_R_OK)
		return TEP_R_HDR_SPLIT;
	/* RFC 7348 section 5: the I flag must be set. Other bits are
	 * reserved but for remote checksum offload (draft-herbert-vxlan-rco);
	 * like Linux, refuse them rather than misread GBP/GPE. Whether the
	 * tunnel takes RCO at all is the caller's to say (Linux: remcsumrx). */
	if (!(h[0] & 0x08))
		return TEP_R_BAD_FLAGS;
	if ((h[0] & ~0x08) || (h[1] & ~(TEP_VXLAN_F_RCO >> 16)) || h[2] ||
	    h[3])
		return TEP_R_RESERVED_SET;
	if (h[1] & (TEP_VXLAN_F_RCO >> 16)) {
		/* Linux vxlan_rco_start()/vxlan_rco_offset(): the start is
		 * in 2-byte units, so always even; both are relative to the
		 * inner Ethernet header, the inner packet. */
		d->has_rco = 1;
		d->rco_start = (uint16_t)((h[7] & TEP_VXLAN_RCO_START) << 1);
		d->rco_offset = (uint16_t)(d->rco_start +
				((h[7] & TEP_VXLAN_RCO_UDP) ? 6 : 16));
	} else if (h[7]) {
		return TEP_R_RESERVED_SET;
	}
	d->has_vni = 1;
	d->vni = tep_rd32(h + 4) >> 8;
	r = set_inner(d, d->tun_off + 8u, TEP_ETH_P_TEB);
	if (r != TEP_R_OK)
		return r;
	/* The checksum field must lie inside the inner frame (Linux pulls
	 * up to it and drops the packet that is shorter). */
	if (d->has_rco && (uint32_t)d->rco_offset + 2 > d->inner_len)
		return TEP_R_BAD_RCO;
	return TEP_R_OK;
}

/*
 * Walk GENEVE options (RFC 8926 section 3.5): TLVs of 4 + 4*len bytes
 * that must exactly fill opt_len. tepd consumes no option, so a critical
 * one (type bit 7) means drop (section 3.5.1).
 */
static enum tep_reason
geneve_walk_opts(const uint8_t *o, uint32_t opt_len)
{
	uint32_t off = 0;

	while (off < opt_len) {
		uint32_t olen;

		if (opt_len - off < 4)
			return TEP_R_BAD_OPTION;
		olen = 4 + (o[off + 3] & 0x1fu) * 4;
		if (olen > opt_len - off)
			return TEP_R_BAD_OPTION;
		if (o[off + 2] & 0x80)
			return TEP_R_CRITICAL_OPTION;
		off += olen;
	}
	return TEP_R_OK;
}

enum tep_reason
tep_parse_geneve(const uint8_t *buf, size_t len, struct tep_decap *d)
{
	const uint8_t *h = buf + d->tun_off;
	uint32_t opt_len;
	uint16_t proto;
	enum tep_reason r;

	/* len: what may be read at buf (a chain: its first segment) */
	d->hdr_room = (uint32_t)len;
	d->type = TEP_TUN_GENEVE;
	if (tun_room(d) < 8)
		return TEP_R_TRUNCATED;
	if (hdr_reach(d, d->tun_off + 8u) != TEP_R_OK)
		return TEP_R_HDR_SPLIT;
	if ((h[0] >> 6) != 0)
		return TEP_R_BAD_VERSION;
	opt_len = (h[0] & 0x3fu) * 4;
	if (tun_room(d) < 8 + opt_len)
		return TEP_R_TRUNCATED;
	if (hdr_reach(d, d->tun_off + 8u + opt_len) != TEP_R_OK)
		return TEP_R_HDR_SPLIT;
	proto = tep_rd16(h + 2);
	if (proto != TEP_ETH_P_TEB && proto != TEP_ETH_P_IPV4 &&
	    proto != TEP_ETH_P_IPV6)
		return TEP_R_UNKNOWN_PROTO;
	d->oam = (h[1] & 0x80) != 0;
	d->has_vni = 1;
	d->vni = tep_rd32(h + 4) >> 8;
	d->opt_off = (uint16_t)(d->tun_off + 8);
	d->opt_len = (uint16_t)opt_len;
	r = geneve_walk_opts(h + 8, opt_len);
	if (r != TEP_R_OK)
		return r;
	return set_inner(d, d->tun_off + 8 + opt_len, proto);
}

/* The inner IP version must be the one the tunnel says it carries. */
static enum tep_reason
check_inner_ip(const uint8_t *buf, const struct tep_decap *d)
{
	uint8_t v;

	if (hdr_reach(d, d->inner_off + 1u) != TEP_R_OK)
		return TEP_R_HDR_SPLIT;
	v = buf[d->inner_off] >> 4;
	if (d->inner_proto == TEP_ETH_P_IPV4 ? v != 4 : v != 6)
		return TEP_R_BAD_VERSION;
	return TEP_R_OK;
}

enum tep_reason
tep_parse_fou(const uint8_t *buf, size_t len, uint8_t ip_proto,
	      struct tep_decap *d)
{
	enum tep_reason r;

	/* len: what may be read at buf (a chain: its first segment) */
	d->hdr_room = (uint32_t)len;
	d->type = TEP_TUN_FOU;
	if (ip_proto != 4 && ip_proto != 41)
		return TEP_R_UNKNOWN_PROTO;
	r = set_inner(d, d->tun_off,
		      ip_proto == 4 ? TEP_ETH_P_IPV4 : TEP_ETH_P_IPV6);
	return r != TEP_R_OK ? r : check_inner_ip(buf, d);
}

enum tep_reason
tep_parse_gue(const uint8_t *buf, size_t len, struct tep_decap *d)
{
	const uint8_t *h = buf + d->tun_off;
	uint32_t hlen, used = 0;
	uint16_t gflags;
	enum tep_reason r;

	/* len: what may be read at buf (a chain: its first segment) */
	d->hdr_room = (uint32_t)len;
	d->type = TEP_TUN_GUE;
	if (tun_room(d) < 1)
		return TEP_R_TRUNCATED;
	if (hdr_reach(d, d->tun_off + 1u) != TEP_R_OK)
		return TEP_R_HDR_SPLIT;
	switch (h[0] >> 6) {
	case 1:
		/* Variant 1: the IP header itself, version 4 (0100) or 6
		 * (0110); its top two bits are the variant. */
		if ((h[0] >> 4) != 4 && (h[0] >> 4) != 6)
			return TEP_R_BAD_VERSION;
		return set_inner(d, d->tun_off, (h[0] >> 4) == 4 ?
				 TEP_ETH_P_IPV4 : TEP_ETH_P_IPV6);
	case 0:
		break;
	default:
		return TEP_R_BAD_VERSION;
	}
	if (tun_room(d) < 4)
		return TEP_R_TRUNCATED;
	if (h[0] & 0x20)
		return TEP_R_CONTROL_MSG;
	hlen = (h[0] & 0x1fu) * 4;
	if (tun_room(d) < 4 + hlen)
		return TEP_R_TRUNCATED;
	if (hdr_reach(d, d->tun_off + 4u + hlen) != TEP_R_OK)
		return TEP_R_HDR_SPLIT;
	gflags = tep_rd16(h + 2);
	if (gflags & ~GUE_F_PRIV)
		return TEP_R_BAD_FLAGS;
	if (gflags & GUE_F_PRIV) {
		uint32_t pflags;

		if (hlen < 4)
			return TEP_R_BAD_HDR_LEN;
		pflags = tep_rd32(h + 4);
		used = 4;
		if (pflags & ~GUE_PF_REMCSUM)
			return TEP_R_BAD_FLAGS;
		if (pflags & GUE_PF_REMCSUM) {
			if (hlen < used + 4)
				return TEP_R_BAD_HDR_LEN;
			d->has_rco = 1;
			d->rco_start = tep_rd16(h + 4 + used);
			d->rco_offset = tep_rd16(h + 6 + used);
		}
	}
	d->opt_off = (uint16_t)(d->tun_off + 4);
	d->opt_len = (uint16_t)hlen;
	if (h[1] != 4 && h[1] != 41)
		return TEP_R_UNKNOWN_PROTO;
	r = set_inner(d, d->tun_off + 4 + hlen,
		      h[1] == 4 ? TEP_ETH_P_IPV4 : TEP_ETH_P_IPV6);
	if (r != TEP_R_OK)
		return r;
	r = check_inner_ip(buf, d);
	if (r != TEP_R_OK)
		return r;
	/* The checksum field must lie inside the inner packet, at or after
	 * the place the checksum starts. */
	if (d->has_rco && (d->rco_offset < d->rco_start ||
			   (uint32_t)d->rco_offset + 2 > d->inner_len))
		return TEP_R_BAD_RCO;
	return TEP_R_OK;
}

enum tep_reason
tep_parse_gre(const uint8_t *buf, size_t len, unsigned int flags,
	      struct tep_decap *d)
{
	const uint8_t *h = buf + d->tun_off;
	uint32_t hl = 4;
	uint16_t w, proto;

	/* len: what may be read at buf (a chain: its first segment) */
	d->hdr_room = (uint32_t)len;
	d->type = TEP_TUN_GRE;
	if (tun_room(d) < 4)
		return TEP_R_TRUNCATED;
	if (hdr_reach(d, d->tun_off + 4u) != TEP_R_OK)
		return TEP_R_HDR_SPLIT;
	w = tep_rd16(h);
	/* RFC 2784 section 2.3: bits 1-5 non-zero means discard (RFC 2890
	 * gives bits 2 and 3 to K and S); bits 6-12 are ignored. */
	if (w & 0x4c00)
		return TEP_R_RESERVED_SET;
	if (w & 0x0007)
		return TEP_R_BAD_VERSION;
	hl += (w & 0x8000) ? 4 : 0;
	hl += (w & 0x2000) ? 4 : 0;
	hl += (w & 0x1000) ? 4 : 0;
	if (tun_room(d) < hl)
		return TEP_R_TRUNCATED;
	if (hdr_reach(d, d->tun_off + hl) != TEP_R_OK)
		return TEP_R_HDR_SPLIT;
	proto = tep_rd16(h + 2);
	if (proto != TEP_ETH_P_TEB && proto != TEP_ETH_P_IPV4 &&
	    proto != TEP_ETH_P_IPV6)
		return TEP_R_UNKNOWN_PROTO;
	if (w & 0x8000) {
		d->csum_present = 1;
		if ((flags & TEP_PARSE_VERIFY_CSUM) &&
		    hdr_reach(d, d->tun_off + tun_room(d)) == TEP_R_OK) {
			/* No pseudo-header: GRE header and payload only. */
			if (tep_csum_fold(tep_csum_partial(h, tun_room(d), 0))
			    != 0xffff)
				return TEP_R_BAD_OUTER_CSUM;
			d->csum_verified = 1;
		}
	}
	if (w & 0x2000) {
		d->has_vni = 1;
		d->vni = tep_rd32(h + ((w & 0x8000) ? 8 : 4));
	}
	return set_inner(d, d->tun_off + hl, proto);
}

enum tep_reason
tep_gue_rco_apply(uint8_t *buf, const struct tep_decap *d)
{
	return tep_rco_apply(buf, d);
}

enum tep_reason
tep_rco_apply(uint8_t *buf, const struct tep_decap *d)
{
	uint32_t start, before;
	uint16_t ck;

	if (!d->has_rco)
		return TEP_R_OK;
	/* The trick needs a valid outer checksum to subtract from. */
	if (!d->csum_present || d->rco_offset < d->rco_start ||
	    (uint32_t)d->rco_offset + 2 > d->inner_len)
		return TEP_R_BAD_RCO;
	if (hdr_reach(d, (uint32_t)d->inner_off + d->rco_offset + 2) !=
	    TEP_R_OK)
		return TEP_R_HDR_SPLIT;
	/* The datagram with its pseudo-header sums to -0, so the region
	 * from the checksum start to the end sums to ~(what precedes it):
	 * no payload byte is read. The region held the sender's seed s;
	 * its checksum over it is ~(region) = what precedes it. */
	start = (uint32_t)(d->inner_off - d->l4_off) + d->rco_start;
	before = tep_csum_partial(buf + d->l4_off, start,
				  outer_phdr(buf, d, IPPROTO_UDP_, d->l4_len));
	ck = tep_csum_fold(before);
	if (start & 1)	/* the region's own lanes are the swapped ones */
		ck = (uint16_t)(ck >> 8 | ck << 8);
	tep_wr_csum(buf + d->inner_off + d->rco_offset, ck);
	return TEP_R_OK;
}

bool
tep_inner_csum_derive(const uint8_t *buf, const struct tep_decap *d,
		      uint32_t inner_l4, uint32_t inner_phdr)
{
	uint32_t start = inner_l4 - d->l4_off, before;
	uint16_t region, total;

	if (d->l4_proto != IPPROTO_UDP_ || !d->csum_present ||
	    inner_l4 < d->l4_off || start >= d->l4_len ||
	    hdr_reach(d, inner_l4) != TEP_R_OK)
		return false;
	before = tep_csum_partial(buf + d->l4_off, start,
				  outer_phdr(buf, d, IPPROTO_UDP_, d->l4_len));
	region = (uint16_t)~tep_csum_fold(before);
	if (start & 1)	/* the region's own lanes are the swapped ones */
		region = (uint16_t)(region >> 8 | region << 8);
	/*
	 * Right when region + phdr is ones-complement zero, which has two
	 * forms. 0xffff is the usual one; 0 comes only from region 0 and
	 * phdr 0: an ICMPv4 message (no pseudo-header), whose valid region
	 * sums to -0, so the bytes before it do too and region is ~0xffff.
	 * Accepting 0xffff alone refused every valid ICMPv4 message.
	 */
	total = tep_csum_fold(tep_csum_add(region, inner_phdr));
	return total == 0xffff || total == 0;
}
