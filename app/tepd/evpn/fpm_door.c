/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Who may connect to the FPM port (docs/security.md).
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

struct fpm_door door = { .diag_fd = -1 };

/* ---- who may connect ---------------------------------------------------- */

/*
 * Whoever feeds the FPM port writes tepd's RIB, the underlay's included,
 * and a new connection replaces zebra's. So only zebra may connect: the
 * peer's socket must be in tepd's network namespace and owned by root,
 * by tepd's uid or by one of `fpm set uids` (default: user frr's). A
 * peer whose socket is not in the namespace (another host, another
 * namespace) has no uid tepd can learn: refused unless `fpm set remote
 * on`. Checked before anything of the current session is touched.
 */


static bool
uid_allowed(uint32_t uid)
{
	unsigned int i;

	if (uid == 0 || uid == (uint32_t)geteuid())
		return true;
	for (i = 0; i < door.nuid; i++)
		if (door.uid[i] == uid)
			return true;
	return false;
}

static void
refusal_log(const char *peer, const char *why)
{
	uint64_t now = rte_rdtsc();

	if (now - door.log_tsc >= rte_get_tsc_hz()) {
		if (door.unlogged != 0)
			fprintf(stderr, "tepd: fpm: %u more connection(s) "
				"refused, not logged\n", door.unlogged);
		door.log_tsc = now;
		door.logged = door.unlogged = 0;
	}
	if (door.logged++ >= FPM_REFUSALS_LOGGED) {
		door.unlogged++;
		return;
	}
	fprintf(stderr, "tepd: fpm: connection from %s refused: %s\n", peer,
		why);
}

/* May the peer of this accepted connection feed routes? If not, counted
 * and logged. */
bool
peer_allowed(int fd, const char *peer)
{
	char why[160];
	uint32_t uid = 0;
	int ret;

	if (door.any)
		return true;
	ret = door.diag_fd >= 0 ? tep_tcp_peer_uid(door.diag_fd, fd, &uid) :
				  -EBADF;
	if (ret == 0 && uid_allowed(uid))
		return true;
	if (ret == -ENOENT && door.remote)
		return true;
	if (ret == 0) {
		fpm.c.refused_uid++;
		snprintf(why, sizeof(why), "uid %u is not allowed (root, "
			 "tepd's uid and fpm set uids are)", uid);
	} else {
		fpm.c.refused_unverified++;
		if (ret == -ENOENT)
			snprintf(why, sizeof(why), "its socket is not in "
				 "tepd's network namespace, its uid unknown "
				 "(fpm set remote on admits such peers)");
		else if (ret == -ESRCH)
			snprintf(why, sizeof(why), "its socket is closed, its "
				 "owner unknown");
		else
			snprintf(why, sizeof(why), "its uid could not be "
				 "looked up (sock_diag: %s)", strerror(-ret));
	}
	refusal_log(peer, why);
	return false;
}

void
peer_name(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(s4->sin_port));
	} else {
		const struct sockaddr_in6 *s6 =
			(const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(s6->sin6_port));
	}
}

/* The default allowed uid: FRR's user, when there is one. */
void
uids_default(void)
{
	struct passwd pw, *res = NULL;
	char buf[1024];

	if (door.uids_set)
		return;
	door.nuid = 0;
	if (getpwnam_r("frr", &pw, buf, sizeof(buf), &res) == 0 &&
	    res != NULL)
		door.uid[door.nuid++] = (uint32_t)pw.pw_uid;
}

/* `fpm set uids LIST|none|any`, `fpm set remote on|off`: 0 or EINVAL
 * with nothing changed */
int
door_set(const char *key, const char *value, char *err, size_t errlen)
{
	uint32_t uid[FPM_UIDS_MAX];
	unsigned int n = 0;
	char list[256], *tok, *save = NULL;

	if (strcmp(key, "remote") == 0) {
		if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0) {
			snprintf(err, errlen, "fpm set remote on|off, not "
				 "\"%s\"", value);
			return EINVAL;
		}
		door.remote = strcmp(value, "on") == 0;
		return 0;
	}
	if (strcmp(value, "any") == 0) {
		door.any = door.uids_set = true;
		door.nuid = 0;
		return 0;
	}
	if (snprintf(list, sizeof(list), "%s", value) >= (int)sizeof(list)) {
		snprintf(err, errlen, "fpm set uids: list too long");
		return EINVAL;
	}
	for (tok = strtok_r(list, ",", &save);
	     tok != NULL && strcmp(value, "none") != 0;
	     tok = strtok_r(NULL, ",", &save)) {
		struct passwd pw, *res = NULL;
		char buf[1024], *end;
		unsigned long v;

		if (n == FPM_UIDS_MAX) {
			snprintf(err, errlen, "fpm set uids: at most %d",
				 FPM_UIDS_MAX);
			return EINVAL;
		}
		errno = 0;
		v = strtoul(tok, &end, 10);
		if (*tok >= '0' && *tok <= '9' && *end == '\0' &&
		    errno == 0 && v < UINT32_MAX) {
			uid[n++] = (uint32_t)v;
			continue;
		}
		if (getpwnam_r(tok, &pw, buf, sizeof(buf), &res) != 0 ||
		    res == NULL) {
			snprintf(err, errlen, "fpm set uids: no user \"%s\" "
				 "(UID|USER[,...], none, any)", tok);
			return EINVAL;
		}
		uid[n++] = (uint32_t)pw.pw_uid;
	}
	if (n == 0 && strcmp(value, "none") != 0) {
		snprintf(err, errlen, "fpm set uids UID|USER[,...] | none | "
			 "any");
		return EINVAL;
	}
	memcpy(door.uid, uid, n * sizeof(uid[0]));
	door.nuid = n;
	door.any = false;
	door.uids_set = true;
	return 0;
}

void
door_show(struct tep_out *o)
{
	uint32_t self = (uint32_t)geteuid();
	struct passwd pw, *res = NULL;
	char buf[1024];
	unsigned int i;

	tep_out_bool(o, "uid_check", NULL, !door.any);
	if (door.any)
		tep_out_text(o, "allowed uids: any (fpm set uids any)");
	tep_out_open_array(o, "allowed_uids");
	if (!door.any) {
		tep_out_u64(o, NULL, "allowed uids: %" PRIu64 " (root)", 0);
		if (self != 0)
			tep_out_u64(o, NULL, ", %" PRIu64 " (tepd)", self);
	}
	for (i = 0; i < door.nuid; i++) {
		if (door.uid[i] == 0 || door.uid[i] == self)
			continue;
		tep_out_u64(o, NULL, ", %" PRIu64, door.uid[i]);
		if (getpwuid_r(door.uid[i], &pw, buf, sizeof(buf), &res) == 0 &&
		    res != NULL)
			tep_out_text(o, " (%s)", pw.pw_name);
	}
	tep_out_close_array(o);
	tep_out_bool(o, "remote", NULL, door.remote);
	tep_out_text(o, "; peers outside tepd's namespace: %s",
		     door.remote ? "let in (remote on)" : "refused");
	tep_out_newline(o);
}

