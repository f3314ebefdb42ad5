/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * lib/fib's additions for FPM: tep_route_replace() (add, or rewrite a
 * route's next hop in place) and tep_route_exact(); next hops that differ
 * only by proto or FPM generation are distinct entries, and replacing
 * releases the old one. Needs the EAL (rte_fib): --no-huge, no shared config.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "tep_fib.h"

static struct tep_rib *rib;

static int
setup(void **state)
{
	struct tep_rib_conf rc = {
		.max_routes4 = 1024, .max_routes6 = 1024,
		.tbl8_4 = 256, .tbl8_6 = 256,
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

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0], (char *)(uintptr_t)"--no-huge",
			(char *)(uintptr_t)"-m", (char *)(uintptr_t)"256",
			(char *)(uintptr_t)"--no-pci",
			(char *)(uintptr_t)"--no-shconf",
			(char *)(uintptr_t)"--log-level=lib.eal:error",
			(char *)(uintptr_t)"-l", (char *)(uintptr_t)"0" };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replace_v4),
		cmocka_unit_test(test_replace_v6),
	};

	(void)argc;
	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0)
		return 1;
	return cmocka_run_group_tests(tests, setup, NULL);
}
