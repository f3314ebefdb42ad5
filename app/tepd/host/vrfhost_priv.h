/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_VRFHOST_PRIV_H
#define TEPD_VRFHOST_PRIV_H

/*
 * Inside app/tepd/host only: the VRFs' host sides (vrfhost.c), the
 * rtnetlink they are set up with (rtnl.c) and the snapshot of zebra's
 * netlink port ids (nlport.c). Control thread only.
 */

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>

#include "tepd.h"
#include "port.h"

#define NETNS_DIR	"/run/netns"
#define HOST_MTU	1400	/* fits any tunnel over an IPv6 underlay of 1500 */
#define UNDERLAY_HOST_MTU 1500	/* the default VRF's: not tunnelled */
#define HOST_ADDRS_MAX	64

/*
 * A VRF's namespace routes by a table of tepd's, looked up before main
 * (rule VRF_HOST_RULE_PREF): only the default route to tepd is in it, so
 * whatever else lands in main does not steer the VRF's tasks past tepd.
 * zebra puts its EVPN type-5 routes there (via the L3VNI bridge): the
 * kernel's own VXLAN device would then encapsulate a `vrf exec` task's
 * packets and send them out of the default VRF, not through the VRF's
 * table in tepd.
 */
#define VRF_HOST_TABLE		0x7465	/* "te" */
#define VRF_HOST_RULE_PREF	1000

struct vrfhost {
	bool on;
	bool own_ns;		/* in tepd's namespace: the default VRF's (-H) */
	uint16_t port;
	int netns_fd;
	int nl_fd;		/* rtnetlink, opened inside the namespace */
	uint32_t nl_seq;
	int ifindex;		/* kernel side, in the namespace */
	uint64_t dev, ino;	/* the namespace's identity */
	char path[128];
	char ifname[IF_NAMESIZE];
	struct tep_addr addr[HOST_ADDRS_MAX];	/* installed on the kernel side */
	int naddr;
};


/* vrfhost.c: per VRF id; whether -N is on; the namespaces' name prefix */
extern struct vrfhost vh_hosts[TEP_VRF_MAX];
extern bool vh_enabled;
extern char vh_prefix[64];
/* the address a VRF's host side routes to, for ARP and ND */
extern const uint8_t vh_gw4[4], vh_gw6[16];

/* rtnl.c */
int nl_link_up(struct vrfhost *h, int ifindex);
int nl_addr(struct vrfhost *h, const struct tep_addr *a, bool add);
int nl_default_routes(struct vrfhost *h);

#endif /* TEPD_VRFHOST_PRIV_H */
