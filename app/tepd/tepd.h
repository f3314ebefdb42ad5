/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_H
#define TEPD_H

/*
 * tepd's shared state. One control thread (the EAL main lcore) owns and
 * writes all of it; worker lcores read it without locks. Objects workers
 * can see are published by a release store of their pointer and retired
 * only after an RCU grace period (tep.rcu), so a worker that loaded a
 * pointer may use it until its next quiescent state (once per poll loop).
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_hash.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "tep_fib.h"
#include "tep_proto.h"
#include "tep_txprep.h"

#define TEP_BURST		32
#define TEP_BURST_HIST		6	/* log2(TEP_BURST) + 1 buckets */
#define TEP_MAX_WORKERS		16
#define TEP_PORTS_MAX		RTE_MAX_ETHPORTS
#define TEP_TUNNELS_MAX		1024
#define TEP_ADDRS_MAX		8
#define TEP_NAME_MAX		32
#define TEP_NEIGH_MAX		4096
#define TEP_NEIGH_HOLD		4	/* packets held while resolving */
#define TEP_HOLD_MAX		1024	/* ... in all */
#define TEP_RX_DESC		1024	/* descriptors per queue */
#define TEP_TX_DESC		1024
/* A VRF's host port carries control-plane traffic (vrfhost.c): small
 * rings, so that each VRF holds 128 mbufs of the pool, not 1024. */
#define TEP_HOST_DESC		128
#define TEP_PUNT_RING		4096
#define TEP_CTL_TX_RING		1024
#define TEP_NO_TUNNEL		UINT32_MAX
#define TEP_NO_PORT		UINT16_MAX
/* Counter slot for frames tepd built itself (ARP, ND, ICMP errors): they
 * arrived on no port (m->port is RTE_MBUF_PORT_INVALID). */
#define TEP_PORT_CTL		TEP_PORTS_MAX

/* ---- what a punted packet carries to the control thread ------------------ */

/* Filled in only when a worker punts a packet: the fast path keeps its
 * per-packet state in locals (the private area is a cold cache line). */

enum tep_punt {
	TEP_PUNT_NONE,
	TEP_PUNT_ARP,		/* ARP for the control thread */
	TEP_PUNT_ND,		/* IPv6 neighbour discovery */
	TEP_PUNT_LOCAL,		/* addressed to tepd (ICMP echo, ...) */
	TEP_PUNT_RESOLVE,	/* next hop's MAC unknown: resolve and send */
	TEP_PUNT_TTL,		/* TTL expired: ICMP time exceeded */
	TEP_PUNT_TOO_BIG,	/* DF packet too big after encap: ICMP */
	TEP_PUNT_MAX
};

/*
 * Rate limits, as a token bucket in GCRA form (one timestamp): a packet
 * is allowed while the bucket's theoretical arrival time is no more than
 * burst_tsc ahead of now. interval: TSC ticks per token; burst_tsc:
 * (burst - 1) * interval.
 */
struct tep_rate {
	uint64_t tat;
};

static inline bool
tep_rate_allow(struct tep_rate *r, uint64_t now, uint64_t interval,
	       uint64_t burst_tsc)
{
	uint64_t tat = r->tat > now ? r->tat : now;

	if (tat - now > burst_tsc)
		return false;
	r->tat = tat + interval;
	return true;
}

/* Punts allowed per second for each (reason, VRF), over all workers, and
 * the burst; and at most one punt per source (or per address to resolve)
 * per millisecond and worker. */
#define TEP_PUNT_RATE		2000
#define TEP_PUNT_BURST		200
/* The control thread's shares per VRF: unresolved neighbours, and packets
 * held while they resolve. */
#define TEP_NEIGH_INCOMPLETE_VRF	256
#define TEP_NEIGH_VRF		1024
#define TEP_HOLD_VRF		256

struct tep_mbuf_priv {
	uint16_t vrf;		/* VRF the packet is routed in */
	uint16_t tx_port;	/* RESOLVE: egress port */
	uint8_t punt;		/* enum tep_punt */
	uint8_t family;		/* 4 or 6 */
	uint8_t family_nh;	/* RESOLVE: family of nh_ip */
	uint8_t pad;
	uint16_t mtu;		/* TOO_BIG: the MTU to report */
	uint8_t nh_ip[16];	/* RESOLVE: the address to resolve */
	uint32_t tunnel;	/* RESOLVE: tunnel, or TEP_NO_TUNNEL; a frame
				 * on ctl_tx with tx_port TEP_NO_PORT: the
				 * tunnel to send it into */
	uint32_t from_tunnel;	/* the tunnel the packet came out of, or
				 * TEP_NO_TUNNEL (ICMP errors go back there) */
};

