/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Next-hop groups: resilient bucket tables (tep_nhg.h). Control thread
 * only; the workers read tep_rib.nhg[] and the groups' bkt[] through
 * tep_nh_resolve().
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "tep_fib_priv.h"
#include "tep_nhg.h"

/* Position of next hop idx among g's members, or -1. */
static int
member_pos(const uint16_t *member, uint32_t n, uint32_t idx)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (member[i] == idx)
			return (int)i;
	return -1;
}

/*
 * Fill out[] from old[] for members member[0..n) with weights weight[],
 * of which only those with use[i] may take buckets:
 *  - each usable member's share (target) is TEP_NHG_BUCKETS * weight /
 *    total weight, the buckets left over by the rounding going to the
 *    largest remainders (lowest position on ties);
 *  - a bucket keeps its member from old[] if that member is usable and
 *    not yet over its share;
 *  - every other bucket goes, in bucket order, to the usable member
 *    furthest below its share.
 * So a member that stays keeps all its old buckets that its share still
 * covers, and only the buckets of members gone (or over their share)
 * move. No usable member: every bucket is TEP_NH_NONE.
 */
static void
fill(const uint16_t *old, uint16_t *out, const uint16_t *member,
     const uint32_t *weight, const bool *use, uint32_t n)
{
	uint32_t target[TEP_NHG_MEMBERS], cnt[TEP_NHG_MEMBERS] = { 0 };
	uint64_t rem[TEP_NHG_MEMBERS], total = 0;
	bool extra[TEP_NHG_MEMBERS] = { false };
	uint32_t i, b, given = 0;

	for (i = 0; i < n; i++)
		if (use[i])
			total += weight[i];
	if (total == 0) {
		for (b = 0; b < TEP_NHG_BUCKETS; b++)
			out[b] = TEP_NH_NONE;
		return;
	}
	for (i = 0; i < n; i++) {
		uint64_t w = use[i] ? weight[i] : 0;

		target[i] = (uint32_t)(TEP_NHG_BUCKETS * w / total);
		rem[i] = TEP_NHG_BUCKETS * w % total;
		given += target[i];
	}
	while (given < TEP_NHG_BUCKETS) {
		int best = -1;

		for (i = 0; i < n; i++)
			if (use[i] && !extra[i] &&
			    (best < 0 || rem[i] > rem[best]))
				best = (int)i;
		extra[best] = true;
		target[best]++;
		given++;
	}
	for (b = 0; b < TEP_NHG_BUCKETS; b++) {
		int p = old[b] == TEP_NH_NONE ? -1 :
			member_pos(member, n, old[b]);

		if (p >= 0 && use[p] && cnt[p] < target[p]) {
			out[b] = old[b];
			cnt[p]++;
		} else {
			out[b] = TEP_NH_NONE;
		}
	}
	for (b = 0; b < TEP_NHG_BUCKETS; b++) {
		int best = -1;

		if (out[b] != TEP_NH_NONE)
			continue;
		for (i = 0; i < n; i++)
			if (use[i] && cnt[i] < target[i] &&
			    (best < 0 || target[i] - cnt[i] >
					 target[best] - cnt[best]))
				best = (int)i;
		out[b] = member[best];
		cnt[best]++;
	}
}

/* The active table from home[]: the members down give their buckets to
 * those up. */
static void
fill_active(const struct tep_rib *r, const struct tep_nhg *g, uint16_t *out)
{
	bool use[TEP_NHG_MEMBERS] = { false };
	uint32_t i;

	for (i = 0; i < g->n; i++)
		use[i] = r->nh_down[g->member[i]] == 0;
	fill(g->home, out, g->member, g->weight, use, g->n);
}

static int
check_members(const struct tep_rib *r, const struct tep_nhg_member *m,
	      unsigned int n, char *err, size_t errlen)
{
	unsigned int i, j;

	if (n == 0)
		return fail(err, errlen, EINVAL,
			    "a next-hop group needs a member");
	if (n > TEP_NHG_MEMBERS)
		return fail(err, errlen, E2BIG,
			    "a next-hop group has at most %d members (%u "
			    "given)", TEP_NHG_MEMBERS, n);
	for (i = 0; i < n; i++) {
		if (m[i].weight == 0 || m[i].weight > TEP_NHG_WEIGHT_MAX)
			return fail(err, errlen, EINVAL,
				    "member %u: weight %u out of range (1 to "
				    "%d)", i + 1, m[i].weight,
				    TEP_NHG_WEIGHT_MAX);
		if (m[i].nh.type == TEP_NHT_GROUP)
			return fail(err, errlen, EINVAL,
				    "member %u: a group (%u) cannot be a "
				    "member of a group", i + 1,
				    m[i].nh.tunnel);
		if (m[i].nh.type == TEP_NHT_UNSET ||
		    m[i].nh.type > TEP_NHT_GROUP)
			return fail(err, errlen, ENOENT,
				    "member %u: no such next hop", i + 1);
		for (j = 0; j < i; j++)
			if (memcmp(&m[i].nh, &m[j].nh, sizeof(m[i].nh)) == 0)
				return fail(err, errlen, EINVAL,
					    "member %u: the same next hop as "
					    "member %u", i + 1, j + 1);
	}
	(void)r;
	return 0;
}

