/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Counters are per lcore and written only by their lcore; readers sum them
 * (a torn 64-bit read cannot happen on the 64-bit targets DPDK supports).
 * DPDK telemetry exposes the same sums under /tepd/.
 */

#include <string.h>

#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "tepd.h"

#define SUM_ARRAY(dst, src, n)					\
	do {							\
		size_t _i;					\
		for (_i = 0; _i < (n); _i++)			\
			(dst)[_i] += (src)[_i];			\
	} while (0)

void
tep_cnt_sum_port(uint16_t port, struct tep_cnt_port *out)
{
	unsigned int lc;

	memset(out, 0, sizeof(*out));
	RTE_LCORE_FOREACH(lc) {
		const struct tep_cnt_port *c = &tep.cnt[lc]->port[port];

		out->rx += c->rx;
		out->tx += c->tx;
		out->rx_bytes += c->rx_bytes;
		out->tx_bytes += c->tx_bytes;
		out->hw_csum += c->hw_csum;
		out->sw_csum += c->sw_csum;
		out->rx_csum_pending += c->rx_csum_pending;
		out->gso_pkts += c->gso_pkts;
		out->gso_segs += c->gso_segs;
		out->tx_csum_partial += c->tx_csum_partial;
		out->frag_pkts += c->frag_pkts;
		out->frags += c->frags;
		SUM_ARRAY(out->drop, c->drop, TEP_R_MAX);
	}
}

void
tep_cnt_sum_vrf(uint16_t vrf, struct tep_cnt_vrf *out)
{
	unsigned int lc;

	memset(out, 0, sizeof(*out));
	RTE_LCORE_FOREACH(lc) {
		const struct tep_cnt_vrf *c = &tep.cnt[lc]->vrf[vrf];

		out->routed += c->routed;
		SUM_ARRAY(out->drop, c->drop, TEP_R_MAX);
	}
}

void
tep_cnt_sum_tun(uint32_t id, struct tep_cnt_tun *out)
{
	unsigned int lc;

	memset(out, 0, sizeof(*out));
	RTE_LCORE_FOREACH(lc) {
		const struct tep_cnt_tun *c = &tep.cnt[lc]->tun[id];

		out->encap += c->encap;
		out->decap += c->decap;
		out->encap_bytes += c->encap_bytes;
		out->decap_bytes += c->decap_bytes;
		SUM_ARRAY(out->ocsum, c->ocsum, 4);
		out->decap_inner_ok += c->decap_inner_ok;
		out->proxy_answers += c->proxy_answers;
		SUM_ARRAY(out->drop, c->drop, TEP_R_MAX);
	}
}

/*
 * Clearing writes counters another lcore owns; a concurrent increment may
 * survive the clear. Acceptable for a human's "stats clear".
 */
void
tep_cnt_clear(void)
{
	unsigned int lc;

	RTE_LCORE_FOREACH(lc)
		memset(tep.cnt[lc], 0, sizeof(*tep.cnt[lc]));
}

/* ---- telemetry ---------------------------------------------------------- */

static void
drops_dict(struct rte_tel_data *d, const uint64_t *drop)
{
	int r;

	for (r = 1; r < TEP_R_MAX; r++)
		if (drop[r] != 0) {
			char name[48];

			snprintf(name, sizeof(name), "drop_%s",
				 tep_reason_name((enum tep_reason)r));
			rte_tel_data_add_dict_u64(d, name, drop[r]);
		}
}

