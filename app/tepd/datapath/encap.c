/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Encapsulation: the tunnel's underlay egress (cached per worker), its
 * prebuilt headers written in front of the inner packet with the outer
 * checksum by LCO (lib/proto tep_encap_write), and the TX offload request
 * for a pending inner checksum.
 */

#include <rte_fib.h>
#include <rte_fib6.h>

#include "tep_chain.h"
#include "tep_csum_mbuf.h"
#include "tep_nhg.h"
#include "datapath.h"
#include "adj.h"
#include "neigh.h"
#include "port.h"
#include "punt.h"
#include "stats.h"
#include "tunnel.h"

/*
 * The egress of next hop idx (a gateway or connected one of the underlay)
 * for tunnel t into e: its port and the MAC to send to. False when m was
 * consumed: no such route, port down (e->dmac left 0, so that it is
 * checked again), or the neighbour is unresolved (m punted to resolve
 * it; e->dmac 0).
 */
static bool
egress_fill(struct worker *w, const struct tep_tunnel *t, struct rte_mbuf *m,
	    uint32_t idx, struct tun_egress *e)
{
	const struct tep_nh *nh = &tep_rib.nh[idx];
	const uint8_t *gw;

	e->dmac = 0;
	if (idx == TEP_NH_NONE ||
	    (nh->type != TEP_NHT_GW && nh->type != TEP_NHT_CONNECTED)) {
		w->cnt->tun[t->id].drop[TEP_R_NO_ROUTE]++;
		dp_drop(w, m, TEP_R_NO_ROUTE);
		return false;
	}
	if (!tep_ports[nh->port].up || tep_ports[nh->port].role == TEP_ROLE_NONE) {
		w->cnt->tun[t->id].drop[TEP_R_PORT_DOWN]++;
		dp_drop(w, m, TEP_R_PORT_DOWN);
		return false;
	}
	gw = nh->type == TEP_NHT_GW ? nh->gw : t->p.dst;
	e->port = nh->port;
	e->dmac = nh->type == TEP_NHT_GW ? tep_adj_mac(idx) :
		  tep_neigh_mac(nh->port, t->p.outer_v6 ? 6 : 4, gw);
	if (e->dmac == 0) {
		struct tep_mbuf_priv *pv = tep_priv(m);

		/* Resolve; the packet itself is dropped (counted): the
		 * control thread cannot encapsulate it later. */
		w->cnt->tun[t->id].drop[TEP_R_NO_NEIGH]++;
		pv->tx_port = nh->port;
		pv->tunnel = t->id;
		/* The gateway's family, not the underlay's (RFC 5549). */
		pv->family_nh = (uint8_t)(nh->type == TEP_NHT_GW ?
					  tep_nh_gw_family(nh) :
					  (t->p.outer_v6 ? 6 : 4));
		memcpy(pv->nh_ip, gw, pv->family_nh == 4 ? 4 : 16);
		dp_punt(w, m, TEP_PUNT_RESOLVE, t->p.outer_v6 ? 6 : 4);
		return false;
	}
	return true;
}

/* Where a tunnel's packets leave: the underlay route and neighbour of its
 * remote, cached per worker until the control plane bumps the generation.
 * A multipath underlay route is cached as its group (e->nhg): each packet
 * then takes its member (member_egress()). */
static __rte_noinline const struct tun_egress *
tunnel_egress_lookup(struct worker *w, const struct tep_tunnel *t,
		     struct rte_mbuf *m, uint32_t gen)
{
	struct tun_egress *e = &w->egress[t->id];
	const struct tep_vrf *v;
	uint64_t idx = TEP_NH_NONE;

	v = __atomic_load_n(&tep_rib.vrf[TEP_VRF_DEFAULT], __ATOMIC_ACQUIRE);
	if (!t->p.outer_v6) {
		uint32_t ip = tep_rd32(t->p.dst);

		rte_fib_lookup_bulk(__atomic_load_n(&v->fib4, __ATOMIC_ACQUIRE),
				    &ip, &idx, 1);
	} else {
		uint8_t ip6[1][16];

		memcpy(ip6[0], t->p.dst, 16);
		rte_fib6_lookup_bulk(__atomic_load_n(&v->fib6, __ATOMIC_ACQUIRE),
				     ip6, &idx, 1);
	}
	if (idx != TEP_NH_NONE && tep_rib.nh[idx].type == TEP_NHT_GROUP) {
		e->nhg = (uint16_t)idx;
		e->dmac = 0;
		e->gen = gen;
		return e;
	}
	e->nhg = 0;
	if (!egress_fill(w, t, m, (uint32_t)idx, e))
		return NULL;
	e->gen = gen;
	return e;
}

