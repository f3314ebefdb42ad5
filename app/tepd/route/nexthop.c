/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Multipath routes' next-hop groups, and the failover that takes a dead
 * path out of every group before the control plane reacts (nexthop.h).
 */

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "nexthop.h"
#include "neigh.h"
#include "port.h"
#include "tepd.h"

struct tep_paths_stats tep_paths_stats;

/* A group member's gateway being watched. */
struct gw_watch {
	uint16_t port;
	uint8_t family;
	uint8_t ip[16];
	uint64_t probed;	/* tsc of our last probe, 0: none yet */
	uint8_t misses;		/* probes in a row left unanswered */
	bool down;
	bool seen;		/* still a member's gateway (rebuild) */
};

#define GW_WATCH_MAX	1024

static struct gw_watch watch[GW_WATCH_MAX];
static unsigned int nwatch;
/* The ports down as last seen (link or admin). */
static bool port_down[TEP_PORTS_MAX];

static struct gw_watch *
watch_find(uint16_t port, int family, const uint8_t *ip)
{
	unsigned int i;

	for (i = 0; i < nwatch; i++)
		if (watch[i].port == port && watch[i].family == family &&
		    memcmp(watch[i].ip, ip, family == 4 ? 4 : 16) == 0)
			return &watch[i];
	return NULL;
}

/* Should group member idx (a plain next hop) be chosen? Its port must be
 * up and its gateway, if watched, answering. */
static bool
member_alive(uint32_t idx)
{
	const struct tep_nh *nh = &tep_rib.nh[idx];
	const struct gw_watch *w;

	if (nh->type != TEP_NHT_GW && nh->type != TEP_NHT_CONNECTED)
		return true;
	if (nh->port < TEP_PORTS_MAX && port_down[nh->port])
		return false;
	if (nh->type != TEP_NHT_GW)
		return true;
	w = watch_find(nh->port, tep_nh_gw_family(nh), nh->gw);
	return w == NULL || !w->down;
}

/* Every group member as member_alive() says. tep_nh_set_up() does nothing
 * for a member already in that state. */
static void
members_refresh(void)
{
	uint32_t gid, i;

	for (gid = 1; gid < TEP_NHG_MAX; gid++) {
		const struct tep_nhg *g = tep_nhg_get(&tep_rib, gid);

		if (g == NULL)
			continue;
		for (i = 0; i < g->n; i++)
			tep_nh_set_up(&tep_rib, g->member[i],
				      member_alive(g->member[i]));
	}
}

int
tep_paths_nh(const struct tep_nhg_member *m, unsigned int n,
	     const struct tep_nh *as, struct tep_nh *out, char *err,
	     size_t errlen)
{
	uint32_t gid;
	int ret;

	if (n == 0) {
		snprintf(err, errlen, "a route needs a next hop");
		return EINVAL;
	}
	if (n == 1) {
		*out = m[0].nh;
		return 0;
	}
	gid = tep_nhg_find(&tep_rib, m, n);
	if (gid == 0) {
		ret = tep_nhg_set(&tep_rib, &gid, m, n, err, errlen);
		if (ret != 0)
			return ret;
		/* A path through a dead port or gateway starts out down. */
		members_refresh();
	}
	memset(out, 0, sizeof(*out));
	out->type = TEP_NHT_GROUP;
	out->tunnel = gid;
	out->proto = as->proto;
	out->gen = as->gen;
	out->fpm_bgp = as->fpm_bgp;
	return 0;
}

unsigned int
tep_paths_released(const struct tep_nh *nh, struct tep_nh *gone,
		   unsigned int cap)
{
	const struct tep_nhg *g;
	unsigned int i, k = 0;

	if (nh->type != TEP_NHT_GROUP)
		return 0;
	g = tep_nhg_get(&tep_rib, nh->tunnel);
	if (g == NULL || g->ref > 0)
		return 0;
	for (i = 0; i < g->n && k < cap; i++)
		gone[k++] = tep_rib.nh[g->member[i]];
	/* Workers that cached it as a tunnel's egress look again (they
	 * also check it is still there: encap.c egress_group()). */
	tep_underlay_changed();
	if (tep_nhg_del(&tep_rib, nh->tunnel, NULL, 0) != 0)
		return 0;
	return k;
}

