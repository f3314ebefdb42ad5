/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Decapsulation: a packet for one of our underlay addresses is parsed as a
 * tunnel packet (lib/proto), its outer checksum verified (by the NIC's
 * verdict, the parser, or a walk over a chain), its tunnel found, and it
 * leaves as an Ethernet frame in the tunnel's VRF.
 */

#include <rte_hash.h>

#include "tep_csum_mbuf.h"
#include "tep_hdr_walk.h"
#include "tep_rxcsum.h"
#include "datapath.h"
#include "tunnel.h"

/*
 * The inner TCP/UDP datagram of d, when it is one that ends where the
 * outer datagram does (what deriving its checksum from the outer one
 * needs): its IP header's offset in buf, the header's length, and the
 * pseudo-header sum in *phdr. 0 when it is not.
 */
static uint32_t
inner_l4_of(const uint8_t *buf, const struct tep_decap *d, uint32_t *l3,
	    uint8_t *l4_proto, uint32_t *phdr)
{
	const uint8_t *ip = buf + d->inner_off +
			    (d->inner_proto == TEP_ETH_P_TEB ? 14 : 0);
	uint32_t end = (uint32_t)d->l4_off + d->l4_len;
	uint32_t ipoff = (uint32_t)(ip - buf), tot;
	struct tep_walk wk;

	/* (40 readable bytes asked of IPv4 too: a datagram that short is
	 * not worth deriving.) */
	if (ipoff + 40 > end || ipoff + 40 > d->hdr_room)
		return 0;
	/* No extension headers walked: with one, l4_proto is not TCP/UDP. */
	if (tep_hdr_walk(ip, end - ipoff, d->hdr_room - ipoff, 0, &wk) !=
	    TEP_R_OK || wk.frag)
		return 0;
	tot = wk.ip_len;
	/* The derivation covers up to the end of the outer datagram. */
	if (ipoff + tot != end || (wk.l4_proto != 6 && wk.l4_proto != 17) ||
	    tot < wk.l3_len + 8)
		return 0;
	if (wk.l4_proto == 17 && wk.family == 4 &&
	    tep_rd16(ip + wk.l3_len + 6) == 0)
		return 0;
	*l3 = wk.l3_len;
	*l4_proto = wk.l4_proto;
	*phdr = wk.family == 4 ?
		tep_ipv4_phdr_sum(ip + 12, ip + 16, wk.l4_proto,
				  (uint16_t)(tot - wk.l3_len)) :
		tep_ipv6_phdr_sum(ip + 8, ip + 24, wk.l4_proto,
				  tot - wk.l3_len);
	return ipoff;
}

/* Inner TCP/UDP checksum right, from the good outer one (d parsed buf)? */
static bool
inner_csum_good(const uint8_t *buf, const struct tep_decap *d)
{
	uint32_t l3, phdr, ipoff;
	uint8_t proto;

	ipoff = inner_l4_of(buf, d, &l3, &proto, &phdr);
	return ipoff != 0 && tep_inner_csum_derive(buf, d, ipoff + l3, phdr);
}

/*
 * The inner checksum RCO just finished from the verified outer one: right
 * when the field was the inner TCP/UDP checksum and what the sender left
 * in it (seed, memory order) the inner pseudo-header sum, since the
 * receiver's sum runs over it. tep_inner_csum_derive() cannot tell: the
 * outer checksum covers the seed, not the result.
 */
static bool
rco_inner_good(const uint8_t *buf, const struct tep_decap *d, uint16_t seed)
{
	uint32_t l3, phdr, ipoff;
	uint16_t want;
	uint8_t proto;

	ipoff = inner_l4_of(buf, d, &l3, &proto, &phdr);
	if (ipoff == 0 || ipoff + l3 != (uint32_t)d->inner_off + d->rco_start ||
	    d->rco_offset - d->rco_start != (proto == 6 ? 16 : 6))
		return false;
	want = tep_csum_fold(phdr);
	return seed == want || (seed == 0 && want == 0xffff) ||
	       (seed == 0xffff && want == 0);
}

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
	dp_tunnel_answer(w, m, t, n);
	return true;
}