static inline struct tep_mbuf_priv *
tep_priv(struct rte_mbuf *m)
{
	return (struct tep_mbuf_priv *)rte_mbuf_to_priv(m);
}

/* ---- ports -------------------------------------------------------------- */

enum tep_role { TEP_ROLE_NONE, TEP_ROLE_UNDERLAY, TEP_ROLE_ACCESS };

struct tep_addr {
	uint8_t family;		/* 4 or 6 */
	uint8_t len;		/* prefix length */
	uint8_t a[16];
};

struct tep_port {
	bool present;
	uint16_t id;
	char name[RTE_ETH_NAME_MAX_LEN];
	char driver[TEP_NAME_MAX];
	/* read by workers */
	uint8_t role;		/* enum tep_role */
	uint8_t up;		/* admin state */
	uint8_t polling;	/* workers may use its queues */
	uint16_t vrf;
	uint16_t mtu;
	struct rte_ether_addr mac;
	uint64_t mac64;		/* mac as 6 bytes in a zeroed uint64_t */
	struct tep_txcaps txcaps;
	/* control only */
	uint64_t tx_disabled;	/* RTE_ETH_TX_OFFLOAD_* switched off */
	uint64_t tx_offloads;	/* configured */
	uint16_t nb_rxq, nb_txq;
	/* jumbo frames (port.c): how RX takes a frame and how big one may be */
	uint16_t max_mtu;	/* what `port set mtu` accepts */
	uint8_t rx_scatter;	/* RX chains buffers (RTE_ETH_RX_OFFLOAD_SCATTER) */
	bool rx_rss_hash;	/* RX gives the NIC's RSS hash (RTE_ETH_RX_OFFLOAD_RSS_HASH) */
	uint32_t rx_buf;	/* bytes one RX buffer holds */
	char mtu_limit[96];	/* where max_mtu comes from, for errors and
				 * offload show */
	struct tep_addr addr[TEP_ADDRS_MAX];
	int naddr;
	bool vrf_host;		/* a VRF's host port (vrfhost.c) */
	int netns_fd;		/* vrf_host: its kernel side's namespace */
};

/* ---- tunnels ------------------------------------------------------------ */

struct tep_tunnel {
	char name[TEP_NAME_MAX];
	uint32_t id;
	uint16_t vrf;
	uint16_t dport;
	struct tep_encap_params p;
	uint8_t geneve_opts[TEP_GENEVE_OPT_MAX];
	struct tep_encap_tmpl tmpl;
	struct rte_ether_addr inner_dmac;	/* the remote router's MAC */
	struct rte_ether_addr inner_smac;	/* ours, on the overlay */
	uint16_t overhead;			/* bytes added by encap */
	/* Sum of the inner Ethernet header encap writes, for an IPv4 [0]
	 * and an IPv6 [1] packet (tep_encap_pkt.inner_pre_sum). */
	uint32_t inner_eth_sum[2];
	uint8_t csum_asked;			/* csum mode as configured */
};

/* Decapsulation key: which tunnel a packet from the underlay belongs to. */
struct tep_tun_key {
	uint8_t type;
	uint8_t v6;
	uint16_t pad;
	uint32_t vni;
	uint8_t remote[16];
};

/* ---- neighbours --------------------------------------------------------- */

struct tep_neigh_key {
	uint16_t port;
	uint8_t family;
	uint8_t pad;
	uint8_t ip[16];
};

struct tep_neigh {
	uint64_t mac;		/* 48 bits, 0 = unresolved; atomic for workers */
	/* control only */
	struct tep_neigh_key key;
	uint16_t vrf;		/* the port's at creation (a port changing
				 * VRF flushes its neighbours) */
	uint8_t is_static;
	uint8_t learned;	/* counted in the VRF's share */
	uint8_t probes;
	uint64_t updated;	/* tsc */
	uint64_t probed;
	struct rte_mbuf *hold[TEP_NEIGH_HOLD];
	uint8_t nhold;
	bool used;
};

/* ---- counters (per lcore, summed when read) ----------------------------- */

struct tep_cnt_port {
	uint64_t rx, tx, rx_bytes, tx_bytes;
	uint64_t drop[TEP_R_MAX];
	uint64_t hw_csum, sw_csum;
	uint64_t rx_csum_pending;	/* arrived with the checksum left to us */
	uint64_t gso_pkts, gso_segs;	/* super-packets segmented, segments */
	uint64_t tx_csum_partial;	/* verified, handed on as partial */
	uint64_t frag_pkts, frags;	/* IPv4 datagrams fragmented, pieces */
};

