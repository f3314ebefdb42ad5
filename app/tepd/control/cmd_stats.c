/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * stats, stats clear, stats watch: the counters as tepctl shows them,
 * since the last clear (stats.c keeps them; /metrics reads the raw,
 * monotonic ones).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "args.h"
#include "fpm.h"
#include "port.h"
#include "stats.h"
#include "tunnel.h"

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
	/* Each one empties every worker's tunnel egress and decap caches. */
	tep_out_u64(o, "underlay_changes", "underlay changes %" PRIu64 "\n",
		    __atomic_load_n(&tep.underlay_gen, __ATOMIC_RELAXED));
	tep_out_close_object(o);
}

static void
stats_port(struct tep_out *o, uint16_t id)
{
	struct tep_cnt_port c;

	tep_cnt_sum_port(id, &c);
	tep_out_open_object(o, NULL);
	tep_out_str(o, "port", "port %s:", tep_ports[id].name);
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
	/* rx (+ pieces made) = fates + drops on receive; gap: what is in
	 * flight, 0 when all is counted */
	tep_out_u64(o, "fwd", "    fate: fwd %" PRIu64, c.fwd);
	tep_out_u64(o, "encap", " encap %" PRIu64, c.encap);
	tep_out_u64(o, "decap", " decap %" PRIu64, c.decap);
	tep_out_u64(o, "punt", " punt %" PRIu64, c.punt);
	tep_out_u64(o, "tx_dropped", " tx_dropped %" PRIu64, c.tx_dropped);
	tep_out_i64(o, "accounting_gap", " accounting_gap %" PRId64,
		    tep_cnt_port_gap(&c));
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
	tep_out_str(o, "vrf", "vrf %s:", tep_rib.vrf[id]->name);
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
	tep_out_str(o, "tunnel", "tunnel %s:", tep_tunnels[id]->name);
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
	tep_out_u64(o, "decap_outer_csum_nic_good",
		    " decap_outer_csum_nic_good %" PRIu64,
		    c.decap_outer_rxv[TEP_RXV_GOOD]);
	tep_out_u64(o, "decap_outer_csum_nic_partial",
		    " decap_outer_csum_nic_partial %" PRIu64,
		    c.decap_outer_rxv[TEP_RXV_NONE]);
	tep_out_u64(o, "decap_outer_csum_nic_bad",
		    " decap_outer_csum_nic_bad %" PRIu64,
		    c.decap_outer_rxv[TEP_RXV_BAD]);
	tep_out_u64(o, "decap_outer_csum_nic_unknown",
		    " decap_outer_csum_nic_unknown %" PRIu64,
		    c.decap_outer_rxv[TEP_RXV_UNKNOWN]);
	tep_out_u64(o, "decap_inner_csum_nic_good",
		    " decap_inner_csum_nic_good %" PRIu64,
		    c.decap_inner_nic_good);
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
	for (i = 0; i < tep_nb_ports; i++)
		if (tep_ports[i].present)
			stats_port(o, (uint16_t)i);
	tep_out_close_array(o);
	stats_control(o);
	tep_out_open_array(o, "vrfs");
	for (i = 0; i < TEP_VRF_MAX; i++)
		if (tep_rib.vrf[i] != NULL)
			stats_vrf(o, (uint16_t)i);
	tep_out_close_array(o);
	tep_out_open_array(o, "tunnels");
	for (i = 0; i < TEP_TUNNELS_MAX; i++)
		if (tep_tunnels[i] != NULL)
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

int
cmd_stats(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *o,
	  struct tep_err *err)
{
	(void)ctx;
	return stats_write(o, argc, argv, err);
}

int
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

int
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
