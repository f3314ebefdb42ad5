/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_REASON_H
#define TEP_REASON_H

/*
 * Why a packet was not accepted: parse verdicts first, then the datapath's
 * own reasons. One list gives the enum, the counter names
 * (drop_<name>) and their help strings, so a parser's verdict, the datapath's
 * counters and tepctl's output can never disagree.
 */
#define TEP_REASONS(X) \
	X(OK,              "ok",              "accepted") \
	X(TRUNCATED,       "truncated",       "shorter than its headers say") \
	X(BAD_VERSION,     "bad_version",     "unknown IP or tunnel header version") \
	X(BAD_LENGTH,      "bad_length",      "a length field disagrees with the packet") \
	X(BAD_HDR_LEN,     "bad_hdr_len",     "header length field out of range") \
	X(RESERVED_SET,    "reserved_set",    "reserved bits that must be zero are set") \
	X(BAD_FLAGS,       "bad_flags",       "required flag missing or unknown flag set") \
	X(UNKNOWN_PROTO,   "unknown_proto",   "protocol or ethertype not carried here") \
	X(FRAGMENT,        "fragment",        "outer IP fragment (not reassembled)") \
	X(BAD_IP_CSUM,     "bad_ip_csum",     "outer IPv4 header checksum wrong") \
	X(BAD_OUTER_CSUM,  "bad_outer_csum",  "outer UDP or GRE checksum wrong") \
	X(ZERO_UDP6_CSUM,  "zero_udp6_csum",  "IPv6 UDP checksum 0 (RFC 6935 not enabled)") \
	X(BAD_OPTION,      "bad_option",      "malformed tunnel option") \
	X(CRITICAL_OPTION, "critical_option", "unknown critical GENEVE option") \
	X(CONTROL_MSG,     "control_msg",     "GUE control message") \
	X(BAD_RCO,         "bad_rco",         "remote checksum offload field out of range") \
	X(OAM,             "oam",             "GENEVE OAM frame (not handled)") \
	X(NO_TUNNEL,       "no_tunnel",       "no tunnel matches type, VNI/key and remote") \
	X(NO_ROUTE,        "no_route",        "no route in the VRF") \
	X(BLACKHOLE,       "blackhole",       "blackhole route") \
	X(NO_NEIGH,        "no_neigh",        "next hop MAC unresolved") \
	X(TTL_EXCEEDED,    "ttl_exceeded",    "TTL or hop limit reached 0") \
	X(TOO_BIG,         "too_big",         "larger than the egress MTU, not fragmented") \
	X(BAD_GSO,         "bad_gso",         "segmentation request for other than TCP over IPv4/IPv6, or inconsistent") \
	X(NO_MBUF,         "no_mbuf",         "mbuf pool empty while segmenting") \
	X(NO_HEADROOM,     "no_headroom",     "no mbuf headroom for the outer headers") \
	X(ENCAP_FAILED,    "encap_failed",    "outer checksum impossible for this packet") \
	X(BAD_TX_META,     "bad_tx_meta",     "offload metadata refused at tx-prepare") \
	X(TX_FULL,         "tx_full",         "egress queue full") \
	X(PUNT_FULL,       "punt_full",       "control-thread queue full") \
	X(PORT_DOWN,       "port_down",       "port administratively down or without role") \
	X(NOT_ROUTABLE,    "not_routable",    "not IPv4/IPv6, or no handler for it") \
	X(MULTICAST,       "multicast",       "multicast or broadcast IP, not routed") \
	X(LOCAL,           "local",           "for tepd itself, not answered") \
	X(NOT_FOR_US,      "not_for_us",      "destination MAC not ours, not broadcast, not a group tepd uses") \
	X(TUNNEL_ND,       "tunnel_nd",       "ARP/ND from inside a tunnel that the proxy does not answer") \
	X(LINK_LOCAL,      "link_local",      "link-local source or destination, not forwarded") \
	X(PUNT_POLICED,    "punt_policed",    "over the punt rate (per reason and VRF, or per source)") \
	X(HOLD_LIMIT,      "hold_limit",      "VRF's share of held packets or unresolved neighbours used up") \
	X(HDR_SPLIT,       "hdr_split",       "chained packet whose headers do not all fit its first segment")

enum tep_reason {
#define X(e, name, help) TEP_R_##e,
	TEP_REASONS(X)
#undef X
	TEP_R_MAX
};

/* "truncated", "bad_version", ...: the suffix of the drop_* counters. */
const char *tep_reason_name(enum tep_reason r);
const char *tep_reason_help(enum tep_reason r);

#endif /* TEP_REASON_H */
