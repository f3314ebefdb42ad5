/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Encapsulation: a tunnel's outer headers are built once into a template
 * (tep_encap_tmpl_build); per packet they are copied, lengths/IDs/ports
 * patched, and the outer checksums filled in (tep_encap_write). The choice
 * of outer checksum method is made here and only here, from the tunnel's
 * mode and what the inner packet carries.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "tep_bytes.h"
#include "tep_csum.h"
#include "tep_proto.h"

#define IPPROTO_UDP_	17
#define IPPROTO_GRE_	47

#define GRE_F_CSUM	0x8000
#define GRE_F_KEY	0x2000

#define GUE_F_PRIV		0x0001		/* private flags field present */
#define GUE_PF_REMCSUM		0x80000000u	/* remote checksum offload */
#define GUE_RCO_OFF		8		/* RCO field offset in GUE hdr */


static const char *const tun_names[TEP_TUN_MAX] = {
	[TEP_TUN_VXLAN] = "vxlan",
	[TEP_TUN_GENEVE] = "geneve",
	[TEP_TUN_FOU] = "fou",
	[TEP_TUN_GUE] = "gue",
	[TEP_TUN_GRE] = "gre",
};

static const char *const csum_names[TEP_CSUM_MODE_MAX] = {
	[TEP_CSUM_LCO] = "lco",
	[TEP_CSUM_FULL] = "full",
	[TEP_CSUM_OFFLOAD] = "offload",
	[TEP_CSUM_OFF] = "off",
};

const char *
tep_tun_type_name(enum tep_tun_type t)
{
	return (unsigned int)t < TEP_TUN_MAX ? tun_names[t] : "unknown";
}

