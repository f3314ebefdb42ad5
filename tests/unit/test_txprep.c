/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * drivers/tep_txprep tests, on fake mbufs in plain memory (no EAL).
 *
 * Packets are random VXLAN/GENEVE/FOU/GUE/GRE over IPv4/IPv6 (and plain
 * ones), built by hand here, with the outer headers and their LCO checksum
 * from lib/proto (the inner field holding the pseudo-header seed, state
 * PENDING, as the dataplane leaves it). Every expected checksum comes from
 * a naive RFC 1071 sum written here; lib/csum is never used to compute an
 * expected value. For offloaded packets the test plays the PMD: net_tap's
 * 22.11 Tx code, or an Intel-style "seed then sum" device (what
 * rte_net_intel_cksum_prepare and i40e/ixgbe/virtio hosts do), and checks
 * the wire bytes it would produce.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "tep_proto.h"
#include "tep_txprep.h"
#include "tep_ref.h"

/* ---- independent reference ------------------------------------------- */

/* ---- deterministic PRNG (xorshift64*), seeded so failures replay ------ */

static uint64_t rng_state = 0x7465707478707231ull; /* "teptxpr1" */

static uint64_t
rnd(void)
{
	return tep_ref_rnd(&rng_state);
}

static uint32_t
rnd_below(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

static void
rnd_fill(uint8_t *p, size_t n)
{
	tep_ref_rnd_fill(&rng_state, p, n);
}

/* ---- test packets ------------------------------------------------------ */

#define MAXF	9600
#define MAXSEG	8
#define PLAIN	(-1)

#define ALL_REQ (RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_IPV4 |		\
		 RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_OUTER_IPV4 |		\
		 RTE_MBUF_F_TX_OUTER_IPV6 | RTE_MBUF_F_TX_TUNNEL_MASK)

struct tcase {
	uint8_t frame[MAXF];
	uint32_t len;		/* frame bytes incl. trailer (= pkt_len) */
	uint32_t trailer;	/* bytes after the (outer) IP datagram */
	int tun;		/* enum tep_tun_type or PLAIN */
	int outer_v6, inner_v6, udp, v6_ext;
	uint16_t dst_port;	/* outer UDP destination port */
	uint32_t outer_l2, outer_l3, l2_len, l3_len;
	uint32_t ip_off;	/* inner (or only) IP header */
	uint32_t l4_off, l4_hdr;	/* L4 header and its real length */
	uint32_t ip_end;	/* end of that IP datagram */
	uint32_t ol4_off, oend;	/* outer UDP/GRE header, outer datagram end */
	int outer_check;	/* 1 UDP, 2 GRE checksum, 0 none */
	uint8_t osrc[16], odst[16];
	uint8_t ph_in[40];
	size_t ph_in_len;
	uint64_t ol_flags;
};

static uint32_t
csum_field(const struct tcase *t)
{
	return t->l4_off + (t->udp ? 6 : 16);
}

/* Inner (or plain) L2+L3+L4 packet at p; returns its length. */
static uint32_t
build_ip_packet(struct tcase *t, uint8_t *p, int eth, uint32_t pay)
{
	uint32_t off = 0, ihl, ext = 0, l4h, l4len;
	uint8_t proto = t->udp ? 17 : 6;
	uint8_t *ip, *l4;

	if (eth) {
		rnd_fill(p, 12);
		if (rnd_below(4) == 0) {
			tep_ref_wr16(p + 12, 0x8100);
			tep_ref_wr16(p + 14, (uint16_t)rnd_below(4096));
			off = 16;
		} else {
			off = 12;
		}
		tep_ref_wr16(p + off, t->inner_v6 ? 0x86dd : 0x0800);
		off += 2;
	}
	ip = p + off;
	t->ip_off = off;	/* relative for now */
	l4h = t->udp ? 8 : 20 + 4 * rnd_below(11);
	l4len = l4h + pay;
	if (!t->inner_v6) {
		ihl = 20 + 4 * rnd_below(11);
		rnd_fill(ip, ihl);
		ip[0] = 0x40 | (uint8_t)(ihl / 4);
		tep_ref_wr16(ip + 2, (uint16_t)(ihl + l4len));
		tep_ref_wr16(ip + 6, rnd_below(2) ? 0x4000 : 0);	/* DF, no frag */
		ip[9] = proto;
		tep_ref_wr16(ip + 10, 0);
		tep_ref_wr16(ip + 10, (uint16_t)~tep_ref_sum(ip, ihl, 0));
		t->ph_in_len = tep_ref_phdr_bytes(t->ph_in, 0, ip + 12, ip + 16, proto,
					l4len);
	} else {
		uint8_t *nh;

		rnd_fill(ip, 40);
		ip[0] = 0x60 | (ip[0] & 0x0f);
		ihl = 40;
		nh = ip + 6;
		/* hop-by-hop and/or destination options, 1 in 4 */
		if (rnd_below(4) == 0) {
			int n = 1 + (int)rnd_below(2), k;

			for (k = 0; k < n; k++) {
				uint32_t elen = 8 * (1 + rnd_below(3));
				uint8_t *e = ip + ihl;

				*nh = k == 0 && rnd_below(2) ? 0 : 60;
				rnd_fill(e, elen);
				e[1] = (uint8_t)(elen / 8 - 1);
				nh = e;
				ihl += elen;
				ext += elen;
			}
		}
		*nh = proto;
		tep_ref_wr16(ip + 4, (uint16_t)(ext + l4len));
		t->ph_in_len = tep_ref_phdr_bytes(t->ph_in, 1, ip + 8, ip + 24, proto,
					l4len);
	}
	t->v6_ext = ext != 0;
	t->l3_len = ihl;
	l4 = ip + ihl;
	rnd_fill(l4, l4len);
	if ((rnd() & 15) == 0)
		memset(l4 + l4h, 0, pay);
	if (t->udp) {
		tep_ref_wr16(l4 + 4, (uint16_t)l4len);
	} else {
		l4[12] = (uint8_t)((l4h / 4) << 4);
	}
	t->l4_hdr = l4h;
	/* The seed the dataplane leaves: the standard pseudo-header sum. */
	tep_ref_wr16(l4 + (t->udp ? 6 : 16), tep_ref_sum(t->ph_in, t->ph_in_len, 0));
	return off + ihl + l4len;
}

static const uint64_t tun_flag[TEP_TUN_MAX] = {
	[TEP_TUN_VXLAN] = RTE_MBUF_F_TX_TUNNEL_VXLAN,
	[TEP_TUN_GENEVE] = RTE_MBUF_F_TX_TUNNEL_GENEVE,
	[TEP_TUN_FOU] = RTE_MBUF_F_TX_TUNNEL_UDP,
	[TEP_TUN_GUE] = RTE_MBUF_F_TX_TUNNEL_UDP,
	[TEP_TUN_GRE] = RTE_MBUF_F_TX_TUNNEL_GRE,
};

struct gen_opts {
	int tun;		/* forced tunnel type, or -2 = random */
	int multiseg;		/* -1 random, 0 never, 1 always */
	int trailer;		/* -1 random, 0 never, 1 always */
	int big;		/* allow 8000-byte payloads */
	int dport;		/* -1 random default/odd port, else port */
	int udp;		/* -1 random, 0 TCP, 1 UDP */
};

static const struct gen_opts gen_default = { -2, -1, -1, 1, -1, -1 };

/*
 * A random packet: plain or tunnelled, with its metadata as the dataplane
 * sets it and the outer checksum done by LCO over the pending seed.
 */
