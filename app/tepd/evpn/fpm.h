/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_FPM_H
#define TEPD_FPM_H

/*
 * tepd as zebra's FPM server (docs/evpn.md): what the rest of tepd calls
 * of app/tepd/evpn. Control thread only.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

/* fpm.c: zebra's FPM stream (tepd -P [ADDR:]PORT; docs/evpn.md). Control
 * thread only: it installs routes, so it runs where the RIB's writer is. */
struct tep_out;
int tep_fpm_start(const char *listen, char *err, size_t errlen);
void tep_fpm_poll(void);
void tep_fpm_stop(void);
bool tep_fpm_enabled(void);
/* tepctl: fpm show, fpm set, and the "fpm" object of stats */
void tep_fpm_show(struct tep_out *o);
void tep_fpm_stats(struct tep_out *o);
int tep_fpm_set(const char *key, const char *value, char *err,
		size_t errlen);
/* EVPN: evpn local IP, evpn vrf NAME vni N, evpn show */
int tep_fpm_evpn_local(const char *ip, char *err, size_t errlen);
int tep_fpm_evpn_vrf(uint16_t vrf, uint32_t vni,
		     const struct rte_ether_addr *rmac, char *err, size_t errlen);
void tep_fpm_evpn_show(struct tep_out *o);
/* /metrics: every counter (parse errors by their tep_fpm_err_str name,
 * err set), and whether zebra is connected. */
typedef void (*tep_fpm_counter_cb)(void *arg, const char *name, bool err,
				   uint64_t value);
void tep_fpm_each_counter(tep_fpm_counter_cb cb, void *arg);
bool tep_fpm_connected(void);

#endif /* TEPD_FPM_H */
