/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * route add, del, show, get: configured routes, and the lookup a packet
 * would take. Routes from zebra come in through fpm.c.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "args.h"
#include "nexthop.h"
#include "port.h"
#include "tunnel.h"

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
		ret = tep_route_del(&tep_rib, (uint16_t)vrf, family, a, depth,
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
			uint32_t idx = tep_route_get(&tep_rib, (uint16_t)vrf,
						     gw_family, nh.gw, p, &d);

			if (idx == TEP_NH_NONE ||
			    tep_rib.nh[idx].type != TEP_NHT_CONNECTED)
				return ERR(ENETUNREACH, "gateway %s is not on "
					   "a connected network of vrf \"%s\": "
					   "add an address or give dev",
					   gw_str, tep_rib.vrf[vrf]->name);
			dev = tep_rib.nh[idx].port;
		}
		if (tep_ports[dev].vrf != vrf)
			return ERR(EINVAL, "port %s is in vrf \"%s\", not "
				   "\"%s\"", tep_ports[dev].name,
				   tep_rib.vrf[tep_ports[dev].vrf]->name,
				   tep_rib.vrf[vrf]->name);
		nh.port = (uint16_t)dev;
	}
	/* A route in one VRF may point into a tunnel bound to another: the
	 * tunnel's VRF is only where its decapsulated packets are routed. */
	ret = tep_route_add(&tep_rib, (uint16_t)vrf, family, a, depth, &nh, e,
			    sizeof(e));
done:
	if (ret != 0)
		return ERR(ret, "%s: %s", argv[0], e);
	if (vrf == TEP_VRF_DEFAULT)
		tep_underlay_changed();
	return 0;
}

int
cmd_route_add(struct tep_ctl_ctx *c, int n, char **v, struct tep_out *o,
	      struct tep_err *e)
{
	return cmd_route(c, n, v, o, e, true);
}

int
cmd_route_del(struct tep_ctl_ctx *c, int n, char **v, struct tep_out *o,
	      struct tep_err *e)
{
	return cmd_route(c, n, v, o, e, false);
}

/* One path: where a plain next hop sends. */
static void
out_nh_path(struct tep_out *o, const struct tep_nh *nh)
{
	char g[INET6_ADDRSTRLEN];

	switch (nh->type) {
	case TEP_NHT_GW:
		tep_out_str(o, "via", " via %s", ip_str(tep_nh_gw_family(nh),
							nh->gw, g, sizeof(g)));
		tep_out_str(o, "dev", " dev %s", tep_ports[nh->port].name);
		break;
	case TEP_NHT_CONNECTED:
		tep_out_str(o, "dev", " dev %s", tep_ports[nh->port].name);
		tep_out_str(o, "scope", " scope %s", "link");
		break;
	case TEP_NHT_LOCAL:
		tep_out_str(o, "type", " %s", "local");
		tep_out_str(o, "dev", " dev %s", tep_ports[nh->port].name);
		break;
	case TEP_NHT_TUNNEL:
		tep_out_str(o, "tunnel", " tunnel %s",
			    tep_tunnels[nh->tunnel] ?
			    tep_tunnels[nh->tunnel]->name : "?");
		break;
	case TEP_NHT_BLACKHOLE:
		tep_out_str(o, "type", " %s", "blackhole");
		break;
	default:
		break;
	}
}

/* A multipath route's paths, as `ip route` shows them: each member with
 * its weight, "dead" while failover keeps it out of the group. */
static void
out_group(struct tep_out *o, uint32_t gid, int family)
{
	const struct tep_nhg *g = tep_nhg_get(&tep_rib, gid);
	uint32_t i;

	tep_out_u64(o, "group", NULL, gid);
	tep_out_open_array(o, "nexthops");
	for (i = 0; g != NULL && i < g->n; i++) {
		tep_out_open_object(o, NULL);
		tep_out_text(o, " nexthop");
		out_nh_path(o, &tep_rib.nh[g->member[i]]);
		tep_out_u64(o, "weight", " weight %" PRIu64, g->weight[i]);
		if (tep_nh_is_up(&tep_rib, g->member[i]))
			tep_out_str(o, "state", NULL, "up");
		else
			tep_out_str(o, "state", " %s", "dead");
		tep_out_close_object(o);
	}
	tep_out_close_array(o);
	(void)family;
}

