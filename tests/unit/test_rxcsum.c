/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * drivers/tep_rxcsum tests, on fake mbufs in plain memory (no EAL).
 *
 * Each PMD is played by a small model that sets ol_flags and packet_type
 * the way its DPDK 22.11 Rx code does for a given truth (the facts and
 * their sources are in docs/drivers.md, "Receive checksums per PMD"):
 * whether the NIC parsed the tunnel, whether it checked at all, and, where
 * the hardware's behaviour is not in the source (a zero outer UDP checksum,
 * what X722's L4E and mlx5's tunneled l4_ok cover), both possibilities.
 *
 * Packets are VXLAN/IPv4 and GRE/IPv4 (with and without a GRE checksum)
 * carrying Ethernet + IPv4 + TCP or UDP, built by hand here; every checksum
 * in them, right or deliberately wrong, comes from the naive reference sum
 * in tests/common/tep_ref.h. The decapsulation side is run in the order
 * app/tepd/datapath/decap.c dp_decap() runs it, with lib/proto's parsers.
 *
 * test_verdicts_per_pmd pins what tep_rxcsum_get() says for each PMD
 * shape; test_decap_invariants checks, over every PMD x scenario x
 * variant, that a bad outer checksum is always dropped, that nothing rests
 * on an outer checksum that was not verified, and that a bad inner
 * checksum is never marked good.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>
#include <rte_mbuf_ptype.h>

#include "tep_csum.h"
#include "tep_proto.h"
#include "tep_ref.h"
#include "tep_rxcsum.h"

static uint64_t rng_state = 0x7465707278637331ull; /* "teprxcs1" */

static uint32_t
rnd_below(uint32_t n)
{
	return (uint32_t)(tep_ref_rnd(&rng_state) % n);
}

/* ---- the truth about a packet, and the packet ------------------------- */

enum ostate {
	O_GOOD,		/* outer UDP/GRE checksum present and right */
	O_BAD,		/* present and wrong */
	O_ZERO,		/* UDP: field 0 (no checksum); GRE: no C bit */
	O_PARTIAL,	/* UDP field holds the pseudo-header seed, data
			 * intact (a virtio host left it to us) */
};

static const char *const ostate_name[] = { "good", "bad", "zero", "partial" };

struct truth {
	int gre;		/* GRE (TEB) instead of UDP 4789 + VXLAN */
	int ostate;		/* enum ostate */
	int inner_ok;		/* inner TCP/UDP checksum right */
	int inner_udp;		/* inner UDP, else TCP */
};

#define MAXF 512

static void
wr_csum(uint8_t *p, uint16_t ck)
{
	tep_ref_wr16(p, ck);
}

/* A wrong checksum: differs from ck, and is not 0 (a UDP 0 is "none"). */
static uint16_t
spoil(uint16_t ck)
{
	ck ^= 0x0101;
	return ck != 0 ? ck : 0x0303;
}

