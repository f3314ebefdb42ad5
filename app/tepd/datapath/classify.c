/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

#include "classify.h"

/* For decapsulated packets (lookup.c); RX has its own inlined copy. */
int
dp_classify(struct worker *w, struct rte_mbuf *m, bool decapsulated,
	    struct tep_l3_info *l3)
{
	return classify(w, m, decapsulated, l3);
}
