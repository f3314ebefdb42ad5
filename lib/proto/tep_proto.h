/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_PROTO_H
#define TEP_PROTO_H

/*
 * Tunnel headers on plain byte buffers: build once per tunnel (a template),
 * patch per packet, and parse strictly on receive.
 *
 * Encapsulations and their wire format:
 *   VXLAN   RFC 7348: UDP 4789, 8 bytes {flags 0x08, 0, 0, 0, VNI<<8},
 *           Ethernet; remote checksum offload (draft-herbert-vxlan-rco as
 *           Linux lays it out: a VXLAN device's remcsumtx/remcsumrx) sets
 *           0x20 in the second byte and puts the checksum start/offset in
 *           the byte after the VNI
 *   GENEVE  RFC 8926: UDP 6081, 8 bytes + options, protocol 0x6558 (Ethernet)
 *   FOU     Linux fou: UDP, then the inner IPv4/IPv6 packet; the receiver
 *           knows the inner protocol from the port it listens on
 *   GUE     draft-ietf-intarea-gue: variant 0 header {ver 0, C, hlen,
 *           proto, flags} + optional fields; tepd sends and accepts the
 *           private-flags field carrying remote checksum offload
 *           (draft-herbert-remotecsumoffload) exactly as Linux lays it out;
 *           variant 1 (the IP header directly after UDP) is accepted
 *   GRE     RFC 2784 + RFC 2890: optional checksum, key, sequence
 *
 * Everything is alignment-safe (memcpy loads and stores): after
 * decapsulation the inner IP header usually sits 2 bytes off a 4-byte
 * boundary.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tep_reason.h"

#define TEP_ETH_P_IPV4	0x0800
#define TEP_ETH_P_IPV6	0x86dd
#define TEP_ETH_P_VLAN	0x8100
#define TEP_ETH_P_TEB	0x6558	/* transparent Ethernet bridging */

#define TEP_VXLAN_PORT	4789	/* IANA */
#define TEP_GENEVE_PORT	6081	/* IANA */
#define TEP_FOU_PORT	5555	/* no standard port: tepd's default */
#define TEP_GUE_PORT	6080	/* no standard port: tepd's default */

#define TEP_VNI_MAX		0xffffff

/*
 * VXLAN remote checksum offload (Linux include/net/vxlan.h VXLAN_HF_RCO,
 * VXLAN_RCO_*): bit 21 of the flags word, and in the reserved byte after
 * the VNI the checksum start relative to the inner Ethernet header in
 * 2-byte units (7 bits) and whether the checksum is UDP's (offset 6) or
 * TCP's (offset 16).
 */
#define TEP_VXLAN_F_RCO		0x00200000u	/* flags word */
#define TEP_VXLAN_RCO_UDP	0x80		/* byte after the VNI */
#define TEP_VXLAN_RCO_START	0x7f		/* start >> 1 */
#define TEP_VXLAN_RCO_START_MAX	(TEP_VXLAN_RCO_START << 1)
#define TEP_GENEVE_OPT_MAX	252	/* 6-bit length in 4-byte words */
#define TEP_ENCAP_HDR_MAX	352	/* 18 + 40 + 8 + 8 + 252, rounded */

enum tep_tun_type {
	TEP_TUN_VXLAN,
	TEP_TUN_GENEVE,
	TEP_TUN_FOU,
	TEP_TUN_GUE,
	TEP_TUN_GRE,
	TEP_TUN_MAX
};

const char *tep_tun_type_name(enum tep_tun_type t);

/* Outer checksum modes (tunnel `csum` setting). */
enum tep_csum_mode {
	TEP_CSUM_LCO,		/* headers only; see docs/lco.md */
	TEP_CSUM_FULL,		/* software sum of the whole datagram */
	TEP_CSUM_OFFLOAD,	/* NIC fills it (RTE_MBUF_F_TX_OUTER_UDP_CKSUM) */
	TEP_CSUM_OFF,		/* 0; refused over IPv6 (RFC 6935/6936) */
	TEP_CSUM_MODE_MAX
};