int
tep_nhg_set(struct tep_rib *r, uint32_t *id, const struct tep_nhg_member *m,
	    unsigned int n, char *err, size_t errlen)
{
	struct tep_nhg *old, *g;
	uint32_t gid = *id, i;
	int ret;

	ret = check_members(r, m, n, err, errlen);
	if (ret != 0)
		return ret;
	if (gid >= TEP_NHG_MAX)
		return fail(err, errlen, EINVAL,
			    "next-hop group id %u out of range (1 to %d)",
			    gid, TEP_NHG_MAX - 1);
	if (gid == 0) {
		for (gid = 1; gid < TEP_NHG_MAX; gid++)
			if (r->nhg[gid] == NULL)
				break;
		if (gid == TEP_NHG_MAX)
			return fail(err, errlen, ENOSPC,
				    "out of next-hop groups (%d)",
				    TEP_NHG_MAX - 1);
	}
	old = r->nhg[gid];
	g = rte_zmalloc("tep_nhg", sizeof(*g), RTE_CACHE_LINE_SIZE);
	if (g == NULL)
		return fail(err, errlen, ENOMEM, "out of memory");
	g->id = gid;
	g->n = n;
	for (i = 0; i < n; i++) {
		uint32_t idx = tep_nh_ref_get(r, &m[i].nh);

		if (idx == TEP_NH_NONE) {
			while (i-- > 0)
				tep_nh_ref_put(r, g->member[i]);
			rte_free(g);
			return fail(err, errlen, ENOSPC,
				    "out of next hops (%u)", TEP_NH_MAX);
		}
		g->member[i] = (uint16_t)idx;
		g->weight[i] = m[i].weight;
	}
	{
		bool all[TEP_NHG_MEMBERS] = { false };
		uint16_t none[TEP_NHG_BUCKETS] = { 0 };

		for (i = 0; i < n; i++)
			all[i] = true;
		fill(old != NULL ? old->home : none, g->home, g->member,
		     g->weight, all, n);
	}
	fill_active(r, g, g->bkt);
	if (old == NULL) {
		__atomic_store_n(&r->nhg[gid], g, __ATOMIC_RELEASE);
		r->nhg_count++;
		*id = gid;
		return 0;
	}
	g->ref = old->ref;
	__atomic_store_n(&r->nhg[gid], g, __ATOMIC_RELEASE);
	tep_fib_rcu_wait(r);
	/* no reader sees old any more: its members' references go */
	for (i = 0; i < old->n; i++)
		tep_nh_ref_put(r, old->member[i]);
	rte_free(old);
	*id = gid;
	return 0;
}

int
tep_nhg_del(struct tep_rib *r, uint32_t id, char *err, size_t errlen)
{
	struct tep_nhg *g = (struct tep_nhg *)tep_nhg_get(r, id);
	uint32_t i;

	if (g == NULL)
		return fail(err, errlen, ENOENT, "no next-hop group %u", id);
	if (g->ref > 0)
		return fail(err, errlen, EBUSY,
			    "next-hop group %u is in use by routes", id);
	__atomic_store_n(&r->nhg[id], NULL, __ATOMIC_RELEASE);
	r->nhg_count--;
	tep_fib_rcu_wait(r);
	for (i = 0; i < g->n; i++)
		tep_nh_ref_put(r, g->member[i]);
	rte_free(g);
	return 0;
}

uint32_t
tep_nhg_find(const struct tep_rib *r, const struct tep_nhg_member *m,
	     unsigned int n)
{
	uint32_t idx[TEP_NHG_MEMBERS], gid, i;

	if (n == 0 || n > TEP_NHG_MEMBERS)
		return 0;
	for (i = 0; i < n; i++) {
		idx[i] = tep_nh_lookup(r, &m[i].nh);
		if (idx[i] == TEP_NH_NONE)
			return 0;	/* a next hop no group has */
	}
	for (gid = 1; gid < TEP_NHG_MAX; gid++) {
		const struct tep_nhg *g = r->nhg[gid];

		if (g == NULL || g->n != n)
			continue;
		for (i = 0; i < n; i++) {
			int p = member_pos(g->member, g->n, idx[i]);

			if (p < 0 || g->weight[p] != m[i].weight)
				break;
		}
		if (i == n)
			return gid;
	}
	return 0;
}

void
tep_nhg_fini(struct tep_rib *r)
{
	uint32_t gid;

	for (gid = 1; gid < TEP_NHG_MAX; gid++) {
		rte_free(r->nhg[gid]);
		r->nhg[gid] = NULL;
	}
	r->nhg_count = 0;
}

int
tep_nh_set_up(struct tep_rib *r, uint32_t nh, bool up)
{
	uint16_t bkt[TEP_NHG_BUCKETS];
	bool member = false;
	uint32_t gid, b;

	if (nh == TEP_NH_NONE || nh > TEP_NH_MAX || r->nh_ref[nh] == 0 ||
	    r->nh[nh].type == TEP_NHT_GROUP)
		return EINVAL;
	if ((r->nh_down[nh] == 0) == up)
		return 0;
	r->nh_down[nh] = up ? 0 : 1;
	for (gid = 1; gid < TEP_NHG_MAX; gid++) {
		struct tep_nhg *g = r->nhg[gid];

		if (g == NULL || member_pos(g->member, g->n, nh) < 0)
			continue;
		member = true;
		fill_active(r, g, bkt);
		/* in place: each bucket is read whole, old or new */
		for (b = 0; b < TEP_NHG_BUCKETS; b++)
			if (g->bkt[b] != bkt[b])
				__atomic_store_n(&g->bkt[b], bkt[b],
						 __ATOMIC_RELEASE);
	}
	if (member) {
		if (up)
			r->nh_recoveries++;
		else
			r->nh_failovers++;
	}
	return 0;
}
