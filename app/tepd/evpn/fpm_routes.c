/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * zebra's routes into the RIB: the VRF a route belongs to (by table, or
 * by the netlink port id zebra sent it from), unicast next hops, adding
 * and deleting within FPM's caps, and sweeping what a replay did not
 * refresh. docs/evpn.md has the rules.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* accept4 */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash.h>

#include "tep_out.h"
#include "tep_fpm.h"
#include "peer_uid.h"
#include "tunnel.h"

#include "fpm_priv.h"
#include "fpm.h"
#include "nexthop.h"
#include "vrfhost.h"

/* ---- routes ------------------------------------------------------------- */

/* The VRF of a kernel table: 254 (main) and 0 are the default VRF; else
 * the VRF made with `vrf add NAME table ID`. -1 if none. */
static int
vrf_of_table(uint32_t table)
{
	int i;

	if (table == 254 || table == 0)
		return TEP_VRF_DEFAULT;
	for (i = 0; i < TEP_VRF_MAX; i++)
		if (tep_rib.vrf[i] != NULL && tep_rib.vrf[i]->table == table)
			return i;
	return -1;
}

/* An id zebra sent that is in no VRF's namespace, or in several: said
 * once per id and connection, for the first FPM_NLPORTS_LOGGED ids (the
 * counters go on) */
static void
nlport_unknown_log(uint32_t pid, int vrf)
{
	unsigned int i;

	for (i = 0; i < fpm.nnlport_logged; i++)
		if (fpm.nlport_logged[i] == pid)
			return;
	if (fpm.nnlport_logged == FPM_NLPORTS_LOGGED)
		return;
	fpm.nlport_logged[fpm.nnlport_logged++] = pid;
	if (vrf == -2)
		fprintf(stderr, "tepd: fpm: netlink port id %u is in several "
			"vrfs' namespaces: its routes are skipped "
			"(fpm_routes_vrf_ambiguous)\n", pid);
	else
		fprintf(stderr, "tepd: fpm: netlink port id %u is in no vrf's "
			"namespace nor in tepd's: its routes are skipped "
			"(fpm_routes_vrf_unknown; zebra must run in tepd's "
			"network namespace, and restart with tepd)\n", pid);
	if (fpm.nnlport_logged == FPM_NLPORTS_LOGGED)
		fprintf(stderr, "tepd: fpm: %d unknown netlink port ids on "
			"this connection: more are counted, not logged\n",
			FPM_NLPORTS_LOGGED);
}

/*
 * zebra's netns VRF backend (the one usable without kernel VRF devices)
 * says table 254 for every VRF; only nlmsg_pid differs: the port id of
 * zebra's netlink socket in the VRF's namespace. With -N each VRF's host
 * side is a namespace zebra sees as a VRF, so the VRF is the one whose
 * namespace holds a route netlink socket with that port id. -1: in tepd's
 * own namespace only (zebra's default VRF: zebra runs beside tepd), -2:
 * in several VRFs' (port ids are per namespace), -3: nowhere. Nowhere is
 * not taken for the default VRF: a zebra that still holds a VRF on a
 * namespace tepd has replaced (tepd restarted under it) sends with the
 * old one's port id, and a guess would put that VRF's routes into the
 * underlay.
 *
 * The namespaces are read into one snapshot (vrfhost.c), taken again
 * only for an id the snapshot lacks and only if it is older than the
 * read that brought the message: zebra's socket existed before zebra
 * sent on it, so a snapshot taken after the read has it, and an id it
 * lacks is nowhere (the snapshot is the cache of misses). So at most one
 * snapshot per read, and conn_read() ends the poll turn after one: ids
 * that exist nowhere cost a binary search each. A new connection reads
 * afresh: the ids of a zebra that restarted are new, and an old socket's
 * id may since be another namespace's. Found ids are kept per
 * connection with the VRF's name, as VRF ids are reused, so that a
 * later snapshot cannot lose them.
 */