/* Build the frame for t into f; returns its length. */
static uint32_t
build_pkt(const struct truth *t, uint8_t *f)
{
	uint32_t pay = rnd_below(200), l4h = t->inner_udp ? 8 : 20;
	uint32_t tun = t->gre ? (t->ostate == O_ZERO ? 4 : 8) : 16;
	uint32_t ieth = 14 + 20 + tun, iip = ieth + 14, il4 = iip + 20;
	uint32_t end = il4 + l4h + pay, ol4len = end - 34;
	uint8_t proto = t->inner_udp ? 17 : 6;
	uint8_t *oip = f + 14, *ip = f + iip, *l4 = f + il4, *o4 = f + 34;
	uint16_t ck;

	assert_true(end <= MAXF);
	tep_ref_rnd_fill(&rng_state, f, end);
	tep_ref_wr16(f + 12, 0x0800);
	/* outer IPv4, unicast to 10.0.0.1 */
	oip[0] = 0x45;
	oip[1] = 0;
	tep_ref_wr16(oip + 2, (uint16_t)(end - 14));
	tep_ref_wr16(oip + 6, 0x4000);
	oip[8] = 64;
	oip[9] = t->gre ? 47 : 17;
	oip[12] = 10;
	memcpy(oip + 16, "\x0a\x00\x00\x01", 4);
	tep_ref_wr16(oip + 10, 0);
	wr_csum(oip + 10, (uint16_t)~tep_ref_sum(oip, 20, 0));
	/* inner Ethernet + IPv4 + TCP/UDP */
	tep_ref_wr16(f + ieth + 12, 0x0800);
	ip[0] = 0x45;
	ip[1] = 0;
	tep_ref_wr16(ip + 2, (uint16_t)(20 + l4h + pay));
	tep_ref_wr16(ip + 6, 0);
	ip[8] = 64;
	ip[9] = proto;
	tep_ref_wr16(ip + 10, 0);
	wr_csum(ip + 10, (uint16_t)~tep_ref_sum(ip, 20, 0));
	if (t->inner_udp)
		tep_ref_wr16(l4 + 4, (uint16_t)(l4h + pay));
	else
		l4[12] = 0x50;
	tep_ref_wr16(l4 + (t->inner_udp ? 6 : 16), 0);
	ck = (uint16_t)~tep_ref_sum(l4, l4h + pay,
			tep_ref_phdr(false, ip + 12, ip + 16, proto, l4h + pay));
	if (t->inner_udp && ck == 0)
		ck = 0xffff;
	wr_csum(l4 + (t->inner_udp ? 6 : 16), t->inner_ok ? ck : spoil(ck));
	/* tunnel */
	if (!t->gre) {
		uint16_t seed = tep_ref_phdr(false, oip + 12, oip + 16, 17,
					     ol4len);

		tep_ref_wr16(o4 + 2, 4789);
		tep_ref_wr16(o4 + 4, (uint16_t)ol4len);
		tep_ref_wr16(o4 + 6, 0);
		memcpy(o4 + 8, "\x08\x00\x00\x00", 4);
		o4[15] = 0;
		ck = (uint16_t)~tep_ref_sum(o4, ol4len, seed);
		ck = ck != 0 ? ck : 0xffff;
		wr_csum(o4 + 6, t->ostate == O_GOOD ? ck :
				t->ostate == O_BAD ? spoil(ck) :
				t->ostate == O_ZERO ? 0 : seed);
	} else if (t->ostate == O_ZERO) {
		tep_ref_wr16(o4, 0x0000);
		tep_ref_wr16(o4 + 2, 0x6558);
	} else {
		tep_ref_wr16(o4, 0x8000);
		tep_ref_wr16(o4 + 2, 0x6558);
		tep_ref_wr16(o4 + 4, 0);
		tep_ref_wr16(o4 + 6, 0);
		ck = (uint16_t)~tep_ref_sum(o4, ol4len, 0);
		wr_csum(o4 + 4, t->ostate == O_GOOD ? ck : spoil(ck));
	}
	return end;
}

/* ---- the PMDs, as their 22.11 Rx code fills an mbuf ------------------- */

enum pmd {
	P_ICE,		/* ice_rxd_error_to_pkt_flags (scalar) */
	P_I40E_X710,	/* i40e_rxd_error_to_pkt_flags */
	P_I40E_X722,	/* same code; L4E may also cover the outer UDP */
	P_MLX5,		/* rxq_cq_to_ol_flags, rxq_cq_to_pkt_type */
	P_IXGBE_82599,	/* rx_desc_error_to_pkt_flags, UDP-zero erratum */
	P_IXGBE_X550,	/* same, VXLAN ptypes (ptype_table_tn) */
	P_TAP,		/* tap_verify_csum + rte_net_get_ptype */
	P_AF_PACKET,	/* no checksum, no packet_type */
	P_VIRTIO,	/* virtio_rx_offload */
	P_MAX
};

static const char *const pmd_name[P_MAX] = {
	"ice", "i40e-X710", "i40e-X722", "mlx5", "ixgbe-82599", "ixgbe-X550",
	"net_tap", "af_packet", "virtio",
};

/* How the port and the hardware are set up for one packet. */
struct nic {
	int parsed;	/* the NIC would parse this tunnel (VXLAN port
			 * registered; mlx5: a tunnel flow on the queue);
			 * ignored by PMDs that cannot */
	int checked;	/* Rx checksum offload on / the HW checked (ice:
			 * L3L4P); ignored by PMDs without such a state */
	int variant;	/* what the source does not say: ice/i40e/82599:
			 * HW flags a zero outer UDP checksum as an error;
			 * X722: L4E also covers the outer UDP; mlx5: the
			 * tunneled l4_ok also needs the outer right, and
			 * rxq->tunnel adds a TUNNEL ptype */
};

#define PT_L2L3		(RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN)
#define PT_INNER(udp)	(RTE_PTYPE_INNER_L3_IPV4_EXT_UNKNOWN |		\
			 ((udp) ? RTE_PTYPE_INNER_L4_UDP : RTE_PTYPE_INNER_L4_TCP))

/* i40e/ice ptype tables: a parsed tunnel is GRENAT + inner layers. */
static uint32_t
intel_ptype(const struct truth *t, int parsed)
{
	if (parsed)
		return PT_L2L3 | RTE_PTYPE_TUNNEL_GRENAT |
		       RTE_PTYPE_INNER_L2_ETHER | PT_INNER(t->inner_udp);
	return PT_L2L3 | (t->gre ? RTE_PTYPE_L4_NONFRAG : RTE_PTYPE_L4_UDP);
}

