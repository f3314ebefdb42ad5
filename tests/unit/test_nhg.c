/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * lib/fib's next-hop groups (tep_nhg.h): member choice by flow hash,
 * resilience when a member goes, weights, down/up without a route
 * update, the limits, and that a refused change changes nothing.
 * Needs the EAL (rte_fib): --no-huge, no shared config.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "tep_fib.h"
#include "tep_test_eal.h"
#include "tep_nhg.h"

#define FLOWS 10000

static struct tep_rib *rib;

static int
setup(void **state)
{
	struct tep_rib_conf rc = {
		.max_routes4 = 1024, .max_routes6 = 1024,
		.tbl8_4 = 256, .tbl8_6 = 1024,
	};
	char err[256];

	(void)state;
	rc.socket_id = (int)rte_socket_id();
	rib = rte_zmalloc("rib", sizeof(*rib), 64);
	if (rib == NULL || tep_rib_init(rib, &rc, NULL, err, sizeof(err)))
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	tep_rib_fini(rib);
	rte_free(rib);
	return 0;
}

/* A flow's hash: an integer mixer (what a NIC's RSS hash looks like
 * to us: well spread bits). */
static uint32_t
flow_hash(uint32_t i)
{
	uint32_t x = i * 0x9e3779b1u + 0x7f4a7c15u;

	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	return x;
}

static struct tep_nh
tun(uint32_t t)
{
	struct tep_nh nh = { .type = TEP_NHT_TUNNEL, .tunnel = t };

	return nh;
}

static struct tep_nh
grp(uint32_t id)
{
	struct tep_nh nh = { .type = TEP_NHT_GROUP, .tunnel = id };

	return nh;
}

/* The route 10.0.0.0/8 of the default VRF: its next-hop index. */
static uint32_t
route_nh(void)
{
	uint8_t a[4] = { 10, 1, 2, 3 }, pfx[16], depth;

	return tep_route_get(rib, 0, 4, a, pfx, &depth);
}

/* Each flow's member (as a tunnel number) for the route's next hop. */
static void
choose(uint32_t *out)
{
	uint32_t nh = route_nh(), i;

	for (i = 0; i < FLOWS; i++) {
		uint32_t m = tep_nh_resolve(rib, nh, flow_hash(i));

		out[i] = m == TEP_NH_NONE ? UINT32_MAX : rib->nh[m].tunnel;
	}
}

static void
count(const uint32_t *f, uint32_t *n, uint32_t members)
{
	uint32_t i;

	memset(n, 0, members * sizeof(*n));
	for (i = 0; i < FLOWS; i++) {
		assert_true(f[i] < members);
		n[f[i]]++;
	}
}

static const uint8_t p10[4] = { 10, 0, 0, 0 };

static void
test_resilient(void **state)
{
	struct tep_nhg_member m[4];
	uint32_t *before = calloc(FLOWS, 4), *after = calloc(FLOWS, 4);
	uint32_t id = 0, n[4], moved[4] = { 0 }, lost = 0, i;
	struct tep_nh g;
	char err[256];

	(void)state;
	for (i = 0; i < 4; i++) {
		m[i].nh = tun(i);
		m[i].weight = 1;
	}
	assert_int_equal(tep_nhg_set(rib, &id, m, 4, err, sizeof(err)), 0);
	assert_int_not_equal(id, 0);
	g = grp(id);
	assert_int_equal(tep_route_add(rib, 0, 4, p10, 8, &g, err,
				       sizeof(err)), 0);
	assert_int_equal(rib->nh[route_nh()].type, TEP_NHT_GROUP);
	choose(before);
	count(before, n, 4);
	for (i = 0; i < 4; i++)		/* even: 2500 each, within 10 % */
		assert_in_range(n[i], 2250, 2750);

	/* member 2 removed: the others keep every flow they had; member
	 * 2's flows spread over them */
	m[2] = m[3];
	assert_int_equal(tep_nhg_set(rib, &id, m, 3, err, sizeof(err)), 0);
	choose(after);
	for (i = 0; i < FLOWS; i++) {
		assert_int_not_equal(after[i], 2);
		if (before[i] != 2) {
			assert_int_equal(after[i], before[i]);
		} else {
			moved[after[i]]++;
			lost++;
		}
	}
	assert_int_equal(lost, n[2]);
	for (i = 0; i < 4; i++) {
		if (i == 2)
			continue;
		assert_in_range(moved[i], lost / 3 - lost / 30,
				lost / 3 + lost / 30);
	}
	/* tunnel 2's next hop released with the old group */
	assert_int_equal(tep_nh_users(rib, TEP_NHT_TUNNEL, 2), 0);
	assert_int_equal(tep_nh_users(rib, TEP_NHT_TUNNEL, 0), 1);

	assert_int_equal(tep_route_del(rib, 0, 4, p10, 8, err, sizeof(err)),
			 0);
	assert_int_equal(tep_nhg_del(rib, id, err, sizeof(err)), 0);
	assert_int_equal(tep_nh_users(rib, TEP_NHT_TUNNEL, 0), 0);
	assert_int_equal(rib->nhg_count, 0);
	free(before);
	free(after);
}

