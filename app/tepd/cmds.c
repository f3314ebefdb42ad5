/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * The control commands (docs/commands.md). The config file and the socket
 * run the same table. Every handler validates all of its arguments before
 * it changes anything, so a refused command leaves the running state as it
 * was; where a change has two steps (an address's local and connected
 * routes) the first is undone if the second fails.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "tep_ctl_cmd.h"
#include "tepd.h"

#define ERR(code, ...) tep_err_set(err, code, __VA_ARGS__)

/* ---- argument parsing --------------------------------------------------- */

/* An address: family 4 or 6 in *family, network-order bytes in a. */
static int
parse_ip(const char *s, int *family, uint8_t *a)
{
	if (inet_pton(AF_INET, s, a) == 1) {
		*family = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a) == 1) {
		*family = 6;
		return 0;
	}
	return -1;
}

/* "A/L" or "A" (host route). */
static int
parse_prefix(const char *s, int *family, uint8_t *a, uint8_t *len,
	     bool need_len)
{
	char buf[INET6_ADDRSTRLEN + 8];
	char *slash, *end;
	unsigned long l;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash != NULL)
		*slash = '\0';
	else if (need_len)
		return -1;
	if (parse_ip(buf, family, a) != 0)
		return -1;
	if (slash == NULL) {
		*len = *family == 4 ? 32 : 128;
		return 0;
	}
	errno = 0;
	l = strtoul(slash + 1, &end, 10);
	if (errno != 0 || *end != '\0' || slash[1] == '\0' ||
	    l > (*family == 4 ? 32u : 128u))
		return -1;
	*len = (uint8_t)l;
	return 0;
}

static int
parse_u32(const char *s, uint32_t max, uint32_t *v)
{
	unsigned long long x;
	char *end;

	if (*s == '\0' || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0' || x > max)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static int
parse_mac(const char *s, struct rte_ether_addr *m)
{
	return rte_ether_unformat_addr(s, m);
}

static const char *
ip_str(int family, const uint8_t *a, char *buf, size_t len)
{
	return inet_ntop(family == 4 ? AF_INET : AF_INET6, a, buf,
			 (socklen_t)len);
}

static int
port_arg(const char *s, struct tep_err *err)
{
	int p = tep_port_find(s);

	if (p < 0)
		ERR(ENODEV, "unknown port \"%s\" (see: port list)", s);
	return p;
}

static int
vrf_arg(const char *s, struct tep_err *err)
{
	int v = tep_vrf_find(&tep.rib, s);

	if (v < 0)
		ERR(ENOENT, "unknown vrf \"%s\"", s);
	return v;
}

/* A VRF's host port is tepd's own: its role, VRF and addresses follow the
 * VRF (vrfhost.c). */
static int
refuse_host_port(const struct tep_port *p, struct tep_err *err)
{
	if (!p->vrf_host)
		return 0;
	return ERR(EPERM, "port %s is vrf \"%s\"'s host port: tepd manages "
		   "its role, vrf and addresses (see: vrf exec)", p->name,
		   tep.rib.vrf[p->vrf]->name);
}

static const char *const role_names[] = {
	[TEP_ROLE_NONE] = "none",
	[TEP_ROLE_UNDERLAY] = "underlay",
	[TEP_ROLE_ACCESS] = "access",
};

/* ---- port --------------------------------------------------------------- */

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
	tep_out_str(o, "vrf", " vrf %s", tep.rib.vrf[p->vrf]->name);
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

static int
cmd_port_list(struct tep_ctl_ctx *ctx, int argc, char **argv,
	      struct tep_out *o, struct tep_err *err)
{
	uint16_t i;

	(void)ctx;
	(void)argc;
	(void)argv;
	(void)err;
	tep_out_open_array(o, "ports");
	for (i = 0; i < tep.nb_ports; i++)
		if (tep.port[i].present)
			out_port(o, &tep.port[i]);
	tep_out_close_array(o);
	return 0;
}

static void out_offload(struct tep_out *o, const struct tep_port *p);

static int
cmd_port_show(struct tep_ctl_ctx *ctx, int argc, char **argv,
	      struct tep_out *o, struct tep_err *err)
{
	int p = port_arg(argv[0], err);

	(void)ctx;
	(void)argc;
	if (p < 0)
		return ENODEV;
	tep_out_open_array(o, "ports");
	out_port(o, &tep.port[p]);
	tep_out_close_array(o);
	tep_out_open_array(o, "offloads");
	out_offload(o, &tep.port[p]);
	tep_out_close_array(o);
	return 0;
}

static int addr_routes(uint16_t port, const struct tep_addr *a, bool add,
		       uint16_t vrf, char *e, size_t elen);

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

static int
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
	p = &tep.port[pi];
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
				   tep.rib.vrf[p->vrf]->name);
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

static int
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

static int
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
	port = &tep.port[p];
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

/* ---- addresses ---------------------------------------------------------- */

static void
prefix_of(const struct tep_addr *a, uint8_t *pfx)
{
	int n = a->family == 4 ? 4 : 16, i;

	for (i = 0; i < n; i++) {
		int keep = (int)a->len - i * 8;

		pfx[i] = (uint8_t)(a->a[i] & (keep >= 8 ? 0xff : keep <= 0 ? 0 :
					      (0xff << (8 - keep))));
	}
}

/*
 * An address's two routes in a VRF: the /32 (/128) LOCAL one and the
 * CONNECTED prefix. Adding is all or nothing: if the second route is
 * refused the first is taken back. Deleting cannot fail.
 */
static int
addr_routes(uint16_t port, const struct tep_addr *a, bool add, uint16_t vrf,
	    char *e, size_t elen)
{
	struct tep_nh local = { .type = TEP_NHT_LOCAL, .port = port };
	struct tep_nh conn = { .type = TEP_NHT_CONNECTED, .port = port };
	uint8_t pfx[16];
	uint8_t host = a->family == 4 ? 32 : 128;
	int ret = 0;

	prefix_of(a, pfx);
	if (add) {
		ret = tep_route_add(&tep.rib, vrf, a->family, a->a, host,
				    &local, e, elen);
		if (ret == 0 && a->len < host) {
			ret = tep_route_add(&tep.rib, vrf, a->family, pfx,
					    a->len, &conn, e, elen);
			if (ret != 0)
				tep_route_del(&tep.rib, vrf, a->family, a->a,
					      host, NULL, 0);
		}
	} else {
		tep_route_del(&tep.rib, vrf, a->family, a->a, host, NULL, 0);
		if (a->len < host)
			tep_route_del(&tep.rib, vrf, a->family, pfx, a->len,
				      NULL, 0);
	}
	if (ret == 0 && vrf == TEP_VRF_DEFAULT)
		tep_underlay_changed();
	return ret;
}

static int
cmd_addr(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *o,
	 struct tep_err *err, bool add)
{
	struct tep_addr a = { 0 };
	struct tep_port *p;
	char e[256];
	int family, pi, i, ret;

	(void)ctx;
	(void)argc;
	(void)o;
	if (parse_prefix(argv[0], &family, a.a, &a.len, true) != 0)
		return ERR(EINVAL, "bad address \"%s\" (want IP/LEN)",
			   argv[0]);
	if (strcmp(argv[1], "dev") != 0)
		return ERR(EINVAL, "expected: dev PORT");
	pi = port_arg(argv[2], err);
	if (pi < 0)
		return ENODEV;
	p = &tep.port[pi];
	if (refuse_host_port(p, err) != 0)
		return EPERM;
	a.family = (uint8_t)family;
	for (i = 0; i < p->naddr; i++)
		if (p->addr[i].family == a.family &&
		    memcmp(p->addr[i].a, a.a, 16) == 0)
			break;
	if (!add) {
		if (i == p->naddr)
			return ERR(ENOENT, "%s has no address %s", p->name,
				   argv[0]);
		addr_routes((uint16_t)pi, &p->addr[i], false, p->vrf, NULL, 0);
		p->addr[i] = p->addr[--p->naddr];
		tep_vrfhost_sync_addrs(p->vrf);
		return 0;
	}
	if (i < p->naddr)
		return ERR(EEXIST, "%s already has %s", p->name, argv[0]);
	if (p->naddr == TEP_ADDRS_MAX)
		return ERR(ENOSPC, "%s has %d addresses already", p->name,
			   TEP_ADDRS_MAX);
	ret = addr_routes((uint16_t)pi, &a, true, p->vrf, e, sizeof(e));
	if (ret != 0)
		return ERR(ret, "%s: %s", argv[0], e);
	p->addr[p->naddr++] = a;
	tep_vrfhost_sync_addrs(p->vrf);
	return 0;
}

static int
cmd_addr_add(struct tep_ctl_ctx *c, int n, char **v, struct tep_out *o,
	     struct tep_err *e)
{
	return cmd_addr(c, n, v, o, e, true);
}

static int
cmd_addr_del(struct tep_ctl_ctx *c, int n, char **v, struct tep_out *o,
	     struct tep_err *e)
{
	return cmd_addr(c, n, v, o, e, false);
}

/* ---- neighbours --------------------------------------------------------- */

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

static int
cmd_neigh_add(struct tep_ctl_ctx *c, int n, char **v, struct tep_out *o,
	      struct tep_err *e)
{
	return cmd_neigh(c, n, v, o, e, true);
}

static int
cmd_neigh_del(struct tep_ctl_ctx *c, int n, char **v, struct tep_out *o,
	      struct tep_err *e)
{
	return cmd_neigh(c, n, v, o, e, false);
}

static int
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
		const struct tep_neigh *n = &tep.neigh[i];
		char a[INET6_ADDRSTRLEN], mac[RTE_ETHER_ADDR_FMT_SIZE];
		struct rte_ether_addr e;

		if (!n->used)
			continue;
		memcpy(e.addr_bytes, &n->mac, 6);
		rte_ether_format_addr(mac, sizeof(mac), &e);
		tep_out_open_object(o, NULL);
		tep_out_str(o, "address", "%s",
			    ip_str(n->key.family, n->key.ip, a, sizeof(a)));
		tep_out_str(o, "dev", " dev %s", tep.port[n->key.port].name);
		tep_out_str(o, "lladdr", n->mac ? " lladdr %s" : NULL, mac);
		tep_out_str(o, "state", " %s", n->is_static ? "permanent" :
			    n->mac ? "reachable" : "incomplete");
		tep_out_newline(o);
		tep_out_close_object(o);
	}
	tep_out_close_array(o);
	return 0;
}

