/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_CTL_PRIV_H
#define TEP_CTL_PRIV_H

/* Inside lib/ctl only: what the command table and the server share. */

#include <stdbool.h>
#include <sys/types.h>

#include "tep_ctl_cmd.h"

struct tep_ctl_stream {
	unsigned int interval_ms;	/* 0: paced by the reader */
	tep_ctl_tick_fn tick;
	void *arg;
	void (*arg_free)(void *arg);
};

struct tep_ctl_ctx {
	void *user;
	enum tep_ctl_origin origin;
	/* the running command and its table, set by tep_ctl_dispatch() */
	const struct tep_ctl_cmd *cmd;
	const struct tep_ctl_table *table;
	/* socket clients */
	bool has_peer;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	int pidfd;		/* the peer process, or -1 ... */
	int pidfd_err;		/* ... and why (pidfd_open's errno) */
	bool can_stream;
	bool stream_set;	/* a handler called tep_ctl_stream_start() */
	int pass_fd;		/* tep_ctl_reply_fd(): sent with the reply */
	struct tep_ctl_stream stream;
};

/* Release a stream set up by a handler that then failed. */
void tep_ctl_stream_drop(struct tep_ctl_stream *s);

#endif /* TEP_CTL_PRIV_H */
