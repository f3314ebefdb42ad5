/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * lib/fib's additions for FPM: tep_route_replace() (add, or rewrite a
 * route's next hop in place) and tep_route_exact(); next hops that differ
 * only by proto or FPM generation are distinct entries, and replacing
 * releases the old one; the per-next-hop word (nh_adj, conf.nh_init);
 * the walk in pieces (tep_route_walk_range).
 * Needs the EAL (rte_fib): --no-huge, no shared config.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "tep_fib.h"
#include "tep_test_eal.h"

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

static uint32_t
users_gw(void)
{
	return tep_nh_users(rib, TEP_NHT_GW, 0);
}

static void
test_replace_v4(void **state)
{
	uint8_t p[4] = { 198, 18, 0, 0 }, q[4] = { 198, 18, 1, 0 };
	uint8_t a[4] = { 198, 18, 0, 9 }, pfx[16], depth;
	struct tep_nh st = { .type = TEP_NHT_GW, .gw = { 198, 51, 100, 2 } };
	struct tep_nh f1 = st, f2 = st, bh = { .type = TEP_NHT_BLACKHOLE };
	const struct tep_nh *nh;
	char err[256];
	uint32_t idx;

	(void)state;
	f1.proto = TEP_PROTO_FPM;
	f1.gen = 1;
	f2.proto = TEP_PROTO_FPM;
	f2.gen = 2;
	bh.proto = TEP_PROTO_FPM;

	assert_null(tep_route_exact(rib, 0, 4, p, 24));
	/* replace on a missing prefix adds */
	assert_int_equal(tep_route_replace(rib, 0, 4, p, 24, &st, err,
					   sizeof(err)), 0);
	assert_int_equal(rib->vrf[0]->routes4, 1);
	nh = tep_route_exact(rib, 0, 4, p, 24);
	assert_non_null(nh);
	assert_int_equal(nh->proto, TEP_PROTO_STATIC);
	/* exact, not longest match */
	assert_null(tep_route_exact(rib, 0, 4, p, 16));
	assert_null(tep_route_exact(rib, 0, 4, p, 33));
	assert_null(tep_route_exact(rib, 7, 4, p, 24));

	/* in place: the count stays, lookups see the new next hop */
	assert_int_equal(tep_route_replace(rib, 0, 4, p, 24, &f1, err,
					   sizeof(err)), 0);
	assert_int_equal(rib->vrf[0]->routes4, 1);
	nh = tep_route_exact(rib, 0, 4, p, 24);
	assert_int_equal(nh->proto, TEP_PROTO_FPM);
	assert_int_equal(nh->gen, 1);
	idx = tep_route_get(rib, 0, 4, a, pfx, &depth);
	assert_ptr_equal(&rib->nh[idx], nh);
	assert_int_equal(depth, 24);
	/* the static next hop is released: only one GW entry in use */
	assert_int_equal(users_gw(), 1);

	/* same next hop again: nothing changes, no reference leaks */
	assert_int_equal(tep_route_replace(rib, 0, 4, p, 24, &f1, err,
					   sizeof(err)), 0);
	assert_int_equal(rib->nh_ref[idx], 1);

	/* another generation is another entry; a second route shares it */
	assert_int_equal(tep_route_replace(rib, 0, 4, p, 24, &f2, err,
					   sizeof(err)), 0);
	assert_int_equal(tep_route_replace(rib, 0, 4, q, 24, &f2, err,
					   sizeof(err)), 0);
	nh = tep_route_exact(rib, 0, 4, q, 24);
	assert_int_equal(nh->gen, 2);
	assert_int_equal(users_gw(), 2);
	assert_int_equal(rib->vrf[0]->routes4, 2);

	/* other types */
	assert_int_equal(tep_route_replace(rib, 0, 4, q, 24, &bh, err,
					   sizeof(err)), 0);
	assert_int_equal(tep_route_exact(rib, 0, 4, q, 24)->type,
			 TEP_NHT_BLACKHOLE);
	assert_int_equal(users_gw(), 1);

	/* add on an existing route still refuses */
	assert_int_equal(tep_route_add(rib, 0, 4, p, 24, &st, err,
				       sizeof(err)), EEXIST);
	assert_int_equal(tep_route_del(rib, 0, 4, p, 24, err, sizeof(err)),
			 0);
	assert_int_equal(tep_route_del(rib, 0, 4, q, 24, err, sizeof(err)),
			 0);
	assert_int_equal(users_gw(), 0);
	assert_int_equal(rib->vrf[0]->routes4, 0);
	/* host bits and bad VRFs are refused by replace as by add */
	p[3] = 1;
	assert_int_equal(tep_route_replace(rib, 0, 4, p, 24, &st, err,
					   sizeof(err)), EINVAL);
	assert_int_equal(tep_route_replace(rib, 9, 4, q, 24, &st, err,
					   sizeof(err)), ENOENT);
}