struct tep_cnt_vrf {
	uint64_t routed;
	uint64_t drop[TEP_R_MAX];
};

struct tep_cnt_tun {
	uint64_t encap, decap, encap_bytes, decap_bytes;
	uint64_t ocsum[4];	/* by enum tep_ocsum */
	uint64_t decap_inner_ok;	/* inner L4 checksum derived good */
	uint64_t proxy_answers;		/* ARP/NS through it answered */
	uint64_t drop[TEP_R_MAX];
};

/* Pipeline stages timed by tepd -C. classify, lookup and encap (the
 * dispatch to encap, forward or decap) count each received packet once;
 * inner counts each decapsulated packet once, for all that follows its
 * decapsulation (inner classify, lookup in the tunnel's VRF, dispatch). */
enum tep_stage { TEP_ST_CLASSIFY, TEP_ST_LOOKUP, TEP_ST_ENCAP, TEP_ST_INNER,
		 TEP_ST_TXPREP, TEP_ST_MAX };

struct tep_lcore_cnt {
	struct tep_cnt_port port[TEP_PORTS_MAX + 1];	/* + TEP_PORT_CTL */
	struct tep_cnt_vrf vrf[TEP_VRF_MAX];
	struct tep_cnt_tun tun[TEP_TUNNELS_MAX];
	uint64_t stage_cycles[TEP_ST_MAX];
	uint64_t stage_pkts[TEP_ST_MAX];
	uint64_t bursts;		/* RX bursts that brought packets */
	uint64_t polls_busy;		/* poll loops that received packets */
	uint64_t polls_idle;		/* poll loops that received none */
	uint64_t burst_hist[TEP_BURST_HIST];	/* see tep_burst_bucket() */
} __rte_cache_aligned;

/* The counter slot of the port m came in on. */
static inline uint16_t
tep_cnt_port_of(const struct rte_mbuf *m)
{
	return likely(m->port < TEP_PORTS_MAX) ? m->port : TEP_PORT_CTL;
}

/* RX burst sizes by powers of two: 1, 2-3, 4-7, 8-15, 16-31, and full. */
static inline unsigned int
tep_burst_bucket(uint16_t n)
{
	unsigned int b = 31u - (unsigned int)__builtin_clz(n);	/* n > 0 */

	return b < TEP_BURST_HIST ? b : TEP_BURST_HIST - 1;
}

/* ---- the whole state ---------------------------------------------------- */

struct tepd {
	volatile bool quit;
	struct rte_rcu_qsbr *rcu;
	struct rte_mempool *pool;
	/* Large buffers for the RX queues of ports that cannot scatter and
	 * take frames longer than pool's (net_af_packet framesz > 2048). */
	struct rte_mempool *jumbo_pool;
	uint16_t mbuf_data;	/* -B: data bytes per mbuf; 0: 2048 */
	struct rte_ring *punt;		/* workers -> control */
	struct rte_ring *ctl_tx;	/* control -> worker 0 -> TX */
	uint32_t underlay_gen;		/* bumped when tunnel egress may change */
	unsigned int nb_workers;
	unsigned int worker_lcore[TEP_MAX_WORKERS];

	struct tep_rib rib;
	struct tep_port port[TEP_PORTS_MAX];
	uint16_t nb_ports;

	struct tep_tunnel *tunnel[TEP_TUNNELS_MAX];	/* RCU */
	/* DPDK's telemetry thread reads tunnels too, but is no RCU reader
	 * (it never reports quiescent states): it holds this lock while it
	 * does, and the control thread while it frees one. */
	pthread_mutex_t tunnel_free_lock;
	struct rte_hash *tun_hash;			/* key -> id, LF */
	uint8_t udp_tun_type[65536];	/* dport -> tep_tun_type, 0xff none */

	struct rte_hash *neigh_hash;			/* key -> index, LF */
	struct tep_neigh neigh[TEP_NEIGH_MAX];

	/* Per VRF: its host port (vrfhost.c), or TEP_NO_PORT. Workers send
	 * packets for the VRF's own addresses there. */
	uint16_t vrf_host_port[TEP_VRF_MAX];
	int host_netns_fd;		/* the namespace tepd started in */

	struct tep_lcore_cnt *cnt[RTE_MAX_LCORE];
	uint16_t ip_id[RTE_MAX_LCORE];
	uint64_t started_tsc;
	bool stats_cycles;	/* per-stage cycle counting on */
};

extern struct tepd tep;

