/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * The neighbour table that workers read lock-free (rte_hash with
 * RW_CONCURRENCY_LF, one writer: the control thread), its timers and
 * probes, and the packets held while a next hop's MAC resolves (a few per
 * neighbour, sent once it does, so a first ping is not lost).
 */

#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "tep_bytes.h"
#include "tep_csum.h"
#include "tepd.h"

#include "frames.h"
#include "neigh.h"
#include "adj.h"
#include "port.h"
#include "punt.h"
#include "stats.h"

#define ARP_HDR_LEN	28
#define PROBE_INTERVAL_MS 1000
#define PROBES_MAX	3
#define STALE_MS	(300 * 1000)

/* Each VRF's share of unresolved neighbours and held packets, so that a
 * tenant scanning its subnet cannot take the table or the pool from the
 * others (and from the underlay). */
struct rte_hash *tep_neigh_hash;
struct tep_neigh tep_neighs[TEP_NEIGH_MAX];

static uint16_t incomplete_in[TEP_VRF_MAX];
static uint16_t learned_in[TEP_VRF_MAX];	/* entries not static */
static uint16_t held_in[TEP_VRF_MAX];
static unsigned int held_total;

static uint64_t
ms_to_tsc(uint64_t ms)
{
	return ms * rte_get_tsc_hz() / 1000;
}

int
tep_neigh_init(char *err, size_t errlen)
{
	struct rte_hash_parameters hp = {
		.name = "tep_neigh",
		.entries = TEP_NEIGH_MAX,
		.key_len = sizeof(struct tep_neigh_key),
		.hash_func = rte_jhash,
		.socket_id = (int)rte_socket_id(),
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	};

	tep_neigh_hash = rte_hash_create(&hp);
	if (tep_neigh_hash == NULL) {
		snprintf(err, errlen, "neighbour table: out of memory");
		return -1;
	}
	return 0;
}

static void
mk_key(struct tep_neigh_key *k, uint16_t port, int family, const uint8_t *ip)
{
	memset(k, 0, sizeof(*k));
	k->port = port;
	k->family = (uint8_t)family;
	memcpy(k->ip, ip, family == 4 ? 4 : 16);
}

struct tep_neigh *
tep_neigh_lookup(uint16_t port, int family, const uint8_t *ip)
{
	struct tep_neigh_key k;
	void *data;

	mk_key(&k, port, family, ip);
	if (rte_hash_lookup_data(tep_neigh_hash, &k, &data) < 0)
		return NULL;
	return &tep_neighs[(uintptr_t)data];
}

/* A new, unresolved entry; learned ones (not an operator's) count against
 * the VRF's shares. */
static struct tep_neigh *
neigh_create(uint16_t port, int family, const uint8_t *ip, bool learned)
{
	uint16_t vrf = tep_ports[port].vrf;
	struct tep_neigh *n = NULL;
	uintptr_t i;

	if (learned && (incomplete_in[vrf] >= TEP_NEIGH_INCOMPLETE_VRF ||
			learned_in[vrf] >= TEP_NEIGH_VRF))
		return NULL;
	for (i = 0; i < TEP_NEIGH_MAX; i++) {
		if (!tep_neighs[i].used) {
			n = &tep_neighs[i];
			break;
		}
	}
	if (n == NULL)
		return NULL;
	memset(n, 0, sizeof(*n));
	mk_key(&n->key, port, family, ip);
	if (rte_hash_add_key_data(tep_neigh_hash, &n->key, (void *)i) < 0)
		return NULL;
	n->used = true;
	n->vrf = vrf;
	n->learned = learned;
	incomplete_in[vrf]++;
	learned_in[vrf] = (uint16_t)(learned_in[vrf] + learned);
	return n;
}

/*
 * The fate of a held packet, counted once, on the control lcore, for the
 * port it came in on: sent on (fwd, or decap when it came out of a
 * tunnel), or dropped as no_neigh (its neighbour never resolved, was
 * deleted or flushed, or the queue to worker 0 was full).
 */