/* ---- VRFs --------------------------------------------------------------- */

static int
cmd_vrf_add(struct tep_ctl_ctx *ctx, int argc, char **argv,
	    struct tep_out *o, struct tep_err *err)
{
	uint32_t table = 0;
	char e[256];
	int ret, v;

	(void)ctx;
	(void)o;
	if (argc == 3) {
		if (strcmp(argv[1], "table") != 0 ||
		    parse_u32(argv[2], UINT32_MAX, &table) != 0 || table == 0)
			return ERR(EINVAL, "expected: vrf add NAME [table ID] "
				   "with ID 1-4294967295");
	} else if (argc != 1) {
		return ERR(EINVAL, "expected: vrf add NAME [table ID]");
	}
	ret = tep_vrf_add(&tep.rib, argv[0], table, e, sizeof(e));
	if (ret != 0)
		return ERR(ret, "%s", e);
	/* All or nothing: a VRF whose host side cannot be made is not
	 * added. */
	v = tep_vrf_find(&tep.rib, argv[0]);
	if (tep_vrfhost_create((uint16_t)v, e, sizeof(e)) != 0) {
		tep_vrf_del(&tep.rib, (uint16_t)v, NULL, 0);
		return ERR(EIO, "%s", e);
	}
	return 0;
}

/* The RFC's rule: a VRF with tasks inside stays. */
static int
vrf_tasks_refuse(uint16_t v, const char *what, struct tep_err *err)
{
	int pids[4], n = tep_vrfhost_pids(v, pids, 4), i;
	char list[64] = "";
	size_t len = 0;

	if (n == 0)
		return 0;
	for (i = 0; i < n && i < 4; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d",
					i ? " " : "", pids[i]);
	return ERR(EBUSY, "vrf \"%s\" has %d task(s) inside (pid %s%s): %s; "
		   "see: vrf pids %s", tep.rib.vrf[v]->name, n, list,
		   n > 4 ? " ..." : "", what, tep.rib.vrf[v]->name);
}

static int
cmd_vrf_del(struct tep_ctl_ctx *ctx, int argc, char **argv,
	    struct tep_out *o, struct tep_err *err)
{
	int v = vrf_arg(argv[0], err), i, nport = 0, ntun = 0;
	char e[256];
	int ret;

	(void)ctx;
	(void)argc;
	(void)o;
	if (v < 0)
		return ENOENT;
	for (i = 0; i < tep.nb_ports; i++)
		nport += tep.port[i].present && !tep.port[i].vrf_host &&
			 tep.port[i].vrf == v;
	for (i = 0; i < TEP_TUNNELS_MAX; i++)
		ntun += tep.tunnel[i] != NULL && tep.tunnel[i]->vrf == v;
	if (v != TEP_VRF_DEFAULT && (nport || ntun))
		return ERR(EBUSY, "vrf \"%s\" has %d port(s) and %d tunnel(s) "
			   "bound: rebind or delete them first", argv[0],
			   nport, ntun);
	ret = vrf_tasks_refuse((uint16_t)v, "cannot delete it", err);
	if (ret != 0)
		return ret;
	tep_vrfhost_destroy((uint16_t)v);
	ret = tep_vrf_del(&tep.rib, (uint16_t)v, e, sizeof(e));
	return ret ? ERR(ret, "%s", e) : 0;
}

static int
cmd_vrf_list(struct tep_ctl_ctx *ctx, int argc, char **argv,
	     struct tep_out *o, struct tep_err *err)
{
	int i;

	(void)ctx;
	(void)argc;
	(void)argv;
	(void)err;
	tep_out_open_array(o, "vrfs");
	for (i = 0; i < TEP_VRF_MAX; i++) {
		const struct tep_vrf *v = tep.rib.vrf[i];

		if (v == NULL)
			continue;
		tep_out_open_object(o, NULL);
		tep_out_str(o, "name", "%s", v->name);
		tep_out_u64(o, "table", " table %" PRIu64, v->table);
		tep_out_u64(o, "routes4", " routes4 %" PRIu64, v->routes4);
		tep_out_u64(o, "routes6", " routes6 %" PRIu64, v->routes6);
		if (tep_vrfhost_netns((uint16_t)i) != NULL)
			tep_out_str(o, "netns", " netns %s",
				    tep_vrfhost_netns((uint16_t)i));
		tep_out_newline(o);
		tep_out_close_object(o);
	}
	tep_out_close_array(o);
	return 0;
}

