/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Tunnel header builders and parsers: round trips for every encapsulation,
 * outer checksums checked by a naive RFC 1071 sum written here, every
 * truncation and the malformations each parser must name, and the checksum
 * combinations the library must refuse. Byte-exact agreement with an
 * independent implementation is test_proto_golden.c's job (scapy vectors).
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

#include "tep_csum.h"
#include "tep_proto.h"
#include "tep_ref.h"

/* ---- independent reference ------------------------------------------- */

/* Pseudo-header sum of the IP header at ip for an L4 length/proto. */
static uint16_t
ref_phdr(const uint8_t *ip, uint8_t proto, uint32_t l4len)
{
	bool v6 = (ip[0] >> 4) == 6;

	return tep_ref_phdr(v6, ip + (v6 ? 8 : 12), ip + (v6 ? 24 : 16), proto,
			    l4len);
}

static uint64_t rng = 0x70726f746f746570ull;

static uint32_t
rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 2685821657736338717ull) >> 32);
}

/* ---- inner packets ------------------------------------------------------ */

enum { K_TCP, K_UDP, K_ICMP, K_SCTP, K_KINDS };

/*
 * A random inner packet with a valid checksum (by reference): optional
 * Ethernet, IPv4 or IPv6, TCP/UDP/ICMP(v6)/SCTP, 0..1400 payload bytes.
 * Returns its length.
 */
static size_t
make_inner(uint8_t *p, int eth, int v6, int kind, int pending)
{
	size_t l2 = eth ? 14 : 0, ihl = v6 ? 40 : 20, l4h, pay, l4len, i;
	uint8_t proto;
	uint8_t *ip = p + l2, *l4;
	size_t coff;

	proto = kind == K_TCP ? 6 : kind == K_UDP ? 17 :
		kind == K_SCTP ? 132 : v6 ? 58 : 1;
	l4h = kind == K_TCP ? 20 : kind == K_SCTP ? 12 : 8;
	coff = kind == K_TCP ? 16 : kind == K_UDP ? 6 : kind == K_SCTP ? 8 : 2;
	pay = rnd() % 1401;
	l4len = l4h + pay;
	for (i = 0; i < l2 + ihl + l4len; i++)
		p[i] = (uint8_t)rnd();
	if (eth)
		tep_ref_wr16(p + 12, v6 ? 0x86dd : 0x0800);
	if (!v6) {
		ip[0] = 0x45;
		ip[1] = (uint8_t)rnd();
		tep_ref_wr16(ip + 2, (uint16_t)(ihl + l4len));
		tep_ref_wr16(ip + 6, 0x4000);
		ip[8] = 64;
		ip[9] = proto;
		tep_ref_wr16(ip + 10, 0);
		tep_ref_wr16(ip + 10, (uint16_t)~tep_ref_sum(ip, 20, 0));
	} else {
		ip[0] = 0x60 | (rnd() & 0xf);
		tep_ref_wr16(ip + 4, (uint16_t)l4len);
		ip[6] = proto;
		ip[7] = 64;
	}
	l4 = ip + ihl;
	if (kind == K_TCP)
		l4[12] = 5 << 4;
	if (kind == K_UDP)
		tep_ref_wr16(l4 + 4, (uint16_t)l4len);
	tep_ref_wr16(l4 + coff, 0);
	if (kind == K_SCTP)
		return l2 + ihl + l4len;	/* CRC32c: not our business */
	{
		uint16_t ph = (kind == K_ICMP && !v6) ? 0 :
			      ref_phdr(ip, proto, (uint32_t)l4len);

		if (pending) {
			tep_ref_wr16(l4 + coff, ph);	/* the seed a NIC expects */
		} else {
			uint16_t ck = (uint16_t)~tep_ref_sum(l4, l4len, ph);

			if (kind == K_UDP && ck == 0)
				ck = 0xffff;
			tep_ref_wr16(l4 + coff, ck);
		}
	}
	return l2 + ihl + l4len;
}

/* Finish the inner checksum the way a NIC would, by reference. */
static void
ref_complete_inner(uint8_t *p, int eth, const struct tep_flow *f)
{
	uint8_t *ip = p + f->l3_off, *l4 = p + f->l4.csum_start;
	size_t l4len = f->ip_len - f->l3_len;
	uint16_t ph, ck;

	(void)eth;
	ph = f->l4.kind == TEP_L4_ICMP ? 0 : ref_phdr(ip, f->l4_proto,
						      (uint32_t)l4len);
	tep_ref_wr16(l4 + f->l4.csum_offset, 0);
	ck = (uint16_t)~tep_ref_sum(l4, l4len, ph);
	if (f->l4.kind == TEP_L4_UDP && ck == 0)
		ck = 0xffff;
	tep_ref_wr16(l4 + f->l4.csum_offset, ck);
}

