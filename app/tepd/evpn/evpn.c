/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * EVPN type-5 routes into VXLAN tunnels: a tunnel per (VRF, VTEP, VNI),
 * made on first use with the VTEP's router MAC as inner destination and
 * deleted with its last route; router MACs from zebra's RTM_NEWNEIGH;
 * routes waiting for their VTEP's router MAC.
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
#include "port.h"
#include "nexthop.h"
#include "vrfhost.h"

struct evpn_state ev;

/* Where a route that waited for its VTEP's router MAC goes once it has
 * one: fpm_routes.c's route_add(), registered by fpm.c, so that the
 * routes and EVPN do not call each other. */
static void (*release_route)(const struct tep_fpm_route *rt, int vrf);

void
evpn_on_release(void (*add)(const struct tep_fpm_route *rt, int vrf))
{
	release_route = add;
}

/* ---- EVPN: routes into VXLAN tunnels ------------------------------------ */

static uint32_t
l3vni_of(uint16_t vrf)
{
	if (ev.l3vni[vrf] == 0 || tep_rib.vrf[vrf] == NULL ||
	    strcmp(tep_rib.vrf[vrf]->name, ev.l3vni_vrf[vrf]) != 0)
		return 0;
	return ev.l3vni[vrf];
}

/*
 * Is this path of a route an EVPN one (docs/evpn.md)? With a VXLAN encap:
 * yes, its VNI. Without one (what zebra 8.4.4 sent): when its VRF has an
 * L3VNI (`evpn vrf NAME vni N`), bgpd installed it and the next hop is
 * on-link (RTNH_F_ONLINK on the route or the next hop: zebra marks EVPN
 * next hops so, as the remote VTEP is on no network of the VRF). The
 * gateway is the remote VTEP. Each path of a multipath route is judged
 * alone: a type-5 prefix advertised by several VTEPs has one per VTEP.
 */
bool
evpn_vni(const struct tep_fpm_route *rt, const struct tep_fpm_nh *n,
	 uint16_t vrf, uint32_t *vni)
{
	if (n->gw_family == 0)
		return false;
	if (n->encap_type == TEP_FPM_ENCAP_VXLAN) {
		*vni = n->vni;
		return true;
	}
	/* bgpd's only: an on-link route another daemon installed (a kernel
	 * default via an on-link gateway in the VRF's namespace) is not a
	 * route to a VTEP */
	if (n->encap_type != 0 || rt->protocol != RTPROT_BGP_ ||
	    !((rt->rtm_flags | n->flags) & RTNH_F_ONLINK_))
		return false;
	*vni = l3vni_of(vrf);
	return *vni != 0;
}

static struct rmac *
rmac_find(uint16_t vrf, int fam, const uint8_t *vtep)
{
	int i;

	for (i = 0; i < FPM_RMAC_MAX; i++)
		if (ev.rmac[i].used && ev.rmac[i].vrf == vrf &&
		    ev.rmac[i].fam == fam &&
		    memcmp(ev.rmac[i].vtep, vtep, fam == 4 ? 4 : 16) == 0)
			return &ev.rmac[i];
	return NULL;
}

static int
tunnel_find(uint16_t vrf, int fam, const uint8_t *vtep, uint32_t vni)
{
	int i;

	for (i = 0; i < TEP_TUNNELS_MAX; i++) {
		const struct tep_tunnel *t = tep_tunnels[i];

		if (ev.tun[i] && t != NULL && t->vrf == vrf &&
		    t->p.vni == vni && t->p.outer_v6 == (fam == 6) &&
		    memcmp(t->p.dst, vtep, fam == 4 ? 4 : 16) == 0)
			return i;
	}
	return -1;
}

/* The router MAC to put inside: the one zebra sent for the VTEP in this
 * VRF, or for the VTEP in any VRF, else that of another tunnel of ours
 * to it in the VRF (zebra 8.4.4 withdrew a VTEP's MAC while a route
 * through it remained: docs/evpn.md). */
static const struct rte_ether_addr *
vtep_mac(uint16_t vrf, int fam, const uint8_t *vtep)
{
	struct rmac *r = rmac_find(vrf, fam, vtep);
	int i;

	if (r == NULL)
		r = rmac_find(RMAC_ANY_VRF, fam, vtep);
	if (r != NULL)
		return &r->mac;
	for (i = 0; i < TEP_TUNNELS_MAX; i++) {
		const struct tep_tunnel *t = tep_tunnels[i];

		if (ev.tun[i] && t != NULL && t->vrf == vrf &&
		    t->p.outer_v6 == (fam == 6) &&
		    memcmp(t->p.dst, vtep, fam == 4 ? 4 : 16) == 0)
			return &t->inner_dmac;
	}
	return NULL;
}

