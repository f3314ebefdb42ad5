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
#include <sys/wait.h>
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
 * Host tasks in a VRF: the userspace counterpart of the l3mdev cgroup and
 * of `ip vrf exec`. With -N, every VRF but default gets a host port when
 * it is created: a net_tap whose kernel interface lives in a network
 * namespace of its own (/run/netns/PREFIX-NAME), holding the VRF's
 * addresses and a default route to tepd. `tepctl vrf exec` enters that
 * namespace, so every socket a task and its children open is in the VRF;
 * tepd routes what they send in the VRF and hands back what is addressed
 * to the VRF's addresses. Why a namespace and not a cgroup-bpf program
 * binding sockets to a device: there is no kernel device for a VRF that
 * lives in userspace, and a namespace is inherited by children and cannot
 * be left without CAP_SYS_ADMIN (docs/vrf-exec.md).
 *
 * The kernel side is a point-to-point link: its addresses are host routes
 * (/32, /128, no DAD) and its default routes go via 169.254.0.1 and fe80::1,
 * addresses tepd answers ARP and ND for on the host port only.
 *
 * The default VRF can have a host side too (-H IFNAME), so that a box whose
 * NICs belong to DPDK still speaks BGP and BFD over them: like VPP's
 * linux-cp, an interface in tepd's own namespace, where the routing daemons
 * already run. It holds the underlay addresses with their prefixes, so
 * that the underlay subnets are on-link for the kernel (what BGP's
 * connected check and single-hop BFD want) and nothing else is routed
 * there (no default route: the box's management routes stay as they are).
 * tepd answers ARP and ND on it for every address but its own
 * (neigh.c), hands it what reaches the underlay addresses and is not a
 * tunnel packet, and routes what it sends.
 */

uint16_t tep_vrf_host_port[TEP_VRF_MAX];
struct vrfhost vh_hosts[TEP_VRF_MAX];
bool vh_enabled;
const uint8_t vh_gw4[4] = { 169, 254, 0, 1 };
const uint8_t vh_gw6[16] = { 0xfe, 0x80, [15] = 1 };
char vh_prefix[64];

/* ---- the namespace -------------------------------------------------------- */

/* Like `ip netns add`: /run/netns is a shared mount, so that a namespace
 * bound there is seen from every mount namespace. */
static int
netns_dir_ready(char *err, size_t errlen)
{
	if (mkdir(NETNS_DIR, 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "mkdir %s: %s", NETNS_DIR,
			 strerror(errno));
		return -1;
	}
	if (mount("", NETNS_DIR, "none", MS_SHARED | MS_REC, NULL) == 0)
		return 0;
	if (errno == EINVAL &&
	    mount(NETNS_DIR, NETNS_DIR, "none", MS_BIND | MS_REC, NULL) == 0 &&
	    mount("", NETNS_DIR, "none", MS_SHARED | MS_REC, NULL) == 0)
		return 0;
	snprintf(err, errlen, "cannot make %s a shared mount: %s (tepd -N "
		 "needs CAP_SYS_ADMIN)", NETNS_DIR, strerror(errno));
	return -1;
}

/*
 * tepd in a mount namespace of its own (systemd's PrivateTmp=, `ip netns
 * exec`): a namespace bound at /run/netns only there goes with that mount
 * namespace when tepd dies (kill -9), leaving an empty file the next tepd
 * could not take over, and was never seen by the rest of the host. So the
 * binding is also made (and unmade) in the system's mount namespace, as
 * `ip netns add` run from a shell would: PID 1's, or where PID 1's cannot
 * be opened (a container that hides it), that of the process that
 * started tepd (systemd, a shell that ran `ip netns exec`). By a child
 * process: a multi-threaded one cannot enter another mount namespace.
 * nsfd: the network namespace to bind, or -1 to unbind. 0 when done or
 * not needed (tepd is in that mount namespace already, or cannot open
 * it: then the binding stays tepd's own, as before).
 */
static int
netns_bind_system(const char *path, int nsfd)
{
	struct stat self, sys;
	char src[64], mnt[64];
	int mntfd, status;
	pid_t pid;

	snprintf(mnt, sizeof(mnt), "/proc/1/ns/mnt");
	mntfd = open(mnt, O_RDONLY | O_CLOEXEC);
	if (mntfd < 0) {
		snprintf(mnt, sizeof(mnt), "/proc/%d/ns/mnt", (int)getppid());
		mntfd = open(mnt, O_RDONLY | O_CLOEXEC);
	}
	if (mntfd < 0)
		return 0;
	if (stat("/proc/self/ns/mnt", &self) != 0 || fstat(mntfd, &sys) != 0 ||
	    (self.st_dev == sys.st_dev && self.st_ino == sys.st_ino)) {
		close(mntfd);
		return 0;
	}
	snprintf(src, sizeof(src), "/proc/self/fd/%d", nsfd);
	pid = fork();
	if (pid == 0) {
		/* only system calls here: a child of a threaded process */
		if (setns(mntfd, CLONE_NEWNS) != 0)
			_exit(1);
		if (nsfd < 0)
			_exit(umount2(path, MNT_DETACH) == 0 || errno == EINVAL ?
			      0 : 2);
		_exit(mount(src, path, "none", MS_BIND, NULL) == 0 ? 0 : 3);
	}
	close(mntfd);
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* A file at the path that is not a namespace: empty, regular, nothing
 * mounted on it: the mount point of a namespace whose binding went with
 * its tepd's mount namespace (a tepd before netns_bind_system, or one that
 * could not reach the system's mount namespace). */
static bool
netns_stale_file(const char *path)
{
	struct stat st, dir;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       st.st_size == 0 && stat(NETNS_DIR, &dir) == 0 &&
	       st.st_dev == dir.st_dev;
}

static void
write_sysctl(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, val, strlen(val)) < 0)
		RTE_LOG(WARNING, USER1, "%s: %s\n", path, strerror(errno));
	close(fd);
}