int
vrf_of_nlport(uint32_t pid)
{
	unsigned int i;
	int vrf;

	for (i = 0; i < fpm.nnlport; i++) {
		vrf = fpm.nlport[i].vrf;
		if (fpm.nlport[i].pid != pid)
			continue;
		if (vrf < 0 || (tep_rib.vrf[vrf] != NULL &&
				strcmp(tep_rib.vrf[vrf]->name,
				       fpm.nlport[i].name) == 0))
			return vrf;
		break;	/* that VRF was deleted: look again */
	}
	vrf = tep_vrfhost_vrf_of_nlport(pid);
	if ((vrf == -3 || fpm.nlsnap_gen != fpm.gen) &&
	    fpm.nlsnap_read != fpm.reads) {
		tep_vrfhost_nlports_refresh();
		fpm.nlsnap_read = fpm.reads;
		fpm.nlsnap_gen = fpm.gen;
		fpm.c.nlport_snapshots++;
		vrf = tep_vrfhost_vrf_of_nlport(pid);
	}
	if (vrf == -3 || vrf == -2) {
		nlport_unknown_log(pid, vrf);
		return vrf;
	}
	if (i == fpm.nnlport) {
		if (fpm.nnlport == FPM_NLPORTS)
			return vrf;	/* not kept: found again next time */
		fpm.nnlport++;
	}
	fpm.nlport[i].pid = pid;
	fpm.nlport[i].vrf = vrf;
	snprintf(fpm.nlport[i].name, sizeof(fpm.nlport[i].name), "%s",
		 vrf >= 0 ? tep_rib.vrf[vrf]->name : "");
	printf("tepd: fpm: netlink port id %u: vrf %s\n", pid,
	       vrf >= 0 ? tep_rib.vrf[vrf]->name : "default");
	return vrf;
}

/* The VRF of a route message: by table; the main table by the namespace
 * zebra sent it for (above). -1 none, -2 ambiguous, -3 unknown. */
int
vrf_of_route(const struct tep_fpm_msg *m)
{
	int vrf;

	if (m->route.table != 254 && m->route.table != 0)
		return vrf_of_table(m->route.table);
	vrf = tep_vrfhost_enabled() ? vrf_of_nlport(m->nlmsg_pid) : -1;
	return vrf == -1 ? TEP_VRF_DEFAULT : vrf;
}

static void
log_no_vrf(uint32_t table)
{
	unsigned int i;

	for (i = 0; i < fpm.ntables_logged; i++)
		if (fpm.tables_logged[i] == table)
			return;
	if (fpm.ntables_logged < FPM_TABLES_LOGGED)
		fpm.tables_logged[fpm.ntables_logged++] = table;
	else
		return;	/* enough said: the counter goes on */
	fprintf(stderr, "tepd: fpm: routes for table %u skipped: no vrf has "
		"that table (vrf add NAME table %u)\n", table, table);
}

static bool
is_fpm(const struct tep_nh *nh)
{
	return nh != NULL && nh->proto == TEP_PROTO_FPM;
}


/* Remove the route if FPM owns it; true if it did. */
static bool
del_if_fpm(uint16_t vrf, int family, const uint8_t *a, uint8_t depth)
{
	const struct tep_nh *cur = tep_route_exact(&tep_rib, vrf, family, a,
						   depth);
	struct tep_nh was;

	if (!is_fpm(cur))
		return false;
	was = *cur;
	if (tep_route_del(&tep_rib, vrf, family, a, depth, NULL, 0) != 0)
		return false;
	if (vrf == TEP_VRF_DEFAULT)
		tep_underlay_changed();
	nh_released(&was);
	return true;
}

/*
 * The next hop of one path of a unicast route: a gateway on a port of the
 * VRF, found through the gateway's connected network as `route add ...
 * via` does. 0, or the counter to bump when tepd cannot follow the path.
 */
static uint64_t *
unicast_nh(const struct tep_fpm_nh *n, uint16_t vrf, struct tep_nh *nh)
{
	uint8_t p[16], d;
	uint32_t idx;
	int gf;

	if (n->encap_type != 0)
		return &fpm.c.routes_encap;
	if (n->gw_family == 0)
		return &fpm.c.routes_no_gateway;
	gf = family_of(n->gw_family);
	idx = tep_route_get(&tep_rib, vrf, gf, n->gw, p, &d);
	if (idx == TEP_NH_NONE || tep_rib.nh[idx].type != TEP_NHT_CONNECTED)
		return &fpm.c.routes_unresolved;
	nh->type = TEP_NHT_GW;
	nh->gw_v6 = gf == 6;
	memcpy(nh->gw, n->gw, gf == 4 ? 4 : 16);
	nh->port = tep_rib.nh[idx].port;
	return NULL;
}


