/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_NEXTHOP_H
#define TEPD_NEXTHOP_H

/*
 * Routes over several paths (nexthop.c): the next hop a multipath route
 * takes, made of its paths as a next-hop group of lib/fib (tep_nhg.h),
 * shared by every route with the same paths and weights; and the
 * dataplane's fast failover: a path whose port loses its link, or whose
 * gateway stops answering ARP/ND, leaves every group at once, before any
 * route changes, and comes back when it recovers.
 *
 * Control thread only. The workers see the result in the groups' bucket
 * tables (tep_nh_resolve()).
 */

#include <stdbool.h>
#include <stdint.h>

#include "tep_fib.h"
#include "tep_nhg.h"

/*
 * The next hop for a route over paths m[0..n): with one path, that next
 * hop (its weight ignored); with more, a group of them: the group with
 * exactly these members and weights if there is one, else a new one. The
 * group's own next hop takes proto, gen and fpm_bgp from `as`. 0 with
 * *out filled, or a positive errno with a message in err.
 *
 * A group made here that ends up named by no route (the route's install
 * failed) must be given back with tep_paths_released(out).
 */
int tep_paths_nh(const struct tep_nhg_member *m, unsigned int n,
		 const struct tep_nh *as, struct tep_nh *out, char *err,
		 size_t errlen);

/*
 * A route stopped naming nh (deleted, replaced, or never installed). If
 * nh is a group that no route names any more, the group is deleted and
 * its members copied to gone[0..return value) (at most cap), so that the
 * caller can release what they held (EVPN: a tunnel nobody uses). 0 for
 * a plain next hop or a group still in use.
 */
unsigned int tep_paths_released(const struct tep_nh *nh, struct tep_nh *gone,
				 unsigned int cap);

/*
 * Failover, run from the control loop every TEP_PATHS_TICK_MS:
 *  - ports: each port's link is polled, and a port whose link or admin
 *    state is down takes its paths out of every group at once;
 *  - gateways: a group member's gateway that has not been heard from
 *    for TEP_GW_PROBE_MS is probed (ARP or ND) every TEP_GW_PROBE_MS;
 *    after TEP_GW_MISSES probes unanswered its paths leave the groups,
 *    and come back the moment it answers.
 * Counted in tep_rib.nh_failovers / nh_recoveries, and per cause below.
 */
#define TEP_PATHS_TICK_MS	100
#define TEP_GW_PROBE_MS		1000
#define TEP_GW_MISSES		3

struct tep_paths_stats {
	uint64_t port_down, port_up;	/* link or admin changes seen */
	uint64_t gw_lost, gw_back;	/* gateways that stopped / resumed
					 * answering */
	uint32_t gw_watched;		/* gateways watched now */
	uint32_t gw_down;		/* of which unreachable */
};
extern struct tep_paths_stats tep_paths_stats;

void tep_paths_timer(void);

#endif /* TEPD_NEXTHOP_H */
