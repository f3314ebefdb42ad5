/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * The worker loop: RX, classify, VRF lookup, then decapsulate, encapsulate
 * or forward, tx-prepare and TX. Stages in packet order:
 *
 *   rx_port()      -> classify()  : L2/L3 sanity, ARP/ND punt, VRF + key
 *   route()        -> one rte_fib*_lookup_bulk per (VRF, family) group
 *   dispatch       -> decap() | encap() | forward() | punt | drop
 *   tx_flush()     -> drivers/ tep_txprep_burst, rte_eth_tx_prepare, TX
 *
 * Decapsulated packets go through classify/route a second time in their
 * tunnel's VRF. Nothing here allocates, locks or writes shared state other
 * than this lcore's counters; control-plane work is punted on a ring.
 */

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "tep_bytes.h"
#include "tep_chain.h"
#include "tep_csum.h"
#include "tep_csum_mbuf.h"
#include "tep_rxcsum.h"
#include "tepd.h"

#define RX_PREFETCH	4	/* packets ahead whose headers are prefetched */
#define FRAGS_MAX	64	/* a 64 KB datagram in 1 KB pieces */

struct txbuf {
	uint16_t n;
	struct rte_mbuf *m[TEP_BURST * 2];
};

/* Per worker, cached egress of each tunnel's remote on the underlay. */
struct tun_egress {
	uint32_t gen;
	uint16_t port;
	uint64_t dmac;
};

#define THROTTLE_WORDS	64	/* 4096 bits */

struct worker {
	unsigned int idx;		/* queue index and RCU thread id */
	/* Punt policing: a bucket per (reason, VRF), and for neighbour
	 * work a throttle of one punt per (source, type, target) per
	 * millisecond: a bit per hashed key, all cleared (and the hash
	 * reseeded) every millisecond, as VPP throttles ARP. */
	struct tep_rate punt_rate[TEP_PUNT_MAX][TEP_VRF_MAX];
	uint64_t punt_interval, punt_burst_tsc, throttle_period;
	uint64_t throttle_epoch, throttle_seed;
	uint64_t throttle[THROTTLE_WORDS];
	uint16_t vrf;			/* VRF of the packets being handled */
	uint32_t src_tunnel;		/* the tunnel the packet came out of,
					 * or TEP_NO_TUNNEL (for ICMP errors) */
	struct tep_lcore_cnt *cnt;
	uint16_t ip_id;
	struct txbuf tx[TEP_PORTS_MAX];
	struct tun_egress egress[TEP_TUNNELS_MAX];
};

/*
 * Per-packet state lives in locals and w->vrf, not in the mbuf's private
 * area: that is a cache line the PMD never touched, and reading or writing
 * it for every packet cost a quarter of the worker's time. Only punted
 * packets carry state in it, for the control thread.
 */
static inline void
drop(struct worker *w, struct rte_mbuf *m, enum tep_reason r)
{
	w->cnt->port[tep_cnt_port_of(m)].drop[r]++;
	w->cnt->vrf[w->vrf].drop[r]++;
	rte_pktmbuf_free(m);
}

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

static inline void
punt(struct worker *w, struct rte_mbuf *m, enum tep_punt why, int family)
{
	struct tep_mbuf_priv *pv = tep_priv(m);

	if (!punt_allowed(w, m, why)) {
		/* TTL and TOO_BIG were counted as such: only their ICMP
		 * error is not sent. */
		if (why == TEP_PUNT_TTL || why == TEP_PUNT_TOO_BIG)
			rte_pktmbuf_free(m);
		else
			drop(w, m, TEP_R_PUNT_POLICED);
		return;
	}
	pv->punt = (uint8_t)why;
	pv->vrf = w->vrf;
	pv->family = (uint8_t)family;
	pv->from_tunnel = w->src_tunnel;
	if (rte_ring_mp_enqueue(tep.punt, m) != 0)
		drop(w, m, TEP_R_PUNT_FULL);
}

static void tx_flush(struct worker *w, uint16_t port);

static inline void
tx_enqueue(struct worker *w, uint16_t port, struct rte_mbuf *m)
{
	struct txbuf *b = &w->tx[port];

	b->m[b->n++] = m;
	/* A burst of guest super-packets becomes hundreds of segments. */
	if (unlikely(b->n == RTE_DIM(b->m)))
		tx_flush(w, port);
}

static void
tx_flush(struct worker *w, uint16_t port)
{
	struct txbuf *b = &w->tx[port];
	struct tep_port *p = &tep.port[port];
	struct tep_txprep_stats st = { 0 };
	uint16_t n = b->n, ok, done = 0, sent, i;
	uint64_t t0 = tep.stats_cycles ? rte_rdtsc() : 0, bytes = 0;

	if (n == 0)
		return;
	b->n = 0;
	if (!__atomic_load_n(&p->polling, __ATOMIC_ACQUIRE)) {
		w->cnt->port[port].drop[TEP_R_PORT_DOWN] += n;
		rte_pktmbuf_free_bulk(b->m, n);
		return;
	}
	/* The one place offload metadata meets the device (drivers/). */
	ok = tep_txprep_burst(&p->txcaps, b->m, n, &st);
	for (i = ok; i < n; i++) {
		w->cnt->port[port].drop[TEP_R_BAD_TX_META]++;
		rte_pktmbuf_free(b->m[i]);
	}
	w->cnt->port[port].hw_csum += st.hw_inner_csum;
	w->cnt->port[port].sw_csum += st.sw_inner_csum;
	/* PMD prepare stops at the first packet it refuses. */
	while (done < ok) {
		uint16_t good = rte_eth_tx_prepare(port, (uint16_t)w->idx,
						   b->m + done,
						   (uint16_t)(ok - done));

		if (good == ok - done)
			break;
		w->cnt->port[port].drop[TEP_R_BAD_TX_META]++;
		rte_pktmbuf_free(b->m[done + good]);
		memmove(b->m + done + good, b->m + done + good + 1,
			(size_t)(ok - done - good - 1) * sizeof(b->m[0]));
		ok--;
		done += good;
	}
	if (tep.stats_cycles) {
		w->cnt->stage_cycles[TEP_ST_TXPREP] += rte_rdtsc() - t0;
		w->cnt->stage_pkts[TEP_ST_TXPREP] += n;
	}
	/* Bytes are summed before the burst: a PMD may free (and another
	 * lcore reuse) what it sent before rte_eth_tx_burst returns. */
	for (i = 0; i < ok; i++)
		bytes += b->m[i]->pkt_len;
	sent = rte_eth_tx_burst(port, (uint16_t)w->idx, b->m, ok);
	for (i = sent; i < ok; i++) {
		bytes -= b->m[i]->pkt_len;
		w->cnt->port[port].drop[TEP_R_TX_FULL]++;
		rte_pktmbuf_free(b->m[i]);
	}
	w->cnt->port[port].tx_bytes += bytes;
	w->cnt->port[port].tx += sent;
}

static inline uint64_t
mac_to_u64(const struct rte_ether_addr *a)
{
	uint64_t v = 0;

	memcpy(&v, a->addr_bytes, 6);
	return v;
}

static inline void
set_macs(uint8_t *eth, uint64_t dst, const struct rte_ether_addr *src)
{
	memcpy(eth, &dst, 6);
	memcpy(eth + 6, src->addr_bytes, 6);
}

/* ---- classify ----------------------------------------------------------- */

