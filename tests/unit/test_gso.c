/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * TCP segmentation headers (tep_tso_plan, tep_tso_seg_hdr) and the
 * receive-side inner checksum derivation (tep_inner_csum_derive).
 *
 * Every expected value is worked out here from the super-packet's bytes
 * and the naive RFC 1071 sum in tep_ref.h, never by calling the code under
 * test a second time: lengths, IDs and sequence numbers by plain
 * arithmetic, checksums by summing bytes in network order.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tep_proto.h"
#include "tep_ref.h"

#define TCP_FIN	0x01
#define TCP_SYN	0x02
#define TCP_PSH	0x08
#define TCP_ACK	0x10
#define TCP_ECE	0x40
#define TCP_CWR	0x80

#define ETH_LEN	14
#define FRAME_MAX	(ETH_LEN + 40 + 65535)	/* IPv6: payload length 65535 */

/* ---- super-packets ------------------------------------------------------ */

struct sp_spec {
	int v6;
	int ip_opts;		/* IPv4: 4 bytes of options (IHL 6) */
	int tcp_opts;		/* 12 bytes: NOP NOP timestamps (doff 8) */
	uint32_t payload;
	uint32_t seq;
	uint16_t ip_id;
	uint8_t flags;
};

/* Where things are in a frame built by build_super(). */
struct sp_layout {
	uint32_t l3_len, l4_len, hdr_len, frame_len;
};

static const uint8_t v4_src[4] = { 10, 1, 2, 3 };
static const uint8_t v4_dst[4] = { 192, 0, 2, 77 };
static const uint8_t v6_src[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
				    0, 0, 0, 0, 0, 0, 0x12, 0x34 };
static const uint8_t v6_dst[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0,
				    0, 0, 0, 0, 0xab, 0xcd, 0, 0x01 };

/*
 * An Ethernet frame carrying a TCP super-packet as a guest hands it over.
 * The TCP checksum field holds junk: tep_tso_seg_hdr() must not use it
 * (virtio guests leave a seed with or without the length in it).
 */
static void
build_super(uint8_t *f, const struct sp_spec *s, uint64_t *rng,
	    struct sp_layout *lo)
{
	uint8_t *ip = f + ETH_LEN, *tcp;
	uint32_t l3 = s->v6 ? 40 : (s->ip_opts ? 24 : 20);
	uint32_t l4h = s->tcp_opts ? 32 : 20;

	memcpy(f, "\x52\x54\x00\x12\x34\x56\x02\x00\x00\x00\x00\x01", 12);
	tep_ref_wr16(f + 12, s->v6 ? 0x86dd : 0x0800);
	if (!s->v6) {
		ip[0] = (uint8_t)(0x40 | l3 / 4);
		ip[1] = 0x2e;			/* some DSCP and ECN */
		tep_ref_wr16(ip + 2, (uint16_t)(l3 + l4h + s->payload));
		tep_ref_wr16(ip + 4, s->ip_id);
		tep_ref_wr16(ip + 6, 0x4000);	/* DF: allowed */
		ip[8] = 61;
		ip[9] = 6;
		tep_ref_wr16(ip + 10, 0xbeef);	/* stale: recomputed */
		memcpy(ip + 12, v4_src, 4);
		memcpy(ip + 16, v4_dst, 4);
		if (s->ip_opts)			/* RFC 2113 router alert */
			memcpy(ip + 20, "\x94\x04\x00\x00", 4);
	} else {
		ip[0] = 0x6b;			/* traffic class, flow label */
		ip[1] = 0x8a;
		ip[2] = 0xbc;
		ip[3] = 0xde;
		tep_ref_wr16(ip + 4, (uint16_t)(l4h + s->payload));
		ip[6] = 6;
		ip[7] = 61;
		memcpy(ip + 8, v6_src, 16);
		memcpy(ip + 24, v6_dst, 16);
	}
	tcp = ip + l3;
	tep_ref_wr16(tcp, 40000);
	tep_ref_wr16(tcp + 2, 5201);
	tcp[4] = (uint8_t)(s->seq >> 24);
	tcp[5] = (uint8_t)(s->seq >> 16);
	tcp[6] = (uint8_t)(s->seq >> 8);
	tcp[7] = (uint8_t)s->seq;
	memcpy(tcp + 8, "\x87\x65\x43\x21", 4);	/* ack */
	tcp[12] = (uint8_t)(l4h / 4 << 4);
	tcp[13] = s->flags;
	tep_ref_wr16(tcp + 14, 502);		/* window */
	tep_ref_wr16(tcp + 16, 0xdead);		/* junk: must be replaced */
	tep_ref_wr16(tcp + 18, 0);
	if (s->tcp_opts)
		memcpy(tcp + 20, "\x01\x01\x08\x0a\x00\x01\xe2\x40"
				 "\x7f\xff\xff\xfe", 12);
	tep_ref_rnd_fill(rng, tcp + l4h, s->payload);
	lo->l3_len = l3;
	lo->l4_len = l4h;
	lo->hdr_len = ETH_LEN + l3 + l4h;
	lo->frame_len = lo->hdr_len + s->payload;
}

static uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* ---- one segment against the super-packet ------------------------------ */

/*
 * Check segment idx (headers and payload in seg, seg_payload bytes of
 * payload) against the super-packet sp, then complete its TCP checksum
 * the way a NIC does and prove the result right with a full naive sum.
 */
