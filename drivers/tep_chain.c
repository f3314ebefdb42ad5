/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

#include <string.h>

#include "tep_chain.h"
#include "tep_csum.h"
#include "tep_csum_mbuf.h"

int
tep_chain_pullup(struct rte_mbuf *m, uint32_t want)
{
	struct rte_mbuf *s;
	uint32_t need;

	if (want > m->pkt_len)
		want = m->pkt_len;
	if (m->data_len >= want)
		return 0;
	need = want - m->data_len;
	if (rte_pktmbuf_tailroom(m) < need || RTE_MBUF_CLONED(m) ||
	    rte_mbuf_refcnt_read(m) != 1)
		return -1;
	while (need > 0 && (s = m->next) != NULL) {
		uint32_t n = s->data_len < need ? s->data_len : need;

		memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, m->data_len),
		       rte_pktmbuf_mtod(s, const uint8_t *), n);
		m->data_len = (uint16_t)(m->data_len + n);
		s->data_off = (uint16_t)(s->data_off + n);
		s->data_len = (uint16_t)(s->data_len - n);
		need -= n;
		if (s->data_len == 0) {
			m->next = s->next;
			m->nb_segs--;
			s->next = NULL;
			s->nb_segs = 1;
			rte_pktmbuf_free_seg(s);
		}
	}
	return 0;
}

void
tep_chain_trim(struct rte_mbuf *m, uint32_t len)
{
	struct rte_mbuf *s = m, *rest;
	uint32_t have = 0;
	uint16_t segs = 1;

	if (len >= m->pkt_len)
		return;
	while (have + s->data_len < len && s->next != NULL) {
		have += s->data_len;
		s = s->next;
		segs++;
	}
	s->data_len = (uint16_t)(len - have);
	rest = s->next;
	s->next = NULL;
	m->pkt_len = len;
	m->nb_segs = segs;
	if (rest != NULL) {
		/* the rest is a chain of its own now: free it whole */
		struct rte_mbuf *x;
		uint16_t n = 0;
		uint32_t bytes = 0;

		for (x = rest; x != NULL; x = x->next) {
			n++;
			bytes += x->data_len;
		}
		rest->nb_segs = n;
		rest->pkt_len = bytes;
		rte_pktmbuf_free(rest);
	}
}

int
tep_chain_l4_complete(struct rte_mbuf *m, uint32_t off, uint32_t len,
		      uint32_t csum_offset, bool udp)
{
	uint32_t sum = 0;
	uint16_t ck;

	if (off + csum_offset + 2 > m->data_len ||
	    tep_csum_mbuf(m, off, len, &sum) < 0)
		return -1;
	ck = tep_csum_finish(sum);
	if (udp)
		ck = tep_udp_csum_mangle0(ck);
	memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, off + csum_offset), &ck,
	       sizeof(ck));
	return 0;
}