/*
 * Is an Ethernet frame for us: our MAC (own, as mac_to_u64() packs it),
 * broadcast, or an IPv6 group tepd uses (all-nodes 33:33:00:00:00:01,
 * solicited-node 33:33:ff:xx:xx:xx; ND checks the target itself)?
 */
static inline bool
l2_for_us(const uint8_t *eth, uint64_t own)
{
	uint64_t dst = 0;

	memcpy(&dst, eth, 6);
	if (likely(dst == own))
		return true;
	if (!(eth[0] & 1))
		return false;
	return dst == 0xffffffffffffull ||
	       (eth[0] == 0x33 && eth[1] == 0x33 &&
		(eth[2] == 0xff ||
		 (eth[2] == 0 && eth[3] == 0 && eth[4] == 0 && eth[5] == 1)));
}

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
 * or 0 when the packet was punted or dropped here. Sets priv->family.
 */
static inline int
classify(struct worker *w, struct rte_mbuf *m, bool decapsulated)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	/* Lengths are checked against the whole packet, header reads
	 * against the first segment: a chain (a guest's TSO super-packet,
	 * a jumbo frame) has its headers there. */
	uint32_t room = m->pkt_len, hroom = m->data_len;
	uint16_t et;

	if (hroom < 14) {
		drop(w, m, TEP_R_TRUNCATED);
		return 0;
	}
	et = tep_rd16(eth + 12);
	room -= 14;
	hroom -= 14;
	if (et == TEP_ETH_P_IPV4) {
		const uint8_t *ip = eth + 14;
		uint32_t ihl, tot;

		if (hroom < 20) {
			drop(w, m, TEP_R_TRUNCATED);
			return 0;
		}
		ihl = (ip[0] & 0xfu) * 4;
		tot = tep_rd16(ip + 2);
		if ((ip[0] >> 4) != 4 || ihl < 20) {
			drop(w, m, (ip[0] >> 4) != 4 ? TEP_R_BAD_VERSION :
				   TEP_R_BAD_HDR_LEN);
			return 0;
		}
		if (tot > room || tot < ihl || ihl > hroom) {
			drop(w, m, tot > room ? TEP_R_TRUNCATED :
				   TEP_R_BAD_LENGTH);
			return 0;
		}
		/* The NIC's IP verdict is of this header only when it did
		 * not parse a tunnel (then it speaks of the inner one). */
		if (((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) !=
		     RTE_MBUF_F_RX_IP_CKSUM_GOOD ||
		     (m->packet_type & (RTE_PTYPE_TUNNEL_MASK |
					RTE_PTYPE_INNER_L3_MASK))) &&
		    !tep_ipv4_hdr_ok(ip, ihl)) {
			drop(w, m, TEP_R_BAD_IP_CSUM);
			return 0;
		}
		/* Trim Ethernet padding: lengths below follow the IP header. */
		if (m->pkt_len > 14 + tot)
			pkt_trim(m, 14 + tot);
		/* tepd routes unicast only; hosts' multicast chatter (IGMP,
		 * mDNS, broadcasts) is counted apart from real misses. */
		if (ip[16] >= 224 || tep_rd32(ip + 16) == 0xffffffff) {
			drop(w, m, TEP_R_MULTICAST);
			return 0;
		}
		/* 169.254/16 stays on its link (RFC 3927 2.7). */
		if (unlikely(tep_rd16(ip + 12) == 0xa9fe ||
			     tep_rd16(ip + 16) == 0xa9fe)) {
			drop(w, m, TEP_R_LINK_LOCAL);
			return 0;
		}
		return 4;
	}
	if (et == TEP_ETH_P_IPV6) {
		const uint8_t *ip = eth + 14;
		uint32_t tot;

		if (hroom < 40) {
			drop(w, m, TEP_R_TRUNCATED);
			return 0;
		}
		if ((ip[0] >> 4) != 6) {
			drop(w, m, TEP_R_BAD_VERSION);
			return 0;
		}
		tot = 40u + tep_rd16(ip + 4);
		if (tot > room) {
			drop(w, m, TEP_R_TRUNCATED);
			return 0;
		}
		if (m->pkt_len > 14 + tot)
			pkt_trim(m, 14 + tot);
		if (is_nd(ip, RTE_MIN(tot, hroom))) {
			/* Neighbour state is the underlay's or an access
			 * link's: ND from behind a tunnel (other than what
			 * the proxy answered) never reaches it. */
			if (unlikely(decapsulated))
				drop(w, m, TEP_R_TUNNEL_ND);
			else
				punt(w, m, TEP_PUNT_ND, 6);
			return 0;
		}
		if (ip[24] == 0xff) {	/* MLD, router solicitations, ... */
			drop(w, m, TEP_R_MULTICAST);
			return 0;
		}
		/* fe80::/10 stays on its link (RFC 4291 2.5.6). */
		if (unlikely((ip[8] == 0xfe && (ip[9] & 0xc0) == 0x80) ||
			     (ip[24] == 0xfe && (ip[25] & 0xc0) == 0x80))) {
			drop(w, m, TEP_R_LINK_LOCAL);
			return 0;
		}
		return 6;
	}
	if (et == 0x0806) {
		punt(w, m, TEP_PUNT_ARP, 4);
		return 0;
	}
	drop(w, m, TEP_R_NOT_ROUTABLE);
	return 0;
}

/* ---- decapsulation ------------------------------------------------------ */

/* Inner TCP/UDP checksum right, from the good outer one (d parsed buf)? */
static bool
inner_csum_good(const uint8_t *buf, const struct tep_decap *d)
{
	const uint8_t *ip = buf + d->inner_off +
			    (d->inner_proto == TEP_ETH_P_TEB ? 14 : 0);
	uint32_t end = (uint32_t)d->l4_off + d->l4_len;
	uint32_t ipoff = (uint32_t)(ip - buf), l3_len, tot;
	uint8_t proto;

	if (ipoff + 40 > end || ipoff + 40 > d->hdr_room)
		return false;
	if ((ip[0] >> 4) == 4) {
		l3_len = (ip[0] & 0xfu) * 4u;
		tot = tep_rd16(ip + 2);
		proto = ip[9];
		if (l3_len < 20 || (tep_rd16(ip + 6) & 0x3fff))
			return false;
	} else if ((ip[0] >> 4) == 6) {
		l3_len = 40;
		tot = 40u + tep_rd16(ip + 4);
		proto = ip[6];
	} else {
		return false;
	}
	/* The derivation covers up to the end of the outer datagram. */
	if (ipoff + tot != end || (proto != 6 && proto != 17) ||
	    tot < l3_len + 8)
		return false;
	if (proto == 17 && (ip[0] >> 4) == 4 && tep_rd16(ip + l3_len + 6) == 0)
		return false;
	return tep_inner_csum_derive(buf, d, ipoff + l3_len,
		(ip[0] >> 4) == 4 ?
		tep_ipv4_phdr_sum(ip + 12, ip + 16, proto,
				  (uint16_t)(tot - l3_len)) :
		tep_ipv6_phdr_sum(ip + 8, ip + 24, proto, tot - l3_len));
}

static void tunnel_answer(struct worker *w, struct rte_mbuf *m,
			  const struct tep_tunnel *t, uint32_t len);

/*
 * ARP or a neighbour solicitation from the far end of an Ethernet tunnel
 * (m holds the inner frame): answered back through the tunnel with the
 * tunnel's overlay MAC (lib/proto/tep_proxy.c says why). True when m was
 * consumed.
 */