/* The cache slot of (VNI, remote): a multiplicative hash of the VNI and
 * the address's words. */
static inline uint32_t
tun_slot(uint32_t vni, const uint8_t *remote, bool v6)
{
	uint32_t a, h = vni;

	memcpy(&a, remote, 4);
	h ^= a;
	if (v6) {
		uint32_t b, c, e;

		memcpy(&b, remote + 4, 4);
		memcpy(&c, remote + 8, 4);
		memcpy(&e, remote + 12, 4);
		h ^= b ^ c ^ e;
	}
	return (h * 0x9e3779b1u) >> (32 - TUN_CACHE_BITS);
}

/*
 * The tunnel a decapsulated packet belongs to, by (type, VNI, remote):
 * remote is the outer source address in the packet. The worker's cache
 * of the tunnels found lately, direct-mapped by (VNI, remote), is checked
 * first, field by field against the packet (a key built on the stack and
 * compared at once would be read back before its stores land): traffic
 * from one remote VTEP or from a few hundred does no hash lookup per
 * packet once the cache holds their tunnels.
 */
static inline const struct tep_tunnel *
tunnel_find(struct worker *w, uint8_t type, bool v6, uint32_t vni,
	    const uint8_t *remote)
{
	uint32_t gen = __atomic_load_n(&tep.underlay_gen, __ATOMIC_ACQUIRE);
	struct tun_cache_ent *e = &w->tun_cache[tun_slot(vni, remote, v6)];
	const struct tep_tunnel *t;
	struct tep_tun_key k;
	void *data;

	if (likely(e->gen == gen && e->t != NULL && e->key.type == type &&
		   e->key.v6 == v6 && e->key.vni == vni &&
		   ip_eq(e->key.remote, remote, v6 ? 6 : 4))) {
		t = __atomic_load_n(&tep_tunnels[e->id], __ATOMIC_ACQUIRE);
		if (likely(t == e->t))
			return t;
	}
	memset(&k, 0, sizeof(k));
	k.type = type;
	k.v6 = v6;
	k.vni = vni;
	memcpy(k.remote, remote, v6 ? 16 : 4);
	if (rte_hash_lookup_data(tep_tun_hash, &k, &data) < 0)
		return NULL;
	t = __atomic_load_n(&tep_tunnels[(uintptr_t)data], __ATOMIC_ACQUIRE);
	if (t != NULL) {
		e->key = k;
		e->gen = gen;
		e->id = (uint32_t)(uintptr_t)data;
		e->t = t;
	}
	return t;
}

/*
 * The outer L3/L4 and tunnel headers of a packet for us, into d; the
 * outer checksum verified where no PMD did. 1: a tunnel packet; 0: UDP to
 * us on no tunnel's port (punted by the caller); -1: dropped here.
 */
static __rte_always_inline int
decap_parse(struct worker *w, struct rte_mbuf *m, uint8_t *buf, uint32_t len,
	    unsigned int pflags, const struct tep_l3_info *l3,
	    struct tep_decap *d)
{
	enum tep_reason r;
	uint8_t type;

	r = tep_parse_outer_l3(buf, len, m->pkt_len, pflags, l3, d);
	if (r != TEP_R_OK) {
		dp_drop(w, m, r);
		return -1;
	}
	if (d->l4_proto == 17) {
		type = tep_udp_tun_type[d->dport];
		switch (type) {
		case TEP_TUN_VXLAN:
			r = tep_parse_vxlan(buf, len, d);
			break;
		case TEP_TUN_GENEVE:
			r = tep_parse_geneve(buf, len, d);
			break;
		case TEP_TUN_FOU:
			r = d->tun_off < len ?
			    tep_parse_fou(buf, len, (buf[d->tun_off] >> 4) == 6 ?
					  41 : 4, d) : TEP_R_TRUNCATED;
			break;
		case TEP_TUN_GUE:
			r = tep_parse_gue(buf, len, d);
			break;
		default:
			return 0;	/* UDP to us, not a tunnel port */
		}
	} else {
		/* No PMD verifies a GRE checksum. */
		r = tep_parse_gre(buf, len, TEP_PARSE_VERIFY_CSUM, d);
	}
	if (r != TEP_R_OK) {
		dp_drop(w, m, r);
		return -1;
	}
	/* A chain's outer datagram runs past the first segment: the
	 * parsers left its checksum to a walk over the segments. */
	if (unlikely(d->csum_present && !d->csum_verified &&
		     ((pflags & TEP_PARSE_VERIFY_CSUM) ||
		      d->l4_proto != 17))) {
		uint32_t sum = d->l4_proto == 17 ?
			       tep_decap_outer_phdr(buf, d) : 0;

		if (tep_csum_mbuf(m, d->l4_off, d->l4_len, &sum) < 0 ||
		    tep_csum_fold(sum) != 0xffff) {
			dp_drop(w, m, TEP_R_BAD_OUTER_CSUM);
			return -1;
		}
		d->csum_verified = 1;
	}
	if (d->oam) {
		dp_drop(w, m, TEP_R_OAM);
		return -1;
	}
	return 1;
}