/* Inline: a burst into many tunnels asks once per packet, and the answer
 * is nearly always the cached one. */
static inline const struct tun_egress *
tunnel_egress(struct worker *w, const struct tep_tunnel *t,
	      struct rte_mbuf *m)
{
	const struct tun_egress *e = &w->egress[t->id];
	uint32_t gen = __atomic_load_n(&tep.underlay_gen, __ATOMIC_ACQUIRE);

	if (likely(e->gen == gen && (e->dmac != 0 || e->nhg != 0)))
		return e;
	return tunnel_egress_lookup(w, t, m, gen);
}

/*
 * A packet of flow hash `hash` into tunnel t whose underlay route is the
 * multipath next hop grp: the member its hash picks, into *me. False when
 * m was consumed (as egress_fill()).
 *
 * The overlay route's group (lookup.c) picks its member from the hash's
 * low bits; were the underlay's picked from the same bits, every flow of
 * one tunnel would take the same underlay path (two levels of ECMP
 * polarised into one). The halves swapped give it other bits.
 */
/*
 * The group a cached multipath egress names, or NULL. Unlike the FIB's
 * answer, the cache outlives the read side it was filled in: the route
 * may have gone and its group with it (deleted, its slot reused) before
 * the generation bump reaches this worker.
 */
static inline const struct tep_nhg *
egress_group(uint32_t grp)
{
	const struct tep_nh *nh = &tep_rib.nh[grp];

	if (nh->type != TEP_NHT_GROUP || nh->tunnel >= TEP_NHG_MAX)
		return NULL;
	return __atomic_load_n(&tep_rib.nhg[nh->tunnel], __ATOMIC_ACQUIRE);
}

static __rte_noinline bool
member_egress(struct worker *w, const struct tep_tunnel *t, struct rte_mbuf *m,
	      uint32_t grp, uint32_t hash, struct tun_egress *me)
{
	const struct tep_nhg *g = egress_group(grp);
	uint32_t h = hash >> 16 | hash << 16;

	if (unlikely(g == NULL)) {
		/* gone: looked up again for the next packet */
		w->egress[t->id].gen = 0;
		return egress_fill(w, t, m, TEP_NH_NONE, me);
	}
	return egress_fill(w, t, m, tep_nhg_pick(g, h), me);
}

/* The smallest MTU of a multipath egress's member ports: a flow's packets
 * are cut to one size whichever path it takes. */
static uint16_t
group_mtu(uint32_t grp)
{
	const struct tep_nhg *g = egress_group(grp);
	uint16_t mtu = UINT16_MAX;
	uint32_t i;

	for (i = 0; g != NULL && i < g->n; i++)
		mtu = RTE_MIN(mtu, tep_ports[tep_rib.nh[g->member[i]].port].mtu);
	return mtu;
}

/* Tunnel offload metadata for a pending inner checksum (drivers/ adapts
 * or completes it at TX). */
static inline void
set_tunnel_txmeta(struct rte_mbuf *m, const struct tep_tunnel *t,
		  const struct tep_flow *f, int family)
{
	static const uint64_t tun_flag[TEP_TUN_MAX] = {
		[TEP_TUN_VXLAN] = RTE_MBUF_F_TX_TUNNEL_VXLAN,
		[TEP_TUN_GENEVE] = RTE_MBUF_F_TX_TUNNEL_GENEVE,
		[TEP_TUN_FOU] = RTE_MBUF_F_TX_TUNNEL_UDP,
		[TEP_TUN_GUE] = RTE_MBUF_F_TX_TUNNEL_UDP,
		[TEP_TUN_GRE] = RTE_MBUF_F_TX_TUNNEL_GRE,
	};
	const struct tep_encap_tmpl *tm = &t->tmpl;

	m->outer_l2_len = tm->l2_len;
	m->outer_l3_len = tm->l3_len;
	m->l2_len = (uint64_t)(tm->len - tm->l4_off) + f->l3_off;
	m->l3_len = f->l3_len;
	m->l4_len = f->l4.kind == TEP_L4_TCP ? 20 : 8;
	m->ol_flags = (t->p.outer_v6 ? RTE_MBUF_F_TX_OUTER_IPV6 :
				       RTE_MBUF_F_TX_OUTER_IPV4) |
		      (family == 4 ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6) |
		      (f->l4.kind == TEP_L4_TCP ? RTE_MBUF_F_TX_TCP_CKSUM :
						  RTE_MBUF_F_TX_UDP_CKSUM) |
		      tun_flag[t->tmpl.type];
}