static void
test_weights(void **state)
{
	struct tep_nhg_member m[3];
	uint32_t *f = calloc(FLOWS, 4), id = 0, n[3], i, k;
	const struct tep_nhg *gp;
	uint32_t b[3] = { 0 };
	struct tep_nh g;
	char err[256];

	(void)state;
	for (i = 0; i < 3; i++) {
		m[i].nh = tun(i);
		m[i].weight = i + 1;
	}
	assert_int_equal(tep_nhg_set(rib, &id, m, 3, err, sizeof(err)), 0);
	gp = tep_nhg_get(rib, id);
	assert_non_null(gp);
	/* buckets in proportion: 512 * 1/6, 2/6, 3/6 */
	for (k = 0; k < TEP_NHG_BUCKETS; k++)
		b[rib->nh[gp->bkt[k]].tunnel]++;
	assert_int_equal(b[0] + b[1] + b[2], TEP_NHG_BUCKETS);
	assert_in_range(b[0], 85, 86);
	assert_in_range(b[1], 170, 171);
	assert_int_equal(b[2], 256);
	g = grp(id);
	assert_int_equal(tep_route_add(rib, 0, 4, p10, 8, &g, err,
				       sizeof(err)), 0);
	choose(f);
	count(f, n, 3);
	for (i = 0; i < 3; i++) {
		uint32_t even = FLOWS * (i + 1) / 6;

		assert_in_range(n[i], even - even / 10, even + even / 10);
	}
	/* the same members in another order are the same group */
	{
		struct tep_nhg_member r[3] = { m[2], m[0], m[1] };

		assert_int_equal(tep_nhg_find(rib, r, 3), id);
		r[0].weight = 1;
		assert_int_equal(tep_nhg_find(rib, r, 3), 0);
	}
	/* a weight change moves only what it must: tunnel 0 from 1 to 2
	 * grows by taking buckets, the others keep what their share
	 * still covers */
	{
		uint16_t old[TEP_NHG_BUCKETS];
		uint32_t kept = 0;

		memcpy(old, tep_nhg_get(rib, id)->bkt, sizeof(old));
		m[0].weight = 2;
		assert_int_equal(tep_nhg_set(rib, &id, m, 3, err,
					     sizeof(err)), 0);
		gp = tep_nhg_get(rib, id);
		for (k = 0; k < TEP_NHG_BUCKETS; k++)
			kept += gp->bkt[k] == old[k];
		/* 512 * 2/7 = 146 for tunnel 0: about 60 buckets move */
		assert_in_range(kept, TEP_NHG_BUCKETS - 64,
				TEP_NHG_BUCKETS - 56);
	}
	assert_int_equal(tep_route_del(rib, 0, 4, p10, 8, err, sizeof(err)),
			 0);
	assert_int_equal(tep_nhg_del(rib, id, err, sizeof(err)), 0);
	free(f);
}

