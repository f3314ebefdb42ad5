/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_FPM_H
#define TEP_FPM_H

/*
 * Parser for the FPM stream that FRR's zebra (-M dplane_fpm_nl) sends to a
 * dataplane (docs/evpn.md). Pure functions on byte buffers: no sockets, no
 * allocation, no DPDK; the daemon side frames the TCP stream with
 * tep_fpm_frame_check() and decodes each whole frame's messages with
 * tep_fpm_decode_next().
 *
 * Frame: a 4-byte header {version 1, type 1 (netlink), total length u16
 * big-endian, header included}, then one or more netlink messages. The
 * netlink part is in the host byte order of the zebra that wrote it (a
 * netlink property); tepd and zebra run on the same host.
 *
 * Strictness: anything that could make a route mean something else is an
 * error with a stable name (tep_fpm_err_str()); attributes this parser
 * does not know are skipped, as netlink is meant to grow, but a known
 * attribute with the wrong size is an error. Messages that are well formed
 * but of no use to tepd decode as TEP_FPM_IGNORED with a reason.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TEP_FPM_HDR_LEN		4
#define TEP_FPM_VERSION		1
#define TEP_FPM_TYPE_NETLINK	1
/* header + nlmsghdr: anything shorter cannot carry a message */
#define TEP_FPM_MIN_FRAME	(TEP_FPM_HDR_LEN + 16)
/* the length field is 16 bits */
#define TEP_FPM_MAX_FRAME	65535u
/* FRR's RTA_ENCAP_TYPE value for VXLAN (fpm.h FPM_NH_ENCAP_VXLAN) */
#define TEP_FPM_ENCAP_VXLAN	100
/* next hops of a route (RTA_MULTIPATH), members of a next-hop group:
 * those kept */
#define TEP_FPM_MAX_NH		64
/*
 * ... and those a message may have. zebra sends up to its MULTIPATH_NUM,
 * 256 in Debian's and FRR's own packages (`--enable-multipath=256`): a
 * route or group with 65 to 256 is well formed and decodes with its first
 * TEP_FPM_MAX_NH (the rest checked, counted in nh_dropped, not kept). More
 * than this is an error (NH_TOO_MANY): no zebra of those packages sends
 * it.
 */
#define TEP_FPM_MAX_PATHS	256

/* One list, the enum and the names: names are stable (tests, logs). */
#define TEP_FPM_ERRORS(X)						\
	X(OK, "ok")							\
	X(INCOMPLETE, "incomplete frame")				\
	X(TRUNC_HDR, "truncated header")				\
	X(VERSION, "bad version")					\
	X(TYPE, "bad frame type")					\
	X(FRAME_SHORT, "frame length below minimum")			\
	X(FRAME_LEN, "frame length disagrees with buffer")		\
	X(NLMSG_LEN, "nlmsg_len disagrees with frame length")		\
	X(BODY_SHORT, "message shorter than its fixed header")		\
	X(ATTR_TRUNC, "truncated attribute header")			\
	X(ATTR_SHORT, "attribute length below header")			\
	X(ATTR_PAST_END, "attribute past end")				\
	X(NESTED_TRUNC, "truncated nested attribute header")		\
	X(NESTED_SHORT, "nested attribute length below header")	\
	X(NESTED_PAST_END, "nested attribute past end")		\
	X(RTNH_TRUNC, "truncated next hop header")			\
	X(RTNH_SHORT, "next hop length below header")			\
	X(RTNH_PAST_END, "next hop past end")				\
	X(ATTR_SIZE, "wrong attribute size")				\
	X(DUP_ATTR, "duplicate attribute")				\
	X(PLEN, "bad prefix length")					\
	X(DST_MISSING, "prefix length without destination")		\
	X(GW_FAMILY, "gateway family mismatch")			\
	X(NH_MIXED, "multipath with top-level next hop")		\
	X(NH_EMPTY, "empty multipath")					\
	X(NH_TOO_MANY, "too many next hops")				\
	X(NO_NH, "unicast route without next hop")			\
	X(VNI_MISSING, "vxlan encap without vni")			\
	X(VNI_RANGE, "vni out of range")				\
	X(ENCAP_NO_TYPE, "encap without encap type")			\
	X(MAC_MISSING, "neighbour without mac")				\
	X(NHID_MISSING, "next hop object without id")			\
	X(NHG_SELF, "group contains itself")				\
	X(NHG_DUP, "group member listed twice")			\
	X(NHG_MISSING, "group member unknown")				\
	X(NHG_NESTED, "group member is a group")			\
	X(NHG_WEIGHT, "group member weight 0")				\
	X(NH_UNKNOWN, "unknown next hop object")			\
	X(NH_IN_USE, "next hop object in use by a group")		\
	X(NHTAB_FULL, "next hop object table full")

enum tep_fpm_err {
#define TEP_FPM_X(n, s) TEP_FPM_E_##n,
	TEP_FPM_ERRORS(TEP_FPM_X)
#undef TEP_FPM_X
	TEP_FPM_E_MAX
};

