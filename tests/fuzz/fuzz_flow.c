/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * libFuzzer target: tenant packet inspection, then encapsulation of what
 * it accepted.
 *
 * Input: one control byte, then the tenant packet.
 *   bit 0  the packet starts with Ethernet (tep_flow_parse's `eth`)
 *   bit 1  outer csum FULL instead of LCO
 *   bit 2  outer IPv6
 *   bit 3  GRE (with C and K) instead of VXLAN when bit 0 is set,
 *          GUE instead of FOU when it is not
 *
 * tep_flow_parse() runs on an exactly-sized copy, then the packet is put
 * behind a template by tep_encap_write() in a buffer that ends where the
 * packet ends, so ASan sees any read past it. The outer checksum is then
 * checked with a naive RFC 1071 sum: it must verify whenever it was summed
 * in full, and, for LCO, whenever the inner L4 checksum (checked here from
 * the raw bytes, not from the flow) is valid.
 *
 * With FUZZ_FLOW_NO_TRAILER=1 in the environment, the LCO check is skipped
 * for packets with bytes after the inner IP datagram (Ethernet padding), to
 * look past that known case: LCO assumes the inner L4 region runs to the
 * end of the frame.
 *
 * Seeds: tests/fuzz/corpus/flow (tests/golden/gen_golden.py).
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tep_proto.h"
#include "tep_ref.h"
#include "fuzz_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Does the packet carry a valid TCP/UDP/ICMP/ICMPv6 checksum? Read from
 * the raw bytes: IPv4 (any options, not a fragment) or IPv6 without
 * extension headers, the L4 region up to the IP length.
 */
static int skip_trailer = -1;

static bool
inner_l4_valid(const uint8_t *p, size_t len, bool eth, const struct tep_flow *f)
{
	size_t l3 = 0, rlen;
	const uint8_t *ip, *l4;
	uint16_t et;
	uint8_t proto;

	if (eth) {
		if (len < 14)
			return false;
		et = tep_ref_rd16(p + 12);
		l3 = 14;
		if (et == TEP_ETH_P_VLAN) {
			if (len < 18)
				return false;
			et = tep_ref_rd16(p + 16);
			l3 = 18;
		}
		if (et != TEP_ETH_P_IPV4 && et != TEP_ETH_P_IPV6)
			return false;
	}
	if (l3 != f->l3_off || len < l3 + 20)
		return false;
	if (skip_trailer < 0)
		skip_trailer = getenv("FUZZ_FLOW_NO_TRAILER") != NULL;
	ip = p + l3;
	if ((ip[0] >> 4) == 4) {
		size_t ihl = (size_t)(ip[0] & 0x0f) * 4, tot = tep_ref_rd16(ip + 2);

		if (ihl < 20 || tot < ihl || l3 + tot > len)
			return false;
		if (skip_trailer && l3 + tot != len)
			return false;
		if (tep_ref_rd16(ip + 6) & 0x3fff)	/* MF or an offset */
			return false;
		proto = ip[9];
		l4 = ip + ihl;
		rlen = tot - ihl;
		switch (proto) {
		case 6:
		case 17:
			if (proto == 17 && (rlen < 8 || tep_ref_rd16(l4 + 6) == 0))
				return false;
			return tep_ref_sum(l4, rlen, tep_ref_phdr(false, ip + 12,
							  ip + 16, proto,
							  (uint32_t)rlen)) ==
			       0xffff;
		case 1:
			return tep_ref_sum(l4, rlen, 0) == 0xffff;
		default:
			return false;
		}
	}
	if ((ip[0] >> 4) == 6) {
		if (len < l3 + 40)
			return false;
		rlen = tep_ref_rd16(ip + 4);
		proto = ip[6];
		if (l3 + 40 + rlen > len)
			return false;
		if (skip_trailer && l3 + 40 + rlen != len)
			return false;
		if (proto != 6 && proto != 17 && proto != 58)
			return false;
		return tep_ref_sum(ip + 40, rlen, tep_ref_phdr(true, ip + 8, ip + 24,
						       proto, (uint32_t)rlen)) ==
		       0xffff;
	}
	return false;
}

static const uint8_t smac[6] = { 2, 0, 0, 0, 0, 1 };
static const uint8_t dmac[6] = { 2, 0, 0, 0, 0, 2 };
static const uint8_t src6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t dst6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
static const uint8_t src4[4] = { 198, 51, 100, 1 };
static const uint8_t dst4[4] = { 198, 51, 100, 2 };

static void
encap_and_check(const uint8_t *pkt, size_t len, uint8_t ctl,
		const struct tep_flow *f)
{
	bool eth = ctl & 1, v6 = ctl & 4;
	struct tep_encap_params p;
	struct tep_encap_tmpl t;
	struct tep_encap_pkt pk;
	char err[160];
	size_t l2, l4, olen, l4len;
	uint8_t *out;
	bool must_verify;
	int rc;

	memset(&p, 0, sizeof(p));
	p.type = eth ? ((ctl & 8) ? TEP_TUN_GRE : TEP_TUN_VXLAN) :
		       ((ctl & 8) ? TEP_TUN_GUE : TEP_TUN_FOU);
	p.outer_v6 = v6;
	memcpy(p.smac, smac, 6);
	memcpy(p.dmac, dmac, 6);
	memcpy(p.src, v6 ? src6 : src4, v6 ? 16 : 4);
	memcpy(p.dst, v6 ? dst6 : dst4, v6 ? 16 : 4);
	p.ttl = 64;
	p.df = true;
	p.dst_port = p.type == TEP_TUN_FOU ? 5555 :
		     p.type == TEP_TUN_GUE ? 6080 : 0;
	p.vni = 42;
	p.gre_key = true;
	p.gre_csum = true;
	p.gre_proto = TEP_ETH_P_TEB;
	p.gue_proto = f->ip_version == 6 ? 41 : 4;
	p.csum = (ctl & 2) ? TEP_CSUM_FULL : TEP_CSUM_LCO;
	if (tep_encap_tmpl_build(&t, &p, err, sizeof(err)) != 0) {
		fprintf(stderr, "template refused: %s\n", err);
		CHECK(!"valid template refused");
	}
	olen = t.len + len;
	if (olen > 65535)
		return;
	out = malloc(olen);
	if (out == NULL)
		abort();
	memset(out, 0xee, t.len);
	memcpy(out + t.len, pkt, len);

	memset(&pk, 0, sizeof(pk));
	pk.inner_len = (uint16_t)len;
	pk.sport = 50000;
	pk.ip_id = 0x1234;
	pk.inner_tos = f->tos;
	pk.flow_label = 0x12345;
	pk.l4 = f->l4;
	rc = tep_encap_write(&t, out, &pk);
	if (rc == -EMSGSIZE)
		goto done;
	if (rc < 0)
		fprintf(stderr, "tep_encap_write: %d\n", rc);
	CHECK(rc == TEP_OCSUM_LCO || rc == TEP_OCSUM_FULL);
	if (p.csum == TEP_CSUM_FULL)
		CHECK(rc == TEP_OCSUM_FULL);
	/* The inner packet is not touched. */
	CHECK(memcmp(out + t.len, pkt, len) == 0);

	l2 = t.l2_len;
	l4 = t.l4_off;
	CHECK(l4 == l2 + t.l3_len && l4 < t.len);
	l4len = olen - l4;
	if (!v6) {
		CHECK(tep_ref_sum(out + l2, 20, 0) == 0xffff);
		CHECK(tep_ref_rd16(out + l2 + 2) == olen - l2);
		CHECK(out[l2 + 9] == (p.type == TEP_TUN_GRE ? 47 : 17));
		if ((f->tos & 3) != 3)	/* CE: see the golden vectors */
			CHECK(out[l2 + 1] == (f->tos & 3));
	} else {
		CHECK(tep_ref_rd16(out + l2 + 4) == l4len);
		CHECK(out[l2 + 6] == (p.type == TEP_TUN_GRE ? 47 : 17));
		if ((f->tos & 3) != 3)
			CHECK((uint8_t)((out[l2] & 0x0f) << 4 | out[l2 + 1] >> 4) ==
			      (f->tos & 3));
	}
	must_verify = rc == TEP_OCSUM_FULL ||
		      inner_l4_valid(pkt, len, eth, f);
	if (p.type == TEP_TUN_GRE) {
		if (must_verify && tep_ref_sum(out + l4, l4len, 0) != 0xffff) {
			fprintf(stderr, "GRE checksum wrong (ocsum %d)\n", rc);
			CHECK(!"outer GRE checksum does not verify");
		}
	} else {
		uint16_t ph = tep_ref_phdr(v6, out + l2 + (v6 ? 8 : 12),
				       out + l2 + (v6 ? 24 : 16), 17,
				       (uint32_t)l4len);

		CHECK(tep_ref_rd16(out + l4 + 4) == (l4len & 0xffff));
		CHECK(tep_ref_rd16(out + l4 + 6) != 0);
		if (must_verify && tep_ref_sum(out + l4, l4len, ph) != 0xffff) {
			fprintf(stderr, "UDP checksum %04x wrong (ocsum %d)\n",
				tep_ref_rd16(out + l4 + 6), rc);
			CHECK(!"outer UDP checksum does not verify");
		}
	}
done:
	free(out);
}

/*
 * Proxy ARP/ND on the same bytes as an inner Ethernet frame, in an
 * exact-size heap block (ASan sees any read past it) and, for ND, room
 * for the answer just past it; an answer must have the length promised.
 */
static void
proxy_check(const uint8_t *data, size_t len)
{
	static const uint8_t mac[6] = { 2, 0x74, 0x65, 0x70, 0, 9 };
	uint8_t *b = malloc(len ? len : 1);
	uint32_t n;

	if (b == NULL)
		abort();
	memcpy(b, data, len);
	n = tep_proxy_arp(b, (uint32_t)len, mac);
	if (n != 0 && n != 42)
		abort();
	free(b);
	b = malloc(len > 86 ? len : 86);
	if (b == NULL)
		abort();
	memcpy(b, data, len);
	n = tep_proxy_nd(b, (uint32_t)len, len > 86 ? (uint32_t)len : 86, mac);
	if (n != 0 && n != 86)
		abort();
	free(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tep_flow f;
	enum tep_reason r;
	uint8_t *buf, ctl;
	size_t len;
	bool eth;

	if (size < 1)
		return 0;
	ctl = data[0];
	eth = ctl & 1;
	len = size - 1;
	buf = malloc(len);
	if (buf == NULL && len != 0)
		abort();
	if (len)
		memcpy(buf, data + 1, len);

	memset(&f, 0xa5, sizeof(f));
	r = tep_flow_parse(buf, len, eth, &f);
	check_flow(buf, len, eth, r, &f);
	/* Bare IP tunnels carry IP only. */
	if (r == TEP_R_OK && (eth || f.ip_version != 0))
		encap_and_check(buf, len, ctl, &f);
	free(buf);
	proxy_check(data + 1, len);
	return 0;
}
