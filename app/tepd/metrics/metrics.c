/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "tep_ctl_server.h"
#include "tepd.h"

#include "metrics_priv.h"
#include "fpm.h"
#include "metrics.h"
#include "nexthop.h"
#include "port.h"
#include "stats.h"
#include "tunnel.h"

/*
 * GET /metrics (tepd -M [ADDR]:PORT): the counters in the Prometheus text
 * format, or OpenMetrics when the scraper asks for it (Prometheus does).
 *
 * Two threads, and what each may touch:
 * - libmicrohttpd's own thread (one, epoll) parses HTTP and serves a
 *   snapshot: an immutable, reference-counted block of text. It reads
 *   nothing of tepd's state.
 * - The control thread renders the snapshot (tep_metrics_poll(), called
 *   from its loop). Ports, VRFs and tunnels are created and deleted only
 *   on that thread, so it reads them without RCU; the counters are the
 *   workers' per-lcore structs, summed with plain 64-bit loads as
 *   tepctl stats does. A worker never waits for anything here.
 * A request finds the snapshot fresh (under METRICS_FRESH_MS old) and
 * takes it, or raises `want` and waits for the control thread (which
 * checks the flag every loop, a millisecond at most) up to
 * METRICS_WAIT_MS; if the control thread is busy for longer (loading a
 * million routes), requests get the last snapshot instead of waiting. A
 * hundred scrapers at once cost one rendering.
 *
 * Counters here are raw totals since start (stats.c): "stats clear"
 * changes what tepctl shows, never these, so no counter goes back.
 */

struct metrics_state M;

uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void
snap_put(struct snap *s)
{
	int f;

	if (s == NULL || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	for (f = 0; f < FMT_MAX; f++)
		free(s->text[f]);
	free(s);
}

/* ---- text ---------------------------------------------------------------- */

struct text {
	char *p;
	size_t len, cap;
	bool oom;
};

static void __rte_format_printf(2, 3)
put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	char *np;
	int n;

	if (t->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->oom = true;
			return;
		}
		if ((size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		np = realloc(t->p, t->cap * 2 + (size_t)n);
		if (np == NULL) {
			t->oom = true;
			return;
		}
		t->p = np;
		t->cap = t->cap * 2 + (size_t)n;
	}
}

/* A label value: backslash, double quote and newline escaped. */
static void
put_value(struct text *t, const char *v)
{
	if (strpbrk(v, "\\\"\n") == NULL) {
		put(t, "%s", v);
		return;
	}
	for (; *v != '\0'; v++) {
		if (*v == '\\')
			put(t, "\\\\");
		else if (*v == '"')
			put(t, "\\\"");
		else if (*v == '\n')
			put(t, "\\n");
		else
			put(t, "%c", *v);
	}
}

/*
 * The rendering: both formats at once, since they differ only in the
 * family line of counters and info metrics, and in OpenMetrics' "# EOF".
 * A family's samples are contiguous in both.
 */
struct out {
	struct text t[FMT_MAX];
	const char *name;	/* current family */
	const char *suffix;	/* "_total", "_info", "" */
};

enum ftype { COUNTER, GAUGE, INFO, HISTOGRAM };

/*
 * Start a family. Prometheus' text format names the family by its samples
 * (tepd_x_total counter); OpenMetrics by the name without the suffix
 * (tepd_x counter, samples tepd_x_total; tepd_y info, samples tepd_y_info).
 */
static void
family(struct out *o, const char *name, enum ftype type, const char *help)
{
	static const char *const prom_type[] = {
		[COUNTER] = "counter", [GAUGE] = "gauge", [INFO] = "gauge",
		[HISTOGRAM] = "histogram" };
	static const char *const om_type[] = {
		[COUNTER] = "counter", [GAUGE] = "gauge", [INFO] = "info",
		[HISTOGRAM] = "histogram" };

	o->name = name;
	o->suffix = type == COUNTER ? "_total" : type == INFO ? "_info" : "";
	put(&o->t[FMT_PROM], "# HELP %s%s %s\n# TYPE %s%s %s\n",
	    name, o->suffix, help, name, o->suffix, prom_type[type]);
	put(&o->t[FMT_OM], "# HELP %s %s\n# TYPE %s %s\n",
	    name, help, name, om_type[type]);
}

/*
 * One sample of the current family: labels as pairs of strings (NULL
 * ends them), the value last. sub is a sample suffix of its own, for
 * histograms ("_bucket"); NULL takes the family's.
 */
static void
sample_v(struct out *o, const char *sub, const char *const *lab, uint64_t v)
{
	int f, i;

	for (f = 0; f < FMT_MAX; f++) {
		struct text *t = &o->t[f];

		put(t, "%s%s", o->name, sub != NULL ? sub : o->suffix);
		for (i = 0; lab[i] != NULL; i += 2) {
			put(t, "%s%s=\"", i == 0 ? "{" : ",", lab[i]);
			put_value(t, lab[i + 1]);
			put(t, "\"");
		}
		put(t, "%s %" PRIu64 "\n", i > 0 ? "}" : "", v);
	}
}

#define sample(o, v, ...) \
	sample_v((o), NULL, (const char *const[]){ __VA_ARGS__, NULL }, (v))
#define sample0(o, v) \
	sample_v((o), NULL, (const char *const[]){ NULL }, (v))

static void
sample_f(struct out *o, double v)
{
	int f;

	for (f = 0; f < FMT_MAX; f++)
		put(&o->t[f], "%s%s %.3f\n", o->name, o->suffix, v);
}

/* ---- the families -------------------------------------------------------- */

static const char *const role_name[] = {
	[TEP_ROLE_NONE] = "none",
	[TEP_ROLE_UNDERLAY] = "underlay",
	[TEP_ROLE_ACCESS] = "access",
};

static const char *
vrf_name(uint16_t id)
{
	return id < TEP_VRF_MAX && tep_rib.vrf[id] != NULL ?
		tep_rib.vrf[id]->name : "";
}

#define PORTS(i) \
	for ((i) = 0; (i) < tep_nb_ports; (i)++) if (tep_ports[i].present)
#define VRFS(i) \
	for ((i) = 0; (i) < TEP_VRF_MAX; (i)++) if (tep_rib.vrf[i] != NULL)
#define TUNNELS(i) \
	for ((i) = 0; (i) < TEP_TUNNELS_MAX; (i)++) if (tep_tunnels[i] != NULL)

/* A per-port u64 counter family from a field of struct tep_cnt_port. */
#define PORT_FAMILY(o, g, fname, field, help)				\
	do {								\
		uint16_t _p;						\
		family((o), (fname), COUNTER, (help));			\
		PORTS(_p)						\
			sample((o), (g)->port[_p].field,		\
			       "port", tep_ports[_p].name);		\
	} while (0)

#define TUN_FAMILY(o, g, fname, field, help)				\
	do {								\
		uint32_t _t;						\
		family((o), (fname), COUNTER, (help));			\
		TUNNELS(_t)						\
			sample((o), (g)->tun[_t].field,			\
			       "tunnel", tep_tunnels[_t]->name);		\
	} while (0)

static void
render_ports(struct out *o, const struct gather *g)
{
	uint16_t p;
	int r;

	family(o, "tepd_port", INFO, "A port: its driver, role and VRF.");
	PORTS(p)
		sample(o, 1, "port", tep_ports[p].name,
		       "driver", tep_ports[p].driver,
		       "role", role_name[tep_ports[p].role],
		       "vrf", vrf_name(tep_ports[p].vrf));
	family(o, "tepd_port_admin_up", GAUGE,
	       "1 if the port is administratively up (port set P up).");
	PORTS(p)
		sample(o, tep_ports[p].up, "port", tep_ports[p].name);
	family(o, "tepd_port_link_up", GAUGE, "1 if the port's link is up.");
	PORTS(p) {
		struct rte_eth_link link;

		memset(&link, 0, sizeof(link));
		rte_eth_link_get_nowait(p, &link);
		sample(o, link.link_status, "port", tep_ports[p].name);
	}
	family(o, "tepd_port_mtu_bytes", GAUGE, "The port's MTU.");
	PORTS(p)
		sample(o, tep_ports[p].mtu, "port", tep_ports[p].name);
	PORT_FAMILY(o, g, "tepd_port_rx_packets", rx,
		    "Packets received on the port.");
	PORT_FAMILY(o, g, "tepd_port_rx_bytes", rx_bytes,
		    "Bytes received on the port.");
	PORT_FAMILY(o, g, "tepd_port_tx_packets", tx,
		    "Packets sent on the port.");
	PORT_FAMILY(o, g, "tepd_port_tx_bytes", tx_bytes,
		    "Bytes sent on the port.");
	family(o, "tepd_port_drops", COUNTER,
	       "Packets that arrived on the port and were dropped, by reason "
	       "(docs/troubleshooting.md).");
	PORTS(p)
		for (r = 1; r < TEP_R_MAX; r++)
			sample(o, g->port[p].drop[r], "port", tep_ports[p].name,
			       "reason", tep_reason_name((enum tep_reason)r));
	family(o, "tepd_control_frame_drops", COUNTER,
	       "Frames tepd built itself (ARP, ND, ICMP errors) dropped on "
	       "their way out, by reason.");
	for (r = 1; r < TEP_R_MAX; r++)
		if (g->port[TEP_PORT_CTL].drop[r] != 0)
			sample(o, g->port[TEP_PORT_CTL].drop[r], "reason",
			       tep_reason_name((enum tep_reason)r));
	family(o, "tepd_port_inner_csum_packets", COUNTER,
	       "Packets sent on the port whose inner checksum was completed, "
	       "by who did it: the NIC or tepd in software.");
	PORTS(p) {
		sample(o, g->port[p].hw_csum, "port", tep_ports[p].name,
		       "by", "nic");
		sample(o, g->port[p].sw_csum, "port", tep_ports[p].name,
		       "by", "software");
	}
	PORT_FAMILY(o, g, "tepd_port_rx_csum_pending_packets",
		    rx_csum_pending,
		    "Packets that arrived with their L4 checksum left to tepd.");
	PORT_FAMILY(o, g, "tepd_port_tx_csum_partial_packets",
		    tx_csum_partial,
		    "Packets verified and handed on with a partial checksum.");
	PORT_FAMILY(o, g, "tepd_port_gso_packets", gso_pkts,
		    "TCP super-packets from the port cut into segments.");
	PORT_FAMILY(o, g, "tepd_port_gso_segments", gso_segs,
		    "Segments cut from those super-packets.");
	PORT_FAMILY(o, g, "tepd_port_ipv4_fragmented_packets", frag_pkts,
		    "IPv4 packets from the port fragmented to fit.");
	PORT_FAMILY(o, g, "tepd_port_ipv4_fragments", frags,
		    "Fragments made of them.");
	family(o, "tepd_port_fate_packets", COUNTER,
	       "What became of the packets received on the port, other than "
	       "a drop: forwarded, encapsulated, decapsulated (then sent "
	       "on), or taken in by the control thread (punt).");
	PORTS(p) {
		sample(o, g->port[p].fwd, "port", tep_ports[p].name,
		       "fate", "fwd");
		sample(o, g->port[p].encap, "port", tep_ports[p].name,
		       "fate", "encap");
		sample(o, g->port[p].decap, "port", tep_ports[p].name,
		       "fate", "decap");
		sample(o, g->port[p].punt, "port", tep_ports[p].name,
		       "fate", "punt");
	}
	PORT_FAMILY(o, g, "tepd_port_tx_dropped_packets", tx_dropped,
		    "Of the port's drops, those at TX (tx_full, bad_tx_meta, "
		    "port_down at flush): packets of other ports.");
}

static void
render_vrfs(struct out *o, const struct gather *g)
{
	uint16_t v;
	int r;

	family(o, "tepd_vrf_routed_packets", COUNTER,
	       "Packets looked up and routed in the VRF.");
	VRFS(v)
		sample(o, g->vrf[v].routed, "vrf", vrf_name(v));
	family(o, "tepd_vrf_drops", COUNTER,
	       "Packets dropped in the VRF, by reason.");
	VRFS(v)
		for (r = 1; r < TEP_R_MAX; r++)
			sample(o, g->vrf[v].drop[r], "vrf", vrf_name(v),
			       "reason", tep_reason_name((enum tep_reason)r));
	family(o, "tepd_vrf_routes", GAUGE,
	       "Routes in the VRF, by address family.");
	VRFS(v) {
		sample(o, tep_rib.vrf[v]->routes4, "vrf", vrf_name(v),
		       "family", "ipv4");
		sample(o, tep_rib.vrf[v]->routes6, "vrf", vrf_name(v),
		       "family", "ipv6");
	}
}

static void
render_tunnels(struct out *o, const struct gather *g)
{
	static const char *const ocsum[4] = {
		[TEP_OCSUM_NONE] = "none", [TEP_OCSUM_LCO] = "lco",
		[TEP_OCSUM_FULL] = "full", [TEP_OCSUM_HW] = "hw" };
	static const char *const rxv[4] = {
		[TEP_RXV_UNKNOWN] = "unknown", [TEP_RXV_BAD] = "bad",
		[TEP_RXV_GOOD] = "good", [TEP_RXV_NONE] = "partial" };
	uint32_t t;
	int r, m;

	family(o, "tepd_tunnel", INFO,
	       "A tunnel: its type, VRF, remote and VNI or key.");
	TUNNELS(t) {
		const struct tep_tunnel *tu = tep_tunnels[t];
		char remote[INET6_ADDRSTRLEN], vni[16];

		inet_ntop(tu->p.outer_v6 ? AF_INET6 : AF_INET, tu->p.dst,
			  remote, sizeof(remote));
		snprintf(vni, sizeof(vni), "%" PRIu32, tu->p.vni);
		sample(o, 1, "tunnel", tu->name,
		       "type", tep_tun_type_name(tu->tmpl.type),
		       "vrf", vrf_name(tu->vrf), "remote", remote, "vni", vni);
	}
	TUN_FAMILY(o, g, "tepd_tunnel_encap_packets", encap,
		   "Packets encapsulated into the tunnel.");
	TUN_FAMILY(o, g, "tepd_tunnel_encap_bytes", encap_bytes,
		   "Bytes encapsulated into the tunnel (outer headers "
		   "included).");
	TUN_FAMILY(o, g, "tepd_tunnel_decap_packets", decap,
		   "Packets decapsulated from the tunnel.");
	TUN_FAMILY(o, g, "tepd_tunnel_decap_bytes", decap_bytes,
		   "Bytes decapsulated from the tunnel.");
	family(o, "tepd_tunnel_outer_csum_packets", COUNTER,
	       "Encapsulated packets by how their outer checksum was made: "
	       "lco (headers only), full (whole datagram summed), hw (left "
	       "to the NIC), none.");
	TUNNELS(t)
		for (m = 0; m < 4; m++)
			sample(o, g->tun[t].ocsum[m],
			       "tunnel", tep_tunnels[t]->name, "mode", ocsum[m]);
	TUN_FAMILY(o, g, "tepd_tunnel_decap_inner_csum_ok_packets",
		   decap_inner_ok,
		   "Decapsulated packets whose inner L4 checksum was derived "
		   "good from the outer one.");
	family(o, "tepd_tunnel_decap_outer_csum_nic_packets", COUNTER,
	       "Packets decapsulated from a UDP tunnel, by what the NIC said "
	       "of their outer UDP checksum: good, partial (data verified, "
	       "field left to the receiver), bad (summed here to confirm), "
	       "unknown (summed here when present).");
	TUNNELS(t)
		for (m = 0; m < 4; m++)
			sample(o, g->tun[t].decap_outer_rxv[m],
			       "tunnel", tep_tunnels[t]->name,
			       "verdict", rxv[m]);
	TUN_FAMILY(o, g, "tepd_tunnel_decap_inner_csum_nic_good_packets",
		   decap_inner_nic_good,
		   "Decapsulated packets whose inner L4 checksum the NIC "
		   "checked good.");
	TUN_FAMILY(o, g, "tepd_tunnel_arp_nd_answered", proxy_answers,
		   "ARP requests and neighbour solicitations from the tunnel "
		   "answered by tepd (proxy ARP/ND).");
	/* Only the reasons seen: a thousand tunnels times every reason would
	 * be most of the page, nearly all zero. */
	family(o, "tepd_tunnel_drops", COUNTER,
	       "Packets of the tunnel dropped, by reason (decapsulation "
	       "errors and encapsulation failures); reasons never seen on "
	       "the tunnel are left out.");
	TUNNELS(t)
		for (r = 1; r < TEP_R_MAX; r++)
			if (g->tun[t].drop[r] != 0)
				sample(o, g->tun[t].drop[r],
				       "tunnel", tep_tunnels[t]->name,
				       "reason",
				       tep_reason_name((enum tep_reason)r));
}

static void
render_workers(struct out *o)
{
	char w[TEP_MAX_WORKERS][12], lc[TEP_MAX_WORKERS][12];
	unsigned int i, b, s;

	for (i = 0; i < tep.nb_workers; i++) {
		snprintf(w[i], sizeof(w[i]), "%u", i);
		snprintf(lc[i], sizeof(lc[i]), "%u", tep.worker_lcore[i]);
	}
	family(o, "tepd_worker_polls", COUNTER,
	       "Poll loops of a worker, busy (some port gave packets) or "
	       "idle.");
	for (i = 0; i < tep.nb_workers; i++) {
		const struct tep_lcore_cnt *c = tep_counters[tep.worker_lcore[i]];

		sample(o, c->polls_busy, "worker", w[i], "lcore", lc[i],
		       "state", "busy");
		sample(o, c->polls_idle, "worker", w[i], "lcore", lc[i],
		       "state", "idle");
	}
	family(o, "tepd_worker_rx_burst_packets", HISTOGRAM,
	       "Packets per RX burst that brought any (bursts of 32 are "
	       "full: the worker is behind).");
	for (i = 0; i < tep.nb_workers; i++) {
		const struct tep_lcore_cnt *c = tep_counters[tep.worker_lcore[i]];
		uint64_t cum = 0, pkts = 0;
		uint16_t p;

		for (b = 0; b < TEP_BURST_HIST; b++) {
			char le[12];

			/* Bucket b holds 2^b .. 2^(b+1)-1; the last one
			 * holds full bursts. */
			snprintf(le, sizeof(le), "%u",
				 b + 1 < TEP_BURST_HIST ? (2u << b) - 1 :
				 (unsigned int)TEP_BURST);
			cum += c->burst_hist[b];
			sample_v(o, "_bucket", (const char *const[]){
				 "worker", w[i], "lcore", lc[i], "le", le,
				 NULL }, cum);
		}
		sample_v(o, "_bucket", (const char *const[]){
			 "worker", w[i], "lcore", lc[i], "le", "+Inf", NULL },
			 cum);
		/* Every packet a worker counts as received came in a burst. */
		for (p = 0; p < tep_nb_ports; p++)
			pkts += c->port[p].rx;
		sample_v(o, "_sum", (const char *const[]){
			 "worker", w[i], "lcore", lc[i], NULL }, pkts);
		sample_v(o, "_count", (const char *const[]){
			 "worker", w[i], "lcore", lc[i], NULL }, cum);
	}
	if (!tep.stats_cycles)
		return;
	family(o, "tepd_worker_stage_cycles", COUNTER,
	       "TSC cycles spent per pipeline stage (tepd -C).");
	for (i = 0; i < tep.nb_workers; i++)
		for (s = 0; s < TEP_ST_MAX; s++)
			sample(o, tep_counters[tep.worker_lcore[i]]->stage_cycles[s],
			       "worker", w[i], "lcore", lc[i],
			       "stage", tep_stage_name((enum tep_stage)s));
	family(o, "tepd_worker_stage_packets", COUNTER,
	       "Packets through each pipeline stage (tepd -C).");
	for (i = 0; i < tep.nb_workers; i++)
		for (s = 0; s < TEP_ST_MAX; s++)
			sample(o, tep_counters[tep.worker_lcore[i]]->stage_pkts[s],
			       "worker", w[i], "lcore", lc[i],
			       "stage", tep_stage_name((enum tep_stage)s));
}

static void
render_process(struct out *o)
{
	struct tep_ctl_server_stats cs;

	memset(&cs, 0, sizeof(cs));
	if (M.ctl != NULL)
		tep_ctl_server_stats(M.ctl, &cs);
	family(o, "tepd_start_time_seconds", GAUGE,
	       "When tepd started, in seconds since the Unix epoch.");
	sample_f(o, M.start_time);
	family(o, "tepd_tsc_hertz", GAUGE,
	       "TSC frequency: divides tepd_worker_stage_cycles_total.");
	sample0(o, rte_get_tsc_hz());
	family(o, "tepd_mempool_mbufs_in_use", GAUGE,
	       "Mbufs neither free in the pool nor in a per-lcore cache.");
	sample0(o, rte_mempool_in_use_count(tep.pool));
	family(o, "tepd_mempool_mbufs", GAUGE, "Mbufs in the pool.");
	sample0(o, tep.pool->size);
	family(o, "tepd_punt_ring_entries", GAUGE,
	       "Packets waiting for the control thread (ARP, ND, ICMP); "
	       "drops when it is full are tepd_port_drops_total{reason="
	       "\"punt_full\"}.");
	sample0(o, rte_ring_count(tep.punt));
	family(o, "tepd_punt_ring_capacity", GAUGE,
	       "Size of the punt ring.");
	sample0(o, rte_ring_get_capacity(tep.punt));
	family(o, "tepd_control_clients", GAUGE,
	       "Clients connected to the control socket.");
	sample0(o, cs.clients);
	family(o, "tepd_control_requests", COUNTER,
	       "Requests served on the control socket.");
	sample0(o, cs.requests);
	family(o, "tepd_metrics_requests", COUNTER,
	       "HTTP requests to this endpoint.");
	sample0(o, __atomic_load_n(&M.requests, __ATOMIC_RELAXED));
}

/* FPM (tepd -P): counters are events, parse errors a family of their
 * own labelled by the error's stable name (docs/evpn.md). */
struct fpm_render {
	struct out *o;
	bool err;
};

static void
fpm_sample(void *arg, const char *name, bool err, uint64_t v)
{
	struct fpm_render *r = arg;

	if (err == r->err)
		sample(r->o, v, err ? "error" : "event", name);
}

static void
render_fpm(struct out *o)
{
	struct fpm_render r = { .o = o };

	if (!tep_fpm_enabled())
		return;
	family(o, "tepd_fpm_connected", GAUGE,
	       "1 while zebra is connected to the FPM server (tepd -P).");
	sample0(o, tep_fpm_connected() ? 1 : 0);
	family(o, "tepd_fpm_events", COUNTER,
	       "FPM server events by name, as fpm_NAME in tepctl stats.");
	tep_fpm_each_counter(fpm_sample, &r);
	r.err = true;
	family(o, "tepd_fpm_parse_errors", COUNTER,
	       "FPM frames that did not parse, by error; each dropped the "
	       "connection.");
	tep_fpm_each_counter(fpm_sample, &r);
}

/* Multipath routes' groups and their failover (route/nexthop.h). */
static void
render_nexthops(struct out *o)
{
	const struct tep_paths_stats *ps = &tep_paths_stats;

	family(o, "tepd_nexthop_groups", GAUGE,
	       "Next-hop groups: the distinct path sets of multipath routes.");
	sample0(o, tep_rib.nhg_count);
	family(o, "tepd_nexthop_failovers", COUNTER,
	       "Times a group member was taken out of its groups (its port "
	       "or gateway went down).");
	sample0(o, tep_rib.nh_failovers);
	family(o, "tepd_nexthop_recoveries", COUNTER,
	       "Times a group member was put back into its groups.");
	sample0(o, tep_rib.nh_recoveries);
	family(o, "tepd_nexthop_port_down", COUNTER,
	       "Ports seen going down (link or admin) by the failover's "
	       "poll.");
	sample0(o, ps->port_down);
	family(o, "tepd_nexthop_port_up", COUNTER,
	       "Ports seen coming back up by the failover's poll.");
	sample0(o, ps->port_up);
	family(o, "tepd_nexthop_gateway_lost", COUNTER,
	       "Group members' gateways declared dead after unanswered "
	       "ARP/ND probes.");
	sample0(o, ps->gw_lost);
	family(o, "tepd_nexthop_gateway_back", COUNTER,
	       "Group members' gateways heard from again after being "
	       "declared dead.");
	sample0(o, ps->gw_back);
	family(o, "tepd_nexthop_gateways_watched", GAUGE,
	       "Group members' gateways being probed.");
	sample0(o, ps->gw_watched);
	family(o, "tepd_nexthop_gateways_down", GAUGE,
	       "Of the gateways watched, those declared dead now.");
	sample0(o, ps->gw_down);
}

static struct snap *
render(void)
{
	struct out o;
	struct snap *s;
	struct gather *g = M.g;
	uint32_t i;
	int f;

	memset(&o, 0, sizeof(o));
	for (i = 0; i < tep_nb_ports; i++)
		if (tep_ports[i].present)
			tep_cnt_raw_port((uint16_t)i, &g->port[i]);
	tep_cnt_raw_port(TEP_PORT_CTL, &g->port[TEP_PORT_CTL]);
	for (i = 0; i < TEP_VRF_MAX; i++)
		if (tep_rib.vrf[i] != NULL)
			tep_cnt_raw_vrf((uint16_t)i, &g->vrf[i]);
	for (i = 0; i < TEP_TUNNELS_MAX; i++)
		if (tep_tunnels[i] != NULL)
			tep_cnt_raw_tun(i, &g->tun[i]);
	for (f = 0; f < FMT_MAX; f++) {
		o.t[f].cap = 64 * 1024;
		o.t[f].p = malloc(o.t[f].cap);
		o.t[f].oom = o.t[f].p == NULL;
	}
	render_process(&o);
	render_ports(&o, g);
	render_vrfs(&o, g);
	render_tunnels(&o, g);
	render_workers(&o);
	render_fpm(&o);
	render_nexthops(&o);
	put(&o.t[FMT_OM], "# EOF\n");

	s = calloc(1, sizeof(*s));
	if (s == NULL || o.t[FMT_PROM].oom || o.t[FMT_OM].oom) {
		for (f = 0; f < FMT_MAX; f++)
			free(o.t[f].p);
		free(s);
		return NULL;
	}
	s->refs = 1;
	s->built_ns = mono_ns();
	for (f = 0; f < FMT_MAX; f++) {
		s->text[f] = o.t[f].p;
		s->len[f] = o.t[f].len;
	}
	return s;
}

/* Control thread, every loop: render if a request is waiting. */
void
tep_metrics_poll(void)
{
	struct snap *s, *old;

	if (!__atomic_load_n(&M.want, __ATOMIC_ACQUIRE))
		return;
	s = render();
	pthread_mutex_lock(&M.lock);
	old = NULL;
	if (s != NULL) {
		old = M.cur;
		M.cur = s;
	}
	__atomic_store_n(&M.want, false, __ATOMIC_RELEASE);
	M.want_since = 0;
	pthread_cond_broadcast(&M.fresh);
	pthread_mutex_unlock(&M.lock);
	snap_put(old);
}
