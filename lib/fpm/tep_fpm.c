/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * FPM stream parser (tep_fpm.h, docs/evpn.md). Every length read from
 * the wire is checked against what is left of its container before
 * anything behind it is touched: the frame bounds the netlink message,
 * which bounds the attributes, which bound their nested attributes and
 * RTA_MULTIPATH's next hops. Multi-byte netlink fields are read with
 * memcpy: an FPM frame sits anywhere in a TCP buffer.
 *
 * The netlink numbers are spelled out here rather than taken from
 * <linux/rtnetlink.h>: they are wire format, frozen, and the parser then
 * builds and fuzzes the same everywhere.
 */

#include <string.h>

#include "tep_fpm.h"

/* netlink message types */
#define NL_RTM_NEWROUTE		24
#define NL_RTM_DELROUTE		25
#define NL_RTM_NEWNEIGH		28
#define NL_RTM_DELNEIGH		29
#define NL_RTM_NEWNEXTHOP	104
#define NL_RTM_DELNEXTHOP	105

#define NL_AF_INET		2
#define NL_AF_BRIDGE		7
#define NL_AF_INET6		10

#define NL_HDR_LEN		16	/* struct nlmsghdr */
#define NL_ALIGN(n)		(((size_t)(n) + 3) & ~(size_t)3)
#define NL_RTMSG_LEN		12	/* struct rtmsg */
#define NL_NDMSG_LEN		12	/* struct ndmsg */
#define NL_NHMSG_LEN		8	/* struct nhmsg */
#define NL_NHGRP_LEN		8	/* struct nexthop_grp */
#define NL_RTA_HDR		4	/* struct rtattr */
#define NL_RTNH_LEN		8	/* struct rtnexthop */
/* NLA_F_NESTED, NLA_F_NET_BYTEORDER: zebra sets NESTED on RTA_MULTIPATH */
#define NL_ATTR_TYPE_MASK	0x3fff

/* route attributes */
#define RTA_DST_		1
#define RTA_SRC_		2
#define RTA_OIF_		4
#define RTA_GATEWAY_		5
#define RTA_PRIORITY_		6
#define RTA_PREFSRC_		7
#define RTA_MULTIPATH_		9
#define RTA_TABLE_		15
#define RTA_VIA_		18
#define RTA_ENCAP_TYPE_		21
#define RTA_ENCAP_		22
#define RTA_NH_ID_		30

/* neighbour attributes */
#define NDA_DST_		1
#define NDA_LLADDR_		2
#define NDA_VLAN_		5
#define NDA_VNI_		7
#define NDA_MASTER_		9

/* next-hop object attributes (linux/nexthop.h) */
#define NHA_ID_			1
#define NHA_GROUP_		2
#define NHA_GROUP_TYPE_		3
#define NHA_BLACKHOLE_		4
#define NHA_OIF_		5
#define NHA_GATEWAY_		6
#define NHA_ENCAP_TYPE_		7
#define NHA_ENCAP_		8

/* inside RTA_ENCAP when RTA_ENCAP_TYPE is TEP_FPM_ENCAP_VXLAN
 * (FRR fpm.h: VXLAN_VNI = 0) */
#define FPM_VXLAN_VNI		0
#define VNI_MAX			0xffffffu

#define ALIGN4(x)		(((x) + 3u) & ~(size_t)3u)

static const char *const err_names[] = {
#define TEP_FPM_X(n, s) [TEP_FPM_E_##n] = s,
	TEP_FPM_ERRORS(TEP_FPM_X)
#undef TEP_FPM_X
};

static const char *const ignore_names[] = {
#define TEP_FPM_X(n, s) [TEP_FPM_IGN_##n] = s,
	TEP_FPM_IGNORE_REASONS(TEP_FPM_X)
#undef TEP_FPM_X
};

const char *
tep_fpm_err_str(int err)
{
	if (err < 0 || err >= TEP_FPM_E_MAX)
		return "unknown error";
	return err_names[err];
}

const char *
tep_fpm_ignore_str(int reason)
{
	if (reason < 0 || reason >= TEP_FPM_IGN_MAX)
		return "unknown reason";
	return ignore_names[reason];
}

const char *
tep_fpm_kind_str(int kind)
{
	switch (kind) {
	case TEP_FPM_IGNORED:
		return "ignored";
	case TEP_FPM_ROUTE_ADD:
		return "route add";
	case TEP_FPM_ROUTE_DEL:
		return "route del";
	case TEP_FPM_MAC_ADD:
		return "mac add";
	case TEP_FPM_MAC_DEL:
		return "mac del";
	case TEP_FPM_NH_ADD:
		return "nexthop add";
	case TEP_FPM_NH_DEL:
		return "nexthop del";
	default:
		return "unknown kind";
	}
}

static uint16_t
get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Parsing state: the frame, and where to report an error. */
struct ctx {
	const uint8_t *f;
	struct tep_fpm_msg *out;
};

static int
fail(struct ctx *c, int err, size_t off, uint16_t attr)
{
	c->out->err_off = (uint32_t)off;
	c->out->err_attr = attr;
	return err;
}

