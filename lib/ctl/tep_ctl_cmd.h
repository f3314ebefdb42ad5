/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_CTL_CMD_H
#define TEP_CTL_CMD_H

/*
 * The control plane's command table, shared by the control socket and
 * the configuration file (one grammar for both).
 *
 * A command is a few leading keywords ("route add") followed by its
 * arguments. tep_ctl_dispatch() picks the command whose keywords match
 * the most leading words, checks the number of remaining words against
 * the command's min/max, and calls its handler with those remaining
 * words. Handlers write their result through struct tep_out (text or
 * JSON) and return 0, or a positive errno with a one-line message in err:
 *
 *	static int
 *	vrf_show(struct tep_ctl_ctx *ctx, int argc, char **argv,
 *		 struct tep_out *out, struct tep_err *err)
 *	{
 *		struct dp *dp = tep_ctl_ctx_user(ctx);
 *		struct vrf *v = dp_vrf_find(dp, argv[0]);
 *
 *		if (v == NULL)
 *			return tep_err_set(err, ENOENT,
 *					   "unknown vrf \"%s\"", argv[0]);
 *		...
 *	}
 *
 * Error conventions (docs/control-protocol.md): EINVAL for a malformed
 * command or argument, ENOENT for a named object that does not exist,
 * EEXIST for one that already does, EBUSY for an object in use, ENOTSUP
 * for something this build or NIC cannot do. Messages name the culprit
 * and quote user input: bad prefix "10.0.0.0/33".
 *
 * The table and handlers are not thread-safe: they run on one thread
 * (the control server's, or the daemon's main thread at start-up).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tep_ctl_proto.h"	/* TEP_CTL_MAX_ARGS, TEP_CTL_MAX_WORD */
#include "tep_out.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors ------------------------------------------------------------ */

#define TEP_ERR_MSG_MAX 1024

struct tep_err {
	int code;			/* 0, or a positive errno */
	char msg[TEP_ERR_MSG_MAX];	/* one line, no trailing newline */
};

static inline void
tep_err_clear(struct tep_err *err)
{
	err->code = 0;
	err->msg[0] = '\0';
}

/*
 * Set err (code, printf-style message) and return code, so a handler can
 * "return tep_err_set(err, EINVAL, ...);". Control characters in the
 * message (from quoted user input, say) become '?': the message stays on
 * one line. Too long a message is cut, ending in "...".
 */
