/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Forwarding without a tunnel: out of a local port to a neighbour (or a
 * packet's own destination on a connected link), TTL decremented, pending
 * checksums turned into TX requests.
 */

#include "tep_hdr_walk.h"
#include "datapath.h"
#include "adj.h"
#include "neigh.h"
#include "port.h"
#include "punt.h"

/*
 * A packet going out as it came (no tunnel) whose TCP/UDP checksum is
 * pending (a guest left it to us) gets the Tx request drivers/ completes;
 * and one whose checksum is known good (derived at decapsulation) is
 * handed to a receiver that trusts partial checksums (a guest behind
 * vhost-user) as partial, so the guest does not sum it again: the field
 * gets the pseudo-header seed, which costs the headers only.
 */
static void
flat_csum_meta(struct worker *w, struct rte_mbuf *m, uint8_t *ip,
	       const struct tep_port *op)
{
	uint64_t l4f = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	uint32_t l3_len, l4_len;
	struct tep_walk wk;
	uint8_t proto, *l4;
	uint16_t seed;
	int family;

	if (l4f != RTE_MBUF_F_RX_L4_CKSUM_NONE &&
	    !(l4f == RTE_MBUF_F_RX_L4_CKSUM_GOOD && op->txcaps.partial_rx))
		return;
	/* Classified: the walk agrees with the family. Extension headers
	 * are not walked (the request is for a plain header). */
	if (tep_hdr_walk(ip, m->pkt_len - 14, m->data_len - 14u, 0, &wk) !=
	    TEP_R_OK || wk.frag)
		return;
	family = wk.family;
	l3_len = wk.l3_len;
	proto = wk.l4_proto;
	l4_len = wk.ip_len - wk.l3_len;
	if ((proto != 6 && proto != 17) ||
	    l4_len < (proto == 6 ? 20u : 8u) ||
	    14 + l3_len + 20 > m->data_len)
		return;
	l4 = ip + l3_len;
	if (l4f == RTE_MBUF_F_RX_L4_CKSUM_GOOD) {
		if (proto == 17 && family == 4 && tep_rd16(l4 + 6) == 0)
			return;		/* no checksum to hand on */
		seed = tep_csum_fold(family == 4 ?
			tep_ipv4_phdr_sum(ip + 12, ip + 16, proto,
					  (uint16_t)l4_len) :
			tep_ipv6_phdr_sum(ip + 8, ip + 24, proto, l4_len));
		memcpy(l4 + (proto == 6 ? 16 : 6), &seed, 2);
		w->cnt->port[op->id].tx_csum_partial++;
	}
	m->l2_len = 14;
	m->l3_len = l3_len;
	m->l4_len = proto == 6 ? 20 : 8;
	m->ol_flags = (family == 4 ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6) |
		      (proto == 6 ? RTE_MBUF_F_TX_TCP_CKSUM :
				    RTE_MBUF_F_TX_UDP_CKSUM);
	/* net_vhost's software fallback picks UDP 0 -> 0xffff by ptype */
	m->packet_type = (family == 4 ? RTE_PTYPE_L3_IPV4 : RTE_PTYPE_L3_IPV6) |
			 (proto == 6 ? RTE_PTYPE_L4_TCP : RTE_PTYPE_L4_UDP);
}

/* A packet too big for its egress: fragmented, the fragments then taking
 * the same path; or an ICMP error. Out of line: rare, and the fragments'
 * array stays off the common path's stack. */
static __rte_noinline void
forward_oversize(struct worker *w, struct rte_mbuf *m, const struct tep_nh *nh,
		 const uint8_t *ip, int family, uint32_t mtu)
{
	struct rte_mbuf *frags[DP_FRAGS_MAX];
	uint16_t n = dp_too_big(w, m, ip, family, mtu, frags);

	if (n > 0)
		dp_forward_burst(w, frags, n, nh, 4);
}

/*
 * n packets of one family to next hop nh (a run of a burst: the port is
 * checked, a gateway's adjacency read, and the run queued for TX and
 * counted once). Each packet is sent, punted to be held while its
 * neighbour resolves, or dropped; those sent keep their order.
 */
void
dp_forward_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n,
		 const struct tep_nh *nh, int family)
{
	const struct tep_port *op = &tep_ports[nh->port];
	struct rte_mbuf *out[TEP_BURST];
	uint64_t gw_mac = 0, ol_or = 0;
	uint16_t nout = 0, i, cport;
	bool gw = nh->type == TEP_NHT_GW;

	if (n == 0)
		return;
	cport = tep_cnt_port_of(pkts[0]);	/* a run is of one RX port */

	if (!op->up || op->role == TEP_ROLE_NONE) {
		for (i = 0; i < n; i++)
			dp_drop(w, pkts[i], TEP_R_PORT_DOWN);
		return;
	}
	/* The gateway's adjacency (adj.c), through the next hop's index: a
	 * gateway next hop is always one of the RIB's. */
	if (gw)
		gw_mac = tep_adj_mac((uint32_t)(nh - tep_rib.nh));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
		uint8_t *ip = eth + 14;
		bool big = m->pkt_len - 14 > op->mtu;
		const uint8_t *to;
		uint64_t mac;

		if (nout == RTE_DIM(out) || unlikely(big)) {
			/* Fragments (or the full queue) go out after the
			 * packets before them. */
			dp_tx_enqueue_run(w, nh->port, out, nout, ol_or);
			w->cnt->vrf[w->vrf].routed += nout;
			dp_fate_sent(w, cport, nout, false);
			nout = 0;
			ol_or = 0;
			if (big) {
				if (dp_keeps_ttl(m->port, op) ||
				    !dp_ttl_expires(w, m, ip, family))
					forward_oversize(w, m, nh, ip, family,
							 op->mtu);
				continue;
			}
		}
		if (likely(!dp_keeps_ttl(m->port, op)) &&
		    !dp_ttl_dec(w, m, ip, family))
			continue;
		/* Before the neighbour lookup: a packet held while its next
		 * hop resolves leaves later, from the control thread, with
		 * what it carries now (a pending checksum must stay a Tx
		 * request). */
		if (unlikely(m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK))
			flat_csum_meta(w, m, ip, op);
		if (gw) {
			to = nh->gw;
			mac = gw_mac;
		} else {
			to = family == 4 ? ip + 16 : ip + 24;
			mac = tep_neigh_mac(nh->port, family, to);
		}
		if (mac == 0) {
			struct tep_mbuf_priv *pv = tep_priv(m);

			pv->tx_port = nh->port;
			pv->tunnel = TEP_NO_TUNNEL;
			/* The gateway's family, not the packet's
			 * (RFC 5549). */
			pv->family_nh = (uint8_t)(gw ? tep_nh_gw_family(nh) :
						  family);
			memcpy(pv->nh_ip, to, pv->family_nh == 4 ? 4 : 16);
			dp_punt(w, m, TEP_PUNT_RESOLVE, family);
			continue;
		}
		set_macs(eth, mac, &op->mac);
		out[nout++] = m;
		ol_or |= m->ol_flags;
	}
	dp_tx_enqueue_run(w, nh->port, out, nout, ol_or);
	w->cnt->vrf[w->vrf].routed += nout;
	dp_fate_sent(w, cport, nout, false);
}

void
dp_forward(struct worker *w, struct rte_mbuf *m, const struct tep_nh *nh,
	   int family)
{
	dp_forward_burst(w, &m, 1, nh, family);
}