const char *tep_csum_mode_name(enum tep_csum_mode m);

/*
 * What kind of checksum the inner L4 header carries. LCO is defined only
 * for ones-complement checksums; the encap code picks the method from this,
 * so a caller cannot ask for LCO over an SCTP CRC32c.
 */
enum tep_l4_kind {
	TEP_L4_NONE,	/* no L4 checksum we know of (non-first fragment, ...) */
	TEP_L4_TCP,
	TEP_L4_UDP,	/* IPv4 UDP with checksum 0 is TEP_L4_NONE */
	TEP_L4_ICMP,	/* ICMPv4: no pseudo-header */
	TEP_L4_ICMP6,
	TEP_L4_SCTP,	/* CRC32c: not ones-complement */
};

enum tep_l4_state {
	TEP_L4_COMPLETE,	/* the field holds the final checksum */
	TEP_L4_PENDING,		/* the field holds a seed; NIC or fallback fills it */
};

/* Inner L4 description, offsets relative to the start of the inner packet
 * (the first byte after the tunnel header). */
struct tep_inner_l4 {
	uint8_t kind;		/* enum tep_l4_kind */
	uint8_t state;		/* enum tep_l4_state */
	uint16_t csum_start;	/* inner L4 header offset */
	uint16_t csum_offset;	/* checksum field offset within it */
	uint16_t l3_off;	/* inner IP header offset */
	uint8_t ip4_hdr_ok;	/* inner IPv4 header checksum known valid:
				 * the header then sums to -0 and LCO need
				 * not read it (docs/lco.md) */
	uint8_t pad;
	uint16_t l4_end;	/* end of the L4 datagram (the inner IP
				 * length says where); bytes after it, such
				 * as Ethernet padding, are summed apart.
				 * 0: the L4 datagram runs to the end. */
	uint32_t phdr;		/* inner pseudo-header partial sum (COMPLETE) */
};

/* ---- inner packet inspection ------------------------------------------ */

/* What the encapsulator needs to know about a tenant packet. */
struct tep_flow {
	uint16_t l3_off;	/* inner IP header offset (after Ethernet/VLAN) */
	uint16_t l3_len;	/* inner IP header length incl. options/ext */
	uint8_t ip_version;	/* 4 or 6; 0 if not IP */
	uint8_t tos;		/* DSCP+ECN (IPv6 traffic class) */
	uint8_t df;		/* IPv4 DF set (IPv6: always 1) */
	uint8_t l4_proto;
	uint16_t ip_len;	/* inner IP datagram length from its header */
	uint16_t sport, dport;	/* TCP/UDP ports, 0 otherwise */
	uint32_t hash;		/* 5-tuple (TCP/UDP) or 3-tuple hash */
	struct tep_inner_l4 l4;
};

/*
 * Inspect a tenant packet at buf (len bytes): Ethernet (+one 802.1Q tag)
 * when `eth` is true, else bare IP. Fills `f`; the inner L4 state is set
 * to COMPLETE (callers that know better change it). Returns TEP_R_OK or
 * why the packet cannot be inspected (it may still be forwarded as opaque
 * L2 when it is not IP: ip_version is 0 then and the result is OK).
 */
enum tep_reason tep_flow_parse(const uint8_t *buf, size_t len, bool eth,
			       struct tep_flow *f);

/* The same for a packet of len bytes whose first hdr_room only are at buf
 * (a chained mbuf): lengths against len, header reads within hdr_room
 * (TEP_R_HDR_SPLIT if the IP header is not; an L4 header that is not is
 * taken as unknown, kind TEP_L4_NONE). */
enum tep_reason tep_flow_parse_seg(const uint8_t *buf, size_t hdr_room,
				   size_t len, bool eth, struct tep_flow *f);

/*
 * What a classifier learnt of an IP packet's header, so that inspection
 * need not read it again (parse once). l4_proto is the protocol after any
 * IPv6 extension headers l3_len covers; l4_usable is false for a fragment
 * or a routing header (the L4 checksum is then nothing LCO can use).
 */