static int
tel_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tep_cnt_port c;
	int id;

	(void)cmd;
	if (params == NULL || *params == '\0') {
		rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
		for (id = 0; id < tep.nb_ports; id++)
			if (tep.port[id].present)
				rte_tel_data_add_array_int(d, id);
		return 0;
	}
	id = atoi(params);
	if (id < 0 || id >= tep.nb_ports || !tep.port[id].present)
		return -EINVAL;
	tep_cnt_sum_port((uint16_t)id, &c);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", tep.port[id].name);
	rte_tel_data_add_dict_u64(d, "rx", c.rx);
	rte_tel_data_add_dict_u64(d, "tx", c.tx);
	rte_tel_data_add_dict_u64(d, "rx_bytes", c.rx_bytes);
	rte_tel_data_add_dict_u64(d, "tx_bytes", c.tx_bytes);
	rte_tel_data_add_dict_u64(d, "hw_inner_csum", c.hw_csum);
	rte_tel_data_add_dict_u64(d, "sw_inner_csum", c.sw_csum);
	rte_tel_data_add_dict_u64(d, "rx_csum_pending", c.rx_csum_pending);
	rte_tel_data_add_dict_u64(d, "gso_pkts", c.gso_pkts);
	rte_tel_data_add_dict_u64(d, "gso_segs", c.gso_segs);
	rte_tel_data_add_dict_u64(d, "tx_csum_partial", c.tx_csum_partial);
	rte_tel_data_add_dict_u64(d, "ipv4_frag_pkts", c.frag_pkts);
	rte_tel_data_add_dict_u64(d, "ipv4_frags", c.frags);
	drops_dict(d, c.drop);
	return 0;
}

static int
tel_tunnel(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct tep_tunnel *t;
	struct tep_cnt_tun c;
	int id;

	(void)cmd;
	pthread_mutex_lock(&tep.tunnel_free_lock);
	if (params == NULL || *params == '\0') {
		rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
		for (id = 0; id < TEP_TUNNELS_MAX; id++) {
			t = __atomic_load_n(&tep.tunnel[id], __ATOMIC_ACQUIRE);
			if (t != NULL)
				rte_tel_data_add_array_string(d, t->name);
		}
		pthread_mutex_unlock(&tep.tunnel_free_lock);
		return 0;
	}
	id = tep_tunnel_find(params);
	t = id < 0 ? NULL : __atomic_load_n(&tep.tunnel[id], __ATOMIC_ACQUIRE);
	if (t == NULL) {
		pthread_mutex_unlock(&tep.tunnel_free_lock);
		return -EINVAL;
	}
	tep_cnt_sum_tun((uint32_t)id, &c);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "type",
				     tep_tun_type_name(t->tmpl.type));
	rte_tel_data_add_dict_u64(d, "encap", c.encap);
	rte_tel_data_add_dict_u64(d, "decap", c.decap);
	rte_tel_data_add_dict_u64(d, "outer_csum_lco", c.ocsum[TEP_OCSUM_LCO]);
	rte_tel_data_add_dict_u64(d, "outer_csum_full",
				  c.ocsum[TEP_OCSUM_FULL]);
	rte_tel_data_add_dict_u64(d, "outer_csum_hw", c.ocsum[TEP_OCSUM_HW]);
	rte_tel_data_add_dict_u64(d, "decap_inner_csum_ok", c.decap_inner_ok);
	rte_tel_data_add_dict_u64(d, "arp_nd_answered", c.proxy_answers);
	drops_dict(d, c.drop);
	pthread_mutex_unlock(&tep.tunnel_free_lock);
	return 0;
}

static int
tel_stages(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const char *const names[TEP_ST_MAX] = {
		"classify", "lookup", "encap", "txprep" };
	unsigned int lc;
	int s;

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	for (s = 0; s < TEP_ST_MAX; s++) {
		uint64_t cyc = 0, pk = 0;
		char key[40];

		RTE_LCORE_FOREACH(lc) {
			cyc += tep.cnt[lc]->stage_cycles[s];
			pk += tep.cnt[lc]->stage_pkts[s];
		}
		snprintf(key, sizeof(key), "%s_cycles_per_pkt", names[s]);
		rte_tel_data_add_dict_u64(d, key, pk ? cyc / pk : 0);
	}
	return 0;
}

int
tep_telemetry_init(void)
{
	rte_telemetry_register_cmd("/tepd/ports", tel_ports,
		"tepd port counters. Parameter: port id");
	rte_telemetry_register_cmd("/tepd/tunnels", tel_tunnel,
		"tepd tunnel counters. Parameter: tunnel name");
	rte_telemetry_register_cmd("/tepd/stages", tel_stages,
		"tepd cycles per packet per pipeline stage (tepd -C)");
	return 0;
}
