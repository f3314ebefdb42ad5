/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_CMDS_H
#define TEPD_CMDS_H

/*
 * Inside app/tepd/control only: what the command files share. The table in
 * table.c names every command and its handler; an object's handlers are in
 * cmd_OBJECT.c; the argument parsers in args.h.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

#include "tep_ctl_cmd.h"
#include "tepd.h"

#include "args.h"
#include "port.h"

/* In a handler (its struct tep_err is err): set the error, return code. */
#define ERR(code, ...) tep_err_set(err, code, __VA_ARGS__)

/* ---- cmd_addr.c --------------------------------------------------------- */

/* An address's LOCAL and CONNECTED routes in vrf: both added or neither
 * (0 or an errno, with e), or both deleted. port bind moves them. */
int addr_routes(uint16_t port, const struct tep_addr *a, bool add,
		uint16_t vrf, char *e, size_t elen);

/* ---- cmd_nexthop.c ------------------------------------------------------ */

/* One path of a route into o: where a plain next hop sends (" via A dev
 * D", " tunnel T", ...; JSON via, dev, tunnel...). */
void out_nh_path(struct tep_out *o, const struct tep_nh *nh);

/* route get's flow: the fields of a packet the datapath hashes to choose
 * a group member when the NIC gave no RSS hash, or the hash itself. */
struct flow_arg {
	bool have_hash, have_from, have_proto, have_ports;
	uint32_t hash;
	int from_family;
	uint8_t from[16];
	uint32_t proto, sport, dport;
};
/* route get's words after ADDR (of family): vrf and the flow's, into *vrf
 * and f. 0, or an errno with err set. */
int route_flow_args(int argc, char **argv, int family, int *vrf,
		    struct flow_arg *f, struct tep_err *err);
/* The flow hash tepd's workers compute for a packet of flow f to dst. */
uint32_t route_flow_hash(const struct flow_arg *f, int family,
			 const uint8_t *dst);

/* ---- the handlers ------------------------------------------------------- */

/* struct tep_ctl_cmd's fn, written once rather than in 31 prototypes */
typedef int tep_cmd_handler(struct tep_ctl_ctx *ctx, int argc, char **argv,
			    struct tep_out *o, struct tep_err *err);

/* cmd_port.c */
tep_cmd_handler cmd_port_list, cmd_port_show, cmd_port_set, cmd_port_restart,
	cmd_port_bind, cmd_offload_show;
/* cmd_addr.c */
tep_cmd_handler cmd_addr_add, cmd_addr_del;
/* cmd_neigh.c */
tep_cmd_handler cmd_neigh_add, cmd_neigh_del, cmd_neigh_show;
/* cmd_vrf.c */
tep_cmd_handler cmd_vrf_add, cmd_vrf_del, cmd_vrf_list, cmd_vrf_exec,
	cmd_vrf_pids;
/* cmd_tunnel.c */
tep_cmd_handler cmd_tunnel_add, cmd_tunnel_del, cmd_tunnel_show;
/* cmd_route.c */
tep_cmd_handler cmd_route_add, cmd_route_replace, cmd_route_del,
	cmd_route_show, cmd_route_get;
/* cmd_nexthop.c */
tep_cmd_handler cmd_route_groups;
/* cmd_stats.c */
tep_cmd_handler cmd_stats, cmd_stats_clear, cmd_stats_watch;
/* cmd_fpm.c */
tep_cmd_handler cmd_fpm_show, cmd_fpm_set, cmd_evpn_local, cmd_evpn_vrf,
	cmd_evpn_show;

/* table.c: the table the control socket and the config file run */
struct tep_ctl_table *tep_cmds_table(void);

#endif /* TEPD_CMDS_H */