static void
make_case(struct tcase *t, const struct gen_opts *o)
{
	uint32_t pay, inner_len;
	uint64_t fl;

	memset(&t->len, 0, sizeof(*t) - offsetof(struct tcase, len));
	t->tun = o->tun == -2 ? (int)rnd_below(TEP_TUN_MAX + 1) - 1 : o->tun;
	t->outer_v6 = (int)rnd_below(2);
	t->inner_v6 = (int)rnd_below(2);
	t->udp = o->udp >= 0 ? o->udp : (int)rnd_below(2);
	pay = o->big && rnd_below(8) == 0 ? rnd_below(8001) : rnd_below(1500);

	if (t->tun == PLAIN) {
		uint32_t n = build_ip_packet(t, t->frame, 1, pay);

		t->l2_len = t->ip_off;
		t->l4_off = t->ip_off + t->l3_len;
		t->ip_end = n;
		t->len = n;
		fl = 0;
	} else {
		struct tep_encap_params p;
		struct tep_encap_tmpl tm;
		struct tep_encap_pkt ep;
		uint8_t opts[92];
		char err[128];
		int eth, rc;

		memset(&p, 0, sizeof(p));
		p.type = (enum tep_tun_type)t->tun;
		p.outer_v6 = t->outer_v6;
		rnd_fill(p.smac, 6);
		rnd_fill(p.dmac, 6);
		p.vlan_tci = rnd_below(3) == 0 ? (uint16_t)(1 + rnd_below(4094)) : 0;
		rnd_fill(p.src, 16);
		rnd_fill(p.dst, 16);
		p.df = rnd_below(2);
		p.vni = rnd_below(TEP_VNI_MAX + 1);
		p.csum = TEP_CSUM_LCO;
		if (o->dport >= 0)
			p.dst_port = (uint16_t)o->dport;
		else if (rnd_below(4) == 0)
			p.dst_port = (uint16_t)(1024 + rnd_below(60000));
		p.gue_proto = t->inner_v6 ? 41 : 4;
		if (t->tun == TEP_TUN_GRE) {
			p.gre_key = rnd_below(2);
			p.gre_csum = rnd_below(2);
			p.vni = (uint32_t)rnd();
			p.gre_proto = rnd_below(2) ? TEP_ETH_P_TEB :
				      t->inner_v6 ? TEP_ETH_P_IPV6 :
				      TEP_ETH_P_IPV4;
		}
		if (t->tun == TEP_TUN_GENEVE) {
			/* up to 92 bytes of options: l2_len = 8 + 8 + 92 +
			 * 18 (inner MAC + VLAN) still fits its 7 bits */
			uint32_t total = 4 * rnd_below(24), used = 0;

			while (total - used >= 4) {
				uint32_t words = rnd_below(
					(total - used - 4) / 4 + 1);
				uint8_t *op = opts + used;

				if (words > 31)
					words = 31;
				rnd_fill(op, 4 + 4 * words);
				op[2] &= 0x7f;		/* not critical */
				op[3] = (uint8_t)words;
				used += 4 + 4 * words;
			}
			p.geneve_opts = opts;
			p.geneve_opts_len = (uint16_t)total;
		}
		rc = tep_encap_tmpl_build(&tm, &p, err, sizeof(err));
		if (rc != 0)
			fail_msg("template: %s", err);
		eth = tm.inner_eth;
		inner_len = build_ip_packet(t, t->frame + tm.len, eth, pay);
		t->ip_off += tm.len;
		t->l4_off = t->ip_off + t->l3_len;
		t->ip_end = tm.len + inner_len;
		t->len = t->ip_end;
		t->outer_l2 = tm.l2_len;
		t->outer_l3 = tm.l3_len;
		t->ol4_off = tm.l4_off;
		t->oend = t->ip_end;
		t->l2_len = t->ip_off - tm.l4_off;
		t->dst_port = t->tun == TEP_TUN_GRE ? 0 :
			      tep_ref_rd16(tm.hdr + tm.l4_off + 2);
		t->outer_check = t->tun != TEP_TUN_GRE ? 1 :
				 p.gre_csum ? 2 : 0;
		memcpy(t->osrc, tm.hdr + tm.l2_len + (t->outer_v6 ? 8 : 12),
		       t->outer_v6 ? 16 : 4);
		memcpy(t->odst, tm.hdr + tm.l2_len + (t->outer_v6 ? 24 : 16),
		       t->outer_v6 ? 16 : 4);

		memset(&ep, 0, sizeof(ep));
		ep.inner_len = (uint16_t)inner_len;
		ep.sport = (uint16_t)(49152 + rnd_below(16384));
		ep.ip_id = (uint16_t)rnd();
		ep.flow_label = (uint32_t)rnd() & 0xfffff;
		ep.l4.kind = t->udp ? TEP_L4_UDP : TEP_L4_TCP;
		ep.l4.state = TEP_L4_PENDING;
		ep.l4.csum_start = (uint16_t)(t->l4_off - tm.len);
		ep.l4.csum_offset = t->udp ? 6 : 16;
		rc = tep_encap_write(&tm, t->frame, &ep);
		assert_true(rc == TEP_OCSUM_LCO || rc == TEP_OCSUM_NONE);
		assert_int_equal(rc == TEP_OCSUM_LCO, t->outer_check != 0);
		fl = (t->outer_v6 ? RTE_MBUF_F_TX_OUTER_IPV6 :
				    RTE_MBUF_F_TX_OUTER_IPV4) | tun_flag[t->tun];
	}
	fl |= t->inner_v6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4;
	fl |= t->udp ? RTE_MBUF_F_TX_UDP_CKSUM : RTE_MBUF_F_TX_TCP_CKSUM;
	t->ol_flags = fl;

	if (o->trailer == 1 || (o->trailer == -1 && rnd_below(5) == 0)) {
		t->trailer = 1 + rnd_below(24);
		rnd_fill(t->frame + t->len, t->trailer);	/* non-zero junk */
		t->frame[t->len] |= 1;
		t->len += t->trailer;
	}
}

/* ---- fake mbufs -------------------------------------------------------- */

struct fpkt {
	struct rte_mbuf seg[MAXSEG];
	uint8_t store[MAXF + MAXSEG * 72];
	uint32_t nsegs;
};

/* Lay frame[0..len) into a chain; the first segment holds at least
 * hdr_min bytes. nsegs 1 = single segment. Cut points are random, so odd
 * lengths and odd offsets are common; a segment may even be empty. */
static void
to_mbufs(struct fpkt *f, const uint8_t *frame, uint32_t len, uint32_t nsegs,
	 uint32_t hdr_min)
{
	uint32_t cuts[MAXSEG + 1], k, cursor = 0;

	assert_true(nsegs >= 1 && nsegs <= MAXSEG && hdr_min <= len);
	cuts[0] = 0;
	cuts[nsegs] = len;
	if (nsegs > 1)
		cuts[1] = hdr_min + rnd_below(len - hdr_min + 1);
	for (k = 2; k < nsegs; k++)
		cuts[k] = cuts[1] + rnd_below(len - cuts[1] + 1);
	for (k = 2; k < nsegs; k++) {	/* insertion sort of cuts[2..] */
		uint32_t v = cuts[k], j = k;

		while (j > 2 && cuts[j - 1] > v) {
			cuts[j] = cuts[j - 1];
			j--;
		}
		cuts[j] = v;
	}
	memset(f->seg, 0, sizeof(f->seg));
	for (k = 0; k < nsegs; k++) {
		struct rte_mbuf *m = &f->seg[k];
		uint16_t doff = (uint16_t)rnd_below(64);
		uint16_t dl = (uint16_t)(cuts[k + 1] - cuts[k]);

		m->buf_addr = f->store + cursor;
		m->data_off = doff;
		m->data_len = dl;
		m->buf_len = (uint16_t)(doff + dl);
		memcpy(f->store + cursor + doff, frame + cuts[k], dl);
		cursor += doff + dl + 1;
		m->next = k + 1 < nsegs ? &f->seg[k + 1] : NULL;
		m->nb_segs = 1;
	}
	f->seg[0].nb_segs = (uint16_t)nsegs;
	f->seg[0].pkt_len = len;
	f->nsegs = nsegs;
}

/* Exactly two segments, the first one holding frame[0..cut). */
static void
split_at(struct fpkt *f, const uint8_t *frame, uint32_t len, uint32_t cut)
{
	assert_true(cut <= len);
	memset(f->seg, 0, sizeof(f->seg));
	f->seg[0].buf_addr = f->store;
	f->seg[0].data_off = 1;
	f->seg[0].data_len = (uint16_t)cut;
	memcpy(f->store + 1, frame, cut);
	f->seg[1].buf_addr = f->store + cut + 8;
	f->seg[1].data_off = 3;
	f->seg[1].data_len = (uint16_t)(len - cut);
	memcpy(f->store + cut + 8 + 3, frame + cut, len - cut);
	f->seg[0].next = &f->seg[1];
	f->seg[0].nb_segs = 2;
	f->seg[1].nb_segs = 1;
	f->seg[0].pkt_len = len;
	f->nsegs = 2;
}

/* One line about a case, for failure messages. */
static const char *
case_str(const struct tcase *t, const struct fpkt *f)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "tun %d outer_v6 %d inner_v6 %d udp %d "
		 "ext %d dport %u l2 %u/%u/%u l3 %u ip_off %u l4_off %u "
		 "ip_end %u len %u trailer %u segs %u seg0 %u",
		 t->tun, t->outer_v6, t->inner_v6, t->udp, t->v6_ext,
		 t->dst_port, t->outer_l2, t->outer_l3, t->l2_len, t->l3_len,
		 t->ip_off, t->l4_off, t->ip_end, t->len, t->trailer,
		 f->nsegs, f->seg[0].data_len);
	return buf;
}

static void
set_meta(struct rte_mbuf *m, const struct tcase *t)
{
	m->ol_flags = t->ol_flags;
	m->outer_l2_len = t->tun == PLAIN ? 0 : t->outer_l2;
	m->outer_l3_len = t->tun == PLAIN ? 0 : t->outer_l3;
	m->l2_len = t->l2_len;
	m->l3_len = t->l3_len;
	m->l4_len = t->l4_hdr;
}

/* Case -> fake packet, single or multi-segment per the options. */
static void
load(struct fpkt *f, const struct tcase *t, int multiseg)
{
	uint32_t nsegs = 1;

	if (multiseg == 1 || (multiseg == -1 && rnd_below(2)))
		nsegs = 2 + rnd_below(MAXSEG - 1);
	to_mbufs(f, t->frame, t->len, nsegs, t->l4_off + (t->udp ? 8 : 20));
	set_meta(&f->seg[0], t);
}