/*
 * tepd's half of `tepctl vrf exec NAME -- COMMAND`: check that the caller
 * may enter the VRF and hand it our descriptor for the VRF's namespace
 * (SCM_RIGHTS, with the reply); tepctl does the setns and exec. Which VRF
 * the caller is in now is found from its pid (SO_PEERCRED), not asked:
 * a task already in one VRF cannot move to another by saying otherwise.
 */
static int
cmd_vrf_exec(struct tep_ctl_ctx *ctx, int argc, char **argv,
	     struct tep_out *o, struct tep_err *err)
{
	uint64_t dev, ino;
	int v, cur, rc;
	pid_t pid = 0;

	(void)argc;
	v = vrf_arg(argv[0], err);
	if (v < 0)
		return ENOENT;
	if (v == TEP_VRF_DEFAULT)
		return ERR(EINVAL, "vrf default needs no exec: it is tepd's "
			   "underlay; run the command as it is");
	if (!tep_vrfhost_enabled())
		return ERR(ENOTSUP, "tepd runs without VRF host ports: start "
			   "it with -N to run tasks in a VRF");
	if (tep_ctl_ctx_peer(ctx, &pid, NULL, NULL) != 0)
		return ERR(EINVAL, "vrf exec is for tepctl on the control "
			   "socket: tepctl vrf exec NAME -- COMMAND [ARGS...]");
	rc = tep_ctl_ctx_peer_netns(ctx, &dev, &ino);
	if (rc != 0)
		return ERR(rc == ESRCH ? ESRCH : EACCES, "cannot tell which "
			   "VRF the caller (pid %d) is in: /proc/%d/ns/net: "
			   "%s", (int)pid, (int)pid, rc == ESRCH ?
			   "it has exited" : strerror(rc));
	cur = tep_vrfhost_vrf_of(dev, ino);
	if (cur >= 0 && cur != v)
		return ERR(EPERM, "this task is in vrf \"%s\" already: a "
			   "task's VRF cannot change (start it from outside "
			   "any VRF)", tep.rib.vrf[cur]->name);
	/* Our descriptor, not the name under /run/netns: the bind mount
	 * may live in a mount namespace of tepd's own (systemd
	 * PrivateTmp, ip netns exec), and a descriptor cannot be swapped
	 * for another VRF's between the reply and its use. */
	rc = tep_ctl_reply_fd(ctx, tep_vrfhost_netns_fd((uint16_t)v));
	if (rc != 0)
		return ERR(rc, "cannot pass vrf \"%s\"'s namespace: %s",
			   argv[0], strerror(rc));
	tep_out_str(o, "netns", "%s\n", tep_vrfhost_netns((uint16_t)v));
	return 0;
}

static int
cmd_vrf_pids(struct tep_ctl_ctx *ctx, int argc, char **argv,
	     struct tep_out *o, struct tep_err *err)
{
	int v = vrf_arg(argv[0], err), pids[1024], n, i;

	(void)ctx;
	(void)argc;
	if (v < 0)
		return ENOENT;
	if (tep_vrfhost_netns((uint16_t)v) == NULL)
		return ERR(ENOENT, "vrf \"%s\" has no host side%s", argv[0],
			   v == TEP_VRF_DEFAULT ? " (it is the underlay)" :
			   " (tepd runs without -N)");
	n = tep_vrfhost_pids((uint16_t)v, pids, 1024);
	tep_out_open_array(o, "pids");
	for (i = 0; i < n && i < 1024; i++) {
		char path[64], comm[64] = "?";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/comm", pids[i]);
		f = fopen(path, "r");
		if (f != NULL) {
			if (fgets(comm, sizeof(comm), f) != NULL)
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		tep_out_open_object(o, NULL);
		tep_out_i64(o, "pid", "%" PRId64, pids[i]);
		tep_out_str(o, "comm", " %s", comm);
		tep_out_newline(o);
		tep_out_close_object(o);
	}
	tep_out_close_array(o);
	return 0;
}

/* ---- tunnels ------------------------------------------------------------ */

static int
tun_type(const char *s)
{
	int t;

	for (t = 0; t < TEP_TUN_MAX; t++)
		if (strcmp(s, tep_tun_type_name((enum tep_tun_type)t)) == 0)
			return t;
	return -1;
}

static void
tun_key(const struct tep_tunnel *t, struct tep_tun_key *k)
{
	memset(k, 0, sizeof(*k));
	k->type = t->tmpl.type;
	k->v6 = t->p.outer_v6;
	if (t->p.type == TEP_TUN_VXLAN || t->p.type == TEP_TUN_GENEVE ||
	    (t->p.type == TEP_TUN_GRE && t->p.gre_key))
		k->vni = t->p.vni;
	memcpy(k->remote, t->p.dst, t->p.outer_v6 ? 16 : 4);
}

static int
cmd_tunnel_add(struct tep_ctl_ctx *ctx, int argc, char **argv,
	       struct tep_out *o, struct tep_err *err)
{
	struct tep_tunnel *t, *old;
	struct tep_tun_key k;
	bool have_local = false, have_remote = false;
	int i, id = -1, fam_l = 0, fam_r = 0;
	char e[256];
	void *data;

