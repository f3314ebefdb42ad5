/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * The datapath: what a worker lcore does to a burst, one stage a file, in
 * packet order:
 *
 *   rx.c       dp_rx_port()   RX burst, L2 filter, chain pull-up,
 *   classify.h classify()     IP header checks, ARP/ND punt, VRF + family
 *              (dp_classify() in classify.c for decapsulated packets)
 *   lookup.c   dp_route()     one rte_fib*_lookup_bulk per (VRF, family)
 *                             group, then each packet to its next hop:
 *   decap.c    dp_decap()       for us from the underlay: tunnel stripped,
 *                               back to lookup in the tunnel's VRF
 *   encap.c    dp_encap()       into a tunnel (outer checksum by LCO)
 *   forward.c  dp_forward()     out of a local port to a neighbour
 *   fragment.c dp_too_big()     fragment, or "too big" to the control thread
 *   gso.c      dp_gso_dispatch() a guest's TCP super-packet into segments
 *   punt.c     dp_punt()        to the control thread, policed
 *   tx.c       dp_tx_flush()  drivers/ tx-prepare, PMD prepare, TX burst
 *   worker.c   tep_worker_main(): the poll loop
 *
 * Nothing here allocates, locks or writes shared state other than this
 * lcore's counters; control-plane work is punted on a ring.
 */

#ifndef TEPD_DATAPATH_H
#define TEPD_DATAPATH_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

#include "tep_bytes.h"
#include "tep_csum.h"
#include "tepd.h"
#include "port.h"
#include "punt.h"
#include "stats.h"
#include "tunnel.h"

struct txbuf {
	uint16_t n;
	uint64_t ol_flags;	/* OR of the queued packets' flags: a burst
				 * that asks nothing of drivers/ skips it */
	struct rte_mbuf *m[TEP_BURST * 2];
};

/* Per worker, cached egress of each tunnel's remote on the underlay. */
struct tun_egress {
	uint32_t gen;
	uint16_t port;
	/* The underlay route is multipath: its group's next hop, each
	 * packet taking the member its flow hash picks (the port and dmac
	 * above are then unused); 0 otherwise. */
	uint16_t nhg;
	uint64_t dmac;
};

#define THROTTLE_WORDS	64	/* 4096 bits */
#define TUN_CACHE_BITS	8
#define TUN_CACHE_SIZE	(1u << TUN_CACHE_BITS)

struct worker {
	unsigned int idx;		/* queue index and RCU thread id */
	uint16_t rx_burst;		/* TEP_BURST, or less (TEPD_RX_BURST) */
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
	/* The tunnels decap found lately, direct-mapped by (VNI, remote):
	 * a key compare instead of a hash lookup per packet, for one remote
	 * VTEP or many. An entry is valid while tep.underlay_gen is
	 * unchanged (tunnel changes bump it), and its tunnel is also
	 * checked to be the same object. */
	struct tun_cache_ent {
		struct tep_tun_key key;
		uint32_t gen, id;
		const struct tep_tunnel *t;
	} *tun_cache;			/* TUN_CACHE_SIZE entries */
};

/*
 * What classification learnt of each packet of a burst, read by the later
 * stages instead of the headers (parse once). A struct of arrays: a stage
 * reads the columns it needs, pkts[i] is described by index i.
 */
struct dp_meta {
	uint16_t vrf[TEP_BURST];
	uint32_t tun[TEP_BURST];		/* the tunnel it came out of,
						 * or TEP_NO_TUNNEL */
	struct tep_l3_info l3[TEP_BURST];	/* its IP header, and family */
};

void dp_punt(struct worker *w, struct rte_mbuf *m, enum tep_punt why,
	     int family);
void dp_tx_flush(struct worker *w, uint16_t port);

/*
 * Per-packet state lives in locals and w->vrf, not in the mbuf's private
 * area: that is a cache line the PMD never touched, and reading or writing
 * it for every packet cost a quarter of the worker's time. Only punted
 * packets carry state in it, for the control thread.
 */
static inline void
dp_drop(struct worker *w, struct rte_mbuf *m, enum tep_reason r)
{
	w->cnt->port[tep_cnt_port_of(m)].drop[r]++;
	w->cnt->vrf[w->vrf].drop[r]++;
	rte_pktmbuf_free(m);
}

/* n packets of RX port cport sent on (forwarded or encapsulated): a
 * decapsulated packet's fate is decap, whatever took it on. */
