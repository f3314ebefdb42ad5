/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Outer checksum cost per packet, LCO against a full software sum, at
 * frame sizes from 64 to 9000 bytes, inner TCP and UDP, IPv4 and IPv6
 * outer: cycles (rdtsc) per tep_encap_write() call, which builds the whole
 * outer header and its checksums. Prints a table; asserts no timing.
 *
 *   bench_csum [ITERATIONS]
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "tep_csum.h"
#include "tep_proto.h"

static const unsigned int sizes[] = { 64, 128, 512, 1500, 4000, 9000 };

/* A tenant frame of `size` bytes: Ethernet, IPv4, TCP or UDP, with a valid
 * L4 checksum computed the slow way (it is not what is being measured). */
static size_t
make_frame(uint8_t *f, unsigned int size, int tcp)
{
	unsigned int l4h = tcp ? 20 : 8, i;
	uint8_t *ip = f + 14, *l4 = ip + 20;
	uint16_t l4len = (uint16_t)(size - 14 - 20);
	uint32_t s = 0;

	memset(f, 0, size);
	f[12] = 0x08;
	ip[0] = 0x45;
	ip[2] = (uint8_t)((size - 14) >> 8);
	ip[3] = (uint8_t)(size - 14);
	ip[8] = 64;
	ip[9] = tcp ? 6 : 17;
	memcpy(ip + 12, "\xc0\x00\x02\x0a\xc6\x12\x00\x02", 8);
	for (i = l4h; i < l4len; i++)
		l4[i] = (uint8_t)(i * 7);
	if (tcp)
		l4[12] = 5 << 4;
	else {
		l4[4] = (uint8_t)(l4len >> 8);
		l4[5] = (uint8_t)l4len;
	}
	for (i = 0; i < 8; i += 2)
		s += (uint32_t)ip[12 + i] << 8 | ip[13 + i];
	s += ip[9] + l4len;
	for (i = 0; i + 1 < l4len; i += 2)
		s += (uint32_t)l4[i] << 8 | l4[i + 1];
	if (l4len & 1)
		s += (uint32_t)l4[l4len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	s = ~s & 0xffff;
	l4[tcp ? 16 : 6] = (uint8_t)(s >> 8);
	l4[tcp ? 17 : 7] = (uint8_t)s;
	return size;
}

/* What is timed: the whole encapsulation, or the outer checksum alone;
 * ENCAP_DP: the encapsulation with what the datapath tells it of the
 * inner packet (IPv4 header checksum known good, the inner Ethernet
 * header's sum known: app/tepd/datapath/encap.c), so that LCO reads none
 * of the inner headers. */
enum what { ENCAP, ENCAP_DP, CSUM_ONLY };

static volatile uint16_t sink;

static double
measure(enum tep_csum_mode mode, enum what what, int v6, int tcp,
	unsigned int size, unsigned int iters)
{
	static uint8_t buf[TEP_ENCAP_HDR_MAX + 9216] __attribute__((aligned(64)));
	struct tep_encap_params p;
	struct tep_encap_tmpl t;
	struct tep_encap_pkt pk;
	struct tep_flow f;
	uint64_t t0, best = UINT64_MAX;
	unsigned int i, r;
	size_t n;

	memset(&p, 0, sizeof(p));
	p.type = TEP_TUN_VXLAN;
	p.outer_v6 = v6;
	memcpy(p.src, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	memcpy(p.dst, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
	p.vni = 42;
	p.csum = mode;
	if (tep_encap_tmpl_build(&t, &p, NULL, 0) != 0)
		abort();
	n = make_frame(buf + t.len, size, tcp);
	if (tep_flow_parse(buf + t.len, n, true, &f) != TEP_R_OK)
		abort();
	memset(&pk, 0, sizeof(pk));
	pk.inner_len = (uint16_t)n;
	pk.sport = 50000;
	pk.l4 = f.l4;
	if (what == ENCAP_DP) {
		pk.l4.ip4_hdr_ok = 1;
		pk.inner_pre_len = 14;
		pk.inner_pre_sum = tep_csum_partial(buf + t.len, 14, 0);
	}
	if (tep_encap_write(&t, buf, &pk) < 0)
		abort();
	/* Best of 5 runs: the machine is shared, the minimum is the cost. */
	for (r = 0; r < 5; r++) {
		uint8_t *udp = buf + t.l4_off;
		uint32_t udp_len = (uint32_t)(t.len - t.l4_off) + pk.inner_len;
		uint32_t ph = tep_encap_outer_phdr(&t, udp_len);
		uint32_t cs = (uint32_t)(t.len - t.l4_off) + f.l4.csum_start;

		t0 = rte_rdtsc_precise();
		if (what != CSUM_ONLY) {
			for (i = 0; i < iters; i++) {
				pk.ip_id = (uint16_t)i;
				if (tep_encap_write(&t, buf, &pk) < 0)
					abort();
			}
		} else if (mode == TEP_CSUM_LCO) {
			for (i = 0; i < iters; i++)
				sink = tep_lco_udp_csum_complete(ph + i, udp,
						cs, f.l4.phdr);
		} else {
			for (i = 0; i < iters; i++)
				sink = tep_udp_csum_full(ph + i, udp, udp_len);
		}
		t0 = rte_rdtsc_precise() - t0;
		if (t0 < best)
			best = t0;
	}
	return (double)best / iters;
}

int
main(int argc, char **argv)
{
	unsigned int iters = argc > 1 ? (unsigned int)atoi(argv[1]) : 200000;
	int v6, tcp;
	size_t s;

	printf("VXLAN outer checksum, cycles per packet, best of 5 x %u\n"
	       "  csum: the outer UDP checksum alone; encap: the whole outer "
	       "header build with it\n", iters);
	printf("  encap:dp: LCO encapsulation as the datapath asks for it "
	       "(inner headers' sums known)\n");
	printf("%-5s %-5s %5s %9s %9s %8s %10s %10s %9s\n", "outer", "inner",
	       "bytes", "csum:lco", "csum:full", "full/lco", "encap:lco",
	       "encap:full", "encap:dp");
	for (v6 = 0; v6 < 2; v6++)
		for (tcp = 1; tcp >= 0; tcp--)
			for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
				double l = measure(TEP_CSUM_LCO, CSUM_ONLY,
						   v6, tcp, sizes[s], iters);
				double fu = measure(TEP_CSUM_FULL, CSUM_ONLY,
						    v6, tcp, sizes[s], iters);
				double el = measure(TEP_CSUM_LCO, ENCAP, v6,
						    tcp, sizes[s], iters);
				double ef = measure(TEP_CSUM_FULL, ENCAP, v6,
						    tcp, sizes[s], iters);
				double ed = measure(TEP_CSUM_LCO, ENCAP_DP, v6,
						    tcp, sizes[s], iters);

				printf("%-5s %-5s %5u %9.1f %9.1f %8.1f "
				       "%10.1f %10.1f %9.1f\n",
				       v6 ? "ipv6" : "ipv4", tcp ? "tcp" : "udp",
				       sizes[s], l, fu, fu / l, el, ef, ed);
			}
	return 0;
}
