/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Software TCP segmentation of a guest's super-packet (a vhost-user port
 * hands it over as RTE_MBUF_F_RX_LRO with tso_segsz = the guest's
 * gso_size), before routing sends it to a port or into a tunnel.
 *
 * Each segment is a fresh single mbuf: headers from tep_tso_seg_hdr(),
 * payload copied from the (usually chained) super-packet. Copying keeps
 * every segment flat, which is what the encapsulation path, net_tap's
 * offsets (flat only in 22.11) and the software checksum fallback want,
 * and costs one memcpy per payload byte; attaching indirect mbufs instead
 * would save that copy and is the next step if vhost-to-tunnel TCP
 * throughput matters more than simplicity (docs/vm-ports.md).
 * rte_gso is not used: in 22.11 it does TCP/IPv4 and VXLAN/GRE over IPv4
 * only, works after encapsulation, and leaves every checksum to the
 * caller; segmenting the inner packet here covers IPv6 and all tunnel
 * types with one code path.
 */

#include <string.h>

#include <rte_mbuf.h>

#include "tepd.h"
#include "datapath.h"
#include "stats.h"

int
tep_gso_segment(struct rte_mempool *mp, struct rte_mbuf *m,
		struct rte_mbuf **out, uint16_t max, enum tep_reason *why)
{
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t room = (uint16_t)(rte_pktmbuf_data_room_size(mp) -
				   RTE_PKTMBUF_HEADROOM);
	struct tep_tso t;
	uint32_t off, left;
	enum tep_reason r;
	uint16_t i;

	r = tep_tso_plan(frame, m->data_len, m->pkt_len, 14, m->tso_segsz, &t);
	if (r != TEP_R_OK) {
		*why = r;
		return -1;
	}
	if (t.nb_segs > max || t.hdr_len + t.mss > room) {
		*why = TEP_R_BAD_GSO;
		return -1;
	}
	if (rte_pktmbuf_alloc_bulk(mp, out, t.nb_segs) != 0) {
		*why = TEP_R_NO_MBUF;
		return -1;
	}
	off = t.hdr_len;
	left = t.payload;
	for (i = 0; i < t.nb_segs; i++) {
		struct rte_mbuf *s = out[i];
		uint16_t n = (uint16_t)RTE_MIN(left, (uint32_t)t.mss);
		uint8_t *d = rte_pktmbuf_mtod(s, uint8_t *);
		const void *p;

		tep_tso_seg_hdr(&t, frame, d, i, n);
		p = rte_pktmbuf_read(m, off, n, d + t.hdr_len);
		if (p != d + t.hdr_len)
			memcpy(d + t.hdr_len, p, n);
		s->data_len = (uint16_t)(t.hdr_len + n);
		s->pkt_len = s->data_len;
		s->port = m->port;
		s->hash = m->hash;
		/* Pending checksum, as a guest's own non-TSO packet */
		s->ol_flags = RTE_MBUF_F_RX_L4_CKSUM_NONE |
			      RTE_MBUF_F_RX_IP_CKSUM_GOOD |
			      (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH);
		s->packet_type = m->packet_type;
		off += n;
		left -= n;
	}
	return t.nb_segs;
}

/*
 * A guest's TCP super-packet (vhost-user GSO request): cut it into segments
 * of the guest's MSS, each with its checksum pending, and send them on as
 * if the guest had sent them one by one. tepd segments in software: no PMD
 * here has tunnel TSO (docs/vm-ports.md).
 */
void
dp_gso_dispatch(struct worker *w, struct rte_mbuf *m, const struct tep_nh *nh,
	     int family)
{
	struct rte_mbuf *segs[TEP_GSO_SEGS_MAX];
	enum tep_reason why;
	int n, i;

	n = tep_gso_segment(tep.pool, m, segs, TEP_GSO_SEGS_MAX, &why);
	if (n < 0) {
		dp_drop(w, m, why);
		return;
	}
	w->cnt->port[tep_cnt_port_of(m)].gso_pkts++;
	w->cnt->port[tep_cnt_port_of(m)].gso_segs += (uint64_t)n;
	rte_pktmbuf_free(m);
	/* The segments take the super-packet's path together. */
	if (nh->type == TEP_NHT_TUNNEL)
		dp_encap_burst(w, segs, NULL, (uint16_t)n, nh, family);
	else
		for (i = 0; i < n; i++)
			dp_forward(w, segs[i], nh, family);
}
