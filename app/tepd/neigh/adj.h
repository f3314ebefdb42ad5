/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_ADJ_H
#define TEPD_ADJ_H

/*
 * Adjacencies (adj.c): the MAC of each gateway next hop, one word per
 * next-hop slot of the RIB, kept equal to the neighbour table by the
 * control thread; workers read it through the next hop the FIB gave.
 */

#include <stdint.h>

#include "tep_fib.h"
#include "tepd.h"

/* Control thread. tep_adj_nh_init is the RIB's conf.nh_init. */
void tep_adj_nh_init(struct tep_rib *r, uint32_t idx, void *arg);
/* The neighbour (port, family, ip) now has mac (0: gone or unresolved). */
void tep_adj_neigh_changed(uint16_t port, int family, const uint8_t *ip,
			   uint64_t mac);

/* Worker side: the MAC of next hop idx's gateway, 0 if unresolved. */
static inline uint64_t
tep_adj_mac(uint32_t idx)
{
	return __atomic_load_n(&tep_rib.nh_adj[idx], __ATOMIC_ACQUIRE);
}

#endif /* TEPD_ADJ_H */