/* Never NULL; "unknown error" outside the enum. */
const char *tep_fpm_err_str(int err);

#define TEP_FPM_IGNORE_REASONS(X)					\
	X(NONE, "not ignored")						\
	X(MSG_TYPE, "other netlink message type")			\
	X(FAMILY, "other address family")				\
	X(ROUTE_TYPE, "unsupported route type")				\
	X(SRC_PREFIX, "source-specific route")

enum tep_fpm_ignore {
#define TEP_FPM_X(n, s) TEP_FPM_IGN_##n,
	TEP_FPM_IGNORE_REASONS(TEP_FPM_X)
#undef TEP_FPM_X
	TEP_FPM_IGN_MAX
};

const char *tep_fpm_ignore_str(int reason);

enum tep_fpm_kind {
	TEP_FPM_IGNORED = 0,
	TEP_FPM_ROUTE_ADD,	/* RTM_NEWROUTE: add or replace */
	TEP_FPM_ROUTE_DEL,	/* RTM_DELROUTE */
	TEP_FPM_MAC_ADD,	/* RTM_NEWNEIGH, AF_BRIDGE: e.g. a router MAC */
	TEP_FPM_MAC_DEL,	/* RTM_DELNEIGH, AF_BRIDGE */
	TEP_FPM_NH_ADD,		/* RTM_NEWNEXTHOP: add or replace */
	TEP_FPM_NH_DEL,		/* RTM_DELNEXTHOP */
};

const char *tep_fpm_kind_str(int kind);

/* rtm_type values tepd can act on (linux/rtnetlink.h) */
enum tep_fpm_rtype {
	TEP_FPM_RTN_UNSPEC = 0,		/* what zebra puts in deletes */
	TEP_FPM_RTN_UNICAST = 1,
	TEP_FPM_RTN_BLACKHOLE = 6,
	TEP_FPM_RTN_UNREACHABLE = 7,
	TEP_FPM_RTN_PROHIBIT = 8,
};

struct tep_fpm_nh {
	/* 0 (no gateway: on-link via oif), AF_INET or AF_INET6 */
	uint8_t gw_family;
	/* the gateway came as ::ffff:a.b.c.d and is given here as IPv4 */
	bool gw_mapped;
	uint8_t flags;		/* rtnh_flags; 0 outside RTA_MULTIPATH */
	/* rtnh_hops + 1 (the wire says one less); 1 outside RTA_MULTIPATH */
	uint16_t weight;
	uint8_t gw[16];		/* 4 bytes used for AF_INET */
	uint32_t oif;		/* 0 if absent */
	uint16_t encap_type;	/* 0 none; TEP_FPM_ENCAP_VXLAN; other raw */
	uint32_t vni;		/* when encap_type == TEP_FPM_ENCAP_VXLAN */
};

struct tep_fpm_route {
	uint8_t family;		/* AF_INET or AF_INET6 */
	uint8_t plen;
	/* network order, host bits beyond plen cleared (see docs/evpn.md) */
	uint8_t prefix[16];
	bool host_bits;		/* host bits were set on the wire */
	uint32_t table;		/* RTA_TABLE if present, else rtm_table */
	uint8_t type;		/* enum tep_fpm_rtype */
	uint8_t protocol;	/* rtm_protocol (FRR: 196 static, 186 bgp) */
	uint8_t scope;
	uint32_t rtm_flags;
	bool has_metric;
	uint32_t metric;	/* RTA_PRIORITY */
	/* RTA_NH_ID: zebra's next-hop object (with `fpm use-next-hop-
	 * groups`); a unicast route may then come with no next hop of its
	 * own (nh_count 0). */
	bool has_nh_id;
	uint32_t nh_id;
	unsigned int nh_count;
	/* next hops past TEP_FPM_MAX_NH: well formed, not kept */
	unsigned int nh_dropped;
	struct tep_fpm_nh nh[TEP_FPM_MAX_NH];
};

struct tep_fpm_nhg_member {
	uint32_t id;
	uint16_t weight;	/* nexthop_grp.weight + 1: 1 to 256 */
};

/* A zebra next-hop object (RTM_NEWNEXTHOP / RTM_DELNEXTHOP). */
struct tep_fpm_nhobj {
	uint32_t id;		/* NHA_ID, never 0 */
	uint8_t family;		/* nh_family: AF_INET, AF_INET6 or 0 */
	uint8_t protocol;	/* nh_protocol */
	bool blackhole;		/* NHA_BLACKHOLE */
	bool is_group;		/* NHA_GROUP */
	uint16_t group_type;	/* NHA_GROUP_TYPE: 0 multipath, 1 resilient */
	/* a single next hop (neither group nor blackhole): NHA_GATEWAY,
	 * NHA_OIF, NHA_ENCAP_TYPE/NHA_ENCAP as in a route's */
	struct tep_fpm_nh nh;
	/* a group: 1 to TEP_FPM_MAX_NH distinct members, none itself:
	 * the first of up to TEP_FPM_MAX_PATHS, the rest (all checked the
	 * same) counted in ngroup_dropped */
	unsigned int ngroup;
	unsigned int ngroup_dropped;
	struct tep_fpm_nhg_member group[TEP_FPM_MAX_NH];
};

