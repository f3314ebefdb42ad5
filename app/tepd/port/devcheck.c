/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Start-up check of the EAL's --vdev devices. In DPDK 22.11 a --vdev whose
 * probe fails (an iface that does not exist, a bad argument, a path it
 * cannot open) is logged and then forgotten: rte_eal_init() succeeds
 * and tepd would run without that port, forwarding for the ports it has
 * and dropping what was meant for the missing one. Every --vdev asked
 * for must be there; one that is not stops tepd at start.
 */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_errno.h>

#include "tepd.h"
#include "port.h"

static bool
vdev_probed(const char *name)
{
	struct rte_dev_iterator it;
	struct rte_device *dev;

	RTE_DEV_FOREACH(dev, "bus=vdev", &it) {
		if (strcmp(rte_dev_name(dev), name) == 0)
			return rte_dev_is_probed(dev) != 0;
	}
	return false;
}

int
tep_vdevs_check(char *err, size_t errlen)
{
	struct rte_devargs *da;

	RTE_EAL_DEVARGS_FOREACH("vdev", da) {
		if (vdev_probed(da->name))
			continue;
		/* EAL refuses an unknown driver name itself; what is left
		 * is a driver that failed to set the device up. */
		snprintf(err, errlen, "--vdev %s%s%s: probe failed: the "
			 "driver could not set it up (see the EAL and PMD "
			 "messages above)", da->name,
			 da->args != NULL && da->args[0] != '\0' ? "," : "",
			 da->args != NULL ? da->args : "");
		return -1;
	}
	return 0;
}

/*
 * The same for the PCI devices given with -a: EAL skips one it cannot
 * use (no such address, bound to a kernel driver DPDK cannot drive, no
 * driver at all) with at most a debug message, and tepd would run without
 * it. Which of those it is, sysfs says.
 */

/* "DDDD:BB:DD.F" or "BB:DD.F" (EAL's forms) -> the full form */
static bool
pci_full_name(const char *in, char *out, size_t len)
{
	unsigned int d = 0, b, s, f;
	char c;

	if (sscanf(in, "%x:%x:%x.%x%c", &d, &b, &s, &f, &c) != 4 &&
	    (d = 0, sscanf(in, "%x:%x.%x%c", &b, &s, &f, &c) != 3))
		return false;
	if (d > 0xffff || b > 0xff || s > 0x1f || f > 7)
		return false;
	snprintf(out, len, "%04x:%02x:%02x.%x", d, b, s, f);
	return true;
}

static bool
pci_probed(const char *full)
{
	struct rte_dev_iterator it;
	struct rte_device *dev;
	char name[32];

	RTE_DEV_FOREACH(dev, "bus=pci", &it) {
		if (pci_full_name(rte_dev_name(dev), name, sizeof(name)) &&
		    strcmp(name, full) == 0)
			return rte_dev_is_probed(dev) != 0;
	}
	return false;
}

/* The kernel driver bound to a PCI device: its name, "" for none, NULL
 * if there is no such device. */
static const char *
pci_kernel_driver(const char *full, char *buf, size_t len)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", full);
	if (access(path, F_OK) != 0)
		return NULL;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", full);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0) {
		buf[0] = '\0';
		return buf;
	}
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base != NULL ? base + 1 : link;
	n = (ssize_t)strnlen(base, len - 1);
	memcpy(buf, base, (size_t)n);
	buf[n] = '\0';
	return buf;
}

/*
 * vfio opens a device's IOMMU group only when no device in the group is
 * used by a kernel driver that does DMA of its own: each must be bound
 * to vfio-pci, to a driver that leaves DMA to its owner (pci-stub, or
 * pcieport for the bridges the group may hold) or to none. Otherwise
 * EAL's probe of the device fails with "group is not viable". Returns
 * the group's number in group (false when the device has none: the
 * IOMMU is off, and vfio-pci will not take the device) and the first
 * device in the way, if any, in other/drv.
 */
