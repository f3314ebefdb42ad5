/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Ports: every DPDK port EAL brought up is configured here with one RX and
 * one TX queue per worker, the RX checksum offloads it has, and the TX
 * offloads drivers/ asked for. A restart keeps everything tepd knows about
 * the port (role, VRF, addresses, routes, neighbours are tepd's, not the
 * PMD's), unlike a Linux link cycle that drops IPv6 addresses.
 */

#define _GNU_SOURCE		/* setns */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>

#include "tepd.h"
#include "neigh.h"
#include "port.h"
#include "punt.h"

struct tep_port tep_ports[TEP_PORTS_MAX];
uint16_t tep_nb_ports;

static tep_host_port_restarted_cb host_restarted;

#define RX_DESC	TEP_RX_DESC
#define TX_DESC	TEP_TX_DESC
#define HOST_DESC	TEP_HOST_DESC

/*
 * Jumbo frames. A port takes a frame longer than one 2 KiB buffer in one
 * of two ways: its PMD scatters it into a chain (RX_OFFLOAD_SCATTER: real
 * NICs, net_tap), or it copies it into one large buffer (net_af_packet,
 * which cannot scatter: each of its ring frames, framesz bytes, goes into
 * one mbuf, and its RX queue refuses a pool whose buffers are smaller).
 * The second kind gets its RX buffers from tep.jumbo_pool.
 *
 * net_af_packet claims a 1518-byte maximum frame yet carries what its
 * framesz allows: there tepd uses framesz. net_tap claims 1522 bytes too;
 * it receives longer frames (scattered), but in DPDK 22.11 its TX drops
 * any frame longer than the ethdev MTU + 22, and ethdev refuses an MTU
 * whose frame exceeds the claimed 1522: so 1504 is its real limit (as
 * for any PMD, max_rx_pktlen less the Ethernet overhead). The limit and
 * where it comes from are shown (mtu_limit, `offload show`).
 */
#define AFP_FRAMESZ_DEFAULT	2048	/* the PMD's default framesz */
#define AFP_RX_OVERHEAD		32	/* TPACKET2 header in a ring frame */
#define AFP_MTU_OVERHEAD	52	/* the PMD's own mtu_set rule */
#define ETH_OVERHEAD		(RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN + \
				 RTE_ETHER_CRC_LEN)	/* frame - MTU, at most */

static bool
is_driver(const struct rte_eth_dev_info *info, const char *name)
{
	return info->driver_name != NULL &&
	       strcmp(info->driver_name, name) == 0;
}

/* net_af_packet's framesz= device argument, or its default. */
static uint32_t
afp_framesz(const struct rte_eth_dev_info *info)
{
	const struct rte_devargs *da = info->device != NULL ?
				       rte_dev_devargs(info->device) : NULL;
	const char *a = da != NULL && da->args != NULL ?
			strstr(da->args, "framesz=") : NULL;
	unsigned long v = a != NULL ? strtoul(a + 8, NULL, 0) : 0;

	return v >= 256 && v <= 1u << 20 ? (uint32_t)v : AFP_FRAMESZ_DEFAULT;
}

/* Bytes one RX buffer must hold on a port that cannot scatter: 0 when the
 * standard buffers do (or the PMD does not care). */
static uint32_t
rx_buf_need(const struct rte_eth_dev_info *info)
{
	if (is_driver(info, "net_af_packet"))
		return afp_framesz(info) - AFP_RX_OVERHEAD;
	return 0;
}

static uint32_t
pool_buf(const struct rte_mempool *mp)
{
	return rte_pktmbuf_data_room_size((struct rte_mempool *)(uintptr_t)mp) -
	       RTE_PKTMBUF_HEADROOM;
}

/* Create tep.jumbo_pool if a port that cannot scatter needs buffers
 * larger than tep.pool's: enough for those ports' RX rings, the packets
 * in flight and the per-lcore caches. */