/* Ports whose link or admin state changed since the last tick: true if
 * any did. */
static bool
ports_poll(void)
{
	bool changed = false;
	uint16_t pid;

	for (pid = 0; pid < TEP_PORTS_MAX; pid++) {
		const struct tep_port *p = &tep_ports[pid];
		struct rte_eth_link link;
		bool down;

		if (!p->present)
			continue;
		down = !p->up;
		if (!down && rte_eth_link_get_nowait(pid, &link) == 0)
			down = link.link_status == RTE_ETH_LINK_DOWN;
		if (down == port_down[pid])
			continue;
		port_down[pid] = down;
		changed = true;
		if (down)
			tep_paths_stats.port_down++;
		else
			tep_paths_stats.port_up++;
	}
	return changed;
}

/* The watch list follows the groups' gateway members. */
static void
watch_rebuild(void)
{
	unsigned int i, k;
	uint32_t gid;

	for (i = 0; i < nwatch; i++)
		watch[i].seen = false;
	for (gid = 1; gid < TEP_NHG_MAX; gid++) {
		const struct tep_nhg *g = tep_nhg_get(&tep_rib, gid);

		if (g == NULL)
			continue;
		for (i = 0; i < g->n; i++) {
			const struct tep_nh *nh = &tep_rib.nh[g->member[i]];
			int fam = tep_nh_gw_family(nh);
			struct gw_watch *w;

			if (nh->type != TEP_NHT_GW)
				continue;
			w = watch_find(nh->port, fam, nh->gw);
			if (w == NULL && nwatch < GW_WATCH_MAX) {
				w = &watch[nwatch++];
				memset(w, 0, sizeof(*w));
				w->port = nh->port;
				w->family = (uint8_t)fam;
				memcpy(w->ip, nh->gw, fam == 4 ? 4 : 16);
			}
			if (w != NULL)
				w->seen = true;
		}
	}
	for (i = 0, k = 0; i < nwatch; i++)
		if (watch[i].seen)
			watch[k++] = watch[i];
	nwatch = k;
}

/* Probe the watched gateways that have been quiet; true if one was
 * found dead or alive again. */
static bool
gateways_check(uint64_t now)
{
	uint64_t period = rte_get_tsc_hz() * TEP_GW_PROBE_MS / 1000;
	bool changed = false;
	unsigned int i, down = 0;

	for (i = 0; i < nwatch; i++) {
		struct gw_watch *w = &watch[i];
		const struct tep_neigh *n = tep_neigh_lookup(w->port,
							     w->family, w->ip);
		bool heard = n != NULL && n->mac != 0;

		if (heard && now - n->updated < period) {
			w->misses = 0;
			if (w->down) {
				w->down = false;
				changed = true;
				tep_paths_stats.gw_back++;
			}
			continue;
		}
		if (w->probed != 0 && now - w->probed < period) {
			down += w->down;
			continue;
		}
		/* The last probe went unanswered unless a reply (which
		 * refreshes n->updated) came after it. */
		if (w->probed != 0 && !(heard && n->updated >= w->probed) &&
		    w->misses < UINT8_MAX)
			w->misses++;
		else if (w->probed != 0)
			w->misses = 0;
		w->probed = now;
		if (!port_down[w->port])
			tep_neigh_probe(w->port, w->family, w->ip);
		if (w->misses >= TEP_GW_MISSES && !w->down) {
			w->down = true;
			changed = true;
			tep_paths_stats.gw_lost++;
		}
		down += w->down;
	}
	tep_paths_stats.gw_watched = nwatch;
	tep_paths_stats.gw_down = down;
	return changed;
}

void
tep_paths_timer(void)
{
	bool changed = ports_poll();

	if (tep_rib.nhg_count == 0 && nwatch == 0)
		return;
	watch_rebuild();
	changed |= gateways_check(rte_rdtsc());
	/* A group made since is up to date already (tep_paths_nh). */
	if (changed)
		members_refresh();
}
