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
 *   replay marker), routes of older generations are swept. With a BGP
 *   stale time (`fpm set stale`), zebra's BGP routes (EVPN ones among
 *   them) are swept only that long after the replay: a zebra that
 *   restarted with bgpd replays before BGP has converged again, and
 *   sweeping then would cut traffic until it has (BGP graceful restart's
 *   stale routes, RFC 4724).
 * - When zebra goes away, its routes stay (as in a graceful restart) for
 *   `hold` ms, then all FPM routes are removed unless a new connection came
 *   (which sweeps them itself after its replay).
 * - Static routes (tepctl, config) and FPM routes share the FIB, one route
 *   per prefix. A static route wins: FPM adds, deletes and sweeps touch
 *   only routes whose next hop says proto FPM, so zebra can neither
 *   replace nor remove what the operator configured (tepctl route add on
 *   a prefix FPM holds is refused as for any existing route: route del
 *   first, and zebra's route is gone until zebra sends it again).
 * - EVPN type-5 routes (a VXLAN encap, or on-link in a VRF with an L3VNI,
 *   as zebra 8.4.4 sends them without VNI) go into a VXLAN tunnel per
 *   (VRF, VTEP, VNI), made here on first use with the VTEP's router MAC
 *   (RTM_NEWNEIGH) as inner destination, deleted with its last route.
 *   A route whose VTEP has no router MAC yet waits for it. Router MACs
 *   carry the generation too and are swept with the routes.
 * - FPM makes at most `fpm set tunnels` tunnels and holds at most `fpm
 *   set nexthops` next hops (3/4 of each by default): the rest stays for
 *   the operator's configuration, whatever zebra sends.
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
#include "args.h"
#include "fpm.h"

struct fpm_session fpm = { .lfd = -1, .cfd = -1, .quiet_ms = FPM_QUIET_MS,
	  .hold_ms = FPM_HOLD_MS, .tunnels_max = FPM_TUNNELS_DEFAULT,
	  .nh_max = FPM_NH_DEFAULT };


bool
tep_fpm_enabled(void)
{
	return fpm.enabled;
}

uint64_t
ms_to_tsc(uint32_t ms)
{
	return rte_get_tsc_hz() / 1000 * ms;
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
		route_add(&m->route, vrf_of_route(m));
		break;
	case TEP_FPM_ROUTE_DEL:
		route_del(&m->route, vrf_of_route(m));
		break;
	case TEP_FPM_MAC_ADD:
		mac_add(&m->mac);
		break;
	case TEP_FPM_MAC_DEL:
		mac_del(&m->mac);
		break;
	case TEP_FPM_NH_ADD:
		fpm.c.nexthops++;
		nhobj_add(&m->nhobj);
		break;
	case TEP_FPM_NH_DEL:
		fpm.c.nexthops++;
		nhobj_del(m->nhobj.id);
		break;
	default:
		fpm.c.ignored++;
		break;
	}
}

/* The same route: a delete of it followed by an add. */
static bool
same_route(const struct tep_fpm_msg *del, const struct tep_fpm_msg *add)
{
	return del->kind == TEP_FPM_ROUTE_DEL &&
	       add->kind == TEP_FPM_ROUTE_ADD &&
	       del->route.family == add->route.family &&
	       del->route.plen == add->route.plen &&
	       memcmp(del->route.prefix, add->route.prefix,
		      sizeof(del->route.prefix)) == 0 &&
	       vrf_of_route(del) == vrf_of_route(add);
}

/*
 * Apply the messages of one frame (decoded already) in order, but a route
 * delete directly followed by an add of the same route: zebra 8.4.4 sends
 * a route that changes so, in one frame. Applied one after the other the
 * prefix would be without a route between the two, and an EVPN route's
 * automatic tunnel, its only user gone, deleted and made again (its
 * underlay neighbour resolved anew). The add alone replaces the route in
 * place (route_add()), and if zebra's new route is one tepd cannot follow,
 * it removes the old one as the delete would have.
 */
static void
apply_frame(const uint8_t *frame, size_t flen)
{
	static struct tep_fpm_msg msg[2];
	struct tep_fpm_msg *prev = NULL, *cur = &msg[0];
	size_t moff = 0;

	do {
		tep_fpm_decode_next(frame, flen, &moff, cur);
		if (prev != NULL && same_route(prev, cur))
			fpm.c.routes_changed++;
		else if (prev != NULL)
			apply(prev);
		prev = cur;
		cur = cur == &msg[0] ? &msg[1] : &msg[0];
	} while (moff < flen);
	apply(prev);
}

/* The start of a frame that could not be framed, for the log: what
 * zebra sent is the first thing anyone will want to see. */