static void
held_fate(uint16_t cport, uint16_t vrf, bool from_tunnel, bool sent)
{
	struct tep_cnt_port *c = &tep_counters[rte_lcore_id()]->port[cport];

	if (!sent) {
		c->drop[TEP_R_NO_NEIGH]++;
		tep_counters[rte_lcore_id()]->vrf[vrf].drop[TEP_R_NO_NEIGH]++;
	} else if (from_tunnel) {
		c->decap++;
	} else {
		c->fwd++;
	}
}

static void
held_drop(struct rte_mbuf *m)
{
	held_fate(tep_cnt_port_of(m), tep_priv(m)->vrf,
		  tep_priv(m)->from_tunnel != TEP_NO_TUNNEL, false);
	rte_pktmbuf_free(m);
}

/* Send a held packet (its MACs written) and count its fate. m may be
 * sent and freed by worker 0 before tep_ctl_send() returns: what the
 * count needs is read first. */
static void
held_send(uint16_t port, struct rte_mbuf *m)
{
	uint16_t cport = tep_cnt_port_of(m), vrf = tep_priv(m)->vrf;
	bool from_tunnel = tep_priv(m)->from_tunnel != TEP_NO_TUNNEL;

	held_fate(cport, vrf, from_tunnel, tep_ctl_send(port, m));
}

static void
neigh_release_held(struct tep_neigh *n)
{
	const struct tep_port *p = &tep_ports[n->key.port];
	uint8_t i;

	for (i = 0; i < n->nhold; i++) {
		struct rte_mbuf *m = n->hold[i];
		uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);

		memcpy(eth, &n->mac, 6);
		memcpy(eth + 6, p->mac.addr_bytes, 6);
		held_send(n->key.port, m);
	}
	held_in[n->vrf] = (uint16_t)(held_in[n->vrf] - n->nhold);
	held_total -= n->nhold;
	n->nhold = 0;
}

/*
 * Whether a neighbour on port may be a tunnel's egress, cached by every
 * worker (encap.c tunnel_egress: the default VRF's route to the remote
 * and that neighbour's MAC, cached only once resolved). Changing one
 * empties all those caches, so only a real change of such a neighbour
 * does; a refresh that confirms the MAC, or an access port's neighbour,
 * does not.
 */
static bool
neigh_feeds_egress(uint16_t port)
{
	return tep_ports[port].vrf == TEP_VRF_DEFAULT;
}

static void
neigh_free(struct tep_neigh *n)
{
	bool resolved;
	int32_t pos;
	uint8_t i;

	for (i = 0; i < n->nhold; i++)
		held_drop(n->hold[i]);
	held_in[n->vrf] = (uint16_t)(held_in[n->vrf] - n->nhold);
	held_total -= n->nhold;
	n->nhold = 0;
	if (n->mac == 0)
		incomplete_in[n->vrf]--;
	learned_in[n->vrf] = (uint16_t)(learned_in[n->vrf] - n->learned);
	/* Gone from the adjacencies first, as from the hash: after the
	 * grace period below no worker sends to it. */
	resolved = n->mac != 0;
	if (resolved)
		tep_adj_neigh_changed(n->key.port, n->key.family, n->key.ip, 0);
	pos = rte_hash_del_key(tep_neigh_hash, &n->key);
	/* Lock-free readers may still hold the slot: wait them out. */
	rte_rcu_qsbr_synchronize(tep.rcu, RTE_QSBR_THRID_INVALID);
	if (pos >= 0)
		rte_hash_free_key_with_position(tep_neigh_hash, pos);
	__atomic_store_n(&n->mac, 0, __ATOMIC_RELEASE);
	n->used = false;
	if (resolved && neigh_feeds_egress(n->key.port))
		tep_underlay_changed();
}

int
tep_neigh_set(uint16_t port, int family, const uint8_t *ip,
	      const struct rte_ether_addr *mac, bool is_static)
{
	struct tep_neigh *n = tep_neigh_lookup(port, family, ip);
	uint64_t v = 0, old;

	if (n == NULL)
		n = neigh_create(port, family, ip, !is_static);
	if (n == NULL)
		return -1;
	if (n->is_static && !is_static)
		return 0;	/* learning never overrides an operator entry */
	memcpy(&v, mac->addr_bytes, 6);
	old = n->mac;
	if (old == 0)
		incomplete_in[n->vrf]--;
	if (old != v)
		tep_adj_neigh_changed(port, family, ip, v);
	__atomic_store_n(&n->mac, v, __ATOMIC_RELEASE);
	n->is_static = is_static;
	if (is_static && n->learned) {	/* the operator's now */
		learned_in[n->vrf]--;
		n->learned = 0;
	}
	n->updated = rte_rdtsc();
	n->probes = 0;
	neigh_release_held(n);
	/* An unresolved neighbour was never cached (its MAC was 0). */
	if (old != 0 && old != v && neigh_feeds_egress(port))
		tep_underlay_changed();
	return 0;
}