/* worker.c */
int tep_worker_main(void *arg);

/* port.c */
int tep_ports_init(char *err, size_t errlen);
int tep_port_find(const char *name);
int tep_port_restart(uint16_t id, char *err, size_t errlen);
int tep_port_set_mtu(struct tep_port *p, uint16_t mtu, char *err,
		     size_t errlen);
void tep_ports_stop(void);
int tep_port_attach_host(const char *devargs, const char *name, int netns_fd,
			 uint16_t vrf, uint16_t mtu, uint16_t *pid, char *err,
			 size_t errlen);
void tep_port_detach_host(uint16_t id);
void tep_netns_home(void);

/* devcheck.c: every --vdev given to the EAL was probed; else -1 and err
 * names the first that was not. */
int tep_vdevs_check(char *err, size_t errlen);

/* vrfhost.c: a kernel-facing port per VRF, in a namespace of its own, so
 * that host tasks can live in the VRF (tepctl vrf exec). Control thread. */
int tep_vrfhost_init(bool enable, char *err, size_t errlen);
bool tep_vrfhost_enabled(void);
int tep_vrfhost_create(uint16_t vrf, char *err, size_t errlen);
/* -H IFNAME: the default VRF's host side, in tepd's own namespace */
int tep_vrfhost_create_default(const char *ifname, char *err, size_t errlen);
void tep_vrfhost_destroy(uint16_t vrf);
void tep_vrfhost_port_restarted(uint16_t vrf);
void tep_vrfhost_fini(void);
void tep_vrfhost_sync_addrs(uint16_t vrf);
const char *tep_vrfhost_netns(uint16_t vrf);
int tep_vrfhost_netns_fd(uint16_t vrf);
/* VRF whose namespace is (dev, ino), or -1. */
int tep_vrfhost_vrf_of(uint64_t dev, uint64_t ino);
/* Tasks (thread-group ids) whose network namespace is the VRF's: how many
 * there are; the first max go to pids. */
int tep_vrfhost_pids(uint16_t vrf, int *pids, int max);
/* The VRF whose host namespace held a route netlink socket bound to
 * `portid` (zebra's netns VRF backend: nlmsg_pid of its FPM messages)
 * when tep_vrfhost_nlports_refresh() last looked: -1 in tepd's own
 * namespace only (zebra's default VRF), -2 in several VRFs', -3 nowhere.
 * The lookup is a search in memory; the refresh reads every VRF
 * namespace's netlink sockets. */
int tep_vrfhost_vrf_of_nlport(uint32_t portid);
void tep_vrfhost_nlports_refresh(void);
/* The VNI of the VXLAN device `ifindex` in the VRF's host namespace: 0,
 * or -errno (not a VXLAN device: -EINVAL). */
int tep_vrfhost_vxlan_vni(uint16_t vrf, int ifindex, uint32_t *vni);

/* Control thread: send a frame out of a port (via worker 0's TX), or into
 * a tunnel (an Ethernet frame; IP-carrying tunnels take what follows its
 * 14 bytes). */
void tep_ctl_send(uint16_t port, struct rte_mbuf *m);
void tep_ctl_send_tunnel(uint32_t tunnel, struct rte_mbuf *m);

static inline void
tep_underlay_changed(void)
{
	__atomic_add_fetch(&tep.underlay_gen, 1, __ATOMIC_RELEASE);
}

/* neigh.c: control thread only */
int tep_neigh_init(char *err, size_t errlen);
int tep_neigh_set(uint16_t port, int family, const uint8_t *ip,
		  const struct rte_ether_addr *mac, bool is_static);
int tep_neigh_del(uint16_t port, int family, const uint8_t *ip);
void tep_neigh_flush_port(uint16_t port);
void tep_punt_drain(void);
void tep_neigh_timer(void);
bool tep_addr_is_ours(uint16_t port, int family, const uint8_t *ip);

/* Worker-side neighbour lookup: MAC as 48-bit value, 0 if unresolved. */
static inline uint64_t
tep_neigh_mac(uint16_t port, int family, const uint8_t *ip)
{
	struct tep_neigh_key k;
	void *data;

	memset(&k, 0, sizeof(k));
	k.port = port;
	k.family = (uint8_t)family;
	memcpy(k.ip, ip, family == 4 ? 4 : 16);
	if (rte_hash_lookup_data(tep.neigh_hash, &k, &data) < 0)
		return 0;
	return __atomic_load_n(&tep.neigh[(uintptr_t)data].mac,
			       __ATOMIC_ACQUIRE);
}

