/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * libFuzzer target: remote checksum offload on receive, GUE and VXLAN
 * (draft-herbert-vxlan-rco): a packet to the VXLAN port (4789) is parsed
 * as VXLAN, any other UDP packet as GUE.
 *
 * Input: one control byte, then a whole outer frame.
 *   bits 0-1  tep_parse_outer() flags (TEP_PARSE_VERIFY_CSUM 0x1,
 *             TEP_PARSE_ZERO_CSUM6 0x2)
 *   bit 2     first recompute the outer IPv4 header and UDP checksums here
 *             (naively), so that mutated packets still get past
 *             verification and the RCO arithmetic is checked on them
 * (the outer corpus is shared with fuzz_parse_outer, whose GUE seeds have
 * bits 0, 2 and 3 set).
 * When tep_parse_outer() and the tunnel parser accept it and it carries
 * RCO, tep_rco_apply() runs on a private, exactly-sized copy.
 *
 * Invariants after an accepted RCO: only the two checksum bytes changed,
 * they lie inside the inner packet, and, when the outer UDP checksum was
 * verified and the field sits at an even distance from csum_start inside
 * the region, the region from csum_start to the end of the inner packet
 * now sums (naive RFC 1071) to ~seed, the seed being the value the field
 * held: the definition of a checksum completed over that seed.
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

static bool
oc_equal(uint16_t a, uint16_t b)
{
	return a == b || (a == 0 && b == 0xffff) || (a == 0xffff && b == 0);
}

/* Make the outer IPv4 header checksum and the UDP checksum right. */
static void
fix_outer_csums(uint8_t *b, size_t len)
{
	size_t l2 = 14, l4, ulen;
	uint8_t *ip, ph[40];
	uint16_t et, ck;

	if (len < 14)
		return;
	et = tep_ref_rd16(b + 12);
	if (et == TEP_ETH_P_VLAN) {
		if (len < 18)
			return;
		et = tep_ref_rd16(b + 16);
		l2 = 18;
	}
	ip = b + l2;
	if (et == TEP_ETH_P_IPV4) {
		size_t ihl;

		if (len < l2 + 20)
			return;
		ihl = (size_t)(ip[0] & 0x0f) * 4;
		if (ihl < 20 || len < l2 + ihl)
			return;
		ip[10] = ip[11] = 0;
		ck = (uint16_t)~tep_ref_sum(ip, ihl, 0);
		ip[10] = (uint8_t)(ck >> 8);
		ip[11] = (uint8_t)ck;
		if (ip[9] != 17)
			return;
		l4 = l2 + ihl;
		memcpy(ph, ip + 12, 8);
	} else if (et == TEP_ETH_P_IPV6) {
		if (len < l2 + 40 || ip[6] != 17)
			return;
		l4 = l2 + 40;
		memcpy(ph, ip + 8, 32);
	} else {
		return;
	}
	if (len < l4 + 8)
		return;
	ulen = tep_ref_rd16(b + l4 + 4);
	if (ulen < 8 || l4 + ulen > len)
		return;
	b[l4 + 6] = b[l4 + 7] = 0;
	if (et == TEP_ETH_P_IPV4)
		ck = tep_ref_sum(ph, 8, 17 + (uint32_t)ulen);
	else
		ck = tep_ref_sum(ph, 32, 17 + (uint32_t)ulen);
	ck = (uint16_t)~tep_ref_sum(b + l4, ulen, ck);
	if (ck == 0)
		ck = 0xffff;
	b[l4 + 6] = (uint8_t)(ck >> 8);
	b[l4 + 7] = (uint8_t)ck;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int flags;
	struct tep_decap d;
	enum tep_reason r;
	uint8_t *buf, *cp = NULL;
	size_t len, i, field, end;
	bool vxlan;

	if (size < 1)
		return 0;
	flags = data[0] & 3;
	len = size - 1;
	buf = malloc(len);
	if (buf == NULL && len != 0)
		abort();
	if (len)
		memcpy(buf, data + 1, len);
	if (data[0] & 4)
		fix_outer_csums(buf, len);

	memset(&d, 0xa5, sizeof(d));
	r = tep_parse_outer(buf, len, flags, &d);
	CHECK(r < TEP_R_MAX);
	if (r != TEP_R_OK || d.l4_proto != 17)
		goto out;
	vxlan = d.dport == TEP_VXLAN_PORT;
	r = vxlan ? tep_parse_vxlan(buf, len, &d) : tep_parse_gue(buf, len, &d);
	CHECK(r < TEP_R_MAX);
	if (r != TEP_R_OK)
		goto out;
	CHECK(d.type == (vxlan ? TEP_TUN_VXLAN : TEP_TUN_GUE));
	if (vxlan && d.has_rco) {
		/* Linux's encoding: an even start of at most 254, the field
		 * 6 (UDP) or 16 (TCP) after it, inside the inner frame. */
		CHECK(d.rco_start % 2 == 0 && d.rco_start <= 254);
		CHECK(d.rco_offset - d.rco_start == 6 ||
		      d.rco_offset - d.rco_start == 16);
		CHECK((size_t)d.rco_offset + 2 <= d.inner_len);
	}
	CHECK((size_t)d.inner_off + d.inner_len <= len);
	CHECK((size_t)d.inner_off + d.inner_len <= (size_t)d.l4_off + d.l4_len);
	if (!d.has_rco)
		goto out;

	cp = malloc(len);
	if (cp == NULL)
		abort();
	memcpy(cp, buf, len);
	r = tep_rco_apply(cp, &d);
	CHECK(r == TEP_R_OK || r == TEP_R_BAD_RCO);
	if (r != TEP_R_OK) {
		CHECK(memcmp(cp, buf, len) == 0);
		goto out;
	}

	/* The field is inside the inner packet, and nothing else moved. */
	CHECK((size_t)d.rco_offset + 2 <= d.inner_len);
	CHECK(d.rco_start < d.inner_len);
	field = (size_t)d.inner_off + d.rco_offset;
	end = (size_t)d.inner_off + d.inner_len;
	for (i = 0; i < len; i++)
		if (i != field && i != field + 1)
			CHECK(cp[i] == buf[i]);

	if (d.csum_verified && d.rco_offset >= d.rco_start &&
	    (d.rco_offset - d.rco_start) % 2 == 0) {
		size_t start = (size_t)d.inner_off + d.rco_start;
		uint16_t seed = tep_ref_rd16(buf + field);
		uint16_t got = tep_ref_sum(cp + start, end - start, 0);

		if (!oc_equal(got, (uint16_t)~seed)) {
			fprintf(stderr, "RCO: region sums to %04x, want ~%04x "
				"= %04x (start %u offset %u)\n", got, seed,
				(uint16_t)~seed, d.rco_start, d.rco_offset);
			CHECK(!"RCO result does not complete over the seed");
		}
	}
out:
	free(cp);
	free(buf);
	return 0;
}
