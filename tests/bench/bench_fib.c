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
 *   bench_fib [EAL options] -- ROUTES_FILE IPS_FILE
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>

#include "tep_fib.h"

int
main(int argc, char **argv)
{
	struct tep_rib *rib;
	struct tep_rib_conf rc = { 0 };
	char line[128], err[256];
	uint32_t *ips = NULL, nips = 0, cap = 0, i, routes = 0, bad = 0;
	uint64_t nh[32], t0, t1, acc = 0, found = 0;
	FILE *f;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return 1;
	argc -= ret;
	argv += ret;
	if (argc != 3) {
		fprintf(stderr, "usage: bench_fib [EAL] -- ROUTES IPS\n");
		return 2;
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
		/* As many distinct next hops as the file has (up to 32000). */
		n.gw[2] = (uint8_t)(hop >> 8);
		n.gw[3] = (uint8_t)hop;
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
	tep_rib_fini(rib);
	free(ips);
	rte_eal_cleanup();
	return 0;
}
