/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * route add, replace, del, show, get: configured routes, of one path or
 * several, and the lookup a packet would take. Routes from zebra come in
 * through fpm.c; a route's paths become its next hop in route/nexthop.c;
 * the flow route get hashes and route groups are in cmd_nexthop.c.
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

#define ROUTE_USAGE "route add PREFIX [vrf NAME] (via IP [dev PORT] | " \
	"tunnel NAME | blackhole | nexthop PATH [weight N]... | " \
	"nexthops MEMBER[,WEIGHT]...)"

/*
 * One path of a route as typed. The plain grammar has one, with the
 * last of via, tunnel and blackhole deciding (as it always did); each
 * `nexthop` of a multipath route starts one of its own, which must say
 * what it is exactly once: via IP [dev PORT], dev PORT (the destination
 * is on the port's link), or tunnel NAME.
 */
enum path_kind { PATH_NONE, PATH_GW, PATH_DEV, PATH_TUNNEL, PATH_BLACKHOLE };

struct path_arg {
	enum path_kind kind;
	char via[INET6_ADDRSTRLEN];	/* the gateway as typed */
	int gw_family;
	uint8_t gw[16];
	int dev;		/* port, or -1 */
	int tunnel;		/* tunnel id, or -1 */
	uint32_t weight;	/* 0: not given (1) */
	unsigned int kinds;	/* via, tunnel, blackhole words seen */
};

static void
path_init(struct path_arg *p)
{
	memset(p, 0, sizeof(*p));
	p->dev = -1;
	p->tunnel = -1;
}

static int
weight_arg(const char *s, uint32_t *w, struct tep_err *err)
{
	if (parse_u32(s, UINT32_MAX, w) != 0)
		return ERR(EINVAL, "bad weight \"%s\"", s);
	if (*w == 0 || *w > TEP_NHG_WEIGHT_MAX)
		return ERR(EINVAL, "weight %s out of range (1 to %d)", s,
			   TEP_NHG_WEIGHT_MAX);
	return 0;
}

/*
 * The path word at argv[*i] into p (member: inside a nexthop, where
 * weight is one too): 1 if it was one, *i then on its last word; 0 if it
 * is no path word; -1 with err set if its value is wrong.
 */
static int
path_word(int argc, char **argv, int *i, struct path_arg *p, bool member,
	  struct tep_err *err)
{
	const char *kw = argv[*i], *v;

	if (strcmp(kw, "blackhole") == 0) {
		p->kind = PATH_BLACKHOLE;
		p->kinds++;
		return 1;
	}
	if (strcmp(kw, "via") != 0 && strcmp(kw, "dev") != 0 &&
	    strcmp(kw, "tunnel") != 0 &&
	    (!member || strcmp(kw, "weight") != 0))
		return 0;
	if (*i + 1 >= argc) {
		ERR(EINVAL, "%s needs a value", kw);
		return -1;
	}
	v = argv[++*i];
	if (strcmp(kw, "via") == 0) {
		if (parse_ip(v, &p->gw_family, p->gw) != 0) {
			ERR(EINVAL, "bad gateway \"%s\"", v);
			return -1;
		}
		snprintf(p->via, sizeof(p->via), "%s", v);
		p->kind = PATH_GW;
		p->kinds++;
	} else if (strcmp(kw, "dev") == 0) {
		p->dev = port_arg(v, err);
		if (p->dev < 0)
			return -1;
	} else if (strcmp(kw, "tunnel") == 0) {
		p->tunnel = tep_tunnel_find(v);
		if (p->tunnel < 0) {
			ERR(ENOENT, "no tunnel \"%s\"", v);
			return -1;
		}
		p->kind = PATH_TUNNEL;
		p->kinds++;
	} else if (weight_arg(v, &p->weight, err) != 0) {
		return -1;
	}
	return 1;
}

/*
 * One word of `nexthops`: MEMBER[,WEIGHT], MEMBER a gateway's address (on
 * a connected network of the VRF) or else a tunnel's name. One word per
 * path, so that a route of 64 paths fits in a request's 128 words.
 */
