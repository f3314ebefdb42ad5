/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * The control commands (docs/commands.md). The config file and the socket
 * run the same table. Every handler validates all of its arguments before
 * it changes anything, so a refused command leaves the running state as it
 * was; where a change has two steps (an address's local and connected
 * routes) the first is undone if the second fails.
 *
 * This file is the index: the table names every command and its handler,
 * and an object's handlers are in cmd_OBJECT.c (cmd_port.c, cmd_vrf.c,
 * ...; cmds.h); the argument parsers they share are in args.c.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"

/* ---- the table ---------------------------------------------------------- */

static const struct tep_ctl_cmd cmds[] = {
	{ "port list", NULL, "list ports", 0, 0, 0, cmd_port_list },
	{ "port show", "PORT", "show one port and its offloads", 1, 1, 0,
	  cmd_port_show },
	{ "port set", "PORT (role underlay|access|none | mtu N | up | down | "
	  "offload NAME on|off)", "change a port", 2, 4, 0, cmd_port_set },
	{ "port restart", "PORT", "stop and start a port, keeping its "
	  "addresses, routes and bindings", 1, 1, 0, cmd_port_restart },
	{ "port bind", "PORT vrf NAME", "bind an access port to a VRF", 3, 3,
	  0, cmd_port_bind },
	{ "addr add", "IP/LEN dev PORT", "add an address to a port", 3, 3, 0,
	  cmd_addr_add },
	{ "addr del", "IP/LEN dev PORT", "delete a port address", 3, 3, 0,
	  cmd_addr_del },
	{ "neigh add", "IP lladdr MAC dev PORT", "add a permanent neighbour",
	  5, 5, 0, cmd_neigh_add },
	{ "neigh del", "IP dev PORT", "delete a neighbour", 3, 3, 0,
	  cmd_neigh_del },
	{ "neigh show", NULL, "list neighbours", 0, 0, 0, cmd_neigh_show },
	{ "vrf add", "NAME [table ID]", "create a VRF", 1, 3, 0, cmd_vrf_add },
	{ "vrf del", "NAME", "delete a VRF (nothing may be bound to it)", 1,
	  1, 0, cmd_vrf_del },
	{ "vrf list", NULL, "list VRFs", 0, 0, 0, cmd_vrf_list },
	{ "vrf exec", "NAME -- COMMAND [ARGS...]", "run a command in a VRF "
	  "(tepctl; needs tepd -N)", 1, 1, 0, cmd_vrf_exec },
	{ "vrf pids", "NAME", "tasks running in a VRF", 1, 1, 0,
	  cmd_vrf_pids },
	{ "tunnel add", "NAME type vxlan|geneve|fou|gue|gre local IP remote "
	  "IP [vni N|key N] [dstport N] [vrf NAME] [csum lco|full|offload|off]"
	  " [ttl N] [tos N|inherit] [srcport LO-HI] [inner-dmac MAC] [inner-smac MAC] "
	  "[inner ipv4|ipv6] [gre-csum on|off] [rco on|off] [df on|off]",
	  "create a tunnel", 7, TEP_CTL_ARGS_ANY, 0, cmd_tunnel_add },
	{ "tunnel del", "NAME", "delete a tunnel (no route may use it)", 1, 1,
	  0, cmd_tunnel_del },
	{ "tunnel show", "[NAME]", "show tunnels", 0, 1, 0, cmd_tunnel_show },
	{ "route add", "PREFIX [vrf NAME] (via IP [dev PORT] | tunnel NAME | "
	  "blackhole | nexthop (via IP [dev PORT] | dev PORT | tunnel NAME) "
	  "[weight N]... | nexthops (IP|TUNNEL)[,WEIGHT]...)",
	  "add a route: one path, or several (at most 64) sharing its flows "
	  "by weight", 2, TEP_CTL_ARGS_ANY, 0, cmd_route_add },
	{ "route replace", "PREFIX [vrf NAME] PATHS (as route add)",
	  "add a route, or change an existing one's paths in place", 2,
	  TEP_CTL_ARGS_ANY, 0, cmd_route_replace },
	{ "route del", "PREFIX [vrf NAME]", "delete a route", 1, 3, 0,
	  cmd_route_del },
	{ "route show", "[vrf NAME] [PREFIX]",
	  "list a VRF's routes (within PREFIX); a long list comes in pieces",
	  0, 3, TEP_CTL_CMD_STREAM, cmd_route_show },
	{ "route get", "ADDR [vrf NAME] [from IP] [proto tcp|udp|sctp|N] "
	  "[sport N] [dport N] | [hash H]", "the route a packet to ADDR "
	  "takes; over several paths, the one its flow takes", 1, 13, 0,
	  cmd_route_get },
	{ "route groups", "[ID]", "the next-hop groups of multipath routes: "
	  "members, weights, buckets, failover counters", 0, 1, 0,
	  cmd_route_groups },
	{ "stats", "[port P | vrf NAME | tunnel NAME]", "counters", 0, 2, 0,
	  cmd_stats },
	{ "stats clear", NULL, "count from zero again (tepctl's view)", 0, 0,
	  0, cmd_stats_clear },
	{ "stats watch", "[interval MS]", "a snapshot every interval until "
	  "the client leaves", 0, 2, TEP_CTL_CMD_STREAM, cmd_stats_watch },
	{ "fpm show", NULL, "the FPM server (tepd -P): connection, replay, "
	  "counters", 0, 0, 0, cmd_fpm_show },
	{ "fpm set", "quiet SECONDS | hold SECONDS | stale SECONDS | "
	  "uids UID|USER[,...]|none|any | remote on|off | tunnels N | "
	  "nexthops N",
	  "replay complete after QUIET s without a frame (default 2); "
	  "routes of a vanished zebra kept HOLD s (default 60); BGP routes "
	  "not replayed kept STALE s more (default 0); who may connect "
	  "besides root and tepd's uid (default: user frr); peers outside "
	  "tepd's namespace let in (default off); FPM makes at most N "
	  "tunnels (default 768) and next hops (default 24575)", 2, 2, 0,
	  cmd_fpm_set },
	{ "evpn local", "IP|auto", "the local VTEP address of new EVPN "
	  "tunnels (auto, the default: the first address of the family on "
	  "an underlay port)", 1, 1, 0,
	  cmd_evpn_local },
	{ "evpn vrf", "NAME vni N [rmac MAC]", "the VRF's L3VNI, for EVPN "
	  "routes from FPM that carry none (0: none), and tepd's router MAC "
	  "in it", 3, 5, 0, cmd_evpn_vrf },
	{ "evpn show", NULL, "L3VNIs, router MACs, EVPN tunnels, pending "
	  "routes", 0, 0, 0, cmd_evpn_show },
	{ "offload show", NULL, "per port: what the NIC does, what tepd does "
	  "in software", 0, 0, 0, cmd_offload_show },
};

struct tep_ctl_table *
tep_cmds_table(void)
{
	struct tep_ctl_table *t = tep_ctl_table_new();
	struct tep_err err;

	if (t == NULL)
		return NULL;
	tep_err_clear(&err);
	if (tep_ctl_register_all(t, cmds, RTE_DIM(cmds), &err) != 0) {
		fprintf(stderr, "tepd: commands: %s\n", err.msg);
		tep_ctl_table_free(t);
		return NULL;
	}
	return t;
}
