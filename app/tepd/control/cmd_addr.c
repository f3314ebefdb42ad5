/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * addr add, addr del. An address is two routes in its port's VRF, a LOCAL
 * host route and the CONNECTED prefix: addr_routes() adds both or neither,
 * and port bind (cmd_port.c) uses it to move them to another VRF.
 */

#include <errno.h>
#include <string.h>

#include "cmds.h"
#include "args.h"
#include "port.h"
#include "vrfhost.h"

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
int
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
		ret = tep_route_add(&tep_rib, vrf, a->family, a->a, host,
				    &local, e, elen);
		if (ret == 0 && a->len < host) {
			ret = tep_route_add(&tep_rib, vrf, a->family, pfx,
					    a->len, &conn, e, elen);
			if (ret != 0)
				tep_route_del(&tep_rib, vrf, a->family, a->a,
					      host, NULL, 0);
		}
	} else {
		tep_route_del(&tep_rib, vrf, a->family, a->a, host, NULL, 0);
		if (a->len < host)
			tep_route_del(&tep_rib, vrf, a->family, pfx, a->len,
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
	p = &tep_ports[pi];
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

int
cmd_addr_add(struct tep_ctl_ctx *c, int n, char **v, struct tep_out *o,
	     struct tep_err *e)
{
	return cmd_addr(c, n, v, o, e, true);
}

int
cmd_addr_del(struct tep_ctl_ctx *c, int n, char **v, struct tep_out *o,
	     struct tep_err *e)
{
	return cmd_addr(c, n, v, o, e, false);
}