static int
path_compact(const char *word, struct path_arg *p, struct tep_err *err)
{
	char name[TEP_CTL_MAX_WORD + 1];
	char *comma;

	snprintf(name, sizeof(name), "%s", word);
	comma = strchr(name, ',');
	if (comma != NULL) {
		*comma = '\0';
		if (weight_arg(comma + 1, &p->weight, err) != 0)
			return -1;
	}
	if (name[0] == '\0') {
		ERR(EINVAL, "no path in \"%s\"", word);
		return -1;
	}
	if (parse_ip(name, &p->gw_family, p->gw) == 0) {
		ip_str(p->gw_family, p->gw, p->via, sizeof(p->via));
		p->kind = PATH_GW;
	} else {
		p->tunnel = tep_tunnel_find(name);
		if (p->tunnel < 0) {
			ERR(ENOENT, "no tunnel \"%s\"", name);
			return -1;
		}
		p->kind = PATH_TUNNEL;
	}
	p->kinds = 1;
	return 0;
}

/*
 * The next hop of path p in vrf, built and checked the way route add has
 * always built one: a gateway must be on a connected network of the VRF
 * unless its port is given, and that port must be in the VRF. 0, or an
 * errno with err set.
 */
static int
path_nh(const struct path_arg *p, int vrf, struct tep_nh *nh,
	struct tep_err *err)
{
	int dev = p->dev;

	memset(nh, 0, sizeof(*nh));
	switch (p->kind) {
	case PATH_BLACKHOLE:
		nh->type = TEP_NHT_BLACKHOLE;
		return 0;
	case PATH_TUNNEL:
		/* A route in one VRF may point into a tunnel bound to
		 * another: the tunnel's VRF is only where its decapsulated
		 * packets are routed. */
		nh->type = TEP_NHT_TUNNEL;
		nh->tunnel = (uint32_t)p->tunnel;
		return 0;
	case PATH_GW:
	case PATH_DEV:
		break;
	default:
		return ERR(EINVAL, "%s", ROUTE_USAGE);
	}
	if (p->kind == PATH_GW) {
		nh->type = TEP_NHT_GW;
		nh->gw_v6 = p->gw_family == 6;
		memcpy(nh->gw, p->gw, sizeof(nh->gw));
	} else {
		nh->type = TEP_NHT_CONNECTED;
	}
	if (dev < 0) {
		/* The gateway must be on a connected network. */
		uint8_t pfx[16], d;
		uint32_t idx = tep_route_get(&tep_rib, (uint16_t)vrf,
					     p->gw_family, p->gw, pfx, &d);

		if (idx == TEP_NH_NONE ||
		    tep_rib.nh[idx].type != TEP_NHT_CONNECTED)
			return ERR(ENETUNREACH, "gateway %s is not on a "
				   "connected network of vrf \"%s\": add an "
				   "address or give dev", p->via,
				   tep_rib.vrf[vrf]->name);
		dev = tep_rib.nh[idx].port;
	}
	if (tep_ports[dev].vrf != vrf)
		return ERR(EINVAL, "port %s is in vrf \"%s\", not \"%s\"",
			   tep_ports[dev].name,
			   tep_rib.vrf[tep_ports[dev].vrf]->name,
			   tep_rib.vrf[vrf]->name);
	nh->port = (uint16_t)dev;
	return 0;
}

/*
 * A multipath route's members from its nexthop clauses: each built as a
 * single path is, then checked as a whole (no path twice), every error
 * naming its nexthop. 0, or an errno with err set.
 */
static int
paths_members(struct path_arg *p, unsigned int n, int vrf,
	      struct tep_nhg_member *m, struct tep_err *err)
{
	unsigned int k, j;
	int ret = 0;

	for (k = 0; k < n; k++) {
		if (p[k].kinds == 0 && p[k].dev >= 0)
			p[k].kind = PATH_DEV;
		if (p[k].kinds == 0 && p[k].dev < 0)
			ret = ERR(EINVAL, "no path (via IP [dev PORT], dev "
				  "PORT or tunnel NAME)");
		else if (p[k].kinds > 1)
			ret = ERR(EINVAL, "one of via, tunnel or blackhole "
				  "per nexthop");
		else if (p[k].kind == PATH_BLACKHOLE)
			ret = ERR(EINVAL, "blackhole cannot be one of several "
				  "paths");
		else if (p[k].kind == PATH_TUNNEL && p[k].dev >= 0)
			ret = ERR(EINVAL, "a tunnel path takes no dev");
		else
			ret = path_nh(&p[k], vrf, &m[k].nh, err);
		if (ret != 0) {
			tep_err_prefix(err, "nexthop %u: ", k + 1);
			return ret;
		}
		m[k].weight = p[k].weight != 0 ? p[k].weight : 1;
		for (j = 0; j < k; j++)
			if (memcmp(&m[j].nh, &m[k].nh, sizeof(m[k].nh)) == 0)
				return ERR(EINVAL, "nexthop %u: the same path "
					   "as nexthop %u", k + 1, j + 1);
	}
	return 0;
}

