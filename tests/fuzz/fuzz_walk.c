/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * libFuzzer target: lib/proto/tep_hdr_walk.h against the naive reference
 * (tests/common/tep_ref_walk.h).
 *
 * Input: a flags byte (TEP_WALK_*, low five bits), two bytes of readable
 * room (big-endian, taken modulo the packet's length + 1), the packet.
 * The walk sees a heap copy of the readable bytes only, so ASan reports
 * any read past them; verdict and result must equal the reference's.
 *
 * Seeds: tests/fuzz/corpus/walk (tests/fuzz/make_walk_corpus.py).
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tep_hdr_walk.h"
#include "tep_ref_walk.h"
#include "fuzz_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tep_walk a, b;
	enum tep_reason ra, rb;
	unsigned int flags;
	uint32_t len, hroom;
	uint8_t *copy;

	if (size < 3 || size > 3 + 0xffff + 18)
		return 0;
	flags = data[0] & 0x1fu;
	len = (uint32_t)(size - 3);
	hroom = ((uint32_t)data[1] << 8 | data[2]) % (len + 1);
	copy = malloc(hroom ? hroom : 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, data + 3, hroom);
	ra = tep_hdr_walk(copy, len, hroom, flags, &a);
	rb = tep_ref_walk(copy, len, hroom, flags, &b);
	free(copy);
	CHECK(ra == rb);
	if (ra == TEP_R_UNKNOWN_PROTO)
		CHECK(a.ethertype == b.ethertype && a.l2_len == b.l2_len);
	if (ra != TEP_R_OK)
		return 0;
	CHECK(a.l2_len == b.l2_len && a.l3_len == b.l3_len);
	CHECK(a.l4_off == b.l4_off && a.ip_len == b.ip_len);
	CHECK(a.ethertype == b.ethertype && a.family == b.family);
	CHECK(a.l4_proto == b.l4_proto && a.frag == b.frag && a.ext == b.ext);
	CHECK(a.l4_off == a.l2_len + a.l3_len);
	CHECK(a.l2_len + a.ip_len <= len && a.l3_len <= a.ip_len);
	/* the IP header was readable (IPv6: its fixed part) */
	CHECK(a.family == 4 ? a.l4_off <= hroom : a.l2_len + 40 <= hroom);
	return 0;
}
