/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * tepd's counters in DPDK telemetry (/tepd/ports, /tepd/tunnel,
 * /tepd/stages): the raw sums since start (stats.c), a monitoring
 * system's view. DPDK's telemetry thread calls these.
 */

#include <assert.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "tepd.h"
#include "metrics.h"
#include "port.h"
#include "stats.h"
#include "tunnel.h"

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
		for (id = 0; id < tep_nb_ports; id++)
			if (tep_ports[id].present)
				rte_tel_data_add_array_int(d, id);
		return 0;
	}
	id = atoi(params);
	if (id < 0 || id >= tep_nb_ports || !tep_ports[id].present)
		return -EINVAL;
	tep_cnt_raw_port((uint16_t)id, &c);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", tep_ports[id].name);
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
	pthread_mutex_lock(&tep_tunnel_free_lock);
	if (params == NULL || *params == '\0') {
		rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
		for (id = 0; id < TEP_TUNNELS_MAX; id++) {
			t = __atomic_load_n(&tep_tunnels[id], __ATOMIC_ACQUIRE);
			if (t != NULL)
				rte_tel_data_add_array_string(d, t->name);
		}
		pthread_mutex_unlock(&tep_tunnel_free_lock);
		return 0;
	}
	id = tep_tunnel_find(params);
	t = id < 0 ? NULL : __atomic_load_n(&tep_tunnels[id], __ATOMIC_ACQUIRE);
	if (t == NULL) {
		pthread_mutex_unlock(&tep_tunnel_free_lock);
		return -EINVAL;
	}
	tep_cnt_raw_tun((uint32_t)id, &c);
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
	rte_tel_data_add_dict_u64(d, "decap_outer_csum_nic_good",
				  c.decap_outer_rxv[TEP_RXV_GOOD]);
	rte_tel_data_add_dict_u64(d, "decap_outer_csum_nic_partial",
				  c.decap_outer_rxv[TEP_RXV_NONE]);
	rte_tel_data_add_dict_u64(d, "decap_outer_csum_nic_bad",
				  c.decap_outer_rxv[TEP_RXV_BAD]);
	rte_tel_data_add_dict_u64(d, "decap_outer_csum_nic_unknown",
				  c.decap_outer_rxv[TEP_RXV_UNKNOWN]);
	rte_tel_data_add_dict_u64(d, "decap_inner_csum_nic_good",
				  c.decap_inner_nic_good);
	rte_tel_data_add_dict_u64(d, "arp_nd_answered", c.proxy_answers);
	drops_dict(d, c.drop);
	pthread_mutex_unlock(&tep_tunnel_free_lock);
	return 0;
}

static int
tel_stages(const char *cmd, const char *params, struct rte_tel_data *d)
{
	uint64_t cyc[TEP_ST_MAX], pk[TEP_ST_MAX];
	int s;

	(void)cmd;
	(void)params;
	tep_cnt_raw_stages(cyc, pk);
	rte_tel_data_start_dict(d);
	for (s = 0; s < TEP_ST_MAX; s++) {
		char key[40];

		snprintf(key, sizeof(key), "%s_cycles_per_pkt",
			 tep_stage_name((enum tep_stage)s));
		rte_tel_data_add_dict_u64(d, key, pk[s] ? cyc[s] / pk[s] : 0);
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