enum route_op { ROUTE_ADD, ROUTE_REPLACE, ROUTE_DEL };

/* A route no longer names nh: a group it was the last to name goes. What
 * its members held needs no release for static paths. */
static void
route_released(const struct tep_nh *nh)
{
	struct tep_nh gone[TEP_NHG_MEMBERS];

	tep_paths_released(nh, gone, RTE_DIM(gone));
}

static int
cmd_route(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *o,
	  struct tep_err *err, enum route_op op)
{
	struct path_arg one, *p = NULL;
	struct tep_nhg_member m[TEP_NHG_MEMBERS];
	struct tep_nh nh, as, old;
	const struct tep_nh *cur;
	uint8_t a[16], depth;
	int family, vrf = TEP_VRF_DEFAULT, i, r, ret;
	unsigned int n = 0;
	bool had_old = false;
	char e[256];

	(void)ctx;
	(void)o;
	if (parse_prefix(argv[0], &family, a, &depth, false) != 0)
		return ERR(EINVAL, "bad prefix \"%s\"", argv[0]);
	path_init(&one);
	for (i = 1; i < argc; i++) {
		const char *kw = argv[i];

		if (op != ROUTE_DEL && strcmp(kw, "nexthop") == 0) {
			if (n == TEP_NHG_MEMBERS) {
				ret = ERR(E2BIG, "more than %d nexthops: a "
					  "route has at most %d paths",
					  TEP_NHG_MEMBERS, TEP_NHG_MEMBERS);
				goto out;
			}
			if (p == NULL)
				p = calloc(TEP_NHG_MEMBERS, sizeof(*p));
			if (p == NULL)
				return ERR(ENOMEM, "out of memory");
			path_init(&p[n++]);
			continue;
		}
		if (op != ROUTE_DEL && strcmp(kw, "nexthops") == 0) {
			/* the rest of the line, a word per path */
			if (i + 1 >= argc) {
				ret = ERR(EINVAL, "nexthops needs a value");
				goto out;
			}
			if (p == NULL)
				p = calloc(TEP_NHG_MEMBERS, sizeof(*p));
			if (p == NULL)
				return ERR(ENOMEM, "out of memory");
			for (i++; i < argc; i++) {
				if (n == TEP_NHG_MEMBERS) {
					ret = ERR(E2BIG, "more than %d "
						  "nexthops: a route has at "
						  "most %d paths",
						  TEP_NHG_MEMBERS,
						  TEP_NHG_MEMBERS);
					goto out;
				}
				path_init(&p[n]);
				if (path_compact(argv[i], &p[n++], err) != 0) {
					tep_err_prefix(err, "nexthop %u: ", n);
					ret = err->code;
					goto out;
				}
			}
			break;
		}
		r = path_word(argc, argv, &i, n > 0 ? &p[n - 1] : &one, n > 0,
			      err);
		if (r < 0) {
			if (n > 0)
				tep_err_prefix(err, "nexthop %u: ", n);
			ret = err->code;
			goto out;
		}
		if (r > 0)
			continue;
		if (i + 1 >= argc) {
			ret = ERR(EINVAL, "%s needs a value", kw);
			goto out;
		}
		if (strcmp(kw, "vrf") == 0) {
			vrf = vrf_arg(argv[++i], err);
			if (vrf < 0) {
				ret = ENOENT;
				goto out;
			}
		} else {
			ret = ERR(EINVAL, "unknown route option \"%s\"", kw);
			goto out;
		}
	}
	cur = tep_route_exact(&tep_rib, (uint16_t)vrf, family, a, depth);
	if (cur != NULL) {
		old = *cur;
		had_old = true;
	}
	if (op == ROUTE_DEL) {
		ret = tep_route_del(&tep_rib, (uint16_t)vrf, family, a, depth,
				    e, sizeof(e));
		if (ret == 0 && had_old)
			route_released(&old);
		goto done;
	}
	if (n > 0 && (one.kinds > 0 || one.dev >= 0)) {
		ret = ERR(EINVAL, "a route is one path or nexthop paths, not "
			  "both");
		goto out;
	}
	if (n == 0) {
		if (one.kinds == 0) {
			ret = ERR(EINVAL, "%s", ROUTE_USAGE);
			goto out;
		}
		ret = path_nh(&one, vrf, &nh, err);
		if (ret != 0)
			goto out;
	} else {
		ret = paths_members(p, n, vrf, m, err);
		if (ret != 0)
			goto out;
		memset(&as, 0, sizeof(as));	/* static: proto, gen 0 */
		ret = tep_paths_nh(m, n, &as, &nh, e, sizeof(e));
		if (ret != 0) {
			ret = ERR(ret, "%s: %s", argv[0], e);
			goto out;
		}
	}
	if (op == ROUTE_REPLACE)
		ret = tep_route_replace(&tep_rib, (uint16_t)vrf, family, a,
					depth, &nh, e, sizeof(e));
	else
		ret = tep_route_add(&tep_rib, (uint16_t)vrf, family, a, depth,
				    &nh, e, sizeof(e));
	if (ret != 0)
		route_released(&nh);	/* a group made for it goes */
	else if (op == ROUTE_REPLACE && had_old)
		route_released(&old);
done:
	if (ret != 0)
		ret = ERR(ret, "%s: %s", argv[0], e);
	else if (vrf == TEP_VRF_DEFAULT)
		tep_underlay_changed();
out:
	free(p);
	return ret;
}