/* Our VTEP address of the family: `evpn local`, else the first address
 * of the first underlay port that has one. */
static bool
local_vtep(int fam, uint8_t *a)
{
	int i, j;

	if (ev.local.family != 0) {
		if (ev.local.family != fam)
			return false;
		memcpy(a, ev.local.a, 16);
		return true;
	}
	for (i = 0; i < tep_nb_ports; i++) {
		const struct tep_port *p = &tep_ports[i];

		if (!p->present || p->role != TEP_ROLE_UNDERLAY)
			continue;
		for (j = 0; j < p->naddr; j++) {
			if (p->addr[j].family == fam) {
				memcpy(a, p->addr[j].a, 16);
				return true;
			}
		}
	}
	return false;
}

void
tunnel_gc(uint32_t id)
{
	char e[256];

	if (id >= TEP_TUNNELS_MAX || !ev.tun[id] || tep_tunnels[id] == NULL ||
	    tep_nh_users(&tep_rib, TEP_NHT_TUNNEL, id) != 0)
		return;
	if (tep_tunnel_delete(id, e, sizeof(e)) == 0)
		fpm.c.evpn_tunnels_deleted++;
}

/*
 * After a route stopped naming a next hop (deleted, replaced, or never
 * installed): its tunnel may be unused; a group no route names any more
 * is deleted (route/nexthop.c), and the tunnels of its members may be
 * unused in turn.
 */
void
nh_released(const struct tep_nh *old)
{
	struct tep_nh gone[TEP_NHG_MEMBERS];
	unsigned int i, n;

	if (old->type == TEP_NHT_TUNNEL)
		tunnel_gc(old->tunnel);
	if (old->type != TEP_NHT_GROUP)
		return;
	n = tep_paths_released(old, gone, TEP_NHG_MEMBERS);
	for (i = 0; i < n; i++)
		if (gone[i].type == TEP_NHT_TUNNEL)
			tunnel_gc(gone[i].tunnel);
}

static int
tunnel_get(uint16_t vrf, int fam, const uint8_t *vtep, uint32_t vni,
	   const struct rte_ether_addr *mac)
{
	struct tep_tunnel_spec s;
	char rem[INET6_ADDRSTRLEN], e[256];
	int id = tunnel_find(vrf, fam, vtep, vni);
	uint32_t made;

	if (id >= 0)
		return id;
	if (ev.ntun >= fpm.tunnels_max) {
		if (fpm.c.tunnel_cap++ == 0)
			fprintf(stderr, "tepd: fpm: evpn tunnel to %s refused: "
				"fpm may make %u tunnels (fpm set tunnels; "
				"counted in fpm_tunnel_cap; logged once)\n",
				inet_ntop(fam == 4 ? AF_INET : AF_INET6, vtep,
					  rem, sizeof(rem)), fpm.tunnels_max);
		return -1;
	}
	tep_tunnel_spec_init(&s);
	if (!local_vtep(fam, s.local)) {
		fpm.c.evpn_no_local++;
		return -1;
	}
	inet_ntop(fam == 4 ? AF_INET : AF_INET6, vtep, rem, sizeof(rem));
	if ((size_t)snprintf(s.name, sizeof(s.name), "evpn-%s-%s-%u",
			     tep_rib.vrf[vrf]->name, rem, vni) >=
	    sizeof(s.name))
		snprintf(s.name, sizeof(s.name), "evpn-%u", ++ev.seq);
	s.type = TEP_TUN_VXLAN;
	s.family = fam;
	memcpy(s.remote, vtep, fam == 4 ? 4 : 16);
	s.vni = vni;
	s.vrf = vrf;
	s.inner_dmac = *mac;
	s.given = TEP_TUN_OPT_VNI | TEP_TUN_OPT_INNER_DMAC;
	/* own_rmac belongs to the VRF that `evpn vrf` named: not to a VRF
	 * made later under the same id (l3vni_of() checks the name) */
	if (l3vni_of(vrf) != 0 && !rte_is_zero_ether_addr(&ev.own_rmac[vrf])) {
		s.inner_smac = ev.own_rmac[vrf];
		s.given |= TEP_TUN_OPT_INNER_SMAC;
	}
	if (tep_tunnel_create(&s, &made, e, sizeof(e)) != 0) {
		if (fpm.c.evpn_tunnel_failed++ == 0)
			fprintf(stderr, "tepd: fpm: evpn tunnel %s: %s "
				"(counted in fpm_evpn_tunnel_failed; logged "
				"once)\n", s.name, e);
		return -1;
	}
	ev.tun[made] = true;
	ev.ntun++;
	fpm.c.evpn_tunnels_created++;
	return (int)made;
}