static void
check_segment(const uint8_t *sp, const struct sp_spec *s,
	      const struct sp_layout *lo, uint8_t *seg, uint32_t idx,
	      uint32_t nb_segs, uint32_t mss, uint32_t seg_payload)
{
	const uint8_t *sip = sp + ETH_LEN, *stcp = sip + lo->l3_len;
	uint8_t *ip = seg + ETH_LEN, *tcp = ip + lo->l3_len;
	uint32_t l4len = lo->l4_len + seg_payload;
	uint8_t want_flags = s->flags;
	uint16_t ph, ck;

	/* Ethernet unchanged. */
	assert_memory_equal(seg, sp, ETH_LEN);
	if (!s->v6) {
		assert_int_equal(ip[0], sip[0]);
		assert_int_equal(ip[1], sip[1]);
		assert_int_equal(tep_ref_rd16(ip + 2), lo->l3_len + l4len);
		/* ID advances by one per segment, mod 2^16 */
		assert_int_equal(tep_ref_rd16(ip + 4),
				 (uint16_t)(s->ip_id + idx));
		assert_int_equal(tep_ref_rd16(ip + 6), tep_ref_rd16(sip + 6));
		assert_int_equal(ip[8], sip[8]);	/* TTL */
		assert_int_equal(ip[9], 6);
		assert_memory_equal(ip + 12, sip + 12, 8);
		if (lo->l3_len > 20)
			assert_memory_equal(ip + 20, sip + 20,
					    lo->l3_len - 20);
		/* Header checksum valid, options included. */
		assert_int_equal(tep_ref_sum(ip, lo->l3_len, 0), 0xffff);
	} else {
		assert_memory_equal(ip, sip, 4);
		assert_int_equal(tep_ref_rd16(ip + 4), l4len);
		assert_memory_equal(ip + 6, sip + 6, 34);
	}

	assert_memory_equal(tcp, stcp, 4);		/* ports */
	assert_int_equal(rd32(tcp + 4), (uint32_t)(s->seq + idx * mss));
	assert_memory_equal(tcp + 8, stcp + 8, 5);	/* ack, data offset */
	if (idx > 0)
		want_flags &= (uint8_t)~TCP_CWR;
	if (idx + 1 < nb_segs)
		want_flags &= (uint8_t)~(TCP_FIN | TCP_PSH);
	assert_int_equal(tcp[13], want_flags);
	assert_memory_equal(tcp + 14, stcp + 14, 2);	/* window */
	assert_memory_equal(tcp + 18, stcp + 18, lo->l4_len - 18);

	/*
	 * The checksum field holds the pseudo-header sum for this segment's
	 * length, not complemented (what a NIC's checksum offload and the
	 * software fallback expect). A NIC completes it by summing the TCP
	 * header and payload with that seed in place and storing the
	 * complement: the seed stands in for the pseudo-header.
	 */
	ph = tep_ref_phdr(s->v6 != 0, ip + (s->v6 ? 8 : 12),
			  ip + (s->v6 ? 24 : 16), 6, l4len);
	assert_int_equal(tep_ref_rd16(tcp + 16), ph);
	ck = (uint16_t)~tep_ref_sum(tcp, l4len, 0);
	tep_ref_wr16(tcp + 16, ck);
	/* Proof: the completed segment verifies with its full pseudo-header. */
	assert_int_equal(tep_ref_sum(tcp, l4len, ph), 0xffff);
	tep_ref_wr16(tcp + 16, ph);	/* as it was */
}

/*
 * Segment sp at mss, each segment into its own buffer, check every one,
 * and reassemble the payload by sequence number: it must give back the
 * original payload exactly.
 */
static void
segment_and_check(const struct sp_spec *s, uint16_t mss, uint32_t want_segs)
{
	static uint8_t sp[FRAME_MAX], sp_copy[FRAME_MAX], data[65536];
	static uint8_t seg[FRAME_MAX + 64];
	static uint8_t seen[65536];
	uint64_t rng = 0x67736f7465737431ull ^ s->payload ^ ((uint64_t)mss << 32);
	struct sp_layout lo;
	struct tep_tso t;
	uint32_t idx, off, total = 0;

	build_super(sp, s, &rng, &lo);
	memcpy(sp_copy, sp, lo.frame_len);
	assert_int_equal(tep_tso_plan(sp, lo.frame_len, lo.frame_len, ETH_LEN,
				      mss, &t), TEP_R_OK);
	assert_int_equal(t.family, s->v6 ? 6 : 4);
	assert_int_equal(t.l3_off, ETH_LEN);
	assert_int_equal(t.l3_len, lo.l3_len);
	assert_int_equal(t.l4_len, lo.l4_len);
	assert_int_equal(t.hdr_len, lo.hdr_len);
	assert_int_equal(t.mss, mss);
	assert_int_equal(t.payload, s->payload);
	assert_int_equal(t.nb_segs, want_segs);

	memset(seen, 0, sizeof(seen));
	memset(data, 0, sizeof(data));
	off = lo.hdr_len;
	for (idx = 0; idx < t.nb_segs; idx++) {
		uint32_t left = s->payload - (off - lo.hdr_len);
		uint32_t n = left < mss ? left : mss;
		uint32_t rel, k;
		size_t c;

		/* Bytes after the headers must stay as they were. */
		memset(seg, 0x5a, lo.hdr_len + 64);
		tep_tso_seg_hdr(&t, sp, seg, (uint16_t)idx, (uint16_t)n);
		for (c = lo.hdr_len; c < lo.hdr_len + 64; c++)
			assert_int_equal(seg[c], 0x5a);
		memcpy(seg + lo.hdr_len, sp + off, n);
		check_segment(sp, s, &lo, seg, idx, t.nb_segs, mss, n);

		/* All but the last are full; none is empty unless the
		 * super-packet carries no payload at all. */
		assert_true(n <= mss);
		if (idx + 1 < t.nb_segs)
			assert_int_equal(n, mss);
		assert_true(n > 0 || s->payload == 0);
		/* Place the payload where its sequence number says. */
		rel = rd32(seg + ETH_LEN + lo.l3_len + 4) - s->seq;
		assert_true(rel + n <= s->payload);
		for (k = 0; k < n; k++) {
			assert_int_equal(seen[rel + k], 0);
			seen[rel + k] = 1;
		}
		memcpy(data + rel, seg + lo.hdr_len, n);
		off += n;
		total += n;
	}
	assert_int_equal(total, s->payload);
	assert_int_equal(off, lo.frame_len);
	if (s->payload > 0)
		assert_memory_equal(data, sp + lo.hdr_len, s->payload);
	/* The super-packet itself is read only. */
	assert_memory_equal(sp, sp_copy, lo.frame_len);
}