	(void)ctx;
	(void)o;
	if (strlen(argv[0]) >= TEP_NAME_MAX)
		return ERR(EINVAL, "tunnel name longer than %d",
			   TEP_NAME_MAX - 1);
	if (tep_tunnel_find(argv[0]) >= 0)
		return ERR(EEXIST, "tunnel \"%s\" exists", argv[0]);
	t = rte_zmalloc("tep_tunnel", sizeof(*t), RTE_CACHE_LINE_SIZE);
	if (t == NULL)
		return ERR(ENOMEM, "out of memory");
	snprintf(t->name, sizeof(t->name), "%s", argv[0]);
	t->p.type = TEP_TUN_MAX;
	t->p.csum = TEP_CSUM_LCO;
	t->p.df = true;
	t->p.gue_proto = 4;
	t->vrf = TEP_VRF_DEFAULT;

#define NEED_VALUE() do { if (i + 1 >= argc) { \
		ERR(EINVAL, "%s needs a value", argv[i]); goto fail; } } while (0)
	for (i = 1; i < argc; i += 2) {
		const char *kw = argv[i], *val;
		uint32_t u;

		NEED_VALUE();
		val = argv[i + 1];
		if (strcmp(kw, "type") == 0) {
			int ty = tun_type(val);

			if (ty < 0) {
				ERR(EINVAL, "type \"%s\": vxlan, geneve, fou, "
				    "gue or gre", val);
				goto fail;
			}
			t->p.type = (enum tep_tun_type)ty;
		} else if (strcmp(kw, "local") == 0 ||
			   strcmp(kw, "remote") == 0) {
			bool l = kw[0] == 'l';

			if (parse_ip(val, l ? &fam_l : &fam_r,
				     l ? t->p.src : t->p.dst) != 0) {
				ERR(EINVAL, "%s \"%s\": not an IP address", kw,
				    val);
				goto fail;
			}
			*(l ? &have_local : &have_remote) = true;
		} else if (strcmp(kw, "vni") == 0 || strcmp(kw, "key") == 0) {
			if (parse_u32(val, kw[0] == 'v' ? TEP_VNI_MAX :
				      UINT32_MAX, &u) != 0) {
				ERR(ERANGE, "%s \"%s\" out of range 0-%u", kw,
				    val, kw[0] == 'v' ? TEP_VNI_MAX :
				    UINT32_MAX);
				goto fail;
			}
			t->p.vni = u;
			t->p.gre_key = kw[0] == 'k';
		} else if (strcmp(kw, "dstport") == 0) {
			if (parse_u32(val, 65535, &u) != 0 || u == 0) {
				ERR(EINVAL, "dstport \"%s\": 1-65535", val);
				goto fail;
			}
			t->p.dst_port = (uint16_t)u;
		} else if (strcmp(kw, "vrf") == 0) {
			int v = vrf_arg(val, err);

			if (v < 0)
				goto fail;
			t->vrf = (uint16_t)v;
		} else if (strcmp(kw, "csum") == 0) {
			int m;

			for (m = 0; m < TEP_CSUM_MODE_MAX; m++)
				if (strcmp(val, tep_csum_mode_name(
						(enum tep_csum_mode)m)) == 0)
					break;
			if (m == TEP_CSUM_MODE_MAX) {
				ERR(EINVAL, "csum \"%s\": lco, full, offload "
				    "or off", val);
				goto fail;
			}
			t->p.csum = (enum tep_csum_mode)m;
		} else if (strcmp(kw, "ttl") == 0) {
			if (parse_u32(val, 255, &u) != 0 || u == 0) {
				ERR(EINVAL, "ttl \"%s\": 1-255", val);
				goto fail;
			}
			t->p.ttl = (uint8_t)u;
		} else if (strcmp(kw, "tos") == 0) {
			if (strcmp(val, "inherit") == 0) {
				t->p.tos_inherit = true;
			} else if (parse_u32(val, 255, &u) == 0) {
				t->p.dscp = (uint8_t)(u >> 2);
			} else {
				ERR(EINVAL, "tos \"%s\": 0-255 or inherit",
				    val);
				goto fail;
			}
		} else if (strcmp(kw, "srcport") == 0) {
			unsigned int lo, hi;
			char c;

			if (sscanf(val, "%u-%u%c", &lo, &hi, &c) != 2 ||
			    lo == 0 || hi > 65535 || lo > hi) {
				ERR(EINVAL, "srcport \"%s\": LO-HI within "
				    "1-65535", val);
				goto fail;
			}
			t->p.sport_lo = (uint16_t)lo;
			t->p.sport_hi = (uint16_t)hi;
		} else if (strcmp(kw, "inner-dmac") == 0) {
			if (parse_mac(val, &t->inner_dmac) != 0) {
				ERR(EINVAL, "inner-dmac \"%s\": not a MAC", val);
				goto fail;
			}
		} else if (strcmp(kw, "gre-csum") == 0 ||
			   strcmp(kw, "rco") == 0 || strcmp(kw, "df") == 0) {
			bool on = strcmp(val, "on") == 0;

			if (!on && strcmp(val, "off") != 0) {
				ERR(EINVAL, "%s: on or off", kw);
				goto fail;
			}
			if (kw[0] == 'g')
				t->p.gre_csum = on;
			else if (kw[0] == 'r')
				t->p.gue_rco = on;
			else
				t->p.df = on;
		} else if (strcmp(kw, "inner") == 0) {
			if (strcmp(val, "ipv4") != 0 &&
			    strcmp(val, "ipv6") != 0) {
				ERR(EINVAL, "inner: ipv4 or ipv6");
				goto fail;
			}
			t->p.gue_proto = val[3] == '4' ? 4 : 41;
		} else {
			ERR(EINVAL, "unknown tunnel option \"%s\"", kw);
			goto fail;
		}
	}
#undef NEED_VALUE
	if (t->p.type == TEP_TUN_MAX || !have_local || !have_remote) {
		ERR(EINVAL, "tunnel add NAME type TYPE local IP remote IP ...: "
		    "type, local and remote are required");
		goto fail;
	}
	if (fam_l != fam_r) {
		ERR(EINVAL, "local and remote must be the same family");
		goto fail;
	}
	t->p.outer_v6 = fam_l == 6;
	if ((t->p.type == TEP_TUN_VXLAN || t->p.type == TEP_TUN_GENEVE) &&
	    t->p.gre_key) {
		ERR(EINVAL, "%s takes vni, not key",
		    tep_tun_type_name(t->p.type));
		goto fail;
	}
	t->csum_asked = (uint8_t)t->p.csum;
	if (t->p.csum == TEP_CSUM_OFFLOAD) {
		/* The outer UDP checksum offload (ice, X722) is not wired to
		 * the TX path yet: LCO gives the same result in software at
		 * the cost of a header sum, and is valid before the inner
		 * checksum is filled in, which a full sum would not be. */
		t->p.csum = TEP_CSUM_LCO;
	}
	if (tep_encap_tmpl_build(&t->tmpl, &t->p, e, sizeof(e)) != 0) {
		ERR(EINVAL, "%s", e);
		goto fail;
	}
	if (t->tmpl.inner_eth && rte_is_zero_ether_addr(&t->inner_dmac)) {
		ERR(EINVAL, "%s carries Ethernet: inner-dmac MAC (the remote "
		    "router's MAC on the overlay) is required",
		    tep_tun_type_name(t->p.type));
		goto fail;
	}
	t->dport = t->p.type == TEP_TUN_GRE ? 0 :
		   (uint16_t)(t->tmpl.hdr[t->tmpl.l4_off + 2] << 8 |
			      t->tmpl.hdr[t->tmpl.l4_off + 3]);
	if (t->dport != 0 && tep.udp_tun_type[t->dport] != 0xff &&
	    tep.udp_tun_type[t->dport] != t->p.type) {
		ERR(EADDRINUSE, "udp port %u already carries %s", t->dport,
		    tep_tun_type_name(tep.udp_tun_type[t->dport]));
		goto fail;
	}
	tun_key(t, &k);
	if (rte_hash_lookup_data(tep.tun_hash, &k, &data) >= 0) {
		old = tep.tunnel[(uintptr_t)data];
		ERR(EEXIST, "tunnel \"%s\" already has this type, vni/key and "
		    "remote", old != NULL ? old->name : "?");
		goto fail;
	}
	for (i = 0; i < TEP_TUNNELS_MAX; i++)
		if (tep.tunnel[i] == NULL) {
			id = i;
			break;
		}
	if (id < 0) {
		ERR(ENOSPC, "at most %d tunnels", TEP_TUNNELS_MAX);
		goto fail;
	}
	t->id = (uint32_t)id;
	if (rte_is_zero_ether_addr(&t->inner_smac)) {
		/* A locally administered MAC per tunnel: 02:74:65:70:ID */
		uint8_t m[6] = { 0x02, 0x74, 0x65, 0x70, (uint8_t)(id >> 8),
				 (uint8_t)id };

		memcpy(t->inner_smac.addr_bytes, m, 6);
	}
	t->overhead = (uint16_t)(t->tmpl.len - t->tmpl.l2_len +
				 (t->tmpl.inner_eth ? 14 : 0));
	/* Clear counters left by a tunnel that had this id before. */
	tep_cnt_tun_reset((uint32_t)id);
	/* Workers cache each tunnel id's egress: this id may have been a
	 * deleted tunnel's, with another remote. Bumped before the tunnel is
	 * published, so a worker that sees it sees the new generation. */
	tep_underlay_changed();
	__atomic_store_n(&tep.tunnel[id], t, __ATOMIC_RELEASE);
	if (rte_hash_add_key_data(tep.tun_hash, &k,
				  (void *)(uintptr_t)id) < 0) {
		__atomic_store_n(&tep.tunnel[id], NULL, __ATOMIC_RELEASE);
		rte_rcu_qsbr_synchronize(tep.rcu, RTE_QSBR_THRID_INVALID);
		ERR(ENOSPC, "tunnel table full");
		goto fail;
	}
	if (t->dport != 0)
		tep.udp_tun_type[t->dport] = t->p.type;
	return 0;