/* rte_net_get_ptype() in 22.11: GRE yes (TEB -> NVGRE), UDP tunnels no. */
static uint32_t
sw_ptype(const struct truth *t)
{
	uint32_t p = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4;

	if (!t->gre)
		return p | RTE_PTYPE_L4_UDP;
	return p | RTE_PTYPE_TUNNEL_NVGRE | RTE_PTYPE_INNER_L2_ETHER |
	       RTE_PTYPE_INNER_L3_IPV4 |
	       (t->inner_udp ? RTE_PTYPE_INNER_L4_UDP : RTE_PTYPE_INNER_L4_TCP);
}

static void
deliver(enum pmd p, const struct truth *t, const struct nic *n,
	struct rte_mbuf *m)
{
	/* what a NIC checking the outer UDP finds wrong (the variant:
	 * Intel HW flags a zero checksum too) */
	int zero_err = n->variant && p != P_MLX5;
	int obad = !t->gre && (t->ostate == O_BAD ||
			       (t->ostate == O_ZERO && zero_err));
	int ibad = !t->inner_ok;
	uint64_t f = 0;
	uint32_t pt = 0;
	int parsed, l4e, eudpe, l4ok;

	switch (p) {
	case P_ICE:
		/* GRE is always a tunnel ptype; VXLAN when parsed. */
		parsed = t->gre || n->parsed;
		pt = intel_ptype(t, parsed);
		if (!n->checked)	/* L3L4P clear: no flags at all */
			break;
		l4e = parsed ? ibad : obad;
		eudpe = parsed && obad;
		if (!l4e && !eudpe)
			f = RTE_MBUF_F_RX_IP_CKSUM_GOOD |
			    RTE_MBUF_F_RX_L4_CKSUM_GOOD |
			    RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;
		else
			f = RTE_MBUF_F_RX_IP_CKSUM_GOOD |
			    (l4e ? RTE_MBUF_F_RX_L4_CKSUM_BAD :
				   RTE_MBUF_F_RX_L4_CKSUM_GOOD) |
			    (eudpe ? RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD :
				     RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD);
		break;
	case P_I40E_X710:
	case P_I40E_X722:
		/* No L3L4P test in the PMD: no error bit reads GOOD. */
		parsed = t->gre || n->parsed;
		pt = intel_ptype(t, parsed);
		if (parsed)
			l4e = ibad || (p == P_I40E_X722 && n->variant && obad);
		else
			l4e = obad;
		f = RTE_MBUF_F_RX_IP_CKSUM_GOOD |
		    (l4e ? RTE_MBUF_F_RX_L4_CKSUM_BAD :
			   RTE_MBUF_F_RX_L4_CKSUM_GOOD);
		break;
	case P_MLX5:
		/* tunneled_offload_en only with a tunnel flow: then the CQE
		 * says "tunneled" and l3_ok/l4_ok are the inner ones. */
		parsed = n->parsed;
		if (parsed)
			pt = PT_L2L3 | PT_INNER(t->inner_udp) |
			     (n->variant ? (t->gre ? RTE_PTYPE_TUNNEL_GRE :
						     RTE_PTYPE_TUNNEL_VXLAN) : 0);
		else
			pt = PT_L2L3 | (t->gre ? 0 : RTE_PTYPE_L4_UDP);
		if (!n->checked)	/* rxq->csum off */
			break;
		if (parsed)
			l4ok = !ibad && !(n->variant && obad);
		else
			l4ok = !t->gre && !obad;
		/* l3_ok / l4_ok only ever give GOOD; never BAD */
		f = RTE_MBUF_F_RX_IP_CKSUM_GOOD |
		    (l4ok ? RTE_MBUF_F_RX_L4_CKSUM_GOOD : 0);
		break;
	case P_IXGBE_82599:
		/* No tunnel ptypes. rx_udp_csum_zero_err: an L4 error on a
		 * UDP packet is cleared to UNKNOWN. */
		pt = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
		     (t->gre ? 0 : RTE_PTYPE_L4_UDP);
		f = RTE_MBUF_F_RX_IP_CKSUM_GOOD |
		    (obad ? 0 : RTE_MBUF_F_RX_L4_CKSUM_GOOD);
		break;
	case P_IXGBE_X550:
		/* VXLAN/NVGRE ptypes; a plain GRE is not a tunnel to it. */
		parsed = !t->gre && n->parsed;
		if (parsed)
			pt = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
			     RTE_PTYPE_TUNNEL_VXLAN | RTE_PTYPE_INNER_L2_ETHER |
			     RTE_PTYPE_INNER_L3_IPV4 |
			     (t->inner_udp ? RTE_PTYPE_INNER_L4_UDP :
					     RTE_PTYPE_INNER_L4_TCP);
		else
			pt = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
			     (t->gre ? 0 : RTE_PTYPE_L4_UDP);
		l4e = parsed ? ibad : (!t->gre && t->ostate == O_BAD);
		f = RTE_MBUF_F_RX_IP_CKSUM_GOOD |
		    (l4e ? RTE_MBUF_F_RX_L4_CKSUM_BAD :
			   RTE_MBUF_F_RX_L4_CKSUM_GOOD);
		break;
	case P_TAP:
		pt = sw_ptype(t);
		if (!n->checked)	/* RX_OFFLOAD_CHECKSUM not set */
			break;
		f = RTE_MBUF_F_RX_IP_CKSUM_GOOD;
		if (t->gre)		/* L4 ptype 0: no L4 verdict */
			break;
		f |= t->ostate == O_ZERO ? RTE_MBUF_F_RX_L4_CKSUM_NONE :
		     t->ostate == O_GOOD ? RTE_MBUF_F_RX_L4_CKSUM_GOOD :
					   RTE_MBUF_F_RX_L4_CKSUM_BAD;
		break;
	case P_AF_PACKET:
		break;
	case P_VIRTIO:
		if (!n->checked)	/* virtio-net header flags 0 */
			break;
		pt = sw_ptype(t);
		if (t->gre)		/* no L4 ptype: no verdict */
			break;
		if (t->ostate == O_PARTIAL)	/* NEEDS_CSUM at outer UDP */
			f = RTE_MBUF_F_RX_L4_CKSUM_NONE;
		/* DATA_VALID: the host's level-0 checksum, which for a
		 * zero outer UDP checksum is the inner one (Linux) */
		else if (t->ostate == O_ZERO ? t->inner_ok :
			 t->ostate == O_GOOD)
			f = RTE_MBUF_F_RX_L4_CKSUM_GOOD;
		break;
	default:
		fail();
	}
	m->ol_flags = f;
	m->packet_type = pt;
}