static void
test_down_up(void **state)
{
	struct tep_nhg_member m[4];
	uint32_t *before = calloc(FLOWS, 4), *down = calloc(FLOWS, 4);
	uint32_t *up = calloc(FLOWS, 4), id = 0, id2 = 0, i, n[4];
	uint64_t fo = rib->nh_failovers, rc = rib->nh_recoveries;
	uint32_t nh1;
	struct tep_nh g;
	char err[256];

	(void)state;
	for (i = 0; i < 4; i++) {
		m[i].nh = tun(i);
		m[i].weight = 1;
	}
	assert_int_equal(tep_nhg_set(rib, &id, m, 4, err, sizeof(err)), 0);
	/* a second group sharing tunnel 1 */
	assert_int_equal(tep_nhg_set(rib, &id2, &m[1], 2, err, sizeof(err)),
			 0);
	assert_int_not_equal(id, id2);
	g = grp(id);
	assert_int_equal(tep_route_add(rib, 0, 4, p10, 8, &g, err,
				       sizeof(err)), 0);
	choose(before);

	nh1 = tep_nh_lookup(rib, &m[1].nh);
	assert_int_not_equal(nh1, TEP_NH_NONE);
	assert_int_equal(tep_nh_set_up(rib, nh1, false), 0);
	assert_false(tep_nh_is_up(rib, nh1));
	assert_int_equal(rib->nh_failovers, fo + 1);
	/* again: no change, not counted */
	assert_int_equal(tep_nh_set_up(rib, nh1, false), 0);
	assert_int_equal(rib->nh_failovers, fo + 1);
	choose(down);
	count(down, n, 4);
	assert_int_equal(n[1], 0);
	for (i = 0; i < FLOWS; i++)
		if (before[i] != 1)
			assert_int_equal(down[i], before[i]);
	/* and in the other group too: tunnel 2 only */
	for (i = 0; i < TEP_NHG_BUCKETS; i++)
		assert_int_equal(rib->nh[tep_nhg_get(rib, id2)->bkt[i]].tunnel,
				 2);

	/* a member down stays down across a change of the group */
	assert_int_equal(tep_nhg_set(rib, &id, m, 4, err, sizeof(err)), 0);
	choose(down);
	count(down, n, 4);
	assert_int_equal(n[1], 0);

	assert_int_equal(tep_nh_set_up(rib, nh1, true), 0);
	assert_int_equal(rib->nh_recoveries, rc + 1);
	choose(up);
	assert_memory_equal(up, before, FLOWS * sizeof(*up));

	/* all down: no route */
	for (i = 0; i < 4; i++)
		assert_int_equal(tep_nh_set_up(rib,
				 tep_nh_lookup(rib, &m[i].nh), false), 0);
	assert_int_equal(tep_nh_resolve(rib, route_nh(), 12345), TEP_NH_NONE);
	for (i = 0; i < 4; i++)
		assert_int_equal(tep_nh_set_up(rib,
				 tep_nh_lookup(rib, &m[i].nh), true), 0);
	choose(up);
	assert_memory_equal(up, before, FLOWS * sizeof(*up));

	/* not a next hop in use, or a group */
	assert_int_equal(tep_nh_set_up(rib, TEP_NH_MAX - 1, false), EINVAL);
	assert_int_equal(tep_nh_set_up(rib, route_nh(), false), EINVAL);

	assert_int_equal(tep_route_del(rib, 0, 4, p10, 8, err, sizeof(err)),
			 0);
	assert_int_equal(tep_nhg_del(rib, id, err, sizeof(err)), 0);
	assert_int_equal(tep_nhg_del(rib, id2, err, sizeof(err)), 0);
	free(before);
	free(down);
	free(up);
}

static void
test_bulk(void **state)
{
	struct tep_nhg_member m[2] = { { tun(7), 1 }, { tun(8), 1 } };
	uint32_t id = 0, hash[64], i, plain;
	uint64_t nh[64];
	struct tep_nh g, t9 = tun(9);
	uint8_t p11[4] = { 11, 0, 0, 0 };
	char err[256];

	(void)state;
	assert_int_equal(tep_nhg_set(rib, &id, m, 2, err, sizeof(err)), 0);
	g = grp(id);
	assert_int_equal(tep_route_add(rib, 0, 4, p10, 8, &g, err,
				       sizeof(err)), 0);
	assert_int_equal(tep_route_add(rib, 0, 4, p11, 8, &t9, err,
				       sizeof(err)), 0);
	plain = tep_nh_lookup(rib, &t9);
	for (i = 0; i < 64; i++) {
		hash[i] = flow_hash(i);
		nh[i] = i % 3 == 0 ? plain : i % 3 == 1 ? route_nh() : 0;
	}
	tep_nh_resolve_bulk(rib, nh, hash, 64);
	for (i = 0; i < 64; i++) {
		if (i % 3 == 0)
			assert_int_equal(nh[i], plain);
		else if (i % 3 == 2)
			assert_int_equal(nh[i], TEP_NH_NONE);
		else
			assert_int_equal(nh[i], tep_nh_resolve(rib,
					 route_nh(), hash[i]));
	}
	assert_int_equal(tep_route_del(rib, 0, 4, p10, 8, err, sizeof(err)),
			 0);
	assert_int_equal(tep_route_del(rib, 0, 4, p11, 8, err, sizeof(err)),
			 0);
	assert_int_equal(tep_nhg_del(rib, id, err, sizeof(err)), 0);
}