int tep_err_set(struct tep_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Put a printf-style prefix in front of the message ("file:3: "). */
void tep_err_prefix(struct tep_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- context ----------------------------------------------------------- */

/*
 * What a handler knows of its caller. Opaque: it carries the daemon's
 * pointer (tep_ctl_ctx_user) and, on the control socket, the client.
 */
struct tep_ctl_ctx;

enum tep_ctl_origin {
	TEP_CTL_ORIGIN_API,	/* called directly */
	TEP_CTL_ORIGIN_FILE,	/* tep_ctl_load_file() */
	TEP_CTL_ORIGIN_SOCKET,	/* a control socket client */
};

struct tep_ctl_ctx *tep_ctl_ctx_new(void *user);
void tep_ctl_ctx_free(struct tep_ctl_ctx *ctx);
void *tep_ctl_ctx_user(const struct tep_ctl_ctx *ctx);
enum tep_ctl_origin tep_ctl_ctx_origin(const struct tep_ctl_ctx *ctx);

/* The socket client's credentials; ENOTCONN for another origin. */
int tep_ctl_ctx_peer(const struct tep_ctl_ctx *ctx, pid_t *pid, uid_t *uid,
		     gid_t *gid);

/*
 * The network namespace the socket client's process is in now: the
 * dev and inode of /proc/PID/ns/net, PID from SO_PEERCRED. What the
 * client says about itself is not asked. The process is held by a pidfd
 * taken when the connection was accepted, so a PID reused by another
 * process after the client exited is not mistaken for it: ESRCH then.
 * ENOTCONN for another origin; an errno of stat(2) otherwise.
 */
int tep_ctl_ctx_peer_netns(const struct tep_ctl_ctx *ctx, uint64_t *dev,
			   uint64_t *ino);

/*
 * Send a copy of fd (SCM_RIGHTS) with the final reply of the running
 * command, on the control socket only: the descriptor travels with the
 * reply's first byte, so the client cannot take it for another one.
 * Once per request; not with a stream. 0, ENOTSUP (not a socket client),
 * EBUSY (already set), or an errno of dup(2). If the handler then fails,
 * the copy is closed and nothing is sent.
 */
int tep_ctl_reply_fd(struct tep_ctl_ctx *ctx, int fd);

/* ---- commands ---------------------------------------------------------- */

struct tep_ctl_table;

typedef int (*tep_ctl_cmd_fn)(struct tep_ctl_ctx *ctx, int argc, char **argv,
			      struct tep_out *out, struct tep_err *err);

/* The command may call tep_ctl_stream_start(). */
#define TEP_CTL_CMD_STREAM	0x1u

/* max_args value: no maximum */
#define TEP_CTL_ARGS_ANY	(-1)

/* Words in a command's keywords */
#define TEP_CTL_MAX_KEYWORDS	8

struct tep_ctl_cmd {
	/*
	 * Leading keywords, separated by single spaces: lowercase letters,
	 * digits, '-' and '_'. At most TEP_CTL_MAX_KEYWORDS words.
	 */
	const char *keywords;
	/* Grammar of the arguments, for help and errors; NULL if none. */
	const char *usage;
	/* One line of help. */
	const char *help;
	int min_args;		/* arguments after the keywords */
	int max_args;		/* or TEP_CTL_ARGS_ANY */
	unsigned int flags;	/* TEP_CTL_CMD_* */
	/*
	 * argv: the words after the keywords (argv[argc] is NULL); the
	 * handler may modify them. Returns 0 or a positive errno (a negative
	 * value is taken as -errno, as DPDK returns them); on error, err
	 * should say what is wrong, and what was written to out is dropped.
	 */
	tep_ctl_cmd_fn fn;
};

/* A table holding the built-in "help" command. NULL if out of memory. */
struct tep_ctl_table *tep_ctl_table_new(void);
void tep_ctl_table_free(struct tep_ctl_table *t);

/*
 * Add a command. The struct is copied; the strings it points to must
 * outlive the table (string literals, typically). 0, or EINVAL (bad
 * definition, err says why), EEXIST (same keywords), ENOMEM.
 */
int tep_ctl_register(struct tep_ctl_table *t, const struct tep_ctl_cmd *cmd,
		     struct tep_err *err);

/* Register n commands; stops at the first failure. */
int tep_ctl_register_all(struct tep_ctl_table *t,
			 const struct tep_ctl_cmd *cmds, size_t n,
			 struct tep_err *err);

/*
 * The command with the longest keyword match for argv, or NULL.
 * *nkw gets its number of keywords.
 */
const struct tep_ctl_cmd *tep_ctl_lookup(const struct tep_ctl_table *t,
					 int argc, char *const argv[],
					 int *nkw);

/*
 * Run one command: argv is the whole command line, keywords included.
 * Returns what the handler returns, or EINVAL for an empty or unknown
 * command, a wrong number of arguments, or a control character in a
 * word. err is always set on error.
 */
int tep_ctl_dispatch(const struct tep_ctl_table *t, struct tep_ctl_ctx *ctx,
		     int argc, char **argv, struct tep_out *out,
		     struct tep_err *err);

/* ---- streaming --------------------------------------------------------- */

/*
 * Called every interval to write one stream item to out. Returns 0 (the
 * item is sent, the stream goes on), TEP_CTL_STREAM_END (out is sent as
 * the final reply, status 0) or a positive errno (err is sent as the
 * final error reply). The stream also ends when the client disconnects.
 */
typedef int (*tep_ctl_tick_fn)(struct tep_ctl_ctx *ctx, void *arg,
			       struct tep_out *out, struct tep_err *err);

#define TEP_CTL_STREAM_END	(-1)

/* Interval bounds (ms) */
#define TEP_CTL_STREAM_MIN_MS	1u
#define TEP_CTL_STREAM_MAX_MS	(24u * 3600 * 1000)

/*
 * From a TEP_CTL_CMD_STREAM handler on the control socket: after the
 * handler returns 0, what it wrote to out (if anything) is sent as the
 * first stream item, then tick runs every interval_ms until it ends the
 * stream or the client goes away; arg_free(arg) (if not NULL) runs then.
 * While a stream runs, the client's further requests wait.
 *
 * 0, or ENOTSUP (not on a socket), EINVAL (the command lacks
 * TEP_CTL_CMD_STREAM, a stream is already set up, bad interval). On
 * error arg stays the caller's. If the handler then fails, the stream is
 * dropped and arg_free runs.
 */
int tep_ctl_stream_start(struct tep_ctl_ctx *ctx, unsigned int interval_ms,
			 tep_ctl_tick_fn tick, void *arg,
			 void (*arg_free)(void *arg));

/*
 * The same for a reply in pieces (a listing past one reply's size): tick
 * runs as soon as the client has read all that was sent before, not on a
 * clock, so a slow reader slows the listing instead of being dropped,
 * and at most one piece waits for it. Same returns.
 */
int tep_ctl_stream_start_paced(struct tep_ctl_ctx *ctx, tep_ctl_tick_fn tick,
			       void *arg, void (*arg_free)(void *arg));

/* ---- command lines and files ------------------------------------------- */

/*
 * Split a line into words, in place: words are separated by spaces and
 * tabs; '#' outside double quotes starts a comment; double quotes group
 * a word and take the escapes \" and \\ (anything else after a backslash
 * inside quotes is an error; outside quotes a backslash is an ordinary
 * byte). Quoted and unquoted parts join: a"b c"d is one word. A control
 * character (other than a separating tab) is an error naming its
 * column (1-based byte offset). At most max_args words, each at most
 * TEP_CTL_MAX_WORD bytes; argv needs max_args + 1 slots (NULL-terminated).
 * 0 or EINVAL.
 */
int tep_ctl_tokenize(char *line, int *argc, char **argv, int max_args,
		     struct tep_err *err);

/* Tokenize and dispatch one line; a blank or comment line does nothing. */
int tep_ctl_run_line(const struct tep_ctl_table *t, struct tep_ctl_ctx *ctx,
		     char *line, struct tep_out *out, struct tep_err *err);

/*
 * Run a configuration file, one command per line ("\n" or "\r\n" ends),
 * with ctx's origin TEP_CTL_ORIGIN_FILE. Stops at the first line that
 * fails, with err "PATH:LINE: message" (or "PATH: message" if the file
 * cannot be read). Command output is discarded. 0 or an errno.
 */
int tep_ctl_load_file(const struct tep_ctl_table *t, struct tep_ctl_ctx *ctx,
		      const char *path, struct tep_err *err);

#ifdef __cplusplus
}
#endif

#endif /* TEP_CTL_CMD_H */
