/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * The control thread's packet work: everything workers punt. ARP (RFC
 * 826) and IPv6 neighbour discovery (RFC 4861) for tepd's own addresses
 * and next hops, ICMP echo to tepd's addresses, ICMP errors (time
 * exceeded, fragmentation needed / packet too big).
 */

#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "tep_bytes.h"
#include "tep_csum.h"
#include "tepd.h"

#include "frames.h"
#include "neigh.h"
#include "port.h"
#include "punt.h"
#include "stats.h"
#include "tunnel.h"

#define ARP_HDR_LEN	28
#define PROBE_INTERVAL_MS 1000
#define PROBES_MAX	3
#define STALE_MS	(300 * 1000)

/* ---- punted packets ----------------------------------------------------- */

static void
on_arp(struct rte_mbuf *m)
{
	const uint8_t *a = rte_pktmbuf_mtod_offset(m, const uint8_t *, 14);
	uint16_t port = m->port;
	struct rte_ether_addr sha;
	bool for_us;
	uint16_t op;

	if (m->data_len < 14 + ARP_HDR_LEN || tep_rd16(a) != 1 ||
	    tep_rd16(a + 2) != TEP_ETH_P_IPV4 || a[4] != 6 || a[5] != 4)
		return;
	op = tep_rd16(a + 6);
	memcpy(sha.addr_bytes, a + 8, 6);
	for_us = answers_for(port, 4, a + 24);
	/* RFC 826: update an existing entry from any ARP; create one only
	 * when the packet is for us. */
	if (for_us || tep_neigh_lookup(port, 4, a + 14) != NULL)
		if (!rte_is_zero_ether_addr(&sha) &&
		    !rte_is_multicast_ether_addr(&sha))
			tep_neigh_set(port, 4, a + 14, &sha, false);
	if (for_us && op == 1)
		send_arp(port, 2, a + 24, a + 8, a + 14, a + 8);
}

static void
on_nd(struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, 14);
	uint16_t port = m->port, plen = tep_rd16(ip + 4);
	const uint8_t *ic = ip + 40, *opt, *lladdr = NULL;
	struct rte_ether_addr ll;
	uint32_t off;

	/* RFC 4861 7.1.1/7.1.2: hop limit 255, code 0, valid checksum.
	 * Everything read here is in the first segment. */
	if (m->data_len < 14u + 40 + plen ||
	    ip[7] != 255 || ic[1] != 0 || plen < 24 ||
	    tep_csum_fold(tep_csum_partial(ic, plen,
			tep_ipv6_phdr_sum(ip + 8, ip + 24, 58, plen))) != 0xffff)
		return;
	for (off = 24; off + 8 <= plen; off += opt[1] * 8u) {
		opt = ic + off;
		if (opt[1] == 0)
			return;
		if ((opt[0] == 1 && ic[0] == 135) ||
		    (opt[0] == 2 && ic[0] == 136))
			lladdr = opt + 2;
	}
	if (lladdr != NULL)	/* options are not 2-byte aligned */
		memcpy(ll.addr_bytes, lladdr, 6);
	static const uint8_t unspec[16];

	if (ic[0] == 135 && answers_for(port, 6, ic + 8) &&
	    memcmp(ip + 8, unspec, 16) != 0) {	/* no DAD replies */
		uint8_t body[4 + 16 + 8];
		const uint8_t *dst = ip + 8;
		const uint8_t *eth_dst = rte_pktmbuf_mtod(m, uint8_t *) + 6;

		if (lladdr != NULL)
			tep_neigh_set(port, 6, ip + 8, &ll, false);
		/* Solicited + override; target link-layer address. */
		tep_wr32(body, 0x60000000);
		memcpy(body + 4, ic + 8, 16);
		body[20] = 2;
		body[21] = 1;
		memcpy(body + 22, tep_ports[port].mac.addr_bytes, 6);
		send_icmp6(port, TEP_NO_TUNNEL, eth_dst, ic + 8, dst, 136, 0, body,
			   sizeof(body), 255);
	} else if (ic[0] == 136 && lladdr != NULL) {
		if (tep_neigh_lookup(port, 6, ic + 8) != NULL)
			tep_neigh_set(port, 6, ic + 8, &ll, false);
	}
}

