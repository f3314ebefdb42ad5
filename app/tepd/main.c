/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * tepd [EAL options] -- [-f CONFIG] [-s SOCKET] [-r ROUTES] [-G GID] [-C] [-N]
 *		[-T SECONDS] [-U N] [-M [ADDR]:PORT] [-P [ADDR:]PORT]
 *
 * The EAL main lcore is the control thread: it loads the config, serves
 * the control socket, answers what workers punt (ARP, ND, ICMP) and runs
 * the neighbour timers. Every other lcore is a worker polling one RX queue
 * of each port.
 */

#include <dirent.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pdump.h>

#include "tep_ctl_server.h"
#include "tepd.h"
#include "adj.h"
#include "cmds.h"
#include "datapath.h"
#include "fpm.h"
#include "metrics.h"
#include "neigh.h"
#include "nexthop.h"
#include "port.h"
#include "punt.h"
#include "stats.h"
#include "tunnel.h"
#include "vrfhost.h"

struct tepd tep;
struct tep_rib tep_rib;

static struct tep_ctl_server *ctl_server;

static void
on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&tep.quit, true, __ATOMIC_RELAXED);
	if (ctl_server != NULL)
		tep_ctl_server_wakeup(ctl_server);
}

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [EAL options] -- [-f CONFIG] [-s SOCKET] [-r ROUTES]"
		" [-G GROUP] [-C] [-N]\n"
		"       [-H IFNAME]"
		" [-T SECONDS] [-U N] [-M [ADDR]:PORT] [-P [ADDR:]PORT]\n"
		"  -f CONFIG  control commands to run at start, one per line\n"
		"  -s SOCKET  control socket (default %s)\n"
		"  -r ROUTES  routes per VRF and family (default 65536)\n"
		"  -G GROUP   group allowed on the control socket besides root\n"
		"  -C         count cycles per pipeline stage (stats)\n"
		"  -N         give every VRF a host side (a network namespace)"
		" for\n"
		"             tepctl vrf exec; needs CAP_SYS_ADMIN\n"
		"  -H IFNAME  give the default VRF a host side: interface"
		" IFNAME in\n"
		"             tepd's namespace with the underlay addresses, for"
		" BGP/BFD\n"
		"             over tepd's own ports\n"
		"  -T SECONDS control clients that send no complete request"
		" for this\n"
		"             long are dropped (default %g; 0: never)\n"
		"  -U N       control connections per uid, root and tepd's own"
		" uid\n"
		"             excepted (default %u; 0: no limit)\n"
		"  -M [ADDR]:PORT  serve GET /metrics (Prometheus) on ADDR"
		" (default\n"
		"             127.0.0.1)\n"
		"  -P [ADDR:]PORT  be the FPM server of FRR's zebra"
		" (dplane_fpm_nl;\n"
		"             conventionally 2620) on ADDR (default"
		" 127.0.0.1):\n"
		"             install its routes (docs/evpn.md); off unless"
		" given\n"
		"  -B BYTES   data bytes per mbuf (default 2048): more only"
		" where a PMD\n"
		"             can neither scatter nor is net_af_packet (e.g."
		" net_pcap\n"
		"             infinite_rx replaying jumbo frames)\n",
		prog, TEP_CTL_DEFAULT_SOCKET, TEP_CTL_DEFAULT_IDLE / 1000.0,
		TEP_CTL_DEFAULT_PER_UID);
}

/* -T SECONDS (idle timeout), -U N (connections per uid); 0: none. */
static int
ctl_limit_opt(int opt, const char *arg, struct tep_ctl_server_conf *sc)
{
	char *end;
	double secs;
	unsigned long n;

	if (opt == 'T') {
		secs = strtod(arg, &end);
		if (end == arg || *end != '\0' || !(secs >= 0 && secs <= 86400)) {
			fprintf(stderr, "tepd: -T: bad timeout \"%s\" "
				"(seconds, 0 to 86400; 0: never)\n", arg);
			return -1;
		}
		sc->idle_ms = secs == 0 ? TEP_CTL_NONE :
			      secs * 1000 < 1 ? 1 : (unsigned int)(secs * 1000);
		return 0;
	}
	n = strtoul(arg, &end, 10);
	if (end == arg || *end != '\0' || arg[0] == '-' || n > 65536) {
		fprintf(stderr, "tepd: -U: bad limit \"%s\" (0 to 65536; "
			"0: no limit)\n", arg);
		return -1;
	}
	sc->max_per_uid = n == 0 ? TEP_CTL_NONE : (unsigned int)n;
	return 0;
}