/*
 * Remote checksum offload (docs/lco.md): the inner checksum the sender
 * left undone, completed where its start and offset fields say. False when m was dropped; *good says whether the inner checksum is
 * then known good.
 */
static inline bool
decap_rco(struct worker *w, struct rte_mbuf *m, uint8_t *buf, uint32_t len,
	  const struct tep_tunnel *t, const struct tep_rxcsum *rv,
	  struct tep_decap *d, bool *good)
{
	uint16_t seed;

	/* A VXLAN tunnel without rco takes the RCO bits for the
	 * reserved bits they were, as Linux does without remcsumrx
	 * (GUE's field is self-describing: always taken). */
	if (d->type == TEP_TUN_VXLAN && !t->tmpl.rco) {
		w->cnt->tun[t->id].drop[TEP_R_RESERVED_SET]++;
		dp_drop(w, m, TEP_R_RESERVED_SET);
		return false;
	}
	/* RCO relies on the outer checksum being known good. */
	if (!tep_rxcsum_outer_verified(rv, d) ||
	    (uint32_t)d->inner_off + d->rco_offset + 2 > len) {
		w->cnt->tun[t->id].drop[TEP_R_BAD_RCO]++;
		dp_drop(w, m, TEP_R_BAD_RCO);
		return false;
	}
	seed = tep_rd_csum(buf + d->inner_off + d->rco_offset);
	if (tep_rco_apply(buf, d) != TEP_R_OK) {
		w->cnt->tun[t->id].drop[TEP_R_BAD_RCO]++;
		dp_drop(w, m, TEP_R_BAD_RCO);
		return false;
	}
	*good = rco_inner_good(buf, d, seed);
	return true;
}

/*
 * Strip m down to an Ethernet frame carrying the inner IP packet: an
 * inner Ethernet frame (VXLAN, GENEVE, GRE/TEB) is checked to be for us
 * and routable, and ARP/ND from behind the tunnel goes to the proxy; a
 * bare inner IP packet gets 14 bytes in front of it as its Ethernet
 * header, so both kinds look alike from here on. False when m was
 * consumed.
 */
static __rte_always_inline bool
decap_inner_frame(struct worker *w, struct rte_mbuf *m, uint8_t *buf,
		  uint32_t len, const struct tep_tunnel *t,
		  const struct tep_decap *d)
{
	if (d->inner_proto == TEP_ETH_P_TEB) {
		uint16_t et;

		if (unlikely(d->inner_off + 14u > len)) {
			dp_drop(w, m, TEP_R_HDR_SPLIT);
			return false;
		}
		et = tep_rd16(buf + d->inner_off + 12);

		if (et != TEP_ETH_P_IPV4 && et != TEP_ETH_P_IPV6 &&
		    et != 0x0806) {
			w->cnt->tun[t->id].drop[TEP_R_NOT_ROUTABLE]++;
			dp_drop(w, m, TEP_R_NOT_ROUTABLE);
			return false;
		}
		/* The far end addresses us by the tunnel's overlay MAC
		 * (or broadcasts an ARP/ND query the proxy answers). */
		if (!l2_for_us(buf + d->inner_off, mac_to_u64(&t->inner_smac))) {
			w->cnt->tun[t->id].drop[TEP_R_NOT_FOR_US]++;
			dp_drop(w, m, TEP_R_NOT_FOR_US);
			return false;
		}
		rte_pktmbuf_adj(m, d->inner_off);
		if (et != TEP_ETH_P_IPV4 && tunnel_proxy(w, m, t, et))
			return false;
		if (et == 0x0806) {
			w->cnt->tun[t->id].drop[TEP_R_TUNNEL_ND]++;
			dp_drop(w, m, TEP_R_TUNNEL_ND);
			return false;
		}
	} else {
		rte_pktmbuf_adj(m, (uint16_t)(d->inner_off - 14));
		tep_wr16(rte_pktmbuf_mtod(m, uint8_t *) + 12, d->inner_proto);
	}
	return true;
}