static void
test_replace_v6(void **state)
{
	uint8_t p[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x50 };
	struct tep_nh a = { .type = TEP_NHT_BLACKHOLE };
	struct tep_nh b = { .type = TEP_NHT_BLACKHOLE, .proto = TEP_PROTO_FPM,
			    .gen = 3 };
	char err[256];
	int i;

	(void)state;
	/* many rewrites of one prefix: no tbl8 or next-hop leak */
	for (i = 0; i < 2000; i++)
		assert_int_equal(tep_route_replace(rib, 0, 6, p, 48,
						   i & 1 ? &a : &b, err,
						   sizeof(err)), 0);
	assert_int_equal(rib->vrf[0]->routes6, 1);
	assert_int_equal(tep_route_exact(rib, 0, 6, p, 48)->proto,
			 TEP_PROTO_STATIC);
	assert_int_equal(tep_nh_users(rib, TEP_NHT_BLACKHOLE, 0), 1);
	assert_int_equal(tep_route_del(rib, 0, 6, p, 48, err, sizeof(err)),
			 0);
	assert_int_equal(tep_nh_users(rib, TEP_NHT_BLACKHOLE, 0), 0);
}

/* conf.nh_init: what it saw of each call */
static struct {
	unsigned int calls;
	uint32_t idx;
	uint64_t adj_before;
	uint8_t gw0;
} seen;

static void
record_nh_init(struct tep_rib *r, uint32_t idx, void *arg)
{
	assert_ptr_equal(arg, &seen);
	seen.calls++;
	seen.idx = idx;
	seen.adj_before = r->nh_adj[idx];
	seen.gw0 = r->nh[idx].gw[3];
	r->nh_adj[idx] = 0xa000u + r->nh[idx].gw[3];
}

/* The per-next-hop word (adjacency): conf.nh_init runs once per new next
 * hop, sees the entry already written and its word zeroed, whatever the
 * slot held before; a next hop already in the table does not call it. */
static void
test_nh_adj(void **state)
{
	uint8_t p[4] = { 198, 19, 0, 0 }, q[4] = { 198, 19, 1, 0 };
	struct tep_nh a = { .type = TEP_NHT_GW, .gw = { 192, 0, 2, 20 } };
	struct tep_nh b = { .type = TEP_NHT_GW, .gw = { 192, 0, 2, 30 } };
	struct tep_rib *r = rib;
	uint8_t pfx[16], depth;
	char err[256];
	uint32_t i, ia;

	(void)state;
	r->conf.nh_init = record_nh_init;
	r->conf.nh_init_arg = &seen;
	/* a stale word in every slot, as a freed slot's last owner leaves */
	for (i = 0; i <= TEP_NH_MAX; i++)
		r->nh_adj[i] = 0xdeadbeef;
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(tep_route_add(r, 0, 4, p, 24, &a, err, sizeof(err)),
			 0);
	assert_int_equal(seen.calls, 1);
	assert_int_equal(seen.adj_before, 0);
	assert_int_equal(seen.gw0, 20);
	ia = seen.idx;
	assert_int_equal(tep_route_get(r, 0, 4, p, pfx, &depth), ia);
	assert_int_equal(r->nh_adj[ia], 0xa000u + 20);
	/* the same next hop again: shared, no call */
	assert_int_equal(tep_route_add(r, 0, 4, q, 24, &a, err, sizeof(err)),
			 0);
	assert_int_equal(seen.calls, 1);
	/* moved to another gateway: a new next hop, a fresh word */
	assert_int_equal(tep_route_replace(r, 0, 4, q, 24, &b, err,
					   sizeof(err)), 0);
	assert_int_equal(seen.calls, 2);
	assert_int_not_equal(seen.idx, ia);
	assert_int_equal(seen.adj_before, 0);
	assert_int_equal(seen.gw0, 30);
	assert_int_equal(r->nh_adj[seen.idx], 0xa000u + 30);
	assert_int_equal(r->nh_adj[ia], 0xa000u + 20);
	assert_int_equal(tep_route_del(r, 0, 4, p, 24, err, sizeof(err)), 0);
	assert_int_equal(tep_route_del(r, 0, 4, q, 24, err, sizeof(err)), 0);
	r->conf.nh_init = NULL;
}

