/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_VRFHOST_H
#define TEPD_VRFHOST_H

/*
 * The VRFs' host sides (vrfhost.c): a kernel-facing port per VRF, in a
 * namespace of its own, so that host tasks can live in the VRF (tepctl vrf
 * exec), and the default VRF's in tepd's namespace (-H). The control
 * thread makes and removes them; workers read tep_vrf_host_port[].
 */

#include <stdbool.h>
#include <stdint.h>

#include "tep_fib.h"
#include "tepd.h"

/* Per VRF: its host port, or TEP_NO_PORT. Workers send packets for the
 * VRF's own addresses there. */
extern uint16_t tep_vrf_host_port[TEP_VRF_MAX];

/* vrfhost.c: a kernel-facing port per VRF, in a namespace of its own, so
 * that host tasks can live in the VRF (tepctl vrf exec). Control thread. */
int tep_vrfhost_init(bool enable, char *err, size_t errlen);
bool tep_vrfhost_enabled(void);
int tep_vrfhost_create(uint16_t vrf, char *err, size_t errlen);
/* -H IFNAME: the default VRF's host side, in tepd's own namespace */
int tep_vrfhost_create_default(const char *ifname, char *err, size_t errlen);
void tep_vrfhost_destroy(uint16_t vrf);
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

#endif /* TEPD_VRFHOST_H */
