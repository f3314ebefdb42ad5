/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_NEIGH_H
#define TEPD_NEIGH_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

struct tep_neigh *neigh_lookup(uint16_t port, int family, const uint8_t *ip);
/* A packet waiting for its next hop's MAC. Returns true if it was kept. */
bool on_resolve(struct rte_mbuf *m);

#endif /* TEPD_NEIGH_H */