struct tep_l3_info {
	uint16_t l3_len;	/* IP header incl. options/extensions; 0: not
				 * known, inspect the whole packet */
	uint16_t ip_len;	/* IP datagram length from its header */
	uint8_t family;		/* 4 or 6 */
	uint8_t l4_proto;
	uint8_t l4_usable;
	uint8_t pad;
};

/*
 * tep_flow_parse_seg() for a packet whose IP header a classifier already
 * checked and described in l3 (lengths within the packet, version): only
 * the L4 header is located and the flow hashed. Ethernet, when `eth`, is
 * untagged. The result is the one tep_flow_parse_seg() gives; the IP
 * header must lie within hdr_room (else TEP_R_HDR_SPLIT).
 * hash, when not NULL, is the flow's hash already known (a NIC's RSS
 * hash of the packet, Toeplitz over its addresses and ports: as good a
 * source of entropy): f->hash is that, and none is computed.
 */
enum tep_reason tep_flow_parse_l3(const uint8_t *buf, size_t hdr_room,
				  bool eth, const struct tep_l3_info *l3,
				  const uint32_t *hash, struct tep_flow *f);


/*
 * The flow hash of the IP packet at ip (room readable bytes; l3 describes
 * its header as tep_flow_parse_l3() takes it): over its addresses and
 * protocol, and its ports for TCP, UDP and SCTP when the L4 header is
 * whole and readable. What picks a next-hop group's member when the NIC
 * gave no RSS hash (app/tepd/route); the same CRC as tep_flow's, so that
 * a flow's path and its outer source port come from one kind of hash.
 */
uint32_t tep_flow_hash_ip(const uint8_t *ip, size_t room,
			  const struct tep_l3_info *l3);

/* Map a flow hash into [lo, hi] (RFC 7348 section 5: source port entropy). */
static inline uint16_t
tep_udp_sport(uint32_t hash, uint16_t lo, uint16_t hi)
{
	return (uint16_t)(lo + (((uint64_t)hash * (uint32_t)(hi - lo + 1)) >> 32));
}

/* ---- encapsulation ------------------------------------------------------ */

/* A tunnel's configuration, as the control plane gives it. */
struct tep_encap_params {
	enum tep_tun_type type;
	bool outer_v6;
	uint8_t smac[6], dmac[6];	/* outer Ethernet (next hop) */
	uint16_t vlan_tci;		/* outer 802.1Q TCI; 0 = untagged */
	uint8_t src[16], dst[16];	/* IPv4 uses the first 4 bytes */
	uint8_t ttl;			/* hop limit; 0 = 64 */
	uint8_t dscp;			/* outer DSCP when !tos_inherit */
	bool tos_inherit;		/* copy inner DSCP; ECN is always
					 * copied (RFC 6040 normal mode) */
	bool df;			/* IPv4 outer DF */
	uint16_t dst_port;		/* 0 = the type's default */
	uint16_t sport_lo, sport_hi;	/* 0,0 = 49152-65535 */
	uint32_t vni;			/* VXLAN/GENEVE VNI, or GRE key */
	bool gre_key;			/* GRE: send the key */
	bool gre_csum;			/* GRE: send a checksum */
	uint16_t gre_proto;		/* GRE: TEB (default) or IPv4/IPv6 */
	uint8_t gue_proto;		/* FOU: the inner IP protocol the
					 * receiving port expects, 4 or 41.
					 * (GUE: checked the same way, but the
					 * header's proto field is set per
					 * packet from the inner IP version) */
	bool rco;			/* GUE, VXLAN: remote checksum
					 * offload (the receiver finishes
					 * the inner TCP/UDP checksum); needs
					 * an outer checksum */
	const uint8_t *geneve_opts;	/* GENEVE options, TLVs, copied */
	uint16_t geneve_opts_len;	/* multiple of 4, <= 252 */
	enum tep_csum_mode csum;
};

/* Precomputed outer headers; per packet only lengths, IDs and sums change. */
/* The scalars first and hdr after them: encapsulation reads the scalars
 * and the first len bytes of hdr, which then share one or two cache
 * lines (a burst into many tunnels touches each tunnel's). */
