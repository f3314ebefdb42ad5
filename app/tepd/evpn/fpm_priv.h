/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_FPM_PRIV_H
#define TEPD_FPM_PRIV_H

/*
 * Inside app/tepd/evpn only: the FPM session's and EVPN's state, and the
 * functions its files call of each other. fpm.c: the connection;
 * fpm_door.c: who may connect; fpm_routes.c: zebra's routes into the RIB
 * and the sweep; evpn.c: EVPN tunnels, router MACs, pending routes;
 * fpm_show.c: what tepctl shows and sets. Control thread only.
 */

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_hash.h>

#include "tep_fpm.h"
#include "tep_out.h"
#include "tepd.h"
#include "fpm.h"
#include "port.h"


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
	X(routes_added) X(routes_deleted) X(routes_changed)		\
	X(route_del_unknown) X(route_del_not_fpm) X(routes_static_kept)	\
	X(routes_no_vrf) X(routes_vrf_ambiguous) X(routes_vrf_unknown)	\
	X(routes_no_gateway) X(routes_unresolved)			\
	X(routes_encap) X(routes_failed) X(ecmp_truncated)		\
	X(paths_skipped) X(routes_multipath)				\
	X(routes_nh_id) X(nexthops)					\
	X(nh_objs_added) X(nh_objs_deleted) X(nh_objs_refused)		\
	X(nh_del_unknown) X(routes_by_nh_obj) X(nh_obj_routes_followed)	\
	X(nh_obj_routes_removed) X(nh_obj_routes_full)			\
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

struct fpm_session {
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
};
extern struct fpm_session fpm;

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
	/* a route of several paths, or by next-hop object: the whole
	 * route (malloc'd), given to route_add() again; else NULL and the
	 * one path is below */
	struct tep_fpm_route *rt;
	uint16_t vrf;
	uint8_t family, plen;
	uint8_t prefix[16];
	uint8_t vtep_fam;
	uint8_t vtep[16];
	uint32_t vni;
	uint32_t gen;
};

struct evpn_state {
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
};
extern struct evpn_state ev;

#define FPM_UIDS_MAX	8
#define FPM_REFUSALS_LOGGED 10	/* per second; the counters go on */
#define FPM_ACCEPTS_PER_POLL 8

struct fpm_door {
	int diag_fd;		/* NETLINK_SOCK_DIAG in tepd's namespace */
	uint32_t uid[FPM_UIDS_MAX];	/* besides root and tepd's own */
	unsigned int nuid;
	bool uids_set;		/* by `fpm set uids`; else user frr's */
	bool any;		/* `fpm set uids any`: no check */
	bool remote;		/* `fpm set remote on` */
	uint64_t log_tsc;	/* start of the current second of logs */
	unsigned int logged, unlogged;
};
extern struct fpm_door door;

enum sweep_what {
	SWEEP_REPLAY,	/* replay complete: older generations, BGP ones
			 * kept when there is a stale time */
	SWEEP_STALE,	/* the stale time is over: older generations */
	SWEEP_ALL,	/* hold time over: every FPM route */
};

/* evpn.c: routes waiting for a router MAC, by prefix; the counter an
 * EVPN route that waits is counted in */
extern struct rte_hash *pending_index;
extern uint64_t pend_ctr;

static inline int
family_of(uint8_t af)
{
	return af == AF_INET ? 4 : 6;
}

/* fpm.c */
uint64_t ms_to_tsc(uint32_t ms);

/* fpm_door.c */
bool peer_allowed(int fd, const char *peer);
void peer_name(const struct sockaddr_storage *ss, char *buf, size_t len);
void uids_default(void);
int door_set(const char *key, const char *value, char *err, size_t errlen);
void door_show(struct tep_out *o);

/*
 * fpm_nhobj.c: zebra's next-hop objects (`fpm use-next-hop-groups`) and
 * the routes installed through them, so that they follow when zebra
 * replaces an object and go when it deletes it.
 */
#define FPM_NHOBJ_MAX		4096	/* objects kept */
#define FPM_NHOBJ_ROUTES	65536	/* routes by object followed */
#define FPM_NHOBJ_LOGGED	16	/* refusals logged per connection */
extern struct tep_fpm_nhtab nhtab;
int nhobj_init(char *err, size_t errlen);
void nhobj_reset(void);		/* a new connection: zebra sends them all */
void nhobj_add(const struct tep_fpm_nhobj *o);
void nhobj_del(uint32_t id);
/* The routes by a replaced object are installed again with add, those by
 * a deleted one removed with forget (set once, by fpm.c). */
void nhobj_on_change(void (*add)(const struct tep_fpm_route *rt, int vrf),
		     bool (*forget)(uint16_t vrf, int family,
				    const uint8_t *a, uint8_t plen));
/* route rt (by object rt->nh_id) is zebra's now: false if it cannot be
 * followed (the table is full) */
bool nhobj_route_set(const struct tep_fpm_route *rt, uint16_t vrf);
/* no route of zebra's by object at this prefix any more */
void nhobj_route_clear(uint16_t vrf, int family, const uint8_t *a,
		       uint8_t plen);
/* the sweep: forget what is older than the connection (all: every one),
 * unless an FPM route of the same generation is still installed there */
void nhobj_routes_sweep(bool all);
uint32_t nhobj_count(void);
uint32_t nhobj_route_count(void);

/* fpm_routes.c */
int vrf_of_nlport(uint32_t pid);
int vrf_of_route(const struct tep_fpm_msg *m);
uint32_t fpm_nh_count(void);
void route_add(const struct tep_fpm_route *rt, int vrf);
void route_del(const struct tep_fpm_route *rt, int vrf);
/* zebra's route at this prefix is gone (not by a delete of its own):
 * removed if FPM's, not waiting, not followed; true if one was removed */
bool route_forget(uint16_t vrf, int family, const uint8_t *a, uint8_t plen);
void sweep(enum sweep_what what);

/* evpn.c */
bool evpn_vni(const struct tep_fpm_route *rt, const struct tep_fpm_nh *n,
	      uint16_t vrf, uint32_t *vni);
uint64_t *evpn_nh(const struct tep_fpm_nh *n, uint16_t vrf, uint32_t vni,
		  struct tep_nh *nh);
void pending_add(uint16_t vrf, const struct tep_fpm_route *rt,
		 const struct tep_fpm_nh *n, uint32_t vni);
/* scratch for a next-hop object's paths (control thread only) */
extern struct tep_fpm_nh pending_nh_scratch[TEP_FPM_MAX_NH];
void nh_released(const struct tep_nh *old);
void tunnel_gc(uint32_t id);
int pending_index_init(char *err, size_t errlen);
struct pending *pending_find(uint16_t vrf, int family, const uint8_t *a,
			     uint8_t plen);
void pending_drop(struct pending *p);
void mac_add(const struct tep_fpm_mac *m);
void mac_del(const struct tep_fpm_mac *m);
/* tunnel.c's tep_tunnel_on_gone(): a tunnel was deleted */
void evpn_tunnel_gone(uint32_t id);
/* What a pending route is given to when its router MAC arrives. */
void evpn_on_release(void (*add)(const struct tep_fpm_route *rt, int vrf));

#endif /* TEPD_FPM_PRIV_H */