static bool
tunnel_proxy(struct worker *w, struct rte_mbuf *m, const struct tep_tunnel *t,
	     uint16_t et)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t n;

	if (et == 0x0806)
		n = tep_proxy_arp(f, m->data_len, t->inner_smac.addr_bytes);
	else if (m->data_len >= 14 + 40 + 1 && f[14 + 6] == 58 &&
		 f[14 + 40] == 135)
		n = tep_proxy_nd(f, m->data_len,
				 m->data_len + rte_pktmbuf_tailroom(m),
				 t->inner_smac.addr_bytes);
	else
		return false;
	if (n == 0)
		return false;
	w->cnt->tun[t->id].decap++;
	w->cnt->tun[t->id].proxy_answers++;
	tunnel_answer(w, m, t, n);
	return true;
}

/*
 * A packet for one of our underlay addresses: a tunnel packet is stripped
 * down to an Ethernet frame carrying the inner IP packet, bound to its
 * tunnel's VRF (returns 1). 0: not a tunnel packet (punt it); -1: dropped.
 */
static int
decap(struct worker *w, struct rte_mbuf *m, uint16_t *vrf, uint32_t *tun)
{
	uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
	/* The parsers read the first segment only (a chain's headers are
	 * there: rx pulled them up); lengths are the whole packet's. */
	uint32_t len = m->data_len;
	const struct tep_tunnel *t;
	struct tep_rxcsum rv;
	struct tep_tun_key k;
	struct tep_decap d;
	enum tep_reason r;
	unsigned int pflags;
	void *data;
	uint8_t type;

	/* Which header the PMD's checksum flags speak of: on a tunnel the
	 * NIC parsed, RX_L4 is the inner one (drivers/tep_rxcsum.h). Only a
	 * PMD that verified the outer UDP checksum saves us its sum; a BAD
	 * verdict is left to our own sum to confirm. */
	tep_rxcsum_get(m->ol_flags, m->packet_type, &rv);
	pflags = tep_rxcsum_parse_flags(&rv);
	r = tep_parse_outer_seg(buf, len, m->pkt_len, pflags, &d);
	if (r != TEP_R_OK) {
		drop(w, m, r);
		return -1;
	}
	if (d.l4_proto == 17) {
		type = tep.udp_tun_type[d.dport];
		switch (type) {
		case TEP_TUN_VXLAN:
			r = tep_parse_vxlan(buf, len, &d);
			break;
		case TEP_TUN_GENEVE:
			r = tep_parse_geneve(buf, len, &d);
			break;
		case TEP_TUN_FOU:
			r = d.tun_off < len ?
			    tep_parse_fou(buf, len, (buf[d.tun_off] >> 4) == 6 ?
					  41 : 4, &d) : TEP_R_TRUNCATED;
			break;
		case TEP_TUN_GUE:
			r = tep_parse_gue(buf, len, &d);
			break;
		default:
			return 0;	/* UDP to us, not a tunnel port */
		}
	} else {
		/* No PMD verifies a GRE checksum. */
		r = tep_parse_gre(buf, len, TEP_PARSE_VERIFY_CSUM, &d);
	}
	if (r != TEP_R_OK) {
		drop(w, m, r);
		return -1;
	}
	/* A chain's outer datagram runs past the first segment: the
	 * parsers left its checksum to a walk over the segments. */
	if (unlikely(d.csum_present && !d.csum_verified &&
		     ((pflags & TEP_PARSE_VERIFY_CSUM) ||
		      d.l4_proto != 17))) {
		uint32_t sum = d.l4_proto == 17 ?
			       tep_decap_outer_phdr(buf, &d) : 0;

		if (tep_csum_mbuf(m, d.l4_off, d.l4_len, &sum) < 0 ||
		    tep_csum_fold(sum) != 0xffff) {
			drop(w, m, TEP_R_BAD_OUTER_CSUM);
			return -1;
		}
		d.csum_verified = 1;
	}
	if (d.oam) {
		drop(w, m, TEP_R_OAM);
		return -1;
	}

	memset(&k, 0, sizeof(k));
	k.type = d.type;
	k.v6 = d.outer_v6;
	k.vni = d.has_vni ? d.vni : 0;
	memcpy(k.remote, buf + d.src_off, d.outer_v6 ? 16 : 4);
	if (rte_hash_lookup_data(tep.tun_hash, &k, &data) < 0 ||
	    (t = __atomic_load_n(&tep.tunnel[(uintptr_t)data],
				 __ATOMIC_ACQUIRE)) == NULL) {
		drop(w, m, TEP_R_NO_TUNNEL);
		return -1;
	}
	if (d.has_rco) {
		/* RCO relies on the outer checksum being known good. */
		if (!tep_rxcsum_outer_verified(&rv, &d) ||
		    tep_gue_rco_apply(buf, &d) != TEP_R_OK) {
			w->cnt->tun[t->id].drop[TEP_R_BAD_RCO]++;
			drop(w, m, TEP_R_BAD_RCO);
			return -1;
		}
	}

	if (d.inner_proto == TEP_ETH_P_TEB) {
		uint16_t et;

		if (unlikely(d.inner_off + 14u > len)) {
			drop(w, m, TEP_R_HDR_SPLIT);
			return -1;
		}
		et = tep_rd16(buf + d.inner_off + 12);

		if (et != TEP_ETH_P_IPV4 && et != TEP_ETH_P_IPV6 &&
		    et != 0x0806) {
			w->cnt->tun[t->id].drop[TEP_R_NOT_ROUTABLE]++;
			drop(w, m, TEP_R_NOT_ROUTABLE);
			return -1;
		}
		/* The far end addresses us by the tunnel's overlay MAC
		 * (or broadcasts an ARP/ND query the proxy answers). */
		if (!l2_for_us(buf + d.inner_off, mac_to_u64(&t->inner_smac))) {
			w->cnt->tun[t->id].drop[TEP_R_NOT_FOR_US]++;
			drop(w, m, TEP_R_NOT_FOR_US);
			return -1;
		}
		rte_pktmbuf_adj(m, d.inner_off);
		if (et != TEP_ETH_P_IPV4 && tunnel_proxy(w, m, t, et))
			return -1;
		if (et == 0x0806) {
			w->cnt->tun[t->id].drop[TEP_R_TUNNEL_ND]++;
			drop(w, m, TEP_R_TUNNEL_ND);
			return -1;
		}
	} else {
		/* Keep 14 bytes in front of the inner IP header as its
		 * Ethernet header, so both kinds look alike from here on. */
		rte_pktmbuf_adj(m, (uint16_t)(d.inner_off - 14));
		tep_wr16(rte_pktmbuf_mtod(m, uint8_t *) + 12, d.inner_proto);
	}
	/* No Rx checksum flag of the outer packet holds for the inner one.
	 * The inner checksum is known good when the NIC checked it, or from
	 * headers alone when the outer UDP checksum was verified (a guest
	 * behind vhost-user is then spared its own check). A bad one is
	 * not dropped: end hosts check their own checksums. */
	m->ol_flags &= ~TEP_RXCSUM_FLAGS;
	if (tep_rxcsum_inner_good(&rv, &d) ||
	    (tep_rxcsum_outer_verified(&rv, &d) && inner_csum_good(buf, &d))) {
		m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_GOOD;
		w->cnt->tun[t->id].decap_inner_ok++;
	}
	w->cnt->tun[t->id].decap++;
	w->cnt->tun[t->id].decap_bytes += m->pkt_len;
	*vrf = t->vrf;
	*tun = t->id;
	return 1;
}

