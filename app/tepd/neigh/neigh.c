/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * The control thread's packet work: everything workers punt. ARP (RFC 826)
 * and IPv6 neighbour discovery (RFC 4861) for tepd's own addresses and
 * next hops, ICMP echo to tepd's addresses, ICMP errors (time exceeded,
 * fragmentation needed / packet too big), and the neighbour table that
 * workers read lock-free (rte_hash with RW_CONCURRENCY_LF, one writer).
 * Packets waiting for a next hop's MAC are held (a few per neighbour)
 * and sent once it resolves, so a first ping is not lost.
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

#define ARP_HDR_LEN	28
#define PROBE_INTERVAL_MS 1000
#define PROBES_MAX	3
#define STALE_MS	(300 * 1000)

/* Each VRF's share of unresolved neighbours and held packets, so that a
 * tenant scanning its subnet cannot take the table or the pool from the
 * others (and from the underlay). */
static uint16_t incomplete_in[TEP_VRF_MAX];
static uint16_t learned_in[TEP_VRF_MAX];	/* entries not static */
static uint16_t held_in[TEP_VRF_MAX];
static unsigned int held_total;

static uint64_t
ms_to_tsc(uint64_t ms)
{
	return ms * rte_get_tsc_hz() / 1000;
}

int
tep_neigh_init(char *err, size_t errlen)
{
	struct rte_hash_parameters hp = {
		.name = "tep_neigh",
		.entries = TEP_NEIGH_MAX,
		.key_len = sizeof(struct tep_neigh_key),
		.hash_func = rte_jhash,
		.socket_id = (int)rte_socket_id(),
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	};

	tep.neigh_hash = rte_hash_create(&hp);
	if (tep.neigh_hash == NULL) {
		snprintf(err, errlen, "neighbour table: out of memory");
		return -1;
	}
	return 0;
}

void
tep_ctl_send(uint16_t port, struct rte_mbuf *m)
{
	tep_priv(m)->tx_port = port;
	if (rte_ring_sp_enqueue(tep.ctl_tx, m) != 0)
		rte_pktmbuf_free(m);
}

void
tep_ctl_send_tunnel(uint32_t tunnel, struct rte_mbuf *m)
{
	tep_priv(m)->tunnel = tunnel;
	tep_ctl_send(TEP_NO_PORT, m);
}

/*
 * Send a frame made here (f: its Ethernet header, written for port) out
 * of port, or, when tunnel is set, into that tunnel toward a sender
 * behind it: then our source MAC is the tunnel's overlay MAC.
 */
static void
ctl_emit(uint8_t *f, struct rte_mbuf *m, uint16_t port, uint32_t tunnel)
{
	const struct tep_tunnel *t;

	if (tunnel == TEP_NO_TUNNEL) {
		tep_ctl_send(port, m);
		return;
	}
	t = tep.tunnel[tunnel];
	if (t == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	memcpy(f + 6, t->inner_smac.addr_bytes, 6);
	tep_ctl_send_tunnel(tunnel, m);
}

static void
mk_key(struct tep_neigh_key *k, uint16_t port, int family, const uint8_t *ip)
{
	memset(k, 0, sizeof(*k));
	k->port = port;
	k->family = (uint8_t)family;
	memcpy(k->ip, ip, family == 4 ? 4 : 16);
}

static struct tep_neigh *
neigh_lookup(uint16_t port, int family, const uint8_t *ip)
{
	struct tep_neigh_key k;
	void *data;

	mk_key(&k, port, family, ip);
	if (rte_hash_lookup_data(tep.neigh_hash, &k, &data) < 0)
		return NULL;
	return &tep.neigh[(uintptr_t)data];
}

/* A new, unresolved entry; learned ones (not an operator's) count against
 * the VRF's shares. */
static struct tep_neigh *
neigh_create(uint16_t port, int family, const uint8_t *ip, bool learned)
{
	uint16_t vrf = tep.port[port].vrf;
	struct tep_neigh *n = NULL;
	uintptr_t i;

	if (learned && (incomplete_in[vrf] >= TEP_NEIGH_INCOMPLETE_VRF ||
			learned_in[vrf] >= TEP_NEIGH_VRF))
		return NULL;
	for (i = 0; i < TEP_NEIGH_MAX; i++) {
		if (!tep.neigh[i].used) {
			n = &tep.neigh[i];
			break;
		}
	}
	if (n == NULL)
		return NULL;
	memset(n, 0, sizeof(*n));
	mk_key(&n->key, port, family, ip);
	if (rte_hash_add_key_data(tep.neigh_hash, &n->key, (void *)i) < 0)
		return NULL;
	n->used = true;
	n->vrf = vrf;
	n->learned = learned;
	incomplete_in[vrf]++;
	learned_in[vrf] = (uint16_t)(learned_in[vrf] + learned);
	return n;
}

static void
neigh_release_held(struct tep_neigh *n)
{
	const struct tep_port *p = &tep.port[n->key.port];
	uint8_t i;

	for (i = 0; i < n->nhold; i++) {
		struct rte_mbuf *m = n->hold[i];
		uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);

		memcpy(eth, &n->mac, 6);
		memcpy(eth + 6, p->mac.addr_bytes, 6);
		tep_ctl_send(n->key.port, m);
	}
	held_in[n->vrf] = (uint16_t)(held_in[n->vrf] - n->nhold);
	held_total -= n->nhold;
	n->nhold = 0;
}

