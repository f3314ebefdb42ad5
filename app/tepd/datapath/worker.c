/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * A worker lcore's loop: poll every port's RX queue of this worker, send
 * what the stages queued, report a quiescent state to RCU. The stages, in
 * packet order, are one file each (datapath.h lists them).
 */

#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "datapath.h"
#include "port.h"
#include "punt.h"
#include "stats.h"

/*
 * TEPD_RX_BURST=N (1 to TEP_BURST): a test knob, not a tuning one. With 1
 * every stage sees one packet at a time, the per-packet path that the
 * burst path must match packet for packet (tests/integration/
 * test_burst_equiv.sh; docs/architecture.md).
 */
static uint16_t
rx_burst_size(unsigned int idx)
{
	const char *s = getenv("TEPD_RX_BURST");
	char *end;
	unsigned long n;

	if (s == NULL || *s == '\0')
		return TEP_BURST;
	n = strtoul(s, &end, 10);
	if (*end != '\0' || n < 1 || n > TEP_BURST) {
		if (idx == 0)
			printf("tepd: TEPD_RX_BURST=%s ignored: 1 to %u\n",
			       s, (unsigned int)TEP_BURST);
		return TEP_BURST;
	}
	if (idx == 0)
		printf("tepd: TEPD_RX_BURST=%lu: RX bursts of at most %lu "
		       "packets (a test setting)\n", n, n);
	return (uint16_t)n;
}

int
tep_worker_main(void *arg)
{
	struct worker *w;
	unsigned int idx = (unsigned int)(uintptr_t)arg;
	uint16_t port;

	w = rte_zmalloc_socket("tep_worker", sizeof(*w), RTE_CACHE_LINE_SIZE,
			       (int)rte_socket_id());
	if (w == NULL)
		return -1;
	w->tun_cache = rte_zmalloc_socket("tep_tun_cache",
					  TUN_CACHE_SIZE * sizeof(*w->tun_cache),
					  RTE_CACHE_LINE_SIZE,
					  (int)rte_socket_id());
	if (w->tun_cache == NULL) {
		rte_free(w);
		return -1;
	}
	w->idx = idx;
	w->rx_burst = rx_burst_size(idx);
	w->cnt = tep_counters[rte_lcore_id()];
	w->ip_id = (uint16_t)(rte_rdtsc() ^ (idx << 12));
	w->src_tunnel = TEP_NO_TUNNEL;
	/* Each worker polices its share of the punt rate. */
	w->punt_interval = rte_get_tsc_hz() * tep.nb_workers / TEP_PUNT_RATE;
	w->punt_burst_tsc = w->punt_interval *
			    RTE_MAX(TEP_PUNT_BURST / tep.nb_workers, 1u) -
			    w->punt_interval;
	w->throttle_period = rte_get_tsc_hz() / 1000;
	rte_rcu_qsbr_thread_register(tep.rcu, idx);
	rte_rcu_qsbr_thread_online(tep.rcu, idx);

	while (!__atomic_load_n(&tep.quit, __ATOMIC_RELAXED)) {
		/* Ports may be added at run time: the control thread fills
		 * tep_ports[n] and then publishes nb_ports (release). */
		uint16_t nb_ports = __atomic_load_n(&tep_nb_ports,
						    __ATOMIC_ACQUIRE);
		unsigned int got = 0;

		for (port = 0; port < nb_ports; port++)
			if (__atomic_load_n(&tep_ports[port].polling,
					    __ATOMIC_ACQUIRE) &&
			    w->idx < tep_ports[port].nb_rxq)
				got += dp_rx_port(w, port);
		/* Busy vs idle polls: how loaded the worker is (it polls
		 * at 100 % CPU either way). */
		if (got != 0)
			w->cnt->polls_busy++;
		else
			w->cnt->polls_idle++;
		if (idx == 0)
			dp_ctl_tx_drain(w);
		for (port = 0; port < nb_ports; port++)
			dp_tx_flush(w, port);
		/* Nothing loaded from shared state survives this point. */
		rte_rcu_qsbr_quiescent(tep.rcu, idx);
	}
	rte_rcu_qsbr_thread_offline(tep.rcu, idx);
	rte_rcu_qsbr_thread_unregister(tep.rcu, idx);
	rte_free(w->tun_cache);
	rte_free(w);
	return 0;
}