static uint32_t
div_up(uint32_t a, uint32_t b)
{
	return a == 0 ? 1 : (a + b - 1) / b;
}

/* seq and ID chosen so both wrap in the middle of a 20000-byte send. */
#define SEQ_NEAR_WRAP	0xffffd123u
#define ID_NEAR_WRAP	0xfffa
#define ALL_FLAGS	(TCP_PSH | TCP_FIN | TCP_CWR | TCP_ACK | TCP_ECE)

static void
test_tso_ipv4(void **state)
{
	struct sp_spec s = { .payload = 20000, .seq = SEQ_NEAR_WRAP,
			     .ip_id = ID_NEAR_WRAP, .flags = ALL_FLAGS };
	(void)state;

	/* 13 full segments and one of 1176 bytes; seq wraps at the 9th
	 * segment, the ID at the 7th. */
	segment_and_check(&s, 1448, 14);
	assert_int_equal(div_up(20000, 1448), 14);
	s.tcp_opts = 1;
	segment_and_check(&s, 1448, 14);
}

static void
test_tso_ipv4_options(void **state)
{
	struct sp_spec s = { .ip_opts = 1, .tcp_opts = 1, .payload = 20000,
			     .seq = SEQ_NEAR_WRAP, .ip_id = ID_NEAR_WRAP,
			     .flags = ALL_FLAGS };
	(void)state;

	segment_and_check(&s, 1448, 14);
	s.tcp_opts = 0;
	segment_and_check(&s, 1448, 14);
}

static void
test_tso_ipv6(void **state)
{
	struct sp_spec s = { .v6 = 1, .tcp_opts = 1, .payload = 20000,
			     .seq = SEQ_NEAR_WRAP, .flags = ALL_FLAGS };
	(void)state;

	segment_and_check(&s, 1448, 14);
	s.tcp_opts = 0;
	segment_and_check(&s, 1428, 15);
}

/* An MSS that divides the payload: no short last segment. */
static void
test_tso_exact_multiple(void **state)
{
	struct sp_spec s = { .payload = 20000, .seq = 0xfffffc00u,
			     .ip_id = 0xffff, .flags = ALL_FLAGS };
	int v6;
	(void)state;

	for (v6 = 0; v6 < 2; v6++) {
		s.v6 = v6;
		segment_and_check(&s, 1000, 20);
		segment_and_check(&s, 1250, 16);
		segment_and_check(&s, 20000, 1);
	}
}

/* Small sends: one segment, which keeps CWR, FIN and PSH. */
static void
test_tso_one_segment(void **state)
{
	struct sp_spec s = { .payload = 1000, .seq = 7, .ip_id = 1,
			     .flags = ALL_FLAGS };
	int v6;
	(void)state;

	for (v6 = 0; v6 < 2; v6++) {
		s.v6 = v6;
		s.payload = 1000;
		segment_and_check(&s, 1448, 1);
		s.payload = 1447;
		segment_and_check(&s, 1448, 1);
		s.payload = 1449;
		segment_and_check(&s, 1448, 2);
		s.payload = 0;		/* a bare FIN */
		segment_and_check(&s, 1448, 1);
	}
}

/* The extremes: the largest IPv4 datagram, and MSS 1. */
static void
test_tso_extremes(void **state)
{
	struct sp_spec s = { .seq = 0xffffffffu, .ip_id = 0xffff,
			     .flags = ALL_FLAGS | TCP_SYN };
	(void)state;

	s.payload = 65535 - 20 - 20;
	segment_and_check(&s, 536, div_up(s.payload, 536));
	s.v6 = 1;		/* payload length 65535: TCP header + data */
	s.payload = 65535 - 20;
	segment_and_check(&s, 1440, div_up(s.payload, 1440));
	s.v6 = 0;
	s.payload = 300;
	segment_and_check(&s, 1, 300);
	s.v6 = 1;
	segment_and_check(&s, 7, div_up(300, 7));
}

/* A super-packet that is one segment is fixed in place (out == frame):
 * the same bytes as written to a separate buffer. */