static bool
no_vrf(const struct tep_fpm_route *rt, int vrf)
{
	if (vrf == -2 || vrf == -3) {
		if (vrf == -2)
			fpm.c.routes_vrf_ambiguous++;
		else
			fpm.c.routes_vrf_unknown++;
		return true;
	}
	if (vrf < 0) {
		fpm.c.routes_no_vrf++;
		log_no_vrf(rt->table);
		return true;
	}
	return false;
}

/* Next-hop slots FPM's routes hold: a scan of every slot. */
uint32_t
fpm_nh_count(void)
{
	uint32_t i, n = 0;

	for (i = 1; i <= TEP_NH_MAX; i++)
		if (tep_rib.nh_ref[i] != 0 &&
		    tep_rib.nh[i].proto == TEP_PROTO_FPM)
			n++;
	return n;
}

/*
 * May an FPM route take this next hop? Yes if routes share it already
 * (no new slot), else if FPM holds fewer slots than its cap. The count
 * is a bound kept per new slot, counted exactly only once it reaches the
 * cap: a scan of every slot per route would slow a replay.
 */
static bool
nh_within_cap(const struct tep_nh *nh)
{
	void *data;

	if (rte_hash_lookup_data(tep_rib.nh_index, nh, &data) >= 0)
		return true;
	if (ev.nh_bound >= fpm.nh_max)
		ev.nh_bound = fpm_nh_count();
	if (ev.nh_bound >= fpm.nh_max)
		return false;
	ev.nh_bound++;
	return true;
}

/*
 * The paths of a unicast route as the members of its next hop: each
 * path converted as a route of that one path would be (an EVPN path into
 * its VTEP's tunnel, others to their gateway), with its weight; the same
 * next hop twice (two paths to one VTEP) is one member with the weights
 * added. Members take proto, generation and BGP-ness from `as`.
 *
 * Returns how many members; *why is the counter of the first path that
 * could not be used (NULL if none), *wait the first path waiting for its
 * VTEP's router MAC (NULL if none) and *wait_vni its VNI. A path left
 * out of a route of several is counted in paths_skipped.
 */
static unsigned int
route_members(const struct tep_fpm_route *rt, const struct tep_fpm_nh *path,
	      unsigned int npath, uint16_t vrf, const struct tep_nh *as,
	      struct tep_nhg_member *m, uint64_t **why,
	      const struct tep_fpm_nh **wait, uint32_t *wait_vni)
{
	unsigned int i, j, k = 0;
	uint64_t *c;
	uint32_t vni;

	*why = NULL;
	*wait = NULL;
	for (i = 0; i < npath; i++) {
		struct tep_nh nh = { 0 };

		nh.proto = as->proto;
		nh.gen = as->gen;
		nh.fpm_bgp = as->fpm_bgp;
		if (evpn_vni(rt, &path[i], vrf, &vni)) {
			c = evpn_nh(&path[i], vrf, vni, &nh);
			if (c == &pend_ctr) {
				if (*wait == NULL) {
					*wait = &path[i];
					*wait_vni = vni;
				}
				continue;
			}
		} else {
			c = unicast_nh(&path[i], vrf, &nh);
		}
		if (c != NULL) {
			if (*why == NULL)
				*why = c;
			if (npath > 1)
				fpm.c.paths_skipped++;
			continue;
		}
		for (j = 0; j < k; j++)
			if (memcmp(&m[j].nh, &nh, sizeof(nh)) == 0)
				break;
		if (j < k) {
			m[j].weight += path[i].weight;
			if (m[j].weight > TEP_NHG_WEIGHT_MAX)
				m[j].weight = TEP_NHG_WEIGHT_MAX;
			continue;
		}
		m[k].nh = nh;
		m[k].weight = path[i].weight != 0 ? path[i].weight : 1;
		k++;
	}
	return k;
}

