/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_CTL_SERVER_H
#define TEP_CTL_SERVER_H

/*
 * The control socket server: a UNIX stream socket served by one thread
 * with poll(2); no DPDK. Requests are framed as tep_ctl_proto.h says and
 * run through a command table (tep_ctl_cmd.h) on the server's thread.
 *
 * - The socket is created at conf->path with conf->mode; its directory
 *   is created (0750) if missing. A socket file already there is removed
 *   only when nothing answers on it; if a server answers, start-up fails
 *   with EADDRINUSE. Anything else at the path is left alone (EEXIST).
 * - The socket's directory, and every directory above it, must be owned
 *   by root or the server's uid; the socket's own directory must not be
 *   writable by group or others, the ones above only if sticky (/tmp).
 *   Otherwise start-up fails with EPERM naming the directory, its mode
 *   and owner: whoever can write there can replace the socket.
 * - Peers are checked with SO_PEERCRED: uid 0, the server's own uid, the
 *   allowed uid, and members of the allowed gid (primary or supplementary
 *   group) get in; others get one EACCES error reply and are closed.
 * - No set of clients locks out root or the server's own uid (the
 *   "privileged" uids): a client that sends no complete request within
 *   idle_ms of connecting or of its last reply is dropped; any other uid
 *   holds at most max_per_uid connections; the last reserved of the
 *   max_clients slots are for privileged clients only; and when even
 *   those are taken, a privileged newcomer takes the slot of a client
 *   that has never sent a complete request: of the peer process holding
 *   the most such slots, the one silent longest (a client whose request
 *   is already in its socket is read, not dropped).
 * - A client's requests run one at a time, in order; the next is read
 *   when the previous reply has been written to the socket (or queued, for
 *   a stream). Malformed or oversized requests get one error reply and the
 *   connection is closed; the server carries on.
 * - Replies are queued per client and written without blocking. A client
 *   whose queue would grow past conf->out_cap (it is not reading) is
 *   dropped; a single reply is always accepted into an empty queue.
 * - Streams (TEP_CTL_CMD_STREAM commands) tick from the same poll loop.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tep_ctl_cmd.h"
#include "tep_ctl_proto.h"	/* TEP_CTL_DEFAULT_SOCKET */

#ifdef __cplusplus
extern "C" {
#endif

#define TEP_CTL_DEFAULT_MODE	0660
#define TEP_CTL_DIR_MODE	0750
#define TEP_CTL_DEFAULT_CLIENTS	64
#define TEP_CTL_DEFAULT_OUT_CAP	(1u << 20)
#define TEP_CTL_DEFAULT_LINGER	1000	/* ms */
#define TEP_CTL_DEFAULT_IDLE	5000	/* ms: sshd's LoginGraceTime, scaled */
#define TEP_CTL_DEFAULT_PER_UID	8
#define TEP_CTL_DEFAULT_RESERVED 4
/* idle_ms, max_per_uid, reserved: no timeout, no limit, none */
#define TEP_CTL_NONE		(~0u)

struct tep_ctl_server_conf {
	const char *path;		/* NULL: TEP_CTL_DEFAULT_SOCKET */
	const struct tep_ctl_table *table;	/* required */
	void *user;			/* tep_ctl_ctx_user() in handlers */
	/*
	 * Who may connect besides root and the server's own uid. A zeroed
	 * conf allows nobody else. The socket is chowned to the allowed
	 * uid and gid, and the directory (if created here) to the allowed
	 * gid: give non-root users access through a group, since the
	 * directory is 0750. Needs CAP_CHOWN.
	 */
	bool allow_uid_set;
	uid_t allow_uid;
	bool allow_gid_set;
	gid_t allow_gid;
	mode_t mode;			/* 0: TEP_CTL_DEFAULT_MODE */
	unsigned int max_clients;	/* 0: TEP_CTL_DEFAULT_CLIENTS */
	/* Drop a client that sends no complete request for this long. */
	unsigned int idle_ms;		/* 0: TEP_CTL_DEFAULT_IDLE */
	/* Connections per uid, root and the server's uid excepted. */
	unsigned int max_per_uid;	/* 0: TEP_CTL_DEFAULT_PER_UID */
	/* Of max_clients, slots only root and the server's uid may take
	 * (at most max_clients - 1). */
	unsigned int reserved;		/* 0: TEP_CTL_DEFAULT_RESERVED */
	size_t out_cap;			/* 0: TEP_CTL_DEFAULT_OUT_CAP */
	/* How long a client being closed may take to read its last reply. */
	unsigned int linger_ms;		/* 0: TEP_CTL_DEFAULT_LINGER */
};

struct tep_ctl_server_stats {
	uint64_t accepted;	/* connections accepted (refused ones too) */
	uint64_t refused;	/* peer not allowed, or too many clients */
	uint64_t timed_out;	/* no complete request within idle_ms */
	uint64_t evicted;	/* idle, made room for a privileged client */
	uint64_t requests;	/* requests dispatched */
	uint64_t bad_requests;	/* malformed or oversized requests */
	uint64_t dropped;	/* clients dropped for not reading */
	uint64_t clients;	/* connected now */
	uint64_t streams;	/* streams running now */
};

struct tep_ctl_server;

/*
 * Create the socket and start listening. NULL on failure, with err
 * naming the path and the reason (EADDRINUSE: another server is live).
 */
struct tep_ctl_server *
tep_ctl_server_new(const struct tep_ctl_server_conf *conf,
		   struct tep_err *err);

/*
 * Close every client (ending their streams), close the socket and
 * unlink it if it is still the one this server created. Not while
 * tep_ctl_server_run() runs in another thread: stop and join it first.
 */
void tep_ctl_server_free(struct tep_ctl_server *s);

/*
 * One step of the loop: wait up to timeout_ms (-1: no limit, though a
 * stream or a closing client shortens it) for events, then serve them.
 * 0, or an errno from poll(2) (never EINTR).
 */
int tep_ctl_server_poll(struct tep_ctl_server *s, int timeout_ms);

/*
 * Serve until *stop is true (stop may be NULL) or tep_ctl_server_stop()
 * is called. *stop is checked at least every 200 ms; call
 * tep_ctl_server_wakeup() after setting it to stop at once.
 */
int tep_ctl_server_run(struct tep_ctl_server *s, const atomic_bool *stop);

/* Make tep_ctl_server_run() return. Thread- and async-signal-safe. */
void tep_ctl_server_stop(struct tep_ctl_server *s);

/* Interrupt a poll in progress. Thread- and async-signal-safe. */
void tep_ctl_server_wakeup(struct tep_ctl_server *s);

/* A snapshot of the counters; callable from any thread. */
void tep_ctl_server_stats(const struct tep_ctl_server *s,
			  struct tep_ctl_server_stats *st);

/* The socket's path. */
const char *tep_ctl_server_path(const struct tep_ctl_server *s);

#ifdef __cplusplus
}
#endif

#endif /* TEP_CTL_SERVER_H */