static void
test_tso_in_place(void **state)
{
	static uint8_t sp[4096], ref[4096];
	int v6, opts;
	(void)state;

	for (v6 = 0; v6 < 2; v6++)
	for (opts = 0; opts < 2; opts++) {
		struct sp_spec s = { .v6 = v6, .ip_opts = opts && !v6,
				     .tcp_opts = opts, .payload = 999,
				     .seq = 0xfffffff0u, .ip_id = 0xffff,
				     .flags = ALL_FLAGS };
		uint64_t rng = 0x696e706c61636521ull;
		struct sp_layout lo;
		struct tep_tso t;

		build_super(sp, &s, &rng, &lo);
		memcpy(ref, sp, lo.frame_len);
		assert_int_equal(tep_tso_plan(sp, lo.frame_len, lo.frame_len,
					      ETH_LEN, 1448, &t), TEP_R_OK);
		assert_int_equal(t.nb_segs, 1);
		tep_tso_seg_hdr(&t, sp, sp, 0, 999);
		/* Against the pristine super-packet, by reference. */
		check_segment(ref, &s, &lo, sp, 0, 1, 1448, 999);
		/* Only the fields a segment changes did change. */
		assert_memory_equal(sp + lo.hdr_len, ref + lo.hdr_len, 999);
		/* A separate buffer gets the same bytes. */
		{
			static uint8_t out[4096];

			tep_tso_seg_hdr(&t, ref, out, 0, 999);
			assert_memory_equal(out, sp, lo.hdr_len);
		}
	}
}

/* ---- inputs tep_tso_plan() must refuse --------------------------------- */

static enum tep_reason
plan(const uint8_t *f, size_t room, uint32_t len, uint16_t mss)
{
	struct tep_tso t;

	return tep_tso_plan(f, room, len, ETH_LEN, mss, &t);
}

/* IPv4 header checksum is not looked at by tep_tso_plan(), so mutations
 * need not fix it. */
static void
test_tso_bad_inputs(void **state)
{
	static uint8_t f[4096], g[4096];
	struct sp_spec s = { .payload = 3000, .seq = 1, .ip_id = 1,
			     .flags = TCP_ACK };
	uint64_t rng = 0x626164696e707574ull;
	struct sp_layout lo, lo6;
	uint8_t *ip = f + ETH_LEN;
	(void)state;

	build_super(f, &s, &rng, &lo);
	memcpy(g, f, lo.frame_len);
	assert_int_equal(plan(f, lo.frame_len, lo.frame_len, 1448), TEP_R_OK);

	assert_int_equal(plan(f, lo.frame_len, lo.frame_len, 0),
			 TEP_R_BAD_GSO);

	ip[9] = 17;				/* UDP */
	assert_int_equal(plan(f, lo.frame_len, lo.frame_len, 1448),
			 TEP_R_BAD_GSO);
	ip[9] = 6;

	tep_ref_wr16(ip + 6, 0x2000);		/* MF */
	assert_int_equal(plan(f, lo.frame_len, lo.frame_len, 1448),
			 TEP_R_BAD_GSO);
	tep_ref_wr16(ip + 6, 0x4001);		/* DF and an offset */
	assert_int_equal(plan(f, lo.frame_len, lo.frame_len, 1448),
			 TEP_R_BAD_GSO);
	tep_ref_wr16(ip + 6, 0x0000);		/* no DF: fine */
	assert_int_equal(plan(f, lo.frame_len, lo.frame_len, 1448), TEP_R_OK);
	tep_ref_wr16(ip + 6, 0x4000);

	ip[0] = 0x44;				/* IHL 4 */
	assert_int_equal(plan(f, lo.frame_len, lo.frame_len, 1448),
			 TEP_R_BAD_GSO);
	ip[0] = 0x55;				/* version 5 */
	assert_int_equal(plan(f, lo.frame_len, lo.frame_len, 1448),
			 TEP_R_BAD_GSO);
	ip[0] = 0x45;

	/* The frame must be exactly the IP datagram: no padding, no
	 * shortfall. */
	assert_int_equal(plan(f, lo.frame_len, lo.frame_len + 1, 1448),
			 TEP_R_BAD_GSO);
	assert_int_equal(plan(f, lo.frame_len, lo.frame_len - 1, 1448),
			 TEP_R_BAD_GSO);

	/* TCP data offset below 5, or past the datagram's end. */
	f[ETH_LEN + 20 + 12] = 4 << 4;
	assert_int_equal(plan(f, lo.frame_len, lo.frame_len, 1448),
			 TEP_R_BAD_GSO);
	f[ETH_LEN + 20 + 12] = 15 << 4;		/* 60 bytes of TCP header */
	tep_ref_wr16(ip + 2, 20 + 40);		/* datagram holds 40 */
	assert_int_equal(plan(f, lo.frame_len, ETH_LEN + 60, 1448),
			 TEP_R_BAD_GSO);
	memcpy(f, g, lo.frame_len);

	/* Header room: every length short of the headers is truncated. */
	{
		size_t room;

		for (room = 0; room < lo.hdr_len; room++) {
			/* A heap block of exactly `room` bytes: ASan catches
			 * a read past it. */
			uint8_t *h = malloc(room ? room : 1);

			assert_non_null(h);
			memcpy(h, f, room);
			assert_int_equal(plan(h, room, lo.frame_len, 1448),
					 TEP_R_TRUNCATED);
			free(h);
		}
		assert_int_equal(plan(f, lo.hdr_len, lo.frame_len, 1448),
				 TEP_R_OK);
	}
	assert_int_equal(plan(f, lo.frame_len, ETH_LEN + 19, 1448),
			 TEP_R_TRUNCATED);

	/* IPv6: next header not TCP (extension headers are not handled). */
	s.v6 = 1;
	s.tcp_opts = 1;
	build_super(f, &s, &rng, &lo6);
	ip = f + ETH_LEN;
	assert_int_equal(plan(f, lo6.frame_len, lo6.frame_len, 1448),
			 TEP_R_OK);
	ip[6] = 0;				/* hop-by-hop options */
	assert_int_equal(plan(f, lo6.frame_len, lo6.frame_len, 1448),
			 TEP_R_BAD_GSO);
	ip[6] = 17;
	assert_int_equal(plan(f, lo6.frame_len, lo6.frame_len, 1448),
			 TEP_R_BAD_GSO);
	ip[6] = 6;
	assert_int_equal(plan(f, lo6.frame_len, lo6.frame_len + 2, 1448),
			 TEP_R_BAD_GSO);
	{
		size_t room;

		for (room = 0; room < lo6.hdr_len; room++) {
			uint8_t *h = malloc(room ? room : 1);

			assert_non_null(h);
			memcpy(h, f, room);
			assert_int_equal(plan(h, room, lo6.frame_len, 1448),
					 TEP_R_TRUNCATED);
			free(h);
		}
	}
	/* Only the TCP header within IPv6's length: 32-byte header, the
	 * datagram says 20. */
	tep_ref_wr16(ip + 4, 20);
	assert_int_equal(plan(f, lo6.frame_len, ETH_LEN + 40 + 20, 1448),
			 TEP_R_BAD_GSO);
}

