/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_FIB_H
#define TEP_FIB_H

/*
 * VRFs and their FIBs. Each VRF owns one DPDK rte_fib (DIR24_8) and one
 * rte_fib6 (TRIE); the FIBs map prefixes to a next-hop index, and next
 * hops live in one shared table, deduplicated and reference counted.
 *
 * One writer (the control thread) and lock-free readers (the workers):
 *  - a VRF is published by storing its pointer; deleting one unpublishes
 *    it, waits for an RCU grace period, then frees the FIBs;
 *  - a next-hop entry never changes while a route refers to it; a freed
 *    slot is reused only after a grace period.
 * DPDK 22.11's rte_fib has no RCU hook of its own (rte_fib_rcu_qsbr_add
 * came in 24.11): a tbl8 group freed by a delete can be reused by the
 * next add while a reader still walks it, so during route churn a lookup
 * may transiently see a neighbouring prefix's next hop. It never reads
 * freed memory (tbl8 is one array). docs/architecture.md says more.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_rcu_qsbr.h>

#define TEP_VRF_MAX		64
#define TEP_VRF_DEFAULT		0
#define TEP_VRF_NAME_MAX	32
#define TEP_NH_MAX		32767	/* 2-byte FIB entries: 2^15 - 1 */
#define TEP_NH_NONE		0	/* the FIBs' default: no route */
#define TEP_NHG_MAX		4096	/* group ids 1 to TEP_NHG_MAX - 1 */

struct tep_nhg;

enum tep_nh_type {
	TEP_NHT_UNSET,
	TEP_NHT_GW,		/* via a gateway on a port */
	TEP_NHT_CONNECTED,	/* the destination is on the port's link */
	TEP_NHT_TUNNEL,		/* into a tunnel */
	TEP_NHT_BLACKHOLE,
	TEP_NHT_LOCAL,		/* one of tepd's own addresses */
	TEP_NHT_GROUP,		/* a next-hop group: tunnel is its id
				 * (tep_nhg.h) */
};

/* Who installed a route: tepctl/config (static, the zero value) or
 * zebra over FPM. Part of the next hop, so that the FIB's one nh index
 * per route also says whose the route is. */
enum tep_nh_proto {
	TEP_PROTO_STATIC = 0,
	TEP_PROTO_FPM,
};

struct tep_nh {
	uint8_t type;		/* enum tep_nh_type */
	uint8_t gw_v6;
	uint16_t port;
	uint32_t tunnel;
	uint8_t gw[16];
	uint8_t proto;		/* enum tep_nh_proto */
	/* FPM: the route came from zebra's BGP (EVPN ones too): it may
	 * outlive a replay by the BGP stale time (app/tepd/fpm.c) */
	uint8_t fpm_bgp;
	/* explicit, so that = { 0 } zeroes it: the struct is a hash key;
	 * 32 bytes in all, so that an entry never straddles a cache line */
	uint8_t pad[2];
	/* FPM: the connection (generation) that last installed the route;
	 * routes of older ones are stale after a reconnect (app/tepd/fpm.c).
	 * 0 for static routes. */
	uint32_t gen;
};

/* The family of a gateway next hop's address (4 or 6): an IPv4 route may
 * have an IPv6 gateway (RFC 5549). */
static inline int
tep_nh_gw_family(const struct tep_nh *nh)
{
	return nh->gw_v6 ? 6 : 4;
}

struct tep_vrf {
	char name[TEP_VRF_NAME_MAX];
	uint32_t table;
	uint16_t id;
	struct rte_fib *fib4;
	struct rte_fib6 *fib6;
	uint32_t routes4, routes6;
	/* [0] IPv4, [1] IPv6: tables rebuilt because 22.11 miscounted
	 * their tbl8 groups (fib_rebuild) */
	uint32_t fib_rebuilds[2];
	/* The table was rebuilt from the RIB and no route changed since: a
	 * rebuild now would reserve just as much. */
	bool fib_fresh[2];
	/* When the last rebuild ended and how long it took (monotonic ns),
	 * and the routes refused "full" because a rebuild, which might have
	 * made room, would have come too soon after it (conf.rebuild_gap). */
	uint64_t fib_rebuilt_at[2];
	uint64_t fib_rebuild_ns[2];
	uint32_t fib_rebuilds_deferred[2];
	uint32_t fib_changes[2];	/* routes added or deleted since */
};

struct tep_rib;

struct tep_rib_conf {
	uint32_t max_routes4;	/* per VRF */
	uint32_t max_routes6;
	uint32_t tbl8_4;	/* DIR24_8 groups for prefixes longer than /24 */
	uint32_t tbl8_6;
	int socket_id;
	/* Called when a next hop takes slot idx, before any route refers
	 * to it, with r->nh_adj[idx] zeroed: the owner may fill that in.
	 * NULL: nothing to do. */
	void (*nh_init)(struct tep_rib *r, uint32_t idx, void *arg);
	void *nh_init_arg;
	/* A table that refuses a route is rebuilt (fib_rebuild) again only
	 * when enough has happened since its last rebuild: the routes added
	 * and deleted since are an eighth of its routes (64 at least), so
	 * that the rebuild's cost is spread over them; or the last rebuild
	 * ended rebuild_gap times its duration ago, so that rebuilds take
	 * at most 1 / (1 + rebuild_gap) of the control thread per table.
	 * A route refused in between is refused for good. Churn at capacity
	 * (delete one, add one) then rebuilds a few times a second, not per
	 * route. 0: rebuild whenever a route is refused. */
	uint32_t rebuild_gap;
};

