/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Chained mbufs (jumbo frames), on fake chains in plain memory with random
 * cut points, so odd-length pieces at odd offsets are the common case:
 *  - decap: tep_parse_outer_seg() on the first segment, the outer UDP sum
 *    walked over the chain, against the flat parse and a reference sum;
 *  - encap: a full outer sum from the first segment plus the rest's sum,
 *    against the flat tep_encap_write() and the reference;
 *  - the software L4 checksum over a chain, trimming and pulling up;
 *  - tep_flow_parse_seg() against tep_flow_parse().
 * The reference is tests/common/tep_ref.h (a naive RFC 1071 sum).
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tep_chain.h"
#include "tep_csum.h"
#include "tep_csum_mbuf.h"
#include "tep_proto.h"
#include "tep_ref.h"

#define MAXSEG	8
#define MAXF	9300
#define ROUNDS	400

static uint64_t rng = 0x6a756d626f;

static uint32_t
below(uint32_t n)
{
	return n == 0 ? 0 : (uint32_t)(tep_ref_rnd(&rng) % n);
}

struct chain {
	struct rte_mbuf seg[MAXSEG];
	uint8_t store[MAXF + MAXSEG * 800];	/* data, headroom, tailroom */
	uint32_t n;
};

/* Lay frame[0..len) into n segments, the first holding at least hdr
 * bytes; tail spare bytes of tailroom after each segment's data. */
static void
lay(struct chain *c, const uint8_t *frame, uint32_t len, uint32_t n,
    uint32_t hdr, uint32_t tail)
{
	uint32_t cuts[MAXSEG + 1], k, at = 0;

	assert_true(n >= 1 && n <= MAXSEG && hdr <= len);
	cuts[0] = 0;
	cuts[n] = len;
	for (k = 1; k < n; k++) {
		uint32_t lo = k == 1 ? hdr : cuts[k - 1];

		cuts[k] = lo + below(len - lo + 1);
	}
	memset(c->seg, 0, sizeof(c->seg));
	for (k = 0; k < n; k++) {
		struct rte_mbuf *m = &c->seg[k];
		uint16_t doff = (uint16_t)(k == 0 ? 128 : below(64));
		uint16_t dl = (uint16_t)(cuts[k + 1] - cuts[k]);

		m->buf_addr = c->store + at;
		m->data_off = doff;
		m->data_len = dl;
		m->buf_len = (uint16_t)(doff + dl + tail);
		memcpy(c->store + at + doff, frame + cuts[k], dl);
		at += doff + dl + tail + 1;
		m->next = k + 1 < n ? &c->seg[k + 1] : NULL;
		m->nb_segs = 1;
		rte_mbuf_refcnt_set(m, 1);
	}
	c->seg[0].nb_segs = (uint16_t)n;
	c->seg[0].pkt_len = len;
	c->n = n;
}

/* The chain's bytes, flat. */
static uint32_t
flatten(const struct rte_mbuf *m, uint8_t *out)
{
	uint32_t n = 0;

	for (; m != NULL; m = m->next) {
		memcpy(out + n, rte_pktmbuf_mtod(m, const uint8_t *),
		       m->data_len);
		n += m->data_len;
	}
	return n;
}

/* ---- frames ------------------------------------------------------------- */

/* Inner Ethernet + IPv4 + UDP or TCP, payload random; its L4 checksum set
 * by the reference. Returns its length. */