const char *
tep_csum_mode_name(enum tep_csum_mode m)
{
	return (unsigned int)m < TEP_CSUM_MODE_MAX ? csum_names[m] : "unknown";
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Tunnel header after the outer UDP header (GRE: the GRE header). */
static int
build_tun_hdr(uint8_t *h, const struct tep_encap_params *p, char *err,
	      size_t errlen)
{
	size_t n = 0;

	switch (p->type) {
	case TEP_TUN_VXLAN:
		/* RFC 7348 section 5: I flag, 24 reserved bits, VNI, 8 reserved */
		tep_wr32(h, 0x08000000);
		tep_wr32(h + 4, p->vni << 8);
		return 8;
	case TEP_TUN_GENEVE: {
		/* RFC 8926 section 3.4; C is set iff an option is critical. */
		bool critical = false;
		uint16_t off;

		if (p->geneve_opts_len % 4 != 0 ||
		    p->geneve_opts_len > TEP_GENEVE_OPT_MAX)
			return fail(err, errlen,
				    "geneve options length %u: must be a "
				    "multiple of 4, at most %u",
				    p->geneve_opts_len, TEP_GENEVE_OPT_MAX);
		for (off = 0; off < p->geneve_opts_len;) {
			const uint8_t *o = p->geneve_opts + off;
			uint16_t olen;

			if (p->geneve_opts_len - off < 4)
				return fail(err, errlen,
					    "geneve option at %u truncated", off);
			olen = (uint16_t)(4 + (o[3] & 0x1f) * 4);
			if (olen > p->geneve_opts_len - off)
				return fail(err, errlen,
					    "geneve option at %u: length %u "
					    "overruns the options", off, olen);
			critical |= (o[2] & 0x80) != 0;
			off = (uint16_t)(off + olen);
		}
		h[0] = (uint8_t)(p->geneve_opts_len / 4);
		h[1] = critical ? 0x40 : 0;
		tep_wr16(h + 2, TEP_ETH_P_TEB);
		tep_wr32(h + 4, p->vni << 8);
		if (p->geneve_opts_len)
			memcpy(h + 8, p->geneve_opts, p->geneve_opts_len);
		return 8 + p->geneve_opts_len;
	}
	case TEP_TUN_FOU:
		return 0;
	case TEP_TUN_GUE:
		/* Variant 0; hlen counts the optional fields in words. */
		h[1] = p->gue_proto;
		if (p->rco) {
			h[0] = 2;
			tep_wr16(h + 2, GUE_F_PRIV);
			tep_wr32(h + 4, GUE_PF_REMCSUM);
			tep_wr32(h + 8, 0);	/* start/offset, per packet */
			return 12;
		}
		h[0] = 0;
		tep_wr16(h + 2, 0);
		return 4;
	case TEP_TUN_GRE:
		/* RFC 2784 + RFC 2890 key. */
		tep_wr16(h, (p->gre_csum ? GRE_F_CSUM : 0) |
			    (p->gre_key ? GRE_F_KEY : 0));
		tep_wr16(h + 2, p->gre_proto ? p->gre_proto : TEP_ETH_P_TEB);
		n = 4;
		if (p->gre_csum) {
			tep_wr32(h + n, 0);
			n += 4;
		}
		if (p->gre_key) {
			tep_wr32(h + n, p->vni);
			n += 4;
		}
		return (int)n;
	default:
		return fail(err, errlen, "unknown tunnel type %d", p->type);
	}
}

static int
check_params(const struct tep_encap_params *p, char *err, size_t errlen)
{
	bool udp = p->type != TEP_TUN_GRE;

	if ((unsigned int)p->type >= TEP_TUN_MAX)
		return fail(err, errlen, "unknown tunnel type %d", p->type);
	if ((unsigned int)p->csum >= TEP_CSUM_MODE_MAX)
		return fail(err, errlen, "unknown csum mode %d", p->csum);
	if ((p->type == TEP_TUN_VXLAN || p->type == TEP_TUN_GENEVE) &&
	    p->vni > TEP_VNI_MAX)
		return fail(err, errlen, "vni %u out of range 0-%u", p->vni,
			    TEP_VNI_MAX);
	if (udp && p->outer_v6 && p->csum == TEP_CSUM_OFF)
		return fail(err, errlen,
			    "csum off is not allowed over an IPv6 underlay "
			    "(RFC 6935: IPv6 UDP needs a checksum)");
	if (!udp && p->gre_csum &&
	    p->csum != TEP_CSUM_LCO && p->csum != TEP_CSUM_FULL)
		return fail(err, errlen, "gre checksum can be lco or full, "
			    "not %s", tep_csum_mode_name(p->csum));
	if (p->rco && p->type != TEP_TUN_GUE && p->type != TEP_TUN_VXLAN)
		return fail(err, errlen, "rco is for gue and vxlan, not %s",
			    tep_tun_type_name(p->type));
	if (p->rco && p->csum == TEP_CSUM_OFF)
		return fail(err, errlen, "rco needs an outer checksum: the "
			    "receiver derives the inner one from it");
	if (p->sport_lo > p->sport_hi)
		return fail(err, errlen, "srcport range %u-%u is empty",
			    p->sport_lo, p->sport_hi);
	if ((p->type == TEP_TUN_GUE || p->type == TEP_TUN_FOU) &&
	    p->gue_proto != 4 && p->gue_proto != 41)
		return fail(err, errlen,
			    "%s inner protocol %u: must be 4 (ipip) or 41 (ipv6)",
			    tep_tun_type_name(p->type), p->gue_proto);
	if (p->type == TEP_TUN_GRE && p->gre_proto != 0 &&
	    p->gre_proto != TEP_ETH_P_TEB && p->gre_proto != TEP_ETH_P_IPV4 &&
	    p->gre_proto != TEP_ETH_P_IPV6)
		return fail(err, errlen, "gre protocol 0x%04x not carried",
			    p->gre_proto);
	return 0;
}

/* A 16-bit network-order field's contribution to a memory-order sum. */
static inline uint32_t
be16_word(uint16_t v)
{
	uint8_t b[2];
	uint16_t w;

	tep_wr16(b, v);
	memcpy(&w, b, 2);
	return w;
}

int
tep_encap_tmpl_build(struct tep_encap_tmpl *t,
		     const struct tep_encap_params *p, char *err, size_t errlen)
{
	bool udp = p->type != TEP_TUN_GRE;
	uint8_t *h, *ip;
	uint16_t dport;
	int tun;

	if (check_params(p, err, errlen) < 0)
		return -1;
	memset(t, 0, sizeof(*t));
	h = t->hdr;

	/* Ethernet (+ 802.1Q) */
	memcpy(h, p->dmac, 6);
	memcpy(h + 6, p->smac, 6);
	t->l2_len = 12;
	if (p->vlan_tci != 0) {
		tep_wr16(h + 12, TEP_ETH_P_VLAN);
		tep_wr16(h + 14, p->vlan_tci);
		t->l2_len = 16;
	}
	tep_wr16(h + t->l2_len, p->outer_v6 ? TEP_ETH_P_IPV6 : TEP_ETH_P_IPV4);
	t->l2_len += 2;

	/* IP: lengths, ID, TOS and flow label are per packet. */
	ip = h + t->l2_len;
	if (!p->outer_v6) {
		ip[0] = 0x45;
		tep_wr16(ip + 6, p->df ? 0x4000 : 0);
		ip[8] = p->ttl ? p->ttl : 64;
		ip[9] = udp ? IPPROTO_UDP_ : IPPROTO_GRE_;
		memcpy(ip + 12, p->src, 4);
		memcpy(ip + 16, p->dst, 4);
		t->l3_len = 20;
		t->phdr_base = tep_ipv4_phdr_sum(p->src, p->dst, ip[9], 0);
	} else {
		tep_wr32(ip, 0x60000000);
		ip[6] = udp ? IPPROTO_UDP_ : IPPROTO_GRE_;
		ip[7] = p->ttl ? p->ttl : 64;
		memcpy(ip + 8, p->src, 16);
		memcpy(ip + 24, p->dst, 16);
		t->l3_len = 40;
		t->phdr_base = tep_ipv6_phdr_sum(p->src, p->dst, ip[6], 0);
	}
	t->l4_off = (uint16_t)(t->l2_len + t->l3_len);

	if (udp) {
		dport = p->dst_port;
		if (dport == 0)
			dport = p->type == TEP_TUN_VXLAN ? TEP_VXLAN_PORT :
				p->type == TEP_TUN_GENEVE ? TEP_GENEVE_PORT :
				p->type == TEP_TUN_FOU ? TEP_FOU_PORT :
				TEP_GUE_PORT;
		tep_wr16(h + t->l4_off + 2, dport);
		tun = build_tun_hdr(h + t->l4_off + 8, p, err, errlen);
		if (tun < 0)
			return -1;
		t->tun_len = (uint16_t)tun;
		t->len = (uint16_t)(t->l4_off + 8 + tun);
	} else {
		tun = build_tun_hdr(h + t->l4_off, p, err, errlen);
		if (tun < 0)
			return -1;
		t->tun_len = (uint16_t)tun;
		t->len = (uint16_t)(t->l4_off + tun);
	}

	t->type = (uint8_t)p->type;
	t->outer_v6 = p->outer_v6;
	t->csum = (uint8_t)p->csum;
	t->inner_eth = p->type == TEP_TUN_VXLAN || p->type == TEP_TUN_GENEVE ||
		       (p->type == TEP_TUN_GRE &&
			(p->gre_proto == 0 || p->gre_proto == TEP_ETH_P_TEB));
	t->gre_csum = !udp && p->gre_csum;
	t->rco = (p->type == TEP_TUN_GUE || p->type == TEP_TUN_VXLAN) &&
		 p->rco;
	t->tos_inherit = p->tos_inherit;
	t->ecn_dscp = (uint8_t)(p->dscp << 2);
	if (p->sport_lo == 0 && p->sport_hi == 0) {
		t->sport_lo = 49152;
		t->sport_hi = 65535;
	} else {
		t->sport_lo = p->sport_lo;
		t->sport_hi = p->sport_hi;
	}
	/* The IPv4 header sum without the per-packet fields (they are 0). */
	if (!p->outer_v6)
		t->ip4_sum_base = tep_csum_partial(ip, 20, 0);
	/* Everything LCO sums before the inner packet is in the template,
	 * but for the UDP source port and length (0 here) and GUE's proto
	 * byte (left out here, added per packet), unless the tunnel header
	 * changes more than that per packet (GUE's RCO field; VXLAN's RCO
	 * bits are added per packet like the source port). */
	t->lco_base = tep_csum_partial(h + t->l4_off, t->len - t->l4_off, 0);
	if (p->type == TEP_TUN_GUE)
		t->lco_base = tep_csum_sub(t->lco_base,
					   be16_word(p->gue_proto));
	t->lco_fast = !(t->rco && t->type == TEP_TUN_GUE);
	return 0;
}

uint32_t
tep_encap_outer_phdr(const struct tep_encap_tmpl *t, uint32_t l4_len)
{
	/* The length sits in the last 16 bits of the IPv4 pseudo-header and
	 * in a 32-bit field of the IPv6 one: as a sum, the same value. */
	return tep_csum_add(tep_csum_add(t->phdr_base, be16_word(
		(uint16_t)(l4_len >> 16))), be16_word((uint16_t)l4_len));
}

/*
 * LCO with the template's precomputed sum: what precedes the inner packet
 * is the template (whose sum is known) plus the UDP source port and length;
 * of the inner packet, the bytes before its L4 header are summed, except an
 * IPv4 header whose checksum is known valid: it sums to -0 and drops out.
 * Same result as tep_lco_csum() over the bytes (the unit tests compare).
 */
static uint16_t
lco_from_template(const struct tep_encap_tmpl *t, const uint8_t *l4,
		  uint32_t phdr, uint32_t l4_len, const struct tep_encap_pkt *pkt,
		  uint16_t seed)
{
	const struct tep_inner_l4 *in = &pkt->l4;
	uint32_t hdr = (uint32_t)(t->len - t->l4_off);
	uint32_t upto = in->ip4_hdr_ok ? in->l3_off : in->csum_start;
	uint32_t from = 0;
	uint32_t s = tep_csum_add(phdr, t->lco_base);

	if (t->type != TEP_TUN_GRE)
		s = tep_csum_add(s, be16_word(pkt->sport) +
				    be16_word((uint16_t)l4_len));
	if (t->type == TEP_TUN_GUE)	/* its proto byte, as written */
		s = tep_csum_add(s, be16_word(l4[9]));
	if (pkt->inner_pre_len != 0 && pkt->inner_pre_len <= upto &&
	    !(pkt->inner_pre_len & 1)) {
		from = pkt->inner_pre_len;
		s = tep_csum_block_add(s, pkt->inner_pre_sum, hdr);
	}
	if (upto > from)
		s = tep_csum_block_add(s, tep_csum_partial(l4 + hdr + from,
							   upto - from, 0),
				       hdr + from);
	s = tep_csum_block_add(s, (uint16_t)~seed, hdr + in->csum_start);
	return tep_csum_finish(s);
}

static bool
l4_ones_complement(uint8_t kind)
{
	return kind == TEP_L4_TCP || kind == TEP_L4_UDP ||
	       kind == TEP_L4_ICMP || kind == TEP_L4_ICMP6;
}

/*
 * Copy a template of n bytes with fixed-size moves: two overlapping 32-byte
 * (or 64-byte) halves cover any header of 32-64 (64-128) bytes, which is
 * every tunnel but GENEVE with long options, without the library call and
 * its length dispatch per packet. Nothing outside [dst, dst + n) is
 * written.
 */
static inline void
hdr_copy(uint8_t *dst, const uint8_t *src, size_t n)
{
	if (n >= 32 && n <= 64) {
		memcpy(dst, src, 32);
		memcpy(dst + n - 32, src + n - 32, 32);
	} else if (n > 64 && n <= 128) {
		memcpy(dst, src, 64);
		memcpy(dst + n - 64, src + n - 64, 64);
	} else {
		memcpy(dst, src, n);
	}
}

bool
tep_encap_rco(const struct tep_encap_tmpl *t, const struct tep_encap_pkt *pkt)
{
	const struct tep_inner_l4 *in = &pkt->l4;
	uint32_t field_end = (uint32_t)in->csum_start + in->csum_offset + 2;

	if (!t->rco)
		return false;
	if (t->type == TEP_TUN_GUE)	/* its offsets say any field */
		return l4_ones_complement(in->kind) &&
		       in->state == TEP_L4_PENDING;
	if (t->type != TEP_TUN_VXLAN ||
	    (in->kind != TEP_L4_TCP && in->kind != TEP_L4_UDP))
		return false;
	/* The two offsets the 7-bit start and the UDP bit can say. */
	if (in->csum_offset != (in->kind == TEP_L4_TCP ? 16 : 6))
		return false;
	if ((in->csum_start & 1) || in->csum_start > TEP_VXLAN_RCO_START_MAX)
		return false;
	if (field_end > pkt->inner_len ||
	    (pkt->inner_contig != 0 && field_end > pkt->inner_contig))
		return false;
	/* The receiver finishes the checksum over everything from its start
	 * to the end of the frame: Ethernet padding would be counted in. */
	return in->l4_end == 0 || in->l4_end == pkt->inner_len;
}

int
tep_encap_write(const struct tep_encap_tmpl *t, uint8_t *out,
		const struct tep_encap_pkt *pkt)
{
	const struct tep_inner_l4 *in = &pkt->l4;
	bool ones = l4_ones_complement(in->kind);
	bool pending = ones || in->kind == TEP_L4_SCTP ?
		       in->state == TEP_L4_PENDING : false;
	bool seed_on_wire = false;	/* RCO: the inner seed is sent as is */
	bool vxlan_rco = false;		/* ... the VXLAN way */
	uint16_t rco_old[3], rco_new[3];	/* words LCO did not see */
	uint8_t *ip = out + t->l2_len, *l4 = out + t->l4_off;
	uint32_t l4_len = (uint32_t)(t->len - t->l4_off) + pkt->inner_len;
	uint32_t csum_start = (uint32_t)(t->len - t->l4_off) + in->csum_start;
	uint8_t tos;
	uint8_t *field;
	uint32_t phdr = 0;
	uint16_t ck;

	if (l4_len + t->l3_len > 0xffff)
		return -EMSGSIZE;
	hdr_copy(out, t->hdr, t->len);

	/* RFC 6040 normal mode: ECN is copied; DSCP copied or set. */
	tos = t->tos_inherit ? pkt->inner_tos :
	      (uint8_t)(t->ecn_dscp | (pkt->inner_tos & 0x3));
	if (!t->outer_v6) {
		/* The three per-packet fields added to the template's sum
		 * (they are 0 in it): no pass over the header. */
		uint32_t s = t->ip4_sum_base + be16_word(tos) +
			     be16_word((uint16_t)(20 + l4_len)) +
			     be16_word(pkt->ip_id);

		ip[1] = tos;
		tep_wr16(ip + 2, (uint16_t)(20 + l4_len));
		tep_wr16(ip + 4, pkt->ip_id);
		tep_wr_csum(ip + 10, tep_csum_finish(s));
	} else {
		tep_wr32(ip, 0x60000000u | (uint32_t)tos << 20 |
			     (pkt->flow_label & 0xfffff));
		tep_wr16(ip + 4, (uint16_t)l4_len);
	}

	if (t->type == TEP_TUN_GRE) {
		if (!t->gre_csum)
			return TEP_OCSUM_NONE;
		field = l4 + 4;
	} else {
		tep_wr16(l4, pkt->sport);
		tep_wr16(l4 + 4, (uint16_t)l4_len);
		field = l4 + 6;
		phdr = tep_encap_outer_phdr(t, l4_len);
		if (t->type == TEP_TUN_GUE) {
			uint8_t *gue = l4 + 8;

			/* The inner protocol follows the inner IP version. */
			if (pkt->inner_len > 0)
				gue[1] = (out[t->len] >> 4) == 6 ? 41 : 4;
			if (t->rco && ones && pending) {
				/* draft-herbert-remotecsumoffload: both
				 * offsets relative to the inner packet. The
				 * receiver checksums over the seed, so only
				 * a pending checksum may be handed over. */
				tep_wr16(gue + GUE_RCO_OFF, in->csum_start);
				tep_wr16(gue + GUE_RCO_OFF + 2,
					 (uint16_t)(in->csum_start +
						    in->csum_offset));
				seed_on_wire = true;
			} else if (t->rco) {
				tep_wr32(gue + 4, 0);	/* no RCO flag */
			}
		} else if (t->type == TEP_TUN_VXLAN && t->rco &&
			   tep_encap_rco(t, pkt)) {
			uint8_t *vx = l4 + 8;
			uint8_t *f = l4 + csum_start + in->csum_offset;

			/* Linux vxlan_build_skb()/vxlan_compute_rco(). The
			 * template's sum had zeros where the flag and the
			 * start go, and LCO counts the field as the final
			 * checksum: note both words for the correction. */
			rco_old[0] = tep_rd_csum(vx);
			rco_old[1] = tep_rd_csum(vx + 6);
			rco_old[2] = tep_rd_csum(f);
			vx[1] = (uint8_t)(TEP_VXLAN_F_RCO >> 16);
			vx[7] = (uint8_t)(in->csum_start >> 1 |
					  (in->kind == TEP_L4_UDP ?
					   TEP_VXLAN_RCO_UDP : 0));
			/* A complete checksum goes back to its seed, what
			 * the receiver finishes over (a pending one holds
			 * it already). */
			if (!pending)
				tep_wr_csum(f, tep_csum_fold(in->phdr));
			rco_new[0] = tep_rd_csum(vx);
			rco_new[1] = tep_rd_csum(vx + 6);
			rco_new[2] = tep_rd_csum(f);
			seed_on_wire = pending;
			vxlan_rco = true;
		}
	}

	switch (t->csum) {
	case TEP_CSUM_OFF:
		return TEP_OCSUM_NONE;
	case TEP_CSUM_OFFLOAD:
		/* What rte_net_intel_cksum_prepare() leaves for the NIC. */
		tep_wr_csum(field, tep_csum_fold(phdr));
		return TEP_OCSUM_HW;
	case TEP_CSUM_LCO:
		if (ones && !seed_on_wire) {
			uint16_t seed = pending ?
				tep_rd_csum(l4 + csum_start + in->csum_offset) :
				tep_csum_fold(in->phdr);

			ck = t->lco_fast ?
			     lco_from_template(t, l4, phdr, l4_len, pkt, seed) :
			     tep_lco_csum(phdr, l4, csum_start, seed);
			if (vxlan_rco) {
				/* LCO's sum is of the packet with the RCO
				 * bits 0 (the template) and the final inner
				 * checksum; the wire has the bits and the
				 * seed. All three words sit at even offsets
				 * of the UDP datagram (RFC 1624 update). */
				int i;

				for (i = 0; i < 3; i++)
					ck = tep_csum_replace16(ck,
						i < 2 && !t->lco_fast ?
						rco_new[i] : rco_old[i],
						rco_new[i]);
			}
			if (in->l4_end != 0 && in->l4_end < pkt->inner_len) {
				/* A chain comes trimmed to its IP length. */
				if (pkt->inner_contig != 0 &&
				    pkt->inner_contig < pkt->inner_len)
					return -EINVAL;
				/* Bytes after the L4 datagram (Ethernet
				 * padding) are covered by the outer sum but
				 * not by the inner one: add them. */
				uint32_t off = (uint32_t)(t->len - t->l4_off) +
					       in->l4_end;
				uint32_t s = tep_csum_block_add(
					(uint16_t)~ck,
					tep_csum_partial(l4 + off,
						pkt->inner_len - in->l4_end, 0),
					off);

				ck = tep_csum_finish(s);
			}
			break;
		}
		/* LCO needs a ones-complement inner checksum that will be
		 * (or is) final on the wire: otherwise sum it all. */
		/* fall through */
	case TEP_CSUM_FULL:
	default:
		/* The sum would change when the inner one is filled in. */
		if (pending && !seed_on_wire)
			return -EINVAL;
		if (pkt->inner_contig != 0 &&
		    pkt->inner_contig < pkt->inner_len) {
			/* A chain: the bytes here, then the rest's sum. */
			uint32_t here = (uint32_t)(t->len - t->l4_off) +
					pkt->inner_contig;
			uint32_t s2 = tep_csum_partial(l4, here, phdr);

			s2 = tep_csum_block_add(s2, pkt->inner_tail_sum, here);
			ck = tep_csum_finish(s2);
		} else {
			ck = tep_csum_finish(tep_csum_partial(l4, l4_len,
							      phdr));
		}
		tep_wr_csum(field, t->type == TEP_TUN_GRE ? ck :
				   tep_udp_csum_mangle0(ck));
		return TEP_OCSUM_FULL;
	}
	tep_wr_csum(field, t->type == TEP_TUN_GRE ? ck :
			   tep_udp_csum_mangle0(ck));
	return TEP_OCSUM_LCO;
}