/* A run of attributes f[off..end), top level or nested. */
struct walk {
	size_t off, end;
	bool nested;
};

struct attr {
	uint16_t type;		/* flags masked off */
	size_t hdr;		/* offset of the rtattr */
	size_t data;		/* offset of the payload */
	size_t len;		/* payload length */
};

/* 1: *a is the next attribute; 0: end of the run; <0: -error. */
static int
attr_next(struct ctx *c, struct walk *w, struct attr *a)
{
	size_t rem = w->end - w->off;
	uint16_t rlen;

	if (rem == 0)
		return 0;
	if (rem < NL_RTA_HDR)
		return -fail(c, w->nested ? TEP_FPM_E_NESTED_TRUNC :
			     TEP_FPM_E_ATTR_TRUNC, w->off, 0);
	rlen = get16(c->f + w->off);
	a->type = get16(c->f + w->off + 2) & NL_ATTR_TYPE_MASK;
	if (rlen < NL_RTA_HDR)
		return -fail(c, w->nested ? TEP_FPM_E_NESTED_SHORT :
			     TEP_FPM_E_ATTR_SHORT, w->off, a->type);
	if (rlen > rem)
		return -fail(c, w->nested ? TEP_FPM_E_NESTED_PAST_END :
			     TEP_FPM_E_ATTR_PAST_END, w->off, a->type);
	a->hdr = w->off;
	a->data = w->off + NL_RTA_HDR;
	a->len = rlen - NL_RTA_HDR;
	/* The last attribute may come without its padding. */
	w->off += ALIGN4(rlen) <= rem ? ALIGN4(rlen) : rem;
	return 1;
}

/* Seen-set for the duplicate check; attribute types below 64 only. */
static bool
seen_once(uint64_t *seen, uint16_t type)
{
	uint64_t bit;

	if (type >= 64)
		return true;
	bit = (uint64_t)1 << type;
	if (*seen & bit)
		return false;
	*seen |= bit;
	return true;
}

static size_t
addr_len(uint8_t family)
{
	return family == NL_AF_INET ? 4 : 16;
}