static int
jumbo_pool_create(char *err, size_t errlen)
{
	struct rte_eth_dev_info info;
	uint32_t need = 0, rxq = 0, room;
	uint64_t n;
	uint16_t pid;

	RTE_ETH_FOREACH_DEV(pid) {
		uint32_t b;

		if (rte_eth_dev_info_get(pid, &info) != 0 ||
		    (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER))
			continue;
		b = rx_buf_need(&info);
		if (b <= pool_buf(tep.pool))
			continue;
		need = RTE_MAX(need, b);
		rxq += RTE_MIN(info.max_rx_queues, tep.nb_workers);
	}
	if (need == 0)
		return 0;
	n = (uint64_t)rxq * TEP_RX_DESC +
	    (uint64_t)tep.nb_workers * TEP_BURST * 8 +
	    (uint64_t)rte_lcore_count() * 64 * 3 / 2;
	n += n / 4;
	n = rte_align64pow2(n) - 1;
	room = RTE_ALIGN_CEIL(need, 64) + RTE_PKTMBUF_HEADROOM;
	if (room > UINT16_MAX) {
		snprintf(err, errlen, "jumbo mbuf pool: %u-byte buffers: at "
			 "most %u (lower net_af_packet framesz)", room,
			 UINT16_MAX);
		return -1;
	}
	tep.jumbo_pool = rte_pktmbuf_pool_create("tep_jumbo", (uint32_t)n, 64,
		RTE_ALIGN(sizeof(struct tep_mbuf_priv), RTE_MBUF_PRIV_ALIGN),
		(uint16_t)room, (int)rte_socket_id());
	if (tep.jumbo_pool == NULL) {
		snprintf(err, errlen, "jumbo mbuf pool: %" PRIu64 " mbufs of "
			 "%u bytes (%" PRIu64 " MiB) for ports that cannot "
			 "scatter: %s (give the EAL more memory: -m, or lower "
			 "net_af_packet framesz)", n, room,
			 n * (room + 192) >> 20, rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

/* How the port takes long frames, and the largest MTU it can carry. */
static void
port_jumbo_caps(struct tep_port *p, const struct rte_eth_dev_info *info,
		struct rte_mempool **rx_pool)
{
	uint32_t max;

	*rx_pool = tep.pool;
	p->rx_scatter = (info->rx_offload_capa &
			 RTE_ETH_RX_OFFLOAD_SCATTER) != 0;
	if (!p->rx_scatter && tep.jumbo_pool != NULL &&
	    rx_buf_need(info) > pool_buf(tep.pool))
		*rx_pool = tep.jumbo_pool;
	p->rx_buf = pool_buf(*rx_pool);

	if (is_driver(info, "net_af_packet")) {
		uint32_t fs = afp_framesz(info);

		max = fs - AFP_MTU_OVERHEAD;
		snprintf(p->mtu_limit, sizeof(p->mtu_limit),
			 "net_af_packet framesz=%u (mtu <= framesz - %u)", fs,
			 AFP_MTU_OVERHEAD);
	} else {
		/* What ethdev lets rte_eth_dev_set_mtu() have. */
		uint32_t oh = info->max_mtu != UINT16_MAX &&
			      info->max_rx_pktlen > info->max_mtu ?
			      info->max_rx_pktlen - info->max_mtu :
			      RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;

		max = RTE_MIN((uint32_t)info->max_mtu,
			      info->max_rx_pktlen > oh ?
			      info->max_rx_pktlen - oh : RTE_ETHER_MTU);
		/* A PMD that cannot scatter either chains on its own
		 * (net_pcap) or is told the frame size at configure time
		 * (a NIC: its PMD refuses what its buffers cannot take);
		 * -B gives bigger buffers where that is needed. */
		snprintf(p->mtu_limit, sizeof(p->mtu_limit),
			 "%s: max frame %u bytes, %s %u-byte buffers",
			 info->driver_name, info->max_rx_pktlen,
			 p->rx_scatter ? "received scattered into" :
			 "received into", p->rx_buf);
	}
	p->max_mtu = (uint16_t)RTE_MIN(max, (uint32_t)UINT16_MAX);
}

static int
port_enter_netns(const struct tep_port *p, char *err, size_t errlen);
static void
port_leave_netns(const struct tep_port *p);

/*
 * Set a port's MTU: the largest IP packet it sends (and, where the PMD
 * enforces one, receives). Refused above what the port can carry, with
 * the reason named.
 */
int
tep_port_set_mtu(struct tep_port *p, uint16_t mtu, char *err, size_t errlen)
{
	int ret = 0;

	if (mtu > p->max_mtu) {
		snprintf(err, errlen, "port %s takes mtu at most %u: %s",
			 p->name, p->max_mtu, p->mtu_limit);
		return -EINVAL;
	}
	if (strcmp(p->driver, "net_af_packet") == 0) {
		/* What it carries is the kernel interface's MTU and the
		 * vdev's framesz: tepd's MTU is the one that counts. */
	} else {
		/* net_tap sets its kernel side's MTU here too: by name, in
		 * the namespace of the thread, so a VRF host port's own. */
		if (port_enter_netns(p, err, errlen) != 0)
			return -EIO;
		ret = rte_eth_dev_set_mtu(p->id, mtu);
		port_leave_netns(p);
		if (ret != 0) {
			snprintf(err, errlen, "port %s refuses mtu %u: %s",
				 p->name, mtu, strerror(-ret));
			return ret;
		}
	}
	__atomic_store_n(&p->mtu, mtu, __ATOMIC_RELEASE);
	return 0;
}

int
tep_port_find(const char *name)
{
	uint16_t i;

	for (i = 0; i < tep_nb_ports; i++)
		if (tep_ports[i].present && strcmp(tep_ports[i].name, name) == 0)
			return i;
	return -1;
}

/* A PCI port's "vendor:device subvendor:subdevice" from sysfs, for the
 * few devices drivers/tep_txprep.c knows apart from their driver; NULL
 * for any other port (a vdev has no such directory). */
static const char *
port_pci_id(const char *name, char *buf, size_t len)
{
	static const char *const f[4] = { "vendor", "device",
					  "subsystem_vendor",
					  "subsystem_device" };
	unsigned int v[4], i;
	char path[128];
	FILE *fp;
	int n;

	if (strchr(name, '/') != NULL)
		return NULL;
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s",
			 name, f[i]);
		fp = fopen(path, "r");
		if (fp == NULL)
			return NULL;
		n = fscanf(fp, "%x", &v[i]);
		fclose(fp);
		if (n != 1)
			return NULL;
	}
	snprintf(buf, len, "%04x:%04x %04x:%04x", v[0], v[1], v[2], v[3]);
	return buf;
}

static int
port_configure_here(struct tep_port *p, char *err, size_t errlen)
{
	char pci_id[32];
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_mempool *rx_pool;
	uint64_t want_tx = 0, rss_hf;
	uint16_t q, mtu;
	int ret;

	ret = rte_eth_dev_info_get(p->id, &info);
	if (ret != 0) {
		snprintf(err, errlen, "port %s: info: %s", p->name,
			 strerror(-ret));
		return -1;
	}
	snprintf(p->driver, sizeof(p->driver), "%s", info.driver_name);
	tep_txcaps_init_dev(&p->txcaps, info.driver_name,
			    port_pci_id(p->name, pci_id, sizeof(pci_id)),
			    info.tx_offload_capa, p->tx_disabled, &want_tx);

	if (info.max_tx_queues < tep.nb_workers) {
		snprintf(err, errlen,
			 "port %s has %u tx queues, tepd needs one per worker "
			 "(%u): use fewer worker lcores or give the vdev more "
			 "queues (net_af_packet: qpairs=N)", p->name,
			 info.max_tx_queues, tep.nb_workers);
		return -1;
	}
	p->nb_txq = (uint16_t)tep.nb_workers;
	p->nb_rxq = (uint16_t)RTE_MIN(info.max_rx_queues, tep.nb_workers);

	memset(&conf, 0, sizeof(conf));
	/* RSS spreads flows over the workers' queues, and where the NIC
	 * can hand its hash to the mbuf, that hash is the flow's source port
	 * entropy on encapsulation (one CRC32 pass over the headers less per
	 * packet): RSS on even for one queue then. */
	rss_hf = info.flow_type_rss_offloads &
		 (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP);
	p->rx_rss_hash = rss_hf != 0 &&
			 (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_RSS_HASH);
	if (rss_hf != 0 && (p->nb_rxq > 1 || p->rx_rss_hash)) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = rss_hf;
	}
	conf.rxmode.offloads = info.rx_offload_capa &
			       (RTE_ETH_RX_OFFLOAD_IPV4_CKSUM |
				RTE_ETH_RX_OFFLOAD_UDP_CKSUM |
				RTE_ETH_RX_OFFLOAD_TCP_CKSUM |
				RTE_ETH_RX_OFFLOAD_SCATTER);
	/* ethdev refuses the hash without RSS mode */
	if (p->rx_rss_hash)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_RSS_HASH;
	port_jumbo_caps(p, &info, &rx_pool);
	/* The PMD's receive limit follows the MTU where it has one (a NIC
	 * drops longer frames); where tepd knows better than the PMD's
	 * numbers (net_tap, net_af_packet) the PMD keeps its default. */
	if (p->mtu != 0 && p->mtu <= info.max_mtu &&
	    (uint32_t)p->mtu + ETH_OVERHEAD <= info.max_rx_pktlen)
		conf.rxmode.mtu = p->mtu;
	conf.txmode.offloads = (want_tx | RTE_ETH_TX_OFFLOAD_MULTI_SEGS) &
			       info.tx_offload_capa;
	p->tx_offloads = conf.txmode.offloads;

	ret = rte_eth_dev_configure(p->id, p->nb_rxq, p->nb_txq, &conf);
	if (ret != 0 && p->rx_rss_hash && p->nb_rxq == 1) {
		/* RSS was on for its hash alone: a PMD that will not do it
		 * with one queue still runs, and tepd hashes the flows. */
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_NONE;
		conf.rx_adv_conf.rss_conf.rss_hf = 0;
		conf.rxmode.offloads &= ~RTE_ETH_RX_OFFLOAD_RSS_HASH;
		p->rx_rss_hash = false;
		ret = rte_eth_dev_configure(p->id, p->nb_rxq, p->nb_txq, &conf);
	}
	if (ret != 0) {
		snprintf(err, errlen, "port %s: configure: %s", p->name,
			 strerror(-ret));
		return -1;
	}
	for (q = 0; q < p->nb_rxq; q++) {
		ret = rte_eth_rx_queue_setup(p->id, q,
					     p->vrf_host ? HOST_DESC : RX_DESC,
					     rte_eth_dev_socket_id(p->id),
					     NULL, rx_pool);
		if (ret != 0) {
			snprintf(err, errlen, "port %s: rx queue %u: %s",
				 p->name, q, strerror(-ret));
			return -1;
		}
	}
	for (q = 0; q < p->nb_txq; q++) {
		struct rte_eth_txconf txc = info.default_txconf;

		txc.offloads = conf.txmode.offloads;
		ret = rte_eth_tx_queue_setup(p->id, q,
					     p->vrf_host ? HOST_DESC : TX_DESC,
					     rte_eth_dev_socket_id(p->id),
					     &txc);
		if (ret != 0) {
			snprintf(err, errlen, "port %s: tx queue %u: %s",
				 p->name, q, strerror(-ret));
			return -1;
		}
	}
	/* Keep tepd's MTU across restarts (tep_port_set_mtu). */
	if (p->mtu == 0 && rte_eth_dev_get_mtu(p->id, &mtu) == 0)
		p->mtu = RTE_MIN(mtu, p->max_mtu);
	else if (p->mtu != 0 && strcmp(p->driver, "net_af_packet") != 0)
		rte_eth_dev_set_mtu(p->id, p->mtu);
	rte_eth_macaddr_get(p->id, &p->mac);
	p->mac64 = 0;
	memcpy(&p->mac64, p->mac.addr_bytes, 6);
	/* A router takes frames for its own MAC, broadcasts and the
	 * multicast groups it uses (IPv6 all-nodes, solicited-node), and no
	 * others: a shared segment carries frames for other hosts. No PMD
	 * tepd drives needs promiscuous mode for that (net_af_packet and
	 * net_tap use the MAC of their kernel side, real NICs filter on
	 * the port's MAC), so it is turned off. Solicited-node groups change
	 * with every address and not every PMD takes a multicast list:
	 * all-multicast lets them in, and the worker keeps only the groups
	 * above (drop_not_for_us counts the rest). */
	if (rte_eth_promiscuous_get(p->id) == 1)
		rte_eth_promiscuous_disable(p->id);
	rte_eth_allmulticast_enable(p->id);
	ret = rte_eth_dev_start(p->id);
	if (ret != 0) {
		snprintf(err, errlen, "port %s: start: %s", p->name,
			 strerror(-ret));
		return -1;
	}
	return 0;
}