struct tep_encap_tmpl {
	uint16_t len;		/* bytes of hdr used */
	uint16_t l2_len;	/* outer Ethernet (+VLAN) */
	uint16_t l3_len;	/* outer IPv4 (20) or IPv6 (40) */
	uint16_t l4_off;	/* outer UDP or GRE header */
	uint16_t tun_len;	/* tunnel header after UDP (GRE: whole GRE) */
	uint8_t type;		/* enum tep_tun_type */
	uint8_t outer_v6;
	uint8_t csum;		/* enum tep_csum_mode */
	uint8_t inner_eth;	/* payload is Ethernet (VXLAN, GENEVE, GRE TEB) */
	uint8_t gre_csum;	/* GRE header carries a checksum */
	uint8_t rco;		/* GUE header carries the RCO field, or
				 * VXLAN sends RCO where Linux would */
	uint8_t tos_inherit;
	uint8_t ecn_dscp;	/* configured DSCP << 2 */
	uint16_t sport_lo, sport_hi;
	uint32_t phdr_base;	/* outer addresses + protocol, no length */
	uint32_t ip4_sum_base;	/* IPv4 header sum, per-packet fields 0 */
	uint32_t lco_base;	/* sum of the template from the outer L4
				 * header on, per-packet fields 0 */
	uint8_t lco_fast;	/* tunnel header constant: lco_base holds */
	uint8_t hdr[TEP_ENCAP_HDR_MAX];
};

/*
 * Validate params and build the template. Returns 0, or -1 with a one-line
 * reason in err (e.g. "vni 16777216 out of range 0-16777215").
 */
int tep_encap_tmpl_build(struct tep_encap_tmpl *t,
			 const struct tep_encap_params *p,
			 char *err, size_t errlen);

/* Per-packet inputs to the outer headers. */
struct tep_encap_pkt {
	uint16_t inner_len;	/* bytes after the tunnel header */
	uint16_t sport;		/* from tep_udp_sport() */
	uint16_t ip_id;		/* IPv4 outer ID */
	uint8_t inner_tos;	/* inner DSCP+ECN */
	uint32_t flow_label;	/* IPv6 outer flow label (20 bits) */
	struct tep_inner_l4 l4;	/* the inner checksum's kind and state */
	/* A chained inner packet: only its first inner_contig bytes follow
	 * the headers contiguously (0: all of them), and inner_tail_sum is
	 * the partial sum of the rest (tep_csum_mbuf from there), for a
	 * full outer sum. LCO needs neither. */
	uint16_t inner_contig;
	uint32_t inner_tail_sum;
	/* The partial sum (tep_csum_partial) of the inner packet's first
	 * inner_pre_len bytes, when the caller knows it without reading
	 * them: an inner Ethernet header made of a tunnel's constant MACs
	 * and the packet's EtherType. LCO then sums only what follows
	 * (0: nothing known; an even length, at most the L3 offset). */
	uint16_t inner_pre_len;
	uint32_t inner_pre_sum;
};

/* How the outer checksum was produced (for counters); < 0 is an error. */
enum tep_ocsum {
	TEP_OCSUM_NONE,		/* no outer checksum (csum off, GRE w/o C) */
	TEP_OCSUM_LCO,		/* by LCO, payload not read */
	TEP_OCSUM_FULL,		/* whole datagram summed */
	TEP_OCSUM_HW,		/* seeded for the NIC to finish */
};

