/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Next hops as the commands see them: how a path prints (route show,
 * route get); the flow whose path route get names (cmd_route.c), hashed
 * as the workers hash it when the NIC gives no hash; and route groups,
 * the next-hop groups with their members' weights, state and buckets,
 * and the failover's counters. Called by cmd_route.c, never the other
 * way.
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
#include "tep_proto.h"
#include "tunnel.h"

/* One path: where a plain next hop sends (cmds.h). */
void
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

/* ---- route get's flow --------------------------------------------------- */

static int
proto_arg(const char *s, uint32_t *proto, struct tep_err *err)
{
	static const struct { const char *name; uint32_t num; } names[] = {
		{ "tcp", 6 }, { "udp", 17 }, { "sctp", 132 },
	};
	unsigned int k;

	for (k = 0; k < RTE_DIM(names); k++)
		if (strcmp(s, names[k].name) == 0) {
			*proto = names[k].num;
			return 0;
		}
	if (parse_u32(s, 255, proto) != 0)
		return ERR(EINVAL, "bad proto \"%s\" (tcp, udp, sctp or 0 to "
			   "255)", s);
	return 0;
}

/* The same function over the same bytes as the datapath's
 * (tep_flow_hash_ip), on an IP header built here with 4 bytes of ports
 * after it. */
uint32_t
route_flow_hash(const struct flow_arg *f, int family, const uint8_t *dst)
{
	uint8_t pkt[40 + 8] = { 0 };
	struct tep_l3_info l3 = { 0 };
	uint16_t l4 = 8;	/* a UDP header's worth: the ports are whole */

	l3.family = (uint8_t)family;
	l3.l4_proto = (uint8_t)f->proto;
	l3.l4_usable = 1;
	if (family == 4) {
		l3.l3_len = 20;
		pkt[0] = 0x45;
		pkt[2] = (uint8_t)((20 + l4) >> 8);
		pkt[3] = (uint8_t)(20 + l4);
		pkt[8] = 64;
		pkt[9] = (uint8_t)f->proto;
		if (f->have_from)
			memcpy(pkt + 12, f->from, 4);
		memcpy(pkt + 16, dst, 4);
	} else {
		l3.l3_len = 40;
		pkt[0] = 0x60;
		pkt[5] = (uint8_t)l4;
		pkt[6] = (uint8_t)f->proto;
		pkt[7] = 64;
		if (f->have_from)
			memcpy(pkt + 8, f->from, 16);
		memcpy(pkt + 24, dst, 16);
	}
	l3.ip_len = (uint16_t)(l3.l3_len + l4);
	pkt[l3.l3_len] = (uint8_t)(f->sport >> 8);
	pkt[l3.l3_len + 1] = (uint8_t)f->sport;
	pkt[l3.l3_len + 2] = (uint8_t)(f->dport >> 8);
	pkt[l3.l3_len + 3] = (uint8_t)f->dport;
	return tep_flow_hash_ip(pkt, l3.ip_len, &l3);
}

#define ROUTE_GET_USAGE "route get ADDR [vrf NAME] [from IP] " \
	"[proto tcp|udp|sctp|N] [sport N] [dport N] | [hash H]"

int
route_flow_args(int argc, char **argv, int family, int *vrf,
	       struct flow_arg *f, struct tep_err *err)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *kw = argv[i], *v;

		if (i + 1 >= argc)
			return ERR(EINVAL, "%s needs a value; %s", kw,
				   ROUTE_GET_USAGE);
		v = argv[++i];
		if (strcmp(kw, "vrf") == 0) {
			*vrf = vrf_arg(v, err);
			if (*vrf < 0)
				return ENOENT;
		} else if (strcmp(kw, "from") == 0) {
			if (parse_ip(v, &f->from_family, f->from) != 0)
				return ERR(EINVAL, "bad address \"%s\"", v);
			if (f->from_family != family)
				return ERR(EINVAL, "from %s is not an IPv%d "
					   "address like %s", v, family,
					   argv[0]);
			f->have_from = true;
		} else if (strcmp(kw, "proto") == 0) {
			if (proto_arg(v, &f->proto, err) != 0)
				return EINVAL;
			f->have_proto = true;
		} else if (strcmp(kw, "sport") == 0 ||
			   strcmp(kw, "dport") == 0) {
			if (parse_u32(v, 65535, kw[0] == 's' ? &f->sport :
				      &f->dport) != 0)
				return ERR(EINVAL, "bad %s \"%s\" (0 to "
					   "65535)", kw, v);
			f->have_ports = true;
		} else if (strcmp(kw, "hash") == 0) {
			if (parse_u32(v, UINT32_MAX, &f->hash) != 0)
				return ERR(EINVAL, "bad hash \"%s\"", v);
			f->have_hash = true;
		} else {
			return ERR(EINVAL, "unknown option \"%s\"; %s", kw,
				   ROUTE_GET_USAGE);
		}
	}
	if (f->have_hash && (f->have_from || f->have_proto || f->have_ports))
		return ERR(EINVAL, "hash or a flow's fields, not both");
	/* Ports count only for the protocols whose header starts with
	 * them: without one they would silently change nothing. */
	if (f->have_ports && f->proto != 6 && f->proto != 17 &&
	    f->proto != 132)
		return ERR(EINVAL, "sport and dport need proto tcp, udp or "
			   "sctp");
	return 0;
}

