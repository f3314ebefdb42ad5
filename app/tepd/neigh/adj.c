/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Adjacencies: for each gateway next hop, the MAC of its neighbour, kept
 * by the control thread in the RIB's per-next-hop word (tep_rib.nh_adj)
 * so that a worker forwarding to a gateway reads it through the next-hop
 * index the FIB gave it, not through a neighbour hash lookup per packet
 * (as a VPP adjacency or a Linux neighbour's cached header does). 0 is
 * unresolved: the packet is punted to be resolved, as before.
 *
 * Kept in step with the neighbour table from two sides: a next hop taking
 * a RIB slot reads its gateway's entry (tep_adj_nh_init), and a neighbour
 * whose MAC changes, appears or goes updates every gateway next hop on it
 * (tep_adj_neigh_changed). Both run on the control thread, the only
 * writer of the RIB and of the neighbour table. A worker that reads a MAC
 * just replaced sends one packet to the old one, as it would have with the
 * hash: the store is one atomic word, never half of each.
 */

#include "tepd.h"
#include "adj.h"
#include "neigh.h"

static bool
adj_is_gw(const struct tep_rib *r, uint32_t idx, uint16_t port, int family,
	  const uint8_t *ip)
{
	const struct tep_nh *nh = &r->nh[idx];

	return r->nh_ref[idx] != 0 && nh->type == TEP_NHT_GW &&
	       nh->port == port && tep_nh_gw_family(nh) == family &&
	       memcmp(nh->gw, ip, family == 4 ? 4 : 16) == 0;
}

void
tep_adj_nh_init(struct tep_rib *r, uint32_t idx, void *arg)
{
	const struct tep_nh *nh = &r->nh[idx];

	RTE_SET_USED(arg);
	if (nh->type != TEP_NHT_GW)
		return;
	__atomic_store_n(&r->nh_adj[idx],
			 tep_neigh_mac(nh->port, tep_nh_gw_family(nh), nh->gw),
			 __ATOMIC_RELEASE);
}

void
tep_adj_neigh_changed(uint16_t port, int family, const uint8_t *ip,
		      uint64_t mac)
{
	struct tep_rib *r = &tep_rib;
	uint32_t i;

	/* Every slot is looked at: a neighbour change is rare next to
	 * the packets, and 32767 slots take microseconds. */
	for (i = 1; i <= TEP_NH_MAX; i++)
		if (adj_is_gw(r, i, port, family, ip))
			__atomic_store_n(&r->nh_adj[i], mac, __ATOMIC_RELEASE);
}