static void
mk_params(struct tep_encap_params *p, enum tep_tun_type type, int v6)
{
	static const uint8_t opts[8] = { 0x01, 0x02, 0x03, 0x01,
					 0xde, 0xad, 0xbe, 0xef };

	memset(p, 0, sizeof(*p));
	p->type = type;
	p->outer_v6 = v6;
	memcpy(p->smac, "\x02\0\0\0\0\x01", 6);
	memcpy(p->dmac, "\x02\0\0\0\0\x02", 6);
	if (!v6) {
		memcpy(p->src, "\xc6\x33\x64\x01", 4);	/* 198.51.100.1 */
		memcpy(p->dst, "\xc6\x33\x64\x02", 4);
	} else {
		memcpy(p->src, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
		memcpy(p->dst, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
	}
	p->df = 1;
	p->vni = 42;
	p->gre_key = 1;
	p->gre_csum = 1;
	p->gue_proto = 4;
	if (type == TEP_TUN_GENEVE) {
		p->geneve_opts = opts;
		p->geneve_opts_len = sizeof(opts);
	}
	p->csum = TEP_CSUM_LCO;
}

static enum tep_reason
parse_all(const uint8_t *buf, size_t len, unsigned int flags,
	  struct tep_decap *d, enum tep_tun_type type)
{
	enum tep_reason r = tep_parse_outer(buf, len, flags, d);

	if (r != TEP_R_OK)
		return r;
	switch (type) {
	case TEP_TUN_VXLAN: return tep_parse_vxlan(buf, len, d);
	case TEP_TUN_GENEVE: return tep_parse_geneve(buf, len, d);
	case TEP_TUN_FOU: return tep_parse_fou(buf, len, 4, d);
	case TEP_TUN_GUE: return tep_parse_gue(buf, len, d);
	case TEP_TUN_GRE: return tep_parse_gre(buf, len, flags, d);
	default: return TEP_R_UNKNOWN_PROTO;
	}
}

/* Outer checksums of a built packet, by reference. */
static void
ref_check_outer(const uint8_t *pkt, size_t len, const struct tep_encap_tmpl *t)
{
	const uint8_t *ip = pkt + t->l2_len, *l4 = pkt + t->l4_off;
	size_t l4len = len - t->l4_off;

	if (!t->outer_v6)
		assert_int_equal(tep_ref_sum(ip, 20, 0), 0xffff);
	if (t->type == TEP_TUN_GRE) {
		assert_int_equal(tep_ref_sum(l4, l4len, 0), 0xffff);
		return;
	}
	assert_int_equal(tep_ref_rd16(l4 + 4), l4len);
	assert_int_not_equal(tep_ref_rd16(l4 + 6), 0);
	assert_int_equal(tep_ref_sum(l4, l4len, ref_phdr(ip, 17, (uint32_t)l4len)),
			 0xffff);
}

/* ---- round trips -------------------------------------------------------- */

static void
test_roundtrip_all(void **state)
{
	static uint8_t buf[TEP_ENCAP_HDR_MAX + 2048];
	int type, v6, in6, kind, mode, pending, n = 0;
	(void)state;

	for (type = 0; type < TEP_TUN_MAX; type++)
	for (v6 = 0; v6 < 2; v6++)
	for (in6 = 0; in6 < 2; in6++)
	for (kind = K_TCP; kind <= K_ICMP; kind++)
	for (mode = TEP_CSUM_LCO; mode <= TEP_CSUM_FULL; mode++)
	for (pending = 0; pending < 2; pending++) {
		struct tep_encap_params p;
		struct tep_encap_tmpl t;
		struct tep_encap_pkt pk;
		struct tep_flow f;
		struct tep_decap d;
		char err[128];
		int eth, rep, ret;
		size_t ilen;

		if ((type == TEP_TUN_FOU || type == TEP_TUN_GUE) && in6)
			continue;	/* tunnels set to carry IPv4 here */
		if (mode == TEP_CSUM_FULL && pending)
			continue;	/* refused: see test_refusals */
		for (rep = 0; rep < 20; rep++, n++) {
			mk_params(&p, (enum tep_tun_type)type, v6);
			p.csum = (enum tep_csum_mode)mode;
			assert_int_equal(tep_encap_tmpl_build(&t, &p, err,
							       sizeof(err)), 0);
			eth = t.inner_eth;
			ilen = make_inner(buf + t.len, eth, in6, kind, pending);
			assert_int_equal(tep_flow_parse(buf + t.len, ilen, eth,
							&f), TEP_R_OK);
			memset(&pk, 0, sizeof(pk));
			pk.inner_len = (uint16_t)ilen;
			pk.sport = tep_udp_sport(f.hash, t.sport_lo, t.sport_hi);
			pk.ip_id = (uint16_t)rnd();
			pk.inner_tos = f.tos;
			pk.flow_label = f.hash & 0xfffff;
			pk.l4 = f.l4;
			if (pending)
				pk.l4.state = TEP_L4_PENDING;
			/* make_inner's IPv4 headers are valid: half the time
			 * let LCO skip them (they sum to -0). */
			pk.l4.ip4_hdr_ok = !in6 && (rep & 1);
			/* and half the time hand over the inner Ethernet
			 * header's sum, as the datapath does */
			if (eth && (rep & 2)) {
				pk.inner_pre_len = 14;
				pk.inner_pre_sum = tep_csum_partial(buf + t.len,
								    14, 0);
			}
			ret = tep_encap_write(&t, buf, &pk);
			assert_true(ret >= 0);
			if (pending)	/* "the NIC" fills the inner one */
				ref_complete_inner(buf + t.len, eth, &f);
			ref_check_outer(buf, t.len + ilen, &t);
			assert_int_equal(ret, mode == TEP_CSUM_LCO ?
					 TEP_OCSUM_LCO : TEP_OCSUM_FULL);

			assert_int_equal(parse_all(buf, t.len + ilen,
						   TEP_PARSE_VERIFY_CSUM, &d,
						   (enum tep_tun_type)type),
					 TEP_R_OK);
			assert_int_equal(d.inner_off, t.len);
			assert_int_equal(d.inner_len, ilen);
			assert_int_equal(d.type, type);
			assert_true(d.csum_verified);
			if (type == TEP_TUN_VXLAN || type == TEP_TUN_GENEVE ||
			    type == TEP_TUN_GRE)
				assert_int_equal(d.vni, 42);
			if (type != TEP_TUN_GRE) {
				assert_int_equal(d.sport, pk.sport);
				assert_true(d.sport >= 49152);
			}
		}
	}
	assert_true(n > 1000);
}

/* LCO uses a caller's sum of the inner Ethernet header instead of the
 * bytes: a wrong one gives a wrong outer checksum (by the naive sum), the
 * right one the same packet as without it. */
static void
test_lco_inner_pre_sum(void **state)
{
	static uint8_t a[TEP_ENCAP_HDR_MAX + 2048], b[sizeof(a)];
	int i, wrong = 0;
	(void)state;

	for (i = 0; i < 2000; i++) {
		struct tep_encap_params p;
		struct tep_encap_tmpl t;
		struct tep_encap_pkt pk;
		struct tep_flow f;
		const uint8_t *ip, *l4;
		char err[128];
		size_t ilen, l4len;

		mk_params(&p, i & 1 ? TEP_TUN_GENEVE : TEP_TUN_VXLAN, i & 2);
		p.csum = TEP_CSUM_LCO;
		assert_int_equal(tep_encap_tmpl_build(&t, &p, err, sizeof(err)),
				 0);
		assert_true(t.inner_eth);
		ilen = make_inner(a + t.len, 1, (i >> 2) & 1,
				  K_TCP + (i >> 3) % 2, 0);
		memcpy(b, a, sizeof(a));
		assert_int_equal(tep_flow_parse(a + t.len, ilen, 1, &f),
				 TEP_R_OK);
		memset(&pk, 0, sizeof(pk));
		pk.inner_len = (uint16_t)ilen;
		pk.sport = 50000;
		pk.l4 = f.l4;
		pk.l4.ip4_hdr_ok = !((i >> 2) & 1);
		assert_int_equal(tep_encap_write(&t, a, &pk), TEP_OCSUM_LCO);
		pk.inner_pre_len = 14;
		pk.inner_pre_sum = tep_csum_partial(b + t.len, 14, 0);
		assert_int_equal(tep_encap_write(&t, b, &pk), TEP_OCSUM_LCO);
		assert_memory_equal(a, b, t.len + ilen);
		ref_check_outer(b, t.len + ilen, &t);
		/* one bit off in the handed-over sum */
		pk.inner_pre_sum ^= 1u << (i % 16);
		assert_int_equal(tep_encap_write(&t, b, &pk), TEP_OCSUM_LCO);
		ip = b + t.l2_len;
		l4 = b + t.l4_off;
		l4len = t.len + ilen - t.l4_off;
		wrong += tep_ref_sum(l4, l4len, ref_phdr(ip, 17,
					(uint32_t)l4len)) != 0xffff;
	}
	assert_int_equal(wrong, 2000);
}

/* Ethernet padding after the inner IP datagram: covered by the outer
 * checksum, not by the inner one (found by fuzz_flow). */
static void
test_inner_trailer(void **state)
{
	static uint8_t buf[TEP_ENCAP_HDR_MAX + 2048];
	int i;
	(void)state;

	for (i = 0; i < 4000; i++) {
		struct tep_encap_params p;
		struct tep_encap_tmpl t;
		struct tep_encap_pkt pk;
		struct tep_flow f;
		int pending = i & 1, type = (i >> 1) % TEP_TUN_MAX;
		size_t ilen, pad = 1 + rnd() % 17, k;

		mk_params(&p, (enum tep_tun_type)type, (i >> 3) & 1);
		assert_int_equal(tep_encap_tmpl_build(&t, &p, NULL, 0), 0);
		ilen = make_inner(buf + t.len, t.inner_eth, 0,
				  (int)(rnd() % 3), pending);
		for (k = 0; k < pad; k++)
			buf[t.len + ilen + k] = (uint8_t)(rnd() | 1);
		assert_int_equal(tep_flow_parse(buf + t.len, ilen + pad,
						t.inner_eth, &f), TEP_R_OK);
		assert_int_equal(f.l4.l4_end, ilen);
		memset(&pk, 0, sizeof(pk));
		pk.inner_len = (uint16_t)(ilen + pad);
		pk.sport = 50000;
		pk.l4 = f.l4;
		pk.l4.state = pending ? TEP_L4_PENDING : TEP_L4_COMPLETE;
		assert_int_equal(tep_encap_write(&t, buf, &pk), TEP_OCSUM_LCO);
		if (pending)
			ref_complete_inner(buf + t.len, t.inner_eth, &f);
		ref_check_outer(buf, t.len + ilen + pad, &t);
	}
}

/*
 * VXLAN with RCO (draft-herbert-vxlan-rco as Linux lays it out): TCP and
 * UDP go with the seed, pending or complete, the RCO bits in the VXLAN
 * header and an outer checksum right over what is sent; the receiver's
 * completion gives a checksum that verifies. Everything checked by the
 * reference sums here.
 */
static void
test_vxlan_rco_roundtrip(void **state)
{
	static uint8_t buf[TEP_ENCAP_HDR_MAX + 2048];
	int i;
	(void)state;

	for (i = 0; i < 4000; i++) {
		struct tep_encap_params p;
		struct tep_encap_tmpl t;
		struct tep_encap_pkt pk;
		struct tep_flow f;
		struct tep_decap d;
		size_t ilen;
		int kind = (int)(rnd() % 3), v6 = i & 1, iv6 = (i >> 1) & 1;
		int pending = kind != K_ICMP && ((i >> 2) & 1);
		int csum = (i >> 3) & 1 ? TEP_CSUM_FULL : TEP_CSUM_LCO;
		int ret, want;
		uint8_t *l4, *vx;
		uint16_t ph;

		mk_params(&p, TEP_TUN_VXLAN, v6);
		p.rco = 1;
		p.csum = (enum tep_csum_mode)csum;
		assert_int_equal(tep_encap_tmpl_build(&t, &p, NULL, 0), 0);
		ilen = make_inner(buf + t.len, 1, iv6, kind, pending);
		assert_int_equal(tep_flow_parse(buf + t.len, ilen, 1, &f),
				 TEP_R_OK);
		memset(&pk, 0, sizeof(pk));
		pk.inner_len = (uint16_t)ilen;
		pk.sport = (uint16_t)(49152 + i);
		pk.ip_id = (uint16_t)i;
		pk.l4 = f.l4;
		pk.l4.state = pending ? TEP_L4_PENDING : TEP_L4_COMPLETE;
		/* inner Ethernet + IPv4/IPv6: start 34 or 54, even */
		assert_int_equal(tep_encap_rco(&t, &pk), kind != K_ICMP);
		ret = tep_encap_write(&t, buf, &pk);
		want = csum == TEP_CSUM_FULL || pending ? TEP_OCSUM_FULL :
		       TEP_OCSUM_LCO;
		assert_int_equal(ret, want);
		ref_check_outer(buf, t.len + ilen, &t);

		vx = buf + t.l4_off + 8;
		l4 = buf + t.len + f.l4.csum_start;
		if (kind == K_ICMP) {
			/* not TCP/UDP: as without rco */
			assert_int_equal(vx[1], 0);
			assert_int_equal(vx[7], 0);
			continue;
		}
		/* On the wire, Linux's layout and the seed, by reference. */
		assert_int_equal(vx[0], 0x08);
		assert_int_equal(vx[1], 0x20);
		assert_int_equal(vx[2] | vx[3], 0);
		assert_int_equal(vx[7], (f.l4.csum_start >> 1) |
				 (kind == K_UDP ? 0x80 : 0));
		ph = ref_phdr(buf + t.len + f.l3_off, f.l4_proto,
			      f.ip_len - f.l3_len);
		assert_int_equal(tep_ref_rd16(l4 + f.l4.csum_offset), ph);

		memset(&d, 0, sizeof(d));
		assert_int_equal(parse_all(buf, t.len + ilen,
					   TEP_PARSE_VERIFY_CSUM, &d,
					   TEP_TUN_VXLAN), TEP_R_OK);
		assert_true(d.has_rco);
		assert_int_equal(d.vni, 42);
		assert_int_equal(d.rco_start, f.l4.csum_start);
		assert_int_equal(d.rco_offset,
				 f.l4.csum_start + f.l4.csum_offset);
		assert_int_equal(tep_rco_apply(buf, &d), TEP_R_OK);
		assert_int_equal(tep_ref_sum(l4, f.ip_len - f.l3_len, ph),
				 0xffff);
	}
}

/* What VXLAN RCO does not cover goes as without it; malformed RCO
 * fields are refused under a named reason. */
static void
test_vxlan_rco_strict(void **state)
{
	static uint8_t buf[TEP_ENCAP_HDR_MAX + 2048];
	struct tep_encap_params p;
	struct tep_encap_tmpl t;
	struct tep_encap_pkt pk;
	struct tep_flow f;
	struct tep_decap d;
	char err[128];
	size_t ilen;
	uint8_t *vx;
	(void)state;

	/* rco is GUE's and VXLAN's, and needs an outer checksum */
	mk_params(&p, TEP_TUN_GENEVE, 0);
	p.rco = 1;
	assert_int_equal(tep_encap_tmpl_build(&t, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "rco is for gue and vxlan"));
	mk_params(&p, TEP_TUN_VXLAN, 0);
	p.rco = 1;
	p.csum = TEP_CSUM_OFF;
	assert_int_equal(tep_encap_tmpl_build(&t, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "rco needs an outer checksum"));

	p.csum = TEP_CSUM_LCO;
	assert_int_equal(tep_encap_tmpl_build(&t, &p, NULL, 0), 0);
	ilen = make_inner(buf + t.len, 1, 0, K_TCP, 0);
	assert_int_equal(tep_flow_parse(buf + t.len, ilen, 1, &f), TEP_R_OK);
	memset(&pk, 0, sizeof(pk));
	pk.inner_len = (uint16_t)ilen;
	pk.l4 = f.l4;
	assert_true(tep_encap_rco(&t, &pk));
	/* Linux's limits: an even start of at most 254, offset 6 or 16 */
	pk.l4.csum_start = 35;
	assert_false(tep_encap_rco(&t, &pk));
	pk.l4.csum_start = 256;
	assert_false(tep_encap_rco(&t, &pk));
	pk.l4 = f.l4;
	pk.l4.csum_offset = 6;		/* TCP's is 16 */
	assert_false(tep_encap_rco(&t, &pk));
	pk.l4 = f.l4;
	pk.l4.l4_end = (uint16_t)(ilen - 2);	/* Ethernet padding after */
	assert_false(tep_encap_rco(&t, &pk));
	pk.l4 = f.l4;
	pk.inner_contig = 40;	/* the field past the first segment */
	assert_false(tep_encap_rco(&t, &pk));
	pk.inner_contig = 0;
	pk.l4.kind = TEP_L4_SCTP;
	assert_false(tep_encap_rco(&t, &pk));
	pk.l4 = f.l4;
	assert_int_equal(tep_encap_write(&t, buf, &pk), TEP_OCSUM_LCO);
	ref_check_outer(buf, t.len + ilen, &t);

	/* Parsing: the RCO fields as Linux reads them; reserved bits and a
	 * field outside the inner frame refused. */
	vx = buf + t.l4_off + 8;
	assert_int_equal(parse_all(buf, t.len + ilen, 0, &d, TEP_TUN_VXLAN),
			 TEP_R_OK);
	assert_true(d.has_rco);
	vx[7] = 0x80 | 10;		/* UDP at 20 */
	assert_int_equal(parse_all(buf, t.len + ilen, 0, &d, TEP_TUN_VXLAN),
			 TEP_R_OK);
	assert_int_equal(d.rco_start, 20);
	assert_int_equal(d.rco_offset, 26);
	vx[1] = 0x30;			/* RCO and an unknown flag */
	assert_int_equal(parse_all(buf, t.len + ilen, 0, &d, TEP_TUN_VXLAN),
			 TEP_R_RESERVED_SET);
	vx[1] = 0;			/* no RCO: the byte is reserved */
	assert_int_equal(parse_all(buf, t.len + ilen, 0, &d, TEP_TUN_VXLAN),
			 TEP_R_RESERVED_SET);
	vx[7] = 0;
	assert_int_equal(parse_all(buf, t.len + ilen, 0, &d, TEP_TUN_VXLAN),
			 TEP_R_OK);
	assert_false(d.has_rco);
	/* start 254, TCP: the field at 270-271 of the inner frame; a frame
	 * of 272 bytes holds it, one of 271 does not */
	vx[1] = 0x20;
	vx[7] = 0x7f;
	{
		static uint8_t b2[TEP_ENCAP_HDR_MAX + 512];
		size_t l = t.len + 272;
		/* the outer IPv4 length changes, not its checksum */
		const unsigned int ip4ok = TEP_PARSE_IP4_CSUM_OK;

		memcpy(b2, buf, t.len);
		memset(b2 + t.len, 0, 272);
		/* outer lengths for a 272-byte inner frame */
		tep_ref_wr16(b2 + t.l2_len + 2, (uint16_t)(l - t.l2_len));
		tep_ref_wr16(b2 + t.l4_off + 4, (uint16_t)(l - t.l4_off));
		assert_int_equal(parse_all(b2, l, ip4ok, &d, TEP_TUN_VXLAN),
				 TEP_R_OK);
		assert_int_equal(d.rco_offset, 270);
		assert_int_equal(parse_all(b2, l - 1, ip4ok, &d, TEP_TUN_VXLAN),
				 TEP_R_TRUNCATED);
		/* one short of the field: refused as RCO out of range */
		tep_ref_wr16(b2 + t.l2_len + 2, (uint16_t)(l - 1 - t.l2_len));
		tep_ref_wr16(b2 + t.l4_off + 4, (uint16_t)(l - 1 - t.l4_off));
		assert_int_equal(parse_all(b2, l - 1, ip4ok, &d, TEP_TUN_VXLAN),
				 TEP_R_BAD_RCO);
		/* no outer checksum to complete from: refused */
		tep_ref_wr16(b2 + t.l2_len + 2, (uint16_t)(l - t.l2_len));
		tep_ref_wr16(b2 + t.l4_off + 4, (uint16_t)(l - t.l4_off));
		tep_ref_wr16(b2 + t.l4_off + 6, 0);
		assert_int_equal(parse_all(b2, l, ip4ok, &d, TEP_TUN_VXLAN),
				 TEP_R_OK);
		assert_int_equal(tep_rco_apply(b2, &d), TEP_R_BAD_RCO);
	}
}

/* GUE with RCO: the seed travels, the receiver finishes the checksum. */
static void
test_gue_rco_roundtrip(void **state)
{
	static uint8_t buf[TEP_ENCAP_HDR_MAX + 2048];
	int i;
	(void)state;

	for (i = 0; i < 2000; i++) {
		struct tep_encap_params p;
		struct tep_encap_tmpl t;
		struct tep_encap_pkt pk;
		struct tep_flow f;
		struct tep_decap d;
		size_t ilen;
		int kind = (int)(rnd() % 3), v6 = i & 1, ret;
		uint8_t *l4;

		mk_params(&p, TEP_TUN_GUE, v6);
		p.rco = 1;
		assert_int_equal(tep_encap_tmpl_build(&t, &p, NULL, 0), 0);
		ilen = make_inner(buf + t.len, 0, 0, kind, 1);
		assert_int_equal(tep_flow_parse(buf + t.len, ilen, 0, &f),
				 TEP_R_OK);
		memset(&pk, 0, sizeof(pk));
		pk.inner_len = (uint16_t)ilen;
		pk.sport = 50000;
		pk.l4 = f.l4;
		pk.l4.state = TEP_L4_PENDING;
		ret = tep_encap_write(&t, buf, &pk);
		assert_int_equal(ret, TEP_OCSUM_FULL);
		/* The outer sum covers the seed as sent. */
		ref_check_outer(buf, t.len + ilen, &t);
		assert_int_equal(parse_all(buf, t.len + ilen,
					   TEP_PARSE_VERIFY_CSUM, &d,
					   TEP_TUN_GUE), TEP_R_OK);
		assert_true(d.has_rco);
		assert_int_equal(d.rco_start, f.l4.csum_start);
		assert_int_equal(d.rco_offset,
				 f.l4.csum_start + f.l4.csum_offset);
		assert_int_equal(tep_gue_rco_apply(buf, &d), TEP_R_OK);
		/* Now the inner checksum verifies, by reference. */
		l4 = buf + t.len + f.l4.csum_start;
		{
			uint16_t ph = f.l4.kind == TEP_L4_ICMP ? 0 :
				ref_phdr(buf + t.len, f.l4_proto,
					 f.ip_len - f.l3_len);
			uint16_t s = tep_ref_sum(l4, f.ip_len - f.l3_len, ph);

			assert_true(s == 0xffff || s == 0);
		}
		/* A complete inner checksum is never handed over. */
		if (i == 1) {
			struct tep_decap d2;
			uint8_t save[2048 + TEP_ENCAP_HDR_MAX];

			memcpy(save, buf, t.len + ilen);
			ref_complete_inner(buf + t.len, 0, &f);
			pk.l4.state = TEP_L4_COMPLETE;
			assert_int_equal(tep_encap_write(&t, buf, &pk),
					 TEP_OCSUM_LCO);
			assert_int_equal(parse_all(buf, t.len + ilen,
						   TEP_PARSE_VERIFY_CSUM, &d2,
						   TEP_TUN_GUE), TEP_R_OK);
			assert_false(d2.has_rco);
			memcpy(buf, save, t.len + ilen);
		}
		/* An RCO field that points outside the inner packet. */
		if (i == 0) {
			uint8_t *rco = buf + t.l4_off + 8 + 8;

			tep_ref_wr16(rco + 2, (uint16_t)(ilen - 1));
			assert_int_equal(parse_all(buf, t.len + ilen, 0, &d,
						   TEP_TUN_GUE), TEP_R_BAD_RCO);
			tep_ref_wr16(rco + 2, 0);	/* before the start */
			assert_int_equal(parse_all(buf, t.len + ilen, 0, &d,
						   TEP_TUN_GUE), TEP_R_BAD_RCO);
		}
	}
}

/* ---- refusals ----------------------------------------------------------- */

static void
test_refusals(void **state)
{
	static uint8_t buf[TEP_ENCAP_HDR_MAX + 2048];
	struct tep_encap_params p;
	struct tep_encap_tmpl t;
	struct tep_encap_pkt pk;
	struct tep_flow f;
	char err[160];
	size_t ilen;
	static const uint8_t bad_opt[4] = { 0x01, 0x02, 0x03, 0x02 };
	(void)state;

	mk_params(&p, TEP_TUN_VXLAN, 0);
	p.vni = TEP_VNI_MAX + 1;
	assert_int_equal(tep_encap_tmpl_build(&t, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "vni 16777216"));

	mk_params(&p, TEP_TUN_GENEVE, 1);
	p.csum = TEP_CSUM_OFF;
	assert_int_equal(tep_encap_tmpl_build(&t, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "IPv6"));
	p.outer_v6 = 0;		/* allowed over IPv4 */
	assert_int_equal(tep_encap_tmpl_build(&t, &p, err, sizeof(err)), 0);

	mk_params(&p, TEP_TUN_GENEVE, 0);
	p.geneve_opts = bad_opt;	/* says 8 data bytes, has 0 */
	p.geneve_opts_len = 4;
	assert_int_equal(tep_encap_tmpl_build(&t, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "overruns"));
	p.geneve_opts_len = 3;
	assert_int_equal(tep_encap_tmpl_build(&t, &p, err, sizeof(err)), -1);

	mk_params(&p, TEP_TUN_GRE, 0);
	p.csum = TEP_CSUM_OFFLOAD;
	assert_int_equal(tep_encap_tmpl_build(&t, &p, err, sizeof(err)), -1);

	mk_params(&p, TEP_TUN_VXLAN, 0);
	p.sport_lo = 600;
	p.sport_hi = 500;
	assert_int_equal(tep_encap_tmpl_build(&t, &p, err, sizeof(err)), -1);

	mk_params(&p, TEP_TUN_FOU, 0);
	p.gue_proto = 47;
	assert_int_equal(tep_encap_tmpl_build(&t, &p, err, sizeof(err)), -1);

	/* SCTP: no LCO. Pending CRC: refused; complete: full sum. */
	mk_params(&p, TEP_TUN_VXLAN, 0);
	assert_int_equal(tep_encap_tmpl_build(&t, &p, NULL, 0), 0);
	ilen = make_inner(buf + t.len, 1, 0, K_SCTP, 0);
	assert_int_equal(tep_flow_parse(buf + t.len, ilen, 1, &f), TEP_R_OK);
	assert_int_equal(f.l4.kind, TEP_L4_SCTP);
	memset(&pk, 0, sizeof(pk));
	pk.inner_len = (uint16_t)ilen;
	pk.sport = 50000;
	pk.l4 = f.l4;
	pk.l4.state = TEP_L4_PENDING;
	assert_int_equal(tep_encap_write(&t, buf, &pk), -EINVAL);
	pk.l4.state = TEP_L4_COMPLETE;
	assert_int_equal(tep_encap_write(&t, buf, &pk), TEP_OCSUM_FULL);
	ref_check_outer(buf, t.len + ilen, &t);

	/* A full sum over a pending TCP checksum would be wrong: refused. */
	p.csum = TEP_CSUM_FULL;
	assert_int_equal(tep_encap_tmpl_build(&t, &p, NULL, 0), 0);
	ilen = make_inner(buf + t.len, 1, 0, K_TCP, 1);
	assert_int_equal(tep_flow_parse(buf + t.len, ilen, 1, &f), TEP_R_OK);
	pk.inner_len = (uint16_t)ilen;
	pk.l4 = f.l4;
	pk.l4.state = TEP_L4_PENDING;
	assert_int_equal(tep_encap_write(&t, buf, &pk), -EINVAL);

	/* csum off over IPv4: zero. offload: the pseudo-header seed. */
	p.csum = TEP_CSUM_OFF;
	assert_int_equal(tep_encap_tmpl_build(&t, &p, NULL, 0), 0);
	assert_int_equal(tep_encap_write(&t, buf, &pk), TEP_OCSUM_NONE);
	assert_int_equal(tep_ref_rd16(buf + t.l4_off + 6), 0);
	p.csum = TEP_CSUM_OFFLOAD;
	assert_int_equal(tep_encap_tmpl_build(&t, &p, NULL, 0), 0);
	assert_int_equal(tep_encap_write(&t, buf, &pk), TEP_OCSUM_HW);
	assert_int_equal(tep_ref_rd16(buf + t.l4_off + 6),
			 ref_phdr(buf + t.l2_len, 17, 8 + 8 + (uint32_t)ilen));
}

/* ip4_hdr_ok is a promise: LCO leaves the inner IPv4 header out of the
 * sum because a valid one sums to -0. Broken promise, wrong checksum. */
static void
test_ip4_hdr_ok_is_a_precondition(void **state)
{
	static uint8_t buf[TEP_ENCAP_HDR_MAX + 2048];
	struct tep_encap_params p;
	struct tep_encap_tmpl t;
	struct tep_encap_pkt pk;
	struct tep_flow f;
	size_t ilen;
	(void)state;

	mk_params(&p, TEP_TUN_VXLAN, 0);
	assert_int_equal(tep_encap_tmpl_build(&t, &p, NULL, 0), 0);
	ilen = make_inner(buf + t.len, 1, 0, K_UDP, 0);
	assert_int_equal(tep_flow_parse(buf + t.len, ilen, 1, &f), TEP_R_OK);
	memset(&pk, 0, sizeof(pk));
	pk.inner_len = (uint16_t)ilen;
	pk.sport = 50000;
	pk.l4 = f.l4;
	pk.l4.ip4_hdr_ok = 1;
	assert_int_equal(f.l4.l3_off, 14);
	assert_int_equal(tep_encap_write(&t, buf, &pk), TEP_OCSUM_LCO);
	ref_check_outer(buf, t.len + ilen, &t);
	/* Corrupt the inner IPv4 header checksum: now the sum is off. */
	buf[t.len + 14 + 10] ^= 0x40;
	assert_int_equal(tep_encap_write(&t, buf, &pk), TEP_OCSUM_LCO);
	assert_int_not_equal(tep_ref_sum(buf + t.l4_off, t.len - t.l4_off + ilen,
					 tep_ref_phdr(false, buf + t.l2_len + 12,
						      buf + t.l2_len + 16, 17,
						      (uint32_t)(t.len - t.l4_off
								 + ilen))),
			     0xffff);
}

/* Inner packets LCO must not trust. */
static void
test_flow_kinds(void **state)
{
	static uint8_t buf[2048];
	struct tep_flow f;
	size_t ilen;
	(void)state;

	ilen = make_inner(buf, 0, 0, K_UDP, 0);
	tep_ref_wr16(buf + 20 + 6, 0);		/* IPv4 UDP without checksum */
	assert_int_equal(tep_flow_parse(buf, ilen, 0, &f), TEP_R_OK);
	assert_int_equal(f.l4.kind, TEP_L4_NONE);

	ilen = make_inner(buf, 0, 0, K_TCP, 0);
	tep_ref_wr16(buf + 6, 0x2000);		/* MF: a first fragment */
	assert_int_equal(tep_flow_parse(buf, ilen, 0, &f), TEP_R_OK);
	assert_int_equal(f.l4.kind, TEP_L4_NONE);

	ilen = make_inner(buf, 0, 0, K_ICMP, 0);
	assert_int_equal(tep_flow_parse(buf, ilen, 0, &f), TEP_R_OK);
	assert_int_equal(f.l4.kind, TEP_L4_ICMP);
	assert_int_equal(f.l4.phdr, 0);

	ilen = make_inner(buf, 1, 1, K_ICMP, 0);
	assert_int_equal(tep_flow_parse(buf, ilen, 1, &f), TEP_R_OK);
	assert_int_equal(f.l4.kind, TEP_L4_ICMP6);
	assert_int_equal(f.l4.csum_start, 14 + 40);

	/* Truncated inner headers are named, not read past. */
	ilen = make_inner(buf, 1, 0, K_TCP, 0);
	assert_int_equal(tep_flow_parse(buf, 13, 1, &f), TEP_R_TRUNCATED);
	assert_int_equal(tep_flow_parse(buf, 14 + 19, 1, &f), TEP_R_TRUNCATED);
	buf[14] = 0x35;
	assert_int_equal(tep_flow_parse(buf, ilen, 1, &f), TEP_R_BAD_VERSION);
}

/*
 * Parse once: tep_flow_parse_l3() with the IP header described by a reader
 * written here (as the datapath's classifier describes it) gives what the
 * whole parse gives, for every kind, family, framing and fragments.
 */
static void
test_flow_parse_l3_agrees(void **state)
{
	static uint8_t buf[2048];
	int round, eth, v6, kind, frag;
	(void)state;

	for (round = 0; round < 20; round++)
	for (eth = 0; eth < 2; eth++)
	for (v6 = 0; v6 < 2; v6++)
	for (kind = 0; kind < K_KINDS; kind++)
	for (frag = 0; frag < 2; frag++) {
		size_t ilen = make_inner(buf, eth, v6, kind, round & 1);
		const uint8_t *ip = buf + (eth ? 14 : 0);
		struct tep_l3_info l3 = { 0 };
		/* any value: an RSS hash is opaque to tepd */
		const uint32_t rss = 0x9e3779b9u * (uint32_t)(round + 1);
		struct tep_flow f, g;

		if (frag && v6)
			continue;	/* classify leaves those to the full parse */
		if (frag)
			tep_ref_wr16(buf + (eth ? 14 : 0) + 6, 0x2000 | 0x10);
		l3.family = v6 ? 6 : 4;
		l3.l3_len = v6 ? 40 : (uint16_t)((ip[0] & 0xf) * 4);
		l3.ip_len = v6 ? (uint16_t)(40 + tep_ref_rd16(ip + 4)) :
				 tep_ref_rd16(ip + 2);
		l3.l4_proto = v6 ? ip[6] : ip[9];
		l3.l4_usable = !frag;
		memset(&f, 0xa5, sizeof(f));
		memset(&g, 0x5a, sizeof(g));
		assert_int_equal(tep_flow_parse(buf, ilen, eth, &f), TEP_R_OK);
		assert_int_equal(tep_flow_parse_l3(buf, ilen, eth, &l3, NULL,
						   &g), TEP_R_OK);
		if (memcmp(&f, &g, sizeof(f)) != 0)
			fail_msg("eth %d v6 %d kind %d frag %d: differs",
				 eth, v6, kind, frag);
		if (frag)
			assert_int_equal(g.l4.kind, TEP_L4_NONE);
		/* The hash a multipath route's member is picked by, from
		 * the IP header alone, is the flow's (the outer source
		 * port's) for these packets: UDP with a checksum, TCP,
		 * SCTP, ICMP, fragments. */
		if (tep_flow_hash_ip(ip, ilen - (eth ? 14 : 0), &l3) != f.hash)
			fail_msg("eth %d v6 %d kind %d frag %d: member hash "
				 "%08x, flow hash %08x", eth, v6, kind, frag,
				 tep_flow_hash_ip(ip, ilen - (eth ? 14 : 0),
						  &l3), f.hash);
		/* Given a NIC's RSS hash: that is the flow's hash, and the
		 * rest is the same. */
		memset(&g, 0x3c, sizeof(g));
		assert_int_equal(tep_flow_parse_l3(buf, ilen, eth, &l3, &rss,
						   &g), TEP_R_OK);
		assert_int_equal(g.hash, rss);
		g.hash = f.hash;
		if (memcmp(&f, &g, sizeof(f)) != 0)
			fail_msg("eth %d v6 %d kind %d frag %d: differs with "
				 "the hash given", eth, v6, kind, frag);
		/* A header past the readable part is named, not read. */
		assert_int_equal(tep_flow_parse_l3(buf, (eth ? 14 : 0) +
						   l3.l3_len - 1, eth, &l3,
						   NULL, &g),
				 TEP_R_HDR_SPLIT);
		assert_int_equal(tep_flow_parse_l3(buf, (eth ? 14 : 0) +
						   l3.l3_len - 1, eth, &l3,
						   &rss, &g),
				 TEP_R_HDR_SPLIT);
	}
}

static void
test_sport_range(void **state)
{
	uint32_t i;
	(void)state;

	for (i = 0; i < 100000; i++) {
		uint32_t h = rnd();
		uint16_t lo = (uint16_t)(rnd() % 65536), hi;
		uint16_t s;

		hi = (uint16_t)(lo + rnd() % (65536 - lo));
		s = tep_udp_sport(h, lo, hi);
		assert_true(s >= lo && s <= hi);
		assert_int_equal(s, tep_udp_sport(h, lo, hi));
	}
	assert_int_equal(tep_udp_sport(0, 49152, 65535), 49152);
	assert_int_equal(tep_udp_sport(0xffffffff, 49152, 65535), 65535);
}

/* ---- malformed input ---------------------------------------------------- */

/* Build one valid packet of a type into a heap buffer of exactly its size. */
static uint8_t *
valid_packet(enum tep_tun_type type, int v6, size_t *len,
	     struct tep_encap_tmpl *t)
{
	static uint8_t tmp[TEP_ENCAP_HDR_MAX + 2048];
	struct tep_encap_params p;
	struct tep_encap_pkt pk;
	struct tep_flow f;
	size_t ilen;
	uint8_t *out;

	mk_params(&p, type, v6);
	assert_int_equal(tep_encap_tmpl_build(t, &p, NULL, 0), 0);
	ilen = make_inner(tmp + t->len, t->inner_eth, 0, K_UDP, 0);
	assert_int_equal(tep_flow_parse(tmp + t->len, ilen, t->inner_eth, &f),
			 TEP_R_OK);
	memset(&pk, 0, sizeof(pk));
	pk.inner_len = (uint16_t)ilen;
	pk.sport = 50000;
	pk.l4 = f.l4;
	assert_true(tep_encap_write(t, tmp, &pk) >= 0);
	*len = t->len + ilen;
	out = malloc(*len);
	assert_non_null(out);
	memcpy(out, tmp, *len);
	return out;
}

/* Every prefix of a valid packet is rejected (ASan catches over-reads:
 * each prefix lives in a heap block of exactly its size). */
static void
test_truncation_every_byte(void **state)
{
	int type, v6;
	(void)state;

	for (type = 0; type < TEP_TUN_MAX; type++)
	for (v6 = 0; v6 < 2; v6++) {
		struct tep_encap_tmpl t;
		struct tep_decap d;
		size_t len, n;
		uint8_t *pkt = valid_packet((enum tep_tun_type)type, v6,
					    &len, &t);

		assert_int_equal(parse_all(pkt, len, TEP_PARSE_VERIFY_CSUM,
					   &d, (enum tep_tun_type)type),
				 TEP_R_OK);
		for (n = 0; n < len; n++) {
			uint8_t *cut = malloc(n ? n : 1);
			enum tep_reason r;

			memcpy(cut, pkt, n);
			r = parse_all(cut, n, TEP_PARSE_VERIFY_CSUM, &d,
				      (enum tep_tun_type)type);
			if (r == TEP_R_OK)
				fail_msg("%s v6=%d: prefix %zu of %zu accepted",
					 tep_tun_type_name(type), v6, n, len);
			free(cut);
		}
		free(pkt);
	}
}

struct mutation {
	const char *what;
	enum tep_tun_type type;
	int v6;
	unsigned int flags;
	int where;		/* offset: <0 from tun_off, else absolute */
	int rel_tun;		/* where is relative to the tunnel header */
	uint8_t and_mask, or_mask;
	enum tep_reason want;
	uint8_t xor_mask;	/* applied last */
};

static void
test_malformations(void **state)
{
	/* Offsets are for untagged IPv4 (IP at 14, UDP at 34, tunnel 42)
	 * or IPv6 (IP at 14, UDP at 54, tunnel 62); rel_tun = 1 means the
	 * offset is from the tunnel header (GRE: the GRE header). */
	static const struct mutation m[] = {
		{ "ipv4 version 5", TEP_TUN_VXLAN, 0, 0, 14, 0, 0x0f, 0x50,
		  TEP_R_BAD_VERSION },
		{ "ipv4 ihl 4", TEP_TUN_VXLAN, 0, 0, 14, 0, 0xf0, 0x04,
		  TEP_R_BAD_HDR_LEN },
		{ "ipv4 total length lies long", TEP_TUN_VXLAN, 0, 0, 16, 0,
		  0x00, 0xff, TEP_R_TRUNCATED },
		{ "ipv4 header checksum", TEP_TUN_VXLAN, 0, 0, 24, 0,
		  0xff, 0x00, TEP_R_BAD_IP_CSUM, 0x5a },
		/* The caller vouches for the header (tepd classified it):
		 * the same damage is not looked at again. */
		{ "ipv4 header checksum already checked", TEP_TUN_VXLAN, 0,
		  TEP_PARSE_IP4_CSUM_OK, 24, 0, 0xff, 0x00, TEP_R_OK, 0x5a },
		{ "ipv6 version 4", TEP_TUN_VXLAN, 1, 0, 14, 0, 0x0f, 0x40,
		  TEP_R_BAD_VERSION },
		{ "ipv6 payload length lies", TEP_TUN_VXLAN, 1, 0, 18, 0,
		  0x00, 0xff, TEP_R_TRUNCATED },
		{ "unknown ethertype", TEP_TUN_VXLAN, 0, 0, 12, 0, 0x00, 0x88,
		  TEP_R_UNKNOWN_PROTO },
		{ "udp length lies", TEP_TUN_VXLAN, 0, 0, 38, 0, 0x00, 0xff,
		  TEP_R_BAD_LENGTH },
		{ "udp checksum", TEP_TUN_VXLAN, 0, TEP_PARSE_VERIFY_CSUM, 60,
		  0, 0xff, 0x00, TEP_R_BAD_OUTER_CSUM, 0x01 },
		{ "vxlan I flag clear", TEP_TUN_VXLAN, 0, 0, 0, 1, 0x00, 0x00,
		  TEP_R_BAD_FLAGS },
		{ "vxlan reserved flag", TEP_TUN_VXLAN, 1, 0, 0, 1, 0xff, 0x80,
		  TEP_R_RESERVED_SET },
		{ "vxlan reserved low byte", TEP_TUN_VXLAN, 0, 0, 7, 1, 0x00,
		  0x01, TEP_R_RESERVED_SET },
		{ "geneve version 1", TEP_TUN_GENEVE, 0, 0, 0, 1, 0x3f, 0x40,
		  TEP_R_BAD_VERSION },
		{ "geneve option overruns", TEP_TUN_GENEVE, 1, 0, 11, 1,
		  0xe0, 0x02, TEP_R_BAD_OPTION },
		{ "geneve critical option", TEP_TUN_GENEVE, 0, 0, 10, 1,
		  0xff, 0x80, TEP_R_CRITICAL_OPTION },
		{ "geneve protocol", TEP_TUN_GENEVE, 0, 0, 2, 1, 0x00, 0x12,
		  TEP_R_UNKNOWN_PROTO },
		{ "gue control", TEP_TUN_GUE, 0, 0, 0, 1, 0xff, 0x20,
		  TEP_R_CONTROL_MSG },
		{ "gue version 2", TEP_TUN_GUE, 0, 0, 0, 1, 0x3f, 0x80,
		  TEP_R_BAD_VERSION },
		{ "gue unknown flag", TEP_TUN_GUE, 1, 0, 3, 1, 0xff, 0x02,
		  TEP_R_BAD_FLAGS },
		{ "gue proto", TEP_TUN_GUE, 0, 0, 1, 1, 0x00, 99,
		  TEP_R_UNKNOWN_PROTO },
		{ "gue inner is not ipv4", TEP_TUN_GUE, 0, 0, 4, 1, 0x0f,
		  0x60, TEP_R_BAD_VERSION },
		{ "fou inner is not ipv4", TEP_TUN_FOU, 0, 0, 0, 1, 0x0f,
		  0x60, TEP_R_BAD_VERSION },
		{ "gre routing bit", TEP_TUN_GRE, 0, 0, 0, 1, 0xff, 0x40,
		  TEP_R_RESERVED_SET },
		{ "gre version 1", TEP_TUN_GRE, 1, 0, 1, 1, 0xf8, 0x01,
		  TEP_R_BAD_VERSION },
		{ "gre checksum", TEP_TUN_GRE, 0, TEP_PARSE_VERIFY_CSUM, 20, 1,
		  0xff, 0x00, TEP_R_BAD_OUTER_CSUM, 0x01 },
		{ "gre protocol", TEP_TUN_GRE, 0, 0, 2, 1, 0x00, 0x22,
		  TEP_R_UNKNOWN_PROTO },
	};
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		struct tep_encap_tmpl t;
		struct tep_decap d;
		size_t len, at;
		uint8_t *pkt = valid_packet(m[i].type, m[i].v6, &len, &t);
		enum tep_reason r;

		at = (size_t)m[i].where;
		if (m[i].rel_tun)
			at += m[i].type == TEP_TUN_GRE ? t.l4_off :
			      t.l4_off + 8u;
		assert_true(at < len);
		{
			uint8_t was = pkt[at];

			pkt[at] = (uint8_t)(((pkt[at] & m[i].and_mask) |
					     m[i].or_mask) ^ m[i].xor_mask);
			if (pkt[at] == was)
				fail_msg("%s: mutation changed nothing",
					 m[i].what);
		}
		r = parse_all(pkt, len, m[i].flags, &d, m[i].type);
		if (r != m[i].want)
			fail_msg("%s: got %s, want %s", m[i].what,
				 tep_reason_name(r), tep_reason_name(m[i].want));
		free(pkt);
	}
}

/*
 * Parse once, decap side: tep_parse_outer_l3() given the outer IP header
 * as a classifier describes it (read here from the bytes) gives the full
 * parser's result and fields, on valid packets of every type and family
 * and on damage the classifier does not look at (fragment bits, UDP).
 */
static void
test_parse_outer_l3_agrees(void **state)
{
	static const struct {
		int where;	/* from the IP header; -1: none */
		uint8_t or_mask;
	} dmg[] = { { -1, 0 }, { 6, 0x20 }, { 6, 0x80 }, { 7, 0x01 } };
	int type, v6, flags;
	size_t k;
	(void)state;

	for (type = 0; type < TEP_TUN_MAX; type++)
	for (v6 = 0; v6 < 2; v6++)
	for (flags = 0; flags < 2; flags++)
	for (k = 0; k < sizeof(dmg) / sizeof(dmg[0]); k++) {
		struct tep_encap_tmpl t;
		struct tep_decap d1, d2;
		struct tep_l3_info l3 = { 0 };
		size_t len;
		uint8_t *pkt = valid_packet((enum tep_tun_type)type, v6, &len,
					    &t);
		const uint8_t *ip = pkt + 14;
		enum tep_reason r1, r2;

		if (dmg[k].where >= 0) {
			if (v6) {
				free(pkt);
				continue;
			}
			pkt[14 + dmg[k].where] |= dmg[k].or_mask;
		}
		l3.family = v6 ? 6 : 4;
		l3.l3_len = v6 ? 40 : (uint16_t)((ip[0] & 0xf) * 4);
		l3.ip_len = v6 ? (uint16_t)(40 + tep_ref_rd16(ip + 4)) :
				 tep_ref_rd16(ip + 2);
		l3.l4_proto = v6 ? ip[6] : ip[9];
		/* The checksum is vouched for: the damage above broke it. */
		r1 = tep_parse_outer(pkt, len, (unsigned int)flags |
				     TEP_PARSE_IP4_CSUM_OK, &d1);
		r2 = tep_parse_outer_l3(pkt, len, len, (unsigned int)flags |
					TEP_PARSE_IP4_CSUM_OK, &l3, &d2);
		if (r1 != r2 || memcmp(&d1, &d2, sizeof(d1)) != 0)
			fail_msg("%s v6 %d flags %d damage %zu: %s vs %s",
				 tep_tun_type_name(type), v6, flags, k,
				 tep_reason_name(r1), tep_reason_name(r2));
		if (k > 0)
			assert_int_not_equal(r2, TEP_R_OK);
		free(pkt);
	}
}

static void
test_special_outer(void **state)
{
	struct tep_encap_tmpl t;
	struct tep_decap d;
	size_t len;
	uint8_t *pkt;
	(void)state;

	/* IPv6 UDP checksum 0: refused unless RFC 6935 mode is on. */
	pkt = valid_packet(TEP_TUN_VXLAN, 1, &len, &t);
	tep_ref_wr16(pkt + 54 + 6, 0);
	assert_int_equal(tep_parse_outer(pkt, len, 0, &d),
			 TEP_R_ZERO_UDP6_CSUM);
	assert_int_equal(tep_parse_outer(pkt, len, TEP_PARSE_ZERO_CSUM6, &d),
			 TEP_R_OK);
	assert_false(d.csum_present);
	free(pkt);

	/* Tunnel headers whose own length runs past the datagram: the
	 * parsers run on a UDP payload of exactly 8 + 8 bytes. */
	{
		uint8_t *u = malloc(16);
		struct tep_decap g;

		memset(&g, 0, sizeof(g));
		g.l4_off = 0;
		g.l4_len = 16;
		g.tun_off = 8;
		memcpy(u + 8, "\x02\x00\x65\x58\x00\x00\x2a\x00", 8);
		assert_int_equal(tep_parse_geneve(u, 16, &g), TEP_R_TRUNCATED);
		memcpy(u + 8, "\x03\x04\x00\x00\x00\x00\x00\x00", 8);
		assert_int_equal(tep_parse_gue(u, 16, &g), TEP_R_TRUNCATED);
		memcpy(u + 8, "\xb0\x00\x65\x58\x00\x00\x00\x00", 8);
		assert_int_equal(tep_parse_gre(u, 16, 0, &g), TEP_R_TRUNCATED);
		/* GUE RCO pointing past the inner packet. */
		memcpy(u + 8, "\x02\x04\x00\x01\x80\x00\x00\x00", 8);
		assert_int_equal(tep_parse_gue(u, 16, &g), TEP_R_TRUNCATED);
		free(u);
	}

	/* IPv4 total length shorter than its own header. */
	pkt = valid_packet(TEP_TUN_VXLAN, 0, &len, &t);
	tep_ref_wr16(pkt + 14 + 2, 19);
	assert_int_equal(tep_parse_outer(pkt, len, 0, &d), TEP_R_BAD_LENGTH);
	free(pkt);

	/* IPv4 fragment: dropped by name (header checksum fixed up). */
	pkt = valid_packet(TEP_TUN_VXLAN, 0, &len, &t);
	tep_ref_wr16(pkt + 14 + 6, 0x2000);
	tep_ref_wr16(pkt + 14 + 10, 0);
	tep_ref_wr16(pkt + 14 + 10, (uint16_t)~tep_ref_sum(pkt + 14, 20, 0));
	assert_int_equal(tep_parse_outer(pkt, len, 0, &d), TEP_R_FRAGMENT);
	free(pkt);

	/* Ethernet padding after the IP datagram is ignored. */
	{
		size_t plen;
		uint8_t *p2;

		pkt = valid_packet(TEP_TUN_VXLAN, 0, &len, &t);
		plen = len + 7;
		p2 = calloc(1, plen);
		memcpy(p2, pkt, len);
		assert_int_equal(tep_parse_outer(p2, plen,
						 TEP_PARSE_VERIFY_CSUM, &d),
				 TEP_R_OK);
		assert_int_equal(tep_parse_vxlan(p2, plen, &d), TEP_R_OK);
		assert_int_equal(d.inner_len, len - t.len);
		free(p2);
		free(pkt);
	}

	/* A VLAN-tagged outer frame. */
	{
		struct tep_encap_params p;
		struct tep_encap_pkt pk;
		static uint8_t buf[TEP_ENCAP_HDR_MAX + 2048];
		struct tep_flow f;
		size_t ilen;

		mk_params(&p, TEP_TUN_VXLAN, 0);
		p.vlan_tci = 100;
		assert_int_equal(tep_encap_tmpl_build(&t, &p, NULL, 0), 0);
		assert_int_equal(t.l2_len, 18);
		ilen = make_inner(buf + t.len, 1, 0, K_TCP, 0);
		assert_int_equal(tep_flow_parse(buf + t.len, ilen, 1, &f),
				 TEP_R_OK);
		memset(&pk, 0, sizeof(pk));
		pk.inner_len = (uint16_t)ilen;
		pk.sport = 50000;
		pk.l4 = f.l4;
		assert_int_equal(tep_encap_write(&t, buf, &pk), TEP_OCSUM_LCO);
		assert_int_equal(tep_parse_outer(buf, t.len + ilen,
						 TEP_PARSE_VERIFY_CSUM, &d),
				 TEP_R_OK);
		assert_int_equal(d.vlan_tci, 100);
		assert_int_equal(d.outer_l2_len, 18);
	}
}

static void
test_reason_names(void **state)
{
	(void)state;
	assert_string_equal(tep_reason_name(TEP_R_BAD_OUTER_CSUM),
			    "bad_outer_csum");
	assert_string_equal(tep_reason_name(TEP_R_MAX), "unknown");
	assert_string_equal(tep_tun_type_name(TEP_TUN_GENEVE), "geneve");
	assert_string_equal(tep_csum_mode_name(TEP_CSUM_LCO), "lco");
}

/* ---- proxy ARP/ND -------------------------------------------------------- */

static const uint8_t tun_mac[6] = { 0x02, 0x74, 0x65, 0x70, 0x00, 0x07 };
static const uint8_t host_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x42, 0x02 };