/* ---- decapsulation, in dp_decap()'s order (datapath/decap.c) ---------- */

struct outcome {
	enum tep_reason r;	/* TEP_R_OK or why it was dropped */
	int summed;		/* our own outer sum ran */
	int verified;		/* tep_rxcsum_outer_verified() */
	int inner_marked;	/* left with RX_L4_CKSUM_GOOD */
	uint64_t ol_after;
	struct tep_rxcsum v;
};

/* datapath/decap.c inner_csum_good(), cut down to the packets built here. */
static bool
derive(const uint8_t *buf, const struct tep_decap *d)
{
	const uint8_t *ip = buf + d->inner_off + 14;
	uint32_t tot = tep_ref_rd16(ip + 2);

	return tep_inner_csum_derive(buf, d, (uint32_t)(ip - buf) + 20,
		tep_ipv4_phdr_sum(ip + 12, ip + 16, ip[9],
				  (uint16_t)(tot - 20)));
}

static void
mini_decap(struct rte_mbuf *m, struct outcome *o)
{
	const uint8_t *buf = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = m->data_len;
	unsigned int flags;
	struct tep_decap d;

	memset(o, 0, sizeof(*o));
	tep_rxcsum_get(m->ol_flags, m->packet_type, &o->v);
	flags = tep_rxcsum_parse_flags(&o->v);
	o->r = tep_parse_outer(buf, len, flags, &d);
	if (o->r == TEP_R_OK && d.l4_proto == 17) {
		o->summed = (flags & TEP_PARSE_VERIFY_CSUM) != 0;
		o->r = tep_parse_vxlan(buf, len, &d);
	} else if (o->r == TEP_R_OK) {
		o->summed = 1;
		o->r = tep_parse_gre(buf, len, TEP_PARSE_VERIFY_CSUM, &d);
	}
	if (o->r != TEP_R_OK)
		return;
	o->verified = tep_rxcsum_outer_verified(&o->v, &d);
	o->inner_marked = tep_rxcsum_inner_good(&o->v, &d) ||
			  (o->verified && derive(buf, &d));
	o->ol_after = (m->ol_flags & ~TEP_RXCSUM_FLAGS) |
		      (o->inner_marked ? RTE_MBUF_F_RX_L4_CKSUM_GOOD : 0);
}

/* ---- fake mbuf --------------------------------------------------------- */

struct fpkt {
	struct rte_mbuf m;
	uint8_t store[MAXF + 128];
};

static struct rte_mbuf *
to_mbuf(struct fpkt *f, const struct truth *t)
{
	uint32_t len;

	memset(&f->m, 0, sizeof(f->m));
	f->m.buf_addr = f->store;
	f->m.data_off = 128;	/* RTE_PKTMBUF_HEADROOM in Debian's build */
	f->m.buf_len = sizeof(f->store);
	len = build_pkt(t, f->store + 128);
	f->m.data_len = (uint16_t)len;
	f->m.pkt_len = len;
	f->m.nb_segs = 1;
	return &f->m;
}

