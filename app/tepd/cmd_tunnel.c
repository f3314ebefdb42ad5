/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * tunnel add, del, show. fpm.c makes and deletes its EVPN tunnels through
 * the same add and del (tep_tunnel_add_args, tep_tunnel_del_name), so both
 * kinds pass one set of checks.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_malloc.h>

#include "tep_bytes.h"
#include "tep_csum.h"
#include "cmds.h"

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

/* What tunnel add's options say that is not a field of the tunnel. */
struct tun_opts {
	bool have_local, have_remote;
	int fam_l, fam_r;
};

/* One option, KEYWORD VALUE, into t and opts: 0, or an errno (err set). */
static int
tun_option(struct tep_tunnel *t, struct tun_opts *opts, const char *kw,
	   const char *val, struct tep_err *err)
{
	uint32_t u;

	if (strcmp(kw, "type") == 0) {
		int ty = tun_type(val);

		if (ty < 0)
			return ERR(EINVAL, "type \"%s\": vxlan, geneve, fou, "
				   "gue or gre", val);
		t->p.type = (enum tep_tun_type)ty;
	} else if (strcmp(kw, "local") == 0 || strcmp(kw, "remote") == 0) {
		bool l = kw[0] == 'l';

		if (parse_ip(val, l ? &opts->fam_l : &opts->fam_r,
			     l ? t->p.src : t->p.dst) != 0)
			return ERR(EINVAL, "%s \"%s\": not an IP address", kw,
				   val);
		*(l ? &opts->have_local : &opts->have_remote) = true;
	} else if (strcmp(kw, "vni") == 0 || strcmp(kw, "key") == 0) {
		if (parse_u32(val, kw[0] == 'v' ? TEP_VNI_MAX : UINT32_MAX,
			      &u) != 0)
			return ERR(ERANGE, "%s \"%s\" out of range 0-%u", kw,
				   val, kw[0] == 'v' ? TEP_VNI_MAX :
				   UINT32_MAX);
		t->p.vni = u;
		t->p.gre_key = kw[0] == 'k';
	} else if (strcmp(kw, "dstport") == 0) {
		if (parse_u32(val, 65535, &u) != 0 || u == 0)
			return ERR(EINVAL, "dstport \"%s\": 1-65535", val);
		t->p.dst_port = (uint16_t)u;
	} else if (strcmp(kw, "vrf") == 0) {
		int v = vrf_arg(val, err);

		if (v < 0)
			return ENOENT;
		t->vrf = (uint16_t)v;
	} else if (strcmp(kw, "csum") == 0) {
		int m;

		for (m = 0; m < TEP_CSUM_MODE_MAX; m++)
			if (strcmp(val, tep_csum_mode_name(
					(enum tep_csum_mode)m)) == 0)
				break;
		if (m == TEP_CSUM_MODE_MAX)
			return ERR(EINVAL, "csum \"%s\": lco, full, offload "
				   "or off", val);
		t->p.csum = (enum tep_csum_mode)m;
	} else if (strcmp(kw, "ttl") == 0) {
		if (parse_u32(val, 255, &u) != 0 || u == 0)
			return ERR(EINVAL, "ttl \"%s\": 1-255", val);
		t->p.ttl = (uint8_t)u;
	} else if (strcmp(kw, "tos") == 0) {
		if (strcmp(val, "inherit") == 0)
			t->p.tos_inherit = true;
		else if (parse_u32(val, 255, &u) == 0)
			t->p.dscp = (uint8_t)(u >> 2);
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
		t->p.sport_lo = (uint16_t)lo;
		t->p.sport_hi = (uint16_t)hi;
	} else if (strcmp(kw, "inner-dmac") == 0 ||
		   strcmp(kw, "inner-smac") == 0) {
		struct rte_ether_addr *mac = kw[6] == 'd' ? &t->inner_dmac :
					     &t->inner_smac;

		/* the source must be unicast: decap takes frames to it */
		if (parse_mac(val, mac) != 0 ||
		    (mac == &t->inner_smac && !rte_is_unicast_ether_addr(mac)))
			return ERR(EINVAL, "%s \"%s\": not a%s MAC", kw, val,
				   kw[6] == 's' ? " unicast" : "");
	} else if (strcmp(kw, "gre-csum") == 0 || strcmp(kw, "rco") == 0 ||
		   strcmp(kw, "df") == 0) {
		bool on = strcmp(val, "on") == 0;

		if (!on && strcmp(val, "off") != 0)
			return ERR(EINVAL, "%s: on or off", kw);
		if (kw[0] == 'g')
			t->p.gre_csum = on;
		else if (kw[0] == 'r')
			t->p.gue_rco = on;
		else
			t->p.df = on;
	} else if (strcmp(kw, "inner") == 0) {
		if (strcmp(val, "ipv4") != 0 && strcmp(val, "ipv6") != 0)
			return ERR(EINVAL, "inner: ipv4 or ipv6");
		t->p.gue_proto = val[3] == '4' ? 4 : 41;
	} else {
		return ERR(EINVAL, "unknown tunnel option \"%s\"", kw);
	}
	return 0;
}