/* ---- forwarding --------------------------------------------------------- */

/* Decrement TTL / hop limit; false when it expired (packet punted). */
static inline bool
ttl_dec(struct worker *w, struct rte_mbuf *m, uint8_t *ip, int family)
{
	if (family == 4) {
		/* TTL is the first byte of the TTL/protocol word: in host
		 * order that is its low byte on little-endian CPUs. */
		const uint16_t ttl_one = RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN ?
					 0x0001 : 0x0100;
		uint16_t old, neu;

		if (ip[8] <= 1) {
			/* Counted as a drop; the control thread answers it. */
			w->cnt->port[tep_cnt_port_of(m)].drop[TEP_R_TTL_EXCEEDED]++;
			punt(w, m, TEP_PUNT_TTL, 4);
			return false;
		}
		/* One 16-bit load and store: a byte store followed by a
		 * word load of the same bytes stalls store forwarding. */
		memcpy(&old, ip + 8, 2);
		neu = (uint16_t)(old - ttl_one);
		memcpy(ip + 8, &neu, 2);
		tep_wr_csum(ip + 10, tep_csum_replace16(tep_rd_csum(ip + 10),
							old, neu));
		return true;
	}
	if (ip[7] <= 1) {
		w->cnt->port[tep_cnt_port_of(m)].drop[TEP_R_TTL_EXCEEDED]++;
		punt(w, m, TEP_PUNT_TTL, 6);
		return false;
	}
	ip[7]--;
	return true;
}

static void forward(struct worker *w, struct rte_mbuf *m,
		    const struct tep_nh *nh, int family);
static void encap(struct worker *w, struct rte_mbuf *m,
		  const struct tep_nh *nh, int family);

/*
 * An IPv4 packet without DF that does not fit (ip_mtu: the largest inner
 * IP datagram the egress allows) is fragmented (RFC 791) by DPDK's
 * rte_ip_frag into flat fragments, and each takes the path the packet
 * would have. A checksum still pending (a VM's) covers the whole datagram:
 * it is completed first. The fragments' own L4 state is "none", so the
 * outer checksum of an encapsulated fragment is summed whole (LCO needs
 * the whole inner datagram).
 */
static void
fragment(struct worker *w, struct rte_mbuf *m, const struct tep_nh *nh,
	 uint32_t ip_mtu)
{
	struct rte_mbuf *frags[FRAGS_MAX];
	uint16_t port = m->port, cport = tep_cnt_port_of(m);
	uint8_t eth[14], *ip;
	uint32_t ihl, tot;
	int n, i;

	if (ip_mtu < 68) {
		drop(w, m, TEP_R_TOO_BIG);
		return;
	}
	ip = rte_pktmbuf_mtod_offset(m, uint8_t *, 14);
	ihl = (ip[0] & 0xfu) * 4u;
	tot = tep_rd16(ip + 2);
	if ((m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
	    RTE_MBUF_F_RX_L4_CKSUM_NONE && !(tep_rd16(ip + 6) & 0x3fff) &&
	    ((ip[9] == 6 && tot >= ihl + 20) || (ip[9] == 17 && tot >= ihl + 8))) {
		if (likely(m->next == NULL))
			tep_l4_csum_complete(ip + ihl, tot - ihl,
					     ip[9] == 6 ? 16 : 6, ip[9] == 17);
		else if (tep_chain_l4_complete(m, 14 + ihl, tot - ihl,
					       ip[9] == 6 ? 16 : 6,
					       ip[9] == 17) != 0) {
			drop(w, m, TEP_R_HDR_SPLIT);
			return;
		}
	}
	memcpy(eth, ip - 14, 14);
	rte_pktmbuf_adj(m, 14);
	/* A chain is cut without copying its payload: each fragment is a
	 * new header segment followed by indirect segments into the
	 * original's buffers (whose references keep them alive). */
	if (likely(m->next == NULL))
		n = rte_ipv4_fragment_copy_nonseg_packet(m, frags, FRAGS_MAX,
							 (uint16_t)ip_mtu,
							 tep.pool);
	else
		n = rte_ipv4_fragment_packet(m, frags, FRAGS_MAX,
					     (uint16_t)ip_mtu, tep.pool,
					     tep.pool);
	if (n <= 0) {
		w->cnt->port[cport].drop[TEP_R_TOO_BIG]++;
		rte_pktmbuf_free(m);
		return;
	}
	rte_pktmbuf_free(m);
	w->cnt->port[cport].frag_pkts++;
	w->cnt->port[cport].frags += (uint64_t)n;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *f = frags[i];
		uint8_t *p = (uint8_t *)rte_pktmbuf_prepend(f, 14);

		if (p == NULL) {
			w->cnt->port[cport].drop[TEP_R_NO_HEADROOM]++;
			rte_pktmbuf_free(f);
			continue;
		}
		memcpy(p, eth, 14);
		ip = p + 14;
		/* rte_ip_frag leaves the header checksum to the caller */
		tep_wr16(ip + 10, 0);
		tep_wr_csum(ip + 10, tep_ipv4_hdr_csum(ip, (ip[0] & 0xfu) * 4u));
		f->port = port;
		f->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD;
		if (nh->type == TEP_NHT_TUNNEL)
			encap(w, f, nh, 4);
		else
			forward(w, f, nh, 4);
	}
}

static inline void
too_big(struct worker *w, struct rte_mbuf *m, const struct tep_nh *nh,
	const uint8_t *ip, int family, uint32_t mtu)
{
	if (family == 4 && !(tep_rd16(ip + 6) & 0x4000)) {
		fragment(w, m, nh, mtu);
		return;
	}
	w->cnt->port[tep_cnt_port_of(m)].drop[TEP_R_TOO_BIG]++;
	tep_priv(m)->mtu = (uint16_t)mtu;
	punt(w, m, TEP_PUNT_TOO_BIG, family);
}

/*
 * A packet going out as it came (no tunnel) whose TCP/UDP checksum is
 * pending (a guest left it to us) gets the Tx request drivers/ completes;
 * and one whose checksum is known good (derived at decapsulation) is
 * handed to a receiver that trusts partial checksums (a guest behind
 * vhost-user) as partial, so the guest does not sum it again: the field
 * gets the pseudo-header seed, which costs the headers only.
 */
static void
flat_csum_meta(struct worker *w, struct rte_mbuf *m, uint8_t *ip,
	       int family, const struct tep_port *op)
{
	uint64_t l4f = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	uint32_t l3_len, l4_len;
	uint8_t proto, *l4;
	uint16_t seed;

	if (l4f != RTE_MBUF_F_RX_L4_CKSUM_NONE &&
	    !(l4f == RTE_MBUF_F_RX_L4_CKSUM_GOOD && op->txcaps.partial_rx))
		return;
	if (family == 4) {
		l3_len = (ip[0] & 0xfu) * 4u;
		proto = ip[9];
		l4_len = tep_rd16(ip + 2) - l3_len;
		if (tep_rd16(ip + 6) & 0x3fff)	/* fragment */
			return;
	} else {
		l3_len = 40;
		proto = ip[6];
		l4_len = tep_rd16(ip + 4);
	}
	if ((proto != 6 && proto != 17) ||
	    l4_len < (proto == 6 ? 20u : 8u) ||
	    14 + l3_len + 20 > m->data_len)
		return;
	l4 = ip + l3_len;
	if (l4f == RTE_MBUF_F_RX_L4_CKSUM_GOOD) {
		if (proto == 17 && family == 4 && tep_rd16(l4 + 6) == 0)
			return;		/* no checksum to hand on */
		seed = tep_csum_fold(family == 4 ?
			tep_ipv4_phdr_sum(ip + 12, ip + 16, proto,
					  (uint16_t)l4_len) :
			tep_ipv6_phdr_sum(ip + 8, ip + 24, proto, l4_len));
		memcpy(l4 + (proto == 6 ? 16 : 6), &seed, 2);
		w->cnt->port[op->id].tx_csum_partial++;
	}
	m->l2_len = 14;
	m->l3_len = l3_len;
	m->l4_len = proto == 6 ? 20 : 8;
	m->ol_flags = (family == 4 ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6) |
		      (proto == 6 ? RTE_MBUF_F_TX_TCP_CKSUM :
				    RTE_MBUF_F_TX_UDP_CKSUM);
	/* net_vhost's software fallback picks UDP 0 -> 0xffff by ptype */
	m->packet_type = (family == 4 ? RTE_PTYPE_L3_IPV4 : RTE_PTYPE_L3_IPV6) |
			 (proto == 6 ? RTE_PTYPE_L4_TCP : RTE_PTYPE_L4_UDP);
}