/* ---- tep_inner_csum_derive ---------------------------------------------- */

enum { IN_TCP, IN_UDP, IN_ICMP };

/* Where the inner packet's parts are, relative to its start. */
struct inner_info {
	uint32_t len;		/* whole inner frame */
	uint32_t l3_off, l3_len, l4_off, l4_len, csum_off;
	uint8_t proto;
};

/* Memory-order partial sum of a network-order folded value: how the
 * library takes a pseudo-header sum. */
static uint32_t
mem_sum(uint16_t netval)
{
	uint8_t b[2];
	uint16_t v;

	tep_ref_wr16(b, netval);
	memcpy(&v, b, sizeof(v));
	return v;
}

/* The inner packet's pseudo-header sum, folded, network order (0 for
 * ICMPv4, which has none). */
static uint16_t
inner_phdr_ref(const uint8_t *p, const struct inner_info *ii)
{
	const uint8_t *ip = p + ii->l3_off;
	bool v6 = (ip[0] >> 4) == 6;

	if (ii->proto == 1)
		return 0;
	return tep_ref_phdr(v6, ip + (v6 ? 8 : 12), ip + (v6 ? 24 : 16),
			    ii->proto, ii->l4_len);
}

/* Naive check of the inner L4 checksum: 0xffff when right. */
static uint16_t
inner_sum_ref(const uint8_t *p, const struct inner_info *ii)
{
	return tep_ref_sum(p + ii->l4_off, ii->l4_len, inner_phdr_ref(p, ii));
}

/*
 * Ethernet + IPv4/IPv6 + TCP/UDP/ICMP(v4) with `payload` random bytes and
 * a right checksum, computed by reference.
 */
static void
make_inner(uint8_t *p, int v6, int kind, uint32_t payload, uint64_t *rng,
	   struct inner_info *ii)
{
	uint8_t *ip = p + ETH_LEN, *l4;
	uint32_t l3 = v6 ? 40 : 20;
	uint32_t l4h = kind == IN_TCP ? 20 : 8;
	uint16_t ck;

	memcpy(p, "\x02\x00\x00\x00\x00\x0a\x02\x00\x00\x00\x00\x0b", 12);
	tep_ref_wr16(p + 12, v6 ? 0x86dd : 0x0800);
	ii->proto = kind == IN_TCP ? 6 : kind == IN_UDP ? 17 : 1;
	if (!v6) {
		memset(ip, 0, 20);
		ip[0] = 0x45;
		tep_ref_wr16(ip + 2, (uint16_t)(l3 + l4h + payload));
		tep_ref_wr16(ip + 4, (uint16_t)tep_ref_rnd(rng));
		ip[8] = 64;
		ip[9] = ii->proto;
		memcpy(ip + 12, v4_src, 4);
		memcpy(ip + 16, v4_dst, 4);
		tep_ref_wr16(ip + 10, (uint16_t)~tep_ref_sum(ip, 20, 0));
	} else {
		memset(ip, 0, 40);
		ip[0] = 0x60;
		tep_ref_wr16(ip + 4, (uint16_t)(l4h + payload));
		ip[6] = ii->proto;
		ip[7] = 64;
		memcpy(ip + 8, v6_src, 16);
		memcpy(ip + 24, v6_dst, 16);
	}
	l4 = ip + l3;
	tep_ref_rnd_fill(rng, l4, l4h + payload);
	ii->l3_off = ETH_LEN;
	ii->l3_len = l3;
	ii->l4_off = ETH_LEN + l3;
	ii->l4_len = l4h + payload;
	ii->len = ii->l4_off + ii->l4_len;
	if (kind == IN_TCP) {
		l4[12] = 5 << 4;
		ii->csum_off = 16;
	} else if (kind == IN_UDP) {
		tep_ref_wr16(l4 + 4, (uint16_t)ii->l4_len);
		ii->csum_off = 6;
	} else {
		l4[0] = 8;	/* echo request */
		l4[1] = 0;
		ii->csum_off = 2;
	}
	tep_ref_wr16(l4 + ii->csum_off, 0);
	ck = (uint16_t)~tep_ref_sum(l4, ii->l4_len, inner_phdr_ref(p, ii));
	if (kind == IN_UDP && ck == 0)
		ck = 0xffff;	/* RFC 768 */
	tep_ref_wr16(l4 + ii->csum_off, ck);
	assert_int_equal(inner_sum_ref(p, ii), 0xffff);
}

