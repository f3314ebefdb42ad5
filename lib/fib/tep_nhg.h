/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_NHG_H
#define TEP_NHG_H

/*
 * Next-hop groups (ECMP, weighted). A group is up to TEP_NHG_MEMBERS plain
 * next hops with weights; a route names it with a next hop of type
 * TEP_NHT_GROUP whose tunnel field is the group's id, so that the FIB
 * still holds one next-hop index per route and groups are shared between
 * routes the way next hops are.
 *
 * Member choice is a table of TEP_NHG_BUCKETS buckets per group, each
 * holding a member's next-hop index, indexed by the low bits of the flow
 * hash the datapath already has (the NIC's RSS hash or tepd's own):
 * stable for a flow, and resilient: each member has a share of the
 * buckets in proportion to its weight, and a change of members or
 * weights moves only the buckets it must (a removed member's buckets go
 * to the others; nobody else's move).
 *
 * Failover: tep_nh_set_up(r, nh, false) rewrites, in every group that
 * has nh as a member, that member's buckets to the members still up, at
 * once and without touching a route; when it comes back up its own
 * buckets (and only those) return to it. A group with no member up
 * resolves to TEP_NH_NONE (no route).
 *
 * Concurrency, as in tep_fib.h: the control thread writes, workers read.
 * A group's bucket table is rewritten in place with 2-byte atomic stores
 * (a reader sees the old or the new member, both valid next hops: a
 * member's slot is released only after a grace period); a change of
 * members publishes a new group and retires the old one after an RCU
 * grace period.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>

#include "tep_fib.h"

#define TEP_NHG_MEMBERS		64
#define TEP_NHG_BUCKETS		512	/* a power of two */
#define TEP_NHG_WEIGHT_MAX	65535

struct tep_nhg {
	/* Read by workers: the member (next-hop index) of each bucket, or
	 * TEP_NH_NONE when no member is up. */
	uint16_t bkt[TEP_NHG_BUCKETS];
	/* Control thread only below. */
	/* Each bucket's member with every member up: bkt is this with the
	 * buckets of members that are down given to the others. */
	uint16_t home[TEP_NHG_BUCKETS];
	uint32_t id;
	uint32_t ref;		/* next-hop slots (routes) naming the group */
	uint32_t n;		/* members */
	uint16_t member[TEP_NHG_MEMBERS];	/* next-hop indexes */
	uint32_t weight[TEP_NHG_MEMBERS];
};

struct tep_nhg_member {
	struct tep_nh nh;	/* a plain next hop (not a group) */
	uint32_t weight;	/* 1 to TEP_NHG_WEIGHT_MAX */
};

/*
 * Create or replace a group. *id 0: a new group at a free id, given back
 * in *id; otherwise group *id (1 to TEP_NHG_MAX - 1) is created or has
 * its members replaced (routes naming it follow at once, with only the
 * buckets that must move moved). Members: 1 to TEP_NHG_MEMBERS plain
 * next hops, each at most once, weights 1 to TEP_NHG_WEIGHT_MAX. Errors:
 * a positive errno with a message in err, and nothing changed.
 */
int tep_nhg_set(struct tep_rib *r, uint32_t *id,
		const struct tep_nhg_member *m, unsigned int n, char *err,
		size_t errlen);
/* Delete a group no route names (EBUSY otherwise). */
int tep_nhg_del(struct tep_rib *r, uint32_t id, char *err, size_t errlen);
/* The id of a group with exactly these members and weights (in any
 * order), or 0. */
uint32_t tep_nhg_find(const struct tep_rib *r,
		      const struct tep_nhg_member *m, unsigned int n);
/* Group id, or NULL. */
static inline const struct tep_nhg *
tep_nhg_get(const struct tep_rib *r, uint32_t id)
{
	return id > 0 && id < TEP_NHG_MAX ? r->nhg[id] : NULL;
}
/* Free every group (tep_rib_fini). */
void tep_nhg_fini(struct tep_rib *r);

/* The index of this next hop if some route or group uses it, else 0. */
uint32_t tep_nh_lookup(const struct tep_rib *r, const struct tep_nh *nh);
/*
 * Mark next hop nh (an index) down or up: in every group it is a member
 * of, its buckets go to the other members up, or come back to it. 0, or
 * EINVAL for an index that is not a next hop in use. Counted in
 * r->nh_failovers / r->nh_recoveries when the state changes while the
 * next hop is in a group.
 */
int tep_nh_set_up(struct tep_rib *r, uint32_t nh, bool up);
static inline bool
tep_nh_is_up(const struct tep_rib *r, uint32_t nh)
{
	return nh <= TEP_NH_MAX && r->nh_down[nh] == 0;
}

/* Datapath: group g's member for flow hash `hash` (TEP_NH_NONE if none
 * is up). */
static inline uint32_t
tep_nhg_pick(const struct tep_nhg *g, uint32_t hash)
{
	return __atomic_load_n(&g->bkt[hash & (TEP_NHG_BUCKETS - 1)],
			       __ATOMIC_RELAXED);
}

/*
 * Datapath: the plain next hop a packet of flow hash `hash` takes for the
 * next-hop index the FIB gave: nh itself unless it names a group, then
 * the group's member for that hash. Under an RCU read side (a worker
 * between two quiescent states).
 */
static inline uint32_t
tep_nh_resolve(const struct tep_rib *r, uint32_t nh, uint32_t hash)
{
	if (likely(r->nh[nh].type != TEP_NHT_GROUP))
		return nh;
	return tep_nhg_pick(__atomic_load_n(&r->nhg[r->nh[nh].tunnel],
					    __ATOMIC_ACQUIRE), hash);
}

/* The same for a burst, in place on what rte_fib*_lookup_bulk() gave. */
static inline void
tep_nh_resolve_bulk(const struct tep_rib *r, uint64_t *nh,
		    const uint32_t *hash, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		nh[i] = tep_nh_resolve(r, (uint32_t)nh[i], hash[i]);
}

#endif /* TEP_NHG_H */