static uint32_t
linearize(const struct rte_mbuf *m, uint8_t *out)
{
	uint32_t n = 0;

	for (; m != NULL; m = m->next) {
		memcpy(out + n, rte_pktmbuf_mtod(m, const uint8_t *),
		       m->data_len);
		n += m->data_len;
	}
	return n;
}

/* ---- what the wire must show ------------------------------------------- */

/* The standard inner checksum, computed from the test's own data. */
static uint16_t
want_inner(const struct tcase *t, const uint8_t *frame)
{
	static uint8_t tmp[MAXF];
	uint32_t l4len = t->ip_end - t->l4_off;
	uint16_t ck;

	memcpy(tmp, frame + t->l4_off, l4len);
	tep_ref_wr16(tmp + (t->udp ? 6 : 16), 0);
	ck = (uint16_t)~tep_ref_sum(tmp, l4len, tep_ref_sum(t->ph_in, t->ph_in_len, 0));
	if (t->udp && ck == 0)
		ck = 0xffff;
	return ck;
}

/* wire = the linearized frame that would be sent. net_tap writes 0xffff
 * for a TCP checksum of 0 too (both verify); anything else must be the
 * standard value exactly. */
static int tap_tcp_ffff;

static void
check_wire(const struct tcase *t, const uint8_t *wire, uint32_t n)
{
	uint32_t fo = csum_field(t);
	uint16_t got = tep_ref_rd16(wire + fo), want = want_inner(t, t->frame);

	assert_int_equal(n, t->len);
	/* Only the inner checksum field may differ from what was built. */
	assert_memory_equal(wire, t->frame, fo);
	assert_memory_equal(wire + fo + 2, t->frame + fo + 2, n - fo - 2);
	if (got != want &&
	    !(tap_tcp_ffff && !t->udp && want == 0 && got == 0xffff))
		fail_msg("inner checksum %04x want %04x (tun %d v6 %d udp %d "
			 "len %u trailer %u)", got, want, t->tun, t->inner_v6,
			 t->udp, t->len, t->trailer);
	/* The outer checksum, computed by LCO before the inner one was
	 * known, verifies over the whole outer datagram now. */
	if (t->outer_check == 1) {
		uint8_t ph[40];
		size_t phl = tep_ref_phdr_bytes(ph, t->outer_v6, t->osrc, t->odst, 17,
				      t->oend - t->ol4_off);

		assert_int_not_equal(tep_ref_rd16(wire + t->ol4_off + 6), 0);
		if (tep_ref_sum(wire + t->ol4_off, t->oend - t->ol4_off,
			    tep_ref_sum(ph, phl, 0)) != 0xffff)
			fail_msg("outer UDP checksum does not verify (tun %d)",
				 t->tun);
	} else if (t->outer_check == 2) {
		assert_int_equal(tep_ref_sum(wire + t->ol4_off,
					 t->oend - t->ol4_off, 0), 0xffff);
	}
}

/* Software path result: request flags gone, wire right. */
static void
check_sw(const struct tcase *t, const struct rte_mbuf *m)
{
	static uint8_t wire[MAXF];

	assert_int_equal(m->ol_flags & ALL_REQ, 0);
	check_wire(t, wire, linearize(m, wire));
}

/* The metadata a port sees, and the bytes untouched until the PMD runs. */
static void
check_untouched(const struct tcase *t, const struct rte_mbuf *m)
{
	static uint8_t wire[MAXF];

	assert_int_equal(linearize(m, wire), t->len);
	assert_memory_equal(wire, t->frame, t->len);
}

/* net_tap 22.11.11 Tx checksum, transcribed into a test model: header
 * copy with the field zeroed, its own standard pseudo-header from the
 * header at l2_len, then __rte_raw_cksum over each iovec in turn (the L4
 * header, the rest of segment 0, each further segment) with no odd-offset
 * correction, to the end of the chain; 0 -> 0xffff for TCP and UDP. */
static uint32_t
emulate_tap(const struct rte_mbuf *m, uint8_t *wire)
{
	uint64_t fl = m->ol_flags;
	uint32_t l4h = (fl & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_UDP_CKSUM ?
		       8 : 20;
	uint32_t l4 = m->l2_len + m->l3_len, n, pos;
	uint32_t raw;
	uint16_t phdr, ck;
	const struct rte_mbuf *s;
	union {
		struct rte_ipv4_hdr v4;
		struct rte_ipv6_hdr v6;
	} h;	/* aligned copy: tap's m_copy is read through struct pointers */

	n = linearize(m, wire);
	assert_int_equal(fl & (RTE_MBUF_F_TX_OUTER_IPV4 |
			       RTE_MBUF_F_TX_OUTER_IPV6 |
			       RTE_MBUF_F_TX_TUNNEL_MASK), 0);
	assert_true(m->data_len >= l4 + l4h);	/* else tap fails the burst */
	tep_ref_wr16(wire + l4 + (l4h == 8 ? 6 : 16), 0);
	if (fl & RTE_MBUF_F_TX_IPV4) {
		memcpy(&h.v4, wire + m->l2_len, sizeof(h.v4));
		phdr = rte_ipv4_phdr_cksum(&h.v4, 0);
	} else {
		memcpy(&h.v6, wire + m->l2_len, sizeof(h.v6));
		phdr = rte_ipv6_phdr_cksum(&h.v6, 0);
	}
	/* iovecs: the L4 header copy, the rest of segment 0, then every
	 * further segment, each summed as if it started a word */
	raw = __rte_raw_cksum(wire + l4, l4h, 0);
	raw = __rte_raw_cksum(wire + l4 + l4h, m->data_len - l4 - l4h, raw);
	pos = m->data_len;
	for (s = m->next; s != NULL; s = s->next) {
		raw = __rte_raw_cksum(wire + pos, s->data_len, raw);
		pos += s->data_len;
	}
	ck = __rte_raw_cksum_reduce(raw);
	{
		uint32_t c = (uint32_t)ck + phdr;

		c = ((c & 0xffff0000) >> 16) + (c & 0xffff);
		c = (~c) & 0xffff;
		if (c == 0)
			c = 0xffff;
		ck = (uint16_t)c;
	}
	memcpy(wire + l4 + (l4h == 8 ? 6 : 16), &ck, 2);
	return n;
}

/* A "seed then sum" device: rte_net_intel_cksum_prepare() semantics (the
 * inner L3 offset includes the outer lengths iff an OUTER flag is set, the
 * seed is rte_ipv4/6_phdr_cksum(hdr, 0), headers must be in segment 0 up to
 * l4_len), then the device sums from the L4 header to the end of the frame
 * over the seed and writes the complement (i40e/ice/ixgbe; a virtio host
 * does the same from csum_start, which uses the outer lengths iff a TUNNEL
 * flag is set -- tep_txprep sets both or neither, checked here). */
static uint32_t
emulate_seed_and_sum(const struct rte_mbuf *m, uint8_t *wire)
{
	uint64_t fl = m->ol_flags;
	int outer = (fl & (RTE_MBUF_F_TX_OUTER_IPV4 |
			   RTE_MBUF_F_TX_OUTER_IPV6)) != 0;
	int tunnel = (fl & RTE_MBUF_F_TX_TUNNEL_MASK) != 0;
	uint32_t l3 = m->l2_len + (outer ? m->outer_l2_len + m->outer_l3_len : 0);
	uint32_t l4 = l3 + m->l3_len, n, fo;
	int udp = (fl & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_UDP_CKSUM;
	uint16_t seed, ck;
	union {
		struct rte_ipv4_hdr v4;
		struct rte_ipv6_hdr v6;
	} h;

	assert_int_equal(outer, tunnel);
	assert_true(m->data_len >= l4 + m->l4_len);	/* else ENOTSUP */
	n = linearize(m, wire);
	fo = l4 + (udp ? 6 : 16);
	if (fl & RTE_MBUF_F_TX_IPV4) {
		memcpy(&h.v4, wire + l3, sizeof(h.v4));
		seed = rte_ipv4_phdr_cksum(&h.v4, fl);
	} else {
		memcpy(&h.v6, wire + l3, sizeof(h.v6));
		seed = rte_ipv6_phdr_cksum(&h.v6, fl);
	}
	memcpy(wire + fo, &seed, 2);
	ck = (uint16_t)~tep_ref_sum(wire + l4, n - l4, 0);
	if (udp && ck == 0)
		ck = 0xffff;
	tep_ref_wr16(wire + fo, ck);
	return n;
}

/* ---- ports --------------------------------------------------------------- */

#define CAPA_TAP (RTE_ETH_TX_OFFLOAD_MULTI_SEGS |			\
		  RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |			\
		  RTE_ETH_TX_OFFLOAD_UDP_CKSUM |				\
		  RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_TSO)
#define CAPA_VIRTIO (RTE_ETH_TX_OFFLOAD_MULTI_SEGS |			\
		     RTE_ETH_TX_OFFLOAD_VLAN_INSERT |			\
		     RTE_ETH_TX_OFFLOAD_UDP_CKSUM |			\
		     RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_TSO)
