/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_METRICS_PRIV_H
#define TEPD_METRICS_PRIV_H

/*
 * Inside app/tepd/metrics only: the snapshot the control thread renders
 * (metrics.c) and libmicrohttpd's thread serves (http.c).
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <microhttpd.h>

#include "tep_ctl_server.h"
#include "tepd.h"
#include "stats.h"

#define METRICS_FRESH_MS	100	/* a snapshot this young is served */
#define METRICS_WAIT_MS		500	/* longest wait for the control thread */
#define METRICS_CONN_MAX	256	/* connections at once */
#define METRICS_CONN_PER_IP	64	/* ... from one address */
#define METRICS_TIMEOUT_S	3	/* idle connection closed after */
#define METRICS_CONN_MEM	(16 * 1024)	/* request headers and state */

enum { FMT_PROM, FMT_OM, FMT_MAX };

struct snap {
	int refs;			/* atomic */
	uint64_t built_ns;		/* CLOCK_MONOTONIC */
	char *text[FMT_MAX];
	size_t len[FMT_MAX];
};

/* Raw sums gathered once per rendering (families then walk them). */
struct gather {
	struct tep_cnt_port port[TEP_PORTS_MAX + 1];	/* + TEP_PORT_CTL */
	struct tep_cnt_vrf vrf[TEP_VRF_MAX];
	struct tep_cnt_tun tun[TEP_TUNNELS_MAX];
};

struct metrics_state {
	struct MHD_Daemon *mhd;
	struct tep_ctl_server *ctl;
	pthread_mutex_t lock;
	pthread_cond_t fresh;
	struct snap *cur;		/* lock */
	uint64_t want_since;		/* lock; when `want` was raised */
	bool want;			/* atomic: a request waits */
	uint64_t requests;		/* atomic */
	double start_time;		/* unix seconds */
	struct gather *g;		/* control thread */
};
extern struct metrics_state M;

/* metrics.c */
uint64_t mono_ns(void);
void snap_put(struct snap *s);

#endif /* TEPD_METRICS_PRIV_H */