/*
 * A namespace at h->path already: one left by a tepd that was killed (a
 * live one holds the EAL file prefix, so it cannot be running), taken over
 * with what it holds: an L3VNI's devices, tasks run in the VRF, and the
 * netlink sockets of a zebra still running, by which tepd tells its routes'
 * VRF (docs/evpn.md). The calling thread is left inside it. Anything else
 * at the path is refused.
 */
static int
netns_adopt(struct vrfhost *h, char *err, size_t errlen)
{
	int fd = open(h->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || setns(fd, CLONE_NEWNET) != 0) {
		snprintf(err, errlen, "%s exists and is not a network namespace "
			 "(rm %s)", h->path, h->path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (if_nametoindex(h->ifname) != 0) {
		tep_netns_home();
		snprintf(err, errlen, "%s exists and holds %s already (another "
			 "tepd's? ip netns del %s)", h->path, h->ifname,
			 strrchr(h->path, '/') + 1);
		return -1;
	}
	RTE_LOG(NOTICE, USER1, "vrf host: %s left by a tepd that was killed: "
		"taken over\n", h->path);
	return 0;
}

/*
 * Create the namespace and bind it at h->path (or take over the one left
 * there). The calling thread spends the time in between inside it: that
 * is where the rtnetlink socket is opened, loopback brought up, and
 * defaults set for the interface to come (no DAD, so the link-local
 * address used for ND is usable at once; no router solicitations, tepd
 * sends no RAs).
 */
static int
netns_create(struct vrfhost *h, char *err, size_t errlen)
{
	bool adopted = false;
	struct stat st;
	int fd, ret = 0;

	fd = open(h->path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0 && errno == EEXIST && netns_stale_file(h->path)) {
		RTE_LOG(NOTICE, USER1, "vrf host: %s: an empty file (its "
			"namespace went with a killed tepd's mount namespace): "
			"made anew\n", h->path);
		unlink(h->path);
		fd = open(h->path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	}
	if (fd < 0 && errno == EEXIST) {
		if (netns_adopt(h, err, errlen) != 0)
			return -1;
		adopted = true;
	} else if (fd < 0) {
		snprintf(err, errlen, "%s: %s", h->path, strerror(errno));
		return -1;
	} else {
		close(fd);
		if (unshare(CLONE_NEWNET) != 0) {
			snprintf(err, errlen, "unshare(CLONE_NEWNET): %s",
				 strerror(errno));
			unlink(h->path);
			return -1;
		}
		ret = mount("/proc/thread-self/ns/net", h->path, "none",
			    MS_BIND, NULL);
		if (ret != 0) {
			snprintf(err, errlen, "bind %s: %s", h->path,
				 strerror(errno));
		} else {
			int nsfd = open("/proc/thread-self/ns/net",
					O_RDONLY | O_CLOEXEC);

			if (nsfd < 0 || netns_bind_system(h->path, nsfd) != 0)
				RTE_LOG(WARNING, USER1, "vrf host: %s not bound "
					"in the system's mount namespace: it "
					"goes if tepd is killed\n", h->path);
			if (nsfd >= 0)
				close(nsfd);
		}
	}
	h->nl_fd = ret == 0 ? socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
				     NETLINK_ROUTE) : -1;
	if (ret == 0 && h->nl_fd < 0) {
		snprintf(err, errlen, "netlink: %s", strerror(errno));
		ret = -1;
	}
	if (ret == 0) {
		write_sysctl("/proc/sys/net/ipv6/conf/default/accept_dad", "0");
		write_sysctl("/proc/sys/net/ipv6/conf/default/"
			     "router_solicitations", "0");
		ret = nl_link_up(h, (int)if_nametoindex("lo"));
		if (ret != 0)
			snprintf(err, errlen, "loopback up: %s",
				 strerror(-ret));
	}
	tep_netns_home();
	if (ret == 0) {
		h->netns_fd = open(h->path, O_RDONLY | O_CLOEXEC);
		if (h->netns_fd < 0 || fstat(h->netns_fd, &st) != 0) {
			snprintf(err, errlen, "%s: %s", h->path,
				 strerror(errno));
			if (h->netns_fd >= 0)
				close(h->netns_fd);
			h->netns_fd = -1;
			ret = -1;
		} else {
			h->dev = st.st_dev;
			h->ino = st.st_ino;
			return 0;
		}
	}
	if (h->nl_fd >= 0)
		close(h->nl_fd);
	if (!adopted) {		/* one taken over stays as it was */
		umount2(h->path, MNT_DETACH);
		netns_bind_system(h->path, -1);
		unlink(h->path);
	}
	return -1;
}

static void
netns_remove(struct vrfhost *h)
{
	if (h->nl_fd >= 0)
		close(h->nl_fd);
	if (h->netns_fd >= 0)
		close(h->netns_fd);
	h->nl_fd = h->netns_fd = -1;
	if (h->own_ns)
		return;		/* tepd's own: nothing to unbind */
	/* Tasks still inside (only at shutdown) keep the namespace alive
	 * without its interface; the name goes. */
	umount2(h->path, MNT_DETACH);
	netns_bind_system(h->path, -1);
	unlink(h->path);
}

/* ---- public --------------------------------------------------------------- */

static void host_port_restarted(uint16_t vrf);

int
tep_vrfhost_init(bool enable, char *err, size_t errlen)
{
	const char *rt, *base;
	int i;

	for (i = 0; i < TEP_VRF_MAX; i++)
		tep_vrf_host_port[i] = TEP_NO_PORT;
	tep.host_netns_fd = open("/proc/thread-self/ns/net",
				 O_RDONLY | O_CLOEXEC);
	if (!enable)
		return 0;
	if (tep.host_netns_fd < 0) {
		snprintf(err, errlen, "-N: /proc/thread-self/ns/net: %s",
			 strerror(errno));
		return -1;
	}
	/* One tepd per EAL file prefix, so the prefix names its namespaces:
	 * "tepd-red" for the default one, "PREFIX-red" otherwise. */
	rt = rte_eal_get_runtime_dir();
	base = rt != NULL && strrchr(rt, '/') != NULL ? strrchr(rt, '/') + 1 :
	       "rte";
	snprintf(vh_prefix, sizeof(vh_prefix), "%s-",
		 strcmp(base, "rte") == 0 ? "tepd" : base);
	if (netns_dir_ready(err, errlen) != 0)
		return -1;
	vh_enabled = true;
	tep_port_on_host_restart(host_port_restarted);
	return 0;
}

bool
tep_vrfhost_enabled(void)
{
	return vh_enabled;
}

/* What goes into devargs, a path and an interface name. */
static bool
name_ok(const char *s)
{
	return s[0] != '\0' && s[0] != '.' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_.-") == strlen(s);
}

/*
 * The host port: a net_tap `name` whose interface h->ifname is made in
 * h's namespace, the gateway tepd answers for on it, its routes to tepd
 * and the VRF's addresses. `what` names it in errors.
 */
static int
host_attach(struct vrfhost *h, uint16_t vrf, const char *name, uint16_t mtu,
	    const char *what, char *err, size_t errlen)
{
	char devargs[128], e[200];
	struct rte_eth_dev_info info;
	struct tep_port *p;
	uint16_t pid;
	int ret;

	snprintf(devargs, sizeof(devargs), "%s,iface=%s", name, h->ifname);
	if (tep_port_attach_host(devargs, name, h->netns_fd, vrf, mtu,
				 &pid, e, sizeof(e)) != 0) {
		snprintf(err, errlen, "%s host port: %s", what, e);
		return -1;
	}
	p = &tep_ports[pid];
	/* The gateway the kernel side routes to: ARP and ND answered, no
	 * routes (they are not the VRF's addresses). */
	p->addr[0] = (struct tep_addr){ .family = 4, .len = 32 };
	memcpy(p->addr[0].a, vh_gw4, 4);
	p->addr[1] = (struct tep_addr){ .family = 6, .len = 64 };
	memcpy(p->addr[1].a, vh_gw6, 16);
	p->naddr = 2;
	h->port = pid;
	ret = rte_eth_dev_info_get(pid, &info);
	h->ifindex = ret == 0 ? (int)info.if_index : 0;
	if (h->ifindex == 0) {
		snprintf(err, errlen, "%s: no interface index for %s", what,
			 h->ifname);
		ret = -1;
	} else {
		/* net_tap brought the link up when it started. */
		ret = nl_default_routes(h);
		if (ret != 0)
			snprintf(err, errlen, "%s: default route on %s: %s",
				 what, h->ifname, strerror(-ret));
	}
	if (ret != 0) {
		tep_port_detach_host(pid);
		return -1;
	}
	h->on = true;
	__atomic_store_n(&tep_vrf_host_port[vrf], pid, __ATOMIC_RELEASE);
	tep_vrfhost_sync_addrs(vrf);
	return 0;
}

int
tep_vrfhost_create(uint16_t vrf, char *err, size_t errlen)
{
	const struct tep_vrf *v = tep_rib.vrf[vrf];
	struct vrfhost *h = &vh_hosts[vrf];
	char name[RTE_ETH_NAME_MAX_LEN], what[64];

	if (!vh_enabled || vrf == TEP_VRF_DEFAULT || v == NULL)
		return 0;
	if (!name_ok(v->name)) {
		snprintf(err, errlen, "vrf \"%s\": with host ports (-N) a VRF "
			 "name is letters, digits, '_', '.', '-'", v->name);
		return -1;
	}
	memset(h, 0, sizeof(*h));
	h->nl_fd = h->netns_fd = -1;
	snprintf(h->path, sizeof(h->path), "%s/%s%s", NETNS_DIR, vh_prefix,
		 v->name);
	if (strlen(v->name) + 4 < IF_NAMESIZE)
		snprintf(h->ifname, sizeof(h->ifname), "vrf-%.11s", v->name);
	else
		snprintf(h->ifname, sizeof(h->ifname), "vrf%u", vrf);
	snprintf(name, sizeof(name), "net_tap_vrf_%s", v->name);
	snprintf(what, sizeof(what), "vrf \"%s\"", v->name);

	if (netns_create(h, err, errlen) != 0)
		return -1;
	if (host_attach(h, vrf, name, HOST_MTU, what, err, errlen) != 0) {
		netns_remove(h);
		return -1;
	}
	return 0;
}

int
tep_vrfhost_create_default(const char *ifname, char *err, size_t errlen)
{
	struct vrfhost *h = &vh_hosts[TEP_VRF_DEFAULT];

	if (!name_ok(ifname) || strlen(ifname) >= IF_NAMESIZE) {
		snprintf(err, errlen, "-H \"%s\": an interface name of at most "
			 "%d letters, digits, '_', '.', '-'", ifname,
			 IF_NAMESIZE - 1);
		return -1;
	}
	if (if_nametoindex(ifname) != 0) {
		snprintf(err, errlen, "-H %s: an interface of that name exists",
			 ifname);
		return -1;
	}
	memset(h, 0, sizeof(*h));
	h->own_ns = true;
	snprintf(h->ifname, sizeof(h->ifname), "%s", ifname);
	h->netns_fd = fcntl(tep.host_netns_fd, F_DUPFD_CLOEXEC, 0);
	h->nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (h->netns_fd < 0 || h->nl_fd < 0) {
		snprintf(err, errlen, "-H %s: %s", ifname, strerror(errno));
		netns_remove(h);
		return -1;
	}
	if (host_attach(h, TEP_VRF_DEFAULT, "net_tap_host_default",
			UNDERLAY_HOST_MTU, "-H", err, errlen) != 0) {
		netns_remove(h);
		return -1;
	}
	return 0;
}

/*
 * A restart took the kernel side's link down and up, and Linux drops the
 * routes through a link that goes down (and its IPv6 addresses): put the
 * kernel side back as it was.
 */
static void
host_port_restarted(uint16_t vrf)
{
	struct vrfhost *h = &vh_hosts[vrf];
	int ret;

	if (vrf >= TEP_VRF_MAX || !h->on)
		return;
	h->naddr = 0;		/* re-add all: NLM_F_REPLACE is idempotent */
	tep_vrfhost_sync_addrs(vrf);
	ret = nl_default_routes(h);
	if (ret != 0)
		RTE_LOG(ERR, USER1, "vrf host %s: default route: %s\n",
			h->ifname, strerror(-ret));
}

void
tep_vrfhost_destroy(uint16_t vrf)
{
	struct vrfhost *h = &vh_hosts[vrf];

	if (!h->on)
		return;
	h->on = false;
	__atomic_store_n(&tep_vrf_host_port[vrf], TEP_NO_PORT,
			 __ATOMIC_RELEASE);
	tep_port_detach_host(h->port);	/* waits for the workers */
	netns_remove(h);
}

void
tep_vrfhost_fini(void)
{
	uint16_t v;

	for (v = 0; v < TEP_VRF_MAX; v++)
		tep_vrfhost_destroy(v);
}

static bool
addr_in(const struct tep_addr *set, int n, const struct tep_addr *a)
{
	int i;

	for (i = 0; i < n; i++)
		if (set[i].family == a->family && set[i].len == a->len &&
		    memcmp(set[i].a, a->a, a->family == 4 ? 4 : 16) == 0)
			return true;
	return false;
}

/*
 * The kernel side holds the addresses of the VRF's ports: as host routes,
 * or for the default VRF's with their prefixes (its subnets on-link, see
 * the top). Called after any change to them; installs what is missing and
 * removes what is gone. A failure is logged: tepd's own state is already
 * right.
 */
void
tep_vrfhost_sync_addrs(uint16_t vrf)
{
	struct vrfhost *h = &vh_hosts[vrf];
	struct tep_addr want[HOST_ADDRS_MAX];
	int nwant = 0, i, j, ret;
	uint16_t pi;

	if (vrf >= TEP_VRF_MAX || !h->on)
		return;
	for (pi = 0; pi < tep_nb_ports; pi++) {
		const struct tep_port *p = &tep_ports[pi];

		if (!p->present || p->vrf_host || p->vrf != vrf)
			continue;
		for (j = 0; j < p->naddr && nwant < HOST_ADDRS_MAX; j++)
			if (!addr_in(want, nwant, &p->addr[j]))
				want[nwant++] = p->addr[j];
	}
	for (i = 0; i < h->naddr; i++) {
		if (addr_in(want, nwant, &h->addr[i]))
			continue;
		nl_addr(h, &h->addr[i], false);
		h->addr[i--] = h->addr[--h->naddr];
	}
	for (i = 0; i < nwant; i++) {
		if (addr_in(h->addr, h->naddr, &want[i]))
			continue;
		ret = nl_addr(h, &want[i], true);
		if (ret != 0) {
			RTE_LOG(ERR, USER1, "vrf host %s: address: %s\n",
				h->ifname, strerror(-ret));
			continue;
		}
		h->addr[h->naddr++] = want[i];
	}
}

const char *
tep_vrfhost_netns(uint16_t vrf)
{
	return vrf < TEP_VRF_MAX && vh_hosts[vrf].on && !vh_hosts[vrf].own_ns ?
	       vh_hosts[vrf].path : NULL;
}

int
tep_vrfhost_netns_fd(uint16_t vrf)
{
	return vrf < TEP_VRF_MAX && vh_hosts[vrf].on && !vh_hosts[vrf].own_ns ?
	       vh_hosts[vrf].netns_fd : -1;
}

int
tep_vrfhost_vrf_of(uint64_t dev, uint64_t ino)
{
	int v;

	for (v = 0; v < TEP_VRF_MAX; v++)
		if (vh_hosts[v].on && !vh_hosts[v].own_ns && vh_hosts[v].dev == dev &&
		    vh_hosts[v].ino == ino)
			return v;
	return -1;
}

int
tep_vrfhost_pids(uint16_t vrf, int *pids, int max)
{
	const struct vrfhost *h = &vh_hosts[vrf];
	struct dirent *de;
	char path[300];
	struct stat st;
	int n = 0;
	DIR *d;

	if (vrf >= TEP_VRF_MAX || !h->on || h->own_ns)
		return 0;
	d = opendir("/proc");
	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/net", de->d_name);
		if (stat(path, &st) != 0 || st.st_dev != h->dev ||
		    st.st_ino != h->ino)
			continue;
		if (n < max)
			pids[n] = atoi(de->d_name);
		n++;
	}
	closedir(d);
	return n;
}
