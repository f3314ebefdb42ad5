/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Tunnel objects and the decapsulation table. A tunnel is immutable once
 * published: workers load tep_tunnels[id] and may use it until their next
 * quiescent state; deletion unpublishes, waits a grace period, frees.
 * Made and deleted here for `tunnel add`/`del` and for fpm.c's EVPN
 * tunnels alike (tunnel.h).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_jhash.h>
#include <rte_malloc.h>

#include "tep_bytes.h"
#include "tep_csum.h"
#include "tunnel.h"
#include "stats.h"

struct tep_tunnel *tep_tunnels[TEP_TUNNELS_MAX];
pthread_mutex_t tep_tunnel_free_lock;	/* initialised by main.c */
struct rte_hash *tep_tun_hash;
uint8_t tep_udp_tun_type[65536];

static tep_tunnel_gone_cb tunnel_gone;

int
tep_tunnels_init(char *err, size_t errlen)
{
	struct rte_hash_parameters hp = {
		.name = "tep_tunnels",
		.entries = TEP_TUNNELS_MAX * 2,
		.key_len = sizeof(struct tep_tun_key),
		.hash_func = rte_jhash,
		.socket_id = (int)rte_socket_id(),
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	};

	memset(tep_udp_tun_type, 0xff, sizeof(tep_udp_tun_type));
	tep_tun_hash = rte_hash_create(&hp);
	if (tep_tun_hash == NULL) {
		snprintf(err, errlen, "tunnel table: out of memory");
		return -1;
	}
	return 0;
}

int
tep_tunnel_find(const char *name)
{
	int i;

	/* One load per slot: the telemetry thread calls this too. */
	for (i = 0; i < TEP_TUNNELS_MAX; i++) {
		const struct tep_tunnel *t =
			__atomic_load_n(&tep_tunnels[i], __ATOMIC_ACQUIRE);

		if (t != NULL && strcmp(t->name, name) == 0)
			return i;
	}
	return -1;
}

/* ---- making and deleting (tunnel.h) -------------------------------------- */

/* The options each type implements (enum tep_tunnel_opt). GRE carries
 * Ethernet (TEB), FOU and GUE carry IP. */
static const uint32_t type_opts[TEP_TUN_MAX] = {
	[TEP_TUN_VXLAN] = TEP_TUN_OPT_VNI | TEP_TUN_OPT_DSTPORT |
			  TEP_TUN_OPT_SRCPORT | TEP_TUN_OPT_INNER_DMAC |
			  TEP_TUN_OPT_INNER_SMAC | TEP_TUN_OPT_RCO,
	[TEP_TUN_GENEVE] = TEP_TUN_OPT_VNI | TEP_TUN_OPT_DSTPORT |
			   TEP_TUN_OPT_SRCPORT | TEP_TUN_OPT_INNER_DMAC |
			   TEP_TUN_OPT_INNER_SMAC,
	[TEP_TUN_FOU] = TEP_TUN_OPT_DSTPORT | TEP_TUN_OPT_SRCPORT |
			TEP_TUN_OPT_INNER,
	[TEP_TUN_GUE] = TEP_TUN_OPT_DSTPORT | TEP_TUN_OPT_SRCPORT |
			TEP_TUN_OPT_INNER | TEP_TUN_OPT_RCO,
	[TEP_TUN_GRE] = TEP_TUN_OPT_KEY | TEP_TUN_OPT_INNER_DMAC |
			TEP_TUN_OPT_INNER_SMAC | TEP_TUN_OPT_GRE_CSUM,
};

static const char *const opt_names[TEP_TUN_OPT_MAX] = {
	"vni", "key", "dstport", "srcport", "inner-dmac", "inner-smac",
	"gre-csum", "rco", "inner",
};

void
tep_tunnel_spec_init(struct tep_tunnel_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->type = TEP_TUN_MAX;
	s->csum = TEP_CSUM_LCO;
	s->df = true;
	s->inner_proto = 4;
	s->vrf = TEP_VRF_DEFAULT;
}

/* The first option given that the spec's type does not implement, as an
 * error naming it, the type and the types that do: 0 or EINVAL. */