/* Echo request to one of our addresses: answer in place. */
static bool
on_local(struct rte_mbuf *m)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *ip = eth + 14, tmp[16];
	struct tep_mbuf_priv *pv = tep_priv(m);
	uint16_t port = m->port;

	if (tep_ports[port].role != TEP_ROLE_ACCESS &&
	    tep_ports[port].role != TEP_ROLE_UNDERLAY)
		return false;
	if (pv->family == 4) {
		uint32_t ihl = (ip[0] & 0xfu) * 4, len = tep_rd16(ip + 2);
		uint8_t *ic = ip + ihl;

		if (m->data_len < 14u + len ||
		    ip[9] != 1 || len < ihl + 8 || ic[0] != 8 ||
		    !tep_addr_is_ours(port, 4, ip + 16))
			return false;
		ic[0] = 0;
		tep_wr16(ic + 2, 0);
		tep_wr_csum(ic + 2, tep_csum_finish(
			tep_csum_partial(ic, len - ihl, 0)));
		memcpy(tmp, ip + 12, 4);
		memcpy(ip + 12, ip + 16, 4);
		memcpy(ip + 16, tmp, 4);
		ip[8] = 64;
		tep_wr16(ip + 10, 0);
		tep_wr_csum(ip + 10, tep_ipv4_hdr_csum(ip, ihl));
	} else {
		uint16_t plen = tep_rd16(ip + 4);
		uint8_t *ic = ip + 40;

		if (m->data_len < 14u + 40 + plen ||
		    ip[6] != 58 || plen < 8 || ic[0] != 128 ||
		    !tep_addr_is_ours(port, 6, ip + 24))
			return false;
		ic[0] = 129;
		memcpy(tmp, ip + 8, 16);
		memcpy(ip + 8, ip + 24, 16);
		memcpy(ip + 24, tmp, 16);
		ip[7] = 64;
		tep_wr16(ic + 2, 0);
		tep_wr_csum(ic + 2, tep_csum_finish(tep_csum_partial(ic, plen,
			tep_ipv6_phdr_sum(ip + 8, ip + 24, 58, plen))));
	}
	/* Back to the sender's MAC, out of the port it came in on. */
	memcpy(tmp, eth + 6, 6);
	memcpy(eth + 6, tep_ports[port].mac.addr_bytes, 6);
	memcpy(eth, tmp, 6);
	m->ol_flags = 0;
	tep_ctl_send(port, m);
	return true;
}

/*
 * ICMP error back to a packet's sender (RFC 792 / RFC 4443), sent to the
 * MAC it came from. Only for packets that came in on an access port:
 * errors for tunnelled senders would need encapsulating (not done yet).
 */

/*
 * ICMP errors are rate limited as Linux does by default (icmp_msgs_per_sec
 * 1000, icmp_msgs_burst 50): a flood of expiring or oversized packets
 * cannot turn the control thread into a packet generator.
 */
#define ICMP_PER_SEC	1000
#define ICMP_BURST	50

/* One bucket per VRF: a tenant draining its own leaves the others'. */
static bool
icmp_allowed(uint16_t vrf)
{
	static struct tep_rate rate[TEP_VRF_MAX];
	uint64_t interval = rte_get_tsc_hz() / ICMP_PER_SEC;

	return tep_rate_allow(&rate[vrf], rte_rdtsc(), interval,
			      interval * (ICMP_BURST - 1));
}

/*
 * Packets no ICMP error may answer (RFC 1812 4.3.2.7, RFC 4443 2.4(e)):
 * an ICMP error itself, a fragment other than the first, one sent to a
 * link-layer broadcast or multicast, one whose source is not a single
 * host (multicast, broadcast, unspecified).
 */
static bool
icmp_error_forbidden(const struct rte_mbuf *m, int family)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *ip = eth + 14;
	uint32_t have = m->data_len - 14u;
	static const uint8_t unspec[16];

	if (eth[0] & 1)
		return true;
	if (family == 4) {
		uint32_t ihl = (ip[0] & 0xfu) * 4u;

		if (ip[12] >= 224 || tep_rd32(ip + 12) == 0 ||
		    (tep_rd16(ip + 6) & 0x1fff) != 0)
			return true;
		/* ICMP errors: unreachable, source quench, redirect, time
		 * exceeded, parameter problem. */
		return ip[9] == 1 && have >= ihl + 1 &&
		       (ip[ihl] == 3 || ip[ihl] == 4 || ip[ihl] == 5 ||
			ip[ihl] == 11 || ip[ihl] == 12);
	}
	if (ip[8] == 0xff || memcmp(ip + 8, unspec, 16) == 0)
		return true;
	if (ip[6] == 58)	/* ICMPv6 types below 128 are errors */
		return have < 41 || ip[40] < 128;
	/* A fragment header right after the fixed one: offset not 0. */
	return ip[6] == 44 && have >= 44 && (tep_rd16(ip + 42) & 0xfff8) != 0;
}

