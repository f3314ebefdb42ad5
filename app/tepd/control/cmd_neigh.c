/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * neigh add, del, show: permanent neighbours set by hand, and the table as
 * it is. The table and its resolution are neigh.c's.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "cmds.h"
#include "args.h"
#include "neigh.h"
#include "port.h"

static int
cmd_neigh(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *o,
	  struct tep_err *err, bool add)
{
	struct rte_ether_addr mac;
	uint8_t ip[16];
	int family, pi, i = 1;

	(void)ctx;
	(void)o;
	if (parse_ip(argv[0], &family, ip) != 0)
		return ERR(EINVAL, "bad address \"%s\"", argv[0]);
	if (add) {
		if (argc != 5 || strcmp(argv[1], "lladdr") != 0)
			return ERR(EINVAL, "expected: IP lladdr MAC dev PORT");
		if (parse_mac(argv[2], &mac) != 0)
			return ERR(EINVAL, "lladdr \"%s\": not a MAC address",
				   argv[2]);
		i = 3;
	}
	if (argc != i + 2 || strcmp(argv[i], "dev") != 0)
		return ERR(EINVAL, "expected: dev PORT");
	pi = port_arg(argv[i + 1], err);
	if (pi < 0)
		return ENODEV;
	if (!add)
		return tep_neigh_del((uint16_t)pi, family, ip) == 0 ? 0 :
		       ERR(ENOENT, "no neighbour %s on %s", argv[0],
			   argv[i + 1]);
	if (tep_neigh_set((uint16_t)pi, family, ip, &mac, true) != 0)
		return ERR(ENOSPC, "neighbour table full");
	return 0;
}

int
cmd_neigh_add(struct tep_ctl_ctx *c, int n, char **v, struct tep_out *o,
	      struct tep_err *e)
{
	return cmd_neigh(c, n, v, o, e, true);
}

int
cmd_neigh_del(struct tep_ctl_ctx *c, int n, char **v, struct tep_out *o,
	      struct tep_err *e)
{
	return cmd_neigh(c, n, v, o, e, false);
}

int
cmd_neigh_show(struct tep_ctl_ctx *ctx, int argc, char **argv,
	       struct tep_out *o, struct tep_err *err)
{
	int i;

	(void)ctx;
	(void)argc;
	(void)argv;
	(void)err;
	tep_out_open_array(o, "neighbours");
	for (i = 0; i < TEP_NEIGH_MAX; i++) {
		const struct tep_neigh *n = &tep_neighs[i];
		char a[INET6_ADDRSTRLEN], mac[RTE_ETHER_ADDR_FMT_SIZE];
		struct rte_ether_addr e;

		if (!n->used)
			continue;
		memcpy(e.addr_bytes, &n->mac, 6);
		rte_ether_format_addr(mac, sizeof(mac), &e);
		tep_out_open_object(o, NULL);
		tep_out_str(o, "address", "%s",
			    ip_str(n->key.family, n->key.ip, a, sizeof(a)));
		tep_out_str(o, "dev", " dev %s", tep_ports[n->key.port].name);
		tep_out_str(o, "lladdr", n->mac ? " lladdr %s" : NULL, mac);
		tep_out_str(o, "state", " %s", n->is_static ? "permanent" :
			    n->mac ? "reachable" : "incomplete");
		tep_out_newline(o);
		tep_out_close_object(o);
	}
	tep_out_close_array(o);
	return 0;
}