int
cmd_route_add(struct tep_ctl_ctx *c, int n, char **v, struct tep_out *o,
	      struct tep_err *e)
{
	return cmd_route(c, n, v, o, e, ROUTE_ADD);
}

int
cmd_route_replace(struct tep_ctl_ctx *c, int n, char **v, struct tep_out *o,
		  struct tep_err *e)
{
	return cmd_route(c, n, v, o, e, ROUTE_REPLACE);
}

int
cmd_route_del(struct tep_ctl_ctx *c, int n, char **v, struct tep_out *o,
	      struct tep_err *e)
{
	return cmd_route(c, n, v, o, e, ROUTE_DEL);
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
	int family, vrf = TEP_VRF_DEFAULT, ret;
	struct flow_arg f;
	uint32_t idx, hash, mem;

	(void)ctx;
	memset(&f, 0, sizeof(f));
	if (parse_ip(argv[0], &family, a) != 0)
		return ERR(EINVAL, "bad address \"%s\"", argv[0]);
	ret = route_flow_args(argc, argv, family, &vrf, &f, err);
	if (ret != 0)
		return ret;
	idx = tep_route_get(&tep_rib, (uint16_t)vrf, family, a, pfx, &depth);
	if (idx == TEP_NH_NONE)
		return ERR(ENETUNREACH, "%s: no route in vrf \"%s\"", argv[0],
			   tep_rib.vrf[vrf]->name);
	tep_out_str(o, "address", "%s", argv[0]);
	tep_out_str(o, "vrf", " vrf %s: ", tep_rib.vrf[vrf]->name);
	tep_out_open_array(o, "routes");
	out_route(o, family, pfx, depth, &tep_rib.nh[idx]);
	tep_out_close_array(o);
	if (tep_rib.nh[idx].type != TEP_NHT_GROUP)
		return 0;
	/* A multipath route: the member this flow takes, as the workers
	 * choose it (tep_nh_resolve), dead members already left out. */
	hash = f.have_hash ? f.hash : route_flow_hash(&f, family, a);
	mem = tep_nh_resolve(&tep_rib, idx, hash);
	tep_out_u64(o, "hash", NULL, hash);
	tep_out_text(o, "chosen:");
	if (mem == TEP_NH_NONE) {
		tep_out_null(o, "chosen", " none, every nexthop is dead");
	} else {
		tep_out_open_object(o, "chosen");
		tep_out_text(o, " nexthop");
		out_nh_path(o, &tep_rib.nh[mem]);
		tep_out_close_object(o);
	}
	tep_out_u64(o, "bucket", NULL, hash & (TEP_NHG_BUCKETS - 1));
	tep_out_text(o, " (flow hash 0x%08x, bucket %u)", hash,
		     hash & (TEP_NHG_BUCKETS - 1));
	tep_out_newline(o);
	return 0;
}