fail:
	rte_free(t);
	return err->code ? err->code : EINVAL;
}

static int
cmd_tunnel_del(struct tep_ctl_ctx *ctx, int argc, char **argv,
	       struct tep_out *o, struct tep_err *err)
{
	int id = tep_tunnel_find(argv[0]), i;
	struct tep_tunnel *t;
	struct tep_tun_key k;
	uint32_t users;
	int32_t pos;
	bool port_used = false;

	(void)ctx;
	(void)argc;
	(void)o;
	if (id < 0)
		return ERR(ENOENT, "no tunnel \"%s\"", argv[0]);
	users = tep_nh_users(&tep.rib, TEP_NHT_TUNNEL, (uint32_t)id);
	if (users > 0)
		return ERR(EBUSY, "tunnel \"%s\" is used by %u route(s): "
			   "delete them first", argv[0], users);
	t = tep.tunnel[id];
	tun_key(t, &k);
	pos = rte_hash_del_key(tep.tun_hash, &k);
	__atomic_store_n(&tep.tunnel[id], NULL, __ATOMIC_RELEASE);
	rte_rcu_qsbr_synchronize(tep.rcu, RTE_QSBR_THRID_INVALID);
	if (pos >= 0)
		rte_hash_free_key_with_position(tep.tun_hash, pos);
	for (i = 0; i < TEP_TUNNELS_MAX; i++)
		if (tep.tunnel[i] != NULL && tep.tunnel[i]->dport == t->dport)
			port_used = true;
	if (t->dport != 0 && !port_used)
		tep.udp_tun_type[t->dport] = 0xff;
	tep_underlay_changed();
	/* an EVPN tunnel deleted by hand: fpm.c forgets it was its own */
	tep_fpm_tunnel_gone((uint32_t)id);
	pthread_mutex_lock(&tep.tunnel_free_lock);
	rte_free(t);
	pthread_mutex_unlock(&tep.tunnel_free_lock);
	return 0;
}

/* The same two commands for fpm.c's EVPN tunnels: one set of checks. */
int
tep_tunnel_add_args(int argc, char **argv, char *e, size_t elen)
{
	struct tep_err err;
	int ret;

	tep_err_clear(&err);
	ret = cmd_tunnel_add(NULL, argc, argv, NULL, &err);
	if (ret != 0)
		snprintf(e, elen, "%s", err.msg);
	return ret;
}

int
tep_tunnel_del_name(const char *name, char *e, size_t elen)
{
	struct tep_err err;
	char *argv[1] = { (char *)(uintptr_t)name };
	int ret;

	tep_err_clear(&err);
	ret = cmd_tunnel_del(NULL, 1, argv, NULL, &err);
	if (ret != 0)
		snprintf(e, elen, "%s", err.msg);
	return ret;
}

static void
out_tunnel(struct tep_out *o, const struct tep_tunnel *t)
{
	char l[INET6_ADDRSTRLEN], r[INET6_ADDRSTRLEN];
	char mac[RTE_ETHER_ADDR_FMT_SIZE];
	int fam = t->p.outer_v6 ? 6 : 4;
	bool keyed = t->p.type == TEP_TUN_VXLAN || t->p.type == TEP_TUN_GENEVE;

	rte_ether_format_addr(mac, sizeof(mac), &t->inner_dmac);
	tep_out_open_object(o, NULL);
	tep_out_str(o, "name", "%s", t->name);
	tep_out_str(o, "type", " type %s", tep_tun_type_name(t->p.type));
	tep_out_str(o, "local", " local %s",
		    ip_str(fam, t->p.src, l, sizeof(l)));
	tep_out_str(o, "remote", " remote %s",
		    ip_str(fam, t->p.dst, r, sizeof(r)));
	if (keyed)
		tep_out_u64(o, "vni", " vni %" PRIu64, t->p.vni);
	else if (t->p.gre_key)
		tep_out_u64(o, "key", " key %" PRIu64, t->p.vni);
	if (t->dport)
		tep_out_u64(o, "dstport", " dstport %" PRIu64, t->dport);
	tep_out_str(o, "vrf", " vrf %s", tep.rib.vrf[t->vrf]->name);
	tep_out_str(o, "csum", " csum %s", tep_csum_mode_name(t->csum_asked));
	if (t->csum_asked != t->p.csum)
		tep_out_str(o, "csum_done_by", " (done by %s: outer UDP offload "
			    "not wired yet)", tep_csum_mode_name(t->p.csum));
	tep_out_u64(o, "ttl", " ttl %" PRIu64, t->p.ttl ? t->p.ttl : 64);
	tep_out_u64(o, "srcport_lo", " srcport %" PRIu64, t->tmpl.sport_lo);
	tep_out_u64(o, "srcport_hi", "-%" PRIu64, t->tmpl.sport_hi);
	if (t->tmpl.inner_eth)
		tep_out_str(o, "inner_dmac", " inner-dmac %s", mac);
	tep_out_u64(o, "overhead", " overhead %" PRIu64, t->overhead);
	tep_out_newline(o);
	tep_out_close_object(o);
}

static int
cmd_tunnel_show(struct tep_ctl_ctx *ctx, int argc, char **argv,
		struct tep_out *o, struct tep_err *err)
{
	int i, id = -1;

	(void)ctx;
	if (argc == 1) {
		id = tep_tunnel_find(argv[0]);
		if (id < 0)
			return ERR(ENOENT, "no tunnel \"%s\"", argv[0]);
	}
	tep_out_open_array(o, "tunnels");
	for (i = 0; i < TEP_TUNNELS_MAX; i++)
		if (tep.tunnel[i] != NULL && (id < 0 || id == i))
			out_tunnel(o, tep.tunnel[i]);
	tep_out_close_array(o);
	return 0;
}

/* ---- routes ------------------------------------------------------------- */

static int
cmd_route(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *o,
	  struct tep_err *err, bool add)
{
	struct tep_nh nh = { 0 };
	uint8_t a[16], depth;
	int family, vrf = TEP_VRF_DEFAULT, i, ret;
	int dev = -1, gw_family = 0;
	const char *gw_str = NULL;
	bool have_nh = false;
	char e[256];

