/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * tepd as the FPM server of FRR's zebra (tepd -P [ADDR:]PORT; zebra
 * -M dplane_fpm_nl connects to it). docs/evpn.md has the rules; in short:
 *
 * - One TCP listener, polled from the control thread's loop (no thread of
 *   its own): the control thread is the RIB's only writer, so routes are
 *   installed here directly, without locks.
 * - One client at a time. A new connection replaces the current one: a
 *   zebra that restarted connects anew while its old socket may still
 *   look alive to us, and refusing the newcomer would shut the live zebra
 *   out until the old socket timed out.
 * - The stream is framed with tep_fpm_frame_check() and each frame decoded
 *   with tep_fpm_decode() (lib/fpm). A frame that does not parse drops the
 *   connection: the stream cannot be trusted after it. Frames before it
 *   stay applied (each is an independent message); nothing of it is.
 * - Routes carry proto FPM and the generation (connection count) that
 *   last wrote them, in their next hop (struct tep_nh). A new connection
 *   bumps the generation, which makes every FPM route stale at once;
 *   zebra replays its whole RIB, which refreshes what it still has; once
 *   the stream has been quiet for `quiet` ms (zebra 8.4 sends no end of
 *   replay marker), routes of older generations are swept.
 * - When zebra goes away, its routes stay (as in a graceful restart) for
 *   `hold` ms, then all FPM routes are removed unless a new connection came
 *   (which sweeps them itself after its replay).
 * - Static routes (tepctl, config) and FPM routes share the FIB, one route
 *   per prefix. A static route wins: FPM adds, deletes and sweeps touch
 *   only routes whose next hop says proto FPM, so zebra can neither
 *   replace nor remove what the operator configured (tepctl route add on
 *   a prefix FPM holds is refused as for any existing route: route del
 *   first, and zebra's route is gone until zebra sends it again).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* accept4 */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "tep_out.h"
#include "tep_fpm.h"
#include "tepd.h"

#define FPM_BUF		(2 * TEP_FPM_MAX_FRAME)	/* a whole frame always fits */
#define FPM_READS_PER_POLL 8	/* then let the control socket have a turn */
#define FPM_QUIET_MS	2000	/* replay complete after this much silence */
#define FPM_HOLD_MS	60000	/* routes of a vanished zebra kept this long */
#define FPM_TABLES_LOGGED 64	/* unknown tables reported once each */

/* Counters, named as tepctl stats shows them ("fpm_" + name). */
#define FPM_COUNTERS(X)							\
	X(connects)		/* connections accepted */		\
	X(disconnects)		/* closed by zebra or by a read error */	\
	X(conn_replaced)	/* dropped for a newer connection */	\
	X(conn_dropped)		/* dropped for a frame that did not parse */ \
	X(frames)		/* frames decoded */			\
	X(bytes)		/* bytes read */			\
	X(ignored)		/* well formed, of no use (lib/fpm) */	\
	X(routes_added)		/* installed or replaced */		\
	X(routes_deleted)	/* removed by an FPM delete */		\
	X(route_del_unknown)	/* delete of a prefix with no route */	\
	X(route_del_not_fpm)	/* delete left alone: a static route */	\
	X(routes_static_kept)	/* add left alone: a static route */	\
	X(routes_no_vrf)	/* for a table no VRF has */		\
	X(routes_no_gateway)	/* unicast without gateway (on-link) */	\
	X(routes_unresolved)	/* gateway on no connected network */	\
	X(routes_encap)		/* with an encap tepd does not map */	\
	X(routes_failed)	/* refused by the FIB (full, ...) */	\
	X(ecmp_truncated)	/* multipath: only the first next hop kept */ \
	X(sweeps)		/* stale sweeps run */			\
	X(routes_swept)		/* stale routes removed by them */	\
	X(macs_added)		/* router MACs (RTM_NEWNEIGH) */	\
	X(macs_deleted)

struct fpm_counters {
#define FPM_X(n) uint64_t n;
	FPM_COUNTERS(FPM_X)
#undef FPM_X
	uint64_t err[TEP_FPM_E_MAX];
};

static struct {
	bool enabled;
	int lfd;
	int cfd;
	char listen[64];	/* as given to -P */
	char peer[INET6_ADDRSTRLEN + 8];
	uint8_t *buf;
	size_t blen;
	uint64_t frame_no;	/* frames on this connection, from 1 */
	uint32_t gen;		/* bumped per connection; 0 is never used */
	bool sweep_due;		/* a replay is under way */
	bool hold_due;		/* zebra is gone, its routes are held */
	uint64_t last_tsc;	/* last frame, or the connect */
	uint64_t gone_tsc;	/* when the connection went away */
	uint32_t quiet_ms;
	uint32_t hold_ms;
	uint32_t tables_logged[FPM_TABLES_LOGGED];
	unsigned int ntables_logged;
	struct fpm_counters c;
} fpm = { .lfd = -1, .cfd = -1, .quiet_ms = FPM_QUIET_MS,
	  .hold_ms = FPM_HOLD_MS };

bool
tep_fpm_enabled(void)
{
	return fpm.enabled;
}

static uint64_t
ms_to_tsc(uint32_t ms)
{
	return rte_get_tsc_hz() / 1000 * ms;
}

/* ---- routes ------------------------------------------------------------- */

/* The VRF of a kernel table: 254 (main) and 0 are the default VRF; else
 * the VRF made with `vrf add NAME table ID`. -1 if none. */
static int
vrf_of_table(uint32_t table)
{
	int i;

	if (table == 254 || table == 0)
		return TEP_VRF_DEFAULT;
	for (i = 0; i < TEP_VRF_MAX; i++)
		if (tep.rib.vrf[i] != NULL && tep.rib.vrf[i]->table == table)
			return i;
	return -1;
}

static void
log_no_vrf(uint32_t table)
{
	unsigned int i;

	for (i = 0; i < fpm.ntables_logged; i++)
		if (fpm.tables_logged[i] == table)
			return;
	if (fpm.ntables_logged < FPM_TABLES_LOGGED)
		fpm.tables_logged[fpm.ntables_logged++] = table;
	else
		return;	/* enough said: the counter goes on */
	fprintf(stderr, "tepd: fpm: routes for table %u skipped: no vrf has "
		"that table (vrf add NAME table %u)\n", table, table);
}

static int
family_of(uint8_t af)
{
	return af == AF_INET ? 4 : 6;
}

static bool
is_fpm(const struct tep_nh *nh)
{
	return nh != NULL && nh->proto == TEP_PROTO_FPM;
}

/* Remove the route if FPM owns it; true if it did. */
static bool
del_if_fpm(uint16_t vrf, int family, const uint8_t *a, uint8_t depth)
{
	if (!is_fpm(tep_route_exact(&tep.rib, vrf, family, a, depth)))
		return false;
	if (tep_route_del(&tep.rib, vrf, family, a, depth, NULL, 0) != 0)
		return false;
	if (vrf == TEP_VRF_DEFAULT)
		tep_underlay_changed();
	return true;
}

/*
 * The next hop of a unicast route: a gateway on a port of the VRF, found
 * through the gateway's connected network as `route add ... via` does.
 * 0, or the counter to bump when tepd cannot follow the route.
 */
static uint64_t *
unicast_nh(const struct tep_fpm_route *rt, uint16_t vrf, struct tep_nh *nh)
{
	const struct tep_fpm_nh *n = &rt->nh[0];
	uint8_t p[16], d;
	uint32_t idx;
	int gf;

	if (n->encap_type != 0)
		return &fpm.c.routes_encap;
	if (n->gw_family == 0)
		return &fpm.c.routes_no_gateway;
	gf = family_of(n->gw_family);
	idx = tep_route_get(&tep.rib, vrf, gf, n->gw, p, &d);
	if (idx == TEP_NH_NONE || tep.rib.nh[idx].type != TEP_NHT_CONNECTED)
		return &fpm.c.routes_unresolved;
	nh->type = TEP_NHT_GW;
	nh->gw_v6 = gf == 6;
	memcpy(nh->gw, n->gw, gf == 4 ? 4 : 16);
	nh->port = tep.rib.nh[idx].port;
	return NULL;
}

static void
route_add(const struct tep_fpm_route *rt)
{
	struct tep_nh nh = { 0 };
	int vrf = vrf_of_table(rt->table), family = family_of(rt->family);
	const struct tep_nh *cur;
	uint64_t *skip = NULL;
	char e[256];

	if (vrf < 0) {
		fpm.c.routes_no_vrf++;
		log_no_vrf(rt->table);
		return;
	}
	nh.proto = TEP_PROTO_FPM;
	nh.gen = fpm.gen;
	switch (rt->type) {
	case TEP_FPM_RTN_BLACKHOLE:
	case TEP_FPM_RTN_UNREACHABLE:
	case TEP_FPM_RTN_PROHIBIT:
		/* tepd drops without telling the sender in all three */
		nh.type = TEP_NHT_BLACKHOLE;
		break;
	default:
		/* tepd's next hop is single: the first of a multipath */
		if (rt->nh_count > 1)
			fpm.c.ecmp_truncated++;
		skip = unicast_nh(rt, (uint16_t)vrf, &nh);
		break;
	}
	if (skip != NULL) {
		(*skip)++;
		/* zebra replaced the route by one tepd cannot follow: the
		 * old next hop is no longer where zebra routes */
		del_if_fpm((uint16_t)vrf, family, rt->prefix, rt->plen);
		return;
	}
	/* A configured route wins over zebra's: FPM never touches it */
	cur = tep_route_exact(&tep.rib, (uint16_t)vrf, family, rt->prefix,
			      rt->plen);
	if (cur != NULL && !is_fpm(cur)) {
		fpm.c.routes_static_kept++;
		return;
	}
	if (tep_route_replace(&tep.rib, (uint16_t)vrf, family, rt->prefix,
			      rt->plen, &nh, e, sizeof(e)) != 0) {
		if (fpm.c.routes_failed++ == 0)
			fprintf(stderr, "tepd: fpm: route not installed: %s "
				"(counted in fpm_routes_failed; logged once)\n",
				e);
		return;
	}
	fpm.c.routes_added++;
	if (vrf == TEP_VRF_DEFAULT)
		tep_underlay_changed();
}

static void
route_del(const struct tep_fpm_route *rt)
{
	int vrf = vrf_of_table(rt->table), family = family_of(rt->family);
	const struct tep_nh *nh;

	if (vrf < 0) {
		fpm.c.routes_no_vrf++;
		return;
	}
	nh = tep_route_exact(&tep.rib, (uint16_t)vrf, family, rt->prefix,
			     rt->plen);
	if (nh == NULL)
		fpm.c.route_del_unknown++;
	else if (!is_fpm(nh))
		fpm.c.route_del_not_fpm++;
	else if (del_if_fpm((uint16_t)vrf, family, rt->prefix, rt->plen))
		fpm.c.routes_deleted++;
}

/* ---- sweeping stale routes ---------------------------------------------- */

struct stale {
	uint8_t a[16];
	uint8_t depth;
};

struct sweep_ctx {
	struct stale *v;
	size_t n, cap;
	bool all;		/* every FPM route, whatever its generation */
	bool oom;
};

static void
collect_stale(void *arg, int family, const uint8_t *pfx, uint8_t depth,
	      const struct tep_nh *nh)
{
	struct sweep_ctx *s = arg;

	if (nh->proto != TEP_PROTO_FPM || (!s->all && nh->gen == fpm.gen))
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct stale *v = realloc(s->v, cap * sizeof(*v));

		if (v == NULL) {
			s->oom = true;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	memcpy(s->v[s->n].a, pfx, family == 4 ? 4 : 16);
	s->v[s->n].depth = depth;
	s->n++;
}

/* Remove the FPM routes of older generations (all: every FPM route).
 * Collected first, deleted after: the walk must not see the tree change
 * under it. */
static void
sweep(bool all)
{
	struct sweep_ctx s = { .all = all };
	uint64_t swept = 0;
	int vrf, fam;
	size_t i;

	for (vrf = 0; vrf < TEP_VRF_MAX; vrf++) {
		for (fam = 4; fam <= 6 && tep.rib.vrf[vrf] != NULL; fam += 2) {
			s.n = 0;
			tep_route_walk(&tep.rib, (uint16_t)vrf, fam,
				       collect_stale, &s);
			for (i = 0; i < s.n; i++)
				swept += tep_route_del(&tep.rib, (uint16_t)vrf,
						       fam, s.v[i].a,
						       s.v[i].depth, NULL,
						       0) == 0;
		}
	}
	free(s.v);
	if (s.oom)
		fprintf(stderr, "tepd: fpm: sweep: out of memory, some stale "
			"routes stay until the next sweep\n");
	fpm.c.sweeps++;
	fpm.c.routes_swept += swept;
	if (swept != 0)
		tep_underlay_changed();
	printf("tepd: fpm: %s: %" PRIu64 " stale route(s) removed\n",
	       all ? "hold time over" : "replay complete", swept);
	fflush(stdout);
}

/* ---- the connection ----------------------------------------------------- */

static void
conn_close(const char *why)
{
	if (fpm.cfd < 0)
		return;
	close(fpm.cfd);
	fpm.cfd = -1;
	fpm.blen = 0;
	/* A replay cut short must not sweep: what was not replayed yet
	 * is not known to be gone. The hold timer takes over. */
	fpm.sweep_due = false;
	fpm.hold_due = true;
	fpm.gone_tsc = rte_rdtsc();
	printf("tepd: fpm: connection from %s closed: %s; routes kept for "
	       "%u ms\n", fpm.peer, why, fpm.hold_ms);
	fflush(stdout);
}

static void
apply(const struct tep_fpm_msg *m)
{
	switch (m->kind) {
	case TEP_FPM_ROUTE_ADD:
		route_add(&m->route);
		break;
	case TEP_FPM_ROUTE_DEL:
		route_del(&m->route);
		break;
	case TEP_FPM_MAC_ADD:
		fpm.c.macs_added++;
		break;
	case TEP_FPM_MAC_DEL:
		fpm.c.macs_deleted++;
		break;
	default:
		fpm.c.ignored++;
		break;
	}
}

static void
parse_error(int err, const struct tep_fpm_msg *m)
{
	fpm.c.err[err < TEP_FPM_E_MAX ? err : 0]++;
	fpm.c.conn_dropped++;
	fprintf(stderr, "tepd: fpm: %s at frame %" PRIu64 ", dropping the "
		"connection", tep_fpm_err_str(err), fpm.frame_no);
	if (m != NULL && m->err_attr != 0)
		fprintf(stderr, " (offset %u, attribute %u)", m->err_off,
			m->err_attr);
	else if (m != NULL)
		fprintf(stderr, " (offset %u)", m->err_off);
	fputc('\n', stderr);
	conn_close(tep_fpm_err_str(err));
}

/* Apply every whole frame in the buffer; false if the connection was
 * dropped. */
static bool
drain_frames(void)
{
	struct tep_fpm_msg m;
	size_t off = 0, flen;
	int ret;

	while (off < fpm.blen) {
		ret = tep_fpm_frame_check(fpm.buf + off, fpm.blen - off, &flen);
		if (ret == TEP_FPM_E_INCOMPLETE)
			break;
		fpm.frame_no++;
		if (ret != TEP_FPM_E_OK) {
			parse_error(ret, NULL);
			return false;
		}
		memset(&m, 0, sizeof(m));
		ret = tep_fpm_decode(fpm.buf + off, flen, &m);
		if (ret != TEP_FPM_E_OK) {
			parse_error(ret, &m);
			return false;
		}
		fpm.c.frames++;
		apply(&m);
		off += flen;
	}
	if (off != 0) {
		memmove(fpm.buf, fpm.buf + off, fpm.blen - off);
		fpm.blen -= off;
	}
	if (off != 0)
		fpm.last_tsc = rte_rdtsc();
	return true;
}

static void
conn_read(void)
{
	int i;
	ssize_t n;

	for (i = 0; i < FPM_READS_PER_POLL && fpm.cfd >= 0; i++) {
		n = read(fpm.cfd, fpm.buf + fpm.blen, FPM_BUF - fpm.blen);
		if (n == 0) {
			fpm.c.disconnects++;
			if (fpm.blen != 0) {
				/* the last frame will never be whole */
				fpm.frame_no++;
				parse_error(TEP_FPM_E_INCOMPLETE, NULL);
				return;
			}
			conn_close("closed by zebra");
			return;
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR)
				return;
			fpm.c.disconnects++;
			conn_close(strerror(errno));
			return;
		}
		fpm.c.bytes += (uint64_t)n;
		fpm.blen += (size_t)n;
		if (!drain_frames())
			return;
	}
}

static void
conn_accept(void)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char a[INET6_ADDRSTRLEN] = "?";
	int fd;

	fd = accept4(fpm.lfd, (struct sockaddr *)&ss, &sl,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (fpm.cfd >= 0) {
		fpm.c.conn_replaced++;
		conn_close("replaced by a new connection");
	}
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(fpm.peer, sizeof(fpm.peer), "%s:%u", a,
			 ntohs(s4->sin_port));
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(fpm.peer, sizeof(fpm.peer), "[%s]:%u", a,
			 ntohs(s6->sin6_port));
	}
	fpm.cfd = fd;
	fpm.blen = 0;
	fpm.frame_no = 0;
	/* Every FPM route is stale from now on until replayed. */
	fpm.gen++;
	if (fpm.gen == 0)
		fpm.gen = 1;
	fpm.sweep_due = true;
	fpm.hold_due = false;
	fpm.last_tsc = rte_rdtsc();
	fpm.c.connects++;
	printf("tepd: fpm: connection from %s (generation %u)\n", fpm.peer,
	       fpm.gen);
	fflush(stdout);
}