/* ---- tests ------------------------------------------------------------- */

#define U TEP_RXV_UNKNOWN
#define B TEP_RXV_BAD
#define G TEP_RXV_GOOD
#define N TEP_RXV_NONE

/* VXLAN/IPv4, inner TCP: what each PMD's mbuf says, sorted by header. */
struct vrow {
	enum pmd pmd;
	int parsed, checked, variant;
	int ostate, inner_ok;
	uint8_t outer, inner;	/* expected */
	const char *what;
};

static const struct vrow vrows[] = {
	/* ice, tunnel parsed: outer from OUTER_L4 (EUDPE), inner RX_L4 */
	{ P_ICE, 1, 1, 0, O_GOOD, 1, G, G, "good outer, good inner" },
	{ P_ICE, 1, 1, 0, O_BAD, 1, B, G, "bad outer, good inner" },
	{ P_ICE, 1, 1, 0, O_GOOD, 0, G, B, "good outer, bad inner" },
	{ P_ICE, 1, 1, 0, O_ZERO, 1, G, G, "zero outer, no EUDPE" },
	{ P_ICE, 1, 1, 1, O_ZERO, 1, B, G, "zero outer, EUDPE" },
	{ P_ICE, 1, 0, 0, O_GOOD, 1, U, U, "L3L4P clear" },
	/* ice, not parsed: RX_L4 is the outer; OUTER_L4_GOOD is noise */
	{ P_ICE, 0, 1, 0, O_GOOD, 1, G, U, "plain: good outer" },
	{ P_ICE, 0, 1, 0, O_BAD, 1, B, U, "plain: bad outer" },
	{ P_ICE, 0, 1, 0, O_GOOD, 0, G, U, "plain: inner unseen" },
	{ P_ICE, 0, 1, 0, O_ZERO, 1, G, U, "plain: zero outer" },
	/* i40e X710 parsed: no outer L4 verdict at all */
	{ P_I40E_X710, 1, 1, 0, O_GOOD, 1, U, G, "good outer, good inner" },
	{ P_I40E_X710, 1, 1, 0, O_BAD, 1, U, G, "bad outer, good inner" },
	{ P_I40E_X710, 1, 1, 0, O_GOOD, 0, U, B, "good outer, bad inner" },
	{ P_I40E_X710, 1, 1, 0, O_ZERO, 1, U, G, "zero outer" },
	{ P_I40E_X710, 0, 1, 0, O_GOOD, 1, G, U, "port not registered" },
	{ P_I40E_X710, 0, 1, 0, O_BAD, 1, B, U, "port not registered, bad" },
	{ P_I40E_X710, 0, 1, 0, O_ZERO, 1, G, U, "port not registered, 0" },
	/* X722: if L4E also covers the outer UDP, a bad outer spoils the
	 * inner verdict, never the outer one */
	{ P_I40E_X722, 1, 1, 1, O_BAD, 1, U, B, "bad outer, good inner" },
	{ P_I40E_X722, 1, 1, 1, O_GOOD, 1, U, G, "good outer, good inner" },
	{ P_I40E_X722, 1, 1, 0, O_GOOD, 0, U, B, "good outer, bad inner" },
	/* mlx5 default (no tunnel flow): l4_ok is the outer UDP */
	{ P_MLX5, 0, 1, 0, O_GOOD, 1, G, U, "good outer" },
	{ P_MLX5, 0, 1, 0, O_BAD, 1, U, U, "bad outer: no l4_ok" },
	{ P_MLX5, 0, 1, 0, O_ZERO, 1, G, U, "zero outer" },
	{ P_MLX5, 0, 0, 0, O_GOOD, 1, U, U, "Rx checksum off" },
	/* mlx5 with a tunnel flow: INNER_* ptype, l4_ok is the inner */
	{ P_MLX5, 1, 1, 0, O_GOOD, 1, U, G, "tunneled, good inner" },
	{ P_MLX5, 1, 1, 0, O_BAD, 1, U, G, "tunneled, bad outer" },
	{ P_MLX5, 1, 1, 1, O_BAD, 1, U, U, "tunneled, l4_ok needs outer" },
	{ P_MLX5, 1, 1, 0, O_GOOD, 0, U, U, "tunneled, bad inner" },
	{ P_MLX5, 1, 1, 1, O_ZERO, 1, U, G, "tunneled+TUNNEL ptype, zero" },
	/* ixgbe */
	{ P_IXGBE_82599, 0, 1, 0, O_GOOD, 1, G, U, "good outer" },
	{ P_IXGBE_82599, 0, 1, 0, O_BAD, 1, U, U, "UDP error cleared" },
	{ P_IXGBE_82599, 0, 1, 1, O_ZERO, 1, U, U, "zero outer, erratum" },
	{ P_IXGBE_82599, 0, 1, 0, O_ZERO, 1, G, U, "zero outer" },
	{ P_IXGBE_X550, 1, 1, 0, O_GOOD, 1, U, G, "VXLAN ptype, good" },
	{ P_IXGBE_X550, 1, 1, 0, O_BAD, 1, U, G, "VXLAN ptype, bad outer" },
	{ P_IXGBE_X550, 1, 1, 0, O_GOOD, 0, U, B, "VXLAN ptype, bad inner" },
	{ P_IXGBE_X550, 0, 1, 0, O_BAD, 1, B, U, "no VXLAN port, bad" },
	/* net_tap: software check of the outermost L4 only */
	{ P_TAP, 0, 1, 0, O_GOOD, 1, G, U, "good outer" },
	{ P_TAP, 0, 1, 0, O_BAD, 1, B, U, "bad outer" },
	{ P_TAP, 0, 1, 0, O_GOOD, 0, G, U, "bad inner unseen" },
	{ P_TAP, 0, 1, 0, O_ZERO, 1, N, U, "zero outer: NONE" },
	{ P_TAP, 0, 0, 0, O_GOOD, 1, U, U, "Rx checksum off" },
	/* af_packet: nothing, ever */
	{ P_AF_PACKET, 0, 1, 0, O_GOOD, 1, U, U, "good" },
	{ P_AF_PACKET, 0, 1, 0, O_BAD, 0, U, U, "bad" },
	{ P_AF_PACKET, 0, 1, 0, O_ZERO, 1, U, U, "zero" },
	/* virtio */
	{ P_VIRTIO, 0, 1, 0, O_GOOD, 1, G, U, "DATA_VALID" },
	{ P_VIRTIO, 0, 1, 0, O_BAD, 1, U, U, "no DATA_VALID" },
	{ P_VIRTIO, 0, 1, 0, O_ZERO, 1, G, U, "zero: DATA_VALID of inner" },
	{ P_VIRTIO, 0, 1, 0, O_PARTIAL, 1, N, U, "NEEDS_CSUM" },
	{ P_VIRTIO, 0, 0, 0, O_GOOD, 1, U, U, "no header flags" },
};

