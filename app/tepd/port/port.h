/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_PORT_H
#define TEPD_PORT_H

/*
 * Ports (port.c): DPDK ethdevs, their role (underlay or access), VRF,
 * MTU, addresses and what their TX can offload. The control thread writes
 * them; workers read the fields marked so.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_ether.h>

#include "tep_txprep.h"
#include "tepd.h"

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

extern struct tep_port tep_ports[TEP_PORTS_MAX];
extern uint16_t tep_nb_ports;

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

/* Called after a VRF's host port restarted (its queues set up anew), with
 * the VRF: the host side registers here (host/vrfhost.c) to set up its
 * kernel side again, so that port.c need not call into it. */
typedef void (*tep_host_port_restarted_cb)(uint16_t vrf);
void tep_port_on_host_restart(tep_host_port_restarted_cb cb);

/* devcheck.c: every --vdev given to the EAL was probed; else -1 and err
 * names the first that was not. */
int tep_vdevs_check(char *err, size_t errlen);
/* The same for the PCI devices given with -a, with what to do (sysfs says
 * whether the address exists and which kernel driver holds it). */
int tep_pci_check(char *err, size_t errlen);
/* rte_eal_init() failed with rte_errno e, given EAL arguments argv
 * (up to "--"): what that means for tepd and what to do, into err. DPDK
 * 22.11 says "Permission denied" when it found no hugepages it could
 * use. */
void tep_eal_failure(int e, int argc, char **argv, char *err, size_t errlen);
/* fn(mount point, arg) for each hugetlbfs mount, in /proc/mounts order;
 * stops at the first nonzero return. */
void tep_hugetlbfs_foreach(int (*fn)(const char *mnt, void *arg), void *arg);

#endif /* TEPD_PORT_H */