/* Tunnels made for members of a route that was then not installed. */
static void
members_gc(const struct tep_nhg_member *m, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (m[i].nh.type == TEP_NHT_TUNNEL)
			tunnel_gc(m[i].nh.tunnel);
}

/* The cap on FPM's next-hop slots, for each member and the route's own. */
static bool
members_within_cap(const struct tep_nhg_member *m, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!nh_within_cap(&m[i].nh))
			return false;
	return true;
}

static void
log_nh_cap(void)
{
	if (fpm.c.nh_cap++ == 0)
		fprintf(stderr, "tepd: fpm: route not installed: fpm may hold "
			"%u next hops (fpm set nexthops; counted in "
			"fpm_nh_cap; logged once)\n", fpm.nh_max);
}

/*
 * The paths of a route by zebra's next-hop object: the object's, as the
 * table has them now. false (and the route skipped, routes_nh_id) if
 * tepd does not have the object.
 */
static bool
object_paths(const struct tep_fpm_route *rt, struct tep_fpm_nh *path,
	     unsigned int *n, bool *blackhole)
{
	return tep_fpm_nhtab_resolve(&nhtab, rt->nh_id, path, n,
				     blackhole) == TEP_FPM_E_OK;
}

void
route_add(const struct tep_fpm_route *rt, int vrf)
{
	static struct tep_fpm_nh objpath[TEP_FPM_MAX_NH];
	static unsigned int truncated_logged;
	struct tep_nhg_member m[TEP_NHG_MEMBERS];
	const struct tep_fpm_nh *path = rt->nh, *wait = NULL;
	unsigned int npath = rt->nh_count, nm = 0;
	int family = family_of(rt->family);
	bool by_obj, blackhole = false;
	const struct tep_nh *cur;
	struct tep_nh nh = { 0 };
	struct tep_nh was = { 0 };
	uint64_t *skip = NULL;
	uint32_t wait_vni = 0;
	char e[256];

	if (no_vrf(rt, vrf))
		return;
	/* A configured route wins over zebra's: FPM never touches it.
	 * Checked first, so that no tunnel is made or route held for it. */
	cur = tep_route_exact(&tep_rib, (uint16_t)vrf, family, rt->prefix,
			      rt->plen);
	if (cur != NULL && !is_fpm(cur)) {
		fpm.c.routes_static_kept++;
		return;
	}
	/* a copy: the next-hop slot may be reused once the route leaves it */
	if (cur != NULL)
		was = *cur;
	nh.proto = TEP_PROTO_FPM;
	nh.gen = fpm.gen;
	nh.fpm_bgp = rt->protocol == RTPROT_BGP_;
	/* By zebra's next-hop object (`fpm use-next-hop-groups`: the route
	 * names the object only): its paths as the object has them now,
	 * and the route remembered under the object's id, to follow it. */
	by_obj = rt->type == TEP_FPM_RTN_UNICAST && npath == 0 &&
		 rt->has_nh_id;
	if (by_obj) {
		if (!nhobj_route_set(rt, (uint16_t)vrf))
			skip = &fpm.c.nh_obj_routes_full;
		else if (!object_paths(rt, objpath, &npath, &blackhole))
			skip = &fpm.c.routes_nh_id;
		path = objpath;
	} else {
		nhobj_route_clear((uint16_t)vrf, family, rt->prefix, rt->plen);
	}
	switch (rt->type) {
	case TEP_FPM_RTN_BLACKHOLE:
	case TEP_FPM_RTN_UNREACHABLE:
	case TEP_FPM_RTN_PROHIBIT:
		/* tepd drops without telling the sender in all three */
		nh.type = TEP_NHT_BLACKHOLE;
		break;
	default:
		if (skip != NULL)
			break;
		if (blackhole) {
			nh.type = TEP_NHT_BLACKHOLE;	/* an object's */
			break;
		}
		/* paths past TEP_FPM_MAX_NH were not kept (lib/fpm) */
		if (rt->nh_dropped != 0 && !truncated_logged++)
			fprintf(stderr, "tepd: fpm: a route of %u paths "
				"installed with its first %u (counted in "
				"fpm_ecmp_truncated; logged once)\n",
				rt->nh_count + rt->nh_dropped, rt->nh_count);
		fpm.c.ecmp_truncated += rt->nh_dropped;
		nm = route_members(rt, path, npath, (uint16_t)vrf, &nh, m,
				   &skip, &wait, &wait_vni);
		if (nm == 0 && wait != NULL)
			skip = &pend_ctr;
		else if (nm != 0)
			skip = NULL;
		else if (skip == NULL)	/* no path at all: not from lib/fpm */
			skip = &fpm.c.routes_no_gateway;
		break;
	}
	/* A route some of whose paths wait for a router MAC is installed
	 * with the others and waits for the rest (pending_add()). */
	if (wait != NULL)
		pending_add((uint16_t)vrf, rt, wait, wait_vni);
	else
		pending_drop(pending_find((uint16_t)vrf, family, rt->prefix,
					  rt->plen));
	if (skip != NULL) {
		if (skip != &pend_ctr)
			(*skip)++;
		/* zebra replaced the route by one tepd cannot follow: the
		 * old next hop is no longer where zebra routes */
		del_if_fpm((uint16_t)vrf, family, rt->prefix, rt->plen);
		return;
	}
	/* one path: the route's own next hop, checked below */
	if (nm > 1 && !members_within_cap(m, nm)) {
		/* the route as it was, as when the FIB refuses the change */
		log_nh_cap();
		members_gc(m, nm);
		return;
	}
	if (nm != 0) {
		struct tep_nh as = nh;

		if (tep_paths_nh(m, nm, &as, &nh, e, sizeof(e)) != 0)
			goto failed;
	}
	if (!nh_within_cap(&nh)) {
		log_nh_cap();
		nh_released(&nh);
		members_gc(m, nm);
		return;
	}
	if (tep_route_replace(&tep_rib, (uint16_t)vrf, family, rt->prefix,
			      rt->plen, &nh, e, sizeof(e)) != 0) {
		nh_released(&nh);
		goto failed;
	}
	fpm.c.routes_added++;
	if (by_obj)
		fpm.c.routes_by_nh_obj++;
	if (nh.type == TEP_NHT_GROUP)
		fpm.c.routes_multipath++;
	if (nh.type == TEP_NHT_TUNNEL ||
	    (nh.type == TEP_NHT_GROUP && m[0].nh.type == TEP_NHT_TUNNEL))
		fpm.c.evpn_routes++;
	if (cur != NULL && (was.type != nh.type || was.tunnel != nh.tunnel))
		nh_released(&was);
	if (vrf == TEP_VRF_DEFAULT)
		tep_underlay_changed();
	return;
failed:
	if (fpm.c.routes_failed++ == 0)
		fprintf(stderr, "tepd: fpm: route not installed: %s (counted "
			"in fpm_routes_failed; logged once)\n", e);
	members_gc(m, nm);
}