static void
icmp_error(struct rte_mbuf *orig, bool too_big)
{
	const uint8_t *eth = rte_pktmbuf_mtod(orig, const uint8_t *);
	const uint8_t *ip = eth + 14;
	struct tep_mbuf_priv *pv = tep_priv(orig);
	uint16_t port = orig->port;
	uint32_t tun = pv->from_tunnel;
	const uint8_t *src;

	/* A sender on an access port, or behind the tunnel the packet came
	 * out of (the error goes back into that tunnel). */
	if (tun != TEP_NO_TUNNEL) {
		if (tun >= TEP_TUNNELS_MAX || tep_tunnels[tun] == NULL)
			return;
	} else if (tep_ports[port].role != TEP_ROLE_ACCESS) {
		return;
	}
	if (icmp_error_forbidden(orig, pv->family) || !icmp_allowed(pv->vrf))
		return;
	if (pv->family == 4) {
		uint32_t ihl = (ip[0] & 0xfu) * 4;
		uint16_t quote = (uint16_t)RTE_MIN(ihl + 8,
						   orig->data_len - 14u);
		struct rte_mbuf *m;
		uint8_t *f, *o, *ic;

		src = tun != TEP_NO_TUNNEL ? vrf_src_addr(pv->vrf, 4, ip + 12) :
		      src_addr_for(port, 4, ip + 12);
		if (src == NULL)
			return;
		f = new_frame(&m, (uint16_t)(14 + 20 + 8 + quote));
		if (f == NULL) {
			rte_pktmbuf_free(m);
			return;
		}
		eth_hdr(f, eth + 6, port, TEP_ETH_P_IPV4);
		o = f + 14;
		memset(o, 0, 20);
		o[0] = 0x45;
		o[1] = 0xc0;
		tep_wr16(o + 2, (uint16_t)(20 + 8 + quote));
		o[8] = 64;
		o[9] = 1;
		memcpy(o + 12, src, 4);
		memcpy(o + 16, ip + 12, 4);
		tep_wr_csum(o + 10, tep_ipv4_hdr_csum(o, 20));
		ic = o + 20;
		memset(ic, 0, 8);
		ic[0] = too_big ? 3 : 11;
		ic[1] = too_big ? 4 : 0;
		if (too_big)
			tep_wr16(ic + 6, pv->mtu);
		memcpy(ic + 8, ip, quote);
		tep_wr_csum(ic + 2, tep_csum_finish(
			tep_csum_partial(ic, 8u + quote, 0)));
		ctl_emit(f, m, port, tun);
	} else {
		uint8_t body[4 + 1232];
		uint16_t quote = (uint16_t)RTE_MIN(orig->data_len - 14u,
						   sizeof(body) - 4);

		src = tun != TEP_NO_TUNNEL ? vrf_src_addr(pv->vrf, 6, ip + 8) :
		      src_addr_for(port, 6, ip + 8);
		if (src == NULL)
			return;
		tep_wr32(body, too_big ? pv->mtu : 0);
		memcpy(body + 4, ip, quote);
		send_icmp6(port, tun, eth + 6, src, ip + 8, too_big ? 2 : 3, 0,
			   body, (uint16_t)(4 + quote), 64);
	}
}

static void
punt_count(struct rte_mbuf *m, enum tep_reason r)
{
	struct tep_lcore_cnt *c = tep_counters[rte_lcore_id()];

	c->port[tep_cnt_port_of(m)].drop[r]++;
	c->vrf[tep_priv(m)->vrf].drop[r]++;
}

static void
punt_fate(uint8_t why, uint16_t cport, bool kept)
{
	switch (why) {
	case TEP_PUNT_ARP:
	case TEP_PUNT_ND:
		break;
	case TEP_PUNT_LOCAL:
		if (!kept)	/* drop_local */
			return;
		break;
	default:
		return;
	}
	tep_counters[rte_lcore_id()]->port[cport].punt++;
}

/* Up to PUNT_DRAIN_MAX punted packets per call (the control loop wakes
 * every millisecond at least): workers police what they punt, this keeps
 * the ring from filling between two wake-ups. */
#define PUNT_DRAIN_MAX	512

void
tep_punt_drain(void)
{
	struct rte_mbuf *pkts[TEP_BURST];
	unsigned int n, i, done = 0;

again:
	n = rte_ring_sc_dequeue_burst(tep.punt, (void **)pkts, TEP_BURST,
				      NULL);
	done += n;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		bool kept = false;
		/* read first: a kept packet may be sent (and freed) by
		 * worker 0 at once */
		uint8_t why = tep_priv(m)->punt;
		uint16_t cport = tep_cnt_port_of(m);

		switch (why) {
		case TEP_PUNT_ARP:
			on_arp(m);
			break;
		case TEP_PUNT_ND:
			on_nd(m);
			break;
		case TEP_PUNT_LOCAL:
			kept = on_local(m);
			break;
		case TEP_PUNT_RESOLVE:
			kept = tep_neigh_hold(m);
			break;
		case TEP_PUNT_TTL:
			icmp_error(m, false);
			break;
		case TEP_PUNT_TOO_BIG:
			icmp_error(m, true);
			break;
		default:
			break;
		}
		/* Its fate, once: a packet held for its neighbour counts
		 * when it leaves (neigh.c), TTL and too big were counted as
		 * drops by the worker; what the control thread took in
		 * (answered or not) is punt, unless counted a drop below. */
		punt_fate(why, cport, kept);
		if (!kept) {
			/* Every punted packet that is not answered or held
			 * is a drop: count it, on the control lcore. */
			switch (tep_priv(m)->punt) {
			case TEP_PUNT_LOCAL:
				punt_count(m, TEP_R_LOCAL);
				break;
			case TEP_PUNT_RESOLVE:
				punt_count(m, TEP_R_NO_NEIGH);
				break;
			case TEP_PUNT_NONE:	/* over the VRF's share */
				punt_count(m, TEP_R_HOLD_LIMIT);
				break;
			default:
				break;
			}
			rte_pktmbuf_free(m);
		}
	}
	if (n == TEP_BURST && done < PUNT_DRAIN_MAX)
		goto again;
}