static void
forward(struct worker *w, struct rte_mbuf *m, const struct tep_nh *nh,
	int family)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *ip = eth + 14;
	const struct tep_port *op = &tep.port[nh->port];
	const uint8_t *gw;
	uint64_t mac;

	if (!op->up || op->role == TEP_ROLE_NONE) {
		drop(w, m, TEP_R_PORT_DOWN);
		return;
	}
	if (m->pkt_len - 14 > op->mtu) {
		too_big(w, m, nh, ip, family, op->mtu);
		return;
	}
	if (!ttl_dec(w, m, ip, family))
		return;
	/* Before the neighbour lookup: a packet held while its next hop
	 * resolves leaves later, from the control thread, with what it
	 * carries now (a pending checksum must stay a Tx request). */
	if (unlikely(m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK))
		flat_csum_meta(w, m, ip, family, op);
	gw = nh->type == TEP_NHT_GW ? nh->gw :
	     family == 4 ? ip + 16 : ip + 24;
	/* A gateway may be of the other family (IPv4 via IPv6, RFC 5549). */
	mac = tep_neigh_mac(nh->port, nh->type == TEP_NHT_GW ?
			    (nh->gw_v6 ? 6 : 4) : family, gw);
	if (mac == 0) {
		struct tep_mbuf_priv *pv = tep_priv(m);

		pv->tx_port = nh->port;
		pv->tunnel = TEP_NO_TUNNEL;
		pv->family_nh = (uint8_t)(nh->type == TEP_NHT_GW ?
					  (nh->gw_v6 ? 6 : 4) : family);
		/* The gateway's family, not the packet's (RFC 5549). */
		memcpy(pv->nh_ip, gw, pv->family_nh == 4 ? 4 : 16);
		punt(w, m, TEP_PUNT_RESOLVE, family);
		return;
	}
	set_macs(eth, mac, &op->mac);
	w->cnt->vrf[w->vrf].routed++;
	tx_enqueue(w, nh->port, m);
}

/* Where a tunnel's packets leave: the underlay route and neighbour of its
 * remote, cached per worker until the control plane bumps the generation. */
static const struct tun_egress *
tunnel_egress(struct worker *w, const struct tep_tunnel *t,
	      struct rte_mbuf *m)
{
	struct tun_egress *e = &w->egress[t->id];
	uint32_t gen = __atomic_load_n(&tep.underlay_gen, __ATOMIC_ACQUIRE);
	const struct tep_vrf *v;
	const struct tep_nh *nh;
	const uint8_t *gw;
	uint64_t idx = TEP_NH_NONE;

	if (e->gen == gen && e->dmac != 0)
		return e;
	v = __atomic_load_n(&tep.rib.vrf[TEP_VRF_DEFAULT], __ATOMIC_ACQUIRE);
	if (!t->p.outer_v6) {
		uint32_t ip = tep_rd32(t->p.dst);

		rte_fib_lookup_bulk(v->fib4, &ip, &idx, 1);
	} else {
		uint8_t ip6[1][16];

		memcpy(ip6[0], t->p.dst, 16);
		rte_fib6_lookup_bulk(__atomic_load_n(&v->fib6, __ATOMIC_ACQUIRE),
				     ip6, &idx, 1);
	}
	nh = &tep.rib.nh[idx];
	if (idx == TEP_NH_NONE ||
	    (nh->type != TEP_NHT_GW && nh->type != TEP_NHT_CONNECTED)) {
		w->cnt->tun[t->id].drop[TEP_R_NO_ROUTE]++;
		drop(w, m, TEP_R_NO_ROUTE);
		return NULL;
	}
	if (!tep.port[nh->port].up || tep.port[nh->port].role == TEP_ROLE_NONE) {
		/* Not cached: checked again until the port comes back. */
		e->dmac = 0;
		w->cnt->tun[t->id].drop[TEP_R_PORT_DOWN]++;
		drop(w, m, TEP_R_PORT_DOWN);
		return NULL;
	}
	gw = nh->type == TEP_NHT_GW ? nh->gw : t->p.dst;
	e->port = nh->port;
	e->dmac = tep_neigh_mac(nh->port, t->p.outer_v6 ? 6 : 4, gw);
	e->gen = gen;
	if (e->dmac == 0) {
		struct tep_mbuf_priv *pv = tep_priv(m);

		/* Resolve; the packet itself is dropped (counted): the
		 * control thread cannot encapsulate it later. */
		w->cnt->tun[t->id].drop[TEP_R_NO_NEIGH]++;
		pv->tx_port = nh->port;
		pv->tunnel = t->id;
		pv->family_nh = t->p.outer_v6 ? 6 : 4;
		memcpy(pv->nh_ip, gw, t->p.outer_v6 ? 16 : 4);
		punt(w, m, TEP_PUNT_RESOLVE, t->p.outer_v6 ? 6 : 4);
		return NULL;
	}
	return e;
}

/* Tunnel offload metadata for a pending inner checksum (drivers/ adapts
 * or completes it at TX). */
static inline void
set_tunnel_txmeta(struct rte_mbuf *m, const struct tep_tunnel *t,
		  const struct tep_flow *f, int family)
{
	static const uint64_t tun_flag[TEP_TUN_MAX] = {
		[TEP_TUN_VXLAN] = RTE_MBUF_F_TX_TUNNEL_VXLAN,
		[TEP_TUN_GENEVE] = RTE_MBUF_F_TX_TUNNEL_GENEVE,
		[TEP_TUN_FOU] = RTE_MBUF_F_TX_TUNNEL_UDP,
		[TEP_TUN_GUE] = RTE_MBUF_F_TX_TUNNEL_UDP,
		[TEP_TUN_GRE] = RTE_MBUF_F_TX_TUNNEL_GRE,
	};
	const struct tep_encap_tmpl *tm = &t->tmpl;

	m->outer_l2_len = tm->l2_len;
	m->outer_l3_len = tm->l3_len;
	m->l2_len = (uint64_t)(tm->len - tm->l4_off) + f->l3_off;
	m->l3_len = f->l3_len;
	m->l4_len = f->l4.kind == TEP_L4_TCP ? 20 : 8;
	m->ol_flags = (t->p.outer_v6 ? RTE_MBUF_F_TX_OUTER_IPV6 :
				       RTE_MBUF_F_TX_OUTER_IPV4) |
		      (family == 4 ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6) |
		      (f->l4.kind == TEP_L4_TCP ? RTE_MBUF_F_TX_TCP_CKSUM :
						  RTE_MBUF_F_TX_UDP_CKSUM) |
		      tun_flag[t->tmpl.type];
}