/* ---- route groups ------------------------------------------------------- */

/*
 * The routes naming each group: a group's next-hop slots are shared by
 * routes with the same next hop (proto, FPM generation), so g->ref counts
 * slots; the routes are the slots' references. One pass over the slots.
 */
static uint32_t *
group_routes(void)
{
	uint32_t *cnt = calloc(TEP_NHG_MAX, sizeof(*cnt));
	uint32_t i;

	if (cnt == NULL)
		return NULL;
	for (i = 1; i <= TEP_NH_MAX; i++)
		if (tep_rib.nh_ref[i] > 0 &&
		    tep_rib.nh[i].type == TEP_NHT_GROUP &&
		    tep_rib.nh[i].tunnel < TEP_NHG_MAX)
			cnt[tep_rib.nh[i].tunnel] += tep_rib.nh_ref[i];
	return cnt;
}

static void
out_group_detail(struct tep_out *o, const struct tep_nhg *g, uint32_t routes)
{
	uint32_t i, b, held;

	tep_out_open_object(o, NULL);
	tep_out_u64(o, "id", "group %" PRIu64, g->id);
	tep_out_u64(o, "routes", " routes %" PRIu64, routes);
	tep_out_u64(o, "slots", NULL, g->ref);
	tep_out_newline(o);
	tep_out_open_array(o, "nexthops");
	for (i = 0; i < g->n; i++) {
		for (b = 0, held = 0; b < TEP_NHG_BUCKETS; b++)
			held += g->bkt[b] == g->member[i];
		tep_out_open_object(o, NULL);
		tep_out_text(o, "    nexthop");
		out_nh_path(o, &tep_rib.nh[g->member[i]]);
		tep_out_u64(o, "weight", " weight %" PRIu64, g->weight[i]);
		tep_out_str(o, "state", " %s",
			    tep_nh_is_up(&tep_rib, g->member[i]) ?
			    "up" : "dead");
		tep_out_u64(o, "buckets", " buckets %" PRIu64, held);
		tep_out_newline(o);
		tep_out_close_object(o);
	}
	tep_out_close_array(o);
	tep_out_close_object(o);
}

int
cmd_route_groups(struct tep_ctl_ctx *ctx, int argc, char **argv,
		 struct tep_out *o, struct tep_err *err)
{
	const struct tep_paths_stats *ps = &tep_paths_stats;
	uint32_t *routes, gid, want = 0;

	(void)ctx;
	if (argc == 1 && (parse_u32(argv[0], TEP_NHG_MAX - 1, &want) != 0 ||
			  want == 0))
		return ERR(EINVAL, "bad group id \"%s\" (1 to %d)", argv[0],
			   TEP_NHG_MAX - 1);
	if (want != 0 && tep_nhg_get(&tep_rib, want) == NULL)
		return ERR(ENOENT, "no group %u", want);
	routes = group_routes();
	if (routes == NULL)
		return ERR(ENOMEM, "out of memory");
	tep_out_u64(o, "count", "groups %" PRIu64, tep_rib.nhg_count);
	tep_out_newline(o);
	tep_out_open_array(o, "groups");
	for (gid = 1; gid < TEP_NHG_MAX; gid++) {
		const struct tep_nhg *g = tep_nhg_get(&tep_rib, gid);

		if (g != NULL && (want == 0 || gid == want))
			out_group_detail(o, g, routes[gid]);
	}
	tep_out_close_array(o);
	free(routes);
	/* The failover's counters (route/nexthop.h): members taken out and
	 * put back, and why. */
	tep_out_open_object(o, "failover");
	tep_out_u64(o, "nh_failovers", "failovers %" PRIu64,
		    tep_rib.nh_failovers);
	tep_out_u64(o, "nh_recoveries", " recoveries %" PRIu64,
		    tep_rib.nh_recoveries);
	tep_out_u64(o, "port_down", " port_down %" PRIu64, ps->port_down);
	tep_out_u64(o, "port_up", " port_up %" PRIu64, ps->port_up);
	tep_out_u64(o, "gw_lost", " gw_lost %" PRIu64, ps->gw_lost);
	tep_out_u64(o, "gw_back", " gw_back %" PRIu64, ps->gw_back);
	tep_out_u64(o, "gw_watched", " gw_watched %" PRIu64, ps->gw_watched);
	tep_out_u64(o, "gw_down", " gw_down %" PRIu64, ps->gw_down);
	tep_out_newline(o);
	tep_out_close_object(o);
	return 0;
}