#define CAPA_IXGBE (RTE_ETH_TX_OFFLOAD_VLAN_INSERT |			\
		    RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |			\
		    RTE_ETH_TX_OFFLOAD_UDP_CKSUM |			\
		    RTE_ETH_TX_OFFLOAD_TCP_CKSUM |			\
		    RTE_ETH_TX_OFFLOAD_SCTP_CKSUM |			\
		    RTE_ETH_TX_OFFLOAD_TCP_TSO |			\
		    RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
#define CAPA_I40E (RTE_ETH_TX_OFFLOAD_VLAN_INSERT |			\
		   RTE_ETH_TX_OFFLOAD_QINQ_INSERT |			\
		   RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |			\
		   RTE_ETH_TX_OFFLOAD_UDP_CKSUM |			\
		   RTE_ETH_TX_OFFLOAD_TCP_CKSUM |			\
		   RTE_ETH_TX_OFFLOAD_SCTP_CKSUM |			\
		   RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM |		\
		   RTE_ETH_TX_OFFLOAD_TCP_TSO |				\
		   RTE_ETH_TX_OFFLOAD_VXLAN_TNL_TSO |			\
		   RTE_ETH_TX_OFFLOAD_GRE_TNL_TSO |			\
		   RTE_ETH_TX_OFFLOAD_IPIP_TNL_TSO |			\
		   RTE_ETH_TX_OFFLOAD_GENEVE_TNL_TSO |			\
		   RTE_ETH_TX_OFFLOAD_MULTI_SEGS |			\
		   RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE)
#define CAPA_ICE (CAPA_I40E | RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM)
#define CAPA_MLX5_BASE (RTE_ETH_TX_OFFLOAD_MULTI_SEGS |			\
			RTE_ETH_TX_OFFLOAD_VLAN_INSERT |		\
			RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |			\
			RTE_ETH_TX_OFFLOAD_UDP_CKSUM |			\
			RTE_ETH_TX_OFFLOAD_TCP_CKSUM |			\
			RTE_ETH_TX_OFFLOAD_TCP_TSO |			\
			RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE)
#define CAPA_MLX5_TNL (RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM |		\
		       RTE_ETH_TX_OFFLOAD_VXLAN_TNL_TSO |		\
		       RTE_ETH_TX_OFFLOAD_GRE_TNL_TSO |			\
		       RTE_ETH_TX_OFFLOAD_GENEVE_TNL_TSO)
#define CAPA_MLX5_SWP (RTE_ETH_TX_OFFLOAD_IP_TNL_TSO |			\
		       RTE_ETH_TX_OFFLOAD_UDP_TNL_TSO)
#define CAPA_MLX5 (CAPA_MLX5_BASE | CAPA_MLX5_TNL | CAPA_MLX5_SWP)

#define TAG(f) ((int)((f) >> TEP_TXTUN_SHIFT))

/*
 * The test's own statement of the policy (docs/drivers.md), per port
 * model, in the documented order of reasons: L4 capability, tunnel type,
 * chains, flattened l2_len, trailing bytes, IPv6 extension headers.
 */
enum port { P_NONE, P_TAP, P_VIRTIO, P_IXGBE, P_I40E, P_MLX5, P_MLX5_NOSWP };

static int
expect(enum port p, const struct tcase *t, int multiseg, int *tag)
{
	int tunnel = t->tun != PLAIN;

	*tag = tunnel ? TAG(tun_flag[t->tun]) : 0;
	if (p == P_NONE)
		return TEP_TXSW_NOCAP;
	if (tunnel && p == P_I40E) {
		if (t->tun == TEP_TUN_FOU || t->tun == TEP_TUN_GUE)
			*tag = TAG(RTE_MBUF_F_TX_TUNNEL_VXLAN);
	} else if (tunnel && (p == P_MLX5 || p == P_MLX5_NOSWP)) {
		int swp = p == P_MLX5 ? TAG(RTE_MBUF_F_TX_TUNNEL_UDP) : 0;

		if (t->tun == TEP_TUN_VXLAN && t->dst_port != 4789)
			*tag = swp;
		else if (t->tun == TEP_TUN_GENEVE && t->dst_port != 6081)
			*tag = swp;
		else if (t->tun == TEP_TUN_FOU || t->tun == TEP_TUN_GUE)
			*tag = swp;
		if (*tag == 0)
			return TEP_TXSW_TUNNEL;
	}
	if (multiseg && p == P_TAP)
		return TEP_TXSW_MULTISEG;
	if (tunnel && t->ip_off > 127 &&
	    (p == P_TAP || p == P_VIRTIO || p == P_IXGBE))
		return TEP_TXSW_L2_LEN;
	if (t->trailer)
		return TEP_TXSW_TRAILER;
	if (t->v6_ext)
		return TEP_TXSW_IPV6_EXT;
	return TEP_TXSW_HW;
}

static void
port_caps(enum port p, struct tep_txcaps *c, uint64_t disabled)
{
	static const struct {
		const char *name;
		uint64_t capa;
	} def[] = {
		[P_NONE] = { "net_null", 0 },
		[P_TAP] = { "net_tap", CAPA_TAP },
		[P_VIRTIO] = { "net_virtio_user", CAPA_VIRTIO },
		[P_IXGBE] = { "net_ixgbe", CAPA_IXGBE },
		[P_I40E] = { "net_i40e", CAPA_I40E },
		[P_MLX5] = { "mlx5_pci", CAPA_MLX5 },
		[P_MLX5_NOSWP] = { "mlx5_pci", CAPA_MLX5_BASE | CAPA_MLX5_TNL },
	};
	uint64_t off;

	assert_int_equal(tep_txcaps_init(c, def[p].name, def[p].capa,
					 disabled, &off), 0);
	assert_int_equal(off & ~def[p].capa, 0);
}

/*
 * Random bursts through one port model: every packet must come out
 * either offloaded with the metadata the PMD needs (and then, played
 * through that PMD, give the standard checksum) or done in software, for
 * the reason the policy gives, and counted once.
 */
/* What a run reached: reasons, and offloaded packets per tunnel type
 * (index tun + 1, 0 = plain) and on chains. */
struct seen {
	int reason[TEP_TXSW_MAX];
	int hw_tun[TEP_TUN_MAX + 1];
	int hw_chain;
};

static void
run_port(enum port p, int rounds, const struct gen_opts *o, struct seen *sn)
{
	static struct tcase tc[16];
	static struct fpkt fp[16];
	static uint8_t wire[MAXF];
	struct tep_txcaps c;
	struct tep_txprep_stats st, want;
	int r;
	static struct seen local;
	struct seen *seen = sn != NULL ? sn : &local;

	port_caps(p, &c, 0);
	memset(seen, 0, sizeof(*seen));
	memset(&st, 0, sizeof(st));
	memset(&want, 0, sizeof(want));
	for (r = 0; r < rounds; r++) {
		struct rte_mbuf *pk[16];
		int exp[16], tags[16], ms[16];
		uint16_t n = (uint16_t)(1 + rnd_below(16)), i;

		for (i = 0; i < n; i++) {
			make_case(&tc[i], o);
			load(&fp[i], &tc[i], o->multiseg);
			pk[i] = &fp[i].seg[0];
			ms[i] = fp[i].nsegs > 1;
			exp[i] = expect(p, &tc[i], ms[i], &tags[i]);
			if (exp[i] == TEP_TXSW_HW) {
				want.hw_inner_csum++;
			} else {
				want.sw_inner_csum++;
				want.sw_reason[exp[i]]++;
			}
			seen->reason[exp[i]]++;
			if (exp[i] == TEP_TXSW_HW) {
				seen->hw_tun[tc[i].tun + 1]++;
				seen->hw_chain += ms[i];
			}
		}
		if (tep_txprep_burst(&c, pk, n, &st) != n)
			for (i = 0; i < n; i++)
				if (pk[i] != &fp[i].seg[0])
					fail_msg("refused: %s", case_str(&tc[i],
						&fp[i]));
		for (i = 0; i < n; i++) {
			const struct tcase *t = &tc[i];
			struct rte_mbuf *m = pk[i];
			uint64_t fl = m->ol_flags;
			uint64_t inner = (t->inner_v6 ? RTE_MBUF_F_TX_IPV6 :
					  RTE_MBUF_F_TX_IPV4) |
					 (t->udp ? RTE_MBUF_F_TX_UDP_CKSUM :
					  RTE_MBUF_F_TX_TCP_CKSUM);

			assert_ptr_equal(m, &fp[i].seg[0]);	/* order kept */
			if (exp[i] != TEP_TXSW_HW) {
				check_sw(t, m);
				continue;
			}
			check_untouched(t, m);
			assert_int_equal(m->l3_len, t->l3_len);
			if (t->tun == PLAIN ||
			    p == P_TAP || p == P_VIRTIO || p == P_IXGBE) {
				/* flat: l2_len = where the IP header is */
				assert_int_equal(fl, inner);
				assert_int_equal(m->l2_len, t->ip_off);
			} else {
				uint64_t outer = t->outer_v6 ?
					RTE_MBUF_F_TX_OUTER_IPV6 :
					RTE_MBUF_F_TX_OUTER_IPV4;

				assert_int_equal(fl, inner | outer |
					 (uint64_t)tags[i] << TEP_TXTUN_SHIFT);
				assert_int_equal(m->outer_l2_len, t->outer_l2);
				assert_int_equal(m->outer_l3_len, t->outer_l3);
				assert_int_equal(m->l2_len, t->l2_len);
			}
			if (p == P_TAP) {
				tap_tcp_ffff = 1;
				check_wire(t, wire, emulate_tap(m, wire));
				tap_tcp_ffff = 0;
			} else if (p != P_MLX5 && p != P_MLX5_NOSWP)
				check_wire(t, wire,
					   emulate_seed_and_sum(m, wire));
		}
	}
	assert_memory_equal(&st, &want, sizeof(st));
	/* The generator must have reached the interesting branches. */
	if (p != P_NONE) {
		assert_true(seen->reason[TEP_TXSW_HW] > rounds / 4);
		assert_true(seen->reason[TEP_TXSW_TRAILER] > 0);
		assert_true(seen->reason[TEP_TXSW_IPV6_EXT] > 0);
	}
}