/*
 * Put tunnel t's headers in front of m (pk describes the inner packet),
 * addressed to the tunnel's underlay next hop e, and count it. False when
 * m was dropped; on success m has no offload request yet.
 */
static bool
tunnel_push(struct worker *w, struct rte_mbuf *m, const struct tep_tunnel *t,
	    const struct tun_egress *e, const struct tep_encap_pkt *pk)
{
	uint8_t *outer = (uint8_t *)rte_pktmbuf_prepend(m, t->tmpl.len);
	int ret;

	if (outer == NULL) {
		w->cnt->tun[t->id].drop[TEP_R_NO_HEADROOM]++;
		drop(w, m, TEP_R_NO_HEADROOM);
		return false;
	}
	ret = tep_encap_write(&t->tmpl, outer, pk);
	if (ret < 0) {
		w->cnt->tun[t->id].drop[TEP_R_ENCAP_FAILED]++;
		drop(w, m, TEP_R_ENCAP_FAILED);
		return false;
	}
	set_macs(outer, e->dmac, &tep.port[e->port].mac);
	m->ol_flags = 0;
	w->cnt->tun[t->id].encap++;
	w->cnt->tun[t->id].encap_bytes += m->pkt_len;
	w->cnt->tun[t->id].ocsum[ret]++;
	return true;
}

/*
 * Will tep_encap_write() sum the whole inner packet? Its rule: a full sum
 * unless LCO applies (csum lco and a ones-complement inner checksum not
 * handed over by GUE RCO); none for csum off/offload or GRE without one.
 * Erring towards true costs a sum, towards false a wrong checksum: when in
 * doubt, true.
 */
static inline bool
encap_sums_all(const struct tep_tunnel *t, const struct tep_flow *f)
{
	bool ones = f->l4.kind == TEP_L4_TCP || f->l4.kind == TEP_L4_UDP ||
		    f->l4.kind == TEP_L4_ICMP || f->l4.kind == TEP_L4_ICMP6;

	if (t->tmpl.csum == TEP_CSUM_OFF || t->tmpl.csum == TEP_CSUM_OFFLOAD)
		return false;
	if (t->tmpl.type == TEP_TUN_GRE && !t->tmpl.gre_csum)
		return false;
	return t->tmpl.csum != TEP_CSUM_LCO || !ones || t->tmpl.gue_rco;
}