/* What a run of packets into one tunnel adds to its counters: written
 * once per run, not per packet. */
struct encap_tally {
	uint64_t pkts, bytes;
	uint64_t ocsum[RTE_DIM(((struct tep_cnt_tun *)0)->ocsum)];
};

/* routed: the packets were tenants' (tepd's own answers are not). */
static inline void
tally_flush(struct worker *w, const struct tep_tunnel *t,
	    const struct encap_tally *tl, bool routed)
{
	struct tep_cnt_tun *c = &w->cnt->tun[t->id];
	unsigned int i;

	if (tl->pkts == 0)
		return;
	c->encap += tl->pkts;
	c->encap_bytes += tl->bytes;
	for (i = 0; i < RTE_DIM(tl->ocsum); i++)
		c->ocsum[i] += tl->ocsum[i];
	if (routed)
		w->cnt->vrf[w->vrf].routed += tl->pkts;
}

/*
 * Put tunnel t's headers in front of m (pk describes the inner packet),
 * addressed to the tunnel's underlay next hop e, and count it in tl.
 * False when m was dropped; on success m has no offload request yet.
 */
static __rte_always_inline bool
tunnel_push(struct worker *w, struct rte_mbuf *m, const struct tep_tunnel *t,
	    const struct tun_egress *e, const struct tep_encap_pkt *pk,
	    struct encap_tally *tl)
{
	uint8_t *outer = (uint8_t *)rte_pktmbuf_prepend(m, t->tmpl.len);
	int ret;

	if (outer == NULL) {
		w->cnt->tun[t->id].drop[TEP_R_NO_HEADROOM]++;
		dp_drop(w, m, TEP_R_NO_HEADROOM);
		return false;
	}
	ret = tep_encap_write(&t->tmpl, outer, pk);
	if (ret < 0) {
		w->cnt->tun[t->id].drop[TEP_R_ENCAP_FAILED]++;
		dp_drop(w, m, TEP_R_ENCAP_FAILED);
		return false;
	}
	set_macs(outer, e->dmac, &tep_ports[e->port].mac);
	m->ol_flags = 0;
	tl->pkts++;
	tl->bytes += m->pkt_len;
	tl->ocsum[ret]++;
	return true;
}

/*
 * Will tep_encap_write() sum the whole inner packet? Its rule: a full sum
 * unless LCO applies (csum lco and a ones-complement inner checksum that
 * is final or about to be: not a pending one handed over by RCO); none for
 * csum off/offload or GRE without one. rco: tep_encap_rco() said the
 * packet goes with remote checksum offload. Erring towards true costs a
 * sum, towards false a wrong checksum: when in doubt, true.
 */
static inline bool
encap_sums_all(const struct tep_tunnel *t, const struct tep_flow *f,
	       bool pending, bool rco)
{
	bool ones = f->l4.kind == TEP_L4_TCP || f->l4.kind == TEP_L4_UDP ||
		    f->l4.kind == TEP_L4_ICMP || f->l4.kind == TEP_L4_ICMP6;

	if (t->tmpl.csum == TEP_CSUM_OFF || t->tmpl.csum == TEP_CSUM_OFFLOAD)
		return false;
	if (t->tmpl.type == TEP_TUN_GRE && !t->tmpl.gre_csum)
		return false;
	return t->tmpl.csum != TEP_CSUM_LCO || !ones || (rco && pending);
}

/*
 * Encapsulation of a run of packets is done in two passes over the run:
 * the first checks each packet against the egress and rewrites and
 * inspects its inner headers (encap_inner), the second writes the outer
 * headers (encap_outer). The second reads what the first wrote to the
 * flow records long after it was written, not a few instructions later
 * (a wide load of a struct just written by narrow stores stalls until the
 * stores retire: that copy alone had been a fifth of the stage).
 */