static void
log_frame_head(const uint8_t *b, size_t len)
{
	size_t i, n = len < 64 ? len : 64;

	fprintf(stderr, "tepd: fpm: frame starts");
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%02x", i % 4 ? "" : " ", b[i]);
	fprintf(stderr, "%s (%zu bytes buffered)\n", n < len ? " ..." : "",
		len);
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
	size_t off = 0, flen, moff;
	int ret;

	while (off < fpm.blen) {
		ret = tep_fpm_frame_check(fpm.buf + off, fpm.blen - off, &flen);
		if (ret == TEP_FPM_E_INCOMPLETE)
			break;
		fpm.frame_no++;
		if (ret != TEP_FPM_E_OK) {
			log_frame_head(fpm.buf + off, fpm.blen - off);
			parse_error(ret, NULL);
			return false;
		}
		/* every message of the frame decoded before any is applied:
		 * nothing of a frame that does not parse is installed */
		moff = 0;
		do
			ret = tep_fpm_decode_next(fpm.buf + off, flen, &moff,
						  &m);
		while (ret == TEP_FPM_E_OK && moff < flen);
		if (ret != TEP_FPM_E_OK) {
			parse_error(ret, &m);
			return false;
		}
		fpm.c.frames++;
		apply_frame(fpm.buf + off, flen);
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
	uint64_t snaps = fpm.c.nlport_snapshots;
	ssize_t n;
	int i;

	/* one snapshot of the netlink port ids per turn at most: the rest
	 * of the stream waits for the next one (vrf_of_nlport()) */
	for (i = 0; i < FPM_READS_PER_POLL && fpm.cfd >= 0 &&
	     fpm.c.nlport_snapshots == snaps; i++) {
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
		fpm.reads++;
		if (!drain_frames())
			return;
	}
}

/* ---- accepting ---------------------------------------------------------- */

/* One connection from the backlog; false when there was none. */
static bool
conn_accept(void)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char peer[sizeof(fpm.peer)];
	int fd;

	fd = accept4(fpm.lfd, (struct sockaddr *)&ss, &sl,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return false;
	peer_name(&ss, peer, sizeof(peer));
	if (!peer_allowed(fd, peer)) {
		close(fd);
		return true;
	}
	if (fpm.cfd >= 0) {
		fpm.c.conn_replaced++;
		conn_close("replaced by a new connection");
	}
	snprintf(fpm.peer, sizeof(fpm.peer), "%s", peer);
	fpm.cfd = fd;
	fpm.blen = 0;
	fpm.frame_no = 0;
	/* Every FPM route is stale from now on until replayed. */
	fpm.gen++;
	if (fpm.gen == 0)
		fpm.gen = 1;
	fpm.nnlport = 0;
	fpm.nnlport_logged = 0;
	nhobj_reset();
	fpm.sweep_due = true;
	fpm.hold_due = false;
	fpm.last_tsc = rte_rdtsc();
	fpm.c.connects++;
	printf("tepd: fpm: connection from %s (generation %u)\n", fpm.peer,
	       fpm.gen);
	fflush(stdout);
	return true;
}

void
tep_fpm_poll(void)
{
	uint64_t now;
	int i;

	if (!fpm.enabled)
		return;
	/* refused connections must not queue up in the small backlog */
	for (i = 0; i < FPM_ACCEPTS_PER_POLL && conn_accept(); i++)
		;
	if (fpm.cfd >= 0)
		conn_read();
	now = rte_rdtsc();
	if (fpm.cfd >= 0 && fpm.sweep_due &&
	    now - fpm.last_tsc >= ms_to_tsc(fpm.quiet_ms)) {
		fpm.sweep_due = false;
		sweep(SWEEP_REPLAY);
	}
	/* not while a new replay is under way: it will judge them again
	 * (and the clock read again: the sweep above may have just set
	 * stale_tsc, after `now`) */
	if (fpm.stale_due && !fpm.sweep_due &&
	    rte_rdtsc() - fpm.stale_tsc >= ms_to_tsc(fpm.stale_ms))
		sweep(SWEEP_STALE);
	if (fpm.cfd < 0 && fpm.hold_due &&
	    now - fpm.gone_tsc >= ms_to_tsc(fpm.hold_ms)) {
		fpm.hold_due = false;
		sweep(SWEEP_ALL);
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
	tep_tunnel_on_gone(evpn_tunnel_gone);
	evpn_on_release(route_add);
	nhobj_on_change(route_add, route_forget);
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
	/* in tepd's namespace, as the listener: the peers it can see are
	 * those that can reach 127.0.0.1 */
	door.diag_fd = tep_sock_diag_open();
	if (door.diag_fd < 0 && !door.any)
		fprintf(stderr, "tepd: fpm: no sock_diag socket (%s): every "
			"connection will be refused, as its uid cannot be "
			"told (fpm set uids any admits them)\n",
			strerror(errno));
	uids_default();
	if ((pending_index == NULL && pending_index_init(err, errlen) != 0) ||
	    nhobj_init(err, errlen) != 0) {
		tep_fpm_stop();
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
	if (door.diag_fd >= 0)
		close(door.diag_fd);
	fpm.cfd = fpm.lfd = door.diag_fd = -1;
	free(fpm.buf);
	fpm.buf = NULL;
	fpm.enabled = false;
}