/*
 * A packet for one of our underlay addresses: a tunnel packet is stripped
 * down to an Ethernet frame carrying the inner IP packet, bound to its
 * tunnel's VRF (returns 1). 0: not a tunnel packet (punt it); -1: dropped.
 * l3 is what dp_classify() found of the outer IP header.
 */
int
dp_decap(struct worker *w, struct rte_mbuf *m, const struct tep_l3_info *l3,
	 uint16_t *vrf, uint32_t *tun)
{
	uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
	/* The parsers read the first segment only (a chain's headers are
	 * there: rx pulled them up); lengths are the whole packet's. */
	uint32_t len = m->data_len;
	const struct tep_tunnel *t;
	struct tep_rxcsum rv;
	struct tep_decap d;
	unsigned int pflags;
	bool rco_good = false, nic_good;
	int r;

	/* Which header the PMD's checksum flags speak of: on a tunnel the
	 * NIC parsed, RX_L4 is the inner one (drivers/tep_rxcsum.h). Only a
	 * PMD that verified the outer UDP checksum saves us its sum; a BAD
	 * verdict is left to our own sum to confirm. */
	tep_rxcsum_get(m->ol_flags, m->packet_type, &rv);
	/* dp_classify() checked the outer Ethernet and IP headers (the
	 * IPv4 checksum, or the NIC did) and described them in l3: the
	 * parse starts from there. */
	pflags = tep_rxcsum_parse_flags(&rv) | TEP_PARSE_IP4_CSUM_OK;
	r = decap_parse(w, m, buf, len, pflags, l3, &d);
	if (r <= 0)
		return r;

	t = tunnel_find(w, d.type, d.outer_v6, d.has_vni ? d.vni : 0,
			buf + d.src_off);
	if (t == NULL) {
		dp_drop(w, m, TEP_R_NO_TUNNEL);
		return -1;
	}
	if (d.has_rco && !decap_rco(w, m, buf, len, t, &rv, &d, &rco_good))
		return -1;
	if (!decap_inner_frame(w, m, buf, len, t, &d))
		return -1;
	/* No Rx checksum flag of the outer packet holds for the inner one.
	 * The inner checksum is known good when the NIC checked it, or from
	 * headers alone when the outer UDP checksum was verified (a guest
	 * behind vhost-user is then spared its own check). A bad one is
	 * not dropped: end hosts check their own checksums. Nor does the
	 * NIC's RSS hash, which was of the outer headers: sent on into a
	 * tunnel, the inner packet is hashed by tepd. */
	m->ol_flags &= ~(TEP_RXCSUM_FLAGS | RTE_MBUF_F_RX_RSS_HASH);
	if (d.l4_proto == 17)
		w->cnt->tun[t->id].decap_outer_rxv[rv.outer & 3]++;
	nic_good = tep_rxcsum_inner_good(&rv, &d);
	w->cnt->tun[t->id].decap_inner_nic_good += nic_good;
	if (nic_good || rco_good ||
	    (!d.has_rco && tep_rxcsum_outer_verified(&rv, &d) &&
	     inner_csum_good(buf, &d))) {
		m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_GOOD;
		w->cnt->tun[t->id].decap_inner_ok++;
	}
	w->cnt->tun[t->id].decap++;
	w->cnt->tun[t->id].decap_bytes += m->pkt_len;
	*vrf = t->vrf;
	*tun = t->id;
	return 1;
}