static void
test_verdicts_per_pmd(void **state)
{
	static struct fpkt f;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(vrows) / sizeof(vrows[0]); i++) {
		const struct vrow *r = &vrows[i];
		struct truth t = { 0, r->ostate, r->inner_ok, 0 };
		struct nic n = { r->parsed, r->checked, r->variant };
		struct rte_mbuf *m = to_mbuf(&f, &t);
		struct tep_rxcsum v;

		deliver(r->pmd, &t, &n, m);
		tep_rxcsum_get(m->ol_flags, m->packet_type, &v);
		if (v.outer != r->outer || v.inner != r->inner) {
			print_error("%s, %s: outer %s inner %s, expected outer "
				    "%s inner %s (ol_flags 0x%llx ptype 0x%x)\n",
				    pmd_name[r->pmd], r->what,
				    tep_rxv_name(v.outer), tep_rxv_name(v.inner),
				    tep_rxv_name(r->outer),
				    tep_rxv_name(r->inner),
				    (unsigned long long)m->ol_flags,
				    m->packet_type);
			fail();
		}
	}
}

/* Flag combinations written out, without the models. */
static void
test_verdicts_literal(void **state)
{
	struct tep_rxcsum v;

	(void)state;
	/* ice, VXLAN not parsed: OUTER_L4_GOOD on a plain packet */
	tep_rxcsum_get(RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_BAD |
		       RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD,
		       PT_L2L3 | RTE_PTYPE_L4_UDP, &v);
	assert_int_equal(v.parsed, 0);
	assert_int_equal(v.outer, B);
	assert_int_equal(v.inner, U);
	assert_int_equal(v.outer_ip, G);
	/* parsed: the inner IP verdict is not the outer one's */
	tep_rxcsum_get(RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD |
		       RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD,
		       PT_L2L3 | RTE_PTYPE_TUNNEL_GRENAT |
		       RTE_PTYPE_INNER_L2_ETHER | PT_INNER(1), &v);
	assert_int_equal(v.parsed, 1);
	assert_int_equal(v.outer, U);
	assert_int_equal(v.inner, G);
	assert_int_equal(v.outer_ip, B);
	tep_rxcsum_get(RTE_MBUF_F_RX_IP_CKSUM_GOOD,
		       PT_L2L3 | RTE_PTYPE_TUNNEL_GRENAT | PT_INNER(0), &v);
	assert_int_equal(v.outer_ip, U);
	/* OUTER_L4_CKSUM_INVALID reads as unknown */
	tep_rxcsum_get(RTE_MBUF_F_RX_OUTER_L4_CKSUM_INVALID |
		       RTE_MBUF_F_RX_L4_CKSUM_GOOD,
		       PT_L2L3 | RTE_PTYPE_TUNNEL_VXLAN | PT_INNER(0), &v);
	assert_int_equal(v.outer, U);
	assert_int_equal(v.inner, G);
	/* an inner verdict on a non-TCP/UDP inner packet means nothing */
	tep_rxcsum_get(RTE_MBUF_F_RX_L4_CKSUM_GOOD,
		       PT_L2L3 | RTE_PTYPE_TUNNEL_GRENAT |
		       RTE_PTYPE_INNER_L3_IPV4_EXT_UNKNOWN |
		       RTE_PTYPE_INNER_L4_ICMP, &v);
	assert_int_equal(v.inner, U);
	tep_rxcsum_get(RTE_MBUF_F_RX_L4_CKSUM_GOOD,
		       PT_L2L3 | RTE_PTYPE_TUNNEL_GRENAT |
		       RTE_PTYPE_INNER_L3_IPV4_EXT_UNKNOWN |
		       RTE_PTYPE_INNER_L4_FRAG, &v);
	assert_int_equal(v.inner, U);
	/* not parsed, but OUTER_L4 contradicts RX_L4: trust neither */
	tep_rxcsum_get(RTE_MBUF_F_RX_L4_CKSUM_GOOD |
		       RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD, PT_L2L3, &v);
	assert_int_equal(v.outer, U);
	/* nothing at all */
	tep_rxcsum_get(0, 0, &v);
	assert_int_equal(v.outer, U);
	assert_int_equal(v.inner, U);
	assert_int_equal(v.outer_ip, U);
	assert_int_equal(v.parsed, 0);
	/* only GOOD and NONE spare the sum */
	v.outer = G;
	assert_int_equal(tep_rxcsum_parse_flags(&v), 0);
	v.outer = N;
	assert_int_equal(tep_rxcsum_parse_flags(&v), 0);
	v.outer = B;
	assert_int_equal(tep_rxcsum_parse_flags(&v), TEP_PARSE_VERIFY_CSUM);
	v.outer = U;
	assert_int_equal(tep_rxcsum_parse_flags(&v), TEP_PARSE_VERIFY_CSUM);
	assert_string_equal(tep_rxv_name(TEP_RXV_NONE), "none");
}