static uint32_t
tbl8_groups(uint32_t want)
{
	return want < 4096 ? 4096 : want > 32767 ? 32767 : want;
}

#define POOL_CACHE	256

/*
 * The mbuf pool, sized from what can hold mbufs at once, so that full
 * rings, held and punted packets can never starve RX: every port's RX and
 * TX rings (one queue pair per worker), each VRF's host port (-N), the
 * punt and control rings, packets held for ARP/ND, each worker's TX
 * buffers and segmentation output, the per-lcore caches; then a quarter
 * more. A pool that does not fit says how much it needed.
 *
 * TEPD_POOL_EXTRA=N adds N mbufs: a benchmark knob for net_pcap's
 * infinite_rx, which keeps the whole capture in mbufs of this pool (a
 * capture of 65 536 flows needs 65 536 of them).
 */
static int
pool_create(unsigned int host_ports, char *err, size_t errlen)
{
	const char *extra = getenv("TEPD_POOL_EXTRA");
	uint32_t ports = rte_eth_dev_count_avail(), w = tep.nb_workers;
	uint64_t rings = (uint64_t)ports * w * (TEP_RX_DESC + TEP_TX_DESC);
	uint64_t hosts = (uint64_t)host_ports * w * 2 * TEP_HOST_DESC;
	uint64_t inflight = (uint64_t)w * (TEP_PORTS_MAX * TEP_BURST * 2 +
					   TEP_GSO_SEGS_MAX + TEP_BURST * 2);
	uint64_t n = rings + hosts + inflight + TEP_PUNT_RING +
		     TEP_CTL_TX_RING + TEP_HOLD_MAX +
		     (uint64_t)rte_lcore_count() * POOL_CACHE * 3 / 2;
	uint16_t room = (uint16_t)(RTE_PKTMBUF_HEADROOM +
				   (tep.mbuf_data != 0 ? tep.mbuf_data :
				    RTE_MBUF_DEFAULT_DATAROOM));
	uint32_t elt = room + sizeof(struct rte_mbuf) +
		       RTE_ALIGN(sizeof(struct tep_mbuf_priv),
				 RTE_MBUF_PRIV_ALIGN);

	n += n / 4;
	if (extra != NULL)
		n += strtoull(extra, NULL, 0) & 0xffffffffu;
	n = rte_align64pow2(n) - 1;	/* a ring's size, less one */
	if (n > UINT32_MAX / 2) {
		snprintf(err, errlen, "mbuf pool: %" PRIu64 " mbufs needed: "
			 "too many ports or workers", n);
		return -1;
	}
	tep.pool = rte_pktmbuf_pool_create("tep_mbufs", (uint32_t)n,
		POOL_CACHE,
		RTE_ALIGN(sizeof(struct tep_mbuf_priv), RTE_MBUF_PRIV_ALIGN),
		room, (int)rte_socket_id());
	if (tep.pool == NULL) {
		snprintf(err, errlen, "mbuf pool: %" PRIu64 " mbufs of %u "
			 "bytes (%" PRIu64 " MiB) for %u port(s) x %u "
			 "worker(s) x %u+%u descriptors%s, rings, held "
			 "packets and caches: %s (give the EAL more memory: "
			 "-m or --socket-mem)", n, elt, n * elt >> 20, ports,
			 w, TEP_RX_DESC, TEP_TX_DESC,
			 host_ports != 0 ? ", host ports" : "",
			 rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

static int
setup_memory(uint32_t routes, unsigned int host_ports, char *err,
	     size_t errlen)
{
	struct tep_rib_conf rc = {
		.max_routes4 = routes,
		.max_routes6 = routes,
		/* tbl8 groups hold prefixes longer than /24 (IPv4) or deeper
		 * levels (IPv6); 2-byte entries cap them at 32767. 22.11's
		 * IPv6 trie reserves a group per byte past /24 for every
		 * route, shared or not (5 for a /64): routes/2 groups, the
		 * cap at the default -r, hold 6553 /64s (routes/16 held 819),
		 * for 14 MiB more per VRF (docs/commands.md, Notes). */
		.tbl8_4 = tbl8_groups(routes / 32),
		.tbl8_6 = tbl8_groups(routes / 2),
		.socket_id = (int)rte_socket_id(),
		.nh_init = tep_adj_nh_init,
		/* rebuilds at most 5 % of the control thread per table when
		 * routes churn at capacity (lib/fib/tep_fib.h) */
		.rebuild_gap = 19,
	};
	unsigned int lc;
	size_t sz;

	sz = rte_rcu_qsbr_get_memsize(tep.nb_workers);
	tep.rcu = rte_zmalloc("tep_rcu", sz, RTE_CACHE_LINE_SIZE);
	if (tep.rcu == NULL ||
	    rte_rcu_qsbr_init(tep.rcu, tep.nb_workers) != 0) {
		snprintf(err, errlen, "rcu: out of memory");
		return -1;
	}
	if (pool_create(host_ports, err, errlen) != 0)
		return -1;
	tep.punt = rte_ring_create("tep_punt", TEP_PUNT_RING,
				   (int)rte_socket_id(), RING_F_SC_DEQ);
	tep.ctl_tx = rte_ring_create("tep_ctl_tx", TEP_CTL_TX_RING,
				     (int)rte_socket_id(),
				     RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (tep.punt == NULL || tep.ctl_tx == NULL) {
		snprintf(err, errlen, "rings: %s", rte_strerror(rte_errno));
		return -1;
	}
	RTE_LCORE_FOREACH(lc) {
		tep_counters[lc] = rte_zmalloc("tep_cnt", sizeof(*tep_counters[lc]),
					  RTE_CACHE_LINE_SIZE);
		if (tep_counters[lc] == NULL) {
			snprintf(err, errlen, "counters: out of memory");
			return -1;
		}
	}
	if (tep_rib_init(&tep_rib, &rc, tep.rcu, err, errlen) != 0)
		return -1;
	if (tep_neigh_init(err, errlen) != 0 ||
	    tep_tunnels_init(err, errlen) != 0)
		return -1;
	return 0;
}

/* What tepd's own options (after the EAL's "--") ask for. */
struct tepd_opts {
	const char *config, *sock, *metrics, *fpm_listen, *underlay_host;
	uint32_t routes;
	bool vrf_hosts;
	struct tep_ctl_server_conf sc;
};

/* 0, or the exit status: 0 for -h, 2 for a bad option (said on stderr). */
static int
parse_options(int argc, char **argv, struct tepd_opts *o, bool *done)
{
	int opt;

	*done = false;
	while ((opt = getopt(argc, argv, "f:s:r:G:CNH:T:U:M:P:B:h")) != -1) {
		switch (opt) {
		case 'f':
			o->config = optarg;
			break;
		case 's':
			o->sock = optarg;
			break;
		case 'r':
			o->routes = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'G': {
			struct group *g = getgrnam(optarg);

			if (g == NULL) {
				fprintf(stderr, "tepd: -G: no group \"%s\"\n",
					optarg);
				return 2;
			}
			o->sc.allow_gid_set = true;
			o->sc.allow_gid = g->gr_gid;
			break;
		}
		case 'C':
			tep.stats_cycles = true;
			break;
		case 'N':
			o->vrf_hosts = true;
			break;
		case 'H':
			o->underlay_host = optarg;
			break;
		case 'T':
		case 'U':
			if (ctl_limit_opt(opt, optarg, &o->sc) != 0)
				return 2;
			break;
		case 'M':
			o->metrics = optarg;
			break;
		case 'P':
			o->fpm_listen = optarg;
			break;
		case 'B': {
			unsigned long b = strtoul(optarg, NULL, 0);

			if (b < 1024 || b > UINT16_MAX - RTE_PKTMBUF_HEADROOM) {
				fprintf(stderr, "tepd: -B %s: 1024-%u bytes\n",
					optarg,
					UINT16_MAX - RTE_PKTMBUF_HEADROOM);
				return 2;
			}
			tep.mbuf_data = (uint16_t)b;
			break;
		}
		default:
			usage(argv[0]);
			*done = true;
			return opt == 'h' ? 0 : 2;
		}
	}
	return 0;
}

struct leftovers {
	const char *prefix;
	size_t plen;
};

/* One hugetlbfs mount's PREFIXmap_N files. */
static int
remove_hugepage_files(const char *mnt, void *arg)
{
	const struct leftovers *l = arg;
	char path[PATH_MAX + 320];
	struct dirent *e;
	DIR *d = opendir(mnt);

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, l->prefix, l->plen) == 0 &&
		    strncmp(e->d_name + l->plen, "map_", 4) == 0) {
			snprintf(path, sizeof(path), "%s/%s", mnt, e->d_name);
			unlink(path);
		}
	closedir(d);
	return 0;
}

/*
 * What DPDK 22.11 leaves after rte_eal_cleanup(): the hugepage files of
 * this file prefix (PREFIXmap_N in every hugetlbfs mount; kept for
 * secondary processes such as dpdk-dumpcap) and the runtime directory
 * (/var/run/dpdk/PREFIX). A tepd that stops cleanly removes them; one
 * that was killed leaves them to the next with the same prefix, whose EAL
 * reuses them. rundir: rte_eal_get_runtime_dir(), copied before cleanup.
 */
static void
remove_eal_leftovers(const char *rundir)
{
	struct leftovers l = { .prefix = strrchr(rundir, '/') };
	char path[PATH_MAX + 320];
	struct dirent *e;
	DIR *d;

	if (l.prefix == NULL || *++l.prefix == '\0')
		return;
	l.plen = strlen(l.prefix);
	tep_hugetlbfs_foreach(remove_hugepage_files, &l);
	d = opendir(rundir);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", rundir,
				 e->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(rundir);
}

/* A start that fails once the EAL is up (bad option, config line, port,
 * socket): the runtime directory and hugepage files go as at a clean
 * stop, so that nothing is left for the next start to find. (A failed
 * rte_eal_init() removes nothing: the prefix may be a running tepd's.) */
static int
start_failed(int code)
{
	char rundir[PATH_MAX];

	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	remove_eal_leftovers(rundir);
	return code;
}

/* The control thread's loop, until SIGINT or SIGTERM. */
static void
control_loop(void)
{
	uint64_t next_timer = rte_rdtsc();

	while (!__atomic_load_n(&tep.quit, __ATOMIC_RELAXED)) {
		tep_ctl_server_poll(ctl_server, 1);
		tep_punt_drain();
		tep_metrics_poll();
		tep_fpm_poll();
		if (rte_rdtsc() >= next_timer) {
			tep_neigh_timer();
			tep_paths_timer();
			next_timer = rte_rdtsc() + rte_get_tsc_hz() / 10;
		}
	}
}

int
main(int argc, char **argv)
{
	struct tepd_opts o = { .routes = 65536 };
	struct tep_ctl_table *table;
	struct tep_ctl_ctx *ctx;
	struct tep_err cerr;
	char err[512], rundir[PATH_MAX];
	unsigned int lc, i = 0;
	bool done;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		tep_eal_failure(rte_errno, argc, argv, err, sizeof(err));
		fprintf(stderr, "tepd: %s\n", err);
		return 1;
	}
	argc -= ret;
	argv += ret;
	pthread_mutex_init(&tep_tunnel_free_lock, NULL);
	if (tep_vdevs_check(err, sizeof(err)) != 0 ||
	    tep_pci_check(err, sizeof(err)) != 0) {
		fprintf(stderr, "tepd: %s\n", err);
		return start_failed(1);
	}
	ret = parse_options(argc, argv, &o, &done);
	if (ret != 0 || done)
		return start_failed(ret);

	RTE_LCORE_FOREACH_WORKER(lc) {
		if (i == TEP_MAX_WORKERS)
			break;
		tep.worker_lcore[i++] = lc;
	}
	tep.nb_workers = i;
	if (tep.nb_workers == 0) {
		fprintf(stderr, "tepd: needs at least one worker lcore besides "
			"the main one (e.g. -l 0-1)\n");
		return start_failed(1);
	}
	if (setup_memory(o.routes, o.vrf_hosts ? TEP_VRF_MAX :
			 o.underlay_host != NULL ? 1 : 0, err,
			 sizeof(err)) != 0 ||
	    tep_vrfhost_init(o.vrf_hosts, err, sizeof(err)) != 0 ||
	    tep_ports_init(err, sizeof(err)) != 0 ||
	    (o.underlay_host != NULL &&
	     tep_vrfhost_create_default(o.underlay_host, err,
					sizeof(err)) != 0)) {
		fprintf(stderr, "tepd: %s\n", err);
		return start_failed(1);
	}
	/* Lets dpdk-dumpcap/dpdk-pdump (secondary processes) capture. */
	if (rte_pdump_init() != 0)
		fprintf(stderr, "tepd: pdump unavailable (%s): no capture\n",
			rte_strerror(rte_errno));
	tep_telemetry_init();

	table = tep_cmds_table();
	ctx = tep_ctl_ctx_new(NULL);
	if (table == NULL || ctx == NULL) {
		fprintf(stderr, "tepd: out of memory\n");
		return start_failed(1);
	}
	if (o.config != NULL) {
		tep_err_clear(&cerr);
		if (tep_ctl_load_file(table, ctx, o.config, &cerr) != 0) {
			/* file:line: message. Refuse to run half-configured. */
			fprintf(stderr, "tepd: %s\n", cerr.msg);
			return start_failed(1);
		}
	}
	o.sc.path = o.sock;
	o.sc.table = table;
	tep_err_clear(&cerr);
	ctl_server = tep_ctl_server_new(&o.sc, &cerr);
	if (ctl_server == NULL) {
		fprintf(stderr, "tepd: control socket: %s\n", cerr.msg);
		return start_failed(1);
	}
	if (o.metrics != NULL &&
	    tep_metrics_start(o.metrics, ctl_server, err, sizeof(err)) != 0) {
		fprintf(stderr, "tepd: %s\n", err);
		return start_failed(1);
	}

	/* After the config: FPM routes name VRFs by table, which the
	 * config creates. */
	if (o.fpm_listen != NULL &&
	    tep_fpm_start(o.fpm_listen, err, sizeof(err)) != 0) {
		fprintf(stderr, "tepd: %s\n", err);
		return start_failed(1);
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	tep.started_tsc = rte_rdtsc();
	for (i = 0; i < tep.nb_workers; i++)
		rte_eal_remote_launch(tep_worker_main, (void *)(uintptr_t)i,
				      tep.worker_lcore[i]);
	printf("tepd: running: %u worker(s), %u port(s), control socket %s\n",
	       tep.nb_workers, tep_nb_ports,
	       o.sock != NULL ? o.sock : TEP_CTL_DEFAULT_SOCKET);
	fflush(stdout);

	control_loop();

	printf("tepd: stopping\n");
	rte_eal_mp_wait_lcore();
	tep_metrics_stop();
	tep_fpm_stop();
	tep_ctl_server_free(ctl_server);
	tep_ctl_ctx_free(ctx);
	tep_ctl_table_free(table);
	tep_vrfhost_fini();
	tep_ports_stop();
	rte_pdump_uninit();
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	remove_eal_leftovers(rundir);
	return 0;
}