/* The routes a walk gave, in order, as "ADDR-BYTES/DEPTH" keys. */
struct walk_log {
	int n;
	char key[64][40];
};

static void
log_route(void *arg, int family, const uint8_t *pfx, uint8_t depth,
	  const struct tep_nh *nh)
{
	struct walk_log *l = arg;
	int i, len = 0, k;

	(void)nh;
	assert_true(l->n < (int)RTE_DIM(l->key));
	for (i = 0; i < (family == 4 ? 4 : 16); i++) {
		k = snprintf(l->key[l->n] + len, sizeof(l->key[0]) - len,
			     "%02x", pfx[i]);
		len += k;
	}
	snprintf(l->key[l->n] + len, sizeof(l->key[0]) - len, "/%u", depth);
	l->n++;
}

/*
 * A listing in pieces (route show): for each family, pieces of every
 * size from 1 to past the end, each resumed at the position where the
 * last stopped, give exactly the full walk, in its order (the default
 * route included, which the trie keeps apart), and a piece reports how
 * many routes it gave.
 */
static void
test_walk_range(void **state)
{
	static const uint8_t d4[][5] = {
		{ 0, 0, 0, 0, 0 }, { 10, 0, 0, 0, 8 }, { 10, 1, 0, 0, 16 },
		{ 10, 1, 2, 0, 24 }, { 10, 1, 2, 3, 32 }, { 198, 18, 0, 0, 15 },
		{ 198, 19, 7, 0, 24 },
	};
	struct tep_nh bh = { .type = TEP_NHT_BLACKHOLE };
	struct walk_log full, parts;
	uint8_t a[16];
	char err[256];
	uint64_t pos, got, piece;
	int fam, i;

	(void)state;
	for (i = 0; i < (int)RTE_DIM(d4); i++)
		assert_int_equal(tep_route_add(rib, 0, 4, d4[i], d4[i][4], &bh,
					       err, sizeof(err)), 0);
	/* ::/0, 2001:db8::/32, 2001:db8:N::/48 (N 1-3), 2001:db8:1:N::/64
	 * (N 1-3), 2001:db8::1/128 */
	for (i = 0; i < 9; i++) {
		uint8_t depth = i == 0 ? 0 : i == 1 ? 32 : i < 5 ? 48 :
				i < 8 ? 64 : 128;

		memset(a, 0, sizeof(a));
		if (i > 0) {
			a[0] = 0x20; a[1] = 0x01; a[2] = 0x0d; a[3] = 0xb8;
		}
		if (depth == 48)
			a[5] = (uint8_t)(i - 1);
		if (depth == 64) {
			a[5] = 1;
			a[7] = (uint8_t)(i - 4);
		}
		if (depth == 128)
			a[15] = 1;
		assert_int_equal(tep_route_add(rib, 0, 6, a, depth, &bh, err,
					       sizeof(err)), 0);
	}
	for (fam = 4; fam <= 6; fam += 2) {
		memset(&full, 0, sizeof(full));
		tep_route_walk(rib, 0, fam, log_route, &full);
		assert_int_equal(full.n, fam == 4 ? (int)RTE_DIM(d4) : 9);
		for (piece = 1; piece <= (uint64_t)full.n + 1; piece++) {
			memset(&parts, 0, sizeof(parts));
			pos = 0;
			do {
				got = tep_route_walk_range(rib, 0, fam, pos,
							   piece, log_route,
							   &parts);
				assert_true(got <= piece);
				assert_int_equal(parts.n, (int)(pos + got));
				pos += got;
			} while (got == piece);
			assert_int_equal(parts.n, full.n);
			for (i = 0; i < full.n; i++)
				assert_string_equal(parts.key[i],
						    full.key[i]);
		}
		/* past the end: nothing */
		assert_int_equal(tep_route_walk_range(rib, 0, fam, full.n, 5,
						      log_route, &parts), 0);
		/* The same by cursor (resumed after the last route given). */
		for (piece = 1; piece <= (uint64_t)full.n + 1; piece++) {
			struct tep_walk_cursor c = { 0 };

			memset(&parts, 0, sizeof(parts));
			do {
				got = tep_route_walk_next(rib, 0, fam, &c,
							  piece, log_route,
							  &parts);
				assert_true(got <= piece);
				assert_int_equal(parts.n, (int)c.pos);
			} while (got == piece);
			assert_int_equal(parts.n, full.n);
			for (i = 0; i < full.n; i++)
				assert_string_equal(parts.key[i],
						    full.key[i]);
		}
	}
	/* A listing whose last route given is deleted before the next
	 * piece: the rest comes once each, by position (pieces of 2; the
	 * second route given, then the fourth, ... are deleted). */
	for (fam = 4; fam <= 6; fam += 2) {
		struct tep_walk_cursor c = { 0 };
		int k;

		memset(&full, 0, sizeof(full));
		tep_route_walk(rib, 0, fam, log_route, &full);
		memset(&parts, 0, sizeof(parts));
		while (tep_route_walk_next(rib, 0, fam, &c, 2, log_route,
					   &parts) == 2)
			assert_int_equal(tep_route_del(rib, 0, fam, c.pfx,
						       c.depth, err,
						       sizeof(err)), 0);
		assert_int_equal(parts.n, full.n);
		for (k = 0; k < full.n; k++)
			assert_string_equal(parts.key[k], full.key[k]);
		/* put back what the listing deleted */
		for (k = 1; k < full.n - (full.n % 2 == 0 ? 0 : 1); k += 2) {
			uint8_t pfx[16] = { 0 };
			unsigned int b, depth;
			const char *key = full.key[k];
			int rc;

			for (b = 0; b < (fam == 4 ? 4u : 16u); b++)
				assert_int_equal(sscanf(key + 2 * b, "%2hhx",
							&pfx[b]), 1);
			assert_int_equal(sscanf(strchr(key, '/') + 1, "%u",
						&depth), 1);
			rc = tep_route_add(rib, 0, fam, pfx, (uint8_t)depth,
					   &bh, err, sizeof(err));
			if (rc != 0)
				fail_msg("put back %s: %s", key, err);
		}
	}
	for (i = 0; i < (int)RTE_DIM(d4); i++)
		assert_int_equal(tep_route_del(rib, 0, 4, d4[i], d4[i][4],
					       err, sizeof(err)), 0);
}