int
tep_neigh_del(uint16_t port, int family, const uint8_t *ip)
{
	struct tep_neigh *n = tep_neigh_lookup(port, family, ip);

	if (n == NULL)
		return -1;
	neigh_free(n);
	return 0;
}

void
tep_neigh_flush_port(uint16_t port)
{
	int i;

	for (i = 0; i < TEP_NEIGH_MAX; i++)
		if (tep_neighs[i].used && tep_neighs[i].key.port == port)
			neigh_free(&tep_neighs[i]);
}

static void
neigh_probe(struct tep_neigh *n)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[6];

	n->probed = rte_rdtsc();
	n->probes++;
	if (n->key.family == 4)
		send_arp(n->key.port, 1, NULL, zero, n->key.ip, bcast);
	else
		send_ns(n->key.port, n->key.ip);
}

void
tep_neigh_probe(uint16_t port, int family, const uint8_t *ip)
{
	struct tep_neigh *n = tep_neigh_lookup(port, family, ip);

	if (n == NULL)
		n = neigh_create(port, family, ip, true);
	if (n != NULL && !n->is_static)
		neigh_probe(n);
}

/* A packet waiting for its next hop's MAC. Returns true if it was kept. */
bool
tep_neigh_hold(struct rte_mbuf *m)
{
	struct tep_mbuf_priv *pv = tep_priv(m);
	struct tep_neigh *n = tep_neigh_lookup(pv->tx_port, pv->family_nh,
					   pv->nh_ip);

	if (n == NULL)
		n = neigh_create(pv->tx_port, pv->family_nh, pv->nh_ip, true);
	if (n == NULL) {
		pv->punt = TEP_PUNT_NONE;	/* counted as hold_limit */
		return false;
	}
	if (n->mac != 0) {	/* resolved meanwhile */
		if (pv->tunnel != TEP_NO_TUNNEL)
			return false;
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), &n->mac, 6);
		memcpy(rte_pktmbuf_mtod(m, uint8_t *) + 6,
		       tep_ports[n->key.port].mac.addr_bytes, 6);
		held_send(n->key.port, m);
		return true;
	}
	if (n->probes == 0 || rte_rdtsc() - n->probed >
	    ms_to_tsc(PROBE_INTERVAL_MS))
		neigh_probe(n);
	/* Held packets have their IP header final; encapsulation cannot be
	 * redone here, so tunnel traffic is not held. */
	if (pv->tunnel != TEP_NO_TUNNEL || n->nhold >= TEP_NEIGH_HOLD)
		return false;
	if (held_in[n->vrf] >= TEP_HOLD_VRF || held_total >= TEP_HOLD_MAX) {
		pv->punt = TEP_PUNT_NONE;	/* counted as hold_limit */
		return false;
	}
	n->hold[n->nhold++] = m;
	held_in[n->vrf]++;
	held_total++;
	return true;
}

/* Re-probe unresolved neighbours; give up (and drop what they hold) after
 * PROBES_MAX tries. Learned entries are re-probed once stale. */
void
tep_neigh_timer(void)
{
	uint64_t now = rte_rdtsc();
	int i;

	for (i = 0; i < TEP_NEIGH_MAX; i++) {
		struct tep_neigh *n = &tep_neighs[i];

		if (!n->used || n->is_static)
			continue;
		if (n->mac == 0) {
			if (now - n->probed < ms_to_tsc(PROBE_INTERVAL_MS))
				continue;
			if (n->probes >= PROBES_MAX)
				neigh_free(n);
			else
				neigh_probe(n);
		} else if (now - n->updated > ms_to_tsc(STALE_MS) &&
			   now - n->probed > ms_to_tsc(PROBE_INTERVAL_MS)) {
			neigh_probe(n);
		}
	}
}