	(void)ctx;
	(void)o;
	if (parse_prefix(argv[0], &family, a, &depth, false) != 0)
		return ERR(EINVAL, "bad prefix \"%s\"", argv[0]);
	for (i = 1; i < argc; i++) {
		const char *kw = argv[i];

		if (strcmp(kw, "blackhole") == 0) {
			nh.type = TEP_NHT_BLACKHOLE;
			have_nh = true;
			continue;
		}
		if (i + 1 >= argc)
			return ERR(EINVAL, "%s needs a value", kw);
		if (strcmp(kw, "vrf") == 0) {
			vrf = vrf_arg(argv[++i], err);
			if (vrf < 0)
				return ENOENT;
		} else if (strcmp(kw, "via") == 0) {
			gw_str = argv[++i];
			if (parse_ip(gw_str, &gw_family, nh.gw) != 0)
				return ERR(EINVAL, "bad gateway \"%s\"",
					   gw_str);
			nh.type = TEP_NHT_GW;
			nh.gw_v6 = gw_family == 6;
			have_nh = true;
		} else if (strcmp(kw, "dev") == 0) {
			dev = port_arg(argv[++i], err);
			if (dev < 0)
				return ENODEV;
		} else if (strcmp(kw, "tunnel") == 0) {
			int t = tep_tunnel_find(argv[++i]);

			if (t < 0)
				return ERR(ENOENT, "no tunnel \"%s\"", argv[i]);
			nh.type = TEP_NHT_TUNNEL;
			nh.tunnel = (uint32_t)t;
			have_nh = true;
		} else {
			return ERR(EINVAL, "unknown route option \"%s\"", kw);
		}
	}
	if (!add) {
		ret = tep_route_del(&tep.rib, (uint16_t)vrf, family, a, depth,
				    e, sizeof(e));
		goto done;
	}
	if (!have_nh)
		return ERR(EINVAL, "route add PREFIX [vrf NAME] (via IP [dev "
			   "PORT] | tunnel NAME | blackhole)");
	if (nh.type == TEP_NHT_GW) {
		if (dev < 0) {
			/* The gateway must be on a connected network. */
			uint8_t p[16], d;
			uint32_t idx = tep_route_get(&tep.rib, (uint16_t)vrf,
						     gw_family, nh.gw, p, &d);

			if (idx == TEP_NH_NONE ||
			    tep.rib.nh[idx].type != TEP_NHT_CONNECTED)
				return ERR(ENETUNREACH, "gateway %s is not on "
					   "a connected network of vrf \"%s\": "
					   "add an address or give dev",
					   gw_str, tep.rib.vrf[vrf]->name);
			dev = tep.rib.nh[idx].port;
		}
		if (tep.port[dev].vrf != vrf)
			return ERR(EINVAL, "port %s is in vrf \"%s\", not "
				   "\"%s\"", tep.port[dev].name,
				   tep.rib.vrf[tep.port[dev].vrf]->name,
				   tep.rib.vrf[vrf]->name);
		nh.port = (uint16_t)dev;
	}
	/* A route in one VRF may point into a tunnel bound to another: the
	 * tunnel's VRF is only where its decapsulated packets are routed. */
	ret = tep_route_add(&tep.rib, (uint16_t)vrf, family, a, depth, &nh, e,
			    sizeof(e));
done:
	if (ret != 0)
		return ERR(ret, "%s: %s", argv[0], e);
	if (vrf == TEP_VRF_DEFAULT)
		tep_underlay_changed();
	return 0;
}

static int
cmd_route_add(struct tep_ctl_ctx *c, int n, char **v, struct tep_out *o,
	      struct tep_err *e)
{
	return cmd_route(c, n, v, o, e, true);
}

static int
cmd_route_del(struct tep_ctl_ctx *c, int n, char **v, struct tep_out *o,
	      struct tep_err *e)
{
	return cmd_route(c, n, v, o, e, false);
}

static void
out_nh(struct tep_out *o, const struct tep_nh *nh, int family)
{
	char g[INET6_ADDRSTRLEN];

	switch (nh->type) {
	case TEP_NHT_GW:
		tep_out_str(o, "via", " via %s", ip_str(nh->gw_v6 ? 6 : 4,
							nh->gw, g, sizeof(g)));
		tep_out_str(o, "dev", " dev %s", tep.port[nh->port].name);
		break;
	case TEP_NHT_CONNECTED:
		tep_out_str(o, "dev", " dev %s", tep.port[nh->port].name);
		tep_out_str(o, "scope", " scope %s", "link");
		break;
	case TEP_NHT_LOCAL:
		tep_out_str(o, "type", " %s", "local");
		tep_out_str(o, "dev", " dev %s", tep.port[nh->port].name);
		break;
	case TEP_NHT_TUNNEL:
		tep_out_str(o, "tunnel", " tunnel %s",
			    tep.tunnel[nh->tunnel] ?
			    tep.tunnel[nh->tunnel]->name : "?");
		break;
	case TEP_NHT_BLACKHOLE:
		tep_out_str(o, "type", " %s", "blackhole");
		break;
	default:
		break;
	}
	/* text: only the unusual origin, so that tepctl's lines stay as they
	 * were for configured routes; JSON: always */
	if (nh->proto == TEP_PROTO_FPM)
		tep_out_str(o, "proto", " proto %s", "fpm");
	else
		tep_out_str(o, "proto", NULL, "static");
	(void)family;
}

static void
out_route(void *arg, int family, const uint8_t *pfx, uint8_t depth,
	  const struct tep_nh *nh)
{
	struct tep_out *o = arg;
	char a[INET6_ADDRSTRLEN], p[INET6_ADDRSTRLEN + 8];

	snprintf(p, sizeof(p), "%s/%u", ip_str(family, pfx, a, sizeof(a)),
		 depth);
	tep_out_open_object(o, NULL);
	tep_out_str(o, "prefix", "%s", p);
	out_nh(o, nh, family);
	tep_out_newline(o);
	tep_out_close_object(o);
}

static int
cmd_route_show(struct tep_ctl_ctx *ctx, int argc, char **argv,
	       struct tep_out *o, struct tep_err *err)
{
	int vrf = TEP_VRF_DEFAULT;

	(void)ctx;
	if (argc == 2) {
		if (strcmp(argv[0], "vrf") != 0)
			return ERR(EINVAL, "route show [vrf NAME]");
		vrf = vrf_arg(argv[1], err);
		if (vrf < 0)
			return ENOENT;
	} else if (argc != 0) {
		return ERR(EINVAL, "route show [vrf NAME]");
	}
	tep_out_str(o, "vrf", NULL, tep.rib.vrf[vrf]->name);
	tep_out_open_array(o, "routes");
	tep_route_walk(&tep.rib, (uint16_t)vrf, 4, out_route, o);
	tep_route_walk(&tep.rib, (uint16_t)vrf, 6, out_route, o);
	tep_out_close_array(o);
	return 0;
}

static int
cmd_route_get(struct tep_ctl_ctx *ctx, int argc, char **argv,
	      struct tep_out *o, struct tep_err *err)
{
	uint8_t a[16], pfx[16], depth = 0;
	int family, vrf = TEP_VRF_DEFAULT;
	uint32_t idx;

	(void)ctx;
	if (parse_ip(argv[0], &family, a) != 0)
		return ERR(EINVAL, "bad address \"%s\"", argv[0]);
	if (argc == 3) {
		if (strcmp(argv[1], "vrf") != 0)
			return ERR(EINVAL, "route get ADDR [vrf NAME]");
		vrf = vrf_arg(argv[2], err);
		if (vrf < 0)
			return ENOENT;
	} else if (argc != 1) {
		return ERR(EINVAL, "route get ADDR [vrf NAME]");
	}
	idx = tep_route_get(&tep.rib, (uint16_t)vrf, family, a, pfx, &depth);
	if (idx == TEP_NH_NONE)
		return ERR(ENETUNREACH, "%s: no route in vrf \"%s\"", argv[0],
			   tep.rib.vrf[vrf]->name);
	tep_out_str(o, "address", "%s", argv[0]);
	tep_out_str(o, "vrf", " vrf %s: ", tep.rib.vrf[vrf]->name);
	tep_out_open_array(o, "routes");
	out_route(o, family, pfx, depth, &tep.rib.nh[idx]);
	tep_out_close_array(o);
	return 0;
}

/* ---- stats and offloads ------------------------------------------------- */

static void
out_drops(struct tep_out *o, const uint64_t *drop)
{
	int r;

	tep_out_open_object(o, "drops");
	for (r = 1; r < TEP_R_MAX; r++) {
		char key[48], fmt[64];

		if (drop[r] == 0)
			continue;
		snprintf(key, sizeof(key), "drop_%s",
			 tep_reason_name((enum tep_reason)r));
		snprintf(fmt, sizeof(fmt), "    %s %%" PRIu64 "\n", key);
		tep_out_u64(o, key, fmt, drop[r]);
	}
	tep_out_close_object(o);
}

