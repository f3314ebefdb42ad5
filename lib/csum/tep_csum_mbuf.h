/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_CSUM_MBUF_H
#define TEP_CSUM_MBUF_H

/*
 * Checksums over mbuf chains. Written here rather than using DPDK 22.11's
 * rte_raw_cksum_mbuf(), which byte-swaps an unreduced 32-bit partial sum for
 * segments at odd offsets and so drops carries (wrong for about 3 in 4
 * random odd splits; see the shared notes). Only reads mbuf fields, so the
 * unit tests run it on fake mbufs without EAL.
 */

#include <rte_mbuf.h>

#include "tep_csum.h"

/*
 * Add the sum of `len` bytes starting `off` bytes into the chain to `sum`.
 * Returns -1 if the chain is shorter than off + len.
 */
static inline int
tep_csum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len,
	      uint32_t *sum)
{
	uint32_t done = 0;
	uint32_t s = *sum;

	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	while (m != NULL && done < len) {
		uint32_t n = m->data_len - off;

		if (n > len - done)
			n = len - done;
		s = tep_csum_block_add(s,
			tep_csum_partial(rte_pktmbuf_mtod_offset(m,
					const uint8_t *, off), n, 0), done);
		done += n;
		off = 0;
		m = m->next;
	}
	if (done < len)
		return -1;
	*sum = s;
	return 0;
}

#endif /* TEP_CSUM_MBUF_H */
