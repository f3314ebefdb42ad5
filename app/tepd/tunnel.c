/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Tunnel objects and the decapsulation table. A tunnel is immutable once
 * published: workers load tep.tunnel[id] and may use it until their next
 * quiescent state; deletion unpublishes, waits a grace period, frees.
 */

#include <stdio.h>
#include <string.h>

#include <rte_jhash.h>
#include <rte_malloc.h>

#include "tepd.h"

int
tep_tunnels_init(char *err, size_t errlen)
{
	struct rte_hash_parameters hp = {
		.name = "tep_tunnels",
		.entries = TEP_TUNNELS_MAX * 2,
		.key_len = sizeof(struct tep_tun_key),
		.hash_func = rte_jhash,
		.socket_id = (int)rte_socket_id(),
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	};

	memset(tep.udp_tun_type, 0xff, sizeof(tep.udp_tun_type));
	tep.tun_hash = rte_hash_create(&hp);
	if (tep.tun_hash == NULL) {
		snprintf(err, errlen, "tunnel table: out of memory");
		return -1;
	}
	return 0;
}

int
tep_tunnel_find(const char *name)
{
	int i;

	/* One load per slot: the telemetry thread calls this too. */
	for (i = 0; i < TEP_TUNNELS_MAX; i++) {
		const struct tep_tunnel *t =
			__atomic_load_n(&tep.tunnel[i], __ATOMIC_ACQUIRE);

		if (t != NULL && strcmp(t->name, name) == 0)
			return i;
	}
	return -1;
}