static void
encap(struct worker *w, struct rte_mbuf *m, const struct tep_nh *nh,
      int family)
{
	const struct tep_tunnel *t =
		__atomic_load_n(&tep.tunnel[nh->tunnel], __ATOMIC_ACQUIRE);
	const struct tun_egress *e;
	const struct tep_port *op;
	struct tep_encap_pkt pk;
	struct tep_flow f;
	uint8_t *eth, *inner;
	uint32_t inner_len;
	bool pending;

	if (t == NULL) {
		drop(w, m, TEP_R_NO_TUNNEL);
		return;
	}
	eth = rte_pktmbuf_mtod(m, uint8_t *);
	e = tunnel_egress(w, t, m);
	if (e == NULL)
		return;
	op = &tep.port[e->port];
	inner_len = m->pkt_len - (t->tmpl.inner_eth ? 0 : 14);
	if (inner_len + t->tmpl.len - t->tmpl.l2_len > op->mtu) {
		w->cnt->tun[t->id].drop[TEP_R_TOO_BIG]++;
		too_big(w, m, nh, eth + 14, family,
			op->mtu - (t->tmpl.len - t->tmpl.l2_len) -
			(t->tmpl.inner_eth ? 14 : 0));
		return;
	}
	if (!ttl_dec(w, m, eth + 14, family))
		return;

	if (t->tmpl.inner_eth) {
		set_macs(eth, mac_to_u64(&t->inner_dmac), &t->inner_smac);
		inner = eth;
	} else {
		inner = (uint8_t *)rte_pktmbuf_adj(m, 14);
	}
	/* Validated by classify(); this only locates L4 and hashes. A
	 * chain's headers are in its first segment (rx pulled them up). */
	if (unlikely(tep_flow_parse_seg(inner, m->data_len, m->pkt_len,
					t->tmpl.inner_eth, &f) != TEP_R_OK)) {
		w->cnt->tun[t->id].drop[TEP_R_HDR_SPLIT]++;
		drop(w, m, TEP_R_HDR_SPLIT);
		return;
	}
	pending = (m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
		  RTE_MBUF_F_RX_L4_CKSUM_NONE &&
		  (f.l4.kind == TEP_L4_TCP || f.l4.kind == TEP_L4_UDP);
	/* A full outer sum covers the inner checksum, so that one must be
	 * final first; LCO, GUE RCO and the NIC all work from the seed. */
	if (unlikely(pending && t->tmpl.csum == TEP_CSUM_FULL &&
		     !t->tmpl.gue_rco)) {
		uint32_t end = f.l4.l4_end != 0 ? f.l4.l4_end : inner_len;

		if (likely(m->next == NULL))
			tep_l4_csum_complete(inner + f.l4.csum_start,
					     end - f.l4.csum_start,
					     f.l4.csum_offset,
					     f.l4.kind == TEP_L4_UDP);
		else if (tep_chain_l4_complete(m, f.l4.csum_start,
					       end - f.l4.csum_start,
					       f.l4.csum_offset,
					       f.l4.kind == TEP_L4_UDP) != 0) {
			w->cnt->tun[t->id].drop[TEP_R_HDR_SPLIT]++;
			drop(w, m, TEP_R_HDR_SPLIT);
			return;
		}
		w->cnt->port[e->port].sw_csum++;
		pending = false;
	}

	pk.inner_len = (uint16_t)inner_len;
	if (unlikely(m->next != NULL)) {
		/* A chain: what a full outer sum would need of the rest.
		 * LCO reads none of it; this is summed only when the sum
		 * will be full (csum full, or an inner L4 LCO cannot use). */
		pk.inner_contig = m->data_len;
		pk.inner_tail_sum = 0;
		if (encap_sums_all(t, &f) &&
		    tep_csum_mbuf(m, m->data_len, m->pkt_len - m->data_len,
				  &pk.inner_tail_sum) < 0) {
			drop(w, m, TEP_R_TRUNCATED);
			return;
		}
	} else {
		pk.inner_contig = 0;
		pk.inner_tail_sum = 0;
	}
	pk.sport = tep_udp_sport(f.hash, t->tmpl.sport_lo, t->tmpl.sport_hi);
	pk.ip_id = w->ip_id++;
	pk.inner_tos = f.tos;
	pk.flow_label = f.hash & 0xfffff;
	pk.l4 = f.l4;
	pk.l4.state = pending ? TEP_L4_PENDING : TEP_L4_COMPLETE;
	/* classify() verified the inner IPv4 header checksum (or the NIC
	 * did) and ttl_dec() kept it valid: LCO may leave the header out. */
	pk.l4.ip4_hdr_ok = family == 4;
	if (!tunnel_push(w, m, t, e, &pk))
		return;
	if (pending && !t->tmpl.gue_rco)
		set_tunnel_txmeta(m, t, &f, family);
	w->cnt->vrf[w->vrf].routed++;
	tx_enqueue(w, e->port, m);
}

/*
 * Send an Ethernet frame tepd made itself (len bytes at m) into tunnel t:
 * the proxy ARP/ND answers. No inner checksum to keep: the outer one is
 * summed whole, over a few dozen bytes.
 */
static void
tunnel_answer(struct worker *w, struct rte_mbuf *m, const struct tep_tunnel *t,
	      uint32_t len)
{
	const struct tun_egress *e;
	struct tep_encap_pkt pk;

	if (m->pkt_len > len)
		rte_pktmbuf_trim(m, m->pkt_len - len);
	else if (m->pkt_len < len)
		rte_pktmbuf_append(m, len - m->pkt_len);	/* room checked */
	e = tunnel_egress(w, t, m);
	if (e == NULL)
		return;
	memset(&pk, 0, sizeof(pk));
	pk.inner_len = (uint16_t)len;
	pk.sport = t->tmpl.sport_lo;
	pk.ip_id = w->ip_id++;
	pk.l4.kind = TEP_L4_NONE;
	if (tunnel_push(w, m, t, e, &pk))
		tx_enqueue(w, e->port, m);
}

/* ---- lookup and dispatch ------------------------------------------------ */

/*
 * A guest's TCP super-packet (vhost-user GSO request): cut it into segments
 * of the guest's MSS, each with its checksum pending, and send them on as
 * if the guest had sent them one by one. tepd segments in software: no PMD
 * here has tunnel TSO (docs/vm-ports.md).
 */
static void
gso_dispatch(struct worker *w, struct rte_mbuf *m, const struct tep_nh *nh,
	     int family)
{
	struct rte_mbuf *segs[TEP_GSO_SEGS_MAX];
	enum tep_reason why;
	int n, i;

	n = tep_gso_segment(tep.pool, m, segs, TEP_GSO_SEGS_MAX, &why);
	if (n < 0) {
		drop(w, m, why);
		return;
	}
	w->cnt->port[tep_cnt_port_of(m)].gso_pkts++;
	w->cnt->port[tep_cnt_port_of(m)].gso_segs += (uint64_t)n;
	rte_pktmbuf_free(m);
	for (i = 0; i < n; i++) {
		if (nh->type == TEP_NHT_TUNNEL)
			encap(w, segs[i], nh, family);
		else
			forward(w, segs[i], nh, family);
	}
}

/*
 * The VRF's addresses belong to the tasks in the VRF (vrfhost.c): a packet
 * for one of them goes to the VRF's host port, as if to a host on a
 * connected link, unless it came from there.
 */
static bool
host_deliver(struct worker *w, struct rte_mbuf *m, int family)
{
	uint16_t hp = __atomic_load_n(&tep.vrf_host_port[w->vrf],
				      __ATOMIC_ACQUIRE);
	struct tep_nh nh = { .type = TEP_NHT_CONNECTED };

	if (likely(hp == TEP_NO_PORT) || hp == m->port)
		return false;
	nh.port = hp;
	forward(w, m, &nh, family);
	return true;
}

static void
dispatch(struct worker *w, struct rte_mbuf *m, uint64_t idx, int family,
	 bool decapsulated, struct rte_mbuf **again, uint16_t *again_vrf,
	 uint32_t *again_tun, uint16_t *nagain)
{
	const struct tep_nh *nh = &tep.rib.nh[idx];
	int ret;

	if (idx == TEP_NH_NONE) {
		drop(w, m, TEP_R_NO_ROUTE);
		return;
	}
	if (unlikely(m->ol_flags & RTE_MBUF_F_RX_LRO) &&
	    (nh->type == TEP_NHT_GW || nh->type == TEP_NHT_CONNECTED ||
	     nh->type == TEP_NHT_TUNNEL)) {
		gso_dispatch(w, m, nh, family);
		return;
	}
	switch (nh->type) {
	case TEP_NHT_GW:
	case TEP_NHT_CONNECTED:
		forward(w, m, nh, family);
		return;
	case TEP_NHT_TUNNEL:
		encap(w, m, nh, family);
		return;
	case TEP_NHT_BLACKHOLE:
		drop(w, m, TEP_R_BLACKHOLE);
		return;
	case TEP_NHT_LOCAL:
		if (!decapsulated &&
		    tep.port[m->port].role == TEP_ROLE_UNDERLAY) {
			ret = decap(w, m, &again_vrf[*nagain],
				    &again_tun[*nagain]);
			if (ret > 0) {
				again[(*nagain)++] = m;
				return;
			}
			if (ret < 0)
				return;
		}
		if (host_deliver(w, m, family))
			return;
		punt(w, m, TEP_PUNT_LOCAL, family);
		return;
	default:
		drop(w, m, TEP_R_NO_ROUTE);
	}
}

/*
 * Look a burst up: one bulk call per (VRF, family) group, gathered in
 * arrival order. A burst from one port is one VRF and almost always one
 * family, so this is nearly always a single call. vrfs[i] and fams[i]
 * describe pkts[i].
 */
static void
route(struct worker *w, struct rte_mbuf **pkts, const uint16_t *vrfs,
      const uint8_t *fams, const uint32_t *tuns, uint16_t n,
      bool decapsulated)
{
	struct rte_mbuf *grp[TEP_BURST], *again[TEP_BURST];
	uint32_t grp_tun[TEP_BURST], again_tun[TEP_BURST];
	uint16_t again_vrf[TEP_BURST], ng, nagain = 0, left = n, i;
	uint8_t again_fam[TEP_BURST];
	uint32_t keys4[TEP_BURST];
	uint8_t keys6[TEP_BURST][16];
	uint64_t nhs[TEP_BURST];
	bool done[TEP_BURST] = { false };
	uint64_t t0 = tep.stats_cycles ? rte_rdtsc() : 0;

	while (left > 0) {
		const struct tep_vrf *v;
		uint16_t vrf = 0;
		int family = 0;

		ng = 0;
		for (i = 0; i < n; i++) {
			const uint8_t *ip;

			if (done[i])
				continue;
			if (ng == 0) {
				vrf = vrfs[i];
				family = fams[i];
			} else if (vrfs[i] != vrf || fams[i] != family) {
				continue;
			}
			ip = rte_pktmbuf_mtod_offset(pkts[i], const uint8_t *,
						     14);
			if (family == 4)
				keys4[ng] = tep_rd32(ip + 16);
			else
				memcpy(keys6[ng], ip + 24, 16);
			grp_tun[ng] = tuns != NULL ? tuns[i] : TEP_NO_TUNNEL;
			grp[ng++] = pkts[i];
			done[i] = true;
		}
		left = (uint16_t)(left - ng);
		w->vrf = vrf;
		v = __atomic_load_n(&tep.rib.vrf[vrf], __ATOMIC_ACQUIRE);
		if (v == NULL) {
			for (i = 0; i < ng; i++)
				drop(w, grp[i], TEP_R_NO_ROUTE);
			continue;
		}
		if (family == 4)
			rte_fib_lookup_bulk(v->fib4, keys4, nhs, ng);
		else
			rte_fib6_lookup_bulk(__atomic_load_n(&v->fib6,
					      __ATOMIC_ACQUIRE), keys6, nhs, ng);
		if (tep.stats_cycles) {
			uint64_t t1 = rte_rdtsc();

			w->cnt->stage_cycles[TEP_ST_LOOKUP] += t1 - t0;
			w->cnt->stage_pkts[TEP_ST_LOOKUP] += ng;
			t0 = t1;
		}
		for (i = 0; i < ng; i++) {
			w->src_tunnel = grp_tun[i];
			dispatch(w, grp[i], nhs[i], family, decapsulated,
				 again, again_vrf, again_tun, &nagain);
		}
		w->src_tunnel = TEP_NO_TUNNEL;
		if (tep.stats_cycles) {
			uint64_t t1 = rte_rdtsc();

			w->cnt->stage_cycles[TEP_ST_ENCAP] += t1 - t0;
			w->cnt->stage_pkts[TEP_ST_ENCAP] += ng;
			t0 = t1;
		}
	}

	if (nagain > 0) {
		uint16_t k = 0;

		/* Decapsulated: classify the inner packet, route it in its
		 * tunnel's VRF (and never decapsulate it again). */
		for (i = 0; i < nagain; i++) {
			int fam;

			w->vrf = again_vrf[i];
			fam = classify(w, again[i], true);
			if (fam != 0) {
				again_vrf[k] = again_vrf[i];
				again_tun[k] = again_tun[i];
				again_fam[k] = (uint8_t)fam;
				again[k++] = again[i];
			}
		}
		if (k > 0)
			route(w, again, again_vrf, again_fam, again_tun, k,
			      true);
	}
}

static uint16_t
rx_port(struct worker *w, uint16_t port)
{
	struct rte_mbuf *pkts[TEP_BURST];
	const struct tep_port *p = &tep.port[port];
	uint16_t n, i, k = 0, vrfs[TEP_BURST];
	uint8_t fams[TEP_BURST];
	uint64_t t0;

	n = rte_eth_rx_burst(port, (uint16_t)w->idx, pkts, TEP_BURST);
	if (n == 0)
		return 0;
	t0 = tep.stats_cycles ? rte_rdtsc() : 0;
	w->cnt->bursts++;
	w->cnt->burst_hist[tep_burst_bucket(n)]++;
	w->cnt->port[port].rx += n;
	w->vrf = p->vrf;
	for (i = 0; i < n && i < RX_PREFETCH; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		int fam;

		/* Headers of a packet a few ahead: from a NIC they come
		 * straight from DMA, not from cache. */
		if (i + RX_PREFETCH < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + RX_PREFETCH],
						       void *));

		w->cnt->port[port].rx_bytes += m->pkt_len;
		w->cnt->port[port].rx_csum_pending +=
			(m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
			RTE_MBUF_F_RX_L4_CKSUM_NONE;
		if (!p->up || p->role == TEP_ROLE_NONE) {
			drop(w, m, TEP_R_PORT_DOWN);
			continue;
		}
		if (unlikely(m->data_len < 14 ||
			     !l2_for_us(rte_pktmbuf_mtod(m, uint8_t *),
					p->mac64))) {
			drop(w, m, m->data_len < 14 ? TEP_R_TRUNCATED :
				   TEP_R_NOT_FOR_US);
			continue;
		}
		/* Every stage reads headers in the first segment only: a
		 * chain (jumbo frame, scattered RX) must have them there. */
		if (unlikely(m->next != NULL) &&
		    tep_chain_pullup(m, TEP_CHAIN_HDR_ROOM) != 0) {
			drop(w, m, TEP_R_HDR_SPLIT);
			continue;
		}
		fam = classify(w, m, false);
		if (fam != 0) {
			vrfs[k] = w->vrf;
			fams[k] = (uint8_t)fam;
			pkts[k++] = m;
		}
	}
	if (tep.stats_cycles) {
		w->cnt->stage_cycles[TEP_ST_CLASSIFY] += rte_rdtsc() - t0;
		w->cnt->stage_pkts[TEP_ST_CLASSIFY] += n;
	}
	if (k > 0)
		route(w, pkts, vrfs, fams, NULL, k, false);
	return n;
}