static void
report(enum pmd p, const struct truth *t, const struct nic *n,
       const struct outcome *o, const char *broken)
{
	print_error("%s: %s %s %s outer, inner %s %s, parsed %d checked %d "
		    "variant %d -> reason %s summed %d verified %d marked %d "
		    "(outer %s inner %s)\n", pmd_name[p], broken,
		    t->gre ? "GRE" : "VXLAN", ostate_name[t->ostate],
		    t->inner_udp ? "UDP" : "TCP", t->inner_ok ? "good" : "bad",
		    n->parsed, n->checked, n->variant, tep_reason_name(o->r),
		    o->summed, o->verified, o->inner_marked,
		    tep_rxv_name(o->v.outer), tep_rxv_name(o->v.inner));
	fail();
}

static void
check_one(enum pmd p, const struct truth *t, const struct nic *n,
	  struct fpkt *f)
{
	struct rte_mbuf *m = to_mbuf(f, t);
	struct outcome o;

	deliver(p, t, n, m);
	mini_decap(m, &o);
	if (t->ostate == O_BAD) {
		if (o.r != TEP_R_BAD_OUTER_CSUM)
			report(p, t, n, &o, "bad outer not dropped:");
		return;
	}
	if (o.r != TEP_R_OK)
		report(p, t, n, &o, "dropped:");
	/* only a present, right outer checksum counts as verified ... */
	if (o.verified != (t->ostate == O_GOOD) &&
	    !(t->ostate == O_GOOD && !t->gre && o.v.outer == N))
		report(p, t, n, &o, "outer verified wrongly:");
	/* ... and a bad inner checksum is never marked good */
	if (o.inner_marked && !t->inner_ok)
		report(p, t, n, &o, "bad inner marked good:");
	/* good outer UDP and inner: the inner is marked (derived, or by
	 * the NIC). lib/proto derives from a UDP checksum only. */
	if (o.verified && !t->gre && t->inner_ok && !o.inner_marked)
		report(p, t, n, &o, "good inner not derived:");
	/* the NIC's inner GOOD is used even with a zero outer checksum */
	if (o.v.inner == G && !o.inner_marked)
		report(p, t, n, &o, "NIC inner verdict unused:");
	if (o.ol_after & (RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK |
			  RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD |
			  RTE_MBUF_F_RX_IP_CKSUM_MASK))
		report(p, t, n, &o, "outer flags left:");
}