static uint32_t
mk_inner(uint8_t *f, uint32_t payload, bool tcp)
{
	uint32_t l4len = (tcp ? 20 : 8) + payload, tot = 20 + l4len;
	uint8_t *ip = f + 14, *l4 = ip + 20;
	uint16_t ck;

	memset(f, 0, 14 + 20 + (tcp ? 20 : 8));
	memcpy(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	tep_ref_wr16(f + 12, 0x0800);
	ip[0] = 0x45;
	tep_ref_wr16(ip + 2, (uint16_t)tot);
	ip[8] = 64;
	ip[9] = tcp ? 6 : 17;
	memcpy(ip + 12, "\xc0\x00\x02\x0a\xc6\x12\x00\x02", 8);
	tep_ref_wr16(ip + 10, (uint16_t)~tep_ref_sum(ip, 20, 0));
	tep_ref_rnd_fill(&rng, l4 + (tcp ? 20 : 8), payload);
	tep_ref_wr16(l4, 40000);
	tep_ref_wr16(l4 + 2, 5001);
	if (tcp) {
		l4[12] = 5 << 4;
	} else {
		tep_ref_wr16(l4 + 4, (uint16_t)l4len);
	}
	ck = (uint16_t)~tep_ref_sum(l4, l4len,
				    tep_ref_phdr(false, ip + 12, ip + 16,
						 ip[9], l4len));
	if (!tcp && ck == 0)
		ck = 0xffff;
	tep_ref_wr16(l4 + (tcp ? 16 : 6), ck);
	return 14 + tot;
}

/* VXLAN over IPv4 or IPv6 around inner[0..ilen), outer UDP checksum by the
 * reference. Returns the frame's length. */
static uint32_t
mk_vxlan(uint8_t *f, const uint8_t *inner, uint32_t ilen, bool v6)
{
	uint32_t l3 = v6 ? 40 : 20, ulen = 8 + 8 + ilen;
	uint8_t *ip = f + 14, *u = ip + l3;
	const uint8_t *s, *d;

	memset(f, 0, 14 + l3 + 16);
	memcpy(f, "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02", 12);
	if (v6) {
		tep_ref_wr16(f + 12, 0x86dd);
		ip[0] = 0x60;
		tep_ref_wr16(ip + 4, (uint16_t)ulen);
		ip[6] = 17;
		ip[7] = 64;
		memcpy(ip + 8, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
		memcpy(ip + 24, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
		s = ip + 8;
		d = ip + 24;
	} else {
		tep_ref_wr16(f + 12, 0x0800);
		ip[0] = 0x45;
		tep_ref_wr16(ip + 2, (uint16_t)(20 + ulen));
		ip[8] = 64;
		ip[9] = 17;
		memcpy(ip + 12, "\xc6\x33\x64\x02\xc6\x33\x64\x01", 8);
		tep_ref_wr16(ip + 10, (uint16_t)~tep_ref_sum(ip, 20, 0));
		s = ip + 12;
		d = ip + 16;
	}
	tep_ref_wr16(u, 50000);
	tep_ref_wr16(u + 2, 4789);
	tep_ref_wr16(u + 4, (uint16_t)ulen);
	u[8] = 0x08;
	u[12] = 0;
	u[13] = 0;
	u[14] = 42;
	memcpy(u + 16, inner, ilen);
	{
		uint16_t ck = (uint16_t)~tep_ref_sum(u, ulen,
				tep_ref_phdr(v6, s, d, 17, ulen));

		tep_ref_wr16(u + 6, ck == 0 ? 0xffff : ck);
	}
	return 14 + l3 + ulen;
}

/* ---- decap -------------------------------------------------------------- */

static void
test_decap_chain(void **state)
{
	static uint8_t inner[MAXF], frame[MAXF], flat[MAXF];
	static struct chain c;
	int i;

	(void)state;
	for (i = 0; i < ROUNDS; i++) {
		bool v6 = i & 1;
		uint32_t ilen = mk_inner(inner, 1000 + below(8000), i & 2);
		uint32_t len = mk_vxlan(frame, inner, ilen, v6);
		struct tep_decap df, dc;
		const uint8_t *b;
		uint32_t sum;

		lay(&c, frame, len, 2 + below(MAXSEG - 1), 200, 0);
		b = rte_pktmbuf_mtod(&c.seg[0], const uint8_t *);
		assert_int_equal(tep_parse_outer(frame, len,
						 TEP_PARSE_VERIFY_CSUM, &df),
				 TEP_R_OK);
		assert_int_equal(tep_parse_outer_seg(b, c.seg[0].data_len, len,
						     TEP_PARSE_VERIFY_CSUM,
						     &dc), TEP_R_OK);
		assert_int_equal(tep_parse_vxlan(frame, len, &df), TEP_R_OK);
		assert_int_equal(tep_parse_vxlan(b, c.seg[0].data_len, &dc),
				 TEP_R_OK);
		/* the same packet, seen through its first segment */
		assert_int_equal(dc.l4_off, df.l4_off);
		assert_int_equal(dc.l4_len, df.l4_len);
		assert_int_equal(dc.inner_off, df.inner_off);
		assert_int_equal(dc.inner_len, df.inner_len);
		assert_int_equal(dc.vni, 42);
		assert_true(dc.csum_present);
		assert_int_equal(dc.csum_verified,
				 c.seg[0].data_len >= dc.l4_off + dc.l4_len);
		/* the walk over the chain agrees with the reference ... */
		sum = tep_decap_outer_phdr(b, &dc);
		assert_int_equal(tep_csum_mbuf(&c.seg[0], dc.l4_off, dc.l4_len,
					       &sum), 0);
		assert_int_equal(tep_csum_fold(sum), 0xffff);
		/* ... and catches one flipped bit in the last segment */
		{
			struct rte_mbuf *l = &c.seg[c.n - 1];

			if (l->data_len > 0) {
				uint8_t *p = rte_pktmbuf_mtod_offset(l, uint8_t *,
						below(l->data_len));

				*p ^= 0x10;
				sum = tep_decap_outer_phdr(b, &dc);
				assert_int_equal(tep_csum_mbuf(&c.seg[0],
						 dc.l4_off, dc.l4_len, &sum), 0);
				assert_int_not_equal(tep_csum_fold(sum), 0xffff);
				*p ^= 0x10;
			}
		}
		assert_int_equal(flatten(&c.seg[0], flat), len);
		assert_memory_equal(flat, frame, len);
	}
	/* headers that do not all fit the first segment */
	{
		uint32_t ilen = mk_inner(inner, 100, false);
		uint32_t len = mk_vxlan(frame, inner, ilen, false);
		struct tep_decap d;

		assert_int_equal(tep_parse_outer_seg(frame, 30, len,
						     TEP_PARSE_VERIFY_CSUM, &d),
				 TEP_R_HDR_SPLIT);
		assert_int_equal(tep_parse_outer_seg(frame, 40, len,
						     TEP_PARSE_VERIFY_CSUM, &d),
				 TEP_R_HDR_SPLIT);
		assert_int_equal(tep_parse_outer_seg(frame, 42, len,
						     TEP_PARSE_VERIFY_CSUM, &d),
				 TEP_R_OK);
		assert_int_equal(tep_parse_vxlan(frame, 45, &d),
				 TEP_R_HDR_SPLIT);
		/* but a short packet is still called short */
		assert_int_equal(tep_parse_outer_seg(frame, 30, 30, 0, &d),
				 TEP_R_TRUNCATED);
	}
}

/* ---- encap -------------------------------------------------------------- */

static void
test_encap_full_chain(void **state)
{
	static uint8_t inner[MAXF], a[MAXF + 256], b[MAXF + 256];
	static struct chain c;
	struct tep_encap_params p;
	struct tep_encap_tmpl t;
	int i;

	(void)state;
	for (i = 0; i < ROUNDS; i++) {
		bool v6 = i & 1;
		uint32_t ilen = mk_inner(inner, 1000 + below(8000), i & 2);
		struct tep_encap_pkt pk;
		uint32_t contig, tail = 0, l4;
		uint16_t ck;

		memset(&p, 0, sizeof(p));
		p.type = i & 4 ? TEP_TUN_GENEVE : TEP_TUN_VXLAN;
		p.outer_v6 = v6;
		memcpy(p.src, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
		memcpy(p.dst, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
		p.vni = 42;
		p.csum = TEP_CSUM_FULL;
		assert_int_equal(tep_encap_tmpl_build(&t, &p, NULL, 0), 0);

		lay(&c, inner, ilen, 2 + below(MAXSEG - 1), 60, 0);
		contig = c.seg[0].data_len;
		assert_int_equal(tep_csum_mbuf(&c.seg[0], contig, ilen - contig,
					       &tail), 0);
		memset(&pk, 0, sizeof(pk));
		pk.inner_len = (uint16_t)ilen;
		pk.sport = 50000;
		pk.l4.kind = TEP_L4_NONE;
		pk.l4.state = TEP_L4_COMPLETE;
		/* flat */
		memcpy(a + t.len, inner, ilen);
		assert_int_equal(tep_encap_write(&t, a, &pk), TEP_OCSUM_FULL);
		/* chained: the first segment after the headers, then a sum */
		memcpy(b + t.len, inner, contig);
		memset(b + t.len + contig, 0xee, ilen - contig);
		pk.inner_contig = (uint16_t)contig;
		pk.inner_tail_sum = tail;
		assert_int_equal(tep_encap_write(&t, b, &pk), TEP_OCSUM_FULL);
		assert_memory_equal(a, b, t.len);
		/* and the reference over the whole datagram */
		l4 = t.l4_off;
		ck = tep_ref_sum(a + l4, t.len - l4 + ilen,
				 tep_ref_phdr(v6, a + t.l2_len + (v6 ? 8 : 12),
					      a + t.l2_len + (v6 ? 24 : 16),
					      17, t.len - l4 + ilen));
		assert_int_equal(ck, 0xffff);
	}
}

/* ---- L4 checksum, trim, pull-up ------------------------------------------ */

static void
test_l4_complete_chain(void **state)
{
	static uint8_t frame[MAXF], flat[MAXF];
	static struct chain c;
	int i;

	(void)state;
	for (i = 0; i < ROUNDS; i++) {
		bool tcp = i & 1;
		uint32_t len = mk_inner(frame, below(9000), tcp);
		uint32_t l4 = 34, l4len = len - l4, off = tcp ? 16 : 6;
		uint8_t *ip = frame + 14;
		uint16_t seed = tep_ref_sum(NULL, 0,
			tep_ref_phdr(false, ip + 12, ip + 16, ip[9], l4len));

		/* the field holds the seed, as a guest leaves it */
		tep_ref_wr16(frame + l4 + off, seed);
		lay(&c, frame, len, 1 + below(MAXSEG), l4 + off + 2, 0);
		assert_int_equal(tep_chain_l4_complete(&c.seg[0], l4, l4len,
						       off, !tcp), 0);
		assert_int_equal(flatten(&c.seg[0], flat), len);
		assert_int_equal(tep_ref_sum(flat + l4, l4len,
				 tep_ref_phdr(false, ip + 12, ip + 16, ip[9],
					      l4len)), 0xffff);
		/* its field must be in the first segment */
		lay(&c, frame, len, 2, l4, 0);
		c.seg[0].data_len = (uint16_t)(l4 + off + 1);
		c.seg[1].data_len = (uint16_t)(len - l4 - off - 1);
		assert_int_equal(tep_chain_l4_complete(&c.seg[0], l4, l4len,
						       off, !tcp), -1);
	}
}

static void
test_trim_pullup(void **state)
{
	static uint8_t frame[MAXF], flat[MAXF];
	static struct chain c;
	int i;

	(void)state;
	for (i = 0; i < ROUNDS; i++) {
		uint32_t len = 600 + below(8000), n = 2 + below(MAXSEG - 1);
		struct rte_mbuf *last;
		uint32_t cut, want;

		tep_ref_rnd_fill(&rng, frame, len);
		/* trim inside the last segment, leaving some of it: nothing
		 * to free (fake mbufs have no pool) */
		lay(&c, frame, len, n, 100, 0);
		last = &c.seg[c.n - 1];
		cut = below(last->data_len);
		tep_chain_trim(&c.seg[0], len - cut);
		assert_int_equal(c.seg[0].pkt_len, len - cut);
		assert_int_equal(flatten(&c.seg[0], flat), len - cut);
		assert_memory_equal(flat, frame, len - cut);

		/* pull up as much as the second segment has, less one */
		lay(&c, frame, len, n, 20, 600);
		want = c.seg[0].data_len + (c.seg[1].data_len > 1 ?
					    c.seg[1].data_len - 1 : 0);
		if (want > c.seg[0].data_len + 600u)
			want = c.seg[0].data_len + 600u;
		assert_int_equal(tep_chain_pullup(&c.seg[0], want), 0);
		assert_true(c.seg[0].data_len >= want ||
			    c.seg[0].data_len == len);
		assert_int_equal(flatten(&c.seg[0], flat), len);
		assert_memory_equal(flat, frame, len);
		/* no tailroom for it: refused, chain unchanged */
		lay(&c, frame, len, 2, 20, 0);
		if (c.seg[1].data_len > 0) {
			assert_int_equal(tep_chain_pullup(&c.seg[0],
						c.seg[0].data_len + 1), -1);
			assert_int_equal(flatten(&c.seg[0], flat), len);
			assert_memory_equal(flat, frame, len);
		}
	}
}

static void
test_flow_seg(void **state)
{
	static uint8_t frame[MAXF];
	int i;

	(void)state;
	for (i = 0; i < ROUNDS; i++) {
		uint32_t len = mk_inner(frame, below(9000), i & 1);
		struct tep_flow a, b;

		assert_int_equal(tep_flow_parse(frame, len, true, &a), TEP_R_OK);
		assert_int_equal(tep_flow_parse_seg(frame, 54 + below(len - 53),
						    len, true, &b), TEP_R_OK);
		assert_int_equal(a.hash, b.hash);
		assert_int_equal(a.l4.kind, b.l4.kind);
		assert_int_equal(a.l4.csum_start, b.l4.csum_start);
		assert_int_equal(a.l4.l4_end, b.l4.l4_end);
		assert_int_equal(a.ip_len, b.ip_len);
		assert_int_equal(tep_flow_parse_seg(frame, 30, len, true, &b),
				 TEP_R_HDR_SPLIT);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decap_chain),
		cmocka_unit_test(test_encap_full_chain),
		cmocka_unit_test(test_l4_complete_chain),
		cmocka_unit_test(test_trim_pullup),
		cmocka_unit_test(test_flow_seg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