static size_t
arp_request(uint8_t *f, const uint8_t *spa, const uint8_t *tpa)
{
	static const uint8_t hdr[8] = { 0, 1, 8, 0, 6, 4, 0, 1 };

	memset(f, 0, 60);
	memset(f, 0xff, 6);
	memcpy(f + 6, host_mac, 6);
	f[12] = 0x08;
	f[13] = 0x06;
	memcpy(f + 14, hdr, 8);
	memcpy(f + 22, host_mac, 6);
	memcpy(f + 28, spa, 4);
	memcpy(f + 38, tpa, 4);
	return 60;	/* padded, as on the wire */
}

static void
test_proxy_arp(void **state)
{
	static const uint8_t spa[4] = { 198, 18, 0, 2 }, tpa[4] = { 198, 18, 0, 1 };
	uint8_t f[64];
	size_t len = arp_request(f, spa, tpa);

	(void)state;
	assert_int_equal(tep_proxy_arp(f, (uint32_t)len, tun_mac), 42);
	assert_memory_equal(f, host_mac, 6);		/* to the requester */
	assert_memory_equal(f + 6, tun_mac, 6);
	assert_int_equal(tep_ref_rd16(f + 12), 0x0806);
	assert_int_equal(tep_ref_rd16(f + 20), 2);	/* reply */
	assert_memory_equal(f + 22, tun_mac, 6);	/* SHA */
	assert_memory_equal(f + 28, tpa, 4);		/* SPA: what was asked */
	assert_memory_equal(f + 32, host_mac, 6);	/* THA */
	assert_memory_equal(f + 38, spa, 4);		/* TPA */

	/* not answered: gratuitous, a reply, short, other hardware */
	len = arp_request(f, spa, spa);
	assert_int_equal(tep_proxy_arp(f, (uint32_t)len, tun_mac), 0);
	len = arp_request(f, spa, tpa);
	f[21] = 2;
	assert_int_equal(tep_proxy_arp(f, (uint32_t)len, tun_mac), 0);
	len = arp_request(f, spa, tpa);
	assert_int_equal(tep_proxy_arp(f, 41, tun_mac), 0);
	f[15] = 6;
	assert_int_equal(tep_proxy_arp(f, (uint32_t)len, tun_mac), 0);
}

