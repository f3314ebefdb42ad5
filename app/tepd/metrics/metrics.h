/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_METRICS_H
#define TEPD_METRICS_H

/*
 * What monitoring systems read: the Prometheus/OpenMetrics endpoint (-M;
 * metrics.c renders on the control thread, http.c serves on
 * libmicrohttpd's) and DPDK telemetry (telemetry.c).
 */

#include <stddef.h>

/* metrics.c: GET /metrics over HTTP (tepd -M). The snapshot is rendered
 * on the control thread: call tep_metrics_poll() from its loop. */
struct tep_ctl_server;
int tep_metrics_start(const char *listen, struct tep_ctl_server *ctl,
		      char *err, size_t errlen);
void tep_metrics_poll(void);
void tep_metrics_stop(void);

/* DPDK telemetry's /tepd/ commands. */
int tep_telemetry_init(void);

#endif /* TEPD_METRICS_H */
