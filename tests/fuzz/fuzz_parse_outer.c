/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * libFuzzer target: the receive path's parsers on untrusted packets.
 *
 * Input: one selector byte, then a whole outer frame (Ethernet first).
 *   bits 0-1  tep_parse_outer()/tep_parse_gre() flags
 *             (TEP_PARSE_VERIFY_CSUM 0x1, TEP_PARSE_ZERO_CSUM6 0x2)
 *   bits 2-3  the UDP tunnel parser: 0 VXLAN, 1 GENEVE, 2 FOU, 3 GUE
 *             (GRE is chosen by the outer IP protocol)
 *   bit 4     FOU carries IPv6 (ip_proto 41) instead of IPv4
 * An accepted untagged frame also goes through tep_parse_outer_l3() (the
 * two must agree). Then tep_flow_parse() on the inner packet when the tunnel parser
 * accepted it, and tep_flow_parse_l3() from what that found (the two must
 * agree). Every buffer is malloc'd at its exact size so that ASan
 * reports any read past it; the invariants below abort.
 *
 * Seeds: tests/fuzz/corpus/outer (tests/golden/gen_golden.py).
 */

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

static void
check_outer(const uint8_t *buf, size_t len, unsigned int flags,
	    const struct tep_decap *d)
{
	size_t l2 = d->outer_l2_len, l3 = d->outer_l3_len, l4 = d->l4_off;
	size_t alen = d->outer_v6 ? 16 : 4, ip_end;

	CHECK(d->l4_proto == 17 || d->l4_proto == 47);
	CHECK(l2 == 14 || l2 == 18);
	CHECK(l4 == l2 + l3);
	CHECK(l4 <= len);
	CHECK((size_t)d->l4_off + d->l4_len <= len);
	CHECK(d->src_off >= l2 && d->src_off + alen <= l4);
	CHECK(d->dst_off >= l2 && d->dst_off + alen <= l4);
	if (!d->outer_v6) {
		CHECK(l3 >= 20 && l3 <= 60 && l3 % 4 == 0);
		CHECK((buf[l2] >> 4) == 4);
		/* Always verified. */
		CHECK(tep_ref_sum(buf + l2, l3, 0) == 0xffff);
		CHECK(buf[l2 + 9] == d->l4_proto);
		CHECK(d->ttl == buf[l2 + 8] && d->tos == buf[l2 + 1]);
		ip_end = l2 + tep_ref_rd16(buf + l2 + 2);
	} else {
		CHECK(l3 >= 40);
		CHECK((buf[l2] >> 4) == 6);
		CHECK(d->ttl == buf[l2 + 7]);
		CHECK(d->tos == (uint8_t)((buf[l2] & 0x0f) << 4 | buf[l2 + 1] >> 4));
		ip_end = l2 + 40 + tep_ref_rd16(buf + l2 + 4);
	}
	CHECK(ip_end <= len);
	CHECK((size_t)d->l4_off + d->l4_len <= ip_end);
	if (d->l4_proto == 17) {
		uint16_t field;

		CHECK(d->l4_len >= 8);
		CHECK(d->l4_len == tep_ref_rd16(buf + l4 + 4));
		CHECK(d->sport == tep_ref_rd16(buf + l4) && d->dport == tep_ref_rd16(buf + l4 + 2));
		field = tep_ref_rd16(buf + l4 + 6);
		CHECK(d->csum_present == (field != 0));
		if (d->outer_v6 && field == 0)
			CHECK(flags & TEP_PARSE_ZERO_CSUM6);
		if ((flags & TEP_PARSE_VERIFY_CSUM) && field != 0)
			CHECK(d->csum_verified);
		if (d->csum_verified) {
			uint16_t ph = tep_ref_phdr(d->outer_v6, buf + d->src_off,
					       buf + d->dst_off, 17, d->l4_len);

			CHECK(flags & TEP_PARSE_VERIFY_CSUM);
			CHECK(tep_ref_sum(buf + l4, d->l4_len, ph) == 0xffff);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int flags, sel;
	uint8_t fou_proto;
	struct tep_decap d;
	enum tep_reason r;
	uint8_t *buf, *inner;
	size_t len;

	if (size < 1)
		return 0;
	flags = data[0] & 3;
	sel = (data[0] >> 2) & 3;
	fou_proto = (data[0] & 0x10) ? 41 : 4;
	len = size - 1;
	buf = malloc(len);
	if (buf == NULL && len != 0)
		abort();
	if (len)
		memcpy(buf, data + 1, len);

	memset(&d, 0xa5, sizeof(d));
	r = tep_parse_outer(buf, len, flags, &d);
	CHECK(r < TEP_R_MAX);
	if (r != TEP_R_OK)
		goto out;
	check_outer(buf, len, flags, &d);
	/* Parse once: from the outer IP header as tepd's classifier
	 * describes an untagged frame, the same result and fields. */
	if (d.outer_l2_len == 14) {
		const uint8_t *ip = buf + 14;
		struct tep_l3_info l3 = {
			.family = d.outer_v6 ? 6 : 4,
			.l3_len = d.outer_v6 ? 40 : (uint16_t)((ip[0] & 0xf) * 4),
			.ip_len = d.outer_v6 ?
				  (uint16_t)(40 + tep_ref_rd16(ip + 4)) :
				  tep_ref_rd16(ip + 2),
		};
		struct tep_decap d2;

		CHECK(tep_parse_outer_l3(buf, len, len, flags, &l3, &d2) ==
		      TEP_R_OK);
		CHECK(memcmp(&d, &d2, sizeof(d)) == 0);
	}

	if (d.l4_proto == 47) {
		r = tep_parse_gre(buf, len, flags, &d);
	} else {
		switch (sel) {
		case 0:
			r = tep_parse_vxlan(buf, len, &d);
			break;
		case 1:
			r = tep_parse_geneve(buf, len, &d);
			break;
		case 2:
			r = tep_parse_fou(buf, len, fou_proto, &d);
			break;
		default:
			r = tep_parse_gue(buf, len, &d);
			break;
		}
	}
	CHECK(r < TEP_R_MAX);
	if (r != TEP_R_OK)
		goto out;

	/* The tunnel and the inner packet lie inside the outer datagram. */
	CHECK(d.tun_off >= d.l4_off);
	CHECK((size_t)d.tun_off + d.tun_len <= d.inner_off);
	CHECK((size_t)d.inner_off + d.inner_len <= len);
	CHECK((size_t)d.inner_off + d.inner_len <= (size_t)d.l4_off + d.l4_len);
	if (d.opt_len)
		CHECK(d.opt_off >= d.tun_off &&
		      (size_t)d.opt_off + d.opt_len <= d.inner_off);
	CHECK(d.inner_proto == TEP_ETH_P_TEB || d.inner_proto == TEP_ETH_P_IPV4 ||
	      d.inner_proto == TEP_ETH_P_IPV6);
	if (d.l4_proto == 47) {
		CHECK(d.type == TEP_TUN_GRE && d.tun_off == d.l4_off);
		if (d.csum_verified) {
			CHECK(flags & TEP_PARSE_VERIFY_CSUM);
			CHECK(tep_ref_sum(buf + d.l4_off, d.l4_len, 0) == 0xffff);
		}
	} else {
		static const uint8_t types[] = { TEP_TUN_VXLAN, TEP_TUN_GENEVE,
						 TEP_TUN_FOU, TEP_TUN_GUE };

		CHECK(d.type == types[sel]);
		CHECK(d.tun_off == d.l4_off + 8);
		if (d.type == TEP_TUN_VXLAN)
			CHECK(d.has_vni && d.vni <= TEP_VNI_MAX);
		/* VXLAN RCO: Linux's even start, a field inside the frame */
		if (d.type == TEP_TUN_VXLAN && d.has_rco)
			CHECK(d.rco_start % 2 == 0 &&
			      (size_t)d.rco_offset + 2 <= d.inner_len);
	}

	/* The inner packet on its own, exactly sized. */
	inner = malloc(d.inner_len);
	if (inner == NULL && d.inner_len != 0)
		abort();
	if (d.inner_len)
		memcpy(inner, buf + d.inner_off, d.inner_len);
	{
		bool eth = d.inner_proto == TEP_ETH_P_TEB;
		struct tep_flow f;

		memset(&f, 0xa5, sizeof(f));
		r = tep_flow_parse(inner, d.inner_len, eth, &f);
		check_flow(inner, d.inner_len, eth, r, &f);
		/* Parse once: described as tepd's classifier describes an
		 * untagged IPv4 or extension-free IPv6 packet, the L4-only
		 * inspection must give the same flow. */
		if (r == TEP_R_OK && f.l3_off == (eth ? 14 : 0) &&
		    (f.ip_version == 4 ||
		     (f.ip_version == 6 && f.l3_len == 40))) {
			const uint8_t *ip = inner + f.l3_off;
			struct tep_l3_info l3 = {
				.l3_len = f.l3_len, .ip_len = f.ip_len,
				.family = f.ip_version, .l4_proto = f.l4_proto,
				.l4_usable = f.ip_version == 6 ||
					     !(tep_ref_rd16(ip + 6) & 0x3fff),
			};
			const uint32_t rss = 0x9e3779b9u;
			struct tep_flow g;

			memset(&g, 0x5a, sizeof(g));
			CHECK(tep_flow_parse_l3(inner, d.inner_len, eth, &l3,
						NULL, &g) == TEP_R_OK);
			CHECK(memcmp(&f, &g, sizeof(f)) == 0);
			/* With the NIC's hash: only the hash differs. */
			memset(&g, 0xa5, sizeof(g));
			CHECK(tep_flow_parse_l3(inner, d.inner_len, eth, &l3,
						&rss, &g) == TEP_R_OK);
			CHECK(g.hash == rss);
			g.hash = f.hash;
			CHECK(memcmp(&f, &g, sizeof(f)) == 0);
		}
	}
	free(inner);
out:
	free(buf);
	return 0;
}
