/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * tepd as the FPM server of FRR's zebra (tepd -P [ADDR:]PORT; zebra
 * -M dplane_fpm_nl connects to it). docs/evpn.md has the rules; in short:
 *
 * - One TCP listener, polled from the control thread's loop (no thread of
 *   its own): the control thread is the RIB's only writer, so routes are
 *   installed here directly, without locks.
 * - One client at a time. A new connection replaces the current one: a
 *   zebra that restarted connects anew while its old socket may still
 *   look alive to us, and refusing the newcomer would shut the live zebra
 *   out until the old socket timed out.
 * - The stream is framed with tep_fpm_frame_check() and each frame decoded
 *   with tep_fpm_decode() (lib/fpm). A frame that does not parse drops the
 *   connection: the stream cannot be trusted after it. Frames before it
 *   stay applied (each is an independent message); nothing of it is.
 * - Routes carry proto FPM and the generation (connection count) that
 *   last wrote them, in their next hop (struct tep_nh). A new connection
 *   bumps the generation, which makes every FPM route stale at once;
 *   zebra replays its whole RIB, which refreshes what it still has; once
 *   the stream has been quiet for `quiet` ms (zebra 8.4 sends no end of
 *   replay marker), routes of older generations are swept. With a BGP
 *   stale time (`fpm set stale`), zebra's BGP routes (EVPN ones among
 *   them) are swept only that long after the replay: a zebra that
 *   restarted with bgpd replays before BGP has converged again, and
 *   sweeping then would cut traffic until it has (BGP graceful restart's
 *   stale routes, RFC 4724).
 * - When zebra goes away, its routes stay (as in a graceful restart) for
 *   `hold` ms, then all FPM routes are removed unless a new connection came
 *   (which sweeps them itself after its replay).
 * - Static routes (tepctl, config) and FPM routes share the FIB, one route
 *   per prefix. A static route wins: FPM adds, deletes and sweeps touch
 *   only routes whose next hop says proto FPM, so zebra can neither
 *   replace nor remove what the operator configured (tepctl route add on
 *   a prefix FPM holds is refused as for any existing route: route del
 *   first, and zebra's route is gone until zebra sends it again).
 * - EVPN type-5 routes (a VXLAN encap, or on-link in a VRF with an L3VNI,
 *   as zebra 8.4.4 sends them without VNI) go into a VXLAN tunnel per
 *   (VRF, VTEP, VNI), made here on first use with the VTEP's router MAC
 *   (RTM_NEWNEIGH) as inner destination, deleted with its last route.
 *   A route whose VTEP has no router MAC yet waits for it. Router MACs
 *   carry the generation too and are swept with the routes.
 * - FPM makes at most `fpm set tunnels` tunnels and holds at most `fpm
 *   set nexthops` next hops (3/4 of each by default): the rest stays for
 *   the operator's configuration, whatever zebra sends.
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
#include "tepd.h"
#include "tunnel.h"

/* a whole frame always fits behind a partial one */
#define FPM_BUF		(2 * TEP_FPM_MAX_FRAME)
/* reads per loop turn, then the control socket has its turn */
#define FPM_READS_PER_POLL 8
#define FPM_QUIET_MS	2000	/* replay complete after this silence */
#define FPM_HOLD_MS	60000	/* zebra gone: routes kept so long */
#define FPM_TABLES_LOGGED 64	/* unknown tables reported once each */
#define FPM_NLPORTS	128	/* zebra netlink port ids mapped to VRFs */
#define FPM_NLPORTS_LOGGED 8	/* unknown port ids logged per connection */
/* FPM may take 3/4 of the tunnels and next hops: the rest stays the
 * operator's, whatever zebra sends */
#define FPM_TUNNELS_DEFAULT	(TEP_TUNNELS_MAX * 3 / 4)
#define FPM_NH_DEFAULT		(TEP_NH_MAX * 3 / 4)

/*
 * Counters, named as tepctl stats shows them ("fpm_" + name); what each
 * counts is in docs/evpn.md's table, and at the place it is bumped.
 */
#define FPM_COUNTERS(X)							\
	X(connects) X(disconnects) X(conn_replaced) X(conn_dropped)	\
	X(refused_uid) X(refused_unverified)				\
	X(frames) X(bytes) X(ignored)					\
	X(routes_added) X(routes_deleted)				\
	X(route_del_unknown) X(route_del_not_fpm) X(routes_static_kept)	\
	X(routes_no_vrf) X(routes_vrf_ambiguous) X(routes_vrf_unknown)	\
	X(routes_no_gateway) X(routes_unresolved)			\
	X(routes_encap) X(routes_failed) X(ecmp_truncated)		\
	X(sweeps) X(routes_swept)					\
	X(macs_added) X(macs_deleted)					\
	X(rmac_full) X(rmac_del_unknown) X(rmacs_swept)			\
	X(evpn_routes) X(evpn_pending) X(evpn_pending_full)		\
	X(evpn_tunnels_created) X(evpn_tunnels_deleted)			\
	X(evpn_tunnel_failed) X(evpn_no_local)				\
	X(nlport_snapshots) X(tunnel_cap) X(nh_cap)

struct fpm_counters {
#define FPM_X(n) uint64_t n;
	FPM_COUNTERS(FPM_X)
#undef FPM_X
	uint64_t err[TEP_FPM_E_MAX];
};

static struct {
	bool enabled;
	int lfd;
	int cfd;
	char listen[64];	/* as given to -P */
	char peer[INET6_ADDRSTRLEN + 8];
	uint8_t *buf;
	size_t blen;
	uint64_t frame_no;	/* frames on this connection, from 1 */
	uint32_t gen;		/* bumped per connection; never 0 */
	bool sweep_due;		/* a replay is under way */
	bool stale_due;		/* BGP routes of an older replay are held */
	uint64_t stale_tsc;	/* when that replay completed */
	uint32_t stale_ms;	/* 0: BGP routes are swept with the replay */
	bool hold_due;		/* zebra is gone, its routes are held */
	uint64_t last_tsc;	/* last frame, or the connect */
	uint64_t gone_tsc;	/* when the connection went away */
	uint32_t quiet_ms;
	uint32_t hold_ms;
	/* what FPM may take of the tunnels and next hops it shares with the
	 * operator's configuration (`fpm set tunnels|nexthops`) */
	uint32_t tunnels_max;
	uint32_t nh_max;
	uint32_t tables_logged[FPM_TABLES_LOGGED];
	unsigned int ntables_logged;
	/* nlmsg_pid -> VRF, per connection (zebra's port ids change when
	 * it restarts); the VRF's name too, as VRF ids are reused */
	struct {
		uint32_t pid;
		int vrf;	/* as vrf_of_nlport() returned it */
		char name[TEP_VRF_NAME_MAX];
	} nlport[FPM_NLPORTS];
	unsigned int nnlport;
	uint32_t nlport_logged[FPM_NLPORTS_LOGGED];
	unsigned int nnlport_logged;
	uint64_t reads;		/* reads of the stream that brought bytes */
	uint64_t nlsnap_read;	/* `reads` when the port ids were read */
	uint32_t nlsnap_gen;	/* and the connection then */
	struct fpm_counters c;
} fpm = { .lfd = -1, .cfd = -1, .quiet_ms = FPM_QUIET_MS,
	  .hold_ms = FPM_HOLD_MS, .tunnels_max = FPM_TUNNELS_DEFAULT,
	  .nh_max = FPM_NH_DEFAULT };

/* ---- EVPN state --------------------------------------------------------- */

#define FPM_RMAC_MAX	256	/* remote VTEPs with a router MAC */
#define FPM_PENDING_MAX	4096	/* routes waiting for a router MAC */
#define RTNH_F_ONLINK_	4	/* linux/rtnetlink.h */
#define RTPROT_BGP_	186	/* linux/rtnetlink.h, FRR's bgpd */

/* A remote VTEP's router MAC: per VRF when the VRF could be told (zebra
 * sends it on the L3VNI's VXLAN device, in the VRF's namespace), else
 * for every VRF (RMAC_ANY_VRF). Found by (vrf, VTEP) for new tunnels;
 * deleted by what zebra names its neighbour with (device index, VNI if
 * sent, MAC, VTEP): the VRF is not computed again for a delete, as the
 * L3VNI may have changed or the device gone since. */
#define RMAC_ANY_VRF	TEP_VRF_MAX

struct rmac {
	bool used;
	uint16_t vrf;
	uint8_t fam;		/* 4 or 6 */
	uint8_t vtep[16];
	struct rte_ether_addr mac;
	int32_t ifindex;	/* ndm_ifindex, as zebra sent it */
	uint32_t vni;		/* NDA_VNI as sent; 0 if none */
	uint32_t gen;		/* the connection that last sent it */
};

/* An EVPN route whose VTEP has no router MAC yet. */
struct pending {
	bool used;
	uint16_t vrf;
	uint8_t family, plen;
	uint8_t prefix[16];
	uint8_t vtep_fam;
	uint8_t vtep[16];
	uint32_t vni;
	uint32_t gen;
};

static struct {
	/* per VRF id; the name too, as ids are reused after vrf del */
	uint32_t l3vni[TEP_VRF_MAX];
	char l3vni_vrf[TEP_VRF_MAX][TEP_VRF_NAME_MAX];
	/* our router MAC in the VRF, as advertised by zebra (the SVI's):
	 * inner source of the VRF's tunnels and what decap accepts */
	struct rte_ether_addr own_rmac[TEP_VRF_MAX];
	struct tep_addr local;		/* family 0: pick an underlay's */
	struct rmac rmac[FPM_RMAC_MAX];
	struct pending pending[FPM_PENDING_MAX];
	unsigned int npending;
	bool tun[TEP_TUNNELS_MAX];	/* tunnels made here */
	uint32_t ntun;			/* how many */
	/* next-hop slots of proto FPM: at least this many (bumped per slot
	 * FPM takes, counted again when it reaches the cap) */
	uint32_t nh_bound;
	uint32_t seq;		/* names when the long one is too long */
} ev;

bool
tep_fpm_enabled(void)
{
	return fpm.enabled;
}

static uint64_t
ms_to_tsc(uint32_t ms)
{
	return rte_get_tsc_hz() / 1000 * ms;
}

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
		if (tep.rib.vrf[i] != NULL && tep.rib.vrf[i]->table == table)
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
static int
vrf_of_nlport(uint32_t pid)
{
	unsigned int i;
	int vrf;

	for (i = 0; i < fpm.nnlport; i++) {
		vrf = fpm.nlport[i].vrf;
		if (fpm.nlport[i].pid != pid)
			continue;
		if (vrf < 0 || (tep.rib.vrf[vrf] != NULL &&
				strcmp(tep.rib.vrf[vrf]->name,
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
		 vrf >= 0 ? tep.rib.vrf[vrf]->name : "");
	printf("tepd: fpm: netlink port id %u: vrf %s\n", pid,
	       vrf >= 0 ? tep.rib.vrf[vrf]->name : "default");
	return vrf;
}

/* The VRF of a route message: by table; the main table by the namespace
 * zebra sent it for (above). -1 none, -2 ambiguous, -3 unknown. */
static int
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

static int
family_of(uint8_t af)
{
	return af == AF_INET ? 4 : 6;
}

static bool
is_fpm(const struct tep_nh *nh)
{
	return nh != NULL && nh->proto == TEP_PROTO_FPM;
}

static void nh_released(const struct tep_nh *old);

/* Remove the route if FPM owns it; true if it did. */
static bool
del_if_fpm(uint16_t vrf, int family, const uint8_t *a, uint8_t depth)
{
	const struct tep_nh *cur = tep_route_exact(&tep.rib, vrf, family, a,
						   depth);
	struct tep_nh was;

	if (!is_fpm(cur))
		return false;
	was = *cur;
	if (tep_route_del(&tep.rib, vrf, family, a, depth, NULL, 0) != 0)
		return false;
	if (vrf == TEP_VRF_DEFAULT)
		tep_underlay_changed();
	nh_released(&was);
	return true;
}

/*
 * The next hop of a unicast route: a gateway on a port of the VRF, found
 * through the gateway's connected network as `route add ... via` does.
 * 0, or the counter to bump when tepd cannot follow the route.
 */
static uint64_t *
unicast_nh(const struct tep_fpm_route *rt, uint16_t vrf, struct tep_nh *nh)
{
	const struct tep_fpm_nh *n = &rt->nh[0];
	uint8_t p[16], d;
	uint32_t idx;
	int gf;

	if (n->encap_type != 0)
		return &fpm.c.routes_encap;
	if (n->gw_family == 0)
		return &fpm.c.routes_no_gateway;
	gf = family_of(n->gw_family);
	idx = tep_route_get(&tep.rib, vrf, gf, n->gw, p, &d);
	if (idx == TEP_NH_NONE || tep.rib.nh[idx].type != TEP_NHT_CONNECTED)
		return &fpm.c.routes_unresolved;
	nh->type = TEP_NHT_GW;
	nh->gw_v6 = gf == 6;
	memcpy(nh->gw, n->gw, gf == 4 ? 4 : 16);
	nh->port = tep.rib.nh[idx].port;
	return NULL;
}

/* ---- EVPN: routes into VXLAN tunnels ------------------------------------ */

static uint32_t
l3vni_of(uint16_t vrf)
{
	if (ev.l3vni[vrf] == 0 || tep.rib.vrf[vrf] == NULL ||
	    strcmp(tep.rib.vrf[vrf]->name, ev.l3vni_vrf[vrf]) != 0)
		return 0;
	return ev.l3vni[vrf];
}

/*
 * Is this an EVPN route (docs/evpn.md)? With a VXLAN encap: yes, its VNI.
 * Without one (what zebra 8.4.4 sent): when its VRF has an L3VNI
 * (`evpn vrf NAME vni N`), bgpd installed it and the next hop is on-link
 * (RTNH_F_ONLINK on the route or the next hop: zebra marks EVPN next hops
 * so, as the remote VTEP is on no network of the VRF). The gateway is the
 * remote VTEP.
 */
static bool
evpn_vni(const struct tep_fpm_route *rt, uint16_t vrf, uint32_t *vni)
{
	const struct tep_fpm_nh *n = &rt->nh[0];

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
		const struct tep_tunnel *t = tep.tunnel[i];

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
		const struct tep_tunnel *t = tep.tunnel[i];

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
	for (i = 0; i < tep.nb_ports; i++) {
		const struct tep_port *p = &tep.port[i];

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

static void
tunnel_gc(uint32_t id)
{
	char e[256];

	if (id >= TEP_TUNNELS_MAX || !ev.tun[id] || tep.tunnel[id] == NULL ||
	    tep_nh_users(&tep.rib, TEP_NHT_TUNNEL, id) != 0)
		return;
	if (tep_tunnel_delete(id, e, sizeof(e)) == 0)
		fpm.c.evpn_tunnels_deleted++;
}

/* After a route's next hop went or changed: its tunnel may be unused. */
static void
nh_released(const struct tep_nh *old)
{
	if (old->type == TEP_NHT_TUNNEL)
		tunnel_gc(old->tunnel);
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
			     tep.rib.vrf[vrf]->name, rem, vni) >=
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

static struct rte_hash *pending_index;
static uint16_t pending_free[FPM_PENDING_MAX];
static unsigned int npending_free;

static int
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

static struct pending *
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

static void
pending_drop(struct pending *p)
{
	struct pending_key k;

	if (p != NULL && p->used) {
		pending_key_of(&k, p->vrf, p->family, p->prefix, p->plen);
		rte_hash_del_key(pending_index, &k);
		pending_free[npending_free++] = (uint16_t)(p - ev.pending);
		p->used = false;
		ev.npending--;
	}
}

static void
pending_add(uint16_t vrf, const struct tep_fpm_route *rt, uint32_t vni)
{
	int family = family_of(rt->family);
	struct pending *p = pending_find(vrf, family, rt->prefix, rt->plen);
	struct pending_key k;

	if (p == NULL) {
		if (npending_free == 0) {
			fpm.c.evpn_pending_full++;
			return;
		}
		pending_key_of(&k, vrf, family, rt->prefix, rt->plen);
		p = &ev.pending[pending_free[npending_free - 1]];
		/* sized for every slot: cannot be full */
		if (rte_hash_add_key_data(pending_index, &k,
				(void *)(uintptr_t)(p - ev.pending)) < 0) {
			fpm.c.evpn_pending_full++;
			return;
		}
		npending_free--;
		ev.npending++;
	}
	p->used = true;
	p->vrf = vrf;
	p->family = (uint8_t)family;
	p->plen = rt->plen;
	memcpy(p->prefix, rt->prefix, 16);
	p->vtep_fam = (uint8_t)family_of(rt->nh[0].gw_family);
	memcpy(p->vtep, rt->nh[0].gw, 16);
	p->vni = vni;
	p->gen = fpm.gen;
	fpm.c.evpn_pending++;
}

/*
 * The next hop of an EVPN route: the tunnel to (VRF, VTEP, VNI), made on
 * first use. NULL with nh filled; else a counter, or &pend_ctr when the
 * route waits for its VTEP's router MAC.
 */
static uint64_t pend_ctr;

static uint64_t *
evpn_nh(const struct tep_fpm_route *rt, uint16_t vrf, uint32_t vni,
	struct tep_nh *nh)
{
	const struct tep_fpm_nh *n = &rt->nh[0];
	int fam = family_of(n->gw_family), id;
	const struct rte_ether_addr *mac;

	id = tunnel_find(vrf, fam, n->gw, vni);
	if (id < 0) {
		mac = vtep_mac(vrf, fam, n->gw);
		if (mac == NULL) {
			pending_add(vrf, rt, vni);
			return &pend_ctr;
		}
		id = tunnel_get(vrf, fam, n->gw, vni, mac);
		if (id < 0)
			return &fpm.c.routes_failed;
	}
	nh->type = TEP_NHT_TUNNEL;
	nh->tunnel = (uint32_t)id;
	return NULL;
}

static void route_add(const struct tep_fpm_route *rt, int vrf);

/* A router MAC came: install the routes that waited for it. */
static void
pending_release(uint16_t vrf, int fam, const uint8_t *vtep)
{
	struct tep_fpm_route rt;
	unsigned int i;

	for (i = 0; i < FPM_PENDING_MAX && ev.npending != 0; i++) {
		struct pending *p = &ev.pending[i];
		uint32_t gen = fpm.gen;

		if (!p->used || p->vtep_fam != fam ||
		    (vrf != RMAC_ANY_VRF && p->vrf != vrf) ||
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
		if (tep.rib.vrf[p->vrf] == NULL)
			continue;
		/* installed with the generation it came with */
		fpm.gen = p->gen;
		route_add(&rt, p->vrf);
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

static void
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

static void
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
tep_fpm_tunnel_gone(uint32_t id)
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
				 tep.rib.vrf[i]->name);
			return EEXIST;
		}
	}
	ev.l3vni[vrf] = vni;
	/* like the local address: tunnels made from now on */
	memset(&ev.own_rmac[vrf], 0, sizeof(ev.own_rmac[vrf]));
	if (vni != 0 && rmac != NULL)
		ev.own_rmac[vrf] = *rmac;
	snprintf(ev.l3vni_vrf[vrf], sizeof(ev.l3vni_vrf[vrf]), "%s",
		 tep.rib.vrf[vrf]->name);
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
		tep_out_str(o, "vrf", "vrf %s", tep.rib.vrf[i]->name);
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
		if (r->vrf != RMAC_ANY_VRF && tep.rib.vrf[r->vrf] != NULL)
			tep_out_str(o, "vrf", " vrf %s",
				    tep.rib.vrf[r->vrf]->name);
		tep_out_newline(o);
		tep_out_close_object(o);
	}
	tep_out_close_array(o);
	tep_out_open_array(o, "tunnels");
	for (i = 0; i < TEP_TUNNELS_MAX; i++) {
		if (!ev.tun[i] || tep.tunnel[i] == NULL)
			continue;
		tep_out_open_object(o, NULL);
		tep_out_str(o, "name", "tunnel %s", tep.tunnel[i]->name);
		tep_out_u64(o, "routes", " routes %" PRIu64,
			    tep_nh_users(&tep.rib, TEP_NHT_TUNNEL, i));
		tep_out_newline(o);
		tep_out_close_object(o);
	}
	tep_out_close_array(o);
	tep_out_u64(o, "pending", "pending routes %" PRIu64, ev.npending);
	tep_out_newline(o);
}

/* A route's VRF could not be told (vrf_of_route()): counted, skipped. */
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
static uint32_t
fpm_nh_count(void)
{
	uint32_t i, n = 0;

	for (i = 1; i <= TEP_NH_MAX; i++)
		if (tep.rib.nh_ref[i] != 0 &&
		    tep.rib.nh[i].proto == TEP_PROTO_FPM)
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

	if (rte_hash_lookup_data(tep.rib.nh_index, nh, &data) >= 0)
		return true;
	if (ev.nh_bound >= fpm.nh_max)
		ev.nh_bound = fpm_nh_count();
	if (ev.nh_bound >= fpm.nh_max)
		return false;
	ev.nh_bound++;
	return true;
}

static void
route_add(const struct tep_fpm_route *rt, int vrf)
{
	struct tep_nh nh = { 0 };
	int family = family_of(rt->family);
	const struct tep_nh *cur;
	struct tep_nh was = { 0 };
	uint64_t *skip = NULL;
	uint32_t vni;
	char e[256];

	if (no_vrf(rt, vrf))
		return;
	/* A configured route wins over zebra's: FPM never touches it.
	 * Checked first, so that no tunnel is made or route held for it. */
	cur = tep_route_exact(&tep.rib, (uint16_t)vrf, family, rt->prefix,
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
	switch (rt->type) {
	case TEP_FPM_RTN_BLACKHOLE:
	case TEP_FPM_RTN_UNREACHABLE:
	case TEP_FPM_RTN_PROHIBIT:
		/* tepd drops without telling the sender in all three */
		nh.type = TEP_NHT_BLACKHOLE;
		break;
	default:
		/* tepd's next hop is single: the first of a multipath */
		if (rt->nh_count > 1)
			fpm.c.ecmp_truncated++;
		if (evpn_vni(rt, (uint16_t)vrf, &vni))
			skip = evpn_nh(rt, (uint16_t)vrf, vni, &nh);
		else
			skip = unicast_nh(rt, (uint16_t)vrf, &nh);
		break;
	}
	if (skip != &pend_ctr)
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
	if (!nh_within_cap(&nh)) {
		/* the route as it was, as when the FIB refuses the change */
		if (fpm.c.nh_cap++ == 0)
			fprintf(stderr, "tepd: fpm: route not installed: fpm "
				"may hold %u next hops (fpm set nexthops; "
				"counted in fpm_nh_cap; logged once)\n",
				fpm.nh_max);
		if (nh.type == TEP_NHT_TUNNEL)
			tunnel_gc(nh.tunnel);
		return;
	}
	if (tep_route_replace(&tep.rib, (uint16_t)vrf, family, rt->prefix,
			      rt->plen, &nh, e, sizeof(e)) != 0) {
		if (fpm.c.routes_failed++ == 0)
			fprintf(stderr, "tepd: fpm: route not installed: %s "
				"(counted in fpm_routes_failed; logged once)\n",
				e);
		if (nh.type == TEP_NHT_TUNNEL)
			tunnel_gc(nh.tunnel);
		return;
	}
	fpm.c.routes_added++;
	if (nh.type == TEP_NHT_TUNNEL)
		fpm.c.evpn_routes++;
	if (cur != NULL && (was.type != nh.type || was.tunnel != nh.tunnel))
		nh_released(&was);
	if (vrf == TEP_VRF_DEFAULT)
		tep_underlay_changed();
}

static void
route_del(const struct tep_fpm_route *rt, int vrf)
{
	int family = family_of(rt->family);
	const struct tep_nh *nh;

	if (no_vrf(rt, vrf))
		return;
	pending_drop(pending_find((uint16_t)vrf, family, rt->prefix,
				  rt->plen));
	nh = tep_route_exact(&tep.rib, (uint16_t)vrf, family, rt->prefix,
			     rt->plen);
	if (nh == NULL)
		fpm.c.route_del_unknown++;
	else if (!is_fpm(nh))
		fpm.c.route_del_not_fpm++;
	else if (del_if_fpm((uint16_t)vrf, family, rt->prefix, rt->plen))
		fpm.c.routes_deleted++;
}

/* ---- sweeping stale routes ---------------------------------------------- */

struct stale {
	uint8_t a[16];
	uint8_t depth;
	uint32_t tunnel;	/* its tunnel, or TEP_NO_TUNNEL */
};

enum sweep_what {
	SWEEP_REPLAY,	/* replay complete: older generations, BGP ones
			 * kept when there is a stale time */
	SWEEP_STALE,	/* the stale time is over: older generations */
	SWEEP_ALL,	/* hold time over: every FPM route */
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
	s->v[s->n].tunnel = nh->type == TEP_NHT_TUNNEL ? nh->tunnel :
			    TEP_NO_TUNNEL;
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
static void
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
		for (fam = 4; fam <= 6 && tep.rib.vrf[vrf] != NULL; fam += 2) {
			s.n = 0;
			tep_route_walk(&tep.rib, (uint16_t)vrf, fam,
				       collect_stale, &s);
			for (i = 0; i < s.n; i++)
				swept += tep_route_del(&tep.rib, (uint16_t)vrf,
						       fam, s.v[i].a,
						       s.v[i].depth, NULL,
						       0) == 0;
			for (i = 0; i < s.n; i++)
				if (s.v[i].tunnel != TEP_NO_TUNNEL)
					tunnel_gc(s.v[i].tunnel);
		}
	}
	free(s.v);
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

/* ---- the connection ----------------------------------------------------- */

static void
conn_close(const char *why)
{
	if (fpm.cfd < 0)
		return;
	close(fpm.cfd);
	fpm.cfd = -1;
	fpm.blen = 0;
	/* A replay cut short must not sweep: what was not replayed yet
	 * is not known to be gone. The hold timer takes over. */
	fpm.sweep_due = false;
	fpm.hold_due = true;
	fpm.gone_tsc = rte_rdtsc();
	printf("tepd: fpm: connection from %s closed: %s; routes kept for "
	       "%u ms\n", fpm.peer, why, fpm.hold_ms);
	fflush(stdout);
}

static void
apply(const struct tep_fpm_msg *m)
{
	switch (m->kind) {
	case TEP_FPM_ROUTE_ADD:
		route_add(&m->route, vrf_of_route(m));
		break;
	case TEP_FPM_ROUTE_DEL:
		route_del(&m->route, vrf_of_route(m));
		break;
	case TEP_FPM_MAC_ADD:
		mac_add(&m->mac);
		break;
	case TEP_FPM_MAC_DEL:
		mac_del(&m->mac);
		break;
	default:
		fpm.c.ignored++;
		break;
	}
}

/* The start of a frame that could not be framed, for the log: what
 * zebra sent is the first thing anyone will want to see. */
static void
log_frame_head(const uint8_t *b, size_t len)
{
	size_t i, n = len < 64 ? len : 64;

	fprintf(stderr, "tepd: fpm: frame starts");
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%02x", i % 4 ? "" : " ", b[i]);
	fprintf(stderr, "%s (%zu bytes buffered)\n", n < len ? " ..." : "",
		len);
}

static void
parse_error(int err, const struct tep_fpm_msg *m)
{
	fpm.c.err[err < TEP_FPM_E_MAX ? err : 0]++;
	fpm.c.conn_dropped++;
	fprintf(stderr, "tepd: fpm: %s at frame %" PRIu64 ", dropping the "
		"connection", tep_fpm_err_str(err), fpm.frame_no);
	if (m != NULL && m->err_attr != 0)
		fprintf(stderr, " (offset %u, attribute %u)", m->err_off,
			m->err_attr);
	else if (m != NULL)
		fprintf(stderr, " (offset %u)", m->err_off);
	fputc('\n', stderr);
	conn_close(tep_fpm_err_str(err));
}

/* Apply every whole frame in the buffer; false if the connection was
 * dropped. */
static bool
drain_frames(void)
{
	struct tep_fpm_msg m;
	size_t off = 0, flen, moff;
	int ret;

	while (off < fpm.blen) {
		ret = tep_fpm_frame_check(fpm.buf + off, fpm.blen - off, &flen);
		if (ret == TEP_FPM_E_INCOMPLETE)
			break;
		fpm.frame_no++;
		if (ret != TEP_FPM_E_OK) {
			log_frame_head(fpm.buf + off, fpm.blen - off);
			parse_error(ret, NULL);
			return false;
		}
		/* every message of the frame decoded before any is applied:
		 * nothing of a frame that does not parse is installed */
		moff = 0;
		do
			ret = tep_fpm_decode_next(fpm.buf + off, flen, &moff,
						  &m);
		while (ret == TEP_FPM_E_OK && moff < flen);
		if (ret != TEP_FPM_E_OK) {
			parse_error(ret, &m);
			return false;
		}
		fpm.c.frames++;
		moff = 0;
		do {
			tep_fpm_decode_next(fpm.buf + off, flen, &moff, &m);
			apply(&m);
		} while (moff < flen);
		off += flen;
	}
	if (off != 0) {
		memmove(fpm.buf, fpm.buf + off, fpm.blen - off);
		fpm.blen -= off;
	}
	if (off != 0)
		fpm.last_tsc = rte_rdtsc();
	return true;
}

static void
conn_read(void)
{
	uint64_t snaps = fpm.c.nlport_snapshots;
	ssize_t n;
	int i;

	/* one snapshot of the netlink port ids per turn at most: the rest
	 * of the stream waits for the next one (vrf_of_nlport()) */
	for (i = 0; i < FPM_READS_PER_POLL && fpm.cfd >= 0 &&
	     fpm.c.nlport_snapshots == snaps; i++) {
		n = read(fpm.cfd, fpm.buf + fpm.blen, FPM_BUF - fpm.blen);
		if (n == 0) {
			fpm.c.disconnects++;
			if (fpm.blen != 0) {
				/* the last frame will never be whole */
				fpm.frame_no++;
				parse_error(TEP_FPM_E_INCOMPLETE, NULL);
				return;
			}
			conn_close("closed by zebra");
			return;
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR)
				return;
			fpm.c.disconnects++;
			conn_close(strerror(errno));
			return;
		}
		fpm.c.bytes += (uint64_t)n;
		fpm.blen += (size_t)n;
		fpm.reads++;
		if (!drain_frames())
			return;
	}
}

/* ---- who may connect ---------------------------------------------------- */

/*
 * Whoever feeds the FPM port writes tepd's RIB, the underlay's included,
 * and a new connection replaces zebra's. So only zebra may connect: the
 * peer's socket must be in tepd's network namespace and owned by root,
 * by tepd's uid or by one of `fpm set uids` (default: user frr's). A
 * peer whose socket is not in the namespace (another host, another
 * namespace) has no uid tepd can learn: refused unless `fpm set remote
 * on`. Checked before anything of the current session is touched.
 */
#define FPM_UIDS_MAX	8
#define FPM_REFUSALS_LOGGED 10	/* per second; the counters go on */
#define FPM_ACCEPTS_PER_POLL 8

static struct {
	int diag_fd;		/* NETLINK_SOCK_DIAG in tepd's namespace */
	uint32_t uid[FPM_UIDS_MAX];	/* besides root and tepd's own */
	unsigned int nuid;
	bool uids_set;		/* by `fpm set uids`; else user frr's */
	bool any;		/* `fpm set uids any`: no check */
	bool remote;		/* `fpm set remote on` */
	uint64_t log_tsc;	/* start of the current second of logs */
	unsigned int logged, unlogged;
} door = { .diag_fd = -1 };

static bool
uid_allowed(uint32_t uid)
{
	unsigned int i;

	if (uid == 0 || uid == (uint32_t)geteuid())
		return true;
	for (i = 0; i < door.nuid; i++)
		if (door.uid[i] == uid)
			return true;
	return false;
}

static void
refusal_log(const char *peer, const char *why)
{
	uint64_t now = rte_rdtsc();

	if (now - door.log_tsc >= rte_get_tsc_hz()) {
		if (door.unlogged != 0)
			fprintf(stderr, "tepd: fpm: %u more connection(s) "
				"refused, not logged\n", door.unlogged);
		door.log_tsc = now;
		door.logged = door.unlogged = 0;
	}
	if (door.logged++ >= FPM_REFUSALS_LOGGED) {
		door.unlogged++;
		return;
	}
	fprintf(stderr, "tepd: fpm: connection from %s refused: %s\n", peer,
		why);
}

/* May the peer of this accepted connection feed routes? If not, counted
 * and logged. */
static bool
peer_allowed(int fd, const char *peer)
{
	char why[160];
	uint32_t uid = 0;
	int ret;

	if (door.any)
		return true;
	ret = door.diag_fd >= 0 ? tep_tcp_peer_uid(door.diag_fd, fd, &uid) :
				  -EBADF;
	if (ret == 0 && uid_allowed(uid))
		return true;
	if (ret == -ENOENT && door.remote)
		return true;
	if (ret == 0) {
		fpm.c.refused_uid++;
		snprintf(why, sizeof(why), "uid %u is not allowed (root, "
			 "tepd's uid and fpm set uids are)", uid);
	} else {
		fpm.c.refused_unverified++;
		if (ret == -ENOENT)
			snprintf(why, sizeof(why), "its socket is not in "
				 "tepd's network namespace, its uid unknown "
				 "(fpm set remote on admits such peers)");
		else if (ret == -ESRCH)
			snprintf(why, sizeof(why), "its socket is closed, its "
				 "owner unknown");
		else
			snprintf(why, sizeof(why), "its uid could not be "
				 "looked up (sock_diag: %s)", strerror(-ret));
	}
	refusal_log(peer, why);
	return false;
}

static void
peer_name(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(s4->sin_port));
	} else {
		const struct sockaddr_in6 *s6 =
			(const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(s6->sin6_port));
	}
}

/* The default allowed uid: FRR's user, when there is one. */
static void
uids_default(void)
{
	struct passwd pw, *res = NULL;
	char buf[1024];

	if (door.uids_set)
		return;
	door.nuid = 0;
	if (getpwnam_r("frr", &pw, buf, sizeof(buf), &res) == 0 &&
	    res != NULL)
		door.uid[door.nuid++] = (uint32_t)pw.pw_uid;
}

/* `fpm set uids LIST|none|any`, `fpm set remote on|off`: 0 or EINVAL
 * with nothing changed */
static int
door_set(const char *key, const char *value, char *err, size_t errlen)
{
	uint32_t uid[FPM_UIDS_MAX];
	unsigned int n = 0;
	char list[256], *tok, *save = NULL;

	if (strcmp(key, "remote") == 0) {
		if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0) {
			snprintf(err, errlen, "fpm set remote on|off, not "
				 "\"%s\"", value);
			return EINVAL;
		}
		door.remote = strcmp(value, "on") == 0;
		return 0;
	}
	if (strcmp(value, "any") == 0) {
		door.any = door.uids_set = true;
		door.nuid = 0;
		return 0;
	}
	if (snprintf(list, sizeof(list), "%s", value) >= (int)sizeof(list)) {
		snprintf(err, errlen, "fpm set uids: list too long");
		return EINVAL;
	}
	for (tok = strtok_r(list, ",", &save);
	     tok != NULL && strcmp(value, "none") != 0;
	     tok = strtok_r(NULL, ",", &save)) {
		struct passwd pw, *res = NULL;
		char buf[1024], *end;
		unsigned long v;

		if (n == FPM_UIDS_MAX) {
			snprintf(err, errlen, "fpm set uids: at most %d",
				 FPM_UIDS_MAX);
			return EINVAL;
		}
		errno = 0;
		v = strtoul(tok, &end, 10);
		if (*tok >= '0' && *tok <= '9' && *end == '\0' &&
		    errno == 0 && v < UINT32_MAX) {
			uid[n++] = (uint32_t)v;
			continue;
		}
		if (getpwnam_r(tok, &pw, buf, sizeof(buf), &res) != 0 ||
		    res == NULL) {
			snprintf(err, errlen, "fpm set uids: no user \"%s\" "
				 "(UID|USER[,...], none, any)", tok);
			return EINVAL;
		}
		uid[n++] = (uint32_t)pw.pw_uid;
	}
	if (n == 0 && strcmp(value, "none") != 0) {
		snprintf(err, errlen, "fpm set uids UID|USER[,...] | none | "
			 "any");
		return EINVAL;
	}
	memcpy(door.uid, uid, n * sizeof(uid[0]));
	door.nuid = n;
	door.any = false;
	door.uids_set = true;
	return 0;
}

static void
door_show(struct tep_out *o)
{
	uint32_t self = (uint32_t)geteuid();
	struct passwd pw, *res = NULL;
	char buf[1024];
	unsigned int i;

	tep_out_bool(o, "uid_check", NULL, !door.any);
	if (door.any)
		tep_out_text(o, "allowed uids: any (fpm set uids any)");
	tep_out_open_array(o, "allowed_uids");
	if (!door.any) {
		tep_out_u64(o, NULL, "allowed uids: %" PRIu64 " (root)", 0);
		if (self != 0)
			tep_out_u64(o, NULL, ", %" PRIu64 " (tepd)", self);
	}
	for (i = 0; i < door.nuid; i++) {
		if (door.uid[i] == 0 || door.uid[i] == self)
			continue;
		tep_out_u64(o, NULL, ", %" PRIu64, door.uid[i]);
		if (getpwuid_r(door.uid[i], &pw, buf, sizeof(buf), &res) == 0 &&
		    res != NULL)
			tep_out_text(o, " (%s)", pw.pw_name);
	}
	tep_out_close_array(o);
	tep_out_bool(o, "remote", NULL, door.remote);
	tep_out_text(o, "; peers outside tepd's namespace: %s",
		     door.remote ? "let in (remote on)" : "refused");
	tep_out_newline(o);
}

/* ---- accepting ---------------------------------------------------------- */

/* One connection from the backlog; false when there was none. */
static bool
conn_accept(void)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char peer[sizeof(fpm.peer)];
	int fd;

	fd = accept4(fpm.lfd, (struct sockaddr *)&ss, &sl,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return false;
	peer_name(&ss, peer, sizeof(peer));
	if (!peer_allowed(fd, peer)) {
		close(fd);
		return true;
	}
	if (fpm.cfd >= 0) {
		fpm.c.conn_replaced++;
		conn_close("replaced by a new connection");
	}
	snprintf(fpm.peer, sizeof(fpm.peer), "%s", peer);
	fpm.cfd = fd;
	fpm.blen = 0;
	fpm.frame_no = 0;
	/* Every FPM route is stale from now on until replayed. */
	fpm.gen++;
	if (fpm.gen == 0)
		fpm.gen = 1;
	fpm.nnlport = 0;
	fpm.nnlport_logged = 0;
	fpm.sweep_due = true;
	fpm.hold_due = false;
	fpm.last_tsc = rte_rdtsc();
	fpm.c.connects++;
	printf("tepd: fpm: connection from %s (generation %u)\n", fpm.peer,
	       fpm.gen);
	fflush(stdout);
	return true;
}

void
tep_fpm_poll(void)
{
	uint64_t now;
	int i;

	if (!fpm.enabled)
		return;
	/* refused connections must not queue up in the small backlog */
	for (i = 0; i < FPM_ACCEPTS_PER_POLL && conn_accept(); i++)
		;
	if (fpm.cfd >= 0)
		conn_read();
	now = rte_rdtsc();
	if (fpm.cfd >= 0 && fpm.sweep_due &&
	    now - fpm.last_tsc >= ms_to_tsc(fpm.quiet_ms)) {
		fpm.sweep_due = false;
		sweep(SWEEP_REPLAY);
	}
	/* not while a new replay is under way: it will judge them again
	 * (and the clock read again: the sweep above may have just set
	 * stale_tsc, after `now`) */
	if (fpm.stale_due && !fpm.sweep_due &&
	    rte_rdtsc() - fpm.stale_tsc >= ms_to_tsc(fpm.stale_ms))
		sweep(SWEEP_STALE);
	if (fpm.cfd < 0 && fpm.hold_due &&
	    now - fpm.gone_tsc >= ms_to_tsc(fpm.hold_ms)) {
		fpm.hold_due = false;
		sweep(SWEEP_ALL);
	}
}

int
tep_fpm_start(const char *listen_arg, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	bool v6;
	int one = 1;

	if (tep_parse_listen(listen_arg, &ss, &v6) != 0) {
		snprintf(err, errlen, "-P %s: expected [ADDR:]PORT, e.g. "
			 "2620, 127.0.0.1:2620 or [::1]:2620", listen_arg);
		return -1;
	}
	fpm.buf = malloc(FPM_BUF);
	if (fpm.buf == NULL) {
		snprintf(err, errlen, "-P: out of memory");
		return -1;
	}
	fpm.lfd = socket(v6 ? AF_INET6 : AF_INET,
			 SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fpm.lfd < 0 ||
	    setsockopt(fpm.lfd, SOL_SOCKET, SO_REUSEADDR, &one,
		       sizeof(one)) != 0 ||
	    bind(fpm.lfd, (struct sockaddr *)&ss,
		 v6 ? sizeof(struct sockaddr_in6) :
		      sizeof(struct sockaddr_in)) != 0 ||
	    listen(fpm.lfd, 4) != 0) {
		snprintf(err, errlen, "-P %s: cannot listen (%s)", listen_arg,
			 strerror(errno));
		if (fpm.lfd >= 0)
			close(fpm.lfd);
		fpm.lfd = -1;
		free(fpm.buf);
		fpm.buf = NULL;
		return -1;
	}
	/* in tepd's namespace, as the listener: the peers it can see are
	 * those that can reach 127.0.0.1 */
	door.diag_fd = tep_sock_diag_open();
	if (door.diag_fd < 0 && !door.any)
		fprintf(stderr, "tepd: fpm: no sock_diag socket (%s): every "
			"connection will be refused, as its uid cannot be "
			"told (fpm set uids any admits them)\n",
			strerror(errno));
	uids_default();
	if (pending_index == NULL && pending_index_init(err, errlen) != 0) {
		tep_fpm_stop();
		return -1;
	}
	snprintf(fpm.listen, sizeof(fpm.listen), "%s", listen_arg);
	fpm.enabled = true;
	return 0;
}

void
tep_fpm_stop(void)
{
	if (fpm.cfd >= 0)
		close(fpm.cfd);
	if (fpm.lfd >= 0)
		close(fpm.lfd);
	if (door.diag_fd >= 0)
		close(door.diag_fd);
	fpm.cfd = fpm.lfd = door.diag_fd = -1;
	free(fpm.buf);
	fpm.buf = NULL;
	fpm.enabled = false;
}

/* ---- tepctl ------------------------------------------------------------- */

/* "truncated header" -> "fpm_err_truncated_header" */
static void
err_key(int e, char *key, size_t len)
{
	const char *s = tep_fpm_err_str(e);
	size_t i = (size_t)snprintf(key, len, "fpm_err_");

	for (; *s != '\0' && i + 1 < len; s++)
		key[i++] = (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')
			   ? *s : '_';
	key[i] = '\0';
}

void
tep_fpm_each_counter(tep_fpm_counter_cb cb, void *arg)
{
	int e;

#define FPM_X(n) cb(arg, #n, false, fpm.c.n);
	FPM_COUNTERS(FPM_X)
#undef FPM_X
	for (e = 1; e < TEP_FPM_E_MAX; e++)
		cb(arg, tep_fpm_err_str(e), true, fpm.c.err[e]);
}

bool
tep_fpm_connected(void)
{
	return fpm.cfd >= 0;
}

void
tep_fpm_stats(struct tep_out *o)
{
	char key[64], fmt[80];
	int e;

	tep_out_open_object(o, "fpm");
	tep_out_text(o, "fpm:");
	tep_out_newline(o);
#define FPM_X(n)							\
	tep_out_u64(o, "fpm_" #n, "    fpm_" #n " %" PRIu64 "\n", fpm.c.n);
	FPM_COUNTERS(FPM_X)
#undef FPM_X
	/* parse errors: only those seen, like drops */
	for (e = 1; e < TEP_FPM_E_MAX; e++) {
		if (fpm.c.err[e] == 0)
			continue;
		err_key(e, key, sizeof(key));
		snprintf(fmt, sizeof(fmt), "    %s %%" PRIu64 "\n", key);
		tep_out_u64(o, key, fmt, fpm.c.err[e]);
	}
	tep_out_close_object(o);
}

void
tep_fpm_show(struct tep_out *o)
{
	uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz();

	tep_out_bool(o, "enabled", NULL, fpm.enabled);
	if (!fpm.enabled) {
		tep_out_text(o, "fpm: off (tepd -P [ADDR:]PORT)");
		tep_out_newline(o);
		return;
	}
	tep_out_str(o, "listen", NULL, fpm.listen);
	tep_out_text(o, "fpm: listening on %s", fpm.listen);
	tep_out_newline(o);
	door_show(o);
	tep_out_bool(o, "connected", NULL, fpm.cfd >= 0);
	if (fpm.cfd >= 0)
		tep_out_str(o, "peer", "connected: %s", fpm.peer);
	else
		tep_out_text(o, "not connected");
	tep_out_u64(o, "generation", ", generation %" PRIu64, fpm.gen);
	tep_out_newline(o);
	tep_out_bool(o, "replay", NULL, fpm.cfd >= 0 && fpm.sweep_due);
	if (fpm.cfd >= 0 && fpm.sweep_due)
		tep_out_u64(o, "replay_quiet_ms", "replay under way: quiet for "
			    "%" PRIu64 " ms", (now - fpm.last_tsc) * 1000 / hz);
	tep_out_bool(o, "holding", NULL, fpm.cfd < 0 && fpm.hold_due);
	if (fpm.cfd < 0 && fpm.hold_due)
		tep_out_u64(o, "held_ms", "routes held since %" PRIu64 " ms",
			    (now - fpm.gone_tsc) * 1000 / hz);
	tep_out_newline(o);
	tep_out_u64(o, "quiet_ms", "quiet %" PRIu64 " ms", fpm.quiet_ms);
	tep_out_u64(o, "hold_ms", ", hold %" PRIu64 " ms", fpm.hold_ms);
	tep_out_u64(o, "stale_ms", ", BGP stale %" PRIu64 " ms", fpm.stale_ms);
	tep_out_newline(o);
	tep_out_u64(o, "tunnels", "tunnels %" PRIu64, ev.ntun);
	tep_out_u64(o, "tunnels_max", " of at most %" PRIu64,
		    fpm.tunnels_max);
	ev.nh_bound = fpm_nh_count();
	tep_out_u64(o, "nexthops", ", next hops %" PRIu64, ev.nh_bound);
	tep_out_u64(o, "nexthops_max", " of at most %" PRIu64, fpm.nh_max);
	tep_out_newline(o);
	tep_out_bool(o, "bgp_stale_held", NULL, fpm.stale_due);
	if (fpm.stale_due) {
		tep_out_u64(o, "bgp_stale_for_ms", "BGP routes of an older "
			    "replay held for %" PRIu64 " ms more",
			    (ms_to_tsc(fpm.stale_ms) >
			     now - fpm.stale_tsc ? ms_to_tsc(fpm.stale_ms) -
			     (now - fpm.stale_tsc) : 0) * 1000 / hz);
		tep_out_newline(o);
	}
	tep_fpm_stats(o);
}

#define FPM_SET_USAGE "fpm set quiet SECONDS | hold SECONDS | stale " \
	"SECONDS | uids UID|USER[,...]|none|any | remote on|off | " \
	"tunnels N | nexthops N"

/* fpm set tunnels|nexthops N: how many FPM may take. Below what it holds
 * already: those stay, new ones are refused. */
static int
set_cap(const char *key, const char *value, char *err, size_t errlen)
{
	bool tun = strcmp(key, "tunnels") == 0;
	unsigned long max = tun ? TEP_TUNNELS_MAX : TEP_NH_MAX, v;
	char *end;

	errno = 0;
	v = strtoul(value, &end, 10);
	if (value[0] < '0' || value[0] > '9' || *end != '\0' || errno != 0 ||
	    v > max) {
		snprintf(err, errlen, "%s \"%s\": 0-%lu (how many %s FPM "
			 "may make)", key, value, max,
			 tun ? "tunnels" : "next hops");
		return EINVAL;
	}
	if (tun)
		fpm.tunnels_max = (uint32_t)v;
	else
		fpm.nh_max = (uint32_t)v;
	return 0;
}

int
tep_fpm_set(const char *key, const char *value, char *err, size_t errlen)
{
	char *end;
	double s;
	uint32_t ms;

	if (strcmp(key, "uids") == 0 || strcmp(key, "remote") == 0)
		return door_set(key, value, err, errlen);
	if (strcmp(key, "tunnels") == 0 || strcmp(key, "nexthops") == 0)
		return set_cap(key, value, err, errlen);
	errno = 0;
	s = strtod(value, &end);
	if (end == value || *end != '\0' || errno != 0 ||
	    !(s >= 0 && s <= 3600)) {
		snprintf(err, errlen, "bad time \"%s\" (seconds, 0 to 3600)",
			 value);
		return EINVAL;
	}
	ms = (uint32_t)(s * 1000 + 0.5);
	if (strcmp(key, "quiet") == 0) {
		if (ms == 0) {
			snprintf(err, errlen, "quiet must be above 0: a sweep "
				 "before the replay would remove routes zebra "
				 "still has");
			return EINVAL;
		}
		fpm.quiet_ms = ms;
	} else if (strcmp(key, "hold") == 0) {
		fpm.hold_ms = ms;
	} else if (strcmp(key, "stale") == 0) {
		fpm.stale_ms = ms;
	} else {
		snprintf(err, errlen, FPM_SET_USAGE);
		return EINVAL;
	}
	return 0;
}
