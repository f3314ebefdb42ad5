/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * tunnel add, del, show: the words into a struct tep_tunnel_spec, made and
 * deleted by tunnel.c (tunnel.h), which fpm.c's EVPN tunnels go through
 * too: both kinds pass one set of checks.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>


#include "cmds.h"
#include "tunnel.h"
#include "args.h"

static int
tun_type(const char *s)
{
	int t;

	for (t = 0; t < TEP_TUN_MAX; t++)
		if (strcmp(s, tep_tun_type_name((enum tep_tun_type)t)) == 0)
			return t;
	return -1;
}

/* What tunnel add's options say that is not a field of the spec. */
struct tun_opts {
	bool have_local, have_remote;
	int fam_l, fam_r;
};

/* One option, KEYWORD VALUE, into s and opts: 0, or an errno (err set). */
static int
tun_option(struct tep_tunnel_spec *s, struct tun_opts *opts, const char *kw,
	   const char *val, struct tep_err *err)
{
	uint32_t u;

	if (strcmp(kw, "type") == 0) {
		int ty = tun_type(val);

		if (ty < 0)
			return ERR(EINVAL, "type \"%s\": vxlan, geneve, fou, "
				   "gue or gre", val);
		s->type = (enum tep_tun_type)ty;
	} else if (strcmp(kw, "local") == 0 || strcmp(kw, "remote") == 0) {
		bool l = kw[0] == 'l';

		if (parse_ip(val, l ? &opts->fam_l : &opts->fam_r,
			     l ? s->local : s->remote) != 0)
			return ERR(EINVAL, "%s \"%s\": not an IP address", kw,
				   val);
		*(l ? &opts->have_local : &opts->have_remote) = true;
	} else if (strcmp(kw, "vni") == 0 || strcmp(kw, "key") == 0) {
		if (parse_u32(val, kw[0] == 'v' ? TEP_VNI_MAX : UINT32_MAX,
			      &u) != 0)
			return ERR(ERANGE, "%s \"%s\" out of range 0-%u", kw,
				   val, kw[0] == 'v' ? TEP_VNI_MAX :
				   UINT32_MAX);
		s->vni = u;
		s->given |= kw[0] == 'v' ? TEP_TUN_OPT_VNI : TEP_TUN_OPT_KEY;
	} else if (strcmp(kw, "dstport") == 0) {
		if (parse_u32(val, 65535, &u) != 0 || u == 0)
			return ERR(EINVAL, "dstport \"%s\": 1-65535", val);
		s->dstport = (uint16_t)u;
		s->given |= TEP_TUN_OPT_DSTPORT;
	} else if (strcmp(kw, "vrf") == 0) {
		int v = vrf_arg(val, err);

		if (v < 0)
			return ENOENT;
		s->vrf = (uint16_t)v;
	} else if (strcmp(kw, "csum") == 0) {
		int m;

		for (m = 0; m < TEP_CSUM_MODE_MAX; m++)
			if (strcmp(val, tep_csum_mode_name(
					(enum tep_csum_mode)m)) == 0)
				break;
		if (m == TEP_CSUM_MODE_MAX)
			return ERR(EINVAL, "csum \"%s\": lco, full, offload "
				   "or off", val);
		s->csum = (enum tep_csum_mode)m;
	} else if (strcmp(kw, "ttl") == 0) {
		if (parse_u32(val, 255, &u) != 0 || u == 0)
			return ERR(EINVAL, "ttl \"%s\": 1-255", val);
		s->ttl = (uint8_t)u;
	} else if (strcmp(kw, "tos") == 0) {
		if (strcmp(val, "inherit") == 0)
			s->tos_inherit = true;
		else if (parse_u32(val, 255, &u) == 0)
			s->dscp = (uint8_t)(u >> 2);
		else
			return ERR(EINVAL, "tos \"%s\": 0-255 or inherit",
				   val);
	} else if (strcmp(kw, "srcport") == 0) {
		unsigned int lo, hi;
		char c;

		if (sscanf(val, "%u-%u%c", &lo, &hi, &c) != 2 ||
		    lo == 0 || hi > 65535 || lo > hi)
			return ERR(EINVAL, "srcport \"%s\": LO-HI within "
				   "1-65535", val);
		s->sport_lo = (uint16_t)lo;
		s->sport_hi = (uint16_t)hi;
		s->given |= TEP_TUN_OPT_SRCPORT;
	} else if (strcmp(kw, "inner-dmac") == 0 ||
		   strcmp(kw, "inner-smac") == 0) {
		bool dst = kw[6] == 'd';
		struct rte_ether_addr *mac = dst ? &s->inner_dmac :
					     &s->inner_smac;

		/* the source must be unicast: decap takes frames to it */
		if (parse_mac(val, mac) != 0 ||
		    (!dst && !rte_is_unicast_ether_addr(mac)))
			return ERR(EINVAL, "%s \"%s\": not a%s MAC", kw, val,
				   dst ? "" : " unicast");
		s->given |= dst ? TEP_TUN_OPT_INNER_DMAC :
				  TEP_TUN_OPT_INNER_SMAC;
	} else if (strcmp(kw, "gre-csum") == 0 || strcmp(kw, "rco") == 0 ||
		   strcmp(kw, "df") == 0) {
		bool on = strcmp(val, "on") == 0;

		if (!on && strcmp(val, "off") != 0)
			return ERR(EINVAL, "%s: on or off", kw);
		if (kw[0] == 'g') {
			s->gre_csum = on;
			s->given |= TEP_TUN_OPT_GRE_CSUM;
		} else if (kw[0] == 'r') {
			s->rco = on;
			s->given |= TEP_TUN_OPT_RCO;
		} else {
			s->df = on;
		}
	} else if (strcmp(kw, "inner") == 0) {
		if (strcmp(val, "ipv4") != 0 && strcmp(val, "ipv6") != 0)
			return ERR(EINVAL, "inner: ipv4 or ipv6");
		s->inner_proto = val[3] == '4' ? 4 : 41;
		s->given |= TEP_TUN_OPT_INNER;
	} else {
		return ERR(EINVAL, "unknown tunnel option \"%s\"", kw);
	}
	return 0;
}

