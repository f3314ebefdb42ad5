/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_TUNNEL_H
#define TEPD_TUNNEL_H

/*
 * Tunnels (tunnel.c): the objects workers encapsulate into and match
 * decapsulated packets to, and making and deleting them, for `tunnel
 * add`/`tunnel del` (control/cmd_tunnel.c, after parsing their words) and
 * for EVPN's tunnels (evpn/evpn.c): one set of checks for both. The
 * control thread writes them; a published tunnel is immutable, read by
 * workers under RCU.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pthread.h>

#include <rte_ether.h>
#include <rte_hash.h>

#include "tep_proto.h"
#include "tepd.h"

/* ---- tunnels ------------------------------------------------------------ */

/* What encapsulation reads of a tunnel for each packet comes first, so
 * that it spans two cache lines (this block and the template's scalars,
 * then the template's first bytes); the rest after it. */
struct tep_tunnel {
	uint32_t id;
	uint16_t vrf;
	uint16_t dport;
	struct rte_ether_addr inner_dmac;	/* the remote router's MAC */
	struct rte_ether_addr inner_smac;	/* ours, on the overlay */
	uint16_t overhead;			/* bytes added by encap */
	uint8_t csum_asked;			/* csum mode as configured */
	/* Sum of the inner Ethernet header encap writes, for an IPv4 [0]
	 * and an IPv6 [1] packet (tep_encap_pkt.inner_pre_sum). */
	uint32_t inner_eth_sum[2];
	struct tep_encap_tmpl tmpl;
	struct tep_encap_params p;
	uint8_t geneve_opts[TEP_GENEVE_OPT_MAX];
	char name[TEP_NAME_MAX];
};

/* The layout the comment above promises: the template's header bytes
 * begin within the second cache line. */
_Static_assert(offsetof(struct tep_tunnel, tmpl.hdr) < 2 * RTE_CACHE_LINE_SIZE,
	       "struct tep_tunnel: what encap reads spans more lines");

/* Decapsulation key: which tunnel a packet from the underlay belongs to. */
struct tep_tun_key {
	uint8_t type;
	uint8_t v6;
	uint16_t pad;
	uint32_t vni;
	uint8_t remote[16];
};

extern struct tep_tunnel *tep_tunnels[TEP_TUNNELS_MAX];	/* RCU */
/* DPDK's telemetry thread reads tunnels too, but is no RCU reader (it
 * never reports quiescent states): it holds this lock while it does, and
 * the control thread while it frees one. */
extern pthread_mutex_t tep_tunnel_free_lock;
extern struct rte_hash *tep_tun_hash;		/* key -> id, LF */
extern uint8_t tep_udp_tun_type[65536];	/* dport -> tep_tun_type, 0xff none */

int tep_tunnels_init(char *err, size_t errlen);
/* A tunnel's id by name, or -1. */
int tep_tunnel_find(const char *name);

/* Called when a tunnel was deleted (its id may be reused by any tunnel):
 * who keeps state per tunnel registers here (evpn/evpn.c), so that
 * tunnel.c need not know them. One callback. */
typedef void (*tep_tunnel_gone_cb)(uint32_t id);
void tep_tunnel_on_gone(tep_tunnel_gone_cb cb);

/*
 * Options only some tunnel types implement: the bits of
 * tep_tunnel_spec.given, set for each the caller asks for (a key is
 * sent only when asked for). A type refuses those it does not implement
 * rather than take them and do nothing (`rco on` on geneve).
 */
enum tep_tunnel_opt {
	TEP_TUN_OPT_VNI		= 1u << 0,	/* vxlan, geneve */
	TEP_TUN_OPT_KEY		= 1u << 1,	/* gre */
	TEP_TUN_OPT_DSTPORT	= 1u << 2,	/* UDP types */
	TEP_TUN_OPT_SRCPORT	= 1u << 3,	/* UDP types */
	TEP_TUN_OPT_INNER_DMAC	= 1u << 4,	/* types carrying Ethernet */
	TEP_TUN_OPT_INNER_SMAC	= 1u << 5,	/* types carrying Ethernet */
	TEP_TUN_OPT_GRE_CSUM	= 1u << 6,	/* gre */
	TEP_TUN_OPT_RCO		= 1u << 7,	/* gue, vxlan */
	TEP_TUN_OPT_INNER	= 1u << 8,	/* fou, gue */
	TEP_TUN_OPT_MAX		= 9		/* number of bits */
};

/* What a tunnel is made of. tep_tunnel_spec_init() gives the defaults. */
struct tep_tunnel_spec {
	char name[TEP_NAME_MAX];
	enum tep_tun_type type;		/* TEP_TUN_MAX: none given */
	int family;			/* of local and remote: 4 or 6 */
	uint8_t local[16], remote[16];	/* IPv4 in the first 4 bytes */
	uint32_t vni;			/* VXLAN/GENEVE VNI, or GRE key */
	uint16_t vrf;
	uint16_t dstport;		/* 0: the type's */
	uint16_t sport_lo, sport_hi;	/* 0, 0: 49152-65535 */
	enum tep_csum_mode csum;	/* as asked (offload is done by lco) */
	uint8_t ttl;			/* 0: 64 */
	uint8_t dscp;			/* outer DSCP unless tos_inherit */
	bool tos_inherit;
	bool df;			/* IPv4 outer DF */
	bool gre_csum;
	bool rco;
	uint8_t inner_proto;		/* FOU/GUE: inner IP protocol, 4 or 41 */
	struct rte_ether_addr inner_dmac;	/* the remote router's MAC */
	struct rte_ether_addr inner_smac;	/* zero: 02:74:65:70:ID */
	uint32_t given;			/* enum tep_tunnel_opt bits */
};

/* The defaults: no type, csum lco, df on, inner ipv4, vrf default. */
void tep_tunnel_spec_init(struct tep_tunnel_spec *s);

/*
 * Make the tunnel and publish it to the workers: 0 and its id in *id
 * (id may be NULL), or an errno with the reason in err, nothing changed.
 * Refused if the name is taken, a tunnel has the same type, vni/key and
 * remote (received packets are matched to tunnels by these), the spec is
 * incomplete or inconsistent (an option its type does not implement
 * among them), or no id is free.
 */
int tep_tunnel_create(const struct tep_tunnel_spec *s, uint32_t *id,
		      char *err, size_t errlen);

/* Delete tunnel id: 0, or an errno with the reason in err (none such,
 * routes still use it), nothing changed. */
int tep_tunnel_delete(uint32_t id, char *err, size_t errlen);

#endif /* TEPD_TUNNEL_H */
