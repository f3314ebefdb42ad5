/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Classification: the checks of an Ethernet frame's IP header that every
 * packet passes before lookup, whether it came from a port (rx.c, which
 * inlines classify()) or out of a tunnel (lookup.c, through
 * dp_classify()). ARP and ND are punted here; what is left is described
 * in a tep_l3_info so that no later stage parses the header again.
 */

#ifndef TEPD_DATAPATH_CLASSIFY_H
#define TEPD_DATAPATH_CLASSIFY_H

#include "tep_chain.h"
#include "tep_hdr_walk.h"
#include "datapath.h"
#include "punt.h"
#include "stats.h"

static inline bool
is_nd(const uint8_t *ip6, uint32_t room)
{
	/* ICMPv6 router/neighbour solicitation/advert, redirect: 133-137.
	 * (Only without extension headers: ND never carries them.) */
	return ip6[6] == 58 && room >= 41 && ip6[40] >= 133 && ip6[40] <= 137;
}

/* Cut a packet to len bytes (Ethernet padding); chains too. */
static inline void
pkt_trim(struct rte_mbuf *m, uint32_t len)
{
	if (likely(m->next == NULL))
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - len));
	else
		tep_chain_trim(m, len);
}

/*
 * Check the IP header of an Ethernet frame and return the family (4/6),
 * or 0 when the packet was punted or dropped here. l3 gets what later
 * stages need of the header, so that none of them parses it again.
 */
static __rte_always_inline int
classify(struct worker *w, struct rte_mbuf *m, bool decapsulated,
	 struct tep_l3_info *l3)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *ip = eth + 14;
	uint32_t hroom = m->data_len;
	struct tep_walk wk;
	enum tep_reason r;

	/* Lengths are checked against the whole packet, header reads
	 * against the first segment: a chain (a guest's TSO super-packet,
	 * a jumbo frame) has its headers there (rx pulled them up, so a
	 * header beyond it is short or inconsistent, not split). No VLAN:
	 * a tagged frame is not routable. IPv6 extension headers are rare
	 * and left to the full parse (l3_len 0) where L4 matters. */
	r = tep_hdr_walk(eth, m->pkt_len, hroom,
			 TEP_WALK_ETH | TEP_WALK_NO_SPLIT, &wk);
	if (unlikely(r != TEP_R_OK)) {
		if (r == TEP_R_UNKNOWN_PROTO && wk.ethertype == 0x0806)
			dp_punt(w, m, TEP_PUNT_ARP, 4);
		else
			dp_drop(w, m, r == TEP_R_UNKNOWN_PROTO ?
				   TEP_R_NOT_ROUTABLE : r);
		return 0;
	}
	if (wk.family == 4) {
		/* The NIC's IP verdict is of this header only when it did
		 * not parse a tunnel (then it speaks of the inner one). */
		if (((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) !=
		     RTE_MBUF_F_RX_IP_CKSUM_GOOD ||
		     (m->packet_type & (RTE_PTYPE_TUNNEL_MASK |
					RTE_PTYPE_INNER_L3_MASK))) &&
		    !tep_ipv4_hdr_ok(ip, wk.l3_len)) {
			dp_drop(w, m, TEP_R_BAD_IP_CSUM);
			return 0;
		}
		/* Trim Ethernet padding: lengths below follow the IP header. */
		if (m->pkt_len > 14 + wk.ip_len)
			pkt_trim(m, 14 + wk.ip_len);
		/* tepd routes unicast only; hosts' multicast chatter (IGMP,
		 * mDNS, broadcasts) is counted apart from real misses. */
		if (ip[16] >= 224 || tep_rd32(ip + 16) == 0xffffffff) {
			dp_drop(w, m, TEP_R_MULTICAST);
			return 0;
		}
		/* 169.254/16 stays on its link (RFC 3927 2.7). */
		if (unlikely(tep_rd16(ip + 12) == 0xa9fe ||
			     tep_rd16(ip + 16) == 0xa9fe)) {
			dp_drop(w, m, TEP_R_LINK_LOCAL);
			return 0;
		}
		l3->l3_len = (uint16_t)wk.l3_len;
		l3->ip_len = (uint16_t)wk.ip_len;
		l3->family = 4;
		l3->l4_proto = wk.l4_proto;
		/* MF or an offset: a fragment's L4 is not all here. */
		l3->l4_usable = !wk.frag;
		return 4;
	}
	if (m->pkt_len > 14 + wk.ip_len)
		pkt_trim(m, 14 + wk.ip_len);
	if (is_nd(ip, RTE_MIN(wk.ip_len, hroom - 14))) {
		/* Neighbour state is the underlay's or an access link's: ND
		 * from behind a tunnel (other than what the proxy answered)
		 * never reaches it. */
		if (unlikely(decapsulated))
			dp_drop(w, m, TEP_R_TUNNEL_ND);
		else
			dp_punt(w, m, TEP_PUNT_ND, 6);
		return 0;
	}
	if (ip[24] == 0xff) {	/* MLD, router solicitations, ... */
		dp_drop(w, m, TEP_R_MULTICAST);
		return 0;
	}
	/* fe80::/10 stays on its link (RFC 4291 2.5.6). */
	if (unlikely((ip[8] == 0xfe && (ip[9] & 0xc0) == 0x80) ||
		     (ip[24] == 0xfe && (ip[25] & 0xc0) == 0x80))) {
		dp_drop(w, m, TEP_R_LINK_LOCAL);
		return 0;
	}
	l3->l3_len = wk.ext ? 0 : 40;
	l3->ip_len = (uint16_t)wk.ip_len;
	l3->family = 6;
	l3->l4_proto = wk.l4_proto;
	l3->l4_usable = 1;
	return 6;
}

#endif /* TEPD_DATAPATH_CLASSIFY_H */