/* Frames tepd built itself (ARP, ND, ICMP errors) that were dropped on
 * their way out: they came in on no port. */
static void
stats_control(struct tep_out *o)
{
	struct tep_cnt_port c;

	tep_cnt_sum_port(TEP_PORT_CTL, &c);
	tep_out_open_object(o, "control");
	tep_out_text(o, "frames built by tepd:");
	tep_out_newline(o);
	out_drops(o, c.drop);
	tep_out_close_object(o);
}

static void
stats_port(struct tep_out *o, uint16_t id)
{
	struct tep_cnt_port c;

	tep_cnt_sum_port(id, &c);
	tep_out_open_object(o, NULL);
	tep_out_str(o, "port", "port %s:", tep.port[id].name);
	tep_out_u64(o, "rx", " rx %" PRIu64, c.rx);
	tep_out_u64(o, "tx", " tx %" PRIu64, c.tx);
	tep_out_u64(o, "rx_bytes", " rx_bytes %" PRIu64, c.rx_bytes);
	tep_out_u64(o, "tx_bytes", " tx_bytes %" PRIu64, c.tx_bytes);
	tep_out_u64(o, "hw_inner_csum", " hw_inner_csum %" PRIu64, c.hw_csum);
	tep_out_u64(o, "sw_inner_csum", " sw_inner_csum %" PRIu64, c.sw_csum);
	tep_out_u64(o, "rx_csum_pending", " rx_csum_pending %" PRIu64,
		    c.rx_csum_pending);
	tep_out_u64(o, "gso_pkts", " gso_pkts %" PRIu64, c.gso_pkts);
	tep_out_u64(o, "gso_segs", " gso_segs %" PRIu64, c.gso_segs);
	tep_out_u64(o, "tx_csum_partial", " tx_csum_partial %" PRIu64,
		    c.tx_csum_partial);
	tep_out_u64(o, "ipv4_frag_pkts", " ipv4_frag_pkts %" PRIu64,
		    c.frag_pkts);
	tep_out_u64(o, "ipv4_frags", " ipv4_frags %" PRIu64, c.frags);
	tep_out_newline(o);
	out_drops(o, c.drop);
	tep_out_close_object(o);
}

static void
stats_vrf(struct tep_out *o, uint16_t id)
{
	struct tep_cnt_vrf c;

	tep_cnt_sum_vrf(id, &c);
	tep_out_open_object(o, NULL);
	tep_out_str(o, "vrf", "vrf %s:", tep.rib.vrf[id]->name);
	tep_out_u64(o, "routed", " routed %" PRIu64, c.routed);
	tep_out_newline(o);
	out_drops(o, c.drop);
	tep_out_close_object(o);
}

static void
stats_tunnel(struct tep_out *o, uint32_t id)
{
	struct tep_cnt_tun c;

	tep_cnt_sum_tun(id, &c);
	tep_out_open_object(o, NULL);
	tep_out_str(o, "tunnel", "tunnel %s:", tep.tunnel[id]->name);
	tep_out_u64(o, "encap", " encap %" PRIu64, c.encap);
	tep_out_u64(o, "decap", " decap %" PRIu64, c.decap);
	tep_out_u64(o, "encap_bytes", " encap_bytes %" PRIu64, c.encap_bytes);
	tep_out_u64(o, "decap_bytes", " decap_bytes %" PRIu64, c.decap_bytes);
	tep_out_u64(o, "outer_csum_lco", " outer_csum_lco %" PRIu64,
		    c.ocsum[TEP_OCSUM_LCO]);
	tep_out_u64(o, "outer_csum_full", " outer_csum_full %" PRIu64,
		    c.ocsum[TEP_OCSUM_FULL]);
	tep_out_u64(o, "outer_csum_hw", " outer_csum_hw %" PRIu64,
		    c.ocsum[TEP_OCSUM_HW]);
	tep_out_u64(o, "outer_csum_none", " outer_csum_none %" PRIu64,
		    c.ocsum[TEP_OCSUM_NONE]);
	tep_out_u64(o, "decap_inner_csum_ok", " decap_inner_csum_ok %" PRIu64,
		    c.decap_inner_ok);
	tep_out_u64(o, "arp_nd_answered", " arp_nd_answered %" PRIu64,
		    c.proxy_answers);
	tep_out_newline(o);
	out_drops(o, c.drop);
	tep_out_close_object(o);
}

static void
stats_stages(struct tep_out *o)
{
	uint64_t cyc[TEP_ST_MAX], pk[TEP_ST_MAX];
	int s;

	tep_cnt_sum_stages(cyc, pk);
	tep_out_open_object(o, "cycles_per_packet");
	tep_out_text(o, "stages (cycles/packet, tepd -C):");
	for (s = 0; s < TEP_ST_MAX; s++) {
		const char *name = tep_stage_name((enum tep_stage)s);
		char fmt[48];

		snprintf(fmt, sizeof(fmt), " %s %%" PRIu64, name);
		tep_out_u64(o, name, fmt, pk[s] ? cyc[s] / pk[s] : 0);
	}
	tep_out_newline(o);
	tep_out_close_object(o);
}

/* Everything, or one object: [port P | vrf NAME | tunnel NAME]. */
static int
stats_write(struct tep_out *o, int argc, char **argv, struct tep_err *err)
{
	int i, id;

	if (argc == 2 && strcmp(argv[0], "port") == 0) {
		id = port_arg(argv[1], err);
		if (id < 0)
			return ENODEV;
		tep_out_open_array(o, "ports");
		stats_port(o, (uint16_t)id);
		tep_out_close_array(o);
		return 0;
	}
	if (argc == 2 && strcmp(argv[0], "vrf") == 0) {
		id = vrf_arg(argv[1], err);
		if (id < 0)
			return ENOENT;
		tep_out_open_array(o, "vrfs");
		stats_vrf(o, (uint16_t)id);
		tep_out_close_array(o);
		return 0;
	}
	if (argc == 2 && strcmp(argv[0], "tunnel") == 0) {
		id = tep_tunnel_find(argv[1]);
		if (id < 0)
			return ERR(ENOENT, "no tunnel \"%s\"", argv[1]);
		tep_out_open_array(o, "tunnels");
		stats_tunnel(o, (uint32_t)id);
		tep_out_close_array(o);
		return 0;
	}
	if (argc != 0)
		return ERR(EINVAL, "stats [port P | vrf NAME | tunnel NAME]");
	tep_out_open_array(o, "ports");
	for (i = 0; i < tep.nb_ports; i++)
		if (tep.port[i].present)
			stats_port(o, (uint16_t)i);
	tep_out_close_array(o);
	stats_control(o);
	tep_out_open_array(o, "vrfs");
	for (i = 0; i < TEP_VRF_MAX; i++)
		if (tep.rib.vrf[i] != NULL)
			stats_vrf(o, (uint16_t)i);
	tep_out_close_array(o);
	tep_out_open_array(o, "tunnels");
	for (i = 0; i < TEP_TUNNELS_MAX; i++)
		if (tep.tunnel[i] != NULL)
			stats_tunnel(o, (uint32_t)i);
	tep_out_close_array(o);
	if (tep.stats_cycles)
		stats_stages(o);
	if (tep_fpm_enabled())
		tep_fpm_stats(o);
	/* For leak checks: what is neither free in the pool nor cached. */
	tep_out_open_object(o, "mempool");
	tep_out_u64(o, "in_use", "mbufs in use %" PRIu64,
		    rte_mempool_in_use_count(tep.pool));
	tep_out_u64(o, "size", " of %" PRIu64 "\n", tep.pool->size);
	tep_out_close_object(o);
	return 0;
}