static int
check_type_opts(const struct tep_tunnel_spec *s, char *err, size_t errlen)
{
	uint32_t refused = s->given & ~type_opts[s->type];
	char types[64] = "";
	size_t n = 0;
	int b, t;

	if (refused == 0)
		return 0;
	b = __builtin_ctz(refused);
	if (b >= TEP_TUN_OPT_MAX) {
		snprintf(err, errlen, "unknown tunnel option bit %d", b);
		return EINVAL;
	}
	for (t = 0; t < TEP_TUN_MAX; t++)
		if (type_opts[t] & (1u << b))
			n += (size_t)snprintf(types + n, sizeof(types) - n,
					      "%s%s", n ? ", " : "",
					      tep_tun_type_name(
						      (enum tep_tun_type)t));
	snprintf(err, errlen, "option %s is not implemented by type %s "
		 "(only by %s)", opt_names[b], tep_tun_type_name(s->type),
		 types);
	return EINVAL;
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

/* The spec into t's fields. */
static void
tun_fill(struct tep_tunnel *t, const struct tep_tunnel_spec *s)
{
	snprintf(t->name, sizeof(t->name), "%s", s->name);
	t->vrf = s->vrf;
	t->p.type = s->type;
	t->p.outer_v6 = s->family == 6;
	memcpy(t->p.src, s->local, sizeof(t->p.src));
	memcpy(t->p.dst, s->remote, sizeof(t->p.dst));
	t->p.vni = s->vni;
	t->p.gre_key = (s->given & TEP_TUN_OPT_KEY) != 0;
	t->p.dst_port = s->dstport;
	t->p.sport_lo = s->sport_lo;
	t->p.sport_hi = s->sport_hi;
	t->p.csum = s->csum;
	t->p.ttl = s->ttl;
	t->p.dscp = s->dscp;
	t->p.tos_inherit = s->tos_inherit;
	t->p.df = s->df;
	t->p.gre_csum = s->gre_csum;
	t->p.rco = s->rco;
	t->p.gue_proto = s->inner_proto;
	t->inner_dmac = s->inner_dmac;
	t->inner_smac = s->inner_smac;
}

/*
 * The spec together: complete, in one address family, options its type
 * implements, an encapsulation template that can be built, and a UDP
 * port no other tunnel type receives on. Fills in what follows from them
 * (checksum mode, template, destination port).
 */
static int
tun_check(struct tep_tunnel *t, const struct tep_tunnel_spec *s, char *err,
	  size_t errlen)
{
	char e[256];

	if ((unsigned int)s->type >= TEP_TUN_MAX ||
	    (s->family != 4 && s->family != 6)) {
		snprintf(err, errlen, "tunnel add NAME type TYPE local IP "
			 "remote IP ...: type, local and remote are required");
		return EINVAL;
	}
	if (s->vrf >= TEP_VRF_MAX || tep_rib.vrf[s->vrf] == NULL) {
		snprintf(err, errlen, "no vrf %u", s->vrf);
		return ENOENT;
	}
	if ((s->type == TEP_TUN_VXLAN || s->type == TEP_TUN_GENEVE) &&
	    (s->given & TEP_TUN_OPT_KEY)) {
		snprintf(err, errlen, "%s takes vni, not key",
			 tep_tun_type_name(s->type));
		return EINVAL;
	}
	/* accepted and ignored, an option would be a silent no-op: geneve
	 * has no rco, fou no inner Ethernet */
	if (check_type_opts(s, err, errlen) != 0)
		return EINVAL;
	/* the source must be unicast: decap takes frames to it */
	if (!rte_is_zero_ether_addr(&s->inner_smac) &&
	    !rte_is_unicast_ether_addr(&s->inner_smac)) {
		snprintf(err, errlen, "inner-smac: not a unicast MAC");
		return EINVAL;
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
		snprintf(err, errlen, "%s", e);
		return EINVAL;
	}
	if (t->tmpl.inner_eth && rte_is_zero_ether_addr(&t->inner_dmac)) {
		snprintf(err, errlen, "%s carries Ethernet: inner-dmac MAC (the "
			 "remote router's MAC on the overlay) is required",
			 tep_tun_type_name(t->p.type));
		return EINVAL;
	}
	t->dport = t->p.type == TEP_TUN_GRE ? 0 :
		   (uint16_t)(t->tmpl.hdr[t->tmpl.l4_off + 2] << 8 |
			      t->tmpl.hdr[t->tmpl.l4_off + 3]);
	if (t->dport != 0 && tep_udp_tun_type[t->dport] != 0xff &&
	    tep_udp_tun_type[t->dport] != t->p.type) {
		snprintf(err, errlen, "udp port %u already carries %s",
			 t->dport,
			 tep_tun_type_name(tep_udp_tun_type[t->dport]));
		return EADDRINUSE;
	}
	return 0;
}

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

/*
 * Give t an id and publish it to the workers. Refused if a tunnel has the
 * same type, vni/key and remote already (a received packet is matched to
 * its tunnel by these), or if no id is free.
 */
static int
tun_install(struct tep_tunnel *t, char *err, size_t errlen)
{
	struct tep_tunnel *old;
	struct tep_tun_key k;
	int i, id = -1;
	void *data;

	tun_key(t, &k);
	if (rte_hash_lookup_data(tep_tun_hash, &k, &data) >= 0) {
		old = tep_tunnels[(uintptr_t)data];
		snprintf(err, errlen, "tunnel \"%s\" already has this type, "
			 "vni/key and remote", old != NULL ? old->name : "?");
		return EEXIST;
	}
	for (i = 0; i < TEP_TUNNELS_MAX; i++)
		if (tep_tunnels[i] == NULL) {
			id = i;
			break;
		}
	if (id < 0) {
		snprintf(err, errlen, "at most %d tunnels", TEP_TUNNELS_MAX);
		return ENOSPC;
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
	if (t->tmpl.inner_eth)
		inner_eth_sums(t);
	/* Clear counters left by a tunnel that had this id before. */
	tep_cnt_tun_reset((uint32_t)id);
	/* Workers cache each tunnel id's egress: this id may have been a
	 * deleted tunnel's, with another remote. Bumped before the tunnel is
	 * published, so a worker that sees it sees the new generation. */
	tep_underlay_changed();
	__atomic_store_n(&tep_tunnels[id], t, __ATOMIC_RELEASE);
	if (rte_hash_add_key_data(tep_tun_hash, &k,
				  (void *)(uintptr_t)id) < 0) {
		__atomic_store_n(&tep_tunnels[id], NULL, __ATOMIC_RELEASE);
		rte_rcu_qsbr_synchronize(tep.rcu, RTE_QSBR_THRID_INVALID);
		snprintf(err, errlen, "tunnel table full");
		return ENOSPC;
	}
	if (t->dport != 0)
		tep_udp_tun_type[t->dport] = t->p.type;
	return 0;
}

int
tep_tunnel_create(const struct tep_tunnel_spec *s, uint32_t *id, char *err,
		  size_t errlen)
{
	struct tep_tunnel *t;
	int ret;

	if (s->name[0] == '\0' || strnlen(s->name, TEP_NAME_MAX) ==
	    TEP_NAME_MAX) {
		snprintf(err, errlen, "tunnel name empty or longer than %d",
			 TEP_NAME_MAX - 1);
		return EINVAL;
	}
	if (tep_tunnel_find(s->name) >= 0) {
		snprintf(err, errlen, "tunnel \"%s\" exists", s->name);
		return EEXIST;
	}
	t = rte_zmalloc("tep_tunnel", sizeof(*t), RTE_CACHE_LINE_SIZE);
	if (t == NULL) {
		snprintf(err, errlen, "out of memory");
		return ENOMEM;
	}
	tun_fill(t, s);
	ret = tun_check(t, s, err, errlen);
	if (ret == 0)
		ret = tun_install(t, err, errlen);
	if (ret != 0) {
		rte_free(t);
		return ret;
	}
	if (id != NULL)
		*id = t->id;
	return 0;
}

void
tep_tunnel_on_gone(tep_tunnel_gone_cb cb)
{
	tunnel_gone = cb;
}

int
tep_tunnel_delete(uint32_t id, char *err, size_t errlen)
{
	struct tep_tunnel *t;
	struct tep_tun_key k;
	uint32_t users;
	int32_t pos;
	bool port_used = false;
	int i;

	if (id >= TEP_TUNNELS_MAX || tep_tunnels[id] == NULL) {
		snprintf(err, errlen, "no tunnel %u", id);
		return ENOENT;
	}
	t = tep_tunnels[id];
	users = tep_nh_users(&tep_rib, TEP_NHT_TUNNEL, id);
	if (users > 0) {
		snprintf(err, errlen, "tunnel \"%s\" is used by %u route(s): "
			 "delete them first", t->name, users);
		return EBUSY;
	}
	tun_key(t, &k);
	pos = rte_hash_del_key(tep_tun_hash, &k);
	__atomic_store_n(&tep_tunnels[id], NULL, __ATOMIC_RELEASE);
	rte_rcu_qsbr_synchronize(tep.rcu, RTE_QSBR_THRID_INVALID);
	if (pos >= 0)
		rte_hash_free_key_with_position(tep_tun_hash, pos);
	for (i = 0; i < TEP_TUNNELS_MAX; i++)
		if (tep_tunnels[i] != NULL && tep_tunnels[i]->dport == t->dport)
			port_used = true;
	if (t->dport != 0 && !port_used)
		tep_udp_tun_type[t->dport] = 0xff;
	tep_underlay_changed();
	/* an EVPN tunnel deleted by hand: evpn.c forgets it was its own */
	if (tunnel_gone != NULL)
		tunnel_gone(id);
	pthread_mutex_lock(&tep_tunnel_free_lock);
	rte_free(t);
	pthread_mutex_unlock(&tep_tunnel_free_lock);
	return 0;
}
