/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_NEIGH_H
#define TEPD_NEIGH_H

/*
 * The neighbour table (neigh.c): (port, address) -> MAC. The control
 * thread writes it (ARP, ND, static entries, timers); workers read it
 * lock-free (rte_hash with RW_CONCURRENCY_LF, the MAC one atomic word).
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_hash.h>
#include <rte_mbuf.h>

#include "tepd.h"

/* The control thread's shares per VRF: unresolved neighbours, and packets
 * held while they resolve. */
#define TEP_NEIGH_INCOMPLETE_VRF	256
#define TEP_NEIGH_VRF		1024
#define TEP_HOLD_VRF		256

/* ---- neighbours --------------------------------------------------------- */

struct tep_neigh_key {
	uint16_t port;
	uint8_t family;
	uint8_t pad;
	uint8_t ip[16];
};

struct tep_neigh {
	uint64_t mac;		/* 48 bits, 0 = unresolved; atomic for workers */
	/* control only */
	struct tep_neigh_key key;
	uint16_t vrf;		/* the port's at creation (a port changing
				 * VRF flushes its neighbours) */
	uint8_t is_static;
	uint8_t learned;	/* counted in the VRF's share */
	uint8_t probes;
	uint64_t updated;	/* tsc */
	uint64_t probed;
	struct rte_mbuf *hold[TEP_NEIGH_HOLD];
	uint8_t nhold;
	bool used;
};

extern struct rte_hash *tep_neigh_hash;			/* key -> index, LF */
extern struct tep_neigh tep_neighs[TEP_NEIGH_MAX];

/* Control thread only. */
int tep_neigh_init(char *err, size_t errlen);
int tep_neigh_set(uint16_t port, int family, const uint8_t *ip,
		  const struct rte_ether_addr *mac, bool is_static);
int tep_neigh_del(uint16_t port, int family, const uint8_t *ip);
void tep_neigh_flush_port(uint16_t port);
void tep_neigh_timer(void);
struct tep_neigh *tep_neigh_lookup(uint16_t port, int family,
				   const uint8_t *ip);
/* Probe (port, family, ip) now, with an ARP request or a neighbour
 * solicitation, making an entry for it if there is none: somebody
 * (route/nexthop.c) wants to know whether it still answers. */
void tep_neigh_probe(uint16_t port, int family, const uint8_t *ip);
/* A punted packet waiting for its next hop's MAC: held until it
 * resolves. Returns true if it was kept. */
bool tep_neigh_hold(struct rte_mbuf *m);

/* Worker-side neighbour lookup: MAC as 48-bit value, 0 if unresolved. */
static inline uint64_t
tep_neigh_mac(uint16_t port, int family, const uint8_t *ip)
{
	struct tep_neigh_key k;
	void *data;

	memset(&k, 0, sizeof(k));
	k.port = port;
	k.family = (uint8_t)family;
	memcpy(k.ip, ip, family == 4 ? 4 : 16);
	if (rte_hash_lookup_data(tep_neigh_hash, &k, &data) < 0)
		return 0;
	return __atomic_load_n(&tep_neighs[(uintptr_t)data].mac,
			       __ATOMIC_ACQUIRE);
}

#endif /* TEPD_NEIGH_H */
