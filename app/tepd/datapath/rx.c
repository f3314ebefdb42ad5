/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * RX: a burst from one port, L2 filter, header pull-up for chains, then
 * classification (classify.h: IP header checks, ARP/ND punted); what is
 * left goes to the lookup stage with its VRF and family.
 */

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_prefetch.h>

#include "tep_chain.h"
#include "classify.h"
#include "datapath.h"
#include "port.h"
#include "punt.h"
#include "stats.h"

#define RX_PREFETCH	4	/* packets ahead whose headers are prefetched */

uint16_t
dp_rx_port(struct worker *w, uint16_t port)
{
	struct rte_mbuf *pkts[TEP_BURST];
	const struct tep_port *p = &tep_ports[port];
	uint16_t n, i, k = 0;
	struct dp_meta md;
	uint64_t t0, rx_bytes = 0, csum_pending = 0;

	n = rte_eth_rx_burst(port, (uint16_t)w->idx, pkts, w->rx_burst);
	if (n == 0)
		return 0;
	t0 = tep.stats_cycles ? rte_rdtsc() : 0;
	w->cnt->bursts++;
	w->cnt->burst_hist[tep_burst_bucket(n)]++;
	w->cnt->port[port].rx += n;
	w->vrf = p->vrf;
	for (i = 0; i < n && i < RX_PREFETCH; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		/* Headers of a packet a few ahead: from a NIC they come
		 * straight from DMA, not from cache. */
		if (i + RX_PREFETCH < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + RX_PREFETCH],
						       void *));

		rx_bytes += m->pkt_len;
		csum_pending += (m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
				RTE_MBUF_F_RX_L4_CKSUM_NONE;
		if (!p->up || p->role == TEP_ROLE_NONE) {
			dp_drop(w, m, TEP_R_PORT_DOWN);
			continue;
		}
		if (unlikely(m->data_len < 14 ||
			     !l2_for_us(rte_pktmbuf_mtod(m, uint8_t *),
					p->mac64))) {
			dp_drop(w, m, m->data_len < 14 ? TEP_R_TRUNCATED :
				   TEP_R_NOT_FOR_US);
			continue;
		}
		/* Every stage reads headers in the first segment only: a
		 * chain (jumbo frame, scattered RX) must have them there. */
		if (unlikely(m->next != NULL) &&
		    tep_chain_pullup(m, TEP_CHAIN_HDR_ROOM) != 0) {
			dp_drop(w, m, TEP_R_HDR_SPLIT);
			continue;
		}
		if (classify(w, m, false, &md.l3[k]) != 0) {
			md.vrf[k] = w->vrf;
			md.tun[k] = TEP_NO_TUNNEL;
			pkts[k++] = m;
		}
	}
	/* Counted once per burst: the counters' cache lines are written
	 * once, not once per packet. */
	w->cnt->port[port].rx_bytes += rx_bytes;
	w->cnt->port[port].rx_csum_pending += csum_pending;
	if (tep.stats_cycles) {
		w->cnt->stage_cycles[TEP_ST_CLASSIFY] += rte_rdtsc() - t0;
		w->cnt->stage_pkts[TEP_ST_CLASSIFY] += n;
	}
	if (k > 0)
		dp_route(w, pkts, &md, k, false);
	return n;
}