/* Every tunnel type (and plain) was offloaded at least `min` times. */
static void
assert_all_types_hw(const struct seen *sn, int min)
{
	int k;

	for (k = 0; k <= TEP_TUN_MAX; k++)
		if (sn->hw_tun[k] < min)
			fail_msg("type %d offloaded only %d times", k - 1,
				 sn->hw_tun[k]);
}

static void
test_none_random(void **state)
{
	(void)state;
	run_port(P_NONE, 1500, &gen_default, NULL);
}

static void
test_tap_flat_random(void **state)
{
	struct gen_opts o = gen_default;
	struct seen sn;
	(void)state;

	run_port(P_TAP, 1500, &gen_default, &sn);
	assert_all_types_hw(&sn, 50);
	assert_int_equal(sn.hw_chain, 0);
	assert_true(sn.reason[TEP_TXSW_MULTISEG] > 1000);
	/* GENEVE with long options over IPv6: flattened l2_len > 127 */
	o.tun = TEP_TUN_GENEVE;
	o.multiseg = 0;
	run_port(P_TAP, 300, &o, &sn);
	assert_true(sn.reason[TEP_TXSW_L2_LEN] > 100);
	assert_true(sn.hw_tun[TEP_TUN_GENEVE + 1] > 100);
}

static void
test_virtio_ixgbe_flat_random(void **state)
{
	struct seen sn;
	(void)state;

	run_port(P_VIRTIO, 800, &gen_default, &sn);
	assert_all_types_hw(&sn, 30);
	assert_true(sn.hw_chain > 500);
	run_port(P_IXGBE, 800, &gen_default, &sn);
	assert_all_types_hw(&sn, 30);
}

static void
test_i40e_tunnel_random(void **state)
{
	struct seen sn;
	(void)state;

	run_port(P_I40E, 1500, &gen_default, &sn);
	assert_all_types_hw(&sn, 100);
	assert_true(sn.hw_chain > 1000);
	assert_int_equal(sn.reason[TEP_TXSW_TUNNEL], 0);
}

static void
test_mlx5_tunnel_random(void **state)
{
	struct gen_opts o = gen_default;
	struct seen sn;
	(void)state;

	run_port(P_MLX5, 800, &gen_default, &sn);
	assert_all_types_hw(&sn, 30);
	run_port(P_MLX5_NOSWP, 800, &gen_default, &sn);
	assert_true(sn.reason[TEP_TXSW_TUNNEL] > 500);	/* FOU/GUE, odd ports */
	/* standard ports only: the HW-parser tags */
	o.dport = 0;
	run_port(P_MLX5_NOSWP, 300, &o, &sn);
	assert_true(sn.hw_tun[TEP_TUN_VXLAN + 1] > 50);
	assert_true(sn.hw_tun[TEP_TUN_GENEVE + 1] > 50);
	assert_int_equal(sn.hw_tun[TEP_TUN_FOU + 1], 0);
}

/* ---- the reasons for the software rules, shown on the PMD model ------- */

/*
 * What would go wrong without the MULTISEG and TRAILER rules on net_tap:
 * the same packets, flattened by hand and played through the tap model.
 * This checks that the model reproduces the brief's findings (odd-split
 * chains and trailing bytes give wrong sums), so the rules are needed.
 */
static void
test_tap_model_needs_the_rules(void **state)
{
	static struct tcase t;
	static struct fpkt f;
	static uint8_t wire[MAXF];
	struct gen_opts o = gen_default;
	int i, bad_chain = 0, bad_trailer = 0, n_chain = 0, n_trailer = 0;
	(void)state;

	o.big = 0;
	for (i = 0; i < 400; i++) {
		int trailer = i & 1;
		uint32_t fo;

		o.trailer = trailer;
		o.multiseg = !trailer;
		make_case(&t, &o);
		if (t.v6_ext || t.ip_off > 127)
			continue;
		load(&f, &t, o.multiseg);
		if (trailer)
			n_trailer++;
		else
			n_chain++;
		f.seg[0].ol_flags = (t.inner_v6 ? RTE_MBUF_F_TX_IPV6 :
				     RTE_MBUF_F_TX_IPV4) |
				    (t.udp ? RTE_MBUF_F_TX_UDP_CKSUM :
				     RTE_MBUF_F_TX_TCP_CKSUM);
		f.seg[0].l2_len = t.ip_off;
		emulate_tap(&f.seg[0], wire);
		fo = csum_field(&t);
		if (tep_ref_rd16(wire + fo) != want_inner(&t, t.frame)) {
			if (trailer)
				bad_trailer++;
			else
				bad_chain++;
		}
	}
	/* brief: chains cut at odd offsets are wrong; so is any trailer */
	print_message("  tap model: %d/%d chains, %d/%d trailers wrong\n",
		      bad_chain, n_chain, bad_trailer, n_trailer);
	assert_true(n_chain > 100 && n_trailer > 100);
	assert_true(bad_chain > n_chain / 3);
	assert_true(bad_trailer >= n_trailer - 2);
}

/* ---- explicit cases ----------------------------------------------------- */

/* Plain IPv4/UDP with non-zero Ethernet padding, the padding alone in the
 * last segment: the sum stops at the IP total length. */
static void
test_padding_not_summed(void **state)
{
	static struct tcase t;
	static struct fpkt f;
	struct tep_txcaps c;
	struct tep_txprep_stats st;
	struct gen_opts o = gen_default;
	struct rte_mbuf *pk[1];
	uint32_t k;
	(void)state;

	port_caps(P_NONE, &c, 0);
	o.tun = PLAIN;
	o.trailer = 1;
	o.big = 0;
	for (k = 0; k < 200; k++) {
		make_case(&t, &o);
		memset(&st, 0, sizeof(st));
		if (k & 1)	/* the padding alone in segment 1 */
			split_at(&f, t.frame, t.len, t.ip_end);
		else
			to_mbufs(&f, t.frame, t.len, 1, 0);
		set_meta(&f.seg[0], &t);
		pk[0] = &f.seg[0];
		assert_int_equal(tep_txprep_burst(&c, pk, 1, &st), 1);
		check_sw(&t, pk[0]);
		assert_int_equal(st.sw_inner_csum, 1);
	}
}

/*
 * A checksum that computes to 0: UDP must carry 0xffff (RFC 768), TCP the
 * standard 0 -- in software, plain and tunnelled; the LCO outer sum still
 * verifies. A payload word is tuned so the inner region sums to 0xffff.
 */
static void
test_zero_checksum(void **state)
{
	static struct tcase t;
	static struct fpkt f;
	struct tep_txcaps c;
	struct tep_txprep_stats st;
	struct gen_opts o = gen_default;
	struct rte_mbuf *pk[1];
	int i, hits[2] = { 0, 0 };
	(void)state;

	port_caps(P_NONE, &c, 0);
	o.trailer = 0;
	o.big = 0;
	for (i = 0; i < 400; i++) {
		uint32_t l4len, w;
		uint8_t *l4;
		uint16_t s;

		o.udp = i & 1;
		make_case(&t, &o);
		l4len = t.ip_end - t.l4_off;
		if (l4len < t.l4_hdr + 2)
			continue;
		l4 = t.frame + t.l4_off;
		w = t.l4_hdr;		/* first payload word: even offset */
		tep_ref_wr16(l4 + w, 0);
		/* s = ~(region + pseudo-header) with the word 0; putting s
		 * in the word makes the sum 0xffff, so the checksum is 0 */
		s = want_inner(&t, t.frame);
		tep_ref_wr16(l4 + w, s);
		assert_int_equal(want_inner(&t, t.frame), t.udp ? 0xffff : 0);
		load(&f, &t, -1);
		pk[0] = &f.seg[0];
		memset(&st, 0, sizeof(st));
		assert_int_equal(tep_txprep_burst(&c, pk, 1, &st), 1);
		check_sw(&t, pk[0]);
		{
			static uint8_t wire[MAXF];

			linearize(pk[0], wire);
			assert_int_equal(tep_ref_rd16(wire + csum_field(&t)),
					 t.udp ? 0xffff : 0x0000);
		}
		hits[t.udp]++;
	}
	assert_true(hits[0] > 150 && hits[1] > 150);
}

