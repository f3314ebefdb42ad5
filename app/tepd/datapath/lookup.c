/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Lookup and dispatch: one rte_fib/rte_fib6 bulk lookup per (VRF, family)
 * group of the burst, then each packet to its next hop's stage: encap,
 * forward, decap (for us, from the underlay), host delivery or punt.
 * Decapsulated packets come back here once, in their tunnel's VRF.
 */

#include <rte_cycles.h>
#include <rte_fib.h>
#include <rte_fib6.h>

#include "tep_nhg.h"

#include "datapath.h"
#include "port.h"
#include "punt.h"
#include "stats.h"
#include "vrfhost.h"

/*
 * The VRF's addresses belong to the tasks in the VRF (vrfhost.c): a packet
 * for one of them goes to the VRF's host port, as if to a host on a
 * connected link, unless it came from there.
 */
static bool
host_deliver(struct worker *w, struct rte_mbuf *m, int family)
{
	uint16_t hp = __atomic_load_n(&tep_vrf_host_port[w->vrf],
				      __ATOMIC_ACQUIRE);
	struct tep_nh nh = { .type = TEP_NHT_CONNECTED };

	if (likely(hp == TEP_NO_PORT) || hp == m->port)
		return false;
	nh.port = hp;
	dp_forward(w, m, &nh, family);
	return true;
}

/*
 * The hash that picks a multipath route's path for m: the NIC's RSS hash
 * when it gave one (over the same addresses and ports), else tepd's own
 * over the IP header l3 describes (at offset 14, as the lookup keys).
 */
static inline uint32_t
flow_hash(const struct rte_mbuf *m, const struct tep_l3_info *l3)
{
	struct tep_l3_info x = *l3;

	if (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH)
		return m->hash.rss;
	if (x.l3_len == 0)	/* header length unknown: addresses only */
		x.l4_usable = 0;
	return tep_flow_hash_ip(rte_pktmbuf_mtod_offset(m, const uint8_t *, 14),
				m->data_len > 14 ? m->data_len - 14u : 0, &x);
}

/* Multipath routes: each packet to the path its flow hash picks, so that
 * later stages see plain next hops. Out of line: most bursts have none. */
static __rte_noinline void
resolve_groups(struct rte_mbuf **pkts, const struct tep_l3_info *l3,
	       uint64_t *nhs, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		if (tep_rib.nh[nhs[i]].type == TEP_NHT_GROUP)
			nhs[i] = tep_nh_resolve(&tep_rib, (uint32_t)nhs[i],
						flow_hash(pkts[i], &l3[i]));
}

static void
dispatch(struct worker *w, struct rte_mbuf *m, const struct tep_l3_info *l3,
	 uint64_t idx, int family, bool decapsulated, struct rte_mbuf **again,
	 struct dp_meta *amd, uint16_t *nagain)
{
	const struct tep_nh *nh = &tep_rib.nh[idx];
	int ret;

	if (idx == TEP_NH_NONE) {
		dp_drop(w, m, TEP_R_NO_ROUTE);
		return;
	}
	if (unlikely(m->ol_flags & RTE_MBUF_F_RX_LRO) &&
	    (nh->type == TEP_NHT_GW || nh->type == TEP_NHT_CONNECTED ||
	     nh->type == TEP_NHT_TUNNEL)) {
		dp_gso_dispatch(w, m, nh, family);
		return;
	}
	switch (nh->type) {
	case TEP_NHT_GW:
	case TEP_NHT_CONNECTED:
		dp_forward(w, m, nh, family);
		return;
	case TEP_NHT_TUNNEL:
		dp_encap(w, m, nh, family);
		return;
	case TEP_NHT_BLACKHOLE:
		dp_drop(w, m, TEP_R_BLACKHOLE);
		return;
	case TEP_NHT_LOCAL:
		/* Only UDP and GRE can carry a tunnel: ICMP, TCP (BGP to the
		 * -H host side) and the rest are for the host side or the
		 * echo responder, as on any port. */
		if (!decapsulated &&
		    tep_ports[m->port].role == TEP_ROLE_UNDERLAY &&
		    (l3->l4_proto == 17 || l3->l4_proto == 47)) {
			ret = dp_decap(w, m, l3, &amd->vrf[*nagain],
				       &amd->tun[*nagain]);
			if (ret > 0) {
				again[(*nagain)++] = m;
				return;
			}
			if (ret < 0)
				return;
		}
		if (host_deliver(w, m, family))
			return;
		dp_punt(w, m, TEP_PUNT_LOCAL, family);
		return;
	default:
		dp_drop(w, m, TEP_R_NO_ROUTE);
	}
}

/*
 * Look a burst up: one bulk call per (VRF, family) group, gathered in
 * arrival order. A burst from one port is one VRF and almost always one
 * family, so this is nearly always a single call. md describes pkts.
 */
