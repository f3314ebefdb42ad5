/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Punting: packets the control thread must see (ARP, ND, packets waiting
 * for a neighbour, TTL expiry, too big, for us), policed per (reason, VRF)
 * and, for neighbour traffic, per source, before they take a slot on the
 * punt ring.
 */

#include <rte_cycles.h>

#include "datapath.h"
#include "punt.h"

/*
 * What a punt is throttled by: an ARP or ND packet's sender, type and
 * target, hashed with the reason and VRF: one of each per millisecond is
 * all tepd can use.
 */
static inline uint64_t
punt_key(const struct worker *w, struct rte_mbuf *m, enum tep_punt why)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *a;
	uint64_t k[2] = { 0, 0 };
	size_t len;

	if (why == TEP_PUNT_ARP) {
		/* sender protocol address, and the operation: a request
		 * and a reply from one host are both needed */
		a = eth + 14 + 14;
		len = m->data_len >= 14 + 28 ? 4 : 0;
		if (len != 0)
			k[1] = eth[14 + 7] | (uint64_t)tep_rd32(eth + 14 + 24) << 8;
	} else {
		/* ND: IPv6 source, and the message type (is_nd() checked
		 * it is there) */
		a = eth + 14 + 8;
		len = 16;
		k[1] = (uint64_t)eth[14 + 40] << 32;
		if (m->data_len >= 14 + 40 + 24)	/* NS/NA target */
			k[1] ^= (uint64_t)tep_rd32(eth + 14 + 40 + 20) << 40;
	}
	if (len == 16)
		k[1] ^= tep_rd32(a + 8) ^ ((uint64_t)tep_rd32(a + 12) << 16);
	memcpy(k, a, RTE_MIN(len, sizeof(k[0])));
	return (k[0] ^ (k[1] * 0x9e3779b97f4a7c15ull) ^ w->throttle_seed ^
		((uint64_t)why << 56) ^ ((uint64_t)w->vrf << 40)) *
	       0xff51afd7ed558ccdull;
}

/*
 * Whether a punt may go to the control thread (else it is policed): every
 * reason has its bucket per VRF; ARP and ND are also throttled per
 * source, as one answer per millisecond does all that can be done. Echo
 * requests and ICMP errors are not: traceroute and ping send bursts from
 * one source, and ICMP errors have their own limit. Nor are packets
 * waiting for a neighbour (RESOLVE): they are the traffic itself, held
 * while the address resolves (as Linux's unres_qlen), within the VRF's
 * share of held packets (neigh.c); the control thread sends one request
 * per address however many arrive.
 */
static bool
punt_allowed(struct worker *w, struct rte_mbuf *m, enum tep_punt why)
{
	uint64_t now = rte_rdtsc(), h, bit;

	if (why != TEP_PUNT_ARP && why != TEP_PUNT_ND)
		return tep_rate_allow(&w->punt_rate[why][w->vrf], now,
				      w->punt_interval, w->punt_burst_tsc);
	if (now - w->throttle_epoch > w->throttle_period) {
		memset(w->throttle, 0, sizeof(w->throttle));
		w->throttle_epoch = now;
		w->throttle_seed = now * 0x9e3779b97f4a7c15ull;
	}
	h = punt_key(w, m, why) >> 52;		/* 12 bits */
	bit = 1ull << (h & 63);
	if (w->throttle[h >> 6] & bit)
		return false;
	if (!tep_rate_allow(&w->punt_rate[why][w->vrf], now, w->punt_interval,
			    w->punt_burst_tsc))
		return false;
	w->throttle[h >> 6] |= bit;
	return true;
}

void
dp_punt(struct worker *w, struct rte_mbuf *m, enum tep_punt why, int family)
{
	struct tep_mbuf_priv *pv = tep_priv(m);

	if (!punt_allowed(w, m, why)) {
		/* TTL and TOO_BIG were counted as such: only their ICMP
		 * error is not sent. */
		if (why == TEP_PUNT_TTL || why == TEP_PUNT_TOO_BIG)
			rte_pktmbuf_free(m);
		else
			dp_drop(w, m, TEP_R_PUNT_POLICED);
		return;
	}
	pv->punt = (uint8_t)why;
	pv->vrf = w->vrf;
	pv->family = (uint8_t)family;
	pv->from_tunnel = w->src_tunnel;
	if (rte_ring_mp_enqueue(tep.punt, m) == 0)
		return;
	/* TTL and TOO_BIG were counted as drops already: one reason each */
	if (why == TEP_PUNT_TTL || why == TEP_PUNT_TOO_BIG)
		rte_pktmbuf_free(m);
	else
		dp_drop(w, m, TEP_R_PUNT_FULL);
}