void
route_del(const struct tep_fpm_route *rt, int vrf)
{
	int family = family_of(rt->family);
	const struct tep_nh *nh;

	if (no_vrf(rt, vrf))
		return;
	pending_drop(pending_find((uint16_t)vrf, family, rt->prefix,
				  rt->plen));
	nh = tep_route_exact(&tep_rib, (uint16_t)vrf, family, rt->prefix,
			     rt->plen);
	nhobj_route_clear((uint16_t)vrf, family, rt->prefix, rt->plen);
	if (nh == NULL)
		fpm.c.route_del_unknown++;
	else if (!is_fpm(nh))
		fpm.c.route_del_not_fpm++;
	else if (del_if_fpm((uint16_t)vrf, family, rt->prefix, rt->plen))
		fpm.c.routes_deleted++;
}

bool
route_forget(uint16_t vrf, int family, const uint8_t *a, uint8_t plen)
{
	pending_drop(pending_find(vrf, family, a, plen));
	nhobj_route_clear(vrf, family, a, plen);
	return del_if_fpm(vrf, family, a, plen);
}

/* ---- sweeping stale routes ---------------------------------------------- */

struct stale {
	uint8_t a[16];
	uint8_t depth;
	struct tep_nh nh;	/* released once every route is deleted */
};

struct sweep_ctx {
	struct stale *v;
	size_t n, cap;
	enum sweep_what what;
	uint64_t bgp_kept;
	bool oom;
};