/* A neighbour solicitation from src for target, with a source link-layer
 * option; checksum by the naive reference. */
static size_t
nd_solicit(uint8_t *f, const uint8_t *src, const uint8_t *target)
{
	uint8_t *ip = f + 14, *ic = ip + 40, ph[40];
	uint32_t s;

	memset(f, 0, 14 + 40 + 32);
	f[0] = 0x33;
	f[1] = 0x33;
	f[2] = 0xff;
	memcpy(f + 3, target + 13, 3);
	memcpy(f + 6, host_mac, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	ip[0] = 0x60;
	tep_ref_wr16(ip + 4, 32);
	ip[6] = 58;
	ip[7] = 255;
	memcpy(ip + 8, src, 16);
	ip[24] = 0xff;			/* solicited-node multicast */
	ip[25] = 0x02;
	ip[35] = 1;
	ip[36] = 0xff;
	memcpy(ip + 37, target + 13, 3);
	ic[0] = 135;
	memcpy(ic + 8, target, 16);
	ic[24] = 1;
	ic[25] = 1;
	memcpy(ic + 26, host_mac, 6);
	tep_ref_phdr_bytes(ph, true, ip + 8, ip + 24, 58, 32);
	s = tep_ref_sum(ph, 40, 0);
	tep_ref_wr16(ic + 2, (uint16_t)~tep_ref_sum(ic, 32, s));
	return 14 + 40 + 32;
}

static void
test_proxy_nd(void **state)
{
	static const uint8_t src[16] = { 0xfe, 0x80, [15] = 0x42 };
	static const uint8_t target[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x20,
					    [15] = 1 };
	uint8_t f[128], ph[40];
	uint8_t *ip = f + 14, *ic = ip + 40;
	size_t len = nd_solicit(f, src, target);

	(void)state;
	assert_int_equal(tep_proxy_nd(f, (uint32_t)len, sizeof(f), tun_mac),
			 86);
	assert_memory_equal(f, host_mac, 6);
	assert_memory_equal(f + 6, tun_mac, 6);
	assert_int_equal(tep_ref_rd16(ip + 4), 32);
	assert_int_equal(ip[6], 58);
	assert_int_equal(ip[7], 255);
	assert_memory_equal(ip + 8, target, 16);	/* from the target */
	assert_memory_equal(ip + 24, src, 16);		/* to the solicitor */
	assert_int_equal(ic[0], 136);
	assert_int_equal(ic[4], 0x60);			/* S and O */
	assert_memory_equal(ic + 8, target, 16);
	assert_int_equal(ic[24], 2);			/* TLLA */
	assert_int_equal(ic[25], 1);
	assert_memory_equal(ic + 26, tun_mac, 6);
	tep_ref_phdr_bytes(ph, true, ip + 8, ip + 24, 58, 32);
	assert_int_equal(tep_ref_sum(ic, 32, tep_ref_sum(ph, 40, 0)), 0xffff);

	/* not answered: DAD, about itself, bad checksum, hop limit, no room */
	len = nd_solicit(f, (const uint8_t[16]){ 0 }, target);
	assert_int_equal(tep_proxy_nd(f, (uint32_t)len, sizeof(f), tun_mac), 0);
	len = nd_solicit(f, target, target);
	assert_int_equal(tep_proxy_nd(f, (uint32_t)len, sizeof(f), tun_mac), 0);
	len = nd_solicit(f, src, target);
	ic[10] ^= 1;
	assert_int_equal(tep_proxy_nd(f, (uint32_t)len, sizeof(f), tun_mac), 0);
	len = nd_solicit(f, src, target);
	ip[7] = 64;
	assert_int_equal(tep_proxy_nd(f, (uint32_t)len, sizeof(f), tun_mac), 0);
	len = nd_solicit(f, src, target);
	assert_int_equal(tep_proxy_nd(f, (uint32_t)len, 85, tun_mac), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_all),
		cmocka_unit_test(test_lco_inner_pre_sum),
		cmocka_unit_test(test_inner_trailer),
		cmocka_unit_test(test_gue_rco_roundtrip),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_flow_kinds),
		cmocka_unit_test(test_flow_parse_l3_agrees),
		cmocka_unit_test(test_ip4_hdr_ok_is_a_precondition),
		cmocka_unit_test(test_sport_range),
		cmocka_unit_test(test_truncation_every_byte),
		cmocka_unit_test(test_malformations),
		cmocka_unit_test(test_special_outer),
		cmocka_unit_test(test_parse_outer_l3_agrees),
		cmocka_unit_test(test_reason_names),
		cmocka_unit_test(test_vxlan_rco_roundtrip),
		cmocka_unit_test(test_vxlan_rco_strict),
		cmocka_unit_test(test_proxy_arp),
		cmocka_unit_test(test_proxy_nd),
	};

	return cmocka_run_group_tests_name("proto", tests, NULL, NULL);
}
