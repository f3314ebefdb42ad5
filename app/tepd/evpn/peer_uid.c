/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Who is at the other end of a local TCP connection. TCP has no
 * SO_PEERCRED; the kernel's socket diagnostics (what `ss -e` shows) do
 * name the uid of every socket of the namespace, and an exact lookup by
 * 4-tuple is one hash lookup, answered before sendto() returns.
 */

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#include "peer_uid.h"

#define DIAG_REPLIES_MAX 4	/* stale replies skipped before giving up */

int
tep_sock_diag_open(void)
{
	return socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
		      NETLINK_SOCK_DIAG);
}

/* The request for the peer's socket: its local side is our peer
 * address, its remote side our local address. */
static int
diag_request(int fd, struct inet_diag_req_v2 *r)
{
	struct sockaddr_storage me, peer;
	socklen_t ml = sizeof(me), pl = sizeof(peer);

	if (getsockname(fd, (struct sockaddr *)&me, &ml) != 0 ||
	    getpeername(fd, (struct sockaddr *)&peer, &pl) != 0)
		return -errno;
	if (me.ss_family != peer.ss_family)
		return -EAFNOSUPPORT;
	memset(r, 0, sizeof(*r));
	r->sdiag_family = (uint8_t)peer.ss_family;
	r->sdiag_protocol = IPPROTO_TCP;
	r->idiag_states = ~0U;
	r->id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	r->id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if (peer.ss_family == AF_INET) {
		const struct sockaddr_in *p = (struct sockaddr_in *)&peer;
		const struct sockaddr_in *m = (struct sockaddr_in *)&me;

		r->id.idiag_sport = p->sin_port;
		r->id.idiag_dport = m->sin_port;
		memcpy(r->id.idiag_src, &p->sin_addr, 4);
		memcpy(r->id.idiag_dst, &m->sin_addr, 4);
	} else if (peer.ss_family == AF_INET6) {
		const struct sockaddr_in6 *p = (struct sockaddr_in6 *)&peer;
		const struct sockaddr_in6 *m = (struct sockaddr_in6 *)&me;

		r->id.idiag_sport = p->sin6_port;
		r->id.idiag_dport = m->sin6_port;
		memcpy(r->id.idiag_src, &p->sin6_addr, 16);
		memcpy(r->id.idiag_dst, &m->sin6_addr, 16);
		r->id.idiag_if = p->sin6_scope_id;
	} else {
		return -EAFNOSUPPORT;
	}
	return 0;
}

int
tep_tcp_peer_uid(int diag_fd, int fd, uint32_t *uid)
{
	static uint32_t seq;
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req;
	union {
		struct nlmsghdr nlh;
		uint8_t b[4096];
	} rep;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	const struct inet_diag_msg *m;
	struct nlmsghdr *h;
	size_t off;
	ssize_t n;
	int i, ret;

	memset(&req.nlh, 0, sizeof(req.nlh));
	ret = diag_request(fd, &req.r);
	if (ret != 0)
		return ret;
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST;	/* no dump: one socket */
	req.nlh.nlmsg_seq = ++seq;
	if (sendto(diag_fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) != (ssize_t)sizeof(req))
		return -errno;
	/* the kernel queued its answer within sendto(): nothing to wait for,
	 * but the answer to an earlier request that was given up on */
	for (i = 0; i < DIAG_REPLIES_MAX; i++) {
		n = recv(diag_fd, &rep, sizeof(rep), MSG_DONTWAIT);
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		/* by offset, not NLMSG_OK/NEXT: their casts and signed
		 * length trip clang's -Wcast-align and -Wsign-compare */
		for (off = 0; off + sizeof(*h) <= (size_t)n;
		     off += NLMSG_ALIGN(h->nlmsg_len)) {
			h = (struct nlmsghdr *)(void *)((uint8_t *)&rep + off);
			if (h->nlmsg_len < sizeof(*h) ||
			    off + h->nlmsg_len > (size_t)n)
				break;
			if (h->nlmsg_seq != req.nlh.nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				return e->error < 0 ? e->error : -EPROTO;
			}
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
			    h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
				return -EPROTO;
			m = NLMSG_DATA(h);
			/* a socket its process has closed reports uid 0:
			 * its owner is unknown, not root. A listener
			 * stands in for a connection that is gone. */
			if (m->idiag_inode == 0 || m->idiag_state == TCP_LISTEN)
				return -ESRCH;
			if (m->id.idiag_sport != req.r.id.idiag_sport)
				return -ENOENT;
			*uid = m->idiag_uid;
			return 0;
		}
	}
	return -EPROTO;
}