/*
 * Write the outer headers for one packet at out[0 .. t->len) and fill in
 * the outer IPv4 header checksum and the outer UDP/GRE checksum. The inner
 * packet must follow at out + t->len (contiguous): LCO reads only its
 * headers up to csum_start+csum_offset+2; FULL reads all of it.
 *
 * The method follows from t->csum and pkt->l4, never from the caller:
 *  - LCO, and the inner checksum is ones-complement: LCO (pending: the
 *    seed is read from the packet; complete: from pkt->l4.phdr);
 *  - LCO with an inner SCTP or unknown L4, or FULL: a full sum, which is
 *    refused (-EINVAL) while the inner checksum is still pending, since
 *    the sum would change when it is filled in;
 *  - OFFLOAD: the outer pseudo-header sum is left in the field, as
 *    rte_net_intel_cksum_prepare() would, for the NIC;
 *  - OFF: 0.
 * GUE with RCO and a pending inner checksum is the exception: the seed is
 * sent as it is for the receiver to finish (the caller must then not ask
 * the NIC for the inner checksum), so the outer sum covers it as it stands
 * and is done in full (or by the NIC with OFFLOAD).
 * VXLAN with RCO (tep_encap_rco() says which packets): a pending inner
 * checksum goes the same way; a complete one is turned back into its seed
 * (the inner pseudo-header sum) for the receiver to finish, and LCO still
 * gives the outer checksum from headers alone, corrected (RFC 1624) for
 * the seed and the RCO bits in place of the checksum and zeros.
 * Returns an enum tep_ocsum, -EINVAL for a combination that cannot give a
 * right checksum, or -EMSGSIZE when the outer datagram would exceed 64 KiB.
 */
int tep_encap_write(const struct tep_encap_tmpl *t, uint8_t *out,
		    const struct tep_encap_pkt *pkt);

/*
 * Will tep_encap_write() send this packet's inner checksum for the
 * receiver to finish (remote checksum offload)? GUE: a pending
 * ones-complement checksum. VXLAN, by Linux's rule (vxlan_build_skb()): a TCP or UDP
 * checksum, pending or complete, starting at an even offset of at most 254
 * from the inner Ethernet header, with nothing after the L4 datagram (the
 * receiver sums to the end of the frame) and its field in inner_contig.
 * The caller must then not ask the NIC for the inner checksum.
 */
bool tep_encap_rco(const struct tep_encap_tmpl *t,
		   const struct tep_encap_pkt *pkt);

/* The outer pseudo-header sum for an outer L4 length (UDP only). */
uint32_t tep_encap_outer_phdr(const struct tep_encap_tmpl *t, uint32_t l4_len);

/* ---- decapsulation ------------------------------------------------------ */

struct tep_decap {
	/* outer */
	uint16_t outer_l2_len;
	uint16_t outer_l3_len;
	uint16_t vlan_tci;	/* 0 if untagged */
	uint8_t outer_v6;
	uint8_t l4_proto;	/* IPPROTO_UDP or IPPROTO_GRE */
	uint8_t tos;
	uint8_t ttl;
	uint16_t src_off;	/* outer source address offset in buf */
	uint16_t dst_off;
	uint16_t sport, dport;	/* UDP */
	uint16_t l4_off;	/* UDP or GRE header */
	uint16_t l4_len;	/* UDP length, or GRE to end of IP payload */
	uint8_t csum_present;	/* outer UDP/GRE checksum non-zero/present */
	uint8_t csum_verified;	/* and it was summed here and is right */
	/* tunnel */
	uint8_t type;		/* enum tep_tun_type */
	uint8_t has_vni;	/* VXLAN/GENEVE VNI, or GRE key present */
	uint32_t vni;
	uint16_t tun_off;	/* tunnel header (after UDP; GRE: = l4_off) */
	uint16_t tun_len;	/* tunnel header incl. options */
	uint16_t opt_off;	/* GENEVE options / GUE optional fields */
	uint16_t opt_len;
	uint8_t oam;		/* GENEVE O bit */
	uint8_t has_rco;	/* GUE or VXLAN remote checksum offload */
	uint16_t rco_start;	/* relative to the inner packet */
	uint16_t rco_offset;	/* checksum field, relative to the inner packet */
	uint16_t inner_proto;	/* ethertype: TEB, IPV4 or IPV6 */
	uint16_t inner_off;
	uint16_t inner_len;
	/* Bytes at buf that may be read: all of the packet, or for a chained
	 * mbuf its first segment. Every header a parser reads lies below it
	 * (else TEP_R_HDR_SPLIT); a checksum over more is left undone
	 * (csum_verified 0) for the caller to sum over the chain. */
	uint32_t hdr_room;
};

