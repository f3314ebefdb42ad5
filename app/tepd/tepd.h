/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_H
#define TEPD_H

/*
 * What is global to tepd's process: its limits, the RCU domain, the mbuf
 * pools and rings between the threads, the workers, and every VRF's
 * routes. Each object's state is in its own folder's header (port/port.h,
 * tunnel/tunnel.h, neigh/neigh.h, stats/stats.h, ...). One control thread
 * (the EAL main lcore) writes all of it; worker lcores read it without
 * locks. Objects workers can see are published by a release store of their
 * pointer and retired only after an RCU grace period (tep.rcu), so a
 * worker that loaded a pointer may use it until its next quiescent state
 * (once per poll loop).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "tep_fib.h"

#define TEP_BURST		32
#define TEP_BURST_HIST		6	/* log2(TEP_BURST) + 1 buckets */
#define TEP_MAX_WORKERS		16
#define TEP_PORTS_MAX		RTE_MAX_ETHPORTS
#define TEP_TUNNELS_MAX		1024
#define TEP_ADDRS_MAX		8
#define TEP_NAME_MAX		32
#define TEP_NEIGH_MAX		4096
#define TEP_NEIGH_HOLD		4	/* packets held while resolving */
#define TEP_HOLD_MAX		1024	/* ... in all */
#define TEP_RX_DESC		1024	/* descriptors per queue */
#define TEP_TX_DESC		1024
/* A VRF's host port carries control-plane traffic (vrfhost.c): small
 * rings, so that each VRF holds 128 mbufs of the pool, not 1024. */
#define TEP_HOST_DESC		128
#define TEP_PUNT_RING		4096
#define TEP_CTL_TX_RING		1024
#define TEP_NO_TUNNEL		UINT32_MAX
#define TEP_NO_PORT		UINT16_MAX
/* Counter slot for frames tepd built itself (ARP, ND, ICMP errors): they
 * arrived on no port (m->port is RTE_MBUF_PORT_INVALID). */
#define TEP_PORT_CTL		TEP_PORTS_MAX

/* ---- the process ---------------------------------------------------------- */

struct tepd {
	volatile bool quit;
	struct rte_rcu_qsbr *rcu;
	struct rte_mempool *pool;
	/* Large buffers for the RX queues of ports that cannot scatter and
	 * take frames longer than pool's (net_af_packet framesz > 2048). */
	struct rte_mempool *jumbo_pool;
	uint16_t mbuf_data;	/* -B: data bytes per mbuf; 0: 2048 */
	struct rte_ring *punt;		/* workers -> control */
	struct rte_ring *ctl_tx;	/* control -> worker 0 -> TX */
	uint32_t underlay_gen;		/* bumped when tunnel egress may change */
	unsigned int nb_workers;
	unsigned int worker_lcore[TEP_MAX_WORKERS];
	int host_netns_fd;		/* the namespace tepd started in */
	uint64_t started_tsc;
	bool stats_cycles;	/* per-stage cycle counting on */
};

extern struct tepd tep;

/* Every VRF's routes and next hops (lib/fib). The control thread writes
 * it; workers look up with rte_fib under RCU. */
extern struct tep_rib tep_rib;

/* Tunnel egress (the underlay next hop of a tunnel's remote) may have
 * changed: workers drop what they cached of it. */
static inline void
tep_underlay_changed(void)
{
	__atomic_add_fetch(&tep.underlay_gen, 1, __ATOMIC_RELEASE);
}

#endif /* TEPD_H */