static const uint8_t v4mapped[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

/*
 * A gateway of a route of this family, from RTA_GATEWAY (addr_family 0:
 * the route's own) or RTA_VIA. zebra writes an IPv4 VTEP of an IPv6
 * route as ::ffff:a.b.c.d; it is given back as what it is, IPv4.
 */
static int
set_gw(struct ctx *c, struct tep_fpm_nh *nh, uint8_t family,
       const struct attr *a)
{
	const uint8_t *p = c->f + a->data;
	size_t len = a->len;
	uint8_t gfam = family;

	if (a->type == RTA_VIA_) {
		uint16_t vfam;

		if (len < 2)
			return fail(c, TEP_FPM_E_ATTR_SIZE, a->hdr, a->type);
		vfam = get16(p);
		p += 2;
		len -= 2;
		if (vfam != NL_AF_INET && vfam != NL_AF_INET6)
			return fail(c, TEP_FPM_E_GW_FAMILY, a->hdr, a->type);
		gfam = (uint8_t)vfam;
		if (len != addr_len(gfam))
			return fail(c, TEP_FPM_E_ATTR_SIZE, a->hdr, a->type);
	} else if (len != addr_len(family)) {
		if (len == 4 || len == 16)
			return fail(c, TEP_FPM_E_GW_FAMILY, a->hdr, a->type);
		return fail(c, TEP_FPM_E_ATTR_SIZE, a->hdr, a->type);
	}
	if (gfam == NL_AF_INET6 && memcmp(p, v4mapped, 12) == 0) {
		nh->gw_family = NL_AF_INET;
		nh->gw_mapped = true;
		memcpy(nh->gw, p + 12, 4);
	} else {
		nh->gw_family = gfam;
		memcpy(nh->gw, p, len);
	}
	return TEP_FPM_E_OK;
}

/* RTA_ENCAP's nested attributes, once RTA_ENCAP_TYPE is known. */
static int
parse_encap(struct ctx *c, struct tep_fpm_nh *nh, const struct attr *enc)
{
	struct walk w = { enc->data, enc->data + enc->len, true };
	struct attr a;
	bool has_vni = false;
	int r;

	while ((r = attr_next(c, &w, &a)) > 0) {
		if (nh->encap_type != TEP_FPM_ENCAP_VXLAN ||
		    a.type != FPM_VXLAN_VNI)
			continue;
		if (has_vni)
			return fail(c, TEP_FPM_E_DUP_ATTR, a.hdr, a.type);
		if (a.len != 4)
			return fail(c, TEP_FPM_E_ATTR_SIZE, a.hdr, a.type);
		nh->vni = get32(c->f + a.data);
		if (nh->vni > VNI_MAX)
			return fail(c, TEP_FPM_E_VNI_RANGE, a.hdr, a.type);
		has_vni = true;
	}
	if (r < 0)
		return -r;
	if (nh->encap_type == TEP_FPM_ENCAP_VXLAN && !has_vni)
		return fail(c, TEP_FPM_E_VNI_MISSING, enc->hdr, RTA_ENCAP_);
	return TEP_FPM_E_OK;
}

/* What a next hop may carry, at top level or inside a rtnexthop. */
struct nh_attrs {
	bool has_gw, has_oif, has_etype, has_encap;
	struct attr gw, encap;
	uint32_t oif;
	uint16_t etype;
	size_t etype_off;
};

/* 1: a was a next hop attribute (taken); 0: not one; <0: -error. */
static int
take_nh_attr(struct ctx *c, struct nh_attrs *n, const struct attr *a)
{
	switch (a->type) {
	case RTA_GATEWAY_:
	case RTA_VIA_:
		if (n->has_gw)
			return -fail(c, TEP_FPM_E_DUP_ATTR, a->hdr, a->type);
		n->has_gw = true;
		n->gw = *a;
		return 1;
	case RTA_OIF_:
		if (a->len != 4)
			return -fail(c, TEP_FPM_E_ATTR_SIZE, a->hdr, a->type);
		n->has_oif = true;
		n->oif = get32(c->f + a->data);
		return 1;
	case RTA_ENCAP_TYPE_:
		if (n->has_etype)
			return -fail(c, TEP_FPM_E_DUP_ATTR, a->hdr, a->type);
		if (a->len != 2)
			return -fail(c, TEP_FPM_E_ATTR_SIZE, a->hdr, a->type);
		n->has_etype = true;
		n->etype = get16(c->f + a->data);
		n->etype_off = a->hdr;
		return 1;
	case RTA_ENCAP_:
		if (n->has_encap)
			return -fail(c, TEP_FPM_E_DUP_ATTR, a->hdr, a->type);
		n->has_encap = true;
		n->encap = *a;
		return 1;
	default:
		return 0;
	}
}

static int
fill_nh(struct ctx *c, struct tep_fpm_nh *nh, uint8_t family,
	const struct nh_attrs *n)
{
	int r;

	if (n->has_gw) {
		r = set_gw(c, nh, family, &n->gw);
		if (r != TEP_FPM_E_OK)
			return r;
	}
	if (n->has_oif)
		nh->oif = n->oif;
	if (n->has_encap && !n->has_etype)
		return fail(c, TEP_FPM_E_ENCAP_NO_TYPE, n->encap.hdr,
			    RTA_ENCAP_);
	if (n->has_etype) {
		nh->encap_type = n->etype;
		if (n->has_encap)
			return parse_encap(c, nh, &n->encap);
		if (n->etype == TEP_FPM_ENCAP_VXLAN)
			return fail(c, TEP_FPM_E_VNI_MISSING, n->etype_off,
				    RTA_ENCAP_TYPE_);
	}
	return TEP_FPM_E_OK;
}

/* RTA_MULTIPATH: rtnexthop {len u16, flags u8, hops u8, ifindex s32}
 * each followed by its own attributes, all within rtnh len. */
static int
parse_multipath(struct ctx *c, struct tep_fpm_route *rt,
		const struct attr *mp)
{
	size_t off = mp->data, end = mp->data + mp->len;
	struct tep_fpm_nh spare;
	int r;

	if (mp->len == 0)
		return fail(c, TEP_FPM_E_NH_EMPTY, mp->hdr, mp->type);
	while (off < end) {
		size_t rem = end - off;
		struct nh_attrs n = { 0 };
		struct tep_fpm_nh *nh;
		struct walk w;
		struct attr a;
		uint16_t nlen;

		if (rem < NL_RTNH_LEN)
			return fail(c, TEP_FPM_E_RTNH_TRUNC, off, mp->type);
		nlen = get16(c->f + off);
		if (nlen < NL_RTNH_LEN)
			return fail(c, TEP_FPM_E_RTNH_SHORT, off, mp->type);
		if (nlen > rem)
			return fail(c, TEP_FPM_E_RTNH_PAST_END, off, mp->type);
		if (rt->nh_count + rt->nh_dropped == TEP_FPM_MAX_PATHS)
			return fail(c, TEP_FPM_E_NH_TOO_MANY, off, mp->type);
		/* past what is kept: decoded as strictly, into a scratch */
		if (rt->nh_count == TEP_FPM_MAX_NH) {
			memset(&spare, 0, sizeof(spare));
			nh = &spare;
			rt->nh_dropped++;
		} else {
			nh = &rt->nh[rt->nh_count++];
		}
		nh->flags = c->f[off + 2];
		nh->weight = (uint16_t)c->f[off + 3] + 1;
		nh->oif = get32(c->f + off + 4);
		w.off = off + NL_RTNH_LEN;
		w.end = off + nlen;
		w.nested = true;
		while ((r = attr_next(c, &w, &a)) > 0) {
			/* an RTA_OIF here would contradict rtnh_ifindex */
			if (a.type == RTA_OIF_)
				continue;
			r = take_nh_attr(c, &n, &a);
			if (r < 0)
				return -r;
		}
		if (r < 0)
			return -r;
		r = fill_nh(c, nh, rt->family, &n);
		if (r != TEP_FPM_E_OK)
			return r;
		off += ALIGN4(nlen) <= rem ? ALIGN4(nlen) : rem;
	}
	return TEP_FPM_E_OK;
}

static bool
route_type_ok(uint8_t type, bool del)
{
	switch (type) {
	case TEP_FPM_RTN_UNSPEC:
		return del;
	case TEP_FPM_RTN_UNICAST:
	case TEP_FPM_RTN_BLACKHOLE:
	case TEP_FPM_RTN_UNREACHABLE:
	case TEP_FPM_RTN_PROHIBIT:
		return true;
	default:
		return false;
	}
}

/* Clear the bits past plen; say whether any was set. */
static bool
mask_prefix(uint8_t *p, unsigned int alen, unsigned int plen)
{
	bool set = false;
	unsigned int i;

	for (i = 0; i < alen; i++) {
		uint8_t keep;

		if (plen >= 8 * (i + 1))
			continue;
		keep = plen > 8 * i ? (uint8_t)(0xff00 >> (plen - 8 * i)) : 0;
		if (p[i] & ~keep)
			set = true;
		p[i] &= keep;
	}
	return set;
}

static int
parse_route(struct ctx *c, size_t off, size_t end, bool del)
{
	struct tep_fpm_msg *out = c->out;
	struct tep_fpm_route *rt = &out->route;
	const uint8_t *m = c->f + off;
	struct nh_attrs top = { 0 };
	struct attr a, mp = { 0 };
	bool has_dst = false, has_mp = false;
	uint64_t seen = 0;
	struct walk w;
	size_t alen;
	int r;

	if (end - off < NL_RTMSG_LEN)
		return fail(c, TEP_FPM_E_BODY_SHORT, off, 0);
	if (m[0] != NL_AF_INET && m[0] != NL_AF_INET6) {
		out->ignore = TEP_FPM_IGN_FAMILY;
		return TEP_FPM_E_OK;
	}
	rt->family = m[0];
	alen = addr_len(rt->family);
	if (m[1] > 8 * alen)
		return fail(c, TEP_FPM_E_PLEN, off + 1, 0);
	rt->plen = m[1];
	rt->table = m[4];
	rt->protocol = m[5];
	rt->scope = m[6];
	rt->type = m[7];
	rt->rtm_flags = get32(m + 8);
	if (m[2] != 0) {
		out->ignore = TEP_FPM_IGN_SRC_PREFIX;
		return TEP_FPM_E_OK;
	}
	if (!route_type_ok(rt->type, del)) {
		out->ignore = TEP_FPM_IGN_ROUTE_TYPE;
		return TEP_FPM_E_OK;
	}

	w.off = off + NL_RTMSG_LEN;
	w.end = end;
	w.nested = false;
	while ((r = attr_next(c, &w, &a)) > 0) {
		if (!seen_once(&seen, a.type))
			return fail(c, TEP_FPM_E_DUP_ATTR, a.hdr, a.type);
		switch (a.type) {
		case RTA_DST_:
			if (a.len != alen)
				return fail(c, TEP_FPM_E_ATTR_SIZE, a.hdr,
					    a.type);
			memcpy(rt->prefix, c->f + a.data, alen);
			has_dst = true;
			break;
		case RTA_PREFSRC_:
			if (a.len != alen)
				return fail(c, TEP_FPM_E_ATTR_SIZE, a.hdr,
					    a.type);
			break;
		case RTA_PRIORITY_:
			if (a.len != 4)
				return fail(c, TEP_FPM_E_ATTR_SIZE, a.hdr,
					    a.type);
			rt->has_metric = true;
			rt->metric = get32(c->f + a.data);
			break;
		case RTA_TABLE_:
			if (a.len != 4)
				return fail(c, TEP_FPM_E_ATTR_SIZE, a.hdr,
					    a.type);
			rt->table = get32(c->f + a.data);
			break;
		case RTA_NH_ID_:
			if (a.len != 4)
				return fail(c, TEP_FPM_E_ATTR_SIZE, a.hdr,
					    a.type);
			rt->has_nh_id = true;
			rt->nh_id = get32(c->f + a.data);
			break;
		case RTA_MULTIPATH_:
			has_mp = true;
			mp = a;
			break;
		default:
			r = take_nh_attr(c, &top, &a);
			if (r < 0)
				return -r;
			break;
		}
	}
	if (r < 0)
		return -r;

	if (rt->plen > 0 && !has_dst)
		return fail(c, TEP_FPM_E_DST_MISSING, off + 1, 0);
	rt->host_bits = mask_prefix(rt->prefix, (unsigned int)alen, rt->plen);

	if (has_mp) {
		if (top.has_gw || top.has_oif || top.has_etype ||
		    top.has_encap)
			return fail(c, TEP_FPM_E_NH_MIXED, mp.hdr, mp.type);
		r = parse_multipath(c, rt, &mp);
		if (r != TEP_FPM_E_OK)
			return r;
	} else if (top.has_gw || top.has_oif || top.has_etype ||
		   top.has_encap) {
		struct tep_fpm_nh *nh = &rt->nh[0];

		rt->nh_count = 1;
		nh->weight = 1;
		r = fill_nh(c, nh, rt->family, &top);
		if (r != TEP_FPM_E_OK)
			return r;
	}

	/* a route by next-hop object only is the caller's to resolve */
	if (!del && rt->type == TEP_FPM_RTN_UNICAST && rt->nh_count == 0 &&
	    !rt->has_nh_id)
		return fail(c, TEP_FPM_E_NO_NH, off, 0);
	out->kind = del ? TEP_FPM_ROUTE_DEL : TEP_FPM_ROUTE_ADD;
	return TEP_FPM_E_OK;
}

static int
parse_neigh(struct ctx *c, size_t off, size_t end, bool del)
{
	struct tep_fpm_msg *out = c->out;
	struct tep_fpm_mac *mac = &out->mac;
	const uint8_t *m = c->f + off;
	bool has_mac = false;
	uint64_t seen = 0;
	struct walk w;
	struct attr a;
	int r;

	if (end - off < NL_NDMSG_LEN)
		return fail(c, TEP_FPM_E_BODY_SHORT, off, 0);
	if (m[0] != NL_AF_BRIDGE) {
		out->ignore = TEP_FPM_IGN_FAMILY;
		return TEP_FPM_E_OK;
	}
	mac->ifindex = (int32_t)get32(m + 4);
	mac->state = get16(m + 8);
	mac->flags = m[10];
	mac->ndm_type = m[11];

	w.off = off + NL_NDMSG_LEN;
	w.end = end;
	w.nested = false;
	while ((r = attr_next(c, &w, &a)) > 0) {
		const uint8_t *p = c->f + a.data;

		if (!seen_once(&seen, a.type))
			return fail(c, TEP_FPM_E_DUP_ATTR, a.hdr, a.type);
		switch (a.type) {
		case NDA_LLADDR_:
			if (a.len != 6)
				return fail(c, TEP_FPM_E_ATTR_SIZE, a.hdr,
					    a.type);
			memcpy(mac->mac, p, 6);
			has_mac = true;
			break;
		case NDA_DST_:
			if (a.len != 4 && a.len != 16)
				return fail(c, TEP_FPM_E_ATTR_SIZE, a.hdr,
					    a.type);
			mac->vtep_family = a.len == 4 ? NL_AF_INET :
				NL_AF_INET6;
			memcpy(mac->vtep, p, a.len);
			break;
		case NDA_MASTER_:
			if (a.len != 4)
				return fail(c, TEP_FPM_E_ATTR_SIZE, a.hdr,
					    a.type);
			mac->has_master = true;
			mac->master = get32(p);
			break;
		case NDA_VLAN_:
			if (a.len != 2)
				return fail(c, TEP_FPM_E_ATTR_SIZE, a.hdr,
					    a.type);
			mac->has_vlan = true;
			mac->vlan = get16(p);
			break;
		case NDA_VNI_:
			if (a.len != 4)
				return fail(c, TEP_FPM_E_ATTR_SIZE, a.hdr,
					    a.type);
			mac->has_vni = true;
			mac->vni = get32(p);
			break;
		default:
			break;
		}
	}
	if (r < 0)
		return -r;
	if (!has_mac)
		return fail(c, TEP_FPM_E_MAC_MISSING, off, 0);
	out->kind = del ? TEP_FPM_MAC_DEL : TEP_FPM_MAC_ADD;
	return TEP_FPM_E_OK;
}

/* NHA_GROUP: nexthop_grp {id u32, weight u8, resvd1 u8, resvd2 u16}. */
static int
parse_group(struct ctx *c, struct tep_fpm_nhobj *o, const struct attr *a)
{
	unsigned int n, i, j;

	if (a->len == 0)
		return fail(c, TEP_FPM_E_NH_EMPTY, a->hdr, a->type);
	if (a->len % NL_NHGRP_LEN != 0)
		return fail(c, TEP_FPM_E_ATTR_SIZE, a->hdr, a->type);
	n = (unsigned int)(a->len / NL_NHGRP_LEN);
	if (n > TEP_FPM_MAX_PATHS)
		return fail(c, TEP_FPM_E_NH_TOO_MANY, a->hdr, a->type);
	/* every member checked, the first TEP_FPM_MAX_NH kept */
	for (i = 0; i < n; i++) {
		const uint8_t *g = c->f + a->data + i * NL_NHGRP_LEN;
		uint32_t id = get32(g);

		if (i < TEP_FPM_MAX_NH) {
			o->group[i].id = id;
			o->group[i].weight = (uint16_t)(g[4] + 1);
		}
		if (id == 0)
			return fail(c, TEP_FPM_E_NHG_MISSING, a->hdr, a->type);
		for (j = 0; j < i; j++)
			if (get32(c->f + a->data + j * NL_NHGRP_LEN) == id)
				return fail(c, TEP_FPM_E_NHG_DUP, a->hdr,
					    a->type);
	}
	o->ngroup = n < TEP_FPM_MAX_NH ? n : TEP_FPM_MAX_NH;
	o->ngroup_dropped = n - o->ngroup;
	o->is_group = true;
	return TEP_FPM_E_OK;
}

/* The route attribute a next-hop object's attribute means, or 0. */
static uint16_t
nha_as_rta(uint16_t type)
{
	switch (type) {
	case NHA_OIF_:
		return RTA_OIF_;
	case NHA_GATEWAY_:
		return RTA_GATEWAY_;
	case NHA_ENCAP_TYPE_:
		return RTA_ENCAP_TYPE_;
	case NHA_ENCAP_:
		return RTA_ENCAP_;
	default:
		return 0;
	}
}

/* The other way, for the attribute an error names. */
static uint16_t
rta_as_nha(uint16_t type)
{
	switch (type) {
	case RTA_OIF_:
		return NHA_OIF_;
	case RTA_GATEWAY_:
		return NHA_GATEWAY_;
	case RTA_ENCAP_TYPE_:
		return NHA_ENCAP_TYPE_;
	case RTA_ENCAP_:
		return NHA_ENCAP_;
	default:
		return type;
	}
}

static int
parse_nexthop(struct ctx *c, size_t off, size_t end, bool del)
{
	struct tep_fpm_msg *out = c->out;
	struct tep_fpm_nhobj *o = &out->nhobj;
	const uint8_t *m = c->f + off;
	struct nh_attrs n = { 0 };
	struct attr grp = { 0 };
	bool has_id = false;
	uint64_t seen = 0;
	struct walk w;
	struct attr a;
	int r;

	if (end - off < NL_NHMSG_LEN)
		return fail(c, TEP_FPM_E_BODY_SHORT, off, 0);
	if (m[0] != 0 && m[0] != NL_AF_INET && m[0] != NL_AF_INET6) {
		out->ignore = TEP_FPM_IGN_FAMILY;
		return TEP_FPM_E_OK;
	}
	o->family = m[0];
	o->protocol = m[2];
	w.off = off + NL_NHMSG_LEN;
	w.end = end;
	w.nested = false;
	while ((r = attr_next(c, &w, &a)) > 0) {
		uint16_t as = nha_as_rta(a.type), type = a.type;

		if (!seen_once(&seen, a.type))
			return fail(c, TEP_FPM_E_DUP_ATTR, a.hdr, a.type);
		switch (a.type) {
		case NHA_ID_:
			if (a.len != 4)
				return fail(c, TEP_FPM_E_ATTR_SIZE, a.hdr,
					    a.type);
			o->id = get32(c->f + a.data);
			has_id = o->id != 0;
			break;
		case NHA_GROUP_:
			r = parse_group(c, o, &a);
			if (r != TEP_FPM_E_OK)
				return r;
			grp = a;
			break;
		case NHA_GROUP_TYPE_:
			if (a.len != 2)
				return fail(c, TEP_FPM_E_ATTR_SIZE, a.hdr,
					    a.type);
			o->group_type = get16(c->f + a.data);
			break;
		case NHA_BLACKHOLE_:
			if (a.len != 0)
				return fail(c, TEP_FPM_E_ATTR_SIZE, a.hdr,
					    a.type);
			o->blackhole = true;
			break;
		default:
			if (as == 0)
				break;	/* NHA_MASTER, NHA_FDB...: not ours */
			a.type = as;
			r = take_nh_attr(c, &n, &a);
			if (r < 0) {
				out->err_attr = type;
				return -r;
			}
			break;
		}
	}
	if (r < 0)
		return -r;
	if (!has_id)
		return fail(c, TEP_FPM_E_NHID_MISSING, off, NHA_ID_);
	if (del) {
		out->kind = TEP_FPM_NH_DEL;
		return TEP_FPM_E_OK;
	}
	if (o->is_group) {
		unsigned int i;

		if (o->blackhole || n.has_gw || n.has_oif || n.has_etype ||
		    n.has_encap)
			return fail(c, TEP_FPM_E_NH_MIXED, off, NHA_GROUP_);
		/* the members not kept too: the message is refused whole */
		for (i = 0; i < o->ngroup + o->ngroup_dropped; i++)
			if (get32(c->f + grp.data + i * NL_NHGRP_LEN) == o->id)
				return fail(c, TEP_FPM_E_NHG_SELF, off,
					    NHA_GROUP_);
	} else if (o->blackhole) {
		if (n.has_gw || n.has_etype || n.has_encap)
			return fail(c, TEP_FPM_E_NH_MIXED, off,
				    NHA_BLACKHOLE_);
	} else if (!n.has_gw && !n.has_oif) {
		return fail(c, TEP_FPM_E_NO_NH, off, 0);
	} else {
		/* a gateway of the object's own family (nh_family) */
		if (n.has_gw && o->family == 0)
			return fail(c, TEP_FPM_E_GW_FAMILY, n.gw.hdr,
				    NHA_GATEWAY_);
		o->nh.weight = 1;
		r = fill_nh(c, &o->nh, o->family, &n);
		if (r != TEP_FPM_E_OK) {
			out->err_attr = rta_as_nha(out->err_attr);
			return r;
		}
	}
	out->kind = TEP_FPM_NH_ADD;
	return TEP_FPM_E_OK;
}

int
tep_fpm_frame_check(const uint8_t *buf, size_t len, size_t *frame_len)
{
	size_t flen, off, nlen;

	if (len < TEP_FPM_HDR_LEN)
		return TEP_FPM_E_INCOMPLETE;
	if (buf[0] != TEP_FPM_VERSION)
		return TEP_FPM_E_VERSION;
	if (buf[1] != TEP_FPM_TYPE_NETLINK)
		return TEP_FPM_E_TYPE;
	flen = (size_t)buf[2] << 8 | buf[3];
	if (flen < TEP_FPM_MIN_FRAME)
		return TEP_FPM_E_FRAME_SHORT;
	*frame_len = flen;
	if (len < flen)
		return TEP_FPM_E_INCOMPLETE;
	/*
	 * One or more netlink messages filling the frame exactly: zebra
	 * 8.4.4 sends a route change as RTM_DELROUTE + RTM_NEWROUTE in one
	 * frame. Each is 4-byte aligned but the last, which ends the frame.
	 */
	for (off = TEP_FPM_HDR_LEN; off < flen; off += NL_ALIGN(nlen)) {
		if (flen - off < NL_HDR_LEN)
			return TEP_FPM_E_NLMSG_LEN;
		nlen = get32(buf + off);
		if (nlen < NL_HDR_LEN || nlen > flen - off)
			return TEP_FPM_E_NLMSG_LEN;
		if (NL_ALIGN(nlen) > flen - off)
			break;	/* the last one, unpadded */
	}
	return TEP_FPM_E_OK;
}

int
tep_fpm_decode_next(const uint8_t *frame, size_t len, size_t *moff,
		    struct tep_fpm_msg *out)
{
	struct ctx c = { frame, out };
	const uint8_t *nl;
	size_t flen = 0, off = *moff, end;
	int r;

	memset(out, 0, sizeof(*out));
	if (len < TEP_FPM_HDR_LEN)
		return fail(&c, TEP_FPM_E_TRUNC_HDR, 0, 0);
	r = tep_fpm_frame_check(frame, len, &flen);
	if (r == TEP_FPM_E_INCOMPLETE)
		return fail(&c, TEP_FPM_E_FRAME_LEN, 2, 0);
	if (r != TEP_FPM_E_OK)
		return fail(&c, r, r == TEP_FPM_E_NLMSG_LEN ? 4 : 0, 0);
	if (flen != len)
		return fail(&c, TEP_FPM_E_FRAME_LEN, 2, 0);
	if (off == 0)
		off = TEP_FPM_HDR_LEN;
	/* not a message boundary frame_check walked: the caller's mistake */
	if (off < TEP_FPM_HDR_LEN || off >= len || len - off < NL_HDR_LEN ||
	    get32(frame + off) < NL_HDR_LEN || get32(frame + off) > len - off)
		return fail(&c, TEP_FPM_E_NLMSG_LEN, (uint32_t)off, 0);
	nl = frame + off;
	end = off + get32(nl);
	*moff = off + NL_ALIGN(end - off) < len ? off + NL_ALIGN(end - off) :
		len;

	out->nlmsg_type = get16(nl + 4);
	out->nlmsg_flags = get16(nl + 6);
	out->nlmsg_seq = get32(nl + 8);
	out->nlmsg_pid = get32(nl + 12);
	out->ignore = TEP_FPM_IGN_NONE;

	switch (out->nlmsg_type) {
	case NL_RTM_NEWROUTE:
	case NL_RTM_DELROUTE:
		r = parse_route(&c, off + NL_HDR_LEN, end,
				out->nlmsg_type == NL_RTM_DELROUTE);
		break;
	case NL_RTM_NEWNEIGH:
	case NL_RTM_DELNEIGH:
		r = parse_neigh(&c, off + NL_HDR_LEN, end,
				out->nlmsg_type == NL_RTM_DELNEIGH);
		break;
	case NL_RTM_NEWNEXTHOP:
	case NL_RTM_DELNEXTHOP:
		r = parse_nexthop(&c, off + NL_HDR_LEN, end,
				  out->nlmsg_type == NL_RTM_DELNEXTHOP);
		break;
	default:
		out->ignore = TEP_FPM_IGN_MSG_TYPE;
		r = TEP_FPM_E_OK;
		break;
	}
	if (r != TEP_FPM_E_OK) {
		out->kind = TEP_FPM_IGNORED;
		return r;
	}
	if (out->ignore != TEP_FPM_IGN_NONE)
		out->kind = TEP_FPM_IGNORED;
	return TEP_FPM_E_OK;
}

int
tep_fpm_decode(const uint8_t *frame, size_t len, struct tep_fpm_msg *out)
{
	size_t off = 0;

	return tep_fpm_decode_next(frame, len, &off, out);
}

/* ---- next-hop objects ---------------------------------------------------- */

void
tep_fpm_nhtab_init(struct tep_fpm_nhtab *t, struct tep_fpm_nhent *ent,
		   unsigned int cap)
{
	t->ent = ent;
	t->cap = cap;
	t->n = 0;
}

static struct tep_fpm_nhent *
nhtab_get(const struct tep_fpm_nhtab *t, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (t->ent[i].obj.id == id)
			return &t->ent[i];
	return NULL;
}

const struct tep_fpm_nhobj *
tep_fpm_nhtab_find(const struct tep_fpm_nhtab *t, uint32_t id)
{
	const struct tep_fpm_nhent *e = nhtab_get(t, id);

	return e != NULL ? &e->obj : NULL;
}

/* Members' use counts, for a group joining (+1) or leaving (-1). */
static void
nhtab_use(struct tep_fpm_nhtab *t, const struct tep_fpm_nhobj *o, int d)
{
	unsigned int i;

	if (!o->is_group)
		return;
	for (i = 0; i < o->ngroup; i++) {
		struct tep_fpm_nhent *m = nhtab_get(t, o->group[i].id);

		if (m != NULL)
			m->users = (uint32_t)((int64_t)m->users + d);
	}
}

int
tep_fpm_nhtab_add(struct tep_fpm_nhtab *t, const struct tep_fpm_nhobj *o)
{
	struct tep_fpm_nhent *old;
	unsigned int i, j;

	if (o->id == 0)
		return TEP_FPM_E_NHID_MISSING;
	old = nhtab_get(t, o->id);
	if (o->is_group) {
		if (o->ngroup == 0)
			return TEP_FPM_E_NH_EMPTY;
		if (o->ngroup > TEP_FPM_MAX_NH)
			return TEP_FPM_E_NH_TOO_MANY;
		/* groups are not members: a group replacing a member
		 * would nest */
		if (old != NULL && old->users > 0)
			return TEP_FPM_E_NHG_NESTED;
		for (i = 0; i < o->ngroup; i++) {
			const struct tep_fpm_nhent *m;

			if (o->group[i].id == o->id)
				return TEP_FPM_E_NHG_SELF;
			if (o->group[i].weight == 0)
				return TEP_FPM_E_NHG_WEIGHT;
			for (j = 0; j < i; j++)
				if (o->group[j].id == o->group[i].id)
					return TEP_FPM_E_NHG_DUP;
			m = nhtab_get(t, o->group[i].id);
			if (m == NULL)
				return TEP_FPM_E_NHG_MISSING;
			if (m->obj.is_group)
				return TEP_FPM_E_NHG_NESTED;
		}
	}
	if (old == NULL && t->n == t->cap)
		return TEP_FPM_E_NHTAB_FULL;
	if (old == NULL) {
		old = &t->ent[t->n++];
		old->users = 0;
	} else {
		nhtab_use(t, &old->obj, -1);
	}
	old->obj = *o;
	nhtab_use(t, &old->obj, +1);
	return TEP_FPM_E_OK;
}

int
tep_fpm_nhtab_del(struct tep_fpm_nhtab *t, uint32_t id)
{
	struct tep_fpm_nhent *e = nhtab_get(t, id);

	if (e == NULL)
		return TEP_FPM_E_NH_UNKNOWN;
	if (e->users > 0)
		return TEP_FPM_E_NH_IN_USE;
	nhtab_use(t, &e->obj, -1);
	*e = t->ent[--t->n];
	return TEP_FPM_E_OK;
}

int
tep_fpm_nhtab_resolve(const struct tep_fpm_nhtab *t, uint32_t id,
		      struct tep_fpm_nh *nh, unsigned int *n, bool *blackhole)
{
	const struct tep_fpm_nhent *e = nhtab_get(t, id);
	unsigned int i;

	*n = 0;
	*blackhole = false;
	if (e == NULL)
		return TEP_FPM_E_NH_UNKNOWN;
	if (e->obj.blackhole) {
		*blackhole = true;
		return TEP_FPM_E_OK;
	}
	if (!e->obj.is_group) {
		nh[0] = e->obj.nh;
		nh[0].weight = 1;
		*n = 1;
		return TEP_FPM_E_OK;
	}
	for (i = 0; i < e->obj.ngroup; i++) {
		const struct tep_fpm_nhent *m = nhtab_get(t, e->obj.group[i].id);

		/* the table keeps members while groups use them */
		if (m == NULL || m->obj.is_group)
			return TEP_FPM_E_NHG_MISSING;
		if (m->obj.blackhole)
			continue;
		nh[*n] = m->obj.nh;
		nh[*n].weight = e->obj.group[i].weight;
		(*n)++;
	}
	*blackhole = *n == 0;
	return TEP_FPM_E_OK;
}