void
tep_fpm_poll(void)
{
	uint64_t now;

	if (!fpm.enabled)
		return;
	conn_accept();
	if (fpm.cfd >= 0)
		conn_read();
	now = rte_rdtsc();
	if (fpm.cfd >= 0 && fpm.sweep_due &&
	    now - fpm.last_tsc >= ms_to_tsc(fpm.quiet_ms)) {
		fpm.sweep_due = false;
		sweep(false);
	}
	if (fpm.cfd < 0 && fpm.hold_due &&
	    now - fpm.gone_tsc >= ms_to_tsc(fpm.hold_ms)) {
		fpm.hold_due = false;
		sweep(true);
	}
}

int
tep_fpm_start(const char *listen_arg, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	bool v6;
	int one = 1;

	if (tep_parse_listen(listen_arg, &ss, &v6) != 0) {
		snprintf(err, errlen, "-P %s: expected [ADDR:]PORT, e.g. "
			 "2620, 127.0.0.1:2620 or [::1]:2620", listen_arg);
		return -1;
	}
	fpm.buf = malloc(FPM_BUF);
	if (fpm.buf == NULL) {
		snprintf(err, errlen, "-P: out of memory");
		return -1;
	}
	fpm.lfd = socket(v6 ? AF_INET6 : AF_INET,
			 SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fpm.lfd < 0 ||
	    setsockopt(fpm.lfd, SOL_SOCKET, SO_REUSEADDR, &one,
		       sizeof(one)) != 0 ||
	    bind(fpm.lfd, (struct sockaddr *)&ss,
		 v6 ? sizeof(struct sockaddr_in6) :
		      sizeof(struct sockaddr_in)) != 0 ||
	    listen(fpm.lfd, 4) != 0) {
		snprintf(err, errlen, "-P %s: cannot listen (%s)", listen_arg,
			 strerror(errno));
		if (fpm.lfd >= 0)
			close(fpm.lfd);
		fpm.lfd = -1;
		free(fpm.buf);
		fpm.buf = NULL;
		return -1;
	}
	snprintf(fpm.listen, sizeof(fpm.listen), "%s", listen_arg);
	fpm.enabled = true;
	return 0;
}

void
tep_fpm_stop(void)
{
	if (fpm.cfd >= 0)
		close(fpm.cfd);
	if (fpm.lfd >= 0)
		close(fpm.lfd);
	fpm.cfd = fpm.lfd = -1;
	free(fpm.buf);
	fpm.buf = NULL;
	fpm.enabled = false;
}

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
	tep_out_newline(o);
	tep_fpm_stats(o);
}

int
tep_fpm_set(const char *key, const char *value, char *err, size_t errlen)
{
	char *end;
	double s;
	uint32_t ms;

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
	} else {
		snprintf(err, errlen, "fpm set quiet SECONDS | hold SECONDS");
		return EINVAL;
	}
	return 0;
}