static void
out_nh(struct tep_out *o, const struct tep_nh *nh, int family)
{
	if (nh->type == TEP_NHT_GROUP)
		out_group(o, nh->tunnel, family);
	else
		out_nh_path(o, nh);
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

/* The routes within a prefix: equal to it or more specific. */
struct route_within {
	struct tep_out *o;
	int family;
	uint8_t pfx[16];
	uint8_t len;
};

static void
out_route_within(void *arg, int family, const uint8_t *pfx, uint8_t depth,
		 const struct tep_nh *nh)
{
	const struct route_within *rw = arg;
	unsigned int full = rw->len / 8, rest = rw->len % 8;

	if (family != rw->family || depth < rw->len ||
	    memcmp(pfx, rw->pfx, full) != 0 ||
	    (rest != 0 && ((pfx[full] ^ rw->pfx[full]) &
			   (uint8_t)(0xff00u >> rest)) != 0))
		return;
	out_route(rw->o, family, pfx, depth, nh);
}

/*
 * Routes per reply of a listing on the control socket: 8192 stay well
 * under the 4 MiB reply in JSON even at the longest (an IPv6 route via an
 * IPv6 gateway, under 300 bytes). A longer listing comes as a stream of
 * such pieces, each a complete reply (docs/commands.md).
 */
#define ROUTE_SHOW_PIECE	8192

/* Where a route listing is: the VRF, the family being walked and how far
 * (4, then 6; 0 when done), and the prefix it is restricted to. */
struct route_listing {
	uint16_t vrf;
	const struct tep_vrf *v;	/* the VRF must stay the same one */
	char name[TEP_VRF_NAME_MAX];
	int family;
	struct tep_walk_cursor cur;
	bool within;
	struct route_within rw;
};

/* The next at most max routes of l (walked, for a listing within a
 * prefix) into o as one complete body; true when the listing is done. */
static bool
route_show_piece(struct route_listing *l, struct tep_out *o, uint64_t max)
{
	uint64_t got;

	tep_out_str(o, "vrf", NULL, l->name);
	tep_out_open_array(o, "routes");
	l->rw.o = o;
	while (max > 0 && l->family != 0) {
		got = tep_route_walk_next(&tep_rib, l->vrf, l->family, &l->cur,
					  max, l->within ? out_route_within :
					  out_route, l->within ?
					  (void *)&l->rw : (void *)o);
		max -= got;
		if (max > 0) {		/* this family is done */
			l->family = l->family == 4 && !l->within ? 6 : 0;
			memset(&l->cur, 0, sizeof(l->cur));
		}
	}
	tep_out_close_array(o);
	return l->family == 0;
}

static int
route_show_tick(struct tep_ctl_ctx *ctx, void *arg, struct tep_out *o,
		struct tep_err *err)
{
	struct route_listing *l = arg;

	(void)ctx;
	if (tep_rib.vrf[l->vrf] != l->v ||
	    strcmp(tep_rib.vrf[l->vrf]->name, l->name) != 0)
		return ERR(ENOENT, "vrf \"%s\" was deleted during the listing",
			   l->name);
	return route_show_piece(l, o, ROUTE_SHOW_PIECE) ?
	       TEP_CTL_STREAM_END : 0;
}

int
cmd_route_show(struct tep_ctl_ctx *ctx, int argc, char **argv,
	       struct tep_out *o, struct tep_err *err)
{
	struct route_listing *l;
	int vrf = TEP_VRF_DEFAULT, i = 0, rc;
	bool socket = tep_ctl_ctx_origin(ctx) == TEP_CTL_ORIGIN_SOCKET;

	if (argc >= 2 && strcmp(argv[0], "vrf") == 0) {
		vrf = vrf_arg(argv[1], err);
		if (vrf < 0)
			return ENOENT;
		i = 2;
	}
	l = calloc(1, sizeof(*l));
	if (l == NULL)
		return ERR(ENOMEM, "out of memory");
	if (i < argc && parse_prefix(argv[i], &l->rw.family, l->rw.pfx,
				     &l->rw.len, true) != 0) {
		free(l);
		return ERR(EINVAL, "bad prefix \"%s\" (ADDR/LEN)", argv[i]);
	}
	if (argc > i + 1) {
		free(l);
		return ERR(EINVAL, "route show [vrf NAME] [PREFIX]");
	}
	l->vrf = (uint16_t)vrf;
	l->v = tep_rib.vrf[vrf];
	snprintf(l->name, sizeof(l->name), "%s", l->v->name);
	l->within = i < argc;
	l->family = l->within ? l->rw.family : 4;
	/* From a file there is no stream: all in one reply, up to its
	 * limit. */
	if (route_show_piece(l, o, socket ? ROUTE_SHOW_PIECE : UINT64_MAX)) {
		free(l);
		return 0;
	}
	rc = tep_ctl_stream_start_paced(ctx, route_show_tick, l, free);
	if (rc != 0) {
		free(l);
		return ERR(rc, "cannot list the routes in pieces");
	}
	return 0;
}

int
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
	idx = tep_route_get(&tep_rib, (uint16_t)vrf, family, a, pfx, &depth);
	if (idx == TEP_NH_NONE)
		return ERR(ENETUNREACH, "%s: no route in vrf \"%s\"", argv[0],
			   tep_rib.vrf[vrf]->name);
	tep_out_str(o, "address", "%s", argv[0]);
	tep_out_str(o, "vrf", " vrf %s: ", tep_rib.vrf[vrf]->name);
	tep_out_open_array(o, "routes");
	out_route(o, family, pfx, depth, &tep_rib.nh[idx]);
	tep_out_close_array(o);
	return 0;
}