static void
test_decap_invariants(void **state)
{
	static struct fpkt f;
	struct truth t;
	struct nic n;
	int p, k;
	unsigned int runs = 0;

	(void)state;
	for (p = 0; p < P_MAX; p++)
	for (t.gre = 0; t.gre < 2; t.gre++)
	for (t.ostate = O_GOOD; t.ostate <= O_PARTIAL; t.ostate++)
	for (t.inner_ok = 0; t.inner_ok < 2; t.inner_ok++)
	for (t.inner_udp = 0; t.inner_udp < 2; t.inner_udp++)
	for (n.parsed = 0; n.parsed < 2; n.parsed++)
	for (n.checked = 0; n.checked < 2; n.checked++)
	for (n.variant = 0; n.variant < 2; n.variant++) {
		/* a partial outer checksum only comes from virtio, with
		 * NEEDS_CSUM in the header */
		if (t.ostate == O_PARTIAL &&
		    (p != P_VIRTIO || t.gre || !n.checked))
			continue;
		for (k = 0; k < 8; k++, runs++)
			check_one((enum pmd)p, &t, &n, &f);
	}
	assert_true(runs > 10000);
}

/*
 * No PMD verifies a GRE checksum: a GOOD RX_L4 on a GRE packet (ixgbe and
 * i40e say GOOD whenever no error bit is set; i40e/ice then speak of the
 * inner L4) must neither spare the GRE sum nor count as verified.
 */
static void
test_gre_checksum_never_from_nic(void **state)
{
	static struct fpkt f;
	struct truth t = { 1, O_BAD, 1, 0 };
	struct rte_mbuf *m;
	struct outcome o;

	(void)state;
	m = to_mbuf(&f, &t);
	m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD |
		      RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;
	m->packet_type = PT_L2L3;
	mini_decap(m, &o);
	assert_int_equal(o.v.outer, G);
	assert_int_equal(o.r, TEP_R_BAD_OUTER_CSUM);

	t.ostate = O_GOOD;
	m = to_mbuf(&f, &t);
	m->ol_flags = RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	m->packet_type = PT_L2L3;
	mini_decap(m, &o);
	assert_int_equal(o.r, TEP_R_OK);
	assert_int_equal(o.summed, 1);
	assert_int_equal(o.verified, 1);	/* by our sum */

	/* the helper itself: a NIC GOOD never stands for a GRE checksum */
	{
		struct tep_rxcsum v = { .outer = G };
		struct tep_decap d = { .l4_proto = 47, .csum_present = 1 };

		assert_false(tep_rxcsum_outer_verified(&v, &d));
		d.l4_proto = 17;
		assert_true(tep_rxcsum_outer_verified(&v, &d));
	}
}

/* A NIC GOOD on a zero outer UDP checksum: the packet is accepted, but
 * nothing rests on that checksum (the RCO / derivation guard). */
static void
test_zero_outer_not_verified(void **state)
{
	static struct fpkt f;
	struct truth t = { 0, O_ZERO, 1, 1 };
	struct tep_decap d;
	struct tep_rxcsum v;
	struct rte_mbuf *m;

	(void)state;
	m = to_mbuf(&f, &t);
	tep_rxcsum_get(RTE_MBUF_F_RX_L4_CKSUM_GOOD, PT_L2L3 | RTE_PTYPE_L4_UDP,
		       &v);
	assert_int_equal(tep_parse_outer(rte_pktmbuf_mtod(m, uint8_t *),
					 m->data_len,
					 tep_rxcsum_parse_flags(&v), &d),
			 TEP_R_OK);
	assert_int_equal(d.csum_present, 0);
	assert_false(tep_rxcsum_outer_verified(&v, &d));
	/* the same for GOOD from OUTER_L4 on a parsed tunnel */
	tep_rxcsum_get(RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD,
		       PT_L2L3 | RTE_PTYPE_TUNNEL_GRENAT | PT_INNER(1), &v);
	assert_int_equal(v.outer, G);
	assert_false(tep_rxcsum_outer_verified(&v, &d));
	/* and RCO never rests on the NIC's inner verdict */
	d.has_rco = 1;
	v.inner = G;
	assert_false(tep_rxcsum_inner_good(&v, &d));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdicts_per_pmd),
		cmocka_unit_test(test_verdicts_literal),
		cmocka_unit_test(test_decap_invariants),
		cmocka_unit_test(test_gre_checksum_never_from_nic),
		cmocka_unit_test(test_zero_outer_not_verified),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
