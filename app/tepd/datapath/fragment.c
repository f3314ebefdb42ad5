/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Packets bigger than their egress: IPv4 without DF fragmented, the rest
 * answered with "too big" by the control thread.
 */

#include <rte_ip.h>
#include <rte_ip_frag.h>

#include "tep_chain.h"
#include "tep_hdr_walk.h"
#include "datapath.h"
#include "punt.h"
#include "stats.h"

/*
 * An IPv4 packet without DF that does not fit (ip_mtu: the largest inner
 * IP datagram the egress allows) is fragmented (RFC 791) by DPDK's
 * rte_ip_frag into flat fragments, and each takes the path the packet
 * would have. A checksum still pending (a VM's) covers the whole datagram:
 * it is completed first. The fragments' own L4 state is "none", so the
 * outer checksum of an encapsulated fragment is summed whole (LCO needs
 * the whole inner datagram). The fragments go to frags[] (DP_FRAGS_MAX)
 * for the caller to send on its own path; their number is returned, 0
 * when m was dropped.
 */
static uint16_t
fragment(struct worker *w, struct rte_mbuf *m, uint32_t ip_mtu,
	 struct rte_mbuf **frags)
{
	uint16_t port = m->port, cport = tep_cnt_port_of(m);
	uint64_t rss = m->ol_flags & RTE_MBUF_F_RX_RSS_HASH;
	uint32_t rss_hash = m->hash.rss;
	uint8_t eth[14], *ip;
	struct tep_walk wk;
	int n, i, k;

	if (ip_mtu < 68) {
		dp_drop(w, m, TEP_R_TOO_BIG);
		return 0;
	}
	ip = rte_pktmbuf_mtod_offset(m, uint8_t *, 14);
	/* Classified IPv4: the walk only says where L4 is and whether it
	 * is whole (not already a fragment). */
	if ((m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
	    RTE_MBUF_F_RX_L4_CKSUM_NONE &&
	    tep_hdr_walk(ip, m->pkt_len - 14, m->data_len - 14u, 0, &wk) ==
	    TEP_R_OK && !wk.frag &&
	    ((wk.l4_proto == 6 && wk.ip_len >= wk.l3_len + 20) ||
	     (wk.l4_proto == 17 && wk.ip_len >= wk.l3_len + 8))) {
		uint32_t ihl = wk.l3_len, tot = wk.ip_len;
		uint32_t csum_at = wk.l4_proto == 6 ? 16 : 6;
		bool udp = wk.l4_proto == 17;

		if (likely(m->next == NULL))
			tep_l4_csum_complete(ip + ihl, tot - ihl, csum_at, udp);
		else if (tep_chain_l4_complete(m, 14 + ihl, tot - ihl,
					       csum_at, udp) != 0) {
			dp_drop(w, m, TEP_R_HDR_SPLIT);
			return 0;
		}
	}
	memcpy(eth, ip - 14, 14);
	rte_pktmbuf_adj(m, 14);
	/* A chain is cut without copying its payload: each fragment is a
	 * new header segment followed by indirect segments into the
	 * original's buffers (whose references keep them alive). */
	if (likely(m->next == NULL))
		n = rte_ipv4_fragment_copy_nonseg_packet(m, frags, DP_FRAGS_MAX,
							 (uint16_t)ip_mtu,
							 tep.pool);
	else
		n = rte_ipv4_fragment_packet(m, frags, DP_FRAGS_MAX,
					     (uint16_t)ip_mtu, tep.pool,
					     tep.pool);
	if (n <= 0) {
		w->cnt->port[cport].drop[TEP_R_TOO_BIG]++;
		rte_pktmbuf_free(m);
		return 0;
	}
	rte_pktmbuf_free(m);
	w->cnt->port[cport].frag_pkts++;
	w->cnt->port[cport].frags += (uint64_t)n;
	for (i = 0, k = 0; i < n; i++) {
		struct rte_mbuf *f = frags[i];
		uint8_t *p = (uint8_t *)rte_pktmbuf_prepend(f, 14);

		if (p == NULL) {
			w->cnt->port[cport].drop[TEP_R_NO_HEADROOM]++;
			rte_pktmbuf_free(f);
			continue;
		}
		frags[k++] = f;
		memcpy(p, eth, 14);
		ip = p + 14;
		/* rte_ip_frag leaves the header checksum to the caller */
		tep_wr16(ip + 10, 0);
		tep_wr_csum(ip + 10, tep_ipv4_hdr_csum(ip, (ip[0] & 0xfu) * 4u));
		f->port = port;
		f->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD | rss;
		f->hash.rss = rss_hash;
	}
	return (uint16_t)k;
}

uint16_t
dp_too_big(struct worker *w, struct rte_mbuf *m, const uint8_t *ip,
	   int family, uint32_t mtu, struct rte_mbuf **frags)
{
	if (family == 4 && !(tep_rd16(ip + 6) & 0x4000))
		return fragment(w, m, mtu, frags);
	w->cnt->port[tep_cnt_port_of(m)].drop[TEP_R_TOO_BIG]++;
	tep_priv(m)->mtu = (uint16_t)mtu;
	dp_punt(w, m, TEP_PUNT_TOO_BIG, family);
	return 0;
}