static int
cmd_stats(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *o,
	  struct tep_err *err)
{
	(void)ctx;
	return stats_write(o, argc, argv, err);
}

static int
cmd_stats_clear(struct tep_ctl_ctx *ctx, int argc, char **argv,
		struct tep_out *o, struct tep_err *err)
{
	(void)ctx;
	(void)argc;
	(void)argv;
	(void)o;
	(void)err;
	tep_cnt_clear();
	return 0;
}

static int
stats_tick(struct tep_ctl_ctx *ctx, void *arg, struct tep_out *o,
	   struct tep_err *err)
{
	(void)ctx;
	(void)arg;
	return stats_write(o, 0, NULL, err);
}

static int
cmd_stats_watch(struct tep_ctl_ctx *ctx, int argc, char **argv,
		struct tep_out *o, struct tep_err *err)
{
	uint32_t ms = 1000;

	if (argc == 2) {
		if (strcmp(argv[0], "interval") != 0 ||
		    parse_u32(argv[1], TEP_CTL_STREAM_MAX_MS, &ms) != 0 ||
		    ms < 10)
			return ERR(EINVAL, "stats watch [interval MS] with "
				   "MS 10-%u", TEP_CTL_STREAM_MAX_MS);
	} else if (argc != 0) {
		return ERR(EINVAL, "stats watch [interval MS]");
	}
	if (tep_ctl_ctx_origin(ctx) != TEP_CTL_ORIGIN_SOCKET)
		return ERR(EINVAL, "stats watch needs a control socket client");
	if (tep_ctl_stream_start(ctx, ms, stats_tick, NULL, NULL) != 0)
		return ERR(EBUSY, "cannot start the stream");
	/* The first snapshot now; then one per interval. */
	return stats_write(o, 0, NULL, err);
}

/* ---- FPM (fpm.c) -------------------------------------------------------- */

static int
cmd_fpm_show(struct tep_ctl_ctx *ctx, int argc, char **argv,
	     struct tep_out *o, struct tep_err *err)
{
	(void)ctx;
	(void)argc;
	(void)argv;
	(void)err;
	tep_fpm_show(o);
	return 0;
}

static int
cmd_fpm_set(struct tep_ctl_ctx *ctx, int argc, char **argv,
	    struct tep_out *o, struct tep_err *err)
{
	char e[256];
	int ret;

	(void)ctx;
	(void)argc;
	(void)o;
	ret = tep_fpm_set(argv[0], argv[1], e, sizeof(e));
	return ret ? ERR(ret, "%s", e) : 0;
}

static int
cmd_evpn_local(struct tep_ctl_ctx *ctx, int argc, char **argv,
	       struct tep_out *o, struct tep_err *err)
{
	char e[256];
	int ret;

	(void)ctx;
	(void)argc;
	(void)o;
	ret = tep_fpm_evpn_local(argv[0], e, sizeof(e));
	return ret ? ERR(ret, "%s", e) : 0;
}

static int
cmd_evpn_vrf(struct tep_ctl_ctx *ctx, int argc, char **argv,
	     struct tep_out *o, struct tep_err *err)
{
	uint32_t vni;
	char e[256];
	int v, ret;

	(void)ctx;
	(void)argc;
	(void)o;
	v = vrf_arg(argv[0], err);
	if (v < 0)
		return ENOENT;
	if (strcmp(argv[1], "vni") != 0 ||
	    parse_u32(argv[2], 0xffffff, &vni) != 0)
		return ERR(EINVAL, "evpn vrf NAME vni N, N 1-16777215 "
			   "(0: none)");
	ret = tep_fpm_evpn_vrf((uint16_t)v, vni, e, sizeof(e));
	return ret ? ERR(ret, "%s", e) : 0;
}

static int
cmd_evpn_show(struct tep_ctl_ctx *ctx, int argc, char **argv,
	      struct tep_out *o, struct tep_err *err)
{
	(void)ctx;
	(void)argc;
	(void)argv;
	(void)err;
	tep_fpm_evpn_show(o);
	return 0;
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
	tep_out_str(o, "rx_jumbo", "    long frames: %s",
		    p->rx_scatter ? "scattered into a chain" :
		    "one buffer a frame");
	tep_out_u64(o, "rx_buf", ", %" PRIu64 "-byte buffers", p->rx_buf);
	tep_out_u64(o, "mtu", "; mtu %" PRIu64, p->mtu);
	tep_out_u64(o, "max_mtu", ", at most %" PRIu64, p->max_mtu);
	tep_out_str(o, "mtu_limit", " (%s)\n", p->mtu_limit);
	tep_out_close_object(o);
}

static int
cmd_offload_show(struct tep_ctl_ctx *ctx, int argc, char **argv,
		 struct tep_out *o, struct tep_err *err)
{
	uint16_t i;

	(void)ctx;
	(void)argc;
	(void)argv;
	(void)err;
	tep_out_open_array(o, "ports");
	for (i = 0; i < tep.nb_ports; i++)
		if (tep.port[i].present)
			out_offload(o, &tep.port[i]);
	tep_out_close_array(o);
	return 0;
}

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
	  " [ttl N] [tos N|inherit] [srcport LO-HI] [inner-dmac MAC] "
	  "[inner ipv4|ipv6] [gre-csum on|off] [rco on|off] [df on|off]",
	  "create a tunnel", 7, TEP_CTL_ARGS_ANY, 0, cmd_tunnel_add },
	{ "tunnel del", "NAME", "delete a tunnel (no route may use it)", 1, 1,
	  0, cmd_tunnel_del },
	{ "tunnel show", "[NAME]", "show tunnels", 0, 1, 0, cmd_tunnel_show },
	{ "route add", "PREFIX [vrf NAME] (via IP [dev PORT] | tunnel NAME | "
	  "blackhole)", "add a route", 2, 7, 0, cmd_route_add },
	{ "route del", "PREFIX [vrf NAME]", "delete a route", 1, 3, 0,
	  cmd_route_del },
	{ "route show", "[vrf NAME]", "list a VRF's routes", 0, 2, 0,
	  cmd_route_show },
	{ "route get", "ADDR [vrf NAME]", "the route a packet to ADDR takes",
	  1, 3, 0, cmd_route_get },
	{ "stats", "[port P | vrf NAME | tunnel NAME]", "counters", 0, 2, 0,
	  cmd_stats },
	{ "stats clear", NULL, "count from zero again (tepctl's view)", 0, 0,
	  0, cmd_stats_clear },
	{ "stats watch", "[interval MS]", "a snapshot every interval until "
	  "the client leaves", 0, 2, TEP_CTL_CMD_STREAM, cmd_stats_watch },
	{ "fpm show", NULL, "the FPM server (tepd -P): connection, replay, "
	  "counters", 0, 0, 0, cmd_fpm_show },
	{ "fpm set", "quiet SECONDS | hold SECONDS", "replay complete after "
	  "QUIET s without a frame (default 2); routes of a vanished zebra "
	  "kept HOLD s (default 60)", 2, 2, 0, cmd_fpm_set },
	{ "evpn local", "IP|auto", "the local VTEP address of new EVPN "
	  "tunnels (auto, the default: the first address of the family on "
	  "an underlay port)", 1, 1, 0,
	  cmd_evpn_local },
	{ "evpn vrf", "NAME vni N", "the VRF's L3VNI, for EVPN routes from "
	  "FPM that carry none (0: none)", 3, 3, 0, cmd_evpn_vrf },
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