static void
collect_stale(void *arg, int family, const uint8_t *pfx, uint8_t depth,
	      const struct tep_nh *nh)
{
	struct sweep_ctx *s = arg;

	if (nh->proto != TEP_PROTO_FPM ||
	    (s->what != SWEEP_ALL && nh->gen == fpm.gen))
		return;
	if (s->what == SWEEP_REPLAY && nh->fpm_bgp && fpm.stale_ms != 0) {
		s->bgp_kept++;
		return;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct stale *v = realloc(s->v, cap * sizeof(*v));

		if (v == NULL) {
			s->oom = true;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	memcpy(s->v[s->n].a, pfx, family == 4 ? 4 : 16);
	s->v[s->n].depth = depth;
	s->v[s->n].nh = *nh;
	s->n++;
}

/* Router MACs or routes waiting for one, of an older generation: held
 * with the BGP routes when there is a stale time. */
static bool
evpn_stale(void)
{
	unsigned int i;

	for (i = 0; i < FPM_RMAC_MAX; i++)
		if (ev.rmac[i].used && ev.rmac[i].gen != fpm.gen)
			return true;
	for (i = 0; i < FPM_PENDING_MAX && ev.npending != 0; i++)
		if (ev.pending[i].used && ev.pending[i].gen != fpm.gen)
			return true;
	return false;
}

/* Remove the FPM routes of older generations, or every one (enum
 * sweep_what). Collected first, deleted after: the walk must not see the
 * tree change under it. */
void
sweep(enum sweep_what what)
{
	static const char *const why[] = {
		[SWEEP_REPLAY] = "replay complete",
		[SWEEP_STALE] = "BGP stale time over",
		[SWEEP_ALL] = "hold time over",
	};
	struct sweep_ctx s = { .what = what };
	bool keep_bgp = what == SWEEP_REPLAY && fpm.stale_ms != 0;
	uint64_t swept = 0;
	int vrf, fam;
	size_t i;

	for (vrf = 0; vrf < TEP_VRF_MAX; vrf++) {
		for (fam = 4; fam <= 6 && tep_rib.vrf[vrf] != NULL; fam += 2) {
			s.n = 0;
			tep_route_walk(&tep_rib, (uint16_t)vrf, fam,
				       collect_stale, &s);
			for (i = 0; i < s.n; i++)
				swept += tep_route_del(&tep_rib, (uint16_t)vrf,
						       fam, s.v[i].a,
						       s.v[i].depth, NULL,
						       0) == 0;
			/* tunnels, and groups with their members' tunnels,
			 * that no route names any more */
			for (i = 0; i < s.n; i++)
				nh_released(&s.v[i].nh);
		}
	}
	free(s.v);
	nhobj_routes_sweep(what == SWEEP_ALL);
	/* Routes still waiting for a router MAC (BGP's, EVPN) age the
	 * same way, and so do router MACs: zebra sends those it still has
	 * in its replay */
	for (i = 0; i < FPM_PENDING_MAX && ev.npending != 0 && !keep_bgp; i++)
		if (ev.pending[i].used &&
		    (what == SWEEP_ALL || ev.pending[i].gen != fpm.gen))
			pending_drop(&ev.pending[i]);
	for (i = 0; i < FPM_RMAC_MAX && !keep_bgp; i++)
		if (ev.rmac[i].used &&
		    (what == SWEEP_ALL || ev.rmac[i].gen != fpm.gen)) {
			ev.rmac[i].used = false;
			fpm.c.rmacs_swept++;
		}
	if (s.oom)
		fprintf(stderr, "tepd: fpm: sweep: out of memory, some stale "
			"routes stay until the next sweep\n");
	fpm.c.sweeps++;
	fpm.c.routes_swept += swept;
	if (swept != 0)
		tep_underlay_changed();
	fpm.stale_due = keep_bgp && (s.bgp_kept != 0 || evpn_stale());
	fpm.stale_tsc = rte_rdtsc();
	printf("tepd: fpm: %s: %" PRIu64 " stale route(s) removed", why[what],
	       swept);
	if (fpm.stale_due)
		printf(", %" PRIu64 " BGP route(s) held for %u ms", s.bgp_kept,
		       fpm.stale_ms);
	printf("\n");
	fflush(stdout);
}

