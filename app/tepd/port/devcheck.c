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

#include <stdio.h>
#include <string.h>

#include <rte_dev.h>
#include <rte_devargs.h>

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