/*
 * Whether a neighbour on port may be a tunnel's egress, cached by every
 * worker (encap.c tunnel_egress: the default VRF's route to the remote
 * and that neighbour's MAC, cached only once resolved). Changing one
 * empties all those caches, so only a real change of such a neighbour
 * does; a refresh that confirms the MAC, or an access port's neighbour,
 * does not.
 */
static bool
neigh_feeds_egress(uint16_t port)
{
	return tep.port[port].vrf == TEP_VRF_DEFAULT;
}

static void
neigh_free(struct tep_neigh *n)
{
	bool resolved;
	int32_t pos;
	uint8_t i;

	for (i = 0; i < n->nhold; i++)
		rte_pktmbuf_free(n->hold[i]);
	held_in[n->vrf] = (uint16_t)(held_in[n->vrf] - n->nhold);
	held_total -= n->nhold;
	n->nhold = 0;
	if (n->mac == 0)
		incomplete_in[n->vrf]--;
	learned_in[n->vrf] = (uint16_t)(learned_in[n->vrf] - n->learned);
	/* Gone from the adjacencies first, as from the hash: after the
	 * grace period below no worker sends to it. */
	resolved = n->mac != 0;
	if (resolved)
		tep_adj_neigh_changed(n->key.port, n->key.family, n->key.ip, 0);
	pos = rte_hash_del_key(tep.neigh_hash, &n->key);
	/* Lock-free readers may still hold the slot: wait them out. */
	rte_rcu_qsbr_synchronize(tep.rcu, RTE_QSBR_THRID_INVALID);
	if (pos >= 0)
		rte_hash_free_key_with_position(tep.neigh_hash, pos);
	__atomic_store_n(&n->mac, 0, __ATOMIC_RELEASE);
	n->used = false;
	if (resolved && neigh_feeds_egress(n->key.port))
		tep_underlay_changed();
}

int
tep_neigh_set(uint16_t port, int family, const uint8_t *ip,
	      const struct rte_ether_addr *mac, bool is_static)
{
	struct tep_neigh *n = neigh_lookup(port, family, ip);
	uint64_t v = 0, old;

	if (n == NULL)
		n = neigh_create(port, family, ip, !is_static);
	if (n == NULL)
		return -1;
	if (n->is_static && !is_static)
		return 0;	/* learning never overrides an operator entry */
	memcpy(&v, mac->addr_bytes, 6);
	old = n->mac;
	if (old == 0)
		incomplete_in[n->vrf]--;
	if (old != v)
		tep_adj_neigh_changed(port, family, ip, v);
	__atomic_store_n(&n->mac, v, __ATOMIC_RELEASE);
	n->is_static = is_static;
	if (is_static && n->learned) {	/* the operator's now */
		learned_in[n->vrf]--;
		n->learned = 0;
	}
	n->updated = rte_rdtsc();
	n->probes = 0;
	neigh_release_held(n);
	/* An unresolved neighbour was never cached (its MAC was 0). */
	if (old != 0 && old != v && neigh_feeds_egress(port))
		tep_underlay_changed();
	return 0;
}