/* The outer UDP checksum rewritten by reference (after a mutation). */
static void
fix_outer_udp(uint8_t *pkt, const struct tep_encap_tmpl *t, uint32_t udp_len)
{
	const uint8_t *ip = pkt + t->l2_len;
	uint8_t *udp = pkt + t->l4_off;
	bool v6 = t->outer_v6 != 0;
	uint16_t ph = tep_ref_phdr(v6, ip + (v6 ? 8 : 12), ip + (v6 ? 24 : 16),
				   17, udp_len);
	uint16_t ck;

	tep_ref_wr16(udp + 6, 0);
	ck = (uint16_t)~tep_ref_sum(udp, udp_len, ph);
	tep_ref_wr16(udp + 6, ck == 0 ? 0xffff : ck);
	assert_int_equal(tep_ref_sum(udp, udp_len, ph), 0xffff);
}

/* Parse as tepd does on receive, with the outer sum verified. */
static void
parse_rx(const uint8_t *pkt, size_t len, struct tep_decap *d)
{
	assert_int_equal(tep_parse_outer(pkt, len, TEP_PARSE_VERIFY_CSUM, d),
			 TEP_R_OK);
	assert_true(d->csum_present);
	assert_true(d->csum_verified);
	assert_int_equal(tep_parse_vxlan(pkt, len, d), TEP_R_OK);
}

/*
 * One VXLAN packet over IPv4 or IPv6 carrying an inner frame; derive must
 * say right for it, then wrong after each of a payload byte, the inner
 * checksum field and an inner address is changed with the outer checksum
 * fixed up (so the outer one stays valid and only the inner one is off).
 */
