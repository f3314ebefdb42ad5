/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

#define _GNU_SOURCE		/* setns, unshare */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/fib_rules.h>
#include <linux/netlink.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include <rte_eal.h>
#include <rte_ethdev.h>

#include "tepd.h"

#include "vrfhost_priv.h"
#include "port.h"
#include "vrfhost.h"

/*
 * Where zebra's netlink port ids are: one snapshot of the route netlink
 * sockets of every VRF's host namespace and of tepd's own, taken when
 * fpm.c asks (at most once per read of the FPM stream) and searched as
 * often as it likes. A port id that is in no snapshot costs a binary
 * search, never a walk of the namespaces: a stream of made-up ids cannot
 * hold the control thread (docs/evpn.md).
 */
#define NLPORT_SNAP_MAX	65536	/* sockets kept from one snapshot */
#define NLPORT_OWN_NS	(-1)	/* in tepd's own namespace */

struct nlport_ent {
	uint32_t portid;
	int16_t vrf;		/* or NLPORT_OWN_NS */
};

static struct {
	struct nlport_ent *v;
	size_t n, cap;
	bool truncated;
	/* each VRF's namespace as it was read: a VRF deleted and made
	 * again since has another namespace, and its entries are void */
	uint64_t dev[TEP_VRF_MAX], ino[TEP_VRF_MAX];
	bool read[TEP_VRF_MAX];
} nlsnap;

static void
nlsnap_add(uint32_t portid, int vrf)
{
	struct nlport_ent *v;
	size_t cap;

	if (nlsnap.n == nlsnap.cap) {
		if (nlsnap.cap >= NLPORT_SNAP_MAX) {
			nlsnap.truncated = true;
			return;
		}
		cap = nlsnap.cap ? nlsnap.cap * 2 : 256;
		v = realloc(nlsnap.v, cap * sizeof(*v));
		if (v == NULL) {
			nlsnap.truncated = true;
			return;
		}
		nlsnap.v = v;
		nlsnap.cap = cap;
	}
	nlsnap.v[nlsnap.n].portid = portid;
	nlsnap.v[nlsnap.n].vrf = (int16_t)vrf;
	nlsnap.n++;
}

/*
 * Add the route netlink sockets of a namespace (-1: tepd's own) to the
 * snapshot, but tepd's own `own_fd`. /proc/net/netlink lists the sockets
 * of the namespace of the thread that opens it, so the file is opened
 * from inside and read from home.
 */
static void
nlsnap_read_netns(int netns_fd, int own_fd, int vrf)
{
	struct sockaddr_nl own = { 0 };
	socklen_t olen = sizeof(own);
	char line[256];
	FILE *f = NULL;
	int fd = -1;

	if (own_fd >= 0)
		getsockname(own_fd, (struct sockaddr *)&own, &olen);
	if (netns_fd < 0 || setns(netns_fd, CLONE_NEWNET) == 0)
		fd = open("/proc/thread-self/net/netlink",
			  O_RDONLY | O_CLOEXEC);
	if (netns_fd >= 0)
		tep_netns_home();
	if (fd >= 0)
		f = fdopen(fd, "r");
	if (f == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	/* sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode */
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long long sk;
		unsigned int eth, pid;

		if (sscanf(line, "%llx %u %u", &sk, &eth, &pid) == 3 &&
		    eth == NETLINK_ROUTE && pid != 0 && pid != own.nl_pid)
			nlsnap_add(pid, vrf);
	}
	fclose(f);
}

static int
nlport_cmp(const void *a, const void *b)
{
	const struct nlport_ent *x = a, *y = b;

	if (x->portid != y->portid)
		return x->portid < y->portid ? -1 : 1;
	return (x->vrf > y->vrf) - (x->vrf < y->vrf);
}

void
tep_vrfhost_nlports_refresh(void)
{
	bool truncated = nlsnap.truncated;
	int v;

	nlsnap.n = 0;
	nlsnap.truncated = false;
	for (v = 0; v < TEP_VRF_MAX; v++) {
		nlsnap.read[v] = vh_enabled && vh_hosts[v].on && !vh_hosts[v].own_ns;
		if (!nlsnap.read[v])
			continue;
		nlsnap.dev[v] = vh_hosts[v].dev;
		nlsnap.ino[v] = vh_hosts[v].ino;
		nlsnap_read_netns(vh_hosts[v].netns_fd, vh_hosts[v].nl_fd, v);
	}
	if (vh_enabled)
		nlsnap_read_netns(-1, -1, NLPORT_OWN_NS);
	qsort(nlsnap.v, nlsnap.n, sizeof(*nlsnap.v), nlport_cmp);
	if (nlsnap.truncated && !truncated)
		fprintf(stderr, "tepd: fpm: more than %d route netlink sockets "
			"in the VRFs' namespaces: port ids beyond are not "
			"found\n", NLPORT_SNAP_MAX);
}

/* Is the snapshot's entry still about the VRF of that id? */
static bool
nlsnap_current(const struct nlport_ent *e)
{
	int v = e->vrf;

	if (v == NLPORT_OWN_NS)
		return true;
	return nlsnap.read[v] && vh_hosts[v].on && !vh_hosts[v].own_ns &&
	       vh_hosts[v].dev == nlsnap.dev[v] && vh_hosts[v].ino == nlsnap.ino[v];
}

int
tep_vrfhost_vrf_of_nlport(uint32_t portid)
{
	size_t lo = 0, hi = nlsnap.n, i;
	bool own = false;
	int vrf = -3;

	if (!vh_enabled || portid == 0)
		return -1;	/* nothing to go by: the default VRF */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (nlsnap.v[mid].portid < portid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < nlsnap.n && nlsnap.v[i].portid == portid; i++) {
		const struct nlport_ent *e = &nlsnap.v[i];

		if (!nlsnap_current(e))
			continue;
		if (e->vrf == NLPORT_OWN_NS)
			own = true;
		else if (vrf >= 0 && vrf != e->vrf)
			return -2;	/* port ids are per namespace */
		else
			vrf = e->vrf;
	}
	return vrf == -3 && own ? -1 : vrf;
}