/* 2001:db8:N::/64 */
static void
pfx64(uint8_t *a, unsigned int n)
{
	memset(a, 0, 16);
	a[0] = 0x20;
	a[1] = 0x01;
	a[2] = 0x0d;
	a[3] = 0xb8;
	a[4] = (uint8_t)(n >> 8);
	a[5] = (uint8_t)n;
}

/*
 * Churn at capacity does not rebuild the table per route (issue: a full
 * IPv6 table rebuilt itself for every delete-then-add): a table that
 * refuses a route is rebuilt again only after an eighth of its routes
 * (64 at least) changed, or after rebuild_gap times the last rebuild's
 * duration; in between the route is refused and counted as deferred.
 * 22.11's trie never gives a deleted /64's tbl8 groups back, so at
 * capacity every add after a delete needs a rebuild.
 */
static void
test_rebuild_bound(void **state)
{
	struct tep_nh bh = { .type = TEP_NHT_BLACKHOLE };
	struct tep_rib *r2 = rib;
	struct tep_vrf *v = NULL;
	unsigned int n, i, next;
	uint16_t id = 0;
	uint32_t rb;
	uint8_t a[16];
	char err[256];
	int rc2;

	(void)state;
	assert_int_equal(tep_vrf_add(r2, "rebuild", 77, err, sizeof(err)), 0);
	for (i = 0; i < TEP_VRF_MAX; i++)
		if (r2->vrf[i] != NULL &&
		    strcmp(r2->vrf[i]->name, "rebuild") == 0)
			id = (uint16_t)i;
	v = r2->vrf[id];
	assert_non_null(v);
	r2->conf.rebuild_gap = 1000000;	/* the time rule: not soon */
	/* Fill: the first refusal is the table's first rebuild. */
	for (n = 0; n < 1024; n++) {
		pfx64(a, n);
		if (tep_route_add(r2, id, 6, a, 64, &bh, err, sizeof(err)))
			break;
	}
	assert_true(n > 100 && n < 1024);
	assert_int_equal(v->routes6, n);
	assert_int_equal(v->fib_rebuilds[1], 1);
	rb = v->fib_rebuilds[1];
	next = 2000;

	/* Delete one, add one: refused, no rebuild, counted. */
	pfx64(a, 0);
	assert_int_equal(tep_route_del(r2, id, 6, a, 64, err, sizeof(err)),
			 0);
	pfx64(a, next);
	assert_int_equal(tep_route_add(r2, id, 6, a, 64, &bh, err,
				       sizeof(err)), ENOSPC);
	assert_non_null(strstr(err, "too recent"));
	assert_int_equal(v->fib_rebuilds[1], rb);
	assert_int_equal(v->fib_rebuilds_deferred[1], 1);
	assert_int_equal(v->routes6, n - 1);

	/* 64 changes since the rebuild pay for the next one. */
	for (i = 1; i < 64; i++) {
		pfx64(a, i);
		assert_int_equal(tep_route_del(r2, id, 6, a, 64, err,
					       sizeof(err)), 0);
	}
	pfx64(a, next);
	rc2 = tep_route_add(r2, id, 6, a, 64, &bh, err, sizeof(err));
	if (rc2 != 0)
		fail_msg("after 64 changes: %s", err);
	assert_int_equal(v->fib_rebuilds[1], rb + 1);
	next++;

	/* Refill to capacity (the fresh table has room for 63 more). */
	for (i = 0; i < 63; i++, next++) {
		pfx64(a, next);
		assert_int_equal(tep_route_add(r2, id, 6, a, 64, &bh, err,
					       sizeof(err)), 0);
	}
	pfx64(a, next);
	assert_int_equal(tep_route_add(r2, id, 6, a, 64, &bh, err,
				       sizeof(err)), ENOSPC);
	rb = v->fib_rebuilds[1];

	/* The time rule: rebuild_gap times the last duration later, one
	 * delete and one add rebuild again. */
	r2->conf.rebuild_gap = 2;
	pfx64(a, 64);
	assert_int_equal(tep_route_del(r2, id, 6, a, 64, err, sizeof(err)),
			 0);
	usleep((useconds_t)(v->fib_rebuild_ns[1] * 3 / 1000 + 2000));
	pfx64(a, next);
	rc2 = tep_route_add(r2, id, 6, a, 64, &bh, err, sizeof(err));
	if (rc2 != 0)
		fail_msg("after the gap: %s", err);
	assert_int_equal(v->fib_rebuilds[1], rb + 1);

	r2->conf.rebuild_gap = 0;
	assert_int_equal(tep_vrf_del(r2, id, err, sizeof(err)), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replace_v4),
		cmocka_unit_test(test_replace_v6),
		cmocka_unit_test(test_nh_adj),
		cmocka_unit_test(test_walk_range),
		cmocka_unit_test(test_rebuild_bound),
	};

	(void)argc;
	if (tep_test_eal_init(argv[0]) < 0)
		return 1;
	return cmocka_run_group_tests(tests, setup, NULL);
}