/* No request: not looked at, whatever the rest of the metadata says. */
static void
test_fast_path_untouched(void **state)
{
	static struct tcase t;
	static struct fpkt f[8];
	struct tep_txcaps c;
	struct tep_txprep_stats st, zero;
	struct rte_mbuf *pk[8], before[8];
	enum port ports[] = { P_NONE, P_TAP, P_I40E, P_MLX5 };
	unsigned int pi;
	int i;
	(void)state;

	for (pi = 0; pi < sizeof(ports) / sizeof(ports[0]); pi++) {
		port_caps(ports[pi], &c, 0);
		memset(&st, 0, sizeof(st));
		memset(&zero, 0, sizeof(zero));
		for (i = 0; i < 8; i++) {
			make_case(&t, &gen_default);
			load(&f[i], &t, -1);
			/* outer/tunnel/VLAN bits, garbage lengths, no L4 */
			f[i].seg[0].ol_flags = (t.ol_flags &
				~RTE_MBUF_F_TX_L4_MASK) |
				(i & 1 ? RTE_MBUF_F_TX_VLAN : 0);
			f[i].seg[0].l2_len = rnd_below(128);
			f[i].seg[0].l3_len = rnd_below(512);
			pk[i] = &f[i].seg[0];
			memcpy(&before[i], &f[i].seg[0], sizeof(before[i]));
		}
		assert_int_equal(tep_txprep_burst(&c, pk, 8, &st), 8);
		for (i = 0; i < 8; i++) {
			assert_ptr_equal(pk[i], &f[i].seg[0]);
			assert_memory_equal(pk[i], &before[i], sizeof(before[i]));
		}
		assert_memory_equal(&st, &zero, sizeof(st));
	}
}

/* Ways the metadata can be wrong; each must be refused. */
enum mutation {
	MUT_L3_LEN,		/* l3_len off by 4/8 */
	MUT_VERSION,		/* IPV4 flag on IPv6 or the reverse */
	MUT_BOTH_IP,		/* IPV4|IPV6 */
	MUT_OUTER_NO_TUN,	/* OUTER_IPV4 without a tunnel type */
	MUT_TUN_NO_OUTER,	/* tunnel type without OUTER_* */
	MUT_L2_LEN,		/* inner IP header not at the offset */
	MUT_IP_LEN,		/* IP length beyond the packet */
	MUT_SEG0,		/* L4 header not in the first segment */
	MUT_SCTP,		/* a request tepd never makes */
	MUT_EXTRA_REQ,		/* IP_CKSUM / TCP_SEG / OUTER_UDP_CKSUM */
	MUT_FRAG,		/* an IPv4 fragment */
	MUT_PROTO,		/* UDP request on TCP or the reverse */
	MUT_OUTER_VER,		/* OUTER_IPV4 on an IPv6 outer header */
	MUT_CHAIN_SHORT,	/* pkt_len claims more than the chain has */
	MUT_MAX
};

static int
mutate(struct tcase *t, struct fpkt *f, enum mutation mu, int sw_only)
{
	struct rte_mbuf *m = &f->seg[0];
	uint8_t *ip;

	switch (mu) {
	case MUT_L3_LEN:
		m->l3_len = t->l3_len + (rnd_below(2) ? 4 : 8);
		return 1;
	case MUT_VERSION:
		m->ol_flags ^= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6;
		return 1;
	case MUT_BOTH_IP:
		m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6;
		return 1;
	case MUT_OUTER_NO_TUN:
		if (t->tun == PLAIN) {
			m->ol_flags |= RTE_MBUF_F_TX_OUTER_IPV4;
			return 1;
		}
		m->ol_flags &= ~RTE_MBUF_F_TX_TUNNEL_MASK;
		return 1;
	case MUT_TUN_NO_OUTER:
		if (t->tun == PLAIN) {
			m->ol_flags |= RTE_MBUF_F_TX_TUNNEL_VXLAN;
			return 1;
		}
		m->ol_flags &= ~(RTE_MBUF_F_TX_OUTER_IPV4 |
				 RTE_MBUF_F_TX_OUTER_IPV6);
		return 1;
	case MUT_L2_LEN:
		m->l2_len = t->l2_len + (t->l2_len > 100 ? -2 : 2);
		return 1;
	case MUT_IP_LEN:
		/* the inner datagram claims 1..40 bytes more than the packet */
		ip = rte_pktmbuf_mtod_offset(m, uint8_t *, t->ip_off);
		tep_ref_wr16(ip + (t->inner_v6 ? 4 : 2),
		       (uint16_t)(tep_ref_rd16(ip + (t->inner_v6 ? 4 : 2)) +
				  t->trailer + 1 + rnd_below(40)));
		memcpy(t->frame + t->ip_off, ip, 8);
		return 1;
	case MUT_SEG0:
		if (t->tun != PLAIN && rnd_below(2))
			/* the outer IP header's end beyond segment 0 */
			split_at(f, t->frame, t->len,
				 t->outer_l2 + t->outer_l3 - 1);
		else	/* the L4 header's fixed part cut */
			split_at(f, t->frame, t->len,
				 t->l4_off + rnd_below(t->udp ? 8 : 20));
		set_meta(m, t);
		return 1;
	case MUT_SCTP:
		m->ol_flags = (m->ol_flags & ~RTE_MBUF_F_TX_L4_MASK) |
			      RTE_MBUF_F_TX_SCTP_CKSUM;
		return 1;
	case MUT_EXTRA_REQ: {
		static const uint64_t extra[] = {
			RTE_MBUF_F_TX_IP_CKSUM, RTE_MBUF_F_TX_TCP_SEG,
			RTE_MBUF_F_TX_OUTER_UDP_CKSUM,
			RTE_MBUF_F_TX_OUTER_IP_CKSUM, RTE_MBUF_F_TX_UDP_SEG,
		};

		m->ol_flags |= extra[rnd_below(5)];
		return 1;
	}
	case MUT_FRAG:
		if (t->inner_v6)
			return 0;
		ip = rte_pktmbuf_mtod_offset(m, uint8_t *, t->ip_off);
		ip[6] |= rnd_below(2) ? 0x20 : 0x01;	/* MF or offset */
		t->frame[t->ip_off + 6] = ip[6];
		return 1;
	case MUT_PROTO:
		m->ol_flags ^= RTE_MBUF_F_TX_TCP_CKSUM ^ RTE_MBUF_F_TX_UDP_CKSUM;
		return 1;
	case MUT_OUTER_VER:
		if (t->tun == PLAIN)
			return 0;
		m->ol_flags ^= RTE_MBUF_F_TX_OUTER_IPV4 |
			       RTE_MBUF_F_TX_OUTER_IPV6;
		return 1;
	case MUT_CHAIN_SHORT:
		/* only the software path walks the chain */
		if (!sw_only)
			return 0;
		if (t->trailer == 0) {
			m->pkt_len += 1 + rnd_below(40);
			ip = rte_pktmbuf_mtod_offset(m, uint8_t *, t->ip_off);
			/* grow the IP datagram into the missing bytes */
			tep_ref_wr16(ip + (t->inner_v6 ? 4 : 2),
			       (uint16_t)(tep_ref_rd16(ip + (t->inner_v6 ? 4 : 2)) +
					  (m->pkt_len - t->len)));
			memcpy(t->frame + t->ip_off, ip, 8);
			if (t->tun != PLAIN) {
				/* and the outer one around it */
				uint8_t *oip = rte_pktmbuf_mtod_offset(m,
					uint8_t *, t->outer_l2);
				int o6 = t->outer_v6;

				tep_ref_wr16(oip + (o6 ? 4 : 2),
				       (uint16_t)(tep_ref_rd16(oip + (o6 ? 4 : 2)) +
						  (m->pkt_len - t->len)));
				memcpy(t->frame + t->outer_l2, oip, 8);
			}
			return 1;
		}
		return 0;
	default:
		return 0;
	}
}

/*
 * Bursts with some packets refused: the refused ones end up behind the
 * ready ones, untouched; the ready ones keep their order and are right;
 * the burst is a permutation of the input (nothing lost or duplicated).
 */
