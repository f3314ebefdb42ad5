/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Rx checksum verdicts by header (see tep_rxcsum.h; the per-PMD facts are
 * in docs/drivers.md). The per-packet code is inline in the header; only
 * the names live here.
 */

#include "tep_rxcsum.h"

const char *
tep_rxv_name(unsigned int v)
{
	static const char *const names[] = {
		[TEP_RXV_UNKNOWN] = "unknown",
		[TEP_RXV_BAD] = "bad",
		[TEP_RXV_GOOD] = "good",
		[TEP_RXV_NONE] = "none",
	};

	return v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}
