/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * lib/proto/tep_hdr_walk.h against the naive reference in
 * tests/common/tep_ref_walk.h: hand-made packets with known answers, then
 * generated ones (VLAN, IPv4 options, IPv6 extension chains, fragments,
 * random bytes), each cut at every length and read through every
 * readable room, under every combination of flags.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tep_hdr_walk.h"
#include "tep_ref_walk.h"

#define ALL_FLAGS	0x1fu

/* ---- building packets ---- */

static uint32_t rng_state = 12345;

static uint32_t
rnd(void)
{
	/* xorshift32: reproducible from the seed above */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

static void
put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Ethernet header (with a tag when vlan) of the given type; its length */
static uint32_t
mk_eth(uint8_t *p, bool vlan, uint16_t type)
{
	memset(p, 0xaa, 12);
	if (vlan) {
		put16(p + 12, 0x8100);
		put16(p + 14, 100);
		put16(p + 16, type);
		return 18;
	}
	put16(p + 12, type);
	return 14;
}

/* IPv4 header with opt_words of options, payload bytes after it */
static uint32_t
mk_ip4(uint8_t *p, uint32_t opt_words, uint8_t proto, uint16_t frag,
       uint32_t payload)
{
	uint32_t ihl = 20 + 4 * opt_words, i;

	memset(p, 0, ihl);
	p[0] = (uint8_t)(0x40 | (ihl / 4));
	put16(p + 2, ihl + payload);
	put16(p + 6, frag);
	p[8] = 64;
	p[9] = proto;
	p[12] = 10;
	p[16] = 10;
	p[19] = 2;
	for (i = 20; i < ihl; i++)
		p[i] = 1;	/* NOPs */
	for (i = 0; i < payload; i++)
		p[ihl + i] = (uint8_t)rnd();
	return ihl + payload;
}

/* IPv6 header, then the extension headers types[0..n) (each of
 * 8 * (lens[i] + 1) bytes, fragment 8), then payload bytes of proto */
static uint32_t
mk_ip6(uint8_t *p, const uint8_t *types, const uint8_t *lens, uint32_t n,
       uint8_t proto, uint32_t payload, uint8_t segleft)
{
	uint32_t off = 40, i, j;

	memset(p, 0, 40);
	p[0] = 0x60;
	p[6] = n ? types[0] : proto;
	p[7] = 64;
	p[8] = 0x20;
	p[24] = 0x20;
	for (i = 0; i < n; i++) {
		uint32_t sz = types[i] == 44 ? 8 : 8u * (lens[i] + 1u);

		memset(p + off, 0, sz);
		p[off] = i + 1 < n ? types[i + 1] : proto;
		p[off + 1] = types[i] == 44 ? 0 : lens[i];
		if (types[i] == 43)
			p[off + 3] = segleft;
		for (j = 4; j < sz; j++)
			p[off + j] = (uint8_t)rnd();
		if (types[i] == 44)	/* offset 0, no MF unless random */
			p[off + 3] &= 0x01;
		off += sz;
	}
	for (i = 0; i < payload; i++)
		p[off + i] = (uint8_t)rnd();
	put16(p + 4, off - 40 + payload);
	return off + payload;
}

/* ---- comparing ---- */

static unsigned long compared;

static void
compare_one(const uint8_t *pkt, uint32_t len, uint32_t hroom,
	    unsigned int flags)
{
	struct tep_walk a, b;
	enum tep_reason ra, rb;
	uint8_t *copy;

	/* Only hroom bytes exist: a read past them is an ASan error in the
	 * sanitized build. */
	copy = malloc(hroom ? hroom : 1);
	assert_non_null(copy);
	memcpy(copy, pkt, hroom);
	memset(&a, 0x5a, sizeof(a));
	ra = tep_hdr_walk(copy, len, hroom, flags, &a);
	rb = tep_ref_walk(copy, len, hroom, flags, &b);
	free(copy);
	compared++;
	if (ra != rb) {
		fprintf(stderr, "len %u hroom %u flags %#x: walk %d ref %d\n",
			len, hroom, flags, ra, rb);
		fail();
	}
	if (ra == TEP_R_UNKNOWN_PROTO) {
		assert_int_equal(a.ethertype, b.ethertype);
		assert_int_equal(a.l2_len, b.l2_len);
	}
	if (ra != TEP_R_OK)
		return;
	assert_int_equal(a.l2_len, b.l2_len);
	assert_int_equal(a.l3_len, b.l3_len);
	assert_int_equal(a.l4_off, b.l4_off);
	assert_int_equal(a.ip_len, b.ip_len);
	assert_int_equal(a.ethertype, b.ethertype);
	assert_int_equal(a.family, b.family);
	assert_int_equal(a.l4_proto, b.l4_proto);
	assert_int_equal(a.frag, b.frag);
	assert_int_equal(a.ext, b.ext);
	/* what an accepted packet promises */
	assert_true(a.l4_off == a.l2_len + a.l3_len);
	assert_true(a.l2_len + a.ip_len <= len);
	assert_true(a.l3_len <= a.ip_len);
}

/* Every cut of the packet under every flag combination, read through
 * every readable room (full) or through all of it, one byte less and a
 * random one. */
static void
compare_all(const uint8_t *pkt, uint32_t n, bool full)
{
	uint32_t len, hroom;
	unsigned int flags;

	for (flags = 0; flags <= ALL_FLAGS; flags++) {
		for (len = 0; len <= n; len++) {
			if (full) {
				for (hroom = 0; hroom <= len; hroom++)
					compare_one(pkt, len, hroom, flags);
				continue;
			}
			compare_one(pkt, len, len, flags);
			if (len > 0)
				compare_one(pkt, len, len - 1, flags);
			compare_one(pkt, len, rnd() % (len + 1), flags);
		}
	}
}

/* ---- hand-made packets with known answers ---- */

static void
test_known(void **state)
{
	uint8_t p[512];
	struct tep_walk w;
	uint8_t types[10], lens[10] = { 0 };
	uint32_t n, l2, i;

	(void)state;
	/* untagged IPv4 without options, TCP */
	l2 = mk_eth(p, false, 0x0800);
	n = l2 + mk_ip4(p + l2, 0, 6, 0x4000, 20);
	assert_int_equal(tep_hdr_walk(p, n, n, TEP_WALK_ETH, &w), TEP_R_OK);
	assert_int_equal(w.l2_len, 14);
	assert_int_equal(w.l3_len, 20);
	assert_int_equal(w.l4_off, 34);
	assert_int_equal(w.ip_len, 40);
	assert_int_equal(w.family, 4);
	assert_int_equal(w.l4_proto, 6);
	assert_int_equal(w.frag, 0);	/* DF is not a fragment */
	assert_true(tep_walk_l4_whole(&w));
	/* Ethernet padding after the datagram is allowed */
	assert_int_equal(tep_hdr_walk(p, n + 6, n + 6, TEP_WALK_ETH, &w),
			 TEP_R_OK);
	assert_int_equal(w.ip_len, 40);
	/* one byte short */
	assert_int_equal(tep_hdr_walk(p, n - 1, n - 1, TEP_WALK_ETH, &w),
			 TEP_R_TRUNCATED);
	/* the first segment ends inside the IP header */
	assert_int_equal(tep_hdr_walk(p, n, 30, TEP_WALK_ETH, &w),
			 TEP_R_HDR_SPLIT);
	assert_int_equal(tep_hdr_walk(p, n, 30,
				      TEP_WALK_ETH | TEP_WALK_NO_SPLIT, &w),
			 TEP_R_TRUNCATED);

	/* tagged, options, MF */
	l2 = mk_eth(p, true, 0x0800);
	n = l2 + mk_ip4(p + l2, 3, 17, 0x2000, 8);
	assert_int_equal(tep_hdr_walk(p, n, n, TEP_WALK_ETH, &w),
			 TEP_R_UNKNOWN_PROTO);
	assert_int_equal(w.ethertype, 0x8100);
	assert_int_equal(tep_hdr_walk(p, n, n, TEP_WALK_ETH | TEP_WALK_VLAN,
				      &w), TEP_R_OK);
	assert_int_equal(w.l2_len, 18);
	assert_int_equal(w.l3_len, 32);
	assert_int_equal(w.l4_off, 50);
	assert_int_equal(w.frag, 1);
	assert_false(tep_walk_l4_whole(&w));
	/* IHL 4 */
	p[l2] = 0x44;
	assert_int_equal(tep_hdr_walk(p, n, n, TEP_WALK_ETH | TEP_WALK_VLAN,
				      &w), TEP_R_BAD_HDR_LEN);
	/* total length below the header's */
	p[l2] = 0x48;
	put16(p + l2 + 2, 28);
	assert_int_equal(tep_hdr_walk(p, n, n, TEP_WALK_ETH | TEP_WALK_VLAN,
				      &w), TEP_R_BAD_LENGTH);
	/* version 5 */
	p[l2] = 0x58;
	assert_int_equal(tep_hdr_walk(p, n, n, TEP_WALK_ETH | TEP_WALK_VLAN,
				      &w), TEP_R_BAD_VERSION);

	/* IPv6 with hop-by-hop, routing (segments left), fragment, TCP */
	types[0] = 0;
	types[1] = 43;
	types[2] = 44;
	lens[1] = 2;
	l2 = mk_eth(p, false, 0x86dd);
	n = l2 + mk_ip6(p + l2, types, lens, 3, 6, 20, 1);
	assert_int_equal(tep_hdr_walk(p, n, n, TEP_WALK_ETH, &w), TEP_R_OK);
	assert_int_equal(w.l3_len, 40);
	assert_int_equal(w.l4_proto, 0);
	assert_int_equal(w.ext, TEP_WALK_X_PRESENT);
	assert_int_equal(tep_hdr_walk(p, n, n, TEP_WALK_ETH | TEP_WALK_EXT,
				      &w), TEP_R_OK);
	assert_int_equal(w.l3_len, 40 + 8 + 24 + 8);
	assert_int_equal(w.l4_off, 14 + 80);
	assert_int_equal(w.l4_proto, 6);
	assert_int_equal(w.frag, 1);
	assert_int_equal(w.ext, TEP_WALK_X_PRESENT | TEP_WALK_X_RT |
				TEP_WALK_X_RT_LEFT | TEP_WALK_X_FRAG);
	/* the chain split by the first segment, and cut short */
	assert_int_equal(tep_hdr_walk(p, n, 14 + 60,
				      TEP_WALK_ETH | TEP_WALK_EXT, &w),
			 TEP_R_HDR_SPLIT);
	put16(p + l2 + 4, 30);
	assert_int_equal(tep_hdr_walk(p, n, n, TEP_WALK_ETH | TEP_WALK_EXT,
				      &w), TEP_R_TRUNCATED);

	/* a chain longer than the walk goes: L4 not there */
	for (i = 0; i < 10; i++) {
		types[i] = 60;
		lens[i] = 0;
	}
	n = l2 + mk_ip6(p + l2, types, lens, 10, 17, 8, 0);
	assert_int_equal(tep_hdr_walk(p, n, n, TEP_WALK_ETH | TEP_WALK_EXT,
				      &w), TEP_R_OK);
	assert_int_equal(w.ext, TEP_WALK_X_PRESENT | TEP_WALK_X_LONG);
	assert_int_equal(w.l3_len, 40 + 8 * TEP_WALK_EXT_MAX);
	assert_int_equal(w.l4_proto, 60);
	assert_false(tep_walk_l4_whole(&w));

	/* no Ethernet: the version nibble */
	n = mk_ip4(p, 0, 1, 0, 8);
	assert_int_equal(tep_hdr_walk(p, n, n, 0, &w), TEP_R_OK);
	assert_int_equal(w.l2_len, 0);
	assert_int_equal(w.l4_off, 20);
	p[0] = 0x75;
	assert_int_equal(tep_hdr_walk(p, n, n, 0, &w), TEP_R_BAD_VERSION);
	assert_int_equal(tep_hdr_walk(p, 0, 0, 0, &w), TEP_R_TRUNCATED);

	/* ARP */
	l2 = mk_eth(p, false, 0x0806);
	memset(p + l2, 0, 28);
	assert_int_equal(tep_hdr_walk(p, 42, 42, TEP_WALK_ETH, &w),
			 TEP_R_UNKNOWN_PROTO);
	assert_int_equal(w.ethertype, 0x0806);
	assert_int_equal(w.l2_len, 14);
}

/* The reason orders of the three families of callers. */
static void
test_orders(void **state)
{
	uint8_t p[128];
	struct tep_walk w;
	uint32_t n;

	(void)state;
	mk_eth(p, false, 0x0800);
	n = 14 + mk_ip4(p + 14, 10, 6, 0, 20);	/* ihl 60, tot 80 */
	/* ihl beyond the packet, tot within: classify says the lengths
	 * disagree, the others that it is short */
	put16(p + 16, 40);
	assert_int_equal(tep_hdr_walk(p, 14 + 50, 14 + 50, TEP_WALK_ETH, &w),
			 TEP_R_TRUNCATED);
	assert_int_equal(tep_hdr_walk(p, 14 + 50, 14 + 50,
				      TEP_WALK_ETH | TEP_WALK_SPLIT_EARLY, &w),
			 TEP_R_TRUNCATED);
	assert_int_equal(tep_hdr_walk(p, 14 + 50, 14 + 50,
				      TEP_WALK_ETH | TEP_WALK_NO_SPLIT, &w),
			 TEP_R_BAD_LENGTH);
	/* header beyond the first segment, tot below ihl */
	assert_int_equal(tep_hdr_walk(p, n, 14 + 50, TEP_WALK_ETH, &w),
			 TEP_R_BAD_LENGTH);
	assert_int_equal(tep_hdr_walk(p, n, 14 + 50,
				      TEP_WALK_ETH | TEP_WALK_SPLIT_EARLY, &w),
			 TEP_R_HDR_SPLIT);
	assert_int_equal(tep_hdr_walk(p, n, 14 + 50,
				      TEP_WALK_ETH | TEP_WALK_NO_SPLIT, &w),
			 TEP_R_BAD_LENGTH);
	/* header beyond the first segment, tot beyond the packet */
	put16(p + 16, 200);
	assert_int_equal(tep_hdr_walk(p, n, 14 + 50, TEP_WALK_ETH, &w),
			 TEP_R_TRUNCATED);
	assert_int_equal(tep_hdr_walk(p, n, 14 + 50,
				      TEP_WALK_ETH | TEP_WALK_SPLIT_EARLY, &w),
			 TEP_R_HDR_SPLIT);
	assert_int_equal(tep_hdr_walk(p, n, 14 + 50,
				      TEP_WALK_ETH | TEP_WALK_NO_SPLIT, &w),
			 TEP_R_TRUNCATED);
}

static void
test_hand_vs_ref(void **state)
{
	uint8_t p[256];
	uint8_t types[4] = { 0, 60, 43, 44 }, lens[4] = { 0, 1, 0, 0 };
	uint32_t l2, n;

	(void)state;
	l2 = mk_eth(p, false, 0x0800);
	n = l2 + mk_ip4(p + l2, 0, 6, 0, 20);
	compare_all(p, n, true);
	l2 = mk_eth(p, true, 0x0800);
	n = l2 + mk_ip4(p + l2, 10, 17, 0x0001, 8);
	compare_all(p, n, true);
	l2 = mk_eth(p, false, 0x86dd);
	n = l2 + mk_ip6(p + l2, types, lens, 0, 6, 20, 0);
	compare_all(p, n, true);
	l2 = mk_eth(p, true, 0x86dd);
	n = l2 + mk_ip6(p + l2, types, lens, 4, 17, 8, 3);
	compare_all(p, n, true);
	n = mk_ip6(p, types, lens, 2, 58, 8, 0);
	compare_all(p, n, true);
}

/* One generated packet into p; its length. */
static uint32_t
gen_packet(uint8_t *p)
{
	uint32_t l2 = 0, n, i, next;
	bool eth = rnd() % 4 != 0, v6 = rnd() % 2;

	if (eth)
		l2 = mk_eth(p, rnd() % 3 == 0,
			    rnd() % 16 == 0 ? 0x0806 :
			    v6 ? 0x86dd : 0x0800);
	if (!v6) {
		static const uint16_t fr[] = { 0, 0x4000, 0x2000, 0x0010,
					       0x8000 };

		n = l2 + mk_ip4(p + l2, rnd() % 4 == 0 ? rnd() % 11 : 0,
				(uint8_t)(rnd() % 3 == 0 ? rnd() : 6),
				fr[rnd() % 5], rnd() % 40);
	} else {
		static const uint8_t kinds[] = { 0, 43, 44, 60 };
		uint8_t types[12], lens[12];
		uint32_t k = rnd() % 3 == 0 ? rnd() % 12 : 0;

		for (i = 0; i < k; i++) {
			types[i] = kinds[rnd() % 4];
			lens[i] = (uint8_t)(rnd() % 3);
		}
		n = l2 + mk_ip6(p + l2, types, lens, k,
				(uint8_t)(rnd() % 3 == 0 ? rnd() : 17),
				rnd() % 40, (uint8_t)(rnd() % 2));
	}
	/* sometimes a few bytes spoiled, padding after the datagram */
	if (rnd() % 4 == 0)
		for (i = rnd() % 3 + 1; i > 0; i--) {
			next = rnd() % n;
			p[next] = (uint8_t)rnd();
		}
	if (rnd() % 8 == 0)
		for (i = rnd() % 20; i > 0; i--)
			p[n++] = (uint8_t)rnd();
	return n;
}

static void
test_random_vs_ref(void **state)
{
	uint8_t p[1024];
	uint32_t i, n;

	(void)state;
	for (i = 0; i < 1000; i++) {
		n = gen_packet(p);
		compare_all(p, n, false);
	}
	fprintf(stderr, "walk: %lu comparisons with the reference\n",
		compared);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_orders),
		cmocka_unit_test(test_hand_vs_ref),
		cmocka_unit_test(test_random_vs_ref),
	};

	return cmocka_run_group_tests_name("walk", tests, NULL, NULL);
}
