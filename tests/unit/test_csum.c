/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Checksum library tests. The reference is a naive RFC 1071 sum written
 * here, byte by byte in network order, sharing no code with lib/csum: every
 * expected value comes from it (or from a published vector), never from the
 * function under test.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "tep_csum.h"
#include "tep_csum_mbuf.h"
#include "tep_ref.h"

/* ---- independent reference ------------------------------------------- */

/* A library value (memory order) as the two wire bytes read big-endian. */
static uint16_t
mem_to_be(uint16_t memval)
{
	uint8_t b[2];

	memcpy(b, &memval, 2);
	return tep_ref_rd16(b);
}

static void
wr16mem(uint8_t *p, uint16_t memval)
{
	memcpy(p, &memval, 2);
}

/* ---- deterministic PRNG (xorshift64*), seeded so failures replay ------ */

static uint64_t rng_state = 0x7465706463736d31ull; /* "tepdcsm1" */

static uint64_t
rnd(void)
{
	return tep_ref_rnd(&rng_state);
}

static uint32_t
rnd_below(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

static void
rnd_fill(uint8_t *p, size_t n)
{
	tep_ref_rnd_fill(&rng_state, p, n);
}

/* ---- basic arithmetic -------------------------------------------------- */

static void
test_rfc1071_vector(void **state)
{
	/* RFC 1071 section 3 example: the sum of these bytes is ddf2. */
	static const uint8_t b[] = { 0x00, 0x01, 0xf2, 0x03,
				     0xf4, 0xf5, 0xf6, 0xf7 };
	(void)state;

	assert_int_equal(mem_to_be(tep_csum_fold(tep_csum_partial(b, 8, 0))),
			 0xddf2);
	assert_int_equal(mem_to_be(tep_csum_finish(tep_csum_partial(b, 8, 0))),
			 0x220d);
}

static void
test_sum_edges(void **state)
{
	static uint8_t ff[1 << 20];
	static const uint8_t zeros[64];
	static const uint8_t allones[2] = { 0xff, 0xff };
	(void)state;

	assert_int_equal(tep_csum_fold(tep_csum_partial(zeros, 0, 0)), 0);
	assert_int_equal(tep_csum_fold(tep_csum_partial(zeros, 64, 0)), 0);
	assert_int_equal(tep_csum_finish(tep_csum_partial(zeros, 64, 0)),
			 0xffff);
	/* A region summing to 0xffff (negative zero) checksums to 0. */
	assert_int_equal(tep_csum_fold(tep_csum_partial(allones, 2, 0)),
			 0xffff);
	assert_int_equal(tep_csum_finish(tep_csum_partial(allones, 2, 0)), 0);
	assert_int_equal(tep_udp_csum_mangle0(0), 0xffff);
	assert_int_equal(tep_udp_csum_mangle0(0x1234), 0x1234);
	/* 1 MiB of 0xff: more than a 32-bit accumulator of 16-bit words holds. */
	memset(ff, 0xff, sizeof(ff));
	assert_int_equal(mem_to_be(tep_csum_fold(tep_csum_partial(ff,
							sizeof(ff), 0))),
			 tep_ref_sum(ff, sizeof(ff), 0));
	assert_int_equal(mem_to_be(tep_csum_fold(tep_csum_partial(ff,
							sizeof(ff) - 1, 0))),
			 tep_ref_sum(ff, sizeof(ff) - 1, 0));
	/* The start value is carried in. */
	assert_int_equal(tep_csum_fold(tep_csum_partial(zeros, 10, 0xffffffff)),
			 0xffff);
}

/* Any length, any start alignment: naive reference and rte_raw_cksum(). */
static void
test_partial_random(void **state)
{
	static uint8_t buf[10000 + 16];
	int i;
	(void)state;

	for (i = 0; i < 50000; i++) {
		size_t align = rnd_below(16);
		size_t len = (i & 1) ? rnd_below(80) : rnd_below(10000);
		uint32_t start = (i % 3 == 0) ? (uint32_t)rnd() : 0;
		uint16_t got, want;

		rnd_fill(buf + align, len);
		got = tep_csum_fold(tep_csum_partial(buf + align, len, start));
		/* start is a memory-order partial sum: fold it, then read it
		 * as wire bytes for the reference. */
		want = tep_ref_sum(buf + align, len,
			       mem_to_be(tep_csum_fold(start)));
		if (mem_to_be(got) != want && !(mem_to_be(got) == 0xffff &&
						want == 0) &&
		    !(mem_to_be(got) == 0 && want == 0xffff))
			fail_msg("len %zu align %zu: got %04x want %04x", len,
				 align, mem_to_be(got), want);
		if (start == 0)
			assert_int_equal(got, rte_raw_cksum(buf + align, len));
	}
}

/* ---- pseudo-headers, IPv4 header, RFC 1624 ----------------------------- */

static void
test_phdr_random(void **state)
{
	int i;
	(void)state;

	for (i = 0; i < 20000; i++) {
		uint8_t src[16], dst[16], ph[40];
		int v6 = i & 1;
		uint8_t proto = (uint8_t)rnd();
		uint32_t len = v6 ? (uint32_t)rnd() : (uint16_t)rnd();
		uint32_t lib;
		size_t n;

		rnd_fill(src, 16);
		rnd_fill(dst, 16);
		n = tep_ref_phdr_bytes(ph, v6, src, dst, proto, len);
		lib = v6 ? tep_ipv6_phdr_sum(src, dst, proto, len) :
			   tep_ipv4_phdr_sum(src, dst, proto, (uint16_t)len);
		assert_int_equal(mem_to_be(tep_csum_fold(lib)),
				 tep_ref_sum(ph, n, 0));
	}
}

static void
test_rfc1624(void **state)
{
	int i;
	(void)state;

	/* RFC 1624 section 4: HC = 0xdd2f, m = 0x5555 -> m' = 0x3285.
	 * Eqn. 3 gives 0x0000 (eqn. 2 of RFC 1141 would give 0xffff). */
	{
		uint8_t hc[2] = { 0xdd, 0x2f }, m[2] = { 0x55, 0x55 },
			mp[2] = { 0x32, 0x85 };
		uint16_t vhc, vm, vmp;

		memcpy(&vhc, hc, 2);
		memcpy(&vm, m, 2);
		memcpy(&vmp, mp, 2);
		assert_int_equal(tep_csum_replace16(vhc, vm, vmp), 0x0000);
	}

	/* Random IPv4 headers: TTL decrement, and an address rewrite,
	 * incremental against a full recompute by the reference. */
	for (i = 0; i < 20000; i++) {
		uint8_t h[60];
		size_t ihl = 20 + 4 * rnd_below(11);
		uint16_t old16, new16, ck;
		uint32_t old32, new32;

		rnd_fill(h, ihl);
		h[0] = 0x40 | (uint8_t)(ihl / 4);
		if (h[8] == 0)
			h[8] = 1;
		tep_ref_wr16(h + 10, 0);
		tep_ref_wr16(h + 10, (uint16_t)~tep_ref_sum(h, ihl, 0));

		memcpy(&old16, h + 8, 2);
		h[8]--;
		memcpy(&new16, h + 8, 2);
		memcpy(&ck, h + 10, 2);
		wr16mem(h + 10, tep_csum_replace16(ck, old16, new16));
		assert_int_equal(tep_ref_sum(h, ihl, 0), 0xffff);

		memcpy(&old32, h + 12, 4);
		rnd_fill(h + 12, 4);
		memcpy(&new32, h + 12, 4);
		memcpy(&ck, h + 10, 2);
		wr16mem(h + 10, tep_csum_replace32(ck, old32, new32));
		assert_int_equal(tep_ref_sum(h, ihl, 0), 0xffff);

		/* and the header builder's full sum */
		tep_ref_wr16(h + 10, 0);
		wr16mem(h + 10, tep_ipv4_hdr_csum(h, ihl));
		assert_int_equal(tep_ref_sum(h, ihl, 0), 0xffff);
	}
}

/* ---- multi-segment chains ---------------------------------------------- */

#define MAX_SEGS 8

static void
test_mbuf_chain_random(void **state)
{
	static uint8_t flat[9000], store[MAX_SEGS][9000 + 64];
	struct rte_mbuf segs[MAX_SEGS];
	int i;
	(void)state;

	for (i = 0; i < 20000; i++) {
		uint32_t total = 1 + rnd_below(9000);
		uint32_t nsegs = 1 + rnd_below(MAX_SEGS);
		uint32_t cuts[MAX_SEGS + 1], off, len, sum = 0, k, pos = 0;

		rnd_fill(flat, total);
		/* Random cut points: odd lengths and empty segments too. */
		cuts[0] = 0;
		cuts[nsegs] = total;
		for (k = 1; k < nsegs; k++)
			cuts[k] = rnd_below(total + 1);
		for (k = 1; k < nsegs; k++) {	/* insertion sort */
			uint32_t v = cuts[k], j = k;

			while (j > 1 && cuts[j - 1] > v) {
				cuts[j] = cuts[j - 1];
				j--;
			}
			cuts[j] = v;
		}
		memset(segs, 0, sizeof(segs));
		for (k = 0; k < nsegs; k++) {
			/* Odd data_off so that segment memory is misaligned. */
			uint16_t doff = (uint16_t)rnd_below(64);

			segs[k].buf_addr = store[k];
			segs[k].data_off = doff;
			segs[k].data_len = (uint16_t)(cuts[k + 1] - cuts[k]);
			memcpy(store[k] + doff, flat + cuts[k],
			       segs[k].data_len);
			segs[k].next = k + 1 < nsegs ? &segs[k + 1] : NULL;
			pos += segs[k].data_len;
		}
		assert_int_equal(pos, total);
		off = rnd_below(total + 1);
		len = rnd_below(total - off + 1);
		assert_int_equal(tep_csum_mbuf(&segs[0], off, len, &sum), 0);
		assert_int_equal(mem_to_be(tep_csum_fold(sum)) % 0xffff,
				 tep_ref_sum(flat + off, len, 0) % 0xffff);
		/* Asking for more than the chain holds fails cleanly. */
		sum = 0;
		assert_int_equal(tep_csum_mbuf(&segs[0], off,
					       total - off + 1, &sum), -1);
	}
}

/* ---- LCO property test ------------------------------------------------- */

enum inner_kind { IN_TCP, IN_UDP, IN_ICMP, IN_KINDS };

struct lco_case {
	uint8_t pkt[8 + 64 + 14 + 60 + 60 + 9000];
	size_t udp_len;		/* the outer UDP datagram: pkt[0..udp_len) */
	size_t csum_start;	/* inner L4 header offset in pkt */
	size_t csum_off;	/* checksum field offset in the inner L4 hdr */
	uint8_t ph_out[40];	/* outer pseudo-header bytes (reference) */
	size_t ph_out_len;
	uint32_t lib_outer_phdr;
	uint8_t ph_in[40];	/* inner pseudo-header bytes (reference) */
	size_t ph_in_len;	/* 0 for ICMPv4 */
	uint32_t lib_inner_phdr;
	int inner_udp;
};

/*
 * Random outer UDP datagram: UDP header, a tunnel header of random length
 * (odd lengths give odd csum_start), an optional inner Ethernet header, an
 * inner IPv4 (with options) or IPv6 header, and a TCP/UDP/ICMP packet with
 * 0..9000 bytes of payload. Payloads are all-zero in 1 case out of 16.
 */
static void
lco_make_case(struct lco_case *c)
{
	int out6 = rnd_below(2), in6 = rnd_below(2);
	enum inner_kind kind = (enum inner_kind)rnd_below(IN_KINDS);
	size_t tun = rnd_below(65), eth = rnd_below(2) ? 14 : 0;
	size_t ihl = in6 ? 40 : 20 + 4 * rnd_below(11);
	size_t l4h = kind == IN_TCP ? 20 + 4 * rnd_below(11) : 8;
	size_t pay = rnd_below(9001);
	size_t l4len = l4h + pay, ip = 8 + tun + eth;
	uint8_t proto = kind == IN_TCP ? 6 : kind == IN_UDP ? 17 :
			in6 ? 58 : 1;
	uint8_t osrc[16], odst[16];
	uint8_t *p = c->pkt;

	c->csum_start = ip + ihl;
	c->udp_len = c->csum_start + l4len;
	c->csum_off = kind == IN_TCP ? 16 : kind == IN_UDP ? 6 : 2;
	c->inner_udp = kind == IN_UDP;
	rnd_fill(p, c->udp_len);
	if ((rnd() & 15) == 0)
		memset(p + c->csum_start + l4h, 0, pay);

	tep_ref_wr16(p + 4, (uint16_t)c->udp_len);
	tep_ref_wr16(p + 6, 0);
	if (!in6) {
		p[ip] = 0x40 | (uint8_t)(ihl / 4);
		tep_ref_wr16(p + ip + 2, (uint16_t)(ihl + l4len));
		p[ip + 9] = proto;
	} else {
		p[ip] = 0x60;
		tep_ref_wr16(p + ip + 4, (uint16_t)l4len);
		p[ip + 6] = proto;
	}
	if (kind == IN_UDP)
		tep_ref_wr16(p + c->csum_start + 4, (uint16_t)l4len);
	if (kind == IN_TCP)
		p[c->csum_start + 12] = (uint8_t)((l4h / 4) << 4);

	rnd_fill(osrc, 16);
	rnd_fill(odst, 16);
	c->ph_out_len = tep_ref_phdr_bytes(c->ph_out, out6, osrc, odst, 17,
				 (uint32_t)c->udp_len);
	c->lib_outer_phdr = out6 ?
		tep_ipv6_phdr_sum(osrc, odst, 17, (uint32_t)c->udp_len) :
		tep_ipv4_phdr_sum(osrc, odst, 17, (uint16_t)c->udp_len);

	if (kind == IN_ICMP && !in6) {
		c->ph_in_len = 0;	/* ICMPv4 has no pseudo-header */
		c->lib_inner_phdr = 0;
	} else {
		const uint8_t *s = p + ip + (in6 ? 8 : 12);
		const uint8_t *d = p + ip + (in6 ? 24 : 16);

		c->ph_in_len = tep_ref_phdr_bytes(c->ph_in, in6, s, d, proto,
					(uint32_t)l4len);
		c->lib_inner_phdr = in6 ?
			tep_ipv6_phdr_sum(s, d, proto, (uint32_t)l4len) :
			tep_ipv4_phdr_sum(s, d, proto, (uint16_t)l4len);
	}
}

/* Fill the inner checksum the way a NIC or the stack would, by reference. */
static void
ref_fill_inner(struct lco_case *c)
{
	uint8_t *l4 = c->pkt + c->csum_start;
	size_t l4len = c->udp_len - c->csum_start;
	uint16_t ck;

	tep_ref_wr16(l4 + c->csum_off, 0);
	ck = (uint16_t)~tep_ref_sum(l4, l4len, tep_ref_sum(c->ph_in, c->ph_in_len, 0));
	if (c->inner_udp && ck == 0)
		ck = 0xffff;
	tep_ref_wr16(l4 + c->csum_off, ck);
}

/* The outer UDP checksum computed over the whole datagram, by reference. */
static uint16_t
ref_outer(struct lco_case *c)
{
	uint8_t save[2];
	uint16_t ck;

	memcpy(save, c->pkt + 6, 2);
	tep_ref_wr16(c->pkt + 6, 0);
	ck = (uint16_t)~tep_ref_sum(c->pkt, c->udp_len,
				tep_ref_sum(c->ph_out, c->ph_out_len, 0));
	memcpy(c->pkt + 6, save, 2);
	return ck == 0 ? 0xffff : ck;
}

static void
test_lco_random(void **state)
{
	static struct lco_case c;
	int i, odd_starts = 0;
	(void)state;

	for (i = 0; i < 100000; i++) {
		uint16_t lco, want;

		lco_make_case(&c);
		odd_starts += c.csum_start & 1;

		/* Pending: the inner field holds the seed a NIC (or
		 * rte_eth_tx_prepare) leaves, the pseudo-header sum. */
		tep_ref_wr16(c.pkt + c.csum_start + c.csum_off,
		       tep_ref_sum(c.ph_in, c.ph_in_len, 0));
		tep_ref_wr16(c.pkt + 6, 0);
		lco = tep_lco_udp_csum_pending(c.lib_outer_phdr, c.pkt,
					       c.csum_start, c.csum_off);
		ref_fill_inner(&c);	/* "the NIC fills it in" */
		want = ref_outer(&c);
		if (mem_to_be(lco) != want)
			fail_msg("pending case %d: csum_start %zu len %zu: "
				 "lco %04x want %04x", i, c.csum_start,
				 c.udp_len, mem_to_be(lco), want);

		/* Complete: inner checksum already valid, no payload read. */
		lco = tep_lco_udp_csum_complete(c.lib_outer_phdr, c.pkt,
						c.csum_start, c.lib_inner_phdr);
		if (mem_to_be(lco) != want)
			fail_msg("complete case %d: lco %04x want %04x", i,
				 mem_to_be(lco), want);

		/* And the software full sum agrees. */
		assert_int_equal(mem_to_be(tep_udp_csum_full(c.lib_outer_phdr,
							     c.pkt, c.udp_len)),
				 want);
		/* The finished datagram verifies (sum with phdr == -0). */
		wr16mem(c.pkt + 6, lco);
		assert_int_equal(tep_ref_sum(c.pkt, c.udp_len,
					 tep_ref_sum(c.ph_out, c.ph_out_len, 0)),
				 0xffff);
	}
	/* The generator must really have exercised odd csum_start. */
	assert_true(odd_starts > 10000);
}

/* A datagram whose outer checksum computes to 0 must carry 0xffff. */
static void
test_lco_zero_becomes_ffff(void **state)
{
	static struct lco_case c;
	int i, hits = 0;
	(void)state;

	for (i = 0; i < 200; i++) {
		uint16_t s, lco;

		lco_make_case(&c);
		if (c.csum_start < 16)
			continue;
		ref_fill_inner(&c);
		/* Tune the word at offset 8 (inside the tunnel header) so
		 * the whole datagram plus phdr sums to exactly 0xffff. */
		tep_ref_wr16(c.pkt + 6, 0);
		tep_ref_wr16(c.pkt + 8, 0);
		s = tep_ref_sum(c.pkt, c.udp_len,
			    tep_ref_sum(c.ph_out, c.ph_out_len, 0));
		tep_ref_wr16(c.pkt + 8, (uint16_t)(0xffff - s));
		assert_int_equal(tep_ref_sum(c.pkt, c.udp_len,
					 tep_ref_sum(c.ph_out, c.ph_out_len, 0)),
				 0xffff);
		lco = tep_lco_udp_csum_complete(c.lib_outer_phdr, c.pkt,
						c.csum_start, c.lib_inner_phdr);
		assert_int_equal(lco, 0xffff);
		assert_int_equal(tep_udp_csum_full(c.lib_outer_phdr, c.pkt,
						   c.udp_len), 0xffff);
		hits++;
	}
	assert_true(hits > 100);
}

/* GRE (RFC 2784) has no pseudo-header and no 0 -> 0xffff rule. */
static void
test_lco_gre(void **state)
{
	static struct lco_case c;
	int i;
	(void)state;

	for (i = 0; i < 5000; i++) {
		uint16_t lco, want;

		lco_make_case(&c);
		ref_fill_inner(&c);
		/* Treat pkt[0..) as a GRE header + payload, csum at 4. */
		tep_ref_wr16(c.pkt + 4, 0);
		lco = tep_lco_csum(0, c.pkt, c.csum_start,
				   tep_csum_fold(c.lib_inner_phdr));
		want = (uint16_t)~tep_ref_sum(c.pkt, c.udp_len, 0);
		assert_int_equal(mem_to_be(lco), want);
	}
}

/*
 * Completing a pending checksum as a NIC does (what encap does before a
 * full outer sum): the result must be the checksum the naive reference
 * computes over pseudo-header and segment, for TCP and UDP, IPv4 and
 * IPv6, any length and alignment.
 */
static void
test_l4_complete_random(void **state)
{
	uint64_t rnd = 0x6c34a9e1u;
	uint8_t buf[2100], ph[40], src[16], dst[16];
	int i;

	(void)state;
	for (i = 0; i < 20000; i++) {
		bool v6 = tep_ref_rnd(&rnd) & 1, udp = tep_ref_rnd(&rnd) & 2;
		size_t hl = udp ? 8 : 20, off = tep_ref_rnd(&rnd) % 3;
		size_t len = hl + tep_ref_rnd(&rnd) % 2000;
		size_t coff = udp ? 6 : 16;
		uint8_t *l4 = buf + off;
		uint16_t seed, got, want;
		uint32_t s;

		tep_ref_rnd_fill(&rnd, src, sizeof(src));
		tep_ref_rnd_fill(&rnd, dst, sizeof(dst));
		tep_ref_rnd_fill(&rnd, l4, len);
		/* reference: checksum field zero, sum pseudo-header + all */
		tep_ref_wr16(l4 + coff, 0);
		s = tep_ref_phdr(v6, src, dst, udp ? 17 : 6, (uint32_t)len);
		want = (uint16_t)~tep_ref_sum(l4, len, s);
		if (udp && want == 0)
			want = 0xffff;
		/* pending: the field holds the non-complemented seed */
		seed = tep_ref_phdr(v6, src, dst, udp ? 17 : 6, (uint32_t)len);
		tep_ref_wr16(l4 + coff, seed);
		tep_l4_csum_complete(l4, len, coff, udp);
		got = tep_ref_rd16(l4 + coff);
		assert_int_equal(got, want);
		/* and the segment now verifies */
		tep_ref_phdr_bytes(ph, v6, src, dst, udp ? 17 : 6,
				   (uint32_t)len);
		assert_int_equal(tep_ref_sum(l4, len, tep_ref_sum(ph,
				 v6 ? 40 : 12, 0)), 0xffff);
	}
}

/* The inline IPv4 header check agrees with the naive sum, with and
 * without options, on right headers and on each one-bit corruption. */
static void
test_ipv4_hdr_ok(void **state)
{
	uint64_t rnd = 0x1f2e3d4cu;
	uint8_t b[64];
	int i, bit;

	(void)state;
	for (i = 0; i < 2000; i++) {
		size_t ihl = 20 + 4 * (tep_ref_rnd(&rnd) % 11);
		size_t off = tep_ref_rnd(&rnd) % 3;
		uint8_t *h = b + off;

		tep_ref_rnd_fill(&rnd, h, ihl);
		tep_ref_wr16(h + 10, 0);
		tep_ref_wr16(h + 10, (uint16_t)~tep_ref_sum(h, ihl, 0));
		assert_true(tep_ipv4_hdr_ok(h, ihl));
		bit = (int)(tep_ref_rnd(&rnd) % (ihl * 8));
		h[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_equal(tep_ipv4_hdr_ok(h, ihl),
				 tep_ref_sum(h, ihl, 0) == 0xffff);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc1071_vector),
		cmocka_unit_test(test_sum_edges),
		cmocka_unit_test(test_partial_random),
		cmocka_unit_test(test_phdr_random),
		cmocka_unit_test(test_rfc1624),
		cmocka_unit_test(test_mbuf_chain_random),
		cmocka_unit_test(test_lco_random),
		cmocka_unit_test(test_lco_zero_becomes_ffff),
		cmocka_unit_test(test_lco_gre),
		cmocka_unit_test(test_l4_complete_random),
		cmocka_unit_test(test_ipv4_hdr_ok),
	};

	return cmocka_run_group_tests_name("csum", tests, NULL, NULL);
}