/*
 * Pending routes by prefix: every route zebra sends looks for one waiting
 * under its prefix (to replace or drop it), so that is one hash lookup
 * rather than a scan of all FPM_PENDING_MAX slots whenever any is used;
 * free slots are a stack. Only a router MAC's arrival and the sweep walk
 * the slots.
 */
struct pending_key {
	uint16_t vrf;
	uint8_t family, plen;
	uint8_t prefix[16];	/* past the family's length: zero */
};

struct rte_hash *pending_index;
static uint16_t pending_free[FPM_PENDING_MAX];
static unsigned int npending_free;

int
pending_index_init(char *err, size_t errlen)
{
	struct rte_hash_parameters hp = {
		.name = "fpm_pending",
		.entries = FPM_PENDING_MAX,
		.key_len = sizeof(struct pending_key),
		.socket_id = (int)rte_socket_id(),
		/* room for every slot, whatever the keys' buckets */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	unsigned int i;

	pending_index = rte_hash_create(&hp);
	if (pending_index == NULL) {
		snprintf(err, errlen, "-P: pending route index: %s",
			 rte_strerror(rte_errno));
		return -1;
	}
	for (i = 0; i < FPM_PENDING_MAX; i++)
		pending_free[i] = (uint16_t)(FPM_PENDING_MAX - 1 - i);
	npending_free = FPM_PENDING_MAX;
	return 0;
}

static void
pending_key_of(struct pending_key *k, uint16_t vrf, int family,
	       const uint8_t *a, uint8_t plen)
{
	memset(k, 0, sizeof(*k));
	k->vrf = vrf;
	k->family = (uint8_t)family;
	k->plen = plen;
	memcpy(k->prefix, a, family == 4 ? 4 : 16);
}

struct pending *
pending_find(uint16_t vrf, int family, const uint8_t *a, uint8_t plen)
{
	struct pending_key k;
	void *slot;

	if (ev.npending == 0)
		return NULL;
	pending_key_of(&k, vrf, family, a, plen);
	if (rte_hash_lookup_data(pending_index, &k, &slot) < 0)
		return NULL;
	return &ev.pending[(uintptr_t)slot];
}

void
pending_drop(struct pending *p)
{
	struct pending_key k;

	if (p != NULL && p->used) {
		free(p->rt);
		p->rt = NULL;
		pending_key_of(&k, p->vrf, p->family, p->prefix, p->plen);
		rte_hash_del_key(pending_index, &k);
		pending_free[npending_free++] = (uint16_t)(p - ev.pending);
		p->used = false;
		ev.npending--;
	}
}

/*
 * Route rt waits for the router MAC of the VTEP of its path n (VNI vni).
 * A route of one path is kept as that path; any other (several paths, or
 * zebra's next-hop object) as a copy of the whole route, given to
 * route_add() again when a router MAC for one of its VTEPs arrives: its
 * paths ready by then are installed, those still waiting wait again.
 */
void
pending_add(uint16_t vrf, const struct tep_fpm_route *rt,
	    const struct tep_fpm_nh *n, uint32_t vni)
{
	int family = family_of(rt->family);
	struct pending *p = pending_find(vrf, family, rt->prefix, rt->plen);
	struct tep_fpm_route *copy = NULL;
	struct pending_key k;

	if (rt->nh_count != 1) {
		copy = malloc(sizeof(*copy));
		if (copy == NULL) {
			fpm.c.evpn_pending_full++;
			return;
		}
		*copy = *rt;
	}

	if (p == NULL) {
		if (npending_free == 0) {
			fpm.c.evpn_pending_full++;
			free(copy);
			return;
		}
		pending_key_of(&k, vrf, family, rt->prefix, rt->plen);
		p = &ev.pending[pending_free[npending_free - 1]];
		/* sized for every slot: cannot be full */
		if (rte_hash_add_key_data(pending_index, &k,
				(void *)(uintptr_t)(p - ev.pending)) < 0) {
			fpm.c.evpn_pending_full++;
			free(copy);
			return;
		}
		npending_free--;
		ev.npending++;
	}
	free(p->rt);
	p->rt = copy;
	p->used = true;
	p->vrf = vrf;
	p->family = (uint8_t)family;
	p->plen = rt->plen;
	memcpy(p->prefix, rt->prefix, 16);
	p->vtep_fam = (uint8_t)family_of(n->gw_family);
	memcpy(p->vtep, n->gw, 16);
	p->vni = vni;
	p->gen = fpm.gen;
	fpm.c.evpn_pending++;
}

/*
 * The next hop of an EVPN path: the tunnel to (VRF, VTEP, VNI), made on
 * first use. NULL with nh filled; else a counter, or &pend_ctr when the
 * path waits for its VTEP's router MAC (the caller makes the route wait:
 * pending_add()).
 */
uint64_t pend_ctr;
struct tep_fpm_nh pending_nh_scratch[TEP_FPM_MAX_NH];

uint64_t *
evpn_nh(const struct tep_fpm_nh *n, uint16_t vrf, uint32_t vni,
	struct tep_nh *nh)
{
	int fam = family_of(n->gw_family), id;
	const struct rte_ether_addr *mac;

	id = tunnel_find(vrf, fam, n->gw, vni);
	if (id < 0) {
		mac = vtep_mac(vrf, fam, n->gw);
		if (mac == NULL)
			return &pend_ctr;
		id = tunnel_get(vrf, fam, n->gw, vni, mac);
		if (id < 0)
			return &fpm.c.routes_failed;
	}
	nh->type = TEP_NHT_TUNNEL;
	nh->tunnel = (uint32_t)id;
	return NULL;
}


/* Does pending route p wait for VTEP vtep? A whole route's copy: if any
 * of its paths (its next-hop object's, as they are now) goes there. */
static bool
pending_waits_for(const struct pending *p, int fam, const uint8_t *vtep)
{
	const struct tep_fpm_route *rt = p->rt;
	const struct tep_fpm_nh *nh = rt->nh;
	unsigned int i, n = rt->nh_count;
	bool bh;

	if (n == 0 && rt->has_nh_id) {
		nh = pending_nh_scratch;
		if (tep_fpm_nhtab_resolve(&nhtab, rt->nh_id, pending_nh_scratch,
					  &n, &bh) != TEP_FPM_E_OK)
			return false;
	}
	for (i = 0; i < n; i++)
		if (nh[i].gw_family != 0 && family_of(nh[i].gw_family) == fam &&
		    memcmp(nh[i].gw, vtep, fam == 4 ? 4 : 16) == 0)
			return true;
	return false;
}

/* A router MAC came: install the routes that waited for it. */
static void
pending_release(uint16_t vrf, int fam, const uint8_t *vtep)
{
	struct tep_fpm_route rt;
	unsigned int i;

	for (i = 0; i < FPM_PENDING_MAX && ev.npending != 0; i++) {
		struct pending *p = &ev.pending[i];
		uint32_t gen = fpm.gen;

		if (!p->used || (vrf != RMAC_ANY_VRF && p->vrf != vrf))
			continue;
		if (p->rt != NULL) {
			uint16_t pvrf = p->vrf;

			if (!pending_waits_for(p, fam, vtep))
				continue;
			/* the copy outlives the slot; route_add() may
			 * make the route wait again, in this very slot
			 * (the free slots are a stack): the loop has
			 * passed it by then */
			rt = *p->rt;
			fpm.gen = p->gen;
			pending_drop(p);
			if (tep_rib.vrf[pvrf] != NULL)
				release_route(&rt, pvrf);
			fpm.gen = gen;
			continue;
		}
		if (p->vtep_fam != fam ||
		    memcmp(p->vtep, vtep, fam == 4 ? 4 : 16) != 0)
			continue;
		memset(&rt, 0, sizeof(rt));
		rt.family = p->family == 4 ? AF_INET : AF_INET6;
		rt.plen = p->plen;
		memcpy(rt.prefix, p->prefix, 16);
		rt.type = TEP_FPM_RTN_UNICAST;
		rt.nh_count = 1;
		rt.nh[0].gw_family = fam == 4 ? AF_INET : AF_INET6;
		memcpy(rt.nh[0].gw, p->vtep, 16);
		rt.nh[0].encap_type = TEP_FPM_ENCAP_VXLAN;
		rt.nh[0].vni = p->vni;
		rt.protocol = RTPROT_BGP_;	/* EVPN: bgpd's */
		pending_drop(p);
		if (tep_rib.vrf[p->vrf] == NULL)
			continue;
		/* installed with the generation it came with */
		fpm.gen = p->gen;
		release_route(&rt, p->vrf);
		fpm.gen = gen;
	}
}

/*
 * The VRF of a router MAC. zebra sends it on the L3VNI's VXLAN device
 * (ndm_ifindex, in the VRF's namespace; nlmsg_pid is 0): with host
 * namespaces (-N) the VRF is the one whose namespace has a VXLAN device
 * of that index with the VRF's L3VNI (indexes are per namespace, so the
 * VNI must agree). NDA_VNI, when sent, names the L3VNI directly.
 * RMAC_ANY_VRF when neither tells.
 */
static uint16_t
mac_vrf(const struct tep_fpm_mac *m)
{
	uint32_t vni;
	int v;

	for (v = 0; v < TEP_VRF_MAX; v++) {
		uint32_t l3 = l3vni_of((uint16_t)v);

		if (l3 == 0)
			continue;
		if (m->has_vni ? m->vni == l3 :
		    m->ifindex > 0 &&
		    tep_vrfhost_vxlan_vni((uint16_t)v, m->ifindex, &vni) == 0 &&
		    vni == l3)
			return (uint16_t)v;
	}
	return RMAC_ANY_VRF;
}

void
mac_add(const struct tep_fpm_mac *m)
{
	int fam = m->vtep_family == AF_INET ? 4 : 6, i;
	char a[INET6_ADDRSTRLEN];
	uint16_t vrf;
	struct rmac *r;

	fpm.c.macs_added++;
	if (m->vtep_family == 0)
		return;		/* no VTEP: not a router MAC */
	vrf = mac_vrf(m);
	r = rmac_find(vrf, fam, m->vtep);
	for (i = 0; r == NULL && i < FPM_RMAC_MAX; i++)
		if (!ev.rmac[i].used)
			r = &ev.rmac[i];
	/* full: the replay after a reconnect re-sends what zebra has, and
	 * a MAC it has not re-sent (yet) is the one to give up; the sweep
	 * would remove it anyway */
	for (i = 0; r == NULL && i < FPM_RMAC_MAX; i++)
		if (ev.rmac[i].gen != fpm.gen) {
			r = &ev.rmac[i];
			fpm.c.rmacs_swept++;
		}
	if (r == NULL) {
		/* routes through this VTEP wait (pending) until a slot
		 * frees: a sweep, or zebra deleting another MAC */
		if (fpm.c.rmac_full++ == 0) {
			inet_ntop(fam == 4 ? AF_INET : AF_INET6, m->vtep, a,
				  sizeof(a));
			fprintf(stderr, "tepd: fpm: router MAC table full (%d "
				"VTEPs): MAC of VTEP %s not kept (counted in "
				"fpm_rmac_full; logged once)\n", FPM_RMAC_MAX,
				a);
		}
		return;
	}
	r->used = true;
	r->vrf = vrf;
	r->fam = (uint8_t)fam;
	memcpy(r->vtep, m->vtep, 16);
	memcpy(&r->mac, m->mac, 6);
	r->ifindex = m->ifindex;
	r->vni = m->has_vni ? m->vni : 0;
	r->gen = fpm.gen;
	pending_release(vrf, fam, m->vtep);
}

void
mac_del(const struct tep_fpm_mac *m)
{
	int fam = m->vtep_family == AF_INET ? 4 : 6, i;
	uint32_t vni = m->has_vni ? m->vni : 0;
	bool found = false;

	fpm.c.macs_deleted++;
	if (m->vtep_family == 0)
		return;
	/* Tunnels made with it keep it (see vtep_mac). Every entry the
	 * same neighbour of zebra's made: it may have gone to another VRF
	 * when the L3VNI changed between two adds. */
	for (i = 0; i < FPM_RMAC_MAX; i++) {
		struct rmac *r = &ev.rmac[i];

		if (r->used && r->fam == fam && r->ifindex == m->ifindex &&
		    r->vni == vni && memcmp(&r->mac, m->mac, 6) == 0 &&
		    memcmp(r->vtep, m->vtep, fam == 4 ? 4 : 16) == 0) {
			r->used = false;
			found = true;
		}
	}
	if (!found)
		fpm.c.rmac_del_unknown++;
}

void
evpn_tunnel_gone(uint32_t id)
{
	if (id < TEP_TUNNELS_MAX && ev.tun[id]) {
		ev.tun[id] = false;
		ev.ntun--;
	}
}

int
tep_fpm_evpn_local(const char *ip, char *err, size_t errlen)
{
	struct tep_addr a = { 0 };

	if (strcmp(ip, "auto") == 0)
		a.family = 0;
	else if (inet_pton(AF_INET, ip, a.a) == 1)
		a.family = 4;
	else if (inet_pton(AF_INET6, ip, a.a) == 1)
		a.family = 6;
	else {
		snprintf(err, errlen, "bad address \"%s\" (IP or auto)", ip);
		return EINVAL;
	}
	/* Existing tunnels keep their address: only new ones use it. */
	ev.local = a;
	return 0;
}

int
tep_fpm_evpn_vrf(uint16_t vrf, uint32_t vni,
		 const struct rte_ether_addr *rmac, char *err, size_t errlen)
{
	int i;

	for (i = 0; vni != 0 && i < TEP_VRF_MAX; i++) {
		if (i != vrf && l3vni_of((uint16_t)i) == vni) {
			snprintf(err, errlen, "vni %u is vrf \"%s\"'s", vni,
				 tep_rib.vrf[i]->name);
			return EEXIST;
		}
	}
	ev.l3vni[vrf] = vni;
	/* like the local address: tunnels made from now on */
	memset(&ev.own_rmac[vrf], 0, sizeof(ev.own_rmac[vrf]));
	if (vni != 0 && rmac != NULL)
		ev.own_rmac[vrf] = *rmac;
	snprintf(ev.l3vni_vrf[vrf], sizeof(ev.l3vni_vrf[vrf]), "%s",
		 tep_rib.vrf[vrf]->name);
	return 0;
}

void
tep_fpm_evpn_show(struct tep_out *o)
{
	char a[INET6_ADDRSTRLEN], m[RTE_ETHER_ADDR_FMT_SIZE];
	unsigned int i;

	if (ev.local.family != 0)
		tep_out_str(o, "local", "local %s", inet_ntop(
			    ev.local.family == 4 ? AF_INET : AF_INET6,
			    ev.local.a, a, sizeof(a)));
	else
		tep_out_str(o, "local", "local %s", "auto");
	tep_out_newline(o);
	tep_out_open_array(o, "l3vnis");
	for (i = 0; i < TEP_VRF_MAX; i++) {
		if (l3vni_of((uint16_t)i) == 0)
			continue;
		tep_out_open_object(o, NULL);
		tep_out_str(o, "vrf", "vrf %s", tep_rib.vrf[i]->name);
		tep_out_u64(o, "vni", " vni %" PRIu64, ev.l3vni[i]);
		if (!rte_is_zero_ether_addr(&ev.own_rmac[i])) {
			rte_ether_format_addr(m, sizeof(m), &ev.own_rmac[i]);
			tep_out_str(o, "rmac", " rmac %s", m);
		}
		tep_out_newline(o);
		tep_out_close_object(o);
	}
	tep_out_close_array(o);
	tep_out_open_array(o, "router_macs");
	for (i = 0; i < FPM_RMAC_MAX; i++) {
		const struct rmac *r = &ev.rmac[i];

		if (!r->used)
			continue;
		rte_ether_format_addr(m, sizeof(m), &r->mac);
		tep_out_open_object(o, NULL);
		tep_out_str(o, "vtep", "vtep %s", inet_ntop(
			    r->fam == 4 ? AF_INET : AF_INET6, r->vtep, a,
			    sizeof(a)));
		tep_out_str(o, "mac", " rmac %s", m);
		if (r->vrf != RMAC_ANY_VRF && tep_rib.vrf[r->vrf] != NULL)
			tep_out_str(o, "vrf", " vrf %s",
				    tep_rib.vrf[r->vrf]->name);
		tep_out_newline(o);
		tep_out_close_object(o);
	}
	tep_out_close_array(o);
	tep_out_open_array(o, "tunnels");
	for (i = 0; i < TEP_TUNNELS_MAX; i++) {
		if (!ev.tun[i] || tep_tunnels[i] == NULL)
			continue;
		tep_out_open_object(o, NULL);
		tep_out_str(o, "name", "tunnel %s", tep_tunnels[i]->name);
		tep_out_u64(o, "routes", " routes %" PRIu64,
			    tep_nh_users(&tep_rib, TEP_NHT_TUNNEL, i));
		tep_out_newline(o);
		tep_out_close_object(o);
	}
	tep_out_close_array(o);
	tep_out_u64(o, "pending", "pending routes %" PRIu64, ev.npending);
	tep_out_newline(o);
}

/* A route's VRF could not be told (vrf_of_route()): counted, skipped. */
