/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * port list, show, set, restart, bind; offload show. A change workers
 * cache (a port's role, MTU, up or down) ends in tep_underlay_changed(), so
 * that they look again; bind moves the addresses' routes to the new VRF
 * with addr_routes() (cmd_addr.c), all or nothing.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "cmds.h"
#include "args.h"
#include "neigh.h"
#include "port.h"
#include "stats.h"
#include "vrfhost.h"

static const char *const role_names[] = {
	[TEP_ROLE_NONE] = "none",
	[TEP_ROLE_UNDERLAY] = "underlay",
	[TEP_ROLE_ACCESS] = "access",
};

static void
out_port(struct tep_out *o, const struct tep_port *p)
{
	char mac[RTE_ETHER_ADDR_FMT_SIZE], a[INET6_ADDRSTRLEN + 8];
	int i;

	rte_ether_format_addr(mac, sizeof(mac), &p->mac);
	tep_out_open_object(o, NULL);
	tep_out_u64(o, "id", "%" PRIu64 ": ", p->id);
	tep_out_str(o, "name", "%s", p->name);
	tep_out_str(o, "driver", " driver %s", p->driver);
	tep_out_str(o, "role", " role %s", role_names[p->role]);
	tep_out_str(o, "vrf", " vrf %s", tep_rib.vrf[p->vrf]->name);
	tep_out_str(o, "mac", " mac %s", mac);
	tep_out_u64(o, "mtu", " mtu %" PRIu64, p->mtu);
	tep_out_str(o, "state", " %s", p->up ? "up" : "down");
	tep_out_bool(o, "vrf_host", p->vrf_host ? " vrf-host" : "",
		     p->vrf_host);
	tep_out_newline(o);
	tep_out_open_array(o, "addresses");
	for (i = 0; i < p->naddr; i++) {
		char s[INET6_ADDRSTRLEN];

		snprintf(a, sizeof(a), "%s/%u",
			 ip_str(p->addr[i].family, p->addr[i].a, s, sizeof(s)),
			 p->addr[i].len);
		tep_out_str(o, NULL, "    addr %s\n", a);
	}
	tep_out_close_array(o);
	tep_out_close_object(o);
}

static void
out_offload(struct tep_out *o, const struct tep_port *p)
{
	struct tep_txcaps_info info;
	struct tep_cnt_port c;

	tep_txcaps_info(&p->txcaps, &info);
	tep_cnt_sum_port(p->id, &c);
	tep_out_open_object(o, NULL);
	tep_out_str(o, "port", "port %s", p->name);
	tep_out_str(o, "driver", " (%s)", info.driver);
	tep_out_str(o, "inner_csum_mode", " inner checksum: %s", info.mode);
	tep_out_newline(o);
	tep_out_str(o, "why", "    why: %s\n", info.why);
	tep_out_str(o, "hardware", "    by the NIC: %s\n", info.hw);
	tep_out_str(o, "software", "    in software: %s\n", info.sw);
	tep_out_u64(o, "tx_offloads", "    txmode.offloads 0x%" PRIx64 "\n",
		    info.offloads);
	tep_out_str(o, "outer_ipv4_csum", "    outer IPv4 header checksum: %s\n",
		    "software, always (the header is in cache)");
	tep_out_str(o, "outer_udp_csum", "    outer UDP checksum: %s\n",
		    "per tunnel csum mode (lco by default, in software)");
	tep_out_u64(o, "hw_inner_csum", "    inner checksums: by NIC %" PRIu64,
		    c.hw_csum);
	tep_out_u64(o, "sw_inner_csum", ", in software %" PRIu64 "\n",
		    c.sw_csum);
	tep_out_str(o, "source_port_hash", "    tunnel source port from: %s\n",
		    p->rx_rss_hash ? "the NIC's RSS hash" :
		    "tepd's hash (CRC32 of the inner addresses and ports)");
	tep_out_str(o, "rx_jumbo", "    long frames: %s",
		    p->rx_scatter ? "scattered into a chain" :
		    "one buffer a frame");
	tep_out_u64(o, "rx_buf", ", %" PRIu64 "-byte buffers", p->rx_buf);
	tep_out_u64(o, "mtu", "; mtu %" PRIu64, p->mtu);
	tep_out_u64(o, "max_mtu", ", at most %" PRIu64, p->max_mtu);
	tep_out_str(o, "mtu_limit", " (%s)\n", p->mtu_limit);
	tep_out_close_object(o);
}

/* Every port, as `out` writes one. */
static int
out_ports(struct tep_out *o,
	  void (*out)(struct tep_out *o, const struct tep_port *p))
{
	uint16_t i;

	tep_out_open_array(o, "ports");
	for (i = 0; i < tep_nb_ports; i++)
		if (tep_ports[i].present)
			out(o, &tep_ports[i]);
	tep_out_close_array(o);
	return 0;
}

int
cmd_port_list(struct tep_ctl_ctx *ctx, int argc, char **argv,
	      struct tep_out *o, struct tep_err *err)
{
	(void)ctx;
	(void)argc;
	(void)argv;
	(void)err;
	return out_ports(o, out_port);
}

int
cmd_port_show(struct tep_ctl_ctx *ctx, int argc, char **argv,
	      struct tep_out *o, struct tep_err *err)
{
	int p = port_arg(argv[0], err);

	(void)ctx;
	(void)argc;
	if (p < 0)
		return ENODEV;
	tep_out_open_array(o, "ports");
	out_port(o, &tep_ports[p]);
	tep_out_close_array(o);
	tep_out_open_array(o, "offloads");
	out_offload(o, &tep_ports[p]);
	tep_out_close_array(o);
	return 0;
}

static int
offload_bit(const char *name, uint64_t *bit)
{
	int b;

	for (b = 0; b < 64; b++) {
		const char *n = rte_eth_dev_tx_offload_name(1ULL << b);

		if (n != NULL && strcasecmp(n, name) == 0) {
			*bit = 1ULL << b;
			return 0;
		}
	}
	return -1;
}

int
cmd_port_set(struct tep_ctl_ctx *ctx, int argc, char **argv,
	     struct tep_out *o, struct tep_err *err)
{
	int pi = port_arg(argv[0], err);
	struct tep_port *p;
	const char *what = argv[1];
	char e[256];

	(void)ctx;
	(void)o;
	if (pi < 0)
		return ENODEV;
	p = &tep_ports[pi];
	if (strcmp(what, "role") == 0 && argc == 3) {
		int r;

		if (refuse_host_port(p, err) != 0)
			return EPERM;
		for (r = 0; r < 3; r++)
			if (strcmp(argv[2], role_names[r]) == 0)
				break;
		if (r == 3)
			return ERR(EINVAL, "role \"%s\": underlay, access or "
				   "none", argv[2]);
		if (r == TEP_ROLE_UNDERLAY && p->vrf != TEP_VRF_DEFAULT)
			return ERR(EINVAL, "an underlay port must be in vrf "
				   "default (it is in \"%s\")",
				   tep_rib.vrf[p->vrf]->name);
		__atomic_store_n(&p->role, (uint8_t)r, __ATOMIC_RELEASE);
		tep_underlay_changed();
		return 0;
	}
	if (strcmp(what, "mtu") == 0 && argc == 3) {
		uint32_t mtu;
		int ret;

		if (parse_u32(argv[2], 65535, &mtu) != 0 || mtu < 68)
			return ERR(EINVAL, "mtu \"%s\": 68-65535", argv[2]);
		ret = tep_port_set_mtu(p, (uint16_t)mtu, e, sizeof(e));
		if (ret != 0)
			return ERR(-ret, "%s", e);
		/* Tunnels cache their egress MTU: look again. */
		tep_underlay_changed();
		return 0;
	}
	if ((strcmp(what, "up") == 0 || strcmp(what, "down") == 0) &&
	    argc == 2) {
		__atomic_store_n(&p->up, what[0] == 'u', __ATOMIC_RELEASE);
		/* Workers cache tunnel egress ports: look again. */
		tep_underlay_changed();
		return 0;
	}
	if (strcmp(what, "offload") == 0 && argc == 4) {
		uint64_t bit, saved = p->tx_disabled;

		if (offload_bit(argv[2], &bit) != 0)
			return ERR(EINVAL, "unknown tx offload \"%s\" (e.g. "
				   "udp_cksum, tcp_cksum, outer_udp_cksum)",
				   argv[2]);
		if (strcmp(argv[3], "on") == 0)
			p->tx_disabled &= ~bit;
		else if (strcmp(argv[3], "off") == 0)
			p->tx_disabled |= bit;
		else
			return ERR(EINVAL, "offload %s: on or off", argv[2]);
		if (p->tx_disabled == saved)
			return 0;
		if (tep_port_restart(p->id, e, sizeof(e)) != 0) {
			p->tx_disabled = saved;
			tep_port_restart(p->id, e, sizeof(e));
			return ERR(EIO, "%s", e);
		}
		return 0;
	}
	return ERR(EINVAL, "port set %s: expected role underlay|access|none, "
		   "mtu N, up, down, or offload NAME on|off", p->name);
}

int
cmd_port_restart(struct tep_ctl_ctx *ctx, int argc, char **argv,
		 struct tep_out *o, struct tep_err *err)
{
	int p = port_arg(argv[0], err);
	char e[256];

	(void)ctx;
	(void)argc;
	(void)o;
	if (p < 0)
		return ENODEV;
	if (tep_port_restart((uint16_t)p, e, sizeof(e)) != 0)
		return ERR(EIO, "%s", e);
	return 0;
}

int
cmd_port_bind(struct tep_ctl_ctx *ctx, int argc, char **argv,
	      struct tep_out *o, struct tep_err *err)
{
	int p = port_arg(argv[0], err), v, i;
	struct tep_port *port;

	(void)ctx;
	(void)argc;
	(void)o;
	if (p < 0)
		return ENODEV;
	if (strcmp(argv[1], "vrf") != 0)
		return ERR(EINVAL, "port bind %s vrf NAME", argv[0]);
	v = vrf_arg(argv[2], err);
	if (v < 0)
		return ENOENT;
	port = &tep_ports[p];
	if (refuse_host_port(port, err) != 0)
		return EPERM;
	if (port->role == TEP_ROLE_UNDERLAY && v != TEP_VRF_DEFAULT)
		return ERR(EINVAL, "port %s is an underlay port: it stays in "
			   "vrf default", port->name);
	if (port->vrf == v)
		return 0;
	/* The addresses' routes move along; if the new VRF refuses one (the
	 * subnet is another port's there), nothing changes. */
	for (i = 0; i < port->naddr; i++) {
		char e[256];
		int ret = addr_routes((uint16_t)p, &port->addr[i], true,
				      (uint16_t)v, e, sizeof(e));

		if (ret != 0) {
			while (i-- > 0)
				addr_routes((uint16_t)p, &port->addr[i], false,
					    (uint16_t)v, NULL, 0);
			return ERR(ret, "vrf \"%s\": %s", argv[2], e);
		}
	}
	for (i = 0; i < port->naddr; i++)
		addr_routes((uint16_t)p, &port->addr[i], false, port->vrf,
			    NULL, 0);
	i = port->vrf;
	__atomic_store_n(&port->vrf, (uint16_t)v, __ATOMIC_RELEASE);
	tep_neigh_flush_port((uint16_t)p);
	tep_vrfhost_sync_addrs((uint16_t)i);
	tep_vrfhost_sync_addrs((uint16_t)v);
	return 0;
}

int
cmd_offload_show(struct tep_ctl_ctx *ctx, int argc, char **argv,
		 struct tep_out *o, struct tep_err *err)
{
	(void)ctx;
	(void)argc;
	(void)argv;
	(void)err;
	return out_ports(o, out_offload);
}
