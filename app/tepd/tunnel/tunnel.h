/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_TUNNEL_H
#define TEPD_TUNNEL_H

/*
 * Making and deleting tunnels (tunnel.c), for `tunnel add`/`tunnel del`
 * (cmd_tunnel.c, after parsing their words) and for fpm.c's EVPN tunnels:
 * one set of checks for both. Control thread only.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

#include "tepd.h"

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