static inline void
dp_fate_sent(struct worker *w, uint16_t cport, uint64_t n, bool encap)
{
	struct tep_cnt_port *c = &w->cnt->port[cport];

	if (w->src_tunnel != TEP_NO_TUNNEL)
		c->decap += n;
	else if (encap)
		c->encap += n;
	else
		c->fwd += n;
}

static inline void
dp_tx_enqueue(struct worker *w, uint16_t port, struct rte_mbuf *m)
{
	struct txbuf *b = &w->tx[port];

	b->m[b->n++] = m;
	b->ol_flags |= m->ol_flags;
	/* A burst of guest super-packets becomes hundreds of segments. */
	if (unlikely(b->n == RTE_DIM(b->m)))
		dp_tx_flush(w, port);
}

/*
 * n packets for one port at once, ol_or the OR of their ol_flags: a stage
 * that knows its run goes out one port stages it locally and queues it
 * here, so the queue's count and flags are not a load and a store per
 * packet that the next packet's enqueue must wait for.
 */
static inline void
dp_tx_enqueue_run(struct worker *w, uint16_t port, struct rte_mbuf **m,
		  uint16_t n, uint64_t ol_or)
{
	struct txbuf *b = &w->tx[port];

	while (n > 0) {
		uint16_t room = (uint16_t)(RTE_DIM(b->m) - b->n);
		uint16_t k = RTE_MIN(n, room);

		memcpy(&b->m[b->n], m, k * sizeof(*m));
		b->n = (uint16_t)(b->n + k);
		b->ol_flags |= ol_or;
		if (b->n == RTE_DIM(b->m))
			dp_tx_flush(w, port);
		m += k;
		n = (uint16_t)(n - k);
	}
}

/*
 * Six bytes of a MAC address as the control plane stores them (copied into
 * a zeroed uint64_t), read with two loads into registers: copying into a
 * zeroed variable on the stack and reading it back as 8 bytes cannot be
 * forwarded from the stores and stalled every packet.
 */
static inline uint64_t
mac_load(const uint8_t *p)
{
	uint32_t lo;
	uint16_t hi;

	memcpy(&lo, p, 4);
	memcpy(&hi, p + 4, 2);
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return lo | (uint64_t)hi << 32;
#else
	return (uint64_t)lo << 32 | (uint64_t)hi << 16;
#endif
}

/* Are two IPv4 (family 4) or IPv6 addresses equal? Fixed-size loads: a
 * memcmp() of a length known only at run time is a library call. */
static inline bool
ip_eq(const uint8_t *a, const uint8_t *b, int family)
{
	uint64_t a0, a1, b0, b1;

	if (family == 4)
		return tep_rd32(a) == tep_rd32(b);
	memcpy(&a0, a, 8);
	memcpy(&a1, a + 8, 8);
	memcpy(&b0, b, 8);
	memcpy(&b1, b + 8, 8);
	return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

static inline uint64_t
mac_to_u64(const struct rte_ether_addr *a)
{
	return mac_load(a->addr_bytes);
}

static inline void
set_macs(uint8_t *eth, uint64_t dst, const struct rte_ether_addr *src)
{
	memcpy(eth, &dst, 6);
	memcpy(eth + 6, src->addr_bytes, 6);
}

/*
 * Is an Ethernet frame for us: our MAC (own, as mac_to_u64() packs it),
 * broadcast, or an IPv6 group tepd uses (all-nodes 33:33:00:00:00:01,
 * solicited-node 33:33:ff:xx:xx:xx; ND checks the target itself)?
 */
static inline bool
l2_for_us(const uint8_t *eth, uint64_t own)
{
	uint64_t dst = mac_load(eth);

	if (likely(dst == own))
		return true;
	if (!(eth[0] & 1))
		return false;
	return dst == 0xffffffffffffull ||
	       (eth[0] == 0x33 && eth[1] == 0x33 &&
		(eth[2] == 0xff ||
		 (eth[2] == 0 && eth[3] == 0 && eth[4] == 0 && eth[5] == 1)));
}

/*
 * Does a packet keep its TTL? A host port is tepd's own stack
 * (vrfhost.c): what it sends or receives crosses no router, so single-hop
 * BFD (TTL 255, RFC 5881) and eBGP with TTL 1 work over the underlay.
 * rx_port: where the packet came in; out: the port it leaves by, or NULL
 * (into a tunnel).
 */
static inline bool
dp_keeps_ttl(uint16_t rx_port, const struct tep_port *out)
{
	return tep_ports[rx_port].vrf_host || (out != NULL && out->vrf_host);
}

/* Decrement TTL / hop limit; false when it expired (packet punted). */
static inline bool
dp_ttl_dec(struct worker *w, struct rte_mbuf *m, uint8_t *ip, int family)
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
			dp_punt(w, m, TEP_PUNT_TTL, 4);
			return false;
		}
		uint32_t ck;
		uint16_t ck16;

		/* One 16-bit load and store: a byte store followed by a
		 * word load of the same bytes stalls store forwarding. */
		memcpy(&old, ip + 8, 2);
		neu = (uint16_t)(old - ttl_one);
		memcpy(ip + 8, &neu, 2);
		/* The checksum of a header whose TTL byte went down by one
		 * goes up by one in that byte's place (RFC 1624: HC' = HC +
		 * m - m' in ones' complement), with the end-around carry;
		 * done on the stored bytes, so in either byte order (as
		 * Linux's ip_decrease_ttl()). */
		memcpy(&ck16, ip + 10, 2);
		ck = (uint32_t)ck16 + ttl_one;
		ck16 = (uint16_t)(ck + (ck >= 0xffff));
		memcpy(ip + 10, &ck16, 2);
		return true;
	}
	if (ip[7] <= 1) {
		w->cnt->port[tep_cnt_port_of(m)].drop[TEP_R_TTL_EXCEEDED]++;
		dp_punt(w, m, TEP_PUNT_TTL, 6);
		return false;
	}
	ip[7]--;
	return true;
}

