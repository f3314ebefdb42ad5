/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * tepd's VRF FIB: load a route set (dpdk-test-fib's file format) into a
 * VRF exactly as `route add` does (tep_route_add: validation, next-hop
 * dedup, rte_fib_add), then look up an address file the way the workers
 * do (bursts of 32, rte_fib_lookup_bulk). Prints routes/s and cycles per
 * lookup, to set beside `dpdk-test-fib -f ROUTES -t IPS -e 2`.
 *
 * With GROUPS (> 0), each route points at one of GROUPS next-hop groups
 * of 4 gateways (its next-hop number modulo GROUPS), and each burst is
 * then timed both ways, on the same addresses and the same FIB, in turns
 * (which goes first alternates, as the second finds the FIB's lines
 * warm): lookup plus reading the next hop the FIB gave, as the workers
 * do for a plain next hop, against lookup plus member choice by flow
 * hash (tep_nh_resolve_bulk) plus reading the member. The lookups being
 * the same, the difference is what choosing a member costs. Printed:
 * the means, and a median of the difference per burst (a burst that an
 * interrupt or a neighbour on the core hit weighs one burst, not its
 * cycles): the mean of the medians of the bursts where the plain case
 * went first (its lookup cold, the member choice's warm) and of those
 * where it went second, as the two are far apart. One FIB, not one per case: two VRFs' tables of the same
 * routes were measured 20 cycles per lookup apart (the second VRF's
 * slower, whichever was looked up first).
 *
 *   bench_fib [EAL options] -- ROUTES_FILE IPS_FILE [GROUPS]
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>

#include "tep_fib.h"
#include "tep_nhg.h"

/* A flow hash for the i-th address: well spread bits, as an RSS hash. */
static uint32_t
flow_hash(uint32_t i)
{
	uint32_t x = i * 0x9e3779b1u;

	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	return x;
}

/* GROUPS groups of 4 gateways each, ids 1 to GROUPS. */
static int
make_groups(struct tep_rib *rib, uint32_t groups)
{
	char err[256];
	uint32_t g, m;

	for (g = 0; g < groups; g++) {
		struct tep_nhg_member mb[4];
		uint32_t id = g + 1, hop;

		for (m = 0; m < 4; m++) {
			hop = g * 4 + m + 1;
			memset(&mb[m], 0, sizeof(mb[m]));
			mb[m].nh.type = TEP_NHT_GW;
			mb[m].nh.gw[0] = 10;
			mb[m].nh.gw[1] = (uint8_t)(hop >> 16);
			mb[m].nh.gw[2] = (uint8_t)(hop >> 8);
			mb[m].nh.gw[3] = (uint8_t)hop;
			mb[m].weight = 1;
		}
		if (tep_nhg_set(rib, &id, mb, 4, err, sizeof(err)) != 0) {
			fprintf(stderr, "group %u: %s\n", g + 1, err);
			return -1;
		}
	}
	return 0;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Lookup plus plain next hop (grp false) or plus member choice, for one
 * burst of 32: cycles. */
static uint64_t
timed_burst(const struct tep_rib *rib, struct rte_fib *fib,
	    uint32_t *ips, const uint32_t *hash, bool grp, uint64_t *sink)
{
	uint64_t nh[32], t0 = rte_rdtsc_precise();
	uint32_t k;

	rte_fib_lookup_bulk(fib, ips, nh, 32);
	if (grp)
		tep_nh_resolve_bulk(rib, nh, hash, 32);
	for (k = 0; k < 32; k++)
		*sink += rib->nh[nh[k]].type;
	return rte_rdtsc_precise() - t0;
}

int
main(int argc, char **argv)
{
	struct tep_rib *rib;
	struct tep_rib_conf rc = { 0 };
	char line[128], err[256];
	uint32_t *ips = NULL, nips = 0, cap = 0, i, routes = 0, bad = 0;
	uint64_t nh[32], t0, t1, acc = 0, found = 0;
	uint64_t acc_plain = 0, acc_grp = 0, sink = 0;
	uint32_t groups = 0, hash[32];
	FILE *f;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return 1;
	argc -= ret;
	argv += ret;
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: bench_fib [EAL] -- ROUTES IPS "
			"[GROUPS]\n");
		return 2;
	}
	if (argc == 4) {
		groups = (uint32_t)strtoul(argv[3], NULL, 10);
		if (groups == 0 || groups >= TEP_NHG_MAX ||
		    groups * 4 + 1 > TEP_NH_MAX) {
			fprintf(stderr, "GROUPS: 1 to %d\n", TEP_NHG_MAX - 1);
			return 2;
		}
	}
	rib = rte_zmalloc("rib", sizeof(*rib), 64);
	rc.max_routes4 = 1 << 21;
	rc.max_routes6 = 1024;
	rc.tbl8_4 = 32767;
	rc.tbl8_6 = 256;
	rc.socket_id = (int)rte_socket_id();
	if (rib == NULL || tep_rib_init(rib, &rc, NULL, err, sizeof(err))) {
		fprintf(stderr, "rib: %s\n", err);
		return 1;
	}
	if (groups > 0 && make_groups(rib, groups) != 0)
		return 1;

	f = fopen(argv[1], "r");
	if (f == NULL)
		return 1;
	t0 = rte_rdtsc();
	while (fgets(line, sizeof(line), f) != NULL) {
		struct tep_nh n = { .type = TEP_NHT_GW };
		unsigned int depth, hop;
		char addr[32];
		uint8_t a[4];

		if (sscanf(line, "%31[0-9.]/%u %u", addr, &depth, &hop) != 3 ||
		    inet_pton(AF_INET, addr, a) != 1)
			continue;
		/* As many distinct next hops as the file has (up to 32000);
		 * with GROUPS, a group. */
		n.gw[2] = (uint8_t)(hop >> 8);
		n.gw[3] = (uint8_t)hop;
		if (groups > 0) {
			memset(&n, 0, sizeof(n));
			n.type = TEP_NHT_GROUP;
			n.tunnel = hop % groups + 1;
		}
		if (tep_route_add(rib, TEP_VRF_DEFAULT, 4, a, (uint8_t)depth,
				  &n, err, sizeof(err)) == 0)
			routes++;
		else if (bad++ < 3)
			fprintf(stderr, "route %s/%u: %s\n", addr, depth, err);
	}
	t1 = rte_rdtsc();
	fclose(f);
	printf("loaded %u routes (%u refused) in %.2f s: %.0f routes/s\n",
	       routes, bad, (double)(t1 - t0) / rte_get_tsc_hz(),
	       routes / ((double)(t1 - t0) / rte_get_tsc_hz()));

	f = fopen(argv[2], "r");
	if (f == NULL)
		return 1;
	while (fgets(line, sizeof(line), f) != NULL) {
		struct in_addr a;

		line[strcspn(line, "\n")] = '\0';
		if (inet_pton(AF_INET, line, &a) != 1)
			continue;
		if (nips == cap) {
			cap = cap ? cap * 2 : 1 << 20;
			ips = realloc(ips, cap * sizeof(*ips));
		}
		ips[nips++] = ntohl(a.s_addr);
	}
	fclose(f);
	/* Bursts of 32 keys, as the workers' route() gathers them. */
	for (i = 0; i + 32 <= nips; i += 32) {
		t0 = rte_rdtsc_precise();
		rte_fib_lookup_bulk(rib->vrf[TEP_VRF_DEFAULT]->fib4, ips + i, nh,
				    32);
		acc += rte_rdtsc_precise() - t0;
		found += nh[0] != TEP_NH_NONE;
	}
	printf("looked up %u addresses: %.1f cycles per lookup "
	       "(%" PRIu64 "/%u bursts hit a route)\n", i, (double)acc / i,
	       found, i / 32);
	if (groups > 0) {
		struct rte_fib *fib = rib->vrf[TEP_VRF_DEFAULT]->fib4;
		int64_t *diff = malloc((nips / 32 + 4) * sizeof(*diff));
		uint32_t k, nb = 0, half;
		double med;

		if (diff == NULL)
			return 1;
		for (i = 0; i + 32 <= nips; i += 32) {
			uint64_t cp, cg;

			for (k = 0; k < 32; k++)
				hash[k] = flow_hash(i + k);
			if (nb % 2 == 0) {
				cp = timed_burst(rib, fib, ips + i, hash,
						 false, &sink);
				cg = timed_burst(rib, fib, ips + i, hash,
						 true, &sink);
			} else {
				cg = timed_burst(rib, fib, ips + i, hash,
						 true, &sink);
				cp = timed_burst(rib, fib, ips + i, hash,
						 false, &sink);
			}
			acc_plain += cp;
			acc_grp += cg;
			/* plain first (even bursts) in the first half of
			 * diff, second (odd ones) in the second */
			diff[nb % 2 ? nips / 64 + 1 + nb / 2 : nb / 2] =
				(int64_t)cg - (int64_t)cp;
			nb++;
		}
		half = (nb + 1) / 2;
		/* the odd ones to follow the even ones */
		memmove(diff + half, diff + nips / 64 + 1, (nb - half) *
			sizeof(*diff));
		qsort(diff, half, sizeof(*diff), cmp_i64);
		qsort(diff + half, nb - half, sizeof(*diff), cmp_i64);
		med = nb < 2 ? 0.0 : ((double)diff[half / 2] +
				      (double)diff[half + (nb - half) / 2]) / 2;
		printf("next hop: %.1f cycles per lookup + next hop; "
		       "%u groups of 4: %.1f cycles per lookup + member "
		       "(%+.1f; median per burst %+.1f)\n",
		       (double)acc_plain / i, groups, (double)acc_grp / i,
		       ((double)acc_grp - (double)acc_plain) / i,
		       med / 32);
		free(diff);
		if (sink == 0)
			printf("(no next hop found)\n");
	}
	tep_rib_fini(rib);
	free(ips);
	rte_eal_cleanup();
	return 0;
}