static bool
pci_iommu_group(const char *full, char *group, size_t glen, char *other,
		size_t olen, char *drv, size_t dlen)
{
	char path[PATH_MAX], link[PATH_MAX], d[64];
	const char *base, *k;
	struct dirent *e;
	DIR *dir;
	ssize_t n;

	other[0] = '\0';
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group",
		 full);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	base = strrchr(link, '/');
	if ((size_t)snprintf(group, glen, "%s",
			     base != NULL ? base + 1 : link) >= glen)
		return false;
	snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%s/devices",
		 group);
	dir = opendir(path);
	if (dir == NULL)
		return true;
	while ((e = readdir(dir)) != NULL) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, full) == 0)
			continue;
		k = pci_kernel_driver(e->d_name, d, sizeof(d));
		if (k == NULL || k[0] == '\0' || strcmp(k, "vfio-pci") == 0 ||
		    strcmp(k, "pci-stub") == 0 || strcmp(k, "pcieport") == 0)
			continue;
		if ((size_t)snprintf(other, olen, "%s", e->d_name) >= olen) {
			other[0] = '\0';	/* not a PCI name */
			continue;
		}
		snprintf(drv, dlen, "%s", k);
		break;
	}
	closedir(dir);
	return true;
}

/* vfio's unsafe no-IOMMU mode: devices without an IOMMU get a group. */
static bool
vfio_noiommu(void)
{
	FILE *f = fopen("/sys/module/vfio/parameters/"
			"enable_unsafe_noiommu_mode", "r");
	int c;

	if (f == NULL)
		return false;
	c = fgetc(f);
	fclose(f);
	return c == 'Y' || c == '1';
}

int
tep_pci_check(char *err, size_t errlen)
{
	struct rte_devargs *da;
	char full[sizeof(da->name)], drv[64], group[32], other[64], odrv[64];
	const char *k, *hint;
	bool grouped;

	RTE_EAL_DEVARGS_FOREACH("pci", da) {
		if (!pci_full_name(da->name, full, sizeof(full)))
			snprintf(full, sizeof(full), "%s", da->name);
		if (pci_probed(full))
			continue;
		k = pci_kernel_driver(full, drv, sizeof(drv));
		grouped = k != NULL &&
			  pci_iommu_group(full, group, sizeof(group), other,
					  sizeof(other), odrv, sizeof(odrv));
		/* vfio-pci refuses a device without an IOMMU group:
		 * the command below would fail too. */
		hint = k != NULL && !grouped && !vfio_noiommu() ?
		       ". The IOMMU is off here, and vfio-pci takes no "
		       "device then: boot with intel_iommu=on or "
		       "amd_iommu=on, VT-d/AMD-Vi on in the firmware" : "";
		if (k == NULL)
			snprintf(err, errlen, "-a %s: no PCI device at that "
				 "address (dpdk-devbind.py --status-dev net "
				 "lists the network devices and their "
				 "addresses)", da->name);
		else if (k[0] == '\0')
			snprintf(err, errlen, "-a %s: the device is bound to "
				 "no driver, so DPDK cannot reach it: "
				 "modprobe vfio-pci; dpdk-devbind.py -b "
				 "vfio-pci %s (docs/real-nic.md)%s", da->name,
				 full, hint);
		else if (strcmp(k, "vfio-pci") != 0 &&
			 strcmp(k, "uio_pci_generic") != 0 &&
			 strcmp(k, "igb_uio") != 0)
			snprintf(err, errlen, "-a %s: the device is bound to "
				 "the kernel driver %s, which DPDK's driver for "
				 "it cannot share: dpdk-devbind.py -b vfio-pci "
				 "%s (docs/real-nic.md; Mellanox NICs stay on "
				 "mlx5_core, and then need DPDK's mlx5 driver)%s",
				 da->name, k, full, hint);
		else if (strcmp(k, "vfio-pci") == 0 && grouped &&
			 other[0] != '\0')
			snprintf(err, errlen, "-a %s: bound to vfio-pci, but "
				 "its IOMMU group %s is not viable: %s, in the "
				 "same group, is bound to the kernel driver %s. "
				 "vfio needs every device of a group bound to "
				 "vfio-pci or to no driver: dpdk-devbind.py -b "
				 "vfio-pci %s (then give tepd that one too, or "
				 "leave it unused), or put the NIC in a slot "
				 "with a group of its own (docs/real-nic.md)",
				 da->name, group, other, odrv, other);
		else
			snprintf(err, errlen, "-a %s: bound to %s, but no DPDK "
				 "driver took it: a device DPDK has no driver "
				 "for, or one that failed to start (see the EAL "
				 "and PMD messages above: no memory for its "
				 "rings, the device's own errors)", da->name, k);
		return -1;
	}
	return 0;
}