static void
derive_case(int outer_v6, int inner_v6, int kind, uint32_t payload,
	    uint64_t *rng)
{
	static uint8_t pkt[TEP_ENCAP_HDR_MAX + 2048], save[sizeof(pkt)];
	struct tep_encap_params p;
	struct tep_encap_tmpl t;
	struct tep_encap_pkt pk;
	struct inner_info ii;
	struct tep_flow f;
	struct tep_decap d;
	uint32_t udp_len, inner_l4, len, at;
	uint8_t *in;
	int m;

	memset(&p, 0, sizeof(p));
	p.type = TEP_TUN_VXLAN;
	p.outer_v6 = outer_v6;
	memcpy(p.smac, "\x02\0\0\0\0\x01", 6);
	memcpy(p.dmac, "\x02\0\0\0\0\x02", 6);
	if (!outer_v6) {
		memcpy(p.src, "\xc6\x33\x64\x01", 4);
		memcpy(p.dst, "\xc6\x33\x64\x02", 4);
	} else {
		memcpy(p.src, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
		memcpy(p.dst, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
	}
	p.vni = 4242;
	p.csum = TEP_CSUM_FULL;		/* every byte summed: no shortcut */
	assert_int_equal(tep_encap_tmpl_build(&t, &p, NULL, 0), 0);
	in = pkt + t.len;
	make_inner(in, inner_v6, kind, payload, rng, &ii);
	assert_int_equal(tep_flow_parse(in, ii.len, true, &f), TEP_R_OK);
	memset(&pk, 0, sizeof(pk));
	pk.inner_len = (uint16_t)ii.len;
	pk.sport = 51000;
	pk.ip_id = 7;
	pk.l4 = f.l4;
	pk.l4.state = TEP_L4_COMPLETE;
	assert_int_equal(tep_encap_write(&t, pkt, &pk), TEP_OCSUM_FULL);
	len = t.len + ii.len;
	udp_len = len - t.l4_off;
	/* The builder's outer checksum, by reference. */
	{
		const uint8_t *ip = pkt + t.l2_len;
		bool v6 = outer_v6 != 0;

		assert_int_equal(tep_ref_sum(pkt + t.l4_off, udp_len,
				 tep_ref_phdr(v6, ip + (v6 ? 8 : 12),
					      ip + (v6 ? 24 : 16), 17,
					      udp_len)), 0xffff);
	}
	parse_rx(pkt, len, &d);
	assert_int_equal(d.inner_off, t.len);
	inner_l4 = d.inner_off + ii.l4_off;
	assert_true(tep_inner_csum_derive(pkt, &d, inner_l4,
					  mem_sum(inner_phdr_ref(in, &ii))));

	memcpy(save, pkt, len);
	for (m = 0; m < 3; m++) {
		if (m == 0 && payload == 0)
			continue;
		if (m == 2 && kind == IN_ICMP)
			continue;	/* ICMPv4 has no pseudo-header */
		if (m == 0)		/* a payload byte */
			at = ii.l4_off + ii.l4_len - payload +
			     (uint32_t)(tep_ref_rnd(rng) % payload);
		else if (m == 1)	/* the checksum field */
			at = ii.l4_off + ii.csum_off;
		else			/* the inner source address */
			at = ii.l3_off + (inner_v6 ? 8 + 15 : 12 + 3);
		in[at] ^= (uint8_t)(1u << (tep_ref_rnd(rng) % 8));
		if (m == 2 && !inner_v6) {
			/* Keep the inner IPv4 header valid: only the L4
			 * checksum is to be wrong. */
			uint8_t *ip = in + ii.l3_off;

			tep_ref_wr16(ip + 10, 0);
			tep_ref_wr16(ip + 10,
				     (uint16_t)~tep_ref_sum(ip, 20, 0));
		}
		fix_outer_udp(pkt, &t, udp_len);
		parse_rx(pkt, len, &d);
		/* The reference agrees the inner checksum is now wrong. */
		assert_int_not_equal(inner_sum_ref(in, &ii), 0xffff);
		/* The pseudo-header as the receiver computes it: from the
		 * packet's (possibly changed) addresses. */
		assert_false(tep_inner_csum_derive(pkt, &d, inner_l4,
				mem_sum(inner_phdr_ref(in, &ii))));
		memcpy(pkt, save, len);
	}

	/* No outer checksum (IPv4 UDP 0): nothing to derive from. */
	if (!outer_v6) {
		tep_ref_wr16(pkt + t.l4_off + 6, 0);
		assert_int_equal(tep_parse_outer(pkt, len,
						 TEP_PARSE_VERIFY_CSUM, &d),
				 TEP_R_OK);
		assert_false(d.csum_present);
		assert_false(tep_inner_csum_derive(pkt, &d, inner_l4,
				mem_sum(inner_phdr_ref(in, &ii))));
		memcpy(pkt, save, len);
	}
}

static void
test_derive_tcp_udp(void **state)
{
	static const uint32_t lens[] = { 0, 1, 2, 7, 100, 1001, 1447, 1448 };
	uint64_t rng = 0x6465726976653031ull;
	int ov6, iv6, kind;
	size_t i;
	(void)state;

	for (ov6 = 0; ov6 < 2; ov6++)
	for (iv6 = 0; iv6 < 2; iv6++)
	for (kind = IN_TCP; kind <= IN_UDP; kind++) {
		for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
			derive_case(ov6, iv6, kind, lens[i], &rng);
		for (i = 0; i < 50; i++)
			derive_case(ov6, iv6, kind,
				    (uint32_t)(tep_ref_rnd(&rng) % 1449), &rng);
	}
}

/* The header says inner_phdr is 0 for ICMPv4 (no pseudo-header). */
static void
test_derive_icmp4(void **state)
{
	uint64_t rng = 0x6465726976653032ull;
	int ov6;
	size_t i;
	(void)state;

	for (ov6 = 0; ov6 < 2; ov6++) {
		derive_case(ov6, 0, IN_ICMP, 0, &rng);
		derive_case(ov6, 0, IN_ICMP, 57, &rng);
		for (i = 0; i < 50; i++)
			derive_case(ov6, 0, IN_ICMP,
				    (uint32_t)(tep_ref_rnd(&rng) % 1449), &rng);
	}
}

/*
 * An outer IPv4/UDP datagram built by hand: `filler` bytes after the UDP
 * header, then a TCP segment of `pay` payload bytes whose checksum is
 * right for the pseudo-header *ph (v4_src -> v4_dst). The outer UDP
 * checksum is right too, and sport is chosen so that it comes out as
 * `want_ck` when that is not 0 (the caller's choice of corner). Returns the
 * frame length; *tcp_off is the TCP header's offset in pkt.
 */
static size_t
hand_pkt(uint8_t *pkt, uint32_t filler, uint32_t pay, uint16_t want_ck,
	 uint64_t *rng, uint32_t *tcp_off, uint16_t *ph)
{
	uint32_t l4len = 20 + pay, udp_len = 8 + filler + l4len;
	uint8_t *ip = pkt + ETH_LEN, *udp = ip + 20, *tcp = udp + 8 + filler;
	uint16_t oph, ck;

	memset(pkt, 0, ETH_LEN + 20 + 8);
	tep_ref_wr16(pkt + 12, 0x0800);
	ip[0] = 0x45;
	tep_ref_wr16(ip + 2, (uint16_t)(20 + udp_len));
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, "\xc6\x33\x64\x01\xc6\x33\x64\x02", 8);
	tep_ref_wr16(ip + 10, (uint16_t)~tep_ref_sum(ip, 20, 0));
	tep_ref_wr16(udp + 2, 9999);
	tep_ref_wr16(udp + 4, (uint16_t)udp_len);
	tep_ref_rnd_fill(rng, udp + 8, filler + l4len);
	tcp[12] = 5 << 4;
	*ph = tep_ref_phdr(false, v4_src, v4_dst, 6, l4len);
	tep_ref_wr16(tcp + 16, 0);
	tep_ref_wr16(tcp + 16, (uint16_t)~tep_ref_sum(tcp, l4len, *ph));
	assert_int_equal(tep_ref_sum(tcp, l4len, *ph), 0xffff);

	oph = tep_ref_phdr(false, ip + 12, ip + 16, 17, udp_len);
	tep_ref_wr16(udp, 0);
	if (want_ck != 0) {
		/* The checksum is ~(S + sport) with S the sum without the
		 * port: pick sport = ~want_ck - S, ones-complement. */
		uint32_t sport = (uint16_t)~want_ck +
				 (uint16_t)~tep_ref_sum(udp, udp_len, oph);

		sport = (sport & 0xffff) + (sport >> 16);
		tep_ref_wr16(udp, (uint16_t)sport);
	} else {
		tep_ref_wr16(udp, 50000);
	}
	ck = (uint16_t)~tep_ref_sum(udp, udp_len, oph);
	tep_ref_wr16(udp + 6, ck == 0 ? 0xffff : ck);
	assert_int_equal(tep_ref_sum(udp, udp_len, oph), 0xffff);
	*tcp_off = (uint32_t)(tcp - pkt);
	return ETH_LEN + 20 + udp_len;
}

/*
 * The inner L4 header at an odd offset from the outer UDP header (no
 * tunnel tepd sends does this, but derive handles it): its words sit in
 * the other byte lanes of the outer sum.
 */
static void
test_derive_odd_offset(void **state)
{
	static uint8_t pkt[2048];
	uint64_t rng = 0x6f64646f66667365ull;
	int rep;
	(void)state;

	for (rep = 0; rep < 400; rep++) {
		uint32_t filler = (uint32_t)rep % 4, tcp_off;
		struct tep_decap d;
		uint16_t ph;
		size_t len;

		len = hand_pkt(pkt, filler,
			       (uint32_t)(tep_ref_rnd(&rng) % 1400), 0, &rng,
			       &tcp_off, &ph);
		assert_int_equal(tep_parse_outer(pkt, len,
						 TEP_PARSE_VERIFY_CSUM, &d),
				 TEP_R_OK);
		assert_true(d.csum_verified);
		assert_int_equal((tcp_off - d.l4_off) & 1, filler & 1);
		assert_true(tep_inner_csum_derive(pkt, &d, tcp_off,
						  mem_sum(ph)));
		/* Another pseudo-header (UDP instead of TCP): wrong. */
		assert_false(tep_inner_csum_derive(pkt, &d, tcp_off,
				mem_sum(tep_ref_phdr(false, v4_src, v4_dst, 17,
						     (uint32_t)(len - tcp_off)))));
		/* The TCP header one byte off: wrong. */
		assert_false(tep_inner_csum_derive(pkt, &d, tcp_off + 1,
						   mem_sum(ph)));
	}
}

/*
 * An outer checksum of 0xffff (a computed 0, RFC 768) sums like 0, so with
 * the field cleared to 0 ("no checksum") the arithmetic would still say
 * the inner checksum is right: only csum_present stops derive from
 * trusting a checksum nobody sent.
 */
static void
test_derive_needs_outer_csum(void **state)
{
	static uint8_t pkt[2048];
	uint64_t rng = 0x6e6f6373756d3030ull;
	uint32_t tcp_off;
	struct tep_decap d;
	uint16_t ph;
	size_t len;
	(void)state;

	len = hand_pkt(pkt, 0, 333, 0xffff, &rng, &tcp_off, &ph);
	assert_int_equal(tep_ref_rd16(pkt + ETH_LEN + 20 + 6), 0xffff);
	assert_int_equal(tep_parse_outer(pkt, len, TEP_PARSE_VERIFY_CSUM, &d),
			 TEP_R_OK);
	assert_true(tep_inner_csum_derive(pkt, &d, tcp_off, mem_sum(ph)));
	tep_ref_wr16(pkt + ETH_LEN + 20 + 6, 0);
	assert_int_equal(tep_parse_outer(pkt, len, TEP_PARSE_VERIFY_CSUM, &d),
			 TEP_R_OK);
	assert_false(d.csum_present);
	assert_false(tep_inner_csum_derive(pkt, &d, tcp_off, mem_sum(ph)));
	/* Inner offsets outside the datagram are refused, not read. */
	tep_ref_wr16(pkt + ETH_LEN + 20 + 6, 0xffff);
	assert_int_equal(tep_parse_outer(pkt, len, TEP_PARSE_VERIFY_CSUM, &d),
			 TEP_R_OK);
	assert_false(tep_inner_csum_derive(pkt, &d, d.l4_off - 1,
					   mem_sum(ph)));
	assert_false(tep_inner_csum_derive(pkt, &d,
					   (uint32_t)d.l4_off + d.l4_len,
					   mem_sum(ph)));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tso_ipv4),
		cmocka_unit_test(test_tso_ipv4_options),
		cmocka_unit_test(test_tso_ipv6),
		cmocka_unit_test(test_tso_exact_multiple),
		cmocka_unit_test(test_tso_one_segment),
		cmocka_unit_test(test_tso_extremes),
		cmocka_unit_test(test_tso_in_place),
		cmocka_unit_test(test_tso_bad_inputs),
		cmocka_unit_test(test_derive_tcp_udp),
		cmocka_unit_test(test_derive_icmp4),
		cmocka_unit_test(test_derive_odd_offset),
		cmocka_unit_test(test_derive_needs_outer_csum),
	};

	return cmocka_run_group_tests_name("gso", tests, NULL, NULL);
}