int
tep_neigh_del(uint16_t port, int family, const uint8_t *ip)
{
	struct tep_neigh *n = neigh_lookup(port, family, ip);

	if (n == NULL)
		return -1;
	neigh_free(n);
	return 0;
}

void
tep_neigh_flush_port(uint16_t port)
{
	int i;

	for (i = 0; i < TEP_NEIGH_MAX; i++)
		if (tep.neigh[i].used && tep.neigh[i].key.port == port)
			neigh_free(&tep.neigh[i]);
}

/* ---- addresses ---------------------------------------------------------- */

static bool
in_prefix(const uint8_t *a, const uint8_t *pfx, uint8_t len)
{
	uint8_t full = len / 8, rest = len % 8;

	if (memcmp(a, pfx, full) != 0)
		return false;
	return rest == 0 ||
	       ((a[full] ^ pfx[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

bool
tep_addr_is_ours(uint16_t port, int family, const uint8_t *ip)
{
	const struct tep_port *p = &tep.port[port];
	int i;

	for (i = 0; i < p->naddr; i++)
		if (p->addr[i].family == family &&
		    memcmp(p->addr[i].a, ip, family == 4 ? 4 : 16) == 0)
			return true;
	return false;
}

/*
 * The targets tepd answers ARP and neighbour solicitations for on `port`:
 * its addresses there; on the default VRF's host port (-H, vrfhost.c) also
 * every address but the underlay's own, since the kernel side sees the
 * underlay subnets as on-link and everything it sends there is tepd's to
 * route.
 */
static bool
answers_for(uint16_t port, int family, const uint8_t *ip)
{
	const struct tep_port *p = &tep.port[port];
	uint16_t i;

	if (tep_addr_is_ours(port, family, ip))
		return true;
	if (!p->vrf_host || p->vrf != TEP_VRF_DEFAULT)
		return false;
	for (i = 0; i < tep.nb_ports; i++)
		if (tep.port[i].present && !tep.port[i].vrf_host &&
		    tep.port[i].vrf == TEP_VRF_DEFAULT &&
		    tep_addr_is_ours(i, family, ip))
			return false;
	return true;
}

/* Our source address on a port for talking to `dst`: one in the same
 * subnet if there is one, else the first of the family. */
static const uint8_t *
src_addr_for(uint16_t port, int family, const uint8_t *dst)
{
	const struct tep_port *p = &tep.port[port];
	const uint8_t *first = NULL;
	int i;

	for (i = 0; i < p->naddr; i++) {
		if (p->addr[i].family != family)
			continue;
		if (dst != NULL && in_prefix(dst, p->addr[i].a, p->addr[i].len))
			return p->addr[i].a;
		if (first == NULL)
			first = p->addr[i].a;
	}
	return first;
}

/* An address of VRF vrf to answer from, the source of ICMP errors to
 * senders behind a tunnel: the first of the family on the VRF's ports. */
static const uint8_t *
vrf_src_addr(uint16_t vrf, int family, const uint8_t *dst)
{
	const uint8_t *a, *first = NULL;
	uint16_t i;

	for (i = 0; i < tep.nb_ports; i++) {
		const struct tep_port *p = &tep.port[i];

		if (!p->present || p->vrf_host || p->vrf != vrf)
			continue;
		a = src_addr_for(i, family, dst);
		if (a != NULL && first == NULL)
			first = a;
	}
	return first;
}

/* ---- building frames ---------------------------------------------------- */

static uint8_t *
new_frame(struct rte_mbuf **mp, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(tep.pool);

	*mp = m;
	if (m == NULL)
		return NULL;
	return (uint8_t *)rte_pktmbuf_append(m, len);
}

static void
eth_hdr(uint8_t *eth, const uint8_t *dst, uint16_t port, uint16_t type)
{
	memcpy(eth, dst, 6);
	memcpy(eth + 6, tep.port[port].mac.addr_bytes, 6);
	tep_wr16(eth + 12, type);
}

static void
send_arp(uint16_t port, uint16_t op, const uint8_t *spa, const uint8_t *tha,
	 const uint8_t *tpa, const uint8_t *eth_dst)
{
	if (spa == NULL)
		spa = src_addr_for(port, 4, tpa);
	struct rte_mbuf *m;
	uint8_t *f, *a;

	if (spa == NULL)
		return;
	f = new_frame(&m, 14 + ARP_HDR_LEN);
	if (f == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	eth_hdr(f, eth_dst, port, 0x0806);
	a = f + 14;
	tep_wr16(a, 1);			/* Ethernet */
	tep_wr16(a + 2, TEP_ETH_P_IPV4);
	a[4] = 6;
	a[5] = 4;
	tep_wr16(a + 6, op);
	memcpy(a + 8, tep.port[port].mac.addr_bytes, 6);
	memcpy(a + 14, spa, 4);
	memcpy(a + 18, tha, 6);
	memcpy(a + 24, tpa, 4);
	tep_ctl_send(port, m);
}

/* IPv6 + ICMPv6 frame; body (after the 4-byte ICMPv6 header) given. */
static void
send_icmp6(uint16_t port, uint32_t tunnel, const uint8_t *eth_dst,
	   const uint8_t *src, const uint8_t *dst, uint8_t type, uint8_t code,
	   const uint8_t *body, uint16_t body_len, uint8_t hlim)
{
	uint16_t l4 = (uint16_t)(4 + body_len);
	struct rte_mbuf *m;
	uint8_t *f, *ip, *ic;
	uint32_t s;

	f = new_frame(&m, (uint16_t)(14 + 40 + l4));
	if (f == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	eth_hdr(f, eth_dst, port, TEP_ETH_P_IPV6);
	ip = f + 14;
	tep_wr32(ip, 0x60000000);
	tep_wr16(ip + 4, l4);
	ip[6] = 58;
	ip[7] = hlim;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	ic = ip + 40;
	ic[0] = type;
	ic[1] = code;
	tep_wr16(ic + 2, 0);
	memcpy(ic + 4, body, body_len);
	s = tep_ipv6_phdr_sum(src, dst, 58, l4);
	tep_wr_csum(ic + 2, tep_csum_finish(tep_csum_partial(ic, l4, s)));
	ctl_emit(f, m, port, tunnel);
}

static void
send_ns(uint16_t port, const uint8_t *target)
{
	const uint8_t *src = src_addr_for(port, 6, target);
	uint8_t dst[16] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
			    0, 0, 0, 0x01, 0xff, 0, 0, 0 };
	uint8_t mac[6] = { 0x33, 0x33, 0xff, 0, 0, 0 };
	uint8_t body[4 + 16 + 8];

	if (src == NULL)
		return;
	/* Solicited-node multicast (RFC 4291 2.7.1) and its MAC. */
	memcpy(dst + 13, target + 13, 3);
	memcpy(mac + 3, target + 13, 3);
	memset(body, 0, 4);
	memcpy(body + 4, target, 16);
	body[20] = 1;			/* source link-layer address option */
	body[21] = 1;
	memcpy(body + 22, tep.port[port].mac.addr_bytes, 6);
	send_icmp6(port, TEP_NO_TUNNEL, mac, src, dst, 135, 0, body,
		   sizeof(body), 255);
}

static void
neigh_probe(struct tep_neigh *n)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[6];

	n->probed = rte_rdtsc();
	n->probes++;
	if (n->key.family == 4)
		send_arp(n->key.port, 1, NULL, zero, n->key.ip, bcast);
	else
		send_ns(n->key.port, n->key.ip);
}

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
	if (for_us || neigh_lookup(port, 4, a + 14) != NULL)
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
		memcpy(body + 22, tep.port[port].mac.addr_bytes, 6);
		send_icmp6(port, TEP_NO_TUNNEL, eth_dst, ic + 8, dst, 136, 0, body,
			   sizeof(body), 255);
	} else if (ic[0] == 136 && lladdr != NULL) {
		if (neigh_lookup(port, 6, ic + 8) != NULL)
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

	if (tep.port[port].role != TEP_ROLE_ACCESS &&
	    tep.port[port].role != TEP_ROLE_UNDERLAY)
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
	memcpy(eth + 6, tep.port[port].mac.addr_bytes, 6);
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
		if (tun >= TEP_TUNNELS_MAX || tep.tunnel[tun] == NULL)
			return;
	} else if (tep.port[port].role != TEP_ROLE_ACCESS) {
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

/* A packet waiting for its next hop's MAC. Returns true if it was kept. */
static bool
on_resolve(struct rte_mbuf *m)
{
	struct tep_mbuf_priv *pv = tep_priv(m);
	struct tep_neigh *n = neigh_lookup(pv->tx_port, pv->family_nh,
					   pv->nh_ip);

	if (n == NULL)
		n = neigh_create(pv->tx_port, pv->family_nh, pv->nh_ip, true);
	if (n == NULL) {
		pv->punt = TEP_PUNT_NONE;	/* counted as hold_limit */
		return false;
	}
	if (n->mac != 0) {	/* resolved meanwhile */
		if (pv->tunnel != TEP_NO_TUNNEL)
			return false;
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), &n->mac, 6);
		memcpy(rte_pktmbuf_mtod(m, uint8_t *) + 6,
		       tep.port[n->key.port].mac.addr_bytes, 6);
		tep_ctl_send(n->key.port, m);
		return true;
	}
	if (n->probes == 0 || rte_rdtsc() - n->probed >
	    ms_to_tsc(PROBE_INTERVAL_MS))
		neigh_probe(n);
	/* Held packets have their IP header final; encapsulation cannot be
	 * redone here, so tunnel traffic is not held. */
	if (pv->tunnel != TEP_NO_TUNNEL || n->nhold >= TEP_NEIGH_HOLD)
		return false;
	if (held_in[n->vrf] >= TEP_HOLD_VRF || held_total >= TEP_HOLD_MAX) {
		pv->punt = TEP_PUNT_NONE;	/* counted as hold_limit */
		return false;
	}
	n->hold[n->nhold++] = m;
	held_in[n->vrf]++;
	held_total++;
	return true;
}

static void
punt_count(struct rte_mbuf *m, enum tep_reason r)
{
	struct tep_lcore_cnt *c = tep.cnt[rte_lcore_id()];

	c->port[tep_cnt_port_of(m)].drop[r]++;
	c->vrf[tep_priv(m)->vrf].drop[r]++;
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

		switch (tep_priv(m)->punt) {
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
			kept = on_resolve(m);
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

/* Re-probe unresolved neighbours; give up (and drop what they hold) after
 * PROBES_MAX tries. Learned entries are re-probed once stale. */
void
tep_neigh_timer(void)
{
	uint64_t now = rte_rdtsc();
	int i;

	for (i = 0; i < TEP_NEIGH_MAX; i++) {
		struct tep_neigh *n = &tep.neigh[i];

		if (!n->used || n->is_static)
			continue;
		if (n->mac == 0) {
			if (now - n->probed < ms_to_tsc(PROBE_INTERVAL_MS))
				continue;
			if (n->probes >= PROBES_MAX)
				neigh_free(n);
			else
				neigh_probe(n);
		} else if (now - n->updated > ms_to_tsc(STALE_MS) &&
			   now - n->probed > ms_to_tsc(PROBE_INTERVAL_MS)) {
			neigh_probe(n);
		}
	}
}