/* Parse flags. */
#define TEP_PARSE_VERIFY_CSUM	0x1	/* sum the outer UDP/GRE datagram */
#define TEP_PARSE_ZERO_CSUM6	0x2	/* accept IPv6 UDP checksum 0 */
#define TEP_PARSE_IP4_CSUM_OK	0x4	/* the outer IPv4 header checksum was
					 * verified already (classification
					 * did): not summed again */

/*
 * Outer Ethernet (+802.1Q), IPv4/IPv6 and UDP or GRE header. On TEP_R_OK
 * the outer fields of d are set and l4_proto says which tunnel parser to
 * run next. The IPv4 header checksum is verified unless
 * TEP_PARSE_IP4_CSUM_OK says it was already; the UDP/GRE one
 * only with TEP_PARSE_VERIFY_CSUM (callers skip it when the NIC did).
 * Trailing Ethernet padding beyond the IP length is ignored.
 */
enum tep_reason tep_parse_outer(const uint8_t *buf, size_t len,
				unsigned int flags, struct tep_decap *d);

/*
 * The same for a packet of len bytes of which only the first hdr_room are
 * contiguous at buf (a chained mbuf: its first segment). Lengths are
 * checked against len, reads against hdr_room. TEP_PARSE_VERIFY_CSUM sums
 * the outer datagram only if it lies within hdr_room: otherwise
 * csum_present is set, csum_verified is not, and the caller sums the
 * chain (tep_decap_outer_phdr() gives the pseudo-header).
 */
enum tep_reason tep_parse_outer_seg(const uint8_t *buf, size_t hdr_room,
				    size_t len, unsigned int flags,
				    struct tep_decap *d);

/*
 * tep_parse_outer_seg() for a frame a classifier already checked: untagged
 * Ethernet and an IP header l3 describes (version, lengths within the
 * packet; the IPv4 checksum too when flags has TEP_PARSE_IP4_CSUM_OK).
 * What it did not check (IPv4 fragments and reserved bit, UDP/GRE) is
 * checked here; d and the result are what the full parse gives.
 */
enum tep_reason tep_parse_outer_l3(const uint8_t *buf, size_t hdr_room,
				   size_t len, unsigned int flags,
				   const struct tep_l3_info *l3,
				   struct tep_decap *d);

/* The outer UDP pseudo-header sum of a packet tep_parse_outer() took. */
uint32_t tep_decap_outer_phdr(const uint8_t *buf, const struct tep_decap *d);

/* Tunnel parsers, run on the UDP payload (GRE: the GRE header) of a
 * packet tep_parse_outer() accepted. They fill the tunnel and inner
 * fields of d. `buf`/`len` are the same as for tep_parse_outer(); after
 * tep_parse_outer_seg(), len is its hdr_room. */
enum tep_reason tep_parse_vxlan(const uint8_t *buf, size_t len,
				struct tep_decap *d);
enum tep_reason tep_parse_geneve(const uint8_t *buf, size_t len,
				 struct tep_decap *d);
/* FOU: ip_proto is what the receiving port carries (4 or 41). */
enum tep_reason tep_parse_fou(const uint8_t *buf, size_t len,
			      uint8_t ip_proto, struct tep_decap *d);
enum tep_reason tep_parse_gue(const uint8_t *buf, size_t len,
			      struct tep_decap *d);
enum tep_reason tep_parse_gre(const uint8_t *buf, size_t len,
			      unsigned int flags, struct tep_decap *d);

/*
 * Remote checksum offload, receive side (GUE or VXLAN): once the outer UDP
 * checksum is known to be right (verified by the NIC or by
 * tep_parse_outer), write the inner checksum the sender left to us, from
 * headers only: the region from rco_start to the end sums to ~(outer phdr
 * + bytes before it). buf is the whole packet as parsed. Returns TEP_R_OK
 * (also when there is no RCO), TEP_R_BAD_RCO or TEP_R_HDR_SPLIT.
 */