static void
test_refused(void **state)
{
	struct tep_nhg_member m[TEP_NHG_MEMBERS + 1];
	uint32_t id = 0, id2, i, users = 0;
	struct tep_nh g;
	char err[256];

	(void)state;
	for (i = 0; i <= TEP_NHG_MEMBERS; i++) {
		m[i].nh = tun(100 + i);
		m[i].weight = 1;
	}
	/* 64 members are fine */
	assert_int_equal(tep_nhg_set(rib, &id, m, TEP_NHG_MEMBERS, err,
				     sizeof(err)), 0);
	g = grp(id);
	assert_int_equal(tep_route_add(rib, 0, 4, p10, 8, &g, err,
				       sizeof(err)), 0);
	for (i = 0; i <= TEP_NHG_MEMBERS; i++)
		users += tep_nh_users(rib, TEP_NHT_TUNNEL, 100 + i);
	assert_int_equal(users, TEP_NHG_MEMBERS);

#define REFUSED(call, code)						\
	do {								\
		uint16_t bkt[TEP_NHG_BUCKETS];				\
		uint32_t u = 0, k;					\
									\
		memcpy(bkt, tep_nhg_get(rib, id)->bkt, sizeof(bkt));	\
		err[0] = '\0';						\
		assert_int_equal(call, code);				\
		assert_true(err[0] != '\0');				\
		assert_int_equal(rib->nhg_count, 1);			\
		assert_memory_equal(bkt, tep_nhg_get(rib, id)->bkt,	\
				    sizeof(bkt));			\
		for (k = 0; k <= TEP_NHG_MEMBERS + 2; k++)		\
			u += tep_nh_users(rib, TEP_NHT_TUNNEL, 100 + k); \
		assert_int_equal(u, TEP_NHG_MEMBERS);			\
	} while (0)

	/* the 65th member */
	REFUSED(tep_nhg_set(rib, &id, m, TEP_NHG_MEMBERS + 1, err,
			    sizeof(err)), E2BIG);
	/* no member */
	REFUSED(tep_nhg_set(rib, &id, m, 0, err, sizeof(err)), EINVAL);
	/* weight 0, and too heavy */
	m[3].weight = 0;
	REFUSED(tep_nhg_set(rib, &id, m, 4, err, sizeof(err)), EINVAL);
	m[3].weight = TEP_NHG_WEIGHT_MAX + 1;
	REFUSED(tep_nhg_set(rib, &id, m, 4, err, sizeof(err)), EINVAL);
	m[3].weight = 1;
	/* a group as a member (itself or another) */
	m[3].nh = grp(id);
	REFUSED(tep_nhg_set(rib, &id, m, 4, err, sizeof(err)), EINVAL);
	id2 = 0;
	REFUSED(tep_nhg_set(rib, &id2, m, 4, err, sizeof(err)), EINVAL);
	assert_int_equal(id2, 0);
	/* a missing next hop */
	memset(&m[3].nh, 0, sizeof(m[3].nh));
	REFUSED(tep_nhg_set(rib, &id, m, 4, err, sizeof(err)), ENOENT);
	/* the same next hop twice */
	m[3].nh = m[1].nh;
	REFUSED(tep_nhg_set(rib, &id, m, 4, err, sizeof(err)), EINVAL);
	m[3].nh = tun(103);
	/* an id out of range */
	id2 = TEP_NHG_MAX;
	REFUSED(tep_nhg_set(rib, &id2, m, 4, err, sizeof(err)), EINVAL);
	/* a route naming a missing group */
	{
		struct tep_nh missing = grp(TEP_NHG_MAX - 1);
		uint8_t p12[4] = { 12, 0, 0, 0 };

		REFUSED(tep_route_add(rib, 0, 4, p12, 8, &missing, err,
				      sizeof(err)), ENOENT);
		assert_null(tep_route_exact(rib, 0, 4, p12, 8));
	}
	/* deleting a group in use */
	REFUSED(tep_nhg_del(rib, id, err, sizeof(err)), EBUSY);
	REFUSED(tep_nhg_del(rib, id + 1, err, sizeof(err)), ENOENT);

	assert_int_equal(tep_route_del(rib, 0, 4, p10, 8, err, sizeof(err)),
			 0);
	assert_int_equal(tep_nhg_del(rib, id, err, sizeof(err)), 0);
	for (i = 0; i <= TEP_NHG_MEMBERS; i++)
		assert_int_equal(tep_nh_users(rib, TEP_NHT_TUNNEL, 100 + i),
				 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resilient),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_down_up),
		cmocka_unit_test(test_bulk),
		cmocka_unit_test(test_refused),
	};

	(void)argc;
	if (tep_test_eal_init(argv[0]) < 0)
		return 1;
	return cmocka_run_group_tests(tests, setup, teardown);
}