/* Does m, encapsulated in t, exceed the egress port op's MTU? */
static inline bool
encap_too_big(const struct rte_mbuf *m, const struct tep_tunnel *t,
	      uint16_t mtu)
{
	return m->pkt_len - (t->tmpl.inner_eth ? 0u : 14u) + t->tmpl.len -
	       t->tmpl.l2_len > mtu;
}

/* A packet too big for the tunnel: fragmented, the fragments then taking
 * the tunnel together; or an ICMP error. Rare, and kept out of line so
 * that the fragments' array is not on the stack of the common path. */
static __rte_noinline void
encap_oversize(struct worker *w, struct rte_mbuf *m, const struct tep_nh *nh,
	       int family, const struct tep_tunnel *t, uint16_t mtu)
{
	struct rte_mbuf *frags[DP_FRAGS_MAX];
	uint16_t n;

	w->cnt->tun[t->id].drop[TEP_R_TOO_BIG]++;
	n = dp_too_big(w, m, rte_pktmbuf_mtod_offset(m, uint8_t *, 14),
		       family, mtu - (t->tmpl.len - t->tmpl.l2_len) -
		       (t->tmpl.inner_eth ? 14 : 0), frags);
	if (n > 0)
		dp_encap_burst(w, frags, NULL, n, nh, 4);
}

/* Pass 1 for one packet that fits: TTL (unless it is a host port's,
 * own), inner Ethernet rewrite (or strip), and its inner headers located
 * in f, from what classification learnt of them (l3) when there is that.
 * False when m was consumed. */
static inline bool
encap_inner(struct worker *w, struct rte_mbuf *m, int family,
	    const struct tep_tunnel *t, const struct tep_l3_info *l3,
	    bool own, struct tep_flow *f)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *), *inner;
	enum tep_reason r;

	if (likely(!own) && !dp_ttl_dec(w, m, eth + 14, family))
		return false;

	if (t->tmpl.inner_eth) {
		set_macs(eth, mac_to_u64(&t->inner_dmac), &t->inner_smac);
		inner = eth;
	} else {
		inner = (uint8_t *)rte_pktmbuf_adj(m, 14);
	}
	/* Validated by dp_classify(), which described the IP header in l3:
	 * only L4 is located and the flow hashed, or not even hashed when
	 * the NIC did it (RSS, over the same addresses and ports). A
	 * chain's headers are in its first segment (rx pulled them up). */
	if (likely(l3 != NULL && l3->l3_len != 0)) {
		r = tep_flow_parse_l3(inner, m->data_len, t->tmpl.inner_eth,
				      l3, (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH) ?
				      &m->hash.rss : NULL, f);
	} else {
		r = tep_flow_parse_seg(inner, m->data_len, m->pkt_len,
				       t->tmpl.inner_eth, f);
		/* tepd's fragments and segments of one packet carry its
		 * RSS hash: the same source port as its unfragmented
		 * fellows, so a flow is not spread over two paths. */
		if ((m->ol_flags & RTE_MBUF_F_RX_RSS_HASH) &&
		    f->ip_version != 0)
			f->hash = m->hash.rss;
	}
	if (unlikely(r != TEP_R_OK)) {
		w->cnt->tun[t->id].drop[TEP_R_HDR_SPLIT]++;
		dp_drop(w, m, TEP_R_HDR_SPLIT);
		return false;
	}
	return true;
}

/* Pass 2 for one packet: the outer headers of tunnel t towards egress e
 * and the TX request for a pending inner checksum. True when m is ready
 * to go out e's port; false when it was dropped. */