enum tep_reason tep_rco_apply(uint8_t *buf, const struct tep_decap *d);
/* The same, under its first name. */
enum tep_reason tep_gue_rco_apply(uint8_t *buf, const struct tep_decap *d);

/*
 * Inner checksum from a known-good outer UDP checksum (the receive-side
 * twin of LCO): the UDP datagram with its pseudo-header sums to -0, so the
 * inner L4 region, from inner_l4 (offset in buf) to the end of the datagram,
 * sums to ~(outer pseudo-header + the bytes in front of it). Adding the
 * inner pseudo-header sum says whether the inner TCP/UDP checksum is right
 * without reading a payload byte. `inner_phdr` is 0 for ICMPv4. Only
 * meaningful when d->csum_present and the outer checksum was verified (by
 * tep_parse_outer or the NIC), and the inner datagram ends where the outer
 * one does. Returns true when the inner checksum is right.
 */
bool tep_inner_csum_derive(const uint8_t *buf, const struct tep_decap *d,
			   uint32_t inner_l4, uint32_t inner_phdr);

/*
 * TCP segmentation (TSO/GSO done by tepd) of an Ethernet frame carrying a
 * TCP super-packet: IPv4 or IPv6 without extension headers. Every segment
 * gets the same headers with: IPv4 total length, ID (+1 per segment) and
 * header checksum; IPv6 payload length; TCP sequence number; CWR only on
 * the first segment, FIN and PSH only on the last (as Linux's
 * tcp_gso_segment()); and the TCP checksum field set to the pseudo-header
 * sum for the segment's length, so the segment leaves with its checksum
 * pending (completed by the NIC or by drivers/ in software, like any
 * packet whose checksum a guest left to us). Whatever the super-packet's
 * field held (virtio guests put the seed with or without the length) is
 * not used.
 */
struct tep_tso {
	uint16_t l3_off;	/* IP header (14 for an untagged frame) */
	uint16_t l3_len;	/* IPv4 IHL*4 or 40 */
	uint16_t l4_len;	/* TCP data offset*4 */
	uint16_t hdr_len;	/* l3_off + l3_len + l4_len */
	uint16_t mss;		/* payload bytes per segment */
	uint16_t nb_segs;
	uint32_t payload;	/* TCP payload bytes in the super-packet */
	uint8_t family;		/* 4 or 6 */
};

/* Check a super-packet's headers (hdr_room contiguous bytes at frame,
 * frame_len in all) and plan its segments. TEP_R_OK, or TEP_R_BAD_GSO /
 * TEP_R_TRUNCATED. A packet whose payload fits one segment gets
 * nb_segs = 1 (it still leaves with a pending checksum). */
enum tep_reason tep_tso_plan(const uint8_t *frame, size_t hdr_room,
			     uint32_t frame_len, uint16_t l3_off,
			     uint16_t mss, struct tep_tso *t);

/* Write the headers of segment idx (payload bytes seg_payload) to out
 * (t->hdr_len bytes), from the super-packet's headers at frame; out may be
 * frame itself (a super-packet that is one segment is fixed in place). */
void tep_tso_seg_hdr(const struct tep_tso *t, const uint8_t *frame,
		     uint8_t *out, uint16_t idx, uint16_t seg_payload);

/*
 * Proxy ARP/ND over an Ethernet-carrying tunnel (tep_proxy.c): turn the
 * request in frame (len bytes, an Ethernet frame) into its answer in
 * place, with mac as the answering link-layer address, and return the
 * answer's length; 0 when it is not a request to answer (not ARP/NS,
 * malformed, gratuitous ARP, DAD, about the sender's own address).
 * tep_proxy_nd needs room >= 86 bytes at frame (the NA with its option).
 */
uint32_t tep_proxy_arp(uint8_t *frame, uint32_t len, const uint8_t mac[6]);
uint32_t tep_proxy_nd(uint8_t *frame, uint32_t len, uint32_t room,
		      const uint8_t mac[6]);

#endif /* TEP_PROTO_H */
