/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * What tepctl shows of the FPM session and sets (`fpm show`, `fpm set`,
 * `stats`).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* accept4 */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash.h>

#include "tep_out.h"
#include "tep_fpm.h"
#include "peer_uid.h"
#include "tunnel.h"

#include "fpm_priv.h"
#include "fpm.h"

/* ---- tepctl ------------------------------------------------------------- */

/* "truncated header" -> "fpm_err_truncated_header" */
static void
err_key(int e, char *key, size_t len)
{
	const char *s = tep_fpm_err_str(e);
	size_t i = (size_t)snprintf(key, len, "fpm_err_");

	for (; *s != '\0' && i + 1 < len; s++)
		key[i++] = (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')
			   ? *s : '_';
	key[i] = '\0';
}

void
tep_fpm_each_counter(tep_fpm_counter_cb cb, void *arg)
{
	int e;

#define FPM_X(n) cb(arg, #n, false, fpm.c.n);
	FPM_COUNTERS(FPM_X)
#undef FPM_X
	for (e = 1; e < TEP_FPM_E_MAX; e++)
		cb(arg, tep_fpm_err_str(e), true, fpm.c.err[e]);
}

bool
tep_fpm_connected(void)
{
	return fpm.cfd >= 0;
}

void
tep_fpm_stats(struct tep_out *o)
{
	char key[64], fmt[80];
	int e;

	tep_out_open_object(o, "fpm");
	tep_out_text(o, "fpm:");
	tep_out_newline(o);
#define FPM_X(n)							\
	tep_out_u64(o, "fpm_" #n, "    fpm_" #n " %" PRIu64 "\n", fpm.c.n);
	FPM_COUNTERS(FPM_X)
#undef FPM_X
	/* parse errors: only those seen, like drops */
	for (e = 1; e < TEP_FPM_E_MAX; e++) {
		if (fpm.c.err[e] == 0)
			continue;
		err_key(e, key, sizeof(key));
		snprintf(fmt, sizeof(fmt), "    %s %%" PRIu64 "\n", key);
		tep_out_u64(o, key, fmt, fpm.c.err[e]);
	}
	tep_out_close_object(o);
}

void
tep_fpm_show(struct tep_out *o)
{
	uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz();

	tep_out_bool(o, "enabled", NULL, fpm.enabled);
	if (!fpm.enabled) {
		tep_out_text(o, "fpm: off (tepd -P [ADDR:]PORT)");
		tep_out_newline(o);
		return;
	}
	tep_out_str(o, "listen", NULL, fpm.listen);
	tep_out_text(o, "fpm: listening on %s", fpm.listen);
	tep_out_newline(o);
	door_show(o);
	tep_out_bool(o, "connected", NULL, fpm.cfd >= 0);
	if (fpm.cfd >= 0)
		tep_out_str(o, "peer", "connected: %s", fpm.peer);
	else
		tep_out_text(o, "not connected");
	tep_out_u64(o, "generation", ", generation %" PRIu64, fpm.gen);
	tep_out_newline(o);
	tep_out_bool(o, "replay", NULL, fpm.cfd >= 0 && fpm.sweep_due);
	if (fpm.cfd >= 0 && fpm.sweep_due)
		tep_out_u64(o, "replay_quiet_ms", "replay under way: quiet for "
			    "%" PRIu64 " ms", (now - fpm.last_tsc) * 1000 / hz);
	tep_out_bool(o, "holding", NULL, fpm.cfd < 0 && fpm.hold_due);
	if (fpm.cfd < 0 && fpm.hold_due)
		tep_out_u64(o, "held_ms", "routes held since %" PRIu64 " ms",
			    (now - fpm.gone_tsc) * 1000 / hz);
	tep_out_newline(o);
	tep_out_u64(o, "quiet_ms", "quiet %" PRIu64 " ms", fpm.quiet_ms);
	tep_out_u64(o, "hold_ms", ", hold %" PRIu64 " ms", fpm.hold_ms);
	tep_out_u64(o, "stale_ms", ", BGP stale %" PRIu64 " ms", fpm.stale_ms);
	tep_out_newline(o);
	tep_out_u64(o, "tunnels", "tunnels %" PRIu64, ev.ntun);
	tep_out_u64(o, "tunnels_max", " of at most %" PRIu64,
		    fpm.tunnels_max);
	ev.nh_bound = fpm_nh_count();
	tep_out_u64(o, "nexthops", ", next hops %" PRIu64, ev.nh_bound);
	tep_out_u64(o, "nexthops_max", " of at most %" PRIu64, fpm.nh_max);
	tep_out_newline(o);
	/* zebra's next-hop objects (`fpm use-next-hop-groups`) */
	tep_out_u64(o, "nh_objects", "next-hop objects %" PRIu64,
		    nhobj_count());
	tep_out_u64(o, "nh_obj_routes", ", routes by object %" PRIu64,
		    nhobj_route_count());
	tep_out_newline(o);
	tep_out_bool(o, "bgp_stale_held", NULL, fpm.stale_due);
	if (fpm.stale_due) {
		tep_out_u64(o, "bgp_stale_for_ms", "BGP routes of an older "
			    "replay held for %" PRIu64 " ms more",
			    (ms_to_tsc(fpm.stale_ms) >
			     now - fpm.stale_tsc ? ms_to_tsc(fpm.stale_ms) -
			     (now - fpm.stale_tsc) : 0) * 1000 / hz);
		tep_out_newline(o);
	}
	tep_fpm_stats(o);
}

#define FPM_SET_USAGE "fpm set quiet SECONDS | hold SECONDS | stale " \
	"SECONDS | uids UID|USER[,...]|none|any | remote on|off | " \
	"tunnels N | nexthops N"

/* fpm set tunnels|nexthops N: how many FPM may take. Below what it holds
 * already: those stay, new ones are refused. */
static int
set_cap(const char *key, const char *value, char *err, size_t errlen)
{
	bool tun = strcmp(key, "tunnels") == 0;
	unsigned long max = tun ? TEP_TUNNELS_MAX : TEP_NH_MAX, v;
	char *end;

	errno = 0;
	v = strtoul(value, &end, 10);
	if (value[0] < '0' || value[0] > '9' || *end != '\0' || errno != 0 ||
	    v > max) {
		snprintf(err, errlen, "%s \"%s\": 0-%lu (how many %s FPM "
			 "may make)", key, value, max,
			 tun ? "tunnels" : "next hops");
		return EINVAL;
	}
	if (tun)
		fpm.tunnels_max = (uint32_t)v;
	else
		fpm.nh_max = (uint32_t)v;
	return 0;
}

int
tep_fpm_set(const char *key, const char *value, char *err, size_t errlen)
{
	char *end;
	double s;
	uint32_t ms;

	if (strcmp(key, "uids") == 0 || strcmp(key, "remote") == 0)
		return door_set(key, value, err, errlen);
	if (strcmp(key, "tunnels") == 0 || strcmp(key, "nexthops") == 0)
		return set_cap(key, value, err, errlen);
	errno = 0;
	s = strtod(value, &end);
	if (end == value || *end != '\0' || errno != 0 ||
	    !(s >= 0 && s <= 3600)) {
		snprintf(err, errlen, "bad time \"%s\" (seconds, 0 to 3600)",
			 value);
		return EINVAL;
	}
	ms = (uint32_t)(s * 1000 + 0.5);
	if (strcmp(key, "quiet") == 0) {
		if (ms == 0) {
			snprintf(err, errlen, "quiet must be above 0: a sweep "
				 "before the replay would remove routes zebra "
				 "still has");
			return EINVAL;
		}
		fpm.quiet_ms = ms;
	} else if (strcmp(key, "hold") == 0) {
		fpm.hold_ms = ms;
	} else if (strcmp(key, "stale") == 0) {
		fpm.stale_ms = ms;
	} else {
		snprintf(err, errlen, FPM_SET_USAGE);
		return EINVAL;
	}
	return 0;
}