/* The options after the name, KEYWORD VALUE pairs, in order; then the
 * required ones given, in one address family. */
static int
tun_options(struct tep_tunnel_spec *s, int argc, char **argv,
	    struct tep_err *err)
{
	struct tun_opts opts = { 0 };
	int i, ret;

	for (i = 1; i < argc; i += 2) {
		if (i + 1 >= argc)
			return ERR(EINVAL, "%s needs a value", argv[i]);
		ret = tun_option(s, &opts, argv[i], argv[i + 1], err);
		if (ret != 0)
			return ret;
	}
	if (s->type == TEP_TUN_MAX || !opts.have_local || !opts.have_remote)
		return ERR(EINVAL, "tunnel add NAME type TYPE local IP remote "
			   "IP ...: type, local and remote are required");
	if (opts.fam_l != opts.fam_r)
		return ERR(EINVAL, "local and remote must be the same family");
	s->family = opts.fam_l;
	return 0;
}

int
cmd_tunnel_add(struct tep_ctl_ctx *ctx, int argc, char **argv,
	       struct tep_out *o, struct tep_err *err)
{
	struct tep_tunnel_spec s;
	char e[256];
	int ret;

	(void)ctx;
	(void)o;
	if (strlen(argv[0]) >= TEP_NAME_MAX)
		return ERR(EINVAL, "tunnel name longer than %d",
			   TEP_NAME_MAX - 1);
	if (tep_tunnel_find(argv[0]) >= 0)
		return ERR(EEXIST, "tunnel \"%s\" exists", argv[0]);
	tep_tunnel_spec_init(&s);
	snprintf(s.name, sizeof(s.name), "%s", argv[0]);
	ret = tun_options(&s, argc, argv, err);
	if (ret != 0)
		return ret;
	ret = tep_tunnel_create(&s, NULL, e, sizeof(e));
	return ret ? ERR(ret, "%s", e) : 0;
}

int
cmd_tunnel_del(struct tep_ctl_ctx *ctx, int argc, char **argv,
	       struct tep_out *o, struct tep_err *err)
{
	int id = tep_tunnel_find(argv[0]), ret;
	char e[256];

	(void)ctx;
	(void)argc;
	(void)o;
	if (id < 0)
		return ERR(ENOENT, "no tunnel \"%s\"", argv[0]);
	ret = tep_tunnel_delete((uint32_t)id, e, sizeof(e));
	return ret ? ERR(ret, "%s", e) : 0;
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
	tep_out_str(o, "vrf", " vrf %s", tep_rib.vrf[t->vrf]->name);
	tep_out_str(o, "csum", " csum %s", tep_csum_mode_name(t->csum_asked));
	if (t->csum_asked != t->p.csum)
		tep_out_str(o, "csum_done_by", " (done by %s: outer UDP offload "
			    "not wired yet)", tep_csum_mode_name(t->p.csum));
	/* remote checksum offload changes what goes on the wire: shown */
	if (t->p.rco)
		tep_out_str(o, "rco", " rco %s", "on");
	tep_out_u64(o, "ttl", " ttl %" PRIu64, t->p.ttl ? t->p.ttl : 64);
	tep_out_u64(o, "srcport_lo", " srcport %" PRIu64, t->tmpl.sport_lo);
	tep_out_u64(o, "srcport_hi", "-%" PRIu64, t->tmpl.sport_hi);
	if (t->tmpl.inner_eth) {
		tep_out_str(o, "inner_dmac", " inner-dmac %s", mac);
		rte_ether_format_addr(mac, sizeof(mac), &t->inner_smac);
		tep_out_str(o, "inner_smac", " inner-smac %s", mac);
	}
	tep_out_u64(o, "overhead", " overhead %" PRIu64, t->overhead);
	tep_out_newline(o);
	tep_out_close_object(o);
}

int
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
		if (tep_tunnels[i] != NULL && (id < 0 || id == i))
			out_tunnel(o, tep_tunnels[i]);
	tep_out_close_array(o);
	return 0;
}
