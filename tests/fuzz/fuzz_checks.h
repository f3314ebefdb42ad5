/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef FUZZ_CHECKS_H
#define FUZZ_CHECKS_H

/* Invariants shared by the fuzz targets: a broken one aborts, which
 * libFuzzer reports as a crash with the input that caused it. */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "tep_proto.h"

#define CHECK(c)							\
	do {								\
		if (!(c)) {						\
			fprintf(stderr, "%s:%d: invariant failed: %s\n", \
				__FILE__, __LINE__, #c);		\
			abort();					\
		}							\
	} while (0)

/* What tep_flow_parse() promises about any input it accepts. */
static inline void
check_flow(const uint8_t *p, size_t len, bool eth, enum tep_reason r,
	   const struct tep_flow *f)
{
	CHECK(r < TEP_R_MAX);
	CHECK(tep_reason_name(r) != NULL);
	if (r != TEP_R_OK)
		return;
	CHECK(f->ip_version == 0 || f->ip_version == 4 || f->ip_version == 6);
	/* "the inner L4 state is set to COMPLETE", IP or not */
	CHECK(f->l4.state == TEP_L4_COMPLETE);
	CHECK(f->l4.kind <= TEP_L4_SCTP);
	if (f->ip_version == 0) {
		CHECK(f->l4.kind == TEP_L4_NONE);
		return;
	}
	CHECK(eth ? (f->l3_off == 14 || f->l3_off == 18) : f->l3_off == 0);
	CHECK((size_t)f->l3_off + f->l3_len <= len);
	CHECK((p[f->l3_off] >> 4) == f->ip_version);
	if (f->ip_version == 4)
		CHECK(f->l3_len >= 20 && f->l3_len <= 60 && f->l3_len % 4 == 0);
	else
		CHECK(f->l3_len >= 40);
	if (f->l4.kind != TEP_L4_NONE) {
		/* LCO reads up to here: it must be inside the packet. */
		CHECK(f->l4.csum_start >= f->l3_off + f->l3_len);
		CHECK((size_t)f->l4.csum_start + f->l4.csum_offset + 2 <= len);
	}
	switch (f->l4.kind) {
	case TEP_L4_TCP:
		CHECK(f->l4_proto == 6 && f->l4.csum_offset == 16);
		break;
	case TEP_L4_UDP:
		CHECK(f->l4_proto == 17 && f->l4.csum_offset == 6);
		break;
	case TEP_L4_ICMP:
		CHECK(f->ip_version == 4 && f->l4_proto == 1 &&
		      f->l4.csum_offset == 2);
		break;
	case TEP_L4_ICMP6:
		CHECK(f->ip_version == 6 && f->l4.csum_offset == 2);
		break;
	case TEP_L4_SCTP:
		CHECK(f->l4.csum_offset == 8);
		break;
	case TEP_L4_NONE:
		break;
	default:
		CHECK(!"unknown tep_l4_kind");
	}
}

#endif /* FUZZ_CHECKS_H */