static inline bool
encap_outer(struct worker *w, struct rte_mbuf *m, int family,
	    const struct tep_tunnel *t, const struct tun_egress *e,
	    const struct tep_flow *f, struct encap_tally *tl)
{
	uint8_t *inner = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t inner_len = m->pkt_len;
	struct tep_encap_pkt pk;
	bool pending, rco = false;

	pending = (m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
		  RTE_MBUF_F_RX_L4_CKSUM_NONE &&
		  (f->l4.kind == TEP_L4_TCP || f->l4.kind == TEP_L4_UDP);
	pk.inner_len = (uint16_t)inner_len;
	pk.inner_contig = unlikely(m->next != NULL) ? m->data_len : 0;
	pk.inner_tail_sum = 0;
	/* Remote checksum offload: the receiver finishes the inner
	 * checksum, nobody here does. Only an RCO tunnel copies the flow's
	 * L4 description this early: so soon after the flow parse wrote it,
	 * the wide copy may wait on those stores (see the top of this file);
	 * the others copy it late, as before RCO. */
	if (unlikely(t->tmpl.rco)) {
		pk.l4 = f->l4;
		pk.l4.state = pending ? TEP_L4_PENDING : TEP_L4_COMPLETE;
		rco = tep_encap_rco(&t->tmpl, &pk);
	}

	/* A full outer sum covers the inner checksum, so that one must be
	 * final first; LCO, RCO and the NIC all work from the seed. */
	if (unlikely(pending && t->tmpl.csum == TEP_CSUM_FULL && !rco)) {
		uint32_t end = f->l4.l4_end != 0 ? f->l4.l4_end : inner_len;

		if (likely(m->next == NULL))
			tep_l4_csum_complete(inner + f->l4.csum_start,
					     end - f->l4.csum_start,
					     f->l4.csum_offset,
					     f->l4.kind == TEP_L4_UDP);
		else if (tep_chain_l4_complete(m, f->l4.csum_start,
					       end - f->l4.csum_start,
					       f->l4.csum_offset,
					       f->l4.kind == TEP_L4_UDP) != 0) {
			w->cnt->tun[t->id].drop[TEP_R_HDR_SPLIT]++;
			dp_drop(w, m, TEP_R_HDR_SPLIT);
			return false;
		}
		w->cnt->port[e->port].sw_csum++;
		pending = false;
	}

	/* A chain: what a full outer sum would need of the rest. LCO reads
	 * none of it; this is summed only when the sum will be full (csum
	 * full, an inner L4 LCO cannot use, or a seed RCO leaves on the
	 * wire). */
	if (unlikely(m->next != NULL) && encap_sums_all(t, f, pending, rco) &&
	    tep_csum_mbuf(m, m->data_len, m->pkt_len - m->data_len,
			  &pk.inner_tail_sum) < 0) {
		dp_drop(w, m, TEP_R_TRUNCATED);
		return false;
	}
	pk.sport = tep_udp_sport(f->hash, t->tmpl.sport_lo, t->tmpl.sport_hi);
	pk.ip_id = w->ip_id++;
	pk.inner_tos = f->tos;
	pk.flow_label = f->hash & 0xfffff;
	pk.l4 = f->l4;
	pk.l4.state = pending ? TEP_L4_PENDING : TEP_L4_COMPLETE;
	/* dp_classify() verified the inner IPv4 header checksum (or the NIC
	 * did) and dp_ttl_dec() kept it valid: LCO may leave the header out. */
	pk.l4.ip4_hdr_ok = family == 4;
	/* The inner Ethernet header is the tunnel's: its sum is known. */
	pk.inner_pre_len = t->tmpl.inner_eth ? 14 : 0;
	pk.inner_pre_sum = t->inner_eth_sum[family == 6];
	if (!tunnel_push(w, m, t, e, &pk, tl))
		return false;
	if (pending && !rco)
		set_tunnel_txmeta(m, t, f, family);
	return true;
}

/*
 * n packets of one VRF and family, all from one RX port, into the tunnel
 * of next hop nh: the tunnel, its egress and the egress port are loaded
 * once for the run, and its counters written once. l3 describes each
 * packet's IP header (dp_classify()), or is NULL (tepd's own fragments
 * and segments: parsed here).
 */
void
dp_encap_burst(struct worker *w, struct rte_mbuf **pkts,
	       const struct tep_l3_info *l3, uint16_t n,
	       const struct tep_nh *nh, int family)
{
	const struct tep_tunnel *t =
		__atomic_load_n(&tep_tunnels[nh->tunnel], __ATOMIC_ACQUIRE);
	const struct tun_egress *e = NULL;
	uint16_t mtu = 0;
	struct rte_mbuf *keep[TEP_BURST];
	struct tep_flow f[TEP_BURST];
	bool big[TEP_BURST];
	struct encap_tally tl = { 0 };
	bool own;	/* a host port's: keep their TTL (dp_keeps_ttl) */
	uint16_t i, cport;

	if (n == 0)
		return;
	own = dp_keeps_ttl(pkts[0]->port, NULL);
	cport = tep_cnt_port_of(pkts[0]);
	if (t == NULL) {
		for (i = 0; i < n; i++)
			dp_drop(w, pkts[i], TEP_R_NO_TUNNEL);
		return;
	}
	while (n > 0) {
		uint16_t run = RTE_MIN(n, (uint16_t)TEP_BURST), k = 0;
		struct rte_mbuf *out[TEP_BURST];	/* for e's port */
		uint16_t nout = 0, oport = 0;
		uint64_t ol_or = 0;

		for (i = 0; i < run; i++) {
			if (unlikely(e == NULL)) {
				/* Unresolved or unroutable: tried again for
				 * each packet, which it consumes (dropped or
				 * punted). */
				e = tunnel_egress(w, t, pkts[i]);
				if (e == NULL)
					continue;
				mtu = likely(e->nhg == 0) ?
				      tep_ports[e->port].mtu : group_mtu(e->nhg);
			}
			/* One too big is handled in pass 2, in its place:
			 * its fragments must not overtake the packets
			 * before it. */
			big[k] = encap_too_big(pkts[i], t, mtu);
			if (unlikely(big[k])) {
				if (own || !dp_ttl_expires(w, pkts[i],
					rte_pktmbuf_mtod_offset(pkts[i],
								uint8_t *, 14),
					family))
					keep[k++] = pkts[i];
			} else if (encap_inner(w, pkts[i], family, t,
					       l3 != NULL ? &l3[i] : NULL,
					       own, &f[k])) {
				keep[k++] = pkts[i];
			}
		}
		if (k > 0)
			oport = e->port;
		for (i = 0; i < k; i++) {
			const struct tun_egress *pe = e;
			struct tun_egress me;

			if (unlikely(big[i])) {
				/* Its fragments go out after the packets
				 * before it. */
				dp_tx_enqueue_run(w, oport, out, nout, ol_or);
				nout = 0;
				ol_or = 0;
				encap_oversize(w, keep[i], nh, family, t, mtu);
				continue;
			}
			if (unlikely(e->nhg != 0)) {
				/* Multipath underlay: the path of its flow;
				 * a run goes out while the port stays. */
				if (!member_egress(w, t, keep[i], e->nhg,
						   f[i].hash, &me))
					continue;
				pe = &me;
				if (me.port != oport) {
					dp_tx_enqueue_run(w, oport, out, nout,
							  ol_or);
					nout = 0;
					ol_or = 0;
					oport = me.port;
				}
			}
			if (encap_outer(w, keep[i], family, t, pe, &f[i],
					&tl)) {
				out[nout++] = keep[i];
				ol_or |= keep[i]->ol_flags;
			}
		}
		if (nout != 0)
			dp_tx_enqueue_run(w, oport, out, nout, ol_or);
		pkts += run;
		if (l3 != NULL)
			l3 += run;
		n = (uint16_t)(n - run);
	}
	tally_flush(w, t, &tl, true);
	dp_fate_sent(w, cport, tl.pkts, true);
}

/*
 * n packets (at most TEP_BURST) of one VRF and family from one RX port,
 * each into the tunnel of its own next hop nhs[i] (all tunnels). With
 * many tunnels a burst's packets seldom share one, and dp_encap_burst()'s
 * work per run (tunnel, egress, counters, TX queue) paid for every packet
 * cost more than the encapsulation (a million routes over 64 tunnels:
 * docs/performance.md). Here each packet finds its tunnel and its egress
 * (the worker's cache), adds to its tunnel's counters, and the packets
 * go to the TX queues in runs per port. The same two passes, in the same
 * order, as dp_encap_burst().
 */
void
dp_encap_mixed(struct worker *w, struct rte_mbuf **pkts,
	       const struct tep_l3_info *l3, const uint64_t *nhs, uint16_t n,
	       int family)
{
	const struct tep_tunnel *tun[TEP_BURST];
	const struct tun_egress *eg[TEP_BURST];
	const struct tep_nh *knh[TEP_BURST];
	struct rte_mbuf *keep[TEP_BURST], *out[TEP_BURST];
	struct tep_flow f[TEP_BURST];
	uint16_t mtu[TEP_BURST];
	bool big[TEP_BURST];
	bool own = dp_keeps_ttl(pkts[0]->port, NULL);
	uint16_t i, k = 0, nout = 0, oport = 0, cport = tep_cnt_port_of(pkts[0]);
	uint64_t ol_or = 0, sent = 0;

	for (i = 0; i < n; i++) {
		const struct tep_nh *nh = &tep_rib.nh[nhs[i]];
		const struct tep_tunnel *t =
			__atomic_load_n(&tep_tunnels[nh->tunnel],
					__ATOMIC_ACQUIRE);
		const struct tun_egress *e;

		if (unlikely(t == NULL)) {
			dp_drop(w, pkts[i], TEP_R_NO_TUNNEL);
			continue;
		}
		e = tunnel_egress(w, t, pkts[i]);
		if (e == NULL)
			continue;
		mtu[k] = likely(e->nhg == 0) ? tep_ports[e->port].mtu :
			 group_mtu(e->nhg);
		big[k] = encap_too_big(pkts[i], t, mtu[k]);
		if (unlikely(big[k])) {
			if (!own && dp_ttl_expires(w, pkts[i],
					rte_pktmbuf_mtod_offset(pkts[i],
								uint8_t *, 14),
					family))
				continue;
		} else if (!encap_inner(w, pkts[i], family, t, &l3[i], own,
					&f[k])) {
			continue;
		}
		tun[k] = t;
		eg[k] = e;
		knh[k] = nh;
		keep[k++] = pkts[i];
	}
	for (i = 0; i < k; i++) {
		const struct tun_egress *pe = eg[i];
		struct encap_tally tl = { 0 };
		struct tun_egress me;

		if (unlikely(big[i])) {
			dp_tx_enqueue_run(w, oport, out, nout, ol_or);
			nout = 0;
			ol_or = 0;
			encap_oversize(w, keep[i], knh[i], family, tun[i],
				       mtu[i]);
			continue;
		}
		if (unlikely(pe->nhg != 0)) {
			if (!member_egress(w, tun[i], keep[i], pe->nhg,
					   f[i].hash, &me))
				continue;
			pe = &me;
		}
		if (pe->port != oport) {
			dp_tx_enqueue_run(w, oport, out, nout, ol_or);
			nout = 0;
			ol_or = 0;
			oport = pe->port;
		}
		if (encap_outer(w, keep[i], family, tun[i], pe, &f[i], &tl)) {
			out[nout++] = keep[i];
			ol_or |= keep[i]->ol_flags;
		}
		tally_flush(w, tun[i], &tl, true);
		sent += tl.pkts;
	}
	if (nout != 0)
		dp_tx_enqueue_run(w, oport, out, nout, ol_or);
	dp_fate_sent(w, cport, sent, true);
}

void
dp_encap(struct worker *w, struct rte_mbuf *m, const struct tep_nh *nh,
	 int family)
{
	dp_encap_burst(w, &m, NULL, 1, nh, family);
}

/*
 * Send an Ethernet frame tepd made itself (len bytes at m) into tunnel t:
 * the proxy ARP/ND answers. No inner checksum to keep: the outer one is
 * summed whole, over a few dozen bytes.
 */
void
dp_tunnel_answer(struct worker *w, struct rte_mbuf *m, const struct tep_tunnel *t,
	      uint32_t len)
{
	const struct tun_egress *e;
	struct tun_egress me;
	struct encap_tally tl = { 0 };
	struct tep_encap_pkt pk;
	uint16_t cport = tep_cnt_port_of(m);

	if (m->pkt_len > len)
		rte_pktmbuf_trim(m, m->pkt_len - len);
	else if (m->pkt_len < len)
		rte_pktmbuf_append(m, len - m->pkt_len);	/* room checked */
	e = tunnel_egress(w, t, m);
	if (e == NULL)
		return;
	if (e->nhg != 0) {
		/* one answer, one path: the first bucket's */
		if (!member_egress(w, t, m, e->nhg, 0, &me))
			return;
		e = &me;
	}
	memset(&pk, 0, sizeof(pk));
	pk.inner_len = (uint16_t)len;
	pk.sport = t->tmpl.sport_lo;
	pk.ip_id = w->ip_id++;
	pk.l4.kind = TEP_L4_NONE;
	if (tunnel_push(w, m, t, e, &pk, &tl)) {
		dp_tx_enqueue(w, e->port, m);
		tally_flush(w, t, &tl, false);
		/* a tenant's ARP/NS answered back into its tunnel (a frame
		 * of the control thread's has no RX port: TEP_PORT_CTL) */
		w->cnt->port[cport].decap++;
	}
}
