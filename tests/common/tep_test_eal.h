/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_TEST_EAL_H
#define TEP_TEST_EAL_H

/* The EAL as the unit tests that need DPDK's heap (rte_fib, lib/fib)
 * start it: no hugepages, no PCI scan, no shared config, one lcore. */

#include <stdint.h>

#include <rte_common.h>
#include <rte_eal.h>

static inline int
tep_test_eal_init(const char *argv0)
{
	char *eal[] = { (char *)(uintptr_t)argv0, (char *)(uintptr_t)"--no-huge",
			(char *)(uintptr_t)"-m", (char *)(uintptr_t)"1024",
			(char *)(uintptr_t)"--no-pci",
			(char *)(uintptr_t)"--no-shconf",
			(char *)(uintptr_t)"--log-level=lib.eal:error",
			(char *)(uintptr_t)"-l", (char *)(uintptr_t)"0" };

	return rte_eal_init((int)RTE_DIM(eal), eal);
}

#endif /* TEP_TEST_EAL_H */