struct tep_fpm_mac {
	uint8_t mac[6];
	uint8_t vtep_family;	/* 0 if no NDA_DST */
	uint8_t vtep[16];	/* 4 bytes used for AF_INET */
	int32_t ifindex;	/* ndm_ifindex */
	uint16_t state;		/* ndm_state (NUD_*) */
	uint8_t flags;		/* ndm_flags (NTF_*) */
	uint8_t ndm_type;
	bool has_master;
	uint32_t master;	/* NDA_MASTER: the bridge */
	bool has_vlan;
	uint16_t vlan;		/* NDA_VLAN */
	bool has_vni;
	uint32_t vni;		/* NDA_VNI */
};

struct tep_fpm_msg {
	enum tep_fpm_kind kind;
	enum tep_fpm_ignore ignore;	/* why, when kind == IGNORED */
	uint16_t nlmsg_type;
	uint16_t nlmsg_flags;
	uint32_t nlmsg_seq;
	/*
	 * zebra's netlink port id for the namespace the message belongs
	 * to: with the netns VRF backend the only thing telling VRFs apart
	 * (all say table 254). Not stable across zebra restarts.
	 */
	uint32_t nlmsg_pid;
	union {
		struct tep_fpm_route route;
		struct tep_fpm_mac mac;
		struct tep_fpm_nhobj nhobj;	/* NH_ADD, NH_DEL (id only) */
	};
	/* on error: where (offset in the frame) and which attribute type
	 * (0 when not about an attribute); for logs */
	uint32_t err_off;
	uint16_t err_attr;
};

/*
 * Is there a whole frame at the start of buf[0..len)? OK with *frame_len
 * set; INCOMPLETE (with *frame_len set once the header is in, so that
 * the caller knows what to wait for); or an error, after which the
 * stream cannot be resynchronised. Checks the FPM header and, when the
 * frame is complete, that netlink messages fill it exactly: one or more
 * (zebra 8.4.4 sends a route change as RTM_DELROUTE + RTM_NEWROUTE in one
 * frame), each 4-byte aligned but the last.
 */
int tep_fpm_frame_check(const uint8_t *buf, size_t len, size_t *frame_len);

/*
 * Decode the netlink message at *off of the frame in frame[0..len) (len
 * must be the frame's length exactly; *off 0 for the first message) and
 * move *off to the next one: the frame is done when *off == len. Returns
 * TEP_FPM_E_OK with *out filled, or an error (then only out->err_off and
 * out->err_attr mean anything).
 */
int tep_fpm_decode_next(const uint8_t *frame, size_t len, size_t *off,
			struct tep_fpm_msg *out);

/* The frame's first message: tep_fpm_decode_next() from 0. */
int tep_fpm_decode(const uint8_t *frame, size_t len, struct tep_fpm_msg *out);

/*
 * zebra's next-hop objects, as RTM_NEWNEXTHOP / RTM_DELNEXTHOP make them,
 * in storage the caller gives (no allocation). A group's members must be
 * objects of the table that are not groups (as in the kernel), each once,
 * with weights of at least 1; an object a group uses is not deleted, nor
 * replaced by a group. Every refused change returns its error and leaves
 * the table as it was. Lookups are linear: meant for the thousands of
 * objects a zebra has, not millions.
 */
struct tep_fpm_nhent {
	struct tep_fpm_nhobj obj;
	uint32_t users;		/* groups that have it as a member */
};

struct tep_fpm_nhtab {
	struct tep_fpm_nhent *ent;
	unsigned int cap, n;
};

void tep_fpm_nhtab_init(struct tep_fpm_nhtab *t, struct tep_fpm_nhent *ent,
			unsigned int cap);
/* Add, or replace the object with the same id. */
int tep_fpm_nhtab_add(struct tep_fpm_nhtab *t, const struct tep_fpm_nhobj *o);
int tep_fpm_nhtab_del(struct tep_fpm_nhtab *t, uint32_t id);
/* The object, or NULL. */
const struct tep_fpm_nhobj *tep_fpm_nhtab_find(const struct tep_fpm_nhtab *t,
					       uint32_t id);
/*
 * The next hops object id stands for, as a route's would be: a single
 * one (weight 1), or a group's members with their weights, into
 * nh[0..*n) (TEP_FPM_MAX_NH room). A blackhole gives *n 0 and
 * *blackhole true. NH_UNKNOWN if there is no such object.
 */
int tep_fpm_nhtab_resolve(const struct tep_fpm_nhtab *t, uint32_t id,
			  struct tep_fpm_nh *nh, unsigned int *n,
			  bool *blackhole);

#ifdef __cplusplus
}
#endif

#endif /* TEP_FPM_H */