struct tep_rib {
	struct tep_vrf *vrf[TEP_VRF_MAX];	/* read by workers */
	struct tep_nh nh[TEP_NH_MAX + 1];	/* read by workers */
	/* A word per next hop that its owner keeps up to date and workers
	 * read (tepd: a gateway's resolved MAC, its adjacency), so that a
	 * packet finds what it needs through its next-hop index alone:
	 * zeroed when a slot takes a new next hop, then conf.nh_init. */
	uint64_t nh_adj[TEP_NH_MAX + 1];	/* read by workers */
	uint32_t nh_ref[TEP_NH_MAX + 1];	/* control thread only */
	uint32_t nh_free_hint;
	struct rte_hash *nh_index;		/* tep_nh -> index */
	/* Next-hop groups by id (tep_nhg.h): a pointer published with a
	 * release store, replaced under RCU. */
	struct tep_nhg *nhg[TEP_NHG_MAX];	/* read by workers */
	uint32_t nhg_count;			/* control thread only */
	/* Members marked down (tep_nh_set_up): control thread only, the
	 * workers see it in the groups' bucket tables. */
	uint8_t nh_down[TEP_NH_MAX + 1];
	/* Times a next hop in a group went down / came back up
	 * (tep_nh_set_up). */
	uint64_t nh_failovers, nh_recoveries;
	struct rte_rcu_qsbr *rcu;
	struct tep_rib_conf conf;
	uint32_t fib_seq;			/* unique rte_fib names */
	size_t vrf_bytes;	/* heap one VRF's FIBs took (the default's) */
};

/* Errors: 0, or a positive errno with a one-line message in err. */
int tep_rib_init(struct tep_rib *r, const struct tep_rib_conf *conf,
		 struct rte_rcu_qsbr *rcu, char *err, size_t errlen);
void tep_rib_fini(struct tep_rib *r);

int tep_vrf_add(struct tep_rib *r, const char *name, uint32_t table,
		char *err, size_t errlen);
/* The caller checks bindings (ports, tunnels) first. */
int tep_vrf_del(struct tep_rib *r, uint16_t id, char *err, size_t errlen);
/* VRF id by name, or -1. */
int tep_vrf_find(const struct tep_rib *r, const char *name);

/* family: 4 or 6; addr: network-order bytes (4 or 16). */
int tep_route_add(struct tep_rib *r, uint16_t vrf, int family,
		  const uint8_t *addr, uint8_t depth, const struct tep_nh *nh,
		  char *err, size_t errlen);
int tep_route_del(struct tep_rib *r, uint16_t vrf, int family,
		  const uint8_t *addr, uint8_t depth, char *err, size_t errlen);
/* Add, or replace an existing route's next hop in place (readers see the
 * old or the new next hop, never no route). */
int tep_route_replace(struct tep_rib *r, uint16_t vrf, int family,
		      const uint8_t *addr, uint8_t depth,
		      const struct tep_nh *nh, char *err, size_t errlen);
/* The next hop of exactly this route, or NULL if there is none. */
const struct tep_nh *tep_route_exact(struct tep_rib *r, uint16_t vrf,
				     int family, const uint8_t *addr,
				     uint8_t depth);
/* Longest-prefix match from the control thread: next-hop index or 0, and
 * the matching prefix in *pfx / *depth when found. */
uint32_t tep_route_get(struct tep_rib *r, uint16_t vrf, int family,
		       const uint8_t *addr, uint8_t *pfx, uint8_t *depth);

typedef void (*tep_route_cb)(void *arg, int family, const uint8_t *pfx,
			     uint8_t depth, const struct tep_nh *nh);
void tep_route_walk(struct tep_rib *r, uint16_t vrf, int family,
		    tep_route_cb cb, void *arg);
/* The same from the skip-th route of the family (0-based, in the walk's
 * order), for at most max routes: how many cb saw. A listing resumed this
 * way misses or repeats a route only if the table changed in between. */
uint64_t tep_route_walk_range(struct tep_rib *r, uint16_t vrf, int family,
			      uint64_t skip, uint64_t max, tep_route_cb cb,
			      void *arg);

/* Where a walk in pieces stands: how many routes of the family it has
 * passed, and the last one it gave (when pos > 0). Zeroed: the start. */
struct tep_walk_cursor {
	uint64_t pos;
	uint8_t pfx[16];
	uint8_t depth;
};
/*
 * The next at most max routes of the family from where c stands; c moves
 * past them. How many cb saw. The walk resumes after the last route
 * given, found again by its prefix: a piece costs its own routes, not the
 * ones before it. If that route was deleted in between, the walk resumes
 * after the place it had in the walk's order (found by a scan). A route
 * present all along is given exactly once, whatever else changes; one
 * added or deleted in between may or may not be.
 */
uint64_t tep_route_walk_next(struct tep_rib *r, uint16_t vrf, int family,
			     struct tep_walk_cursor *c, uint64_t max,
			     tep_route_cb cb, void *arg);

/* How many routes (in all VRFs) use next hops of this type and id. */
uint32_t tep_nh_users(const struct tep_rib *r, enum tep_nh_type type,
		      uint32_t id);

/* Remove every route whose next hop matches (type, id): used when an
 * address is deleted (its connected and local routes go with it). */
void tep_route_flush_nh(struct tep_rib *r, const struct tep_nh *match);

#endif /* TEP_FIB_H */