/* adj.c: control thread. tep_adj_nh_init is the RIB's conf.nh_init. */
void tep_adj_nh_init(struct tep_rib *r, uint32_t idx, void *arg);
/* The neighbour (port, family, ip) now has mac (0: gone or unresolved). */
void tep_adj_neigh_changed(uint16_t port, int family, const uint8_t *ip,
			   uint64_t mac);

/* Worker side: the MAC of next hop idx's gateway, 0 if unresolved. */
static inline uint64_t
tep_adj_mac(uint32_t idx)
{
	return __atomic_load_n(&tep.rib.nh_adj[idx], __ATOMIC_ACQUIRE);
}

/* tunnel.c; making and deleting tunnels: tunnel.h */
int tep_tunnels_init(char *err, size_t errlen);
int tep_tunnel_find(const char *name);

/* cmds.c */
struct tep_ctl_table;
struct tep_ctl_table *tep_cmds_table(void);

/* stats.c */
/* gso.c: segment a TCP super-packet into out[] (fresh mbufs from mp, each
 * with its checksum pending); number of segments, or -1 with *why set (m
 * is left to the caller either way). */
int tep_gso_segment(struct rte_mempool *mp, struct rte_mbuf *m,
		    struct rte_mbuf **out, uint16_t max, enum tep_reason *why);
#define TEP_GSO_SEGS_MAX	256

/* metrics.c: GET /metrics over HTTP (tepd -M). The snapshot is rendered
 * on the control thread: call tep_metrics_poll() from its loop. */
struct tep_ctl_server;
int tep_metrics_start(const char *listen, struct tep_ctl_server *ctl,
		      char *err, size_t errlen);
void tep_metrics_poll(void);
void tep_metrics_stop(void);
/* "[ADDR]:PORT", "ADDR:PORT", ":PORT" or "PORT" (address 127.0.0.1 if
 * none); 0, or -1 if malformed. */
struct sockaddr_storage;
int tep_parse_listen(const char *arg, struct sockaddr_storage *ss, bool *v6);

/* fpm.c: zebra's FPM stream (tepd -P [ADDR:]PORT; docs/evpn.md). Control
 * thread only: it installs routes, so it runs where the RIB's writer is. */
struct tep_out;
int tep_fpm_start(const char *listen, char *err, size_t errlen);
void tep_fpm_poll(void);
void tep_fpm_stop(void);
bool tep_fpm_enabled(void);
/* tepctl: fpm show, fpm set, and the "fpm" object of stats */
void tep_fpm_show(struct tep_out *o);
void tep_fpm_stats(struct tep_out *o);
int tep_fpm_set(const char *key, const char *value, char *err,
		size_t errlen);
/* EVPN: evpn local IP, evpn vrf NAME vni N, evpn show */
int tep_fpm_evpn_local(const char *ip, char *err, size_t errlen);
int tep_fpm_evpn_vrf(uint16_t vrf, uint32_t vni,
		     const struct rte_ether_addr *rmac, char *err, size_t errlen);
void tep_fpm_evpn_show(struct tep_out *o);
/* /metrics: every counter (parse errors by their tep_fpm_err_str name,
 * err set), and whether zebra is connected. */
typedef void (*tep_fpm_counter_cb)(void *arg, const char *name, bool err,
				   uint64_t value);
void tep_fpm_each_counter(tep_fpm_counter_cb cb, void *arg);
bool tep_fpm_connected(void);
/* A tunnel was deleted (its id may be reused by any tunnel). */
void tep_fpm_tunnel_gone(uint32_t id);

/* stats.c. Since start, monotonic (/metrics, telemetry): */
void tep_cnt_raw_port(uint16_t port, struct tep_cnt_port *out);
void tep_cnt_raw_vrf(uint16_t vrf, struct tep_cnt_vrf *out);
void tep_cnt_raw_tun(uint32_t id, struct tep_cnt_tun *out);
/* Since the last "stats clear" (tepctl); control thread only: */
void tep_cnt_sum_port(uint16_t port, struct tep_cnt_port *out);
void tep_cnt_sum_vrf(uint16_t vrf, struct tep_cnt_vrf *out);
void tep_cnt_sum_tun(uint32_t id, struct tep_cnt_tun *out);
void tep_cnt_sum_stages(uint64_t *cycles, uint64_t *pkts);
void raw_stages(uint64_t *cycles, uint64_t *pkts);
void tep_cnt_clear(void);
void tep_cnt_tun_reset(uint32_t id);
const char *tep_stage_name(enum tep_stage s);
int tep_telemetry_init(void);

#endif /* TEPD_H */