/* A frame the control thread made for a sender behind a tunnel (an ICMP
 * error): into the tunnel, as an Ethernet frame or as the IP packet. */
static void
ctl_into_tunnel(struct worker *w, struct rte_mbuf *m, uint32_t id)
{
	const struct tep_tunnel *t = id < TEP_TUNNELS_MAX ?
		__atomic_load_n(&tep.tunnel[id], __ATOMIC_ACQUIRE) : NULL;

	if (t == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	if (!t->tmpl.inner_eth)
		rte_pktmbuf_adj(m, 14);
	tunnel_answer(w, m, t, m->pkt_len);
}

/* Frames the control thread built (ARP, ND, ICMP, released held packets):
 * only workers own TX queues, so worker 0 sends them. */
static void
ctl_tx_drain(struct worker *w)
{
	struct rte_mbuf *m[TEP_BURST];
	unsigned int n, i;

	n = rte_ring_sc_dequeue_burst(tep.ctl_tx, (void **)m, TEP_BURST, NULL);
	for (i = 0; i < n; i++) {
		const struct tep_mbuf_priv *pv = tep_priv(m[i]);

		if (pv->tx_port == TEP_NO_PORT)
			ctl_into_tunnel(w, m[i], pv->tunnel);
		else
			tx_enqueue(w, pv->tx_port, m[i]);
	}
}

int
tep_worker_main(void *arg)
{
	struct worker *w;
	unsigned int idx = (unsigned int)(uintptr_t)arg;
	uint16_t port;

	w = rte_zmalloc_socket("tep_worker", sizeof(*w), RTE_CACHE_LINE_SIZE,
			       (int)rte_socket_id());
	if (w == NULL)
		return -1;
	w->idx = idx;
	w->cnt = tep.cnt[rte_lcore_id()];
	w->ip_id = (uint16_t)(rte_rdtsc() ^ (idx << 12));
	w->src_tunnel = TEP_NO_TUNNEL;
	/* Each worker polices its share of the punt rate. */
	w->punt_interval = rte_get_tsc_hz() * tep.nb_workers / TEP_PUNT_RATE;
	w->punt_burst_tsc = w->punt_interval *
			    RTE_MAX(TEP_PUNT_BURST / tep.nb_workers, 1u) -
			    w->punt_interval;
	w->throttle_period = rte_get_tsc_hz() / 1000;
	rte_rcu_qsbr_thread_register(tep.rcu, idx);
	rte_rcu_qsbr_thread_online(tep.rcu, idx);

	while (!__atomic_load_n(&tep.quit, __ATOMIC_RELAXED)) {
		/* Ports may be added at run time: the control thread fills
		 * tep.port[n] and then publishes nb_ports (release). */
		uint16_t nb_ports = __atomic_load_n(&tep.nb_ports,
						    __ATOMIC_ACQUIRE);
		unsigned int got = 0;

		for (port = 0; port < nb_ports; port++)
			if (__atomic_load_n(&tep.port[port].polling,
					    __ATOMIC_ACQUIRE) &&
			    w->idx < tep.port[port].nb_rxq)
				got += rx_port(w, port);
		/* Busy vs idle polls: how loaded the worker is (it polls
		 * at 100 % CPU either way). */
		if (got != 0)
			w->cnt->polls_busy++;
		else
			w->cnt->polls_idle++;
		if (idx == 0)
			ctl_tx_drain(w);
		for (port = 0; port < nb_ports; port++)
			tx_flush(w, port);
		/* Nothing loaded from shared state survives this point. */
		rte_rcu_qsbr_quiescent(tep.rcu, idx);
	}
	rte_rcu_qsbr_thread_offline(tep.rcu, idx);
	rte_rcu_qsbr_thread_unregister(tep.rcu, idx);
	rte_free(w);
	return 0;
}