/*
 * A packet too big for its egress whose TTL / hop limit also expires here
 * is answered "time exceeded", not "too big", as Linux's ip_forward() and
 * ip6_forward() check the hop count first. True when m was consumed.
 */
static inline bool
dp_ttl_expires(struct worker *w, struct rte_mbuf *m, uint8_t *ip, int family)
{
	if ((family == 4 ? ip[8] : ip[7]) > 1)
		return false;
	return !dp_ttl_dec(w, m, ip, family);
}

void dp_ctl_tx_drain(struct worker *w);
uint16_t dp_rx_port(struct worker *w, uint16_t port);
int dp_classify(struct worker *w, struct rte_mbuf *m, bool decapsulated,
		struct tep_l3_info *l3);
void dp_route(struct worker *w, struct rte_mbuf **pkts,
	      const struct dp_meta *md, uint16_t n, bool decapsulated);
int dp_decap(struct worker *w, struct rte_mbuf *m,
	     const struct tep_l3_info *l3, uint16_t *vrf, uint32_t *tun);
void dp_encap(struct worker *w, struct rte_mbuf *m, const struct tep_nh *nh,
	      int family);
void dp_encap_mixed(struct worker *w, struct rte_mbuf **pkts,
		    const struct tep_l3_info *l3, const uint64_t *nhs,
		    uint16_t n, int family);
void dp_encap_burst(struct worker *w, struct rte_mbuf **pkts,
		    const struct tep_l3_info *l3, uint16_t n,
		    const struct tep_nh *nh, int family);
void dp_tunnel_answer(struct worker *w, struct rte_mbuf *m,
		      const struct tep_tunnel *t, uint32_t len);
void dp_forward(struct worker *w, struct rte_mbuf *m, const struct tep_nh *nh,
		int family);
void dp_forward_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n,
		      const struct tep_nh *nh, int family);
/*
 * fragment.c: m is bigger than mtu (the largest inner IP datagram its
 * egress allows). IPv4 without DF is cut into frags[] (DP_FRAGS_MAX
 * entries), whose number is returned for the caller to send on the path m
 * would have taken; anything else is answered "too big" by the control
 * thread (punted) and 0 returned. The caller sends the fragments, so that
 * fragmenting does not call back into encap or forward.
 */
#define DP_FRAGS_MAX	64	/* a 64 KB datagram in 1 KB pieces */
uint16_t dp_too_big(struct worker *w, struct rte_mbuf *m, const uint8_t *ip,
		    int family, uint32_t mtu, struct rte_mbuf **frags);
void dp_gso_dispatch(struct worker *w, struct rte_mbuf *m,
		     const struct tep_nh *nh, int family);

/* worker.c: an lcore's poll loop (rte_eal_remote_launch's function). */
int tep_worker_main(void *arg);

/* gso.c: segment a TCP super-packet into out[] (fresh mbufs from mp, each
 * with its checksum pending); number of segments, or -1 with *why set (m
 * is left to the caller either way). */
int tep_gso_segment(struct rte_mempool *mp, struct rte_mbuf *m,
		    struct rte_mbuf **out, uint16_t max, enum tep_reason *why);
#define TEP_GSO_SEGS_MAX	256

#endif /* TEPD_DATAPATH_H */