static void
run_malformed(enum port p, int rounds)
{
	static struct tcase tc[24];
	static struct fpkt fp[24];
	static uint8_t wire[MAXF];
	struct tep_txcaps c;
	int r, refused_by[MUT_MAX] = { 0 };

	port_caps(p, &c, 0);
	for (r = 0; r < rounds; r++) {
		struct tep_txprep_stats st;
		struct rte_mbuf *pk[24], before[24];
		int bad[24], exp_ready = 0, tag, seen[24];
		uint16_t n = (uint16_t)(1 + rnd_below(24)), i, ret, j;

		memset(&st, 0, sizeof(st));
		for (i = 0; i < n; i++) {
			enum mutation mu = (enum mutation)rnd_below(MUT_MAX);

			make_case(&tc[i], &gen_default);
			load(&fp[i], &tc[i], -1);
			bad[i] = rnd_below(3) == 0 &&
				 mutate(&tc[i], &fp[i], mu, p == P_NONE);
			if (bad[i])
				refused_by[mu]++;
			else
				exp_ready++;
			pk[i] = &fp[i].seg[0];
			memcpy(&before[i], &fp[i].seg[0], sizeof(before[i]));
		}
		ret = tep_txprep_burst(&c, pk, n, &st);
		assert_int_equal(ret, exp_ready);
		assert_int_equal(st.drop_bad_txmeta, n - exp_ready);
		assert_int_equal(st.hw_inner_csum + st.sw_inner_csum,
				 exp_ready);
		memset(seen, 0, sizeof(seen));
		/* ready ones: in input order, processed right */
		for (i = 0, j = 0; i < n; i++) {
			if (bad[i])
				continue;
			assert_ptr_equal(pk[j], &fp[i].seg[0]);
			seen[i]++;
			j++;
			if (expect(p, &tc[i], fp[i].nsegs > 1, &tag) !=
			    TEP_TXSW_HW)
				check_sw(&tc[i], &fp[i].seg[0]);
			else if (p == P_TAP) {
				tap_tcp_ffff = 1;
				check_wire(&tc[i], wire,
					   emulate_tap(&fp[i].seg[0], wire));
				tap_tcp_ffff = 0;
			} else
				check_wire(&tc[i], wire,
					   emulate_seed_and_sum(&fp[i].seg[0],
								wire));
		}
		/* refused ones: behind, each once, not modified at all */
		for (j = ret; j < n; j++) {
			for (i = 0; i < n; i++)
				if (pk[j] == &fp[i].seg[0])
					break;
			assert_true(i < n && bad[i]);
			seen[i]++;
			assert_memory_equal(&fp[i].seg[0], &before[i],
					    sizeof(before[i]));
			{
				uint32_t k, pos = 0;
				const struct rte_mbuf *s;

				/* bytes, segment by segment */
				for (s = &fp[i].seg[0], k = 0; s != NULL;
				     s = s->next, k++) {
					uint32_t dl = s->data_len;

					if (pos + dl > tc[i].len)
						dl = tc[i].len - pos;
					assert_memory_equal(
						rte_pktmbuf_mtod(s,
							const uint8_t *),
						tc[i].frame + pos, dl);
					pos += dl;
				}
			}
		}
		for (i = 0; i < n; i++)
			assert_int_equal(seen[i], 1);
	}
	for (r = 0; r < MUT_MAX; r++) {
		if (r == MUT_CHAIN_SHORT && p != P_NONE)
			continue;
		if (refused_by[r] == 0)
			fail_msg("mutation %d never exercised", r);
	}
}

static void
test_malformed_refused(void **state)
{
	(void)state;
	run_malformed(P_NONE, 600);
	run_malformed(P_TAP, 600);
	run_malformed(P_I40E, 600);
}

/* ---- capabilities: the driver table ------------------------------------ */