void
tep_hugetlbfs_foreach(int (*fn)(const char *mnt, void *arg), void *arg)
{
	char line[512], dir[256], type[64];
	FILE *f = fopen("/proc/mounts", "r");

	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%*s %255s %63s", dir, type) == 2 &&
		    strcmp(type, "hugetlbfs") == 0 && fn(dir, arg) != 0)
			break;
	fclose(f);
}

struct mount_list {
	char *buf;
	size_t len, used;
};

static int
mount_list_add(const char *mnt, void *arg)
{
	struct mount_list *l = arg;
	int n = snprintf(l->buf + l->used, l->len - l->used, "%s%s",
			 l->used != 0 ? " " : "", mnt);

	if (n < 0 || (size_t)n >= l->len - l->used)
		return 1;
	l->used += (size_t)n;
	return 0;
}

/* Reserved and free hugepages of the default size, from /proc/meminfo;
 * and the hugetlbfs mounts (a space-separated list). */
static void
hugepage_state(unsigned long *total, unsigned long *nfree, unsigned long *kib,
	       char *mounts, size_t mlen)
{
	struct mount_list l = { .buf = mounts, .len = mlen };
	char line[512];
	FILE *f;

	*total = *nfree = *kib = 0;
	mounts[0] = '\0';
	f = fopen("/proc/meminfo", "r");
	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL) {
			sscanf(line, "HugePages_Total: %lu", total);
			sscanf(line, "HugePages_Free: %lu", nfree);
			sscanf(line, "Hugepagesize: %lu", kib);
		}
		fclose(f);
	}
	tep_hugetlbfs_foreach(mount_list_add, &l);
}

void
tep_eal_failure(int e, int argc, char **argv, char *err, size_t errlen)
{
	unsigned long total, nfree, kib;
	bool no_huge = false;
	char mounts[256];
	int a;

	for (a = 1; a < argc && strcmp(argv[a], "--") != 0; a++)
		if (strcmp(argv[a], "--no-huge") == 0)
			no_huge = true;
	hugepage_state(&total, &nfree, &kib, mounts, sizeof(mounts));
	/* 22.11: EACCES is "Cannot get hugepage information" (none
	 * reserved, no hugetlbfs mounted, or --huge-dir not one) */
	if (!no_huge && (e == EACCES || (e == ENOMEM &&
	    (total == 0 || nfree == 0 || mounts[0] == '\0')))) {
		snprintf(err, errlen, "EAL init failed: no hugepages it can "
			 "use: %lu hugepages of %lu kB reserved, %lu free, "
			 "hugetlbfs mounted at: %s (--huge-dir must be one "
			 "of those). "
			 "Reserve and mount them (echo 1024 > "
			 "/proc/sys/vm/nr_hugepages; mount -t hugetlbfs nodev "
			 "/dev/hugepages; docs/real-nic.md), or give --no-huge "
			 "(vdevs only: a PCI device needs hugepages)", total,
			 kib, nfree, mounts[0] != '\0' ? mounts : "none");
		return;
	}
	if (!no_huge && e == ENOMEM) {
		snprintf(err, errlen, "EAL init failed: not enough hugepage "
			 "memory for -m/--socket-mem: %lu hugepages of %lu "
			 "kB free; reserve more (/proc/sys/vm/nr_hugepages) "
			 "or ask for less", nfree, kib);
		return;
	}
	snprintf(err, errlen, "EAL init failed: %s (see the EAL messages "
		 "above)", rte_strerror(e));
}