void
dp_route(struct worker *w, struct rte_mbuf **pkts, const struct dp_meta *md,
	 uint16_t n, bool decapsulated)
{
	struct rte_mbuf *grp[TEP_BURST], *again[TEP_BURST];
	uint32_t grp_tun[TEP_BURST];
	struct tep_l3_info grp_l3[TEP_BURST];
	struct dp_meta amd;	/* of the decapsulated packets, again[] */
	uint16_t ng, nagain = 0, left = n, i;
	uint32_t keys4[TEP_BURST];
	uint8_t keys6[TEP_BURST][16];
	uint64_t nhs[TEP_BURST];
	bool done[TEP_BURST] = { false };
	/* The decapsulated packets' pass is timed whole, as stage inner, by
	 * the pass that decapsulated them. */
	bool timed = tep.stats_cycles && !decapsulated;
	uint64_t t0 = timed ? rte_rdtsc() : 0;

	while (left > 0) {
		const struct tep_vrf *v;
		uint16_t vrf = 0;
		int family = 0;

		ng = 0;
		for (i = 0; i < n; i++) {
			const uint8_t *ip;

			if (done[i])
				continue;
			if (ng == 0) {
				vrf = md->vrf[i];
				family = md->l3[i].family;
			} else if (md->vrf[i] != vrf ||
				   md->l3[i].family != family) {
				continue;
			}
			ip = rte_pktmbuf_mtod_offset(pkts[i], const uint8_t *,
						     14);
			if (family == 4)
				keys4[ng] = tep_rd32(ip + 16);
			else
				memcpy(keys6[ng], ip + 24, 16);
			grp_tun[ng] = md->tun[i];
			grp_l3[ng] = md->l3[i];
			grp[ng++] = pkts[i];
			done[i] = true;
		}
		left = (uint16_t)(left - ng);
		w->vrf = vrf;
		v = __atomic_load_n(&tep_rib.vrf[vrf], __ATOMIC_ACQUIRE);
		if (v == NULL) {
			for (i = 0; i < ng; i++)
				dp_drop(w, grp[i], TEP_R_NO_ROUTE);
			continue;
		}
		if (family == 4)
			rte_fib_lookup_bulk(__atomic_load_n(&v->fib4,
					    __ATOMIC_ACQUIRE), keys4, nhs, ng);
		else
			rte_fib6_lookup_bulk(__atomic_load_n(&v->fib6,
					      __ATOMIC_ACQUIRE), keys6, nhs, ng);
		if (__atomic_load_n(&tep_rib.nhg_count, __ATOMIC_RELAXED) != 0)
			resolve_groups(grp, grp_l3, nhs, ng);
		if (timed) {
			uint64_t t1 = rte_rdtsc();

			w->cnt->stage_cycles[TEP_ST_LOOKUP] += t1 - t0;
			w->cnt->stage_pkts[TEP_ST_LOOKUP] += ng;
			t0 = t1;
		}
		for (i = 0; i < ng; ) {
			uint16_t j = (uint16_t)(i + 1);
			const struct tep_nh *nh = &tep_rib.nh[nhs[i]];
			bool run = nhs[i] != TEP_NH_NONE &&
				   (nh->type == TEP_NHT_TUNNEL ||
				    nh->type == TEP_NHT_GW ||
				    nh->type == TEP_NHT_CONNECTED) &&
				   !(grp[i]->ol_flags & RTE_MBUF_F_RX_LRO);

			w->src_tunnel = grp_tun[i];
			/* A run of packets to one next hop, out of one tunnel
			 * (a burst mostly is one), is encapsulated or
			 * forwarded together. */
			if (run) {
				bool mixed = false;

				while (j < ng && nhs[j] == nhs[i] &&
				       grp_tun[j] == grp_tun[i] &&
				       !(grp[j]->ol_flags & RTE_MBUF_F_RX_LRO))
					j++;
				/* Into other tunnels as well: one run of
				 * them all (many tunnels, few packets
				 * each). */
				while (nh->type == TEP_NHT_TUNNEL && j < ng &&
				       nhs[j] != TEP_NH_NONE &&
				       tep_rib.nh[nhs[j]].type ==
				       TEP_NHT_TUNNEL &&
				       grp_tun[j] == grp_tun[i] &&
				       !(grp[j]->ol_flags & RTE_MBUF_F_RX_LRO)) {
					mixed = true;
					j++;
				}
				if (mixed)
					dp_encap_mixed(w, grp + i, grp_l3 + i,
						       nhs + i,
						       (uint16_t)(j - i),
						       family);
				else if (nh->type == TEP_NHT_TUNNEL)
					dp_encap_burst(w, grp + i, grp_l3 + i,
						       (uint16_t)(j - i), nh,
						       family);
				else
					dp_forward_burst(w, grp + i,
							 (uint16_t)(j - i), nh,
							 family);
			} else {
				dispatch(w, grp[i], &grp_l3[i], nhs[i], family,
					 decapsulated, again, &amd, &nagain);
			}
			i = j;
		}
		w->src_tunnel = TEP_NO_TUNNEL;
		if (timed) {
			uint64_t t1 = rte_rdtsc();

			w->cnt->stage_cycles[TEP_ST_ENCAP] += t1 - t0;
			w->cnt->stage_pkts[TEP_ST_ENCAP] += ng;
			t0 = t1;
		}
	}

	if (nagain > 0) {
		uint16_t k = 0;

		/* Decapsulated: classify the inner packet, route it in its
		 * tunnel's VRF (and never decapsulate it again). */
		for (i = 0; i < nagain; i++) {
			w->vrf = amd.vrf[i];
			if (dp_classify(w, again[i], true, &amd.l3[k]) != 0) {
				amd.vrf[k] = amd.vrf[i];
				amd.tun[k] = amd.tun[i];
				again[k++] = again[i];
			}
		}
		if (k > 0)
			dp_route(w, again, &amd, k, true);
		if (timed) {
			w->cnt->stage_cycles[TEP_ST_INNER] += rte_rdtsc() - t0;
			w->cnt->stage_pkts[TEP_ST_INNER] += nagain;
		}
	}
}