/*
 * A VRF's host port (vrfhost.c) is a net_tap whose kernel side lives in
 * the VRF's network namespace. net_tap opens its queues' tun fds by
 * interface name, and names resolve in the calling thread's namespace:
 * everything that (re)creates queues or closes the device runs there.
 */
static int
port_enter_netns(const struct tep_port *p, char *err, size_t errlen)
{
	if (!p->vrf_host)
		return 0;
	if (setns(p->netns_fd, CLONE_NEWNET) != 0) {
		snprintf(err, errlen, "port %s: setns: %s", p->name,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* Back to the namespace tepd started in: the control thread cannot go on
 * anywhere else (its sockets and the next port would land there). */
void
tep_netns_home(void)
{
	if (setns(tep.host_netns_fd, CLONE_NEWNET) != 0)
		rte_panic("setns back to tepd's namespace: %s\n",
			  strerror(errno));
}

static void
port_leave_netns(const struct tep_port *p)
{
	if (p->vrf_host)
		tep_netns_home();
}

static int
port_configure(struct tep_port *p, char *err, size_t errlen)
{
	int ret;

	if (port_enter_netns(p, err, errlen) != 0)
		return -1;
	ret = port_configure_here(p, err, errlen);
	port_leave_netns(p);
	return ret;
}

static void
port_fill(struct tep_port *p, uint16_t pid)
{
	memset(p, 0, sizeof(*p));
	p->present = true;
	p->id = pid;
	p->up = 1;
	p->role = TEP_ROLE_NONE;
	p->vrf = TEP_VRF_DEFAULT;
	rte_eth_dev_get_name_by_port(pid, p->name);
}

/* Make a port visible to workers: its queues first, then the count. */
static void
port_publish(struct tep_port *p)
{
	__atomic_store_n(&p->polling, 1, __ATOMIC_RELEASE);
	if (p->id + 1 > tep_nb_ports)
		__atomic_store_n(&tep_nb_ports, (uint16_t)(p->id + 1),
				 __ATOMIC_RELEASE);
}

/*
 * Hot-plug a VRF's host port: probe the vdev inside netns_fd (net_tap
 * creates its interface where the probing thread is), configure and start
 * it there, and publish it. On error nothing is left behind.
 */
int
tep_port_attach_host(const char *devargs, const char *name, int netns_fd,
		     uint16_t vrf, uint16_t mtu, uint16_t *pid, char *err,
		     size_t errlen)
{
	struct tep_port *p;
	uint16_t id;
	int ret;

	if (setns(netns_fd, CLONE_NEWNET) != 0) {
		snprintf(err, errlen, "setns: %s", strerror(errno));
		return -1;
	}
	ret = rte_dev_probe(devargs);
	if (ret == 0 && rte_eth_dev_get_port_by_name(name, &id) != 0)
		ret = -ENODEV;
	tep_netns_home();
	if (ret != 0) {
		snprintf(err, errlen, "%s: probe: %s", devargs,
			 strerror(-ret));
		return -1;
	}
	if (id >= TEP_PORTS_MAX) {
		snprintf(err, errlen, "%s: port id %u: too many ports", name,
			 id);
		goto undo;
	}
	p = &tep_ports[id];
	port_fill(p, id);
	p->vrf_host = true;
	p->netns_fd = netns_fd;
	p->role = TEP_ROLE_ACCESS;
	p->vrf = vrf;
	p->mtu = mtu;
	if (port_configure(p, err, errlen) != 0) {
		p->present = false;
		goto undo;
	}
	port_publish(p);
	*pid = id;
	return 0;
undo:
	tep_port_detach_host(id);
	return -1;
}

/* Unpublish, wait for the workers to let go, stop, close, unplug. */
void
tep_port_detach_host(uint16_t id)
{
	struct tep_port *p = id < TEP_PORTS_MAX ? &tep_ports[id] : NULL;
	struct rte_eth_dev_info info;
	int netns_fd = p != NULL && p->vrf_host ? p->netns_fd : -1;

	if (p != NULL) {
		__atomic_store_n(&p->polling, 0, __ATOMIC_RELEASE);
		rte_rcu_qsbr_synchronize(tep.rcu, RTE_QSBR_THRID_INVALID);
		tep_neigh_flush_port(id);
	}
	if (netns_fd >= 0 && setns(netns_fd, CLONE_NEWNET) != 0) {
		RTE_LOG(ERR, USER1, "port %u: setns: %s\n", id,
			strerror(errno));
		netns_fd = -1;
	}
	rte_eth_dev_stop(id);
	if (rte_eth_dev_info_get(id, &info) == 0 && info.device != NULL) {
		rte_eth_dev_close(id);
		rte_dev_remove(info.device);
	}
	if (netns_fd >= 0)
		tep_netns_home();
	if (p != NULL)
		p->present = false;
}

int
tep_ports_init(char *err, size_t errlen)
{
	uint16_t pid;

	if (jumbo_pool_create(err, errlen) != 0)
		return -1;
	RTE_ETH_FOREACH_DEV(pid) {
		struct tep_port *p;

		if (pid >= TEP_PORTS_MAX)
			break;
		p = &tep_ports[pid];
		port_fill(p, pid);
		if (port_configure(p, err, errlen) != 0)
			return -1;
		port_publish(p);
	}
	if (tep_nb_ports == 0) {
		snprintf(err, errlen, "no DPDK ports: give EAL a device "
			 "(-a PCI or --vdev net_tap0 ...)");
		return -1;
	}
	return 0;
}

/*
 * Stop, reconfigure (picking up offload switches) and start a port. Workers
 * stop using its queues first (polling = 0, then a grace period); frames
 * they route to it meanwhile are dropped as port_down.
 */
void
tep_port_on_host_restart(tep_host_port_restarted_cb cb)
{
	host_restarted = cb;
}

int
tep_port_restart(uint16_t id, char *err, size_t errlen)
{
	struct tep_port *p = &tep_ports[id];
	int ret;

	/* Workers must be out of the queues before they are reconfigured. */
	__atomic_store_n(&p->polling, 0, __ATOMIC_RELEASE);
	rte_rcu_qsbr_synchronize(tep.rcu, RTE_QSBR_THRID_INVALID);
	if (port_enter_netns(p, err, errlen) != 0)
		return -1;
	ret = rte_eth_dev_stop(p->id);
	port_leave_netns(p);
	if (ret != 0) {
		snprintf(err, errlen, "port %s: stop: %s", p->name,
			 strerror(-ret));
		return -1;
	}
	if (port_configure(p, err, errlen) != 0)
		return -1;
	tep_underlay_changed();
	__atomic_store_n(&p->polling, 1, __ATOMIC_RELEASE);
	if (p->vrf_host && host_restarted != NULL)
		host_restarted(p->vrf);
	return 0;
}

void
tep_ports_stop(void)
{
	uint16_t i;

	for (i = 0; i < tep_nb_ports; i++) {
		if (!tep_ports[i].present)
			continue;
		if (tep_ports[i].vrf_host) {
			tep_port_detach_host(i);
			continue;
		}
		rte_eth_dev_stop(i);
		rte_eth_dev_close(i);
	}
}
