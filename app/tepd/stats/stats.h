/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_STATS_H
#define TEPD_STATS_H

/*
 * Counters (stats.c): per lcore, written only by their lcore (workers,
 * and the control thread for what it sends), summed by readers: raw since
 * start for /metrics and telemetry, since `stats clear` for tepctl.
 */

#include <stdint.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "tep_fib.h"
#include "tep_reason.h"
#include "tep_rxcsum.h"
#include "tepd.h"

/* ---- counters (per lcore, summed when read) ----------------------------- */

struct tep_cnt_port {
	uint64_t rx, tx, rx_bytes, tx_bytes;
	uint64_t drop[TEP_R_MAX];
	uint64_t hw_csum, sw_csum;
	uint64_t rx_csum_pending;	/* arrived with the checksum left to us */
	uint64_t gso_pkts, gso_segs;	/* super-packets segmented, segments */
	uint64_t tx_csum_partial;	/* verified, handed on as partial */
	uint64_t frag_pkts, frags;	/* IPv4 datagrams fragmented, pieces */
	/* What became of the packets received on the port (its fates),
	 * counted once per run where a stage handles a run: sent on
	 * (forwarded; encapsulated; decapsulated, then sent on; a
	 * decapsulated ARP/NS answered back into its tunnel counts as
	 * decap) or handled by the control thread (punt: answered, or
	 * consumed). A packet held while its neighbour resolves counts when
	 * it leaves (fwd, or decap) or is dropped (drop_no_neigh). */
	uint64_t fwd, encap, decap, punt;
	/* Of drop[], those counted at TX on this port (tx_full, bad_tx_meta,
	 * port_down at flush): packets that came in on another port and
	 * already counted a fate there. */
	uint64_t tx_dropped;
};

/*
 * The accounting gap of a port: what was received (plus the extra
 * pieces tepd made: fragments, GSO segments, each then with its own fate)
 * minus every fate and every drop counted on receive. 0 once nothing is
 * in flight (RX bursts being handled, the punt ring, held packets).
 */
static inline int64_t
tep_cnt_port_gap(const struct tep_cnt_port *c)
{
	uint64_t in = c->rx + (c->frags - c->frag_pkts) +
		      (c->gso_segs - c->gso_pkts);
	uint64_t out = c->fwd + c->encap + c->decap + c->punt;
	int r;

	for (r = 1; r < TEP_R_MAX; r++)
		out += c->drop[r];
	return (int64_t)(in - (out - c->tx_dropped));
}

struct tep_cnt_vrf {
	uint64_t routed;
	uint64_t drop[TEP_R_MAX];
};

struct tep_cnt_tun {
	uint64_t encap, decap, encap_bytes, decap_bytes;
	uint64_t ocsum[4];	/* by enum tep_ocsum */
	uint64_t decap_inner_ok;	/* inner L4 checksum derived good */
	/* Of the packets decapsulated from a UDP tunnel, what the PMD said
	 * of the outer UDP checksum, by enum tep_rxv (drivers/tep_rxcsum.h);
	 * and how many the NIC found good inside (docs/drivers.md). */
	uint64_t decap_outer_rxv[4];
	uint64_t decap_inner_nic_good;
	uint64_t proxy_answers;		/* ARP/NS through it answered */
	uint64_t drop[TEP_R_MAX];
};

/* Pipeline stages timed by tepd -C. classify, lookup and encap (the
 * dispatch to encap, forward or decap) count each received packet once;
 * inner counts each decapsulated packet once, for all that follows its
 * decapsulation (inner classify, lookup in the tunnel's VRF, dispatch). */
enum tep_stage { TEP_ST_CLASSIFY, TEP_ST_LOOKUP, TEP_ST_ENCAP, TEP_ST_INNER,
		 TEP_ST_TXPREP, TEP_ST_MAX };

struct tep_lcore_cnt {
	struct tep_cnt_port port[TEP_PORTS_MAX + 1];	/* + TEP_PORT_CTL */
	struct tep_cnt_vrf vrf[TEP_VRF_MAX];
	struct tep_cnt_tun tun[TEP_TUNNELS_MAX];
	uint64_t stage_cycles[TEP_ST_MAX];
	uint64_t stage_pkts[TEP_ST_MAX];
	uint64_t bursts;		/* RX bursts that brought packets */
	uint64_t polls_busy;		/* poll loops that received packets */
	uint64_t polls_idle;		/* poll loops that received none */
	uint64_t burst_hist[TEP_BURST_HIST];	/* see tep_burst_bucket() */
} __rte_cache_aligned;

/* The counter slot of the port m came in on. */
static inline uint16_t
tep_cnt_port_of(const struct rte_mbuf *m)
{
	return likely(m->port < TEP_PORTS_MAX) ? m->port : TEP_PORT_CTL;
}

/* RX burst sizes by powers of two: 1, 2-3, 4-7, 8-15, 16-31, and full. */
static inline unsigned int
tep_burst_bucket(uint16_t n)
{
	unsigned int b = 31u - (unsigned int)__builtin_clz(n);	/* n > 0 */

	return b < TEP_BURST_HIST ? b : TEP_BURST_HIST - 1;
}

/* Each lcore's counters (allocated at start by main.c). */
extern struct tep_lcore_cnt *tep_counters[RTE_MAX_LCORE];

/* Since start, monotonic (/metrics, telemetry): */
void tep_cnt_raw_port(uint16_t port, struct tep_cnt_port *out);
void tep_cnt_raw_vrf(uint16_t vrf, struct tep_cnt_vrf *out);
void tep_cnt_raw_tun(uint32_t id, struct tep_cnt_tun *out);
void tep_cnt_raw_stages(uint64_t *cycles, uint64_t *pkts);
/* Since the last "stats clear" (tepctl); control thread only: */
void tep_cnt_sum_port(uint16_t port, struct tep_cnt_port *out);
void tep_cnt_sum_vrf(uint16_t vrf, struct tep_cnt_vrf *out);
void tep_cnt_sum_tun(uint32_t id, struct tep_cnt_tun *out);
void tep_cnt_sum_stages(uint64_t *cycles, uint64_t *pkts);
void tep_cnt_clear(void);
void tep_cnt_tun_reset(uint32_t id);
const char *tep_stage_name(enum tep_stage s);

#endif /* TEPD_STATS_H */
