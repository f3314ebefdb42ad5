/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * TX: the per-port burst each worker fills is prepared for the device
 * (drivers/ offload adaptation or software completion, then the PMD's own
 * prepare) and sent. Worker 0 also sends what the control thread built.
 */

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "datapath.h"
#include "port.h"
#include "punt.h"
#include "stats.h"
#include "tunnel.h"

void
dp_tx_flush(struct worker *w, uint16_t port)
{
	struct txbuf *b = &w->tx[port];
	struct tep_port *p = &tep_ports[port];
	struct tep_txprep_stats st = { 0 };
	uint16_t n = b->n, ok, done = 0, sent, i;
	uint64_t t0 = tep.stats_cycles ? rte_rdtsc() : 0, bytes = 0, req;

	if (n == 0)
		return;
	b->n = 0;
	req = b->ol_flags & TEP_TXPREP_REQ_MASK;
	b->ol_flags = 0;
	if (!__atomic_load_n(&p->polling, __ATOMIC_ACQUIRE)) {
		w->cnt->port[port].drop[TEP_R_PORT_DOWN] += n;
		w->cnt->port[port].tx_dropped += n;
		rte_pktmbuf_free_bulk(b->m, n);
		return;
	}
	/* The one place offload metadata meets the device (drivers/). */
	ok = req != 0 ? tep_txprep_burst(&p->txcaps, b->m, n, &st) : n;
	for (i = ok; i < n; i++) {
		w->cnt->port[port].drop[TEP_R_BAD_TX_META]++;
		rte_pktmbuf_free(b->m[i]);
	}
	w->cnt->port[port].tx_dropped += (uint64_t)(n - ok);
	w->cnt->port[port].hw_csum += st.hw_inner_csum;
	w->cnt->port[port].sw_csum += st.sw_inner_csum;
	/* PMD prepare stops at the first packet it refuses. */
	while (done < ok) {
		uint16_t good = rte_eth_tx_prepare(port, (uint16_t)w->idx,
						   b->m + done,
						   (uint16_t)(ok - done));

		if (good == ok - done)
			break;
		w->cnt->port[port].drop[TEP_R_BAD_TX_META]++;
		w->cnt->port[port].tx_dropped++;
		rte_pktmbuf_free(b->m[done + good]);
		memmove(b->m + done + good, b->m + done + good + 1,
			(size_t)(ok - done - good - 1) * sizeof(b->m[0]));
		ok--;
		done += good;
	}
	if (tep.stats_cycles) {
		w->cnt->stage_cycles[TEP_ST_TXPREP] += rte_rdtsc() - t0;
		w->cnt->stage_pkts[TEP_ST_TXPREP] += n;
	}
	/* Bytes are summed before the burst: a PMD may free (and another
	 * lcore reuse) what it sent before rte_eth_tx_burst returns. */
	for (i = 0; i < ok; i++)
		bytes += b->m[i]->pkt_len;
	sent = rte_eth_tx_burst(port, (uint16_t)w->idx, b->m, ok);
	for (i = sent; i < ok; i++) {
		bytes -= b->m[i]->pkt_len;
		w->cnt->port[port].drop[TEP_R_TX_FULL]++;
		rte_pktmbuf_free(b->m[i]);
	}
	w->cnt->port[port].tx_dropped += (uint64_t)(ok - sent);
	w->cnt->port[port].tx_bytes += bytes;
	w->cnt->port[port].tx += sent;
}

/* A frame the control thread made for a sender behind a tunnel (an ICMP
 * error): into the tunnel, as an Ethernet frame or as the IP packet. */
static void
ctl_into_tunnel(struct worker *w, struct rte_mbuf *m, uint32_t id)
{
	const struct tep_tunnel *t = id < TEP_TUNNELS_MAX ?
		__atomic_load_n(&tep_tunnels[id], __ATOMIC_ACQUIRE) : NULL;

	if (t == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	if (!t->tmpl.inner_eth)
		rte_pktmbuf_adj(m, 14);
	dp_tunnel_answer(w, m, t, m->pkt_len);
}

/* Frames the control thread built (ARP, ND, ICMP, released held packets):
 * only workers own TX queues, so worker 0 sends them. */
void
dp_ctl_tx_drain(struct worker *w)
{
	struct rte_mbuf *m[TEP_BURST];
	unsigned int n, i;

	n = rte_ring_sc_dequeue_burst(tep.ctl_tx, (void **)m, TEP_BURST, NULL);
	for (i = 0; i < n; i++) {
		const struct tep_mbuf_priv *pv = tep_priv(m[i]);

		if (pv->tx_port == TEP_NO_PORT)
			ctl_into_tunnel(w, m[i], pv->tunnel);
		else
			dp_tx_enqueue(w, pv->tx_port, m[i]);
	}
}