static void
test_caps_table(void **state)
{
	struct tep_txcaps c;
	uint64_t off;
	char line[512];
	(void)state;

	/* net_tap: flat, chains in software, MULTI_SEGS still configured */
	assert_int_equal(tep_txcaps_init(&c, "net_tap", CAPA_TAP, 0, &off), 0);
	assert_int_equal(c.mode, TEP_TXMODE_FLAT);
	assert_int_equal(off, RTE_ETH_TX_OFFLOAD_MULTI_SEGS |
			 RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
			 RTE_ETH_TX_OFFLOAD_TCP_CKSUM);
	assert_false(c.multiseg_hw);
	tep_txcaps_describe(&c, line, sizeof(line));
	print_message("  %s\n", line);

	/* virtio with and without VIRTIO_NET_F_CSUM */
	assert_int_equal(tep_txcaps_init(&c, "net_virtio", CAPA_VIRTIO, 0,
					 &off), 0);
	assert_int_equal(c.mode, TEP_TXMODE_FLAT);
	assert_true(c.multiseg_hw);
	assert_int_equal(tep_txcaps_init(&c, "net_virtio",
					 RTE_ETH_TX_OFFLOAD_MULTI_SEGS |
					 RTE_ETH_TX_OFFLOAD_VLAN_INSERT, 0,
					 &off), 0);
	assert_int_equal(c.mode, TEP_TXMODE_NONE);
	assert_int_equal(c.mode_reason, TEP_TXSW_NOCAP);
	assert_int_equal(off, RTE_ETH_TX_OFFLOAD_MULTI_SEGS);

	assert_int_equal(tep_txcaps_init(&c, "net_ixgbe", CAPA_IXGBE, 0,
					 &off), 0);
	assert_int_equal(c.mode, TEP_TXMODE_FLAT);
	assert_int_equal(tep_txcaps_init(&c, "net_ixgbe_vf", CAPA_IXGBE, 0,
					 &off), 0);
	assert_int_equal(c.mode, TEP_TXMODE_FLAT);

	/* i40e: tunnel; UDP (FOU/GUE) retagged VXLAN; never TNL_TSO etc. */
	assert_int_equal(tep_txcaps_init(&c, "net_i40e", CAPA_I40E, 0, &off),
			 0);
	assert_int_equal(c.mode, TEP_TXMODE_TUNNEL);
	assert_int_equal(off, RTE_ETH_TX_OFFLOAD_MULTI_SEGS |
			 RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
			 RTE_ETH_TX_OFFLOAD_TCP_CKSUM);
	assert_int_equal(c.tun[TAG(RTE_MBUF_F_TX_TUNNEL_UDP)].tag,
			 TAG(RTE_MBUF_F_TX_TUNNEL_VXLAN));
	assert_int_equal(c.tun[TAG(RTE_MBUF_F_TX_TUNNEL_GENEVE)].tag,
			 TAG(RTE_MBUF_F_TX_TUNNEL_GENEVE));
	assert_int_equal(c.tun[TAG(RTE_MBUF_F_TX_TUNNEL_IPIP)].tag, 0);
	tep_txcaps_describe(&c, line, sizeof(line));
	print_message("  %s\n", line);

	/* ice: MULTI_SEGS keeps it off the vector path; if the operator
	 * disables that, OUTER_IPV4_CKSUM does; both off: tunnels in sw */
	assert_int_equal(tep_txcaps_init(&c, "net_ice", CAPA_ICE, 0, &off), 0);
	assert_int_equal(c.mode, TEP_TXMODE_TUNNEL);
	assert_true(off & RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
	assert_false(off & RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM);
	assert_int_equal(tep_txcaps_init(&c, "net_ice", CAPA_ICE,
					 RTE_ETH_TX_OFFLOAD_MULTI_SEGS, &off),
			 0);
	assert_true(off & RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM);
	assert_int_equal(c.tun[TAG(RTE_MBUF_F_TX_TUNNEL_VXLAN)].tag,
			 TAG(RTE_MBUF_F_TX_TUNNEL_VXLAN));
	assert_int_equal(tep_txcaps_init(&c, "net_ice", CAPA_ICE,
					 RTE_ETH_TX_OFFLOAD_MULTI_SEGS |
					 RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM,
					 &off), 0);
	assert_int_equal(c.mode, TEP_TXMODE_TUNNEL);
	assert_int_equal(off & (RTE_ETH_TX_OFFLOAD_MULTI_SEGS |
				RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM), 0);
	assert_int_equal(c.tun[TAG(RTE_MBUF_F_TX_TUNNEL_VXLAN)].tag, 0);
	assert_int_equal(c.tun[TAG(RTE_MBUF_F_TX_TUNNEL_VXLAN)].sw_reason,
			 TEP_TXSW_DISABLED);

	/* mlx5: SWP engaged by configuring UDP_TNL_TSO */
	assert_int_equal(tep_txcaps_init(&c, "mlx5_pci", CAPA_MLX5, 0, &off),
			 0);
	assert_int_equal(c.mode, TEP_TXMODE_TUNNEL);
	assert_true(off & RTE_ETH_TX_OFFLOAD_UDP_TNL_TSO);
	assert_int_equal(c.tun[TAG(RTE_MBUF_F_TX_TUNNEL_VXLAN)].std_port, 4789);
	tep_txcaps_describe(&c, line, sizeof(line));
	print_message("  %s\n", line);
	assert_int_equal(tep_txcaps_init(&c, "mlx5_pci", CAPA_MLX5_BASE, 0,
					 &off), 0);
	assert_int_equal(c.mode, TEP_TXMODE_TUNNEL);	/* plain only */
	assert_int_equal(c.tun[TAG(RTE_MBUF_F_TX_TUNNEL_VXLAN)].tag, 0);
	assert_int_equal(c.tun[TAG(RTE_MBUF_F_TX_TUNNEL_GRE)].tag, 0);

	/* software-only drivers, whatever they advertise */
	{
		static const char *const soft[] = {
			"net_af_packet", "net_null", "net_ring", "net_pcap",
		};
		unsigned int i;

		for (i = 0; i < sizeof(soft) / sizeof(soft[0]); i++) {
			assert_int_equal(tep_txcaps_init(&c, soft[i],
				CAPA_VIRTIO, 0, &off), 0);
			assert_int_equal(c.mode, TEP_TXMODE_NONE);
			assert_int_equal(off, RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
		}
		tep_txcaps_describe(&c, line, sizeof(line));
		print_message("  %s\n", line);
	}

	/* net_vhost: flat (the guest gets NEEDS_CSUM), chains in software,
	 * and the only one whose receiver trusts a partial checksum */
	assert_int_equal(tep_txcaps_init(&c, "net_vhost", CAPA_VIRTIO, 0, &off),
			 0);
	assert_int_equal(c.mode, TEP_TXMODE_FLAT);
	assert_int_equal(c.multiseg_hw, 0);
	assert_int_equal(c.partial_rx, 1);
	assert_int_equal(tep_txcaps_init(&c, "net_vhost", CAPA_VIRTIO,
		RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM,
		&off), 0);
	assert_int_equal(c.mode, TEP_TXMODE_NONE);
	assert_int_equal(c.partial_rx, 0);
	assert_int_equal(tep_txcaps_init(&c, "net_tap", CAPA_VIRTIO, 0, &off),
			 0);
	assert_int_equal(c.partial_rx, 0);

	/* unknown drivers: flat only for UDP+TCP without tunnel offloads */
	assert_int_equal(tep_txcaps_init(&c, "net_foo", CAPA_VIRTIO, 0, &off),
			 0);
	assert_int_equal(c.mode, TEP_TXMODE_FLAT);
	assert_int_equal(tep_txcaps_init(&c, NULL, CAPA_VIRTIO, 0, &off), 0);
	assert_int_equal(c.mode, TEP_TXMODE_FLAT);
	assert_int_equal(tep_txcaps_init(&c, "net_foo",
					 RTE_ETH_TX_OFFLOAD_UDP_CKSUM, 0,
					 &off), 0);
	assert_int_equal(c.mode, TEP_TXMODE_NONE);
	assert_int_equal(off, 0);
	assert_int_equal(tep_txcaps_init(&c, "net_iavf", CAPA_I40E, 0, &off),
			 0);
	assert_int_equal(c.mode, TEP_TXMODE_NONE);
	tep_txcaps_describe(&c, line, sizeof(line));
	print_message("  %s\n", line);

	/* the operator's mask wins, and is never asked of the port */
	assert_int_equal(tep_txcaps_init(&c, "net_i40e", CAPA_I40E,
					 RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
					 RTE_ETH_TX_OFFLOAD_TCP_CKSUM, &off),
			 0);
	assert_int_equal(c.mode, TEP_TXMODE_NONE);
	assert_int_equal(c.mode_reason, TEP_TXSW_DISABLED);
	assert_int_equal(off, RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
	assert_int_equal(tep_txcaps_init(NULL, "net_tap", 0, 0, &off),
			 -EINVAL);
}

/* Operator-disabled offloads force software, with that reason. */
/* A device row: QEMU's emulated 82574L is software whatever em offers;
 * em itself (or with no device id) is flat. */
static void
test_device_row(void **state)
{
	const uint64_t capa = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
			      RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
			      RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
			      RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	struct tep_txcaps c;
	uint64_t off;
	(void)state;

	assert_int_equal(tep_txcaps_init_dev(&c, "net_e1000_em",
					     "8086:10d3 8086:0000", capa, 0,
					     &off), 0);
	assert_int_equal(c.mode, TEP_TXMODE_NONE);
	assert_int_equal(off, RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
	assert_int_equal(tep_txcaps_init_dev(&c, "net_e1000_em",
					     "8086:100e 1af4:1100", capa, 0,
					     &off), 0);
	assert_int_equal(c.mode, TEP_TXMODE_FLAT);
	assert_true(off & RTE_ETH_TX_OFFLOAD_TCP_CKSUM);
	assert_int_equal(tep_txcaps_init(&c, "net_e1000_em", capa, 0, &off),
			 0);
	assert_int_equal(c.mode, TEP_TXMODE_FLAT);
	/* a device row never applies to another driver */
	assert_int_equal(tep_txcaps_init_dev(&c, "net_ixgbe",
					     "8086:10d3 8086:0000", capa, 0,
					     &off), 0);
	assert_int_equal(c.mode, TEP_TXMODE_FLAT);
}

static void
test_disabled_forces_software(void **state)
{
	static struct tcase t;
	static struct fpkt f;
	struct tep_txcaps c;
	struct tep_txprep_stats st;
	struct gen_opts o = gen_default;
	struct rte_mbuf *pk[1];
	uint64_t off;
	int i, hw = 0, sw = 0;
	(void)state;

	o.trailer = 0;
	o.multiseg = 0;
	/* UDP checksum off on i40e: UDP in software, TCP still offloaded */
	assert_int_equal(tep_txcaps_init(&c, "net_i40e", CAPA_I40E,
					 RTE_ETH_TX_OFFLOAD_UDP_CKSUM, &off),
			 0);
	assert_false(off & RTE_ETH_TX_OFFLOAD_UDP_CKSUM);
	for (i = 0; i < 400; i++) {
		make_case(&t, &o);
		load(&f, &t, 0);
		pk[0] = &f.seg[0];
		memset(&st, 0, sizeof(st));
		assert_int_equal(tep_txprep_burst(&c, pk, 1, &st), 1);
		if (t.udp) {
			check_sw(&t, pk[0]);
			assert_int_equal(st.sw_reason[TEP_TXSW_DISABLED], 1);
			sw++;
		} else if (!t.v6_ext) {
			assert_int_equal(st.hw_inner_csum, 1);
			hw++;
		}
	}
	assert_true(hw > 50 && sw > 50);

	/* VXLAN switched off on i40e: VXLAN and FOU/GUE (sent as VXLAN) in
	 * software, GENEVE and GRE offloaded */
	assert_int_equal(tep_txcaps_init(&c, "net_i40e", CAPA_I40E,
					 RTE_ETH_TX_OFFLOAD_VXLAN_TNL_TSO,
					 &off), 0);
	for (i = 0; i < 400; i++) {
		int soft;

		make_case(&t, &o);
		if (t.tun == PLAIN || t.v6_ext)
			continue;
		soft = t.tun == TEP_TUN_VXLAN || t.tun == TEP_TUN_FOU ||
		       t.tun == TEP_TUN_GUE;
		load(&f, &t, 0);
		pk[0] = &f.seg[0];
		memset(&st, 0, sizeof(st));
		assert_int_equal(tep_txprep_burst(&c, pk, 1, &st), 1);
		if (soft) {
			check_sw(&t, pk[0]);
			assert_int_equal(st.sw_reason[TEP_TXSW_DISABLED], 1);
		} else {
			assert_int_equal(st.hw_inner_csum, 1);
		}
	}

	/* TCP checksum off on tap */
	assert_int_equal(tep_txcaps_init(&c, "net_tap", CAPA_TAP,
					 RTE_ETH_TX_OFFLOAD_TCP_CKSUM, &off),
			 0);
	assert_int_equal(c.mode, TEP_TXMODE_FLAT);
	for (i = 0; i < 200; i++) {
		make_case(&t, &o);
		load(&f, &t, 0);
		pk[0] = &f.seg[0];
		memset(&st, 0, sizeof(st));
		assert_int_equal(tep_txprep_burst(&c, pk, 1, &st), 1);
		if (!t.udp) {
			check_sw(&t, pk[0]);
			assert_int_equal(st.sw_reason[TEP_TXSW_DISABLED], 1);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps_table),
		cmocka_unit_test(test_fast_path_untouched),
		cmocka_unit_test(test_none_random),
		cmocka_unit_test(test_padding_not_summed),
		cmocka_unit_test(test_zero_checksum),
		cmocka_unit_test(test_tap_flat_random),
		cmocka_unit_test(test_tap_model_needs_the_rules),
		cmocka_unit_test(test_virtio_ixgbe_flat_random),
		cmocka_unit_test(test_i40e_tunnel_random),
		cmocka_unit_test(test_mlx5_tunnel_random),
		cmocka_unit_test(test_malformed_refused),
		cmocka_unit_test(test_disabled_forces_software),
		cmocka_unit_test(test_device_row),
	};

	return cmocka_run_group_tests_name("txprep", tests, NULL, NULL);
}