/* The options after the name, KEYWORD VALUE pairs, in order. */
static int
tun_options(struct tep_tunnel *t, struct tun_opts *opts, int argc,
	    char **argv, struct tep_err *err)
{
	int i, ret;

	for (i = 1; i < argc; i += 2) {
		if (i + 1 >= argc)
			return ERR(EINVAL, "%s needs a value", argv[i]);
		ret = tun_option(t, opts, argv[i], argv[i + 1], err);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/*
 * The options together: the required ones given, in one address family,
 * an encapsulation template that can be built, and a UDP port no other
 * tunnel type receives on. Fills in what follows from them (outer family,
 * checksum mode, template, destination port).
 */
static int
tun_check(struct tep_tunnel *t, const struct tun_opts *opts,
	  struct tep_err *err)
{
	char e[256];

	if (t->p.type == TEP_TUN_MAX || !opts->have_local ||
	    !opts->have_remote)
		return ERR(EINVAL, "tunnel add NAME type TYPE local IP remote "
			   "IP ...: type, local and remote are required");
	if (opts->fam_l != opts->fam_r)
		return ERR(EINVAL, "local and remote must be the same family");
	t->p.outer_v6 = opts->fam_l == 6;
	if ((t->p.type == TEP_TUN_VXLAN || t->p.type == TEP_TUN_GENEVE) &&
	    t->p.gre_key)
		return ERR(EINVAL, "%s takes vni, not key",
			   tep_tun_type_name(t->p.type));
	t->csum_asked = (uint8_t)t->p.csum;
	if (t->p.csum == TEP_CSUM_OFFLOAD) {
		/* The outer UDP checksum offload (ice, X722) is not wired to
		 * the TX path yet: LCO gives the same result in software at
		 * the cost of a header sum, and is valid before the inner
		 * checksum is filled in, which a full sum would not be. */
		t->p.csum = TEP_CSUM_LCO;
	}
	if (tep_encap_tmpl_build(&t->tmpl, &t->p, e, sizeof(e)) != 0)
		return ERR(EINVAL, "%s", e);
	if (t->tmpl.inner_eth && rte_is_zero_ether_addr(&t->inner_dmac))
		return ERR(EINVAL, "%s carries Ethernet: inner-dmac MAC (the "
			   "remote router's MAC on the overlay) is required",
			   tep_tun_type_name(t->p.type));
	t->dport = t->p.type == TEP_TUN_GRE ? 0 :
		   (uint16_t)(t->tmpl.hdr[t->tmpl.l4_off + 2] << 8 |
			      t->tmpl.hdr[t->tmpl.l4_off + 3]);
	if (t->dport != 0 && tep.udp_tun_type[t->dport] != 0xff &&
	    tep.udp_tun_type[t->dport] != t->p.type)
		return ERR(EADDRINUSE, "udp port %u already carries %s",
			   t->dport,
			   tep_tun_type_name(tep.udp_tun_type[t->dport]));
	return 0;
}

/*
 * Give t an id and publish it to the workers. Refused if a tunnel has the
 * same type, vni/key and remote already (a received packet is matched to
 * its tunnel by these), or if no id is free.
 */
/* The inner Ethernet header encap writes is the tunnel's two MACs and the
 * packet's EtherType: its sum, for LCO not to read it per packet. */
static void
inner_eth_sums(struct tep_tunnel *t)
{
	static const uint16_t et[2] = { TEP_ETH_P_IPV4, TEP_ETH_P_IPV6 };
	uint8_t h[14];
	int i;

	memcpy(h, t->inner_dmac.addr_bytes, 6);
	memcpy(h + 6, t->inner_smac.addr_bytes, 6);
	for (i = 0; i < 2; i++) {
		tep_wr16(h + 12, et[i]);
		t->inner_eth_sum[i] = tep_csum_partial(h, sizeof(h), 0);
	}
}

static int
tun_install(struct tep_tunnel *t, struct tep_err *err)
{
	struct tep_tunnel *old;
	struct tep_tun_key k;
	int i, id = -1;
	void *data;

	tun_key(t, &k);
	if (rte_hash_lookup_data(tep.tun_hash, &k, &data) >= 0) {
		old = tep.tunnel[(uintptr_t)data];
		return ERR(EEXIST, "tunnel \"%s\" already has this type, "
			   "vni/key and remote", old != NULL ? old->name : "?");
	}
	for (i = 0; i < TEP_TUNNELS_MAX; i++)
		if (tep.tunnel[i] == NULL) {
			id = i;
			break;
		}
	if (id < 0)
		return ERR(ENOSPC, "at most %d tunnels", TEP_TUNNELS_MAX);
	t->id = (uint32_t)id;
	if (rte_is_zero_ether_addr(&t->inner_smac)) {
		/* A locally administered MAC per tunnel: 02:74:65:70:ID */
		uint8_t m[6] = { 0x02, 0x74, 0x65, 0x70, (uint8_t)(id >> 8),
				 (uint8_t)id };

		memcpy(t->inner_smac.addr_bytes, m, 6);
	}
	t->overhead = (uint16_t)(t->tmpl.len - t->tmpl.l2_len +
				 (t->tmpl.inner_eth ? 14 : 0));
	if (t->tmpl.inner_eth)
		inner_eth_sums(t);
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
		return ERR(ENOSPC, "tunnel table full");
	}
	if (t->dport != 0)
		tep.udp_tun_type[t->dport] = t->p.type;
	return 0;
}

int
cmd_tunnel_add(struct tep_ctl_ctx *ctx, int argc, char **argv,
	       struct tep_out *o, struct tep_err *err)
{
	struct tun_opts opts = { 0 };
	struct tep_tunnel *t;
	int ret;

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
	ret = tun_options(t, &opts, argc, argv, err);
	if (ret == 0)
		ret = tun_check(t, &opts, err);
	if (ret == 0)
		ret = tun_install(t, err);
	if (ret != 0)
		rte_free(t);
	return ret;
}

int
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
		if (tep.tunnel[i] != NULL && (id < 0 || id == i))
			out_tunnel(o, tep.tunnel[i]);
	tep_out_close_array(o);
	return 0;
}
