/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "tep_ctl_cmd.h"
#include "tep_ctl_priv.h"
#include "tep_ctl_proto.h"

/* ---- errors ------------------------------------------------------------ */

/* Error messages are one line of UTF-8 (they quote what the user sent):
 * control characters and bytes that are not UTF-8 become '?'. */
static void
err_sanitize(char *s)
{
	size_t n = strlen(s), i = 0, k;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f) {
			s[i++] = '?';
		} else if (c < 0x80) {
			i++;
		} else if ((k = tep_utf8_seq_len((unsigned char *)s + i,
						 n - i)) != 0) {
			i += k;
		} else {
			s[i++] = '?';
		}
	}
}

static void
err_mark_cut(char *msg, int n)
{
	if (n >= TEP_ERR_MSG_MAX)
		memcpy(msg + TEP_ERR_MSG_MAX - 4, "...", 4);
}

int
tep_err_set(struct tep_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		err->msg[0] = '\0';
	err_mark_cut(err->msg, n);
	err_sanitize(err->msg);
	err->code = code;
	return code;
}

void
tep_err_prefix(struct tep_err *err, const char *fmt, ...)
{
	char pre[TEP_ERR_MSG_MAX];
	char old[TEP_ERR_MSG_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	memcpy(old, err->msg, sizeof(old));
	n = snprintf(err->msg, sizeof(err->msg), "%s%s", pre, old);
	err_mark_cut(err->msg, n);
	err_sanitize(err->msg);
}

/* ---- context ----------------------------------------------------------- */

struct tep_ctl_ctx *
tep_ctl_ctx_new(void *user)
{
	struct tep_ctl_ctx *ctx = calloc(1, sizeof(*ctx));

	if (ctx != NULL) {
		ctx->user = user;
		ctx->origin = TEP_CTL_ORIGIN_API;
		ctx->pidfd = -1;
		ctx->pass_fd = -1;
	}
	return ctx;
}

void
tep_ctl_ctx_free(struct tep_ctl_ctx *ctx)
{
	if (ctx == NULL)
		return;
	if (ctx->stream_set)
		tep_ctl_stream_drop(&ctx->stream);
	if (ctx->pidfd >= 0)
		close(ctx->pidfd);
	if (ctx->pass_fd >= 0)
		close(ctx->pass_fd);
	free(ctx);
}

void *
tep_ctl_ctx_user(const struct tep_ctl_ctx *ctx)
{
	return ctx->user;
}

enum tep_ctl_origin
tep_ctl_ctx_origin(const struct tep_ctl_ctx *ctx)
{
	return ctx->origin;
}

int
tep_ctl_ctx_peer(const struct tep_ctl_ctx *ctx, pid_t *pid, uid_t *uid,
		 gid_t *gid)
{
	if (!ctx->has_peer)
		return ENOTCONN;
	if (pid != NULL)
		*pid = ctx->pid;
	if (uid != NULL)
		*uid = ctx->uid;
	if (gid != NULL)
		*gid = ctx->gid;
	return 0;
}

/* Is the process the pidfd was opened on still there? 0 or ESRCH. */
static int
pidfd_alive(int pidfd)
{
#ifdef SYS_pidfd_send_signal
	if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) != 0)
		return errno == EPERM ? 0 : errno;	/* EPERM: alive */
	return 0;
#else
	(void)pidfd;
	return 0;
#endif
}

int
tep_ctl_ctx_peer_netns(const struct tep_ctl_ctx *ctx, uint64_t *dev,
		       uint64_t *ino)
{
	char path[64];
	struct stat st;
	int rc;

	if (!ctx->has_peer)
		return ENOTCONN;
	/* Without a pidfd the PID cannot be pinned: only a kernel without
	 * pidfd_open (before 5.3) goes on; a peer already gone is ESRCH. */
	if (ctx->pidfd < 0 && ctx->pidfd_err != ENOSYS)
		return ctx->pidfd_err != 0 ? ctx->pidfd_err : ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)ctx->pid);
	if (stat(path, &st) != 0)
		return errno == ENOENT ? ESRCH : errno;
	/* Still alive after the stat: the PID was the peer's when read. */
	if (ctx->pidfd >= 0) {
		rc = pidfd_alive(ctx->pidfd);
		if (rc != 0)
			return rc;
	}
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return 0;
}

int
tep_ctl_reply_fd(struct tep_ctl_ctx *ctx, int fd)
{
	int copy;

	if (!ctx->has_peer || ctx->origin != TEP_CTL_ORIGIN_SOCKET)
		return ENOTSUP;
	if (ctx->pass_fd >= 0 || ctx->stream_set)
		return EBUSY;
	copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (copy < 0)
		return errno;
	ctx->pass_fd = copy;
	return 0;
}

/* ---- streaming --------------------------------------------------------- */

/* Both kinds of stream; interval_ms 0 is the paced one (checked by the
 * callers). */
static int
stream_setup(struct tep_ctl_ctx *ctx, unsigned int interval_ms,
	     tep_ctl_tick_fn tick, void *arg, void (*arg_free)(void *arg))
{
	if (!ctx->can_stream)
		return ENOTSUP;
	if (ctx->cmd == NULL || !(ctx->cmd->flags & TEP_CTL_CMD_STREAM) ||
	    ctx->stream_set || tick == NULL)
		return EINVAL;
	ctx->stream.interval_ms = interval_ms;
	ctx->stream.tick = tick;
	ctx->stream.arg = arg;
	ctx->stream.arg_free = arg_free;
	ctx->stream_set = true;
	return 0;
}

int
tep_ctl_stream_start(struct tep_ctl_ctx *ctx, unsigned int interval_ms,
		     tep_ctl_tick_fn tick, void *arg,
		     void (*arg_free)(void *arg))
{
	if (ctx->can_stream && (interval_ms < TEP_CTL_STREAM_MIN_MS ||
				interval_ms > TEP_CTL_STREAM_MAX_MS))
		return EINVAL;
	return stream_setup(ctx, interval_ms, tick, arg, arg_free);
}

int
tep_ctl_stream_start_paced(struct tep_ctl_ctx *ctx, tep_ctl_tick_fn tick,
			   void *arg, void (*arg_free)(void *arg))
{
	return stream_setup(ctx, 0, tick, arg, arg_free);
}

void
tep_ctl_stream_drop(struct tep_ctl_stream *s)
{
	if (s->arg_free != NULL)
		s->arg_free(s->arg);
	memset(s, 0, sizeof(*s));
}

/* ---- command table ----------------------------------------------------- */

struct cmd_entry {
	struct tep_ctl_cmd cmd;
	int nkw;
	char *kwbuf;			/* the keywords, split in place */
	char *kw[TEP_CTL_MAX_KEYWORDS];
};

struct tep_ctl_table {
	struct cmd_entry *ent;		/* sorted by keywords */
	size_t n;
	size_t cap;
};

static int help_fn(struct tep_ctl_ctx *ctx, int argc, char **argv,
		   struct tep_out *out, struct tep_err *err);

static const struct tep_ctl_cmd help_cmd = {
	.keywords = "help",
	.usage = "[COMMAND...]",
	.help = "list the commands, or those that start with COMMAND",
	.min_args = 0,
	.max_args = TEP_CTL_ARGS_ANY,
	.fn = help_fn,
};

struct tep_ctl_table *
tep_ctl_table_new(void)
{
	struct tep_ctl_table *t = calloc(1, sizeof(*t));
	struct tep_err err;

	if (t == NULL)
		return NULL;
	if (tep_ctl_register(t, &help_cmd, &err) != 0) {
		tep_ctl_table_free(t);
		return NULL;
	}
	return t;
}

void
tep_ctl_table_free(struct tep_ctl_table *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++)
		free(t->ent[i].kwbuf);
	free(t->ent);
	free(t);
}

static bool
keyword_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

/* Split the keywords at single spaces; false if malformed. */
static bool
split_keywords(struct cmd_entry *e)
{
	char *p = e->kwbuf;

	e->nkw = 0;
	for (;;) {
		if (!keyword_char(*p))
			return false;
		if (e->nkw == TEP_CTL_MAX_KEYWORDS)
			return false;
		e->kw[e->nkw++] = p;
		while (keyword_char(*p))
			p++;
		if (*p == '\0')
			return true;
		if (*p != ' ')
			return false;
		*p++ = '\0';
	}
}

/* Order of keyword lists: word by word, a prefix first. */
static int
kw_cmp(const struct cmd_entry *a, const struct cmd_entry *b)
{
	int i, c;

	for (i = 0; i < a->nkw && i < b->nkw; i++) {
		c = strcmp(a->kw[i], b->kw[i]);
		if (c != 0)
			return c;
	}
	return a->nkw - b->nkw;
}

int
tep_ctl_register(struct tep_ctl_table *t, const struct tep_ctl_cmd *cmd,
		 struct tep_err *err)
{
	struct cmd_entry e, *ne;
	size_t i, pos;
	int c;

	tep_err_clear(err);
	if (cmd->keywords == NULL)
		return tep_err_set(err, EINVAL, "command without keywords");
	if (cmd->fn == NULL || cmd->help == NULL)
		return tep_err_set(err, EINVAL,
				   "command \"%s\": no handler or no help",
				   cmd->keywords);
	if (cmd->min_args < 0 ||
	    (cmd->max_args != TEP_CTL_ARGS_ANY &&
	     cmd->max_args < cmd->min_args) ||
	    cmd->min_args > TEP_CTL_MAX_ARGS)
		return tep_err_set(err, EINVAL,
				   "command \"%s\": bad argument counts",
				   cmd->keywords);
	if (cmd->flags & ~TEP_CTL_CMD_STREAM)
		return tep_err_set(err, EINVAL, "command \"%s\": bad flags",
				   cmd->keywords);
	memset(&e, 0, sizeof(e));
	e.cmd = *cmd;
	e.kwbuf = strdup(cmd->keywords);
	if (e.kwbuf == NULL)
		return tep_err_set(err, ENOMEM, "out of memory");
	if (!split_keywords(&e)) {
		free(e.kwbuf);
		return tep_err_set(err, EINVAL,
				   "command \"%s\": bad keywords",
				   cmd->keywords);
	}
	/* sorted insert */
	pos = t->n;
	for (i = 0; i < t->n; i++) {
		c = kw_cmp(&e, &t->ent[i]);
		if (c == 0) {
			free(e.kwbuf);
			return tep_err_set(err, EEXIST,
					   "command \"%s\" already registered",
					   cmd->keywords);
		}
		if (c < 0 && pos == t->n)
			pos = i;
	}
	if (t->n == t->cap) {
		size_t ncap = t->cap != 0 ? 2 * t->cap : 16;

		ne = realloc(t->ent, ncap * sizeof(*ne));
		if (ne == NULL) {
			free(e.kwbuf);
			return tep_err_set(err, ENOMEM, "out of memory");
		}
		t->ent = ne;
		t->cap = ncap;
	}
	memmove(&t->ent[pos + 1], &t->ent[pos],
		(t->n - pos) * sizeof(t->ent[0]));
	t->ent[pos] = e;
	t->n++;
	return 0;
}

int
tep_ctl_register_all(struct tep_ctl_table *t, const struct tep_ctl_cmd *cmds,
		     size_t n, struct tep_err *err)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		rc = tep_ctl_register(t, &cmds[i], err);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* How many of e's keywords match the leading words of argv. */
static int
kw_match(const struct cmd_entry *e, int argc, char *const argv[])
{
	int i;

	for (i = 0; i < e->nkw && i < argc; i++)
		if (strcmp(e->kw[i], argv[i]) != 0)
			break;
	return i;
}

static const struct cmd_entry *
lookup(const struct tep_ctl_table *t, int argc, char *const argv[],
       int *partial)
{
	const struct cmd_entry *best = NULL;
	size_t i;
	int m;

	*partial = 0;
	for (i = 0; i < t->n; i++) {
		m = kw_match(&t->ent[i], argc, argv);
		if (m == t->ent[i].nkw) {
			if (best == NULL || m > best->nkw)
				best = &t->ent[i];
		} else if (m > *partial) {
			*partial = m;
		}
	}
	return best;
}

const struct tep_ctl_cmd *
tep_ctl_lookup(const struct tep_ctl_table *t, int argc, char *const argv[],
	       int *nkw)
{
	const struct cmd_entry *e;
	int partial;

	e = lookup(t, argc, argv, &partial);
	if (e == NULL)
		return NULL;
	if (nkw != NULL)
		*nkw = e->nkw;
	return &e->cmd;
}

/* "w0 w1 ... w(n-1)" into buf, for messages. */
static void
join_words(char *buf, size_t size, int n, char *const argv[])
{
	size_t len = 0;
	int i, w;

	buf[0] = '\0';
	for (i = 0; i < n && len < size; i++) {
		w = snprintf(buf + len, size - len, "%s%s", i > 0 ? " " : "",
			     argv[i]);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

int
tep_ctl_dispatch(const struct tep_ctl_table *t, struct tep_ctl_ctx *ctx,
		 int argc, char **argv, struct tep_out *out,
		 struct tep_err *err)
{
	const struct cmd_entry *e;
	char words[256], more[256];
	const unsigned char *p;
	int partial, nargs, rc, i;

	tep_err_clear(err);
	if (argc <= 0)
		return tep_err_set(err, EINVAL, "empty command; try help");
	for (i = 0; i < argc; i++)
		for (p = (const unsigned char *)argv[i]; *p != '\0'; p++)
			if (*p < 0x20 || *p == 0x7f)
				return tep_err_set(err, EINVAL,
					"control character 0x%02x in word %d",
					*p, i + 1);
	e = lookup(t, argc, argv, &partial);
	if (e == NULL) {
		if (partial > 0 && partial < argc) {
			join_words(words, sizeof(words), partial + 1, argv);
			join_words(more, sizeof(more), partial, argv);
			return tep_err_set(err, EINVAL,
				"unknown command \"%s\"; try help %s",
				words, more);
		}
		if (partial > 0) {
			join_words(words, sizeof(words), partial, argv);
			return tep_err_set(err, EINVAL,
				"incomplete command \"%s\"; try help %s",
				words, words);
		}
		return tep_err_set(err, EINVAL,
				   "unknown command \"%s\"; try help", argv[0]);
	}
	nargs = argc - e->nkw;
	if (nargs < e->cmd.min_args ||
	    (e->cmd.max_args != TEP_CTL_ARGS_ANY && nargs > e->cmd.max_args))
		return tep_err_set(err, EINVAL, "%s: %s; usage: %s%s%s",
				   e->cmd.keywords,
				   nargs < e->cmd.min_args ?
				   "missing arguments" : "too many arguments",
				   e->cmd.keywords,
				   e->cmd.usage != NULL ? " " : "",
				   e->cmd.usage != NULL ? e->cmd.usage : "");
	ctx->cmd = &e->cmd;
	ctx->table = t;
	rc = e->cmd.fn(ctx, nargs, argv + e->nkw, out, err);
	ctx->cmd = NULL;
	if (rc < 0)
		rc = -rc;
	if (rc != 0) {
		if (err->msg[0] == '\0')
			tep_err_set(err, rc, "%s: %s", e->cmd.keywords,
				    strerror(rc));
		err->code = rc;
	} else {
		tep_err_clear(err);
	}
	return rc;
}

/* ---- help -------------------------------------------------------------- */

/*
 * "help WORDS" lists the commands whose keywords start with WORDS, and
 * the command that WORDS would run when they go past its keywords.
 */
static bool
help_selects(const struct cmd_entry *e, const struct cmd_entry *best,
	     int argc, char **argv)
{
	if (argc <= e->nkw)
		return kw_match(e, argc, argv) == argc;
	return e == best;
}

static int
help_fn(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *out,
	struct tep_err *err)
{
	const struct tep_ctl_table *t = ctx->table;
	const struct cmd_entry *best;
	char words[256];
	size_t i, found = 0;
	int partial;

	best = lookup(t, argc, argv, &partial);
	for (i = 0; i < t->n; i++)
		if (help_selects(&t->ent[i], best, argc, argv))
			found++;
	if (found == 0) {
		join_words(words, sizeof(words), argc, argv);
		return tep_err_set(err, EINVAL,
				   "no command starts with \"%s\"; try help",
				   words);
	}
	tep_out_open_array(out, "commands");
	for (i = 0; i < t->n; i++) {
		const struct tep_ctl_cmd *c = &t->ent[i].cmd;

		if (!help_selects(&t->ent[i], best, argc, argv))
			continue;
		tep_out_open_object(out, NULL);
		tep_out_str(out, "command", "%s", c->keywords);
		if (c->usage != NULL)
			tep_out_str(out, "usage", " %s", c->usage);
		else
			tep_out_null(out, "usage", NULL);
		tep_out_str(out, "help", "\n    %s\n", c->help);
		tep_out_bool(out, "stream", NULL,
			     (c->flags & TEP_CTL_CMD_STREAM) != 0);
		tep_out_close_object(out);
	}
	tep_out_close_array(out);
	return 0;
}

/* ---- tokenizer --------------------------------------------------------- */

static bool
is_ctrl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

struct tok {
	char *line;		/* for columns */
	char *r;		/* read position */
	char *w;		/* write position, never past r */
	struct tep_err *err;
};

static int
col(const struct tok *t, const char *p)
{
	return (int)(p - t->line) + 1;
}

/* A backslash inside quotes not followed by '"' or '\'. */
static int
tok_bad_escape(struct tok *t, int quote_col)
{
	unsigned char n = (unsigned char)t->r[1];

	if (n == '\0')
		return tep_err_set(t->err, EINVAL,
				   "unterminated quote at column %d",
				   quote_col);
	if (is_ctrl(n))
		return tep_err_set(t->err, EINVAL,
				   "control character 0x%02x at column %d",
				   n, col(t, t->r) + 1);
	return tep_err_set(t->err, EINVAL,
			   "unknown escape \"\\%c\" at column %d", n,
			   col(t, t->r));
}

/* Copy one word from t->r to t->w; t->r stops on what ended it. */
static int
tok_word(struct tok *t)
{
	char *start = t->w;
	int word_col = col(t, t->r), quote_col = 0;
	bool quoted = false;
	unsigned char c;

	for (;; t->r++) {
		c = (unsigned char)*t->r;
		if (c == '\0' ||
		    (!quoted && (c == ' ' || c == '\t' || c == '#')))
			break;
		if (c == '"') {
			quoted = !quoted;
			quote_col = col(t, t->r);
			continue;
		}
		if (quoted && c == '\\') {
			if (t->r[1] != '"' && t->r[1] != '\\')
				return tok_bad_escape(t, quote_col);
			c = (unsigned char)*++t->r;
		}
		if (is_ctrl(c))
			return tep_err_set(t->err, EINVAL,
				"control character 0x%02x at column %d",
				c, col(t, t->r));
		if ((size_t)(t->w - start) >= TEP_CTL_MAX_WORD)
			return tep_err_set(t->err, EINVAL,
				"word too long at column %d (at most %u bytes)",
				word_col, TEP_CTL_MAX_WORD);
		*t->w++ = (char)c;
	}
	if (quoted)
		return tep_err_set(t->err, EINVAL,
				   "unterminated quote at column %d",
				   quote_col);
	return 0;
}

int
tep_ctl_tokenize(char *line, int *argc, char **argv, int max_args,
		 struct tep_err *err)
{
	struct tok t = { .line = line, .r = line, .w = line, .err = err };
	char *start, end;
	int rc;

	tep_err_clear(err);
	*argc = 0;
	for (;;) {
		while (*t.r == ' ' || *t.r == '\t')
			t.r++;
		if (*t.r == '\0' || *t.r == '#')
			break;
		if (*argc >= max_args)
			return tep_err_set(err, EINVAL,
				"too many words at column %d (at most %d)",
				col(&t, t.r), max_args);
		start = t.w;
		rc = tok_word(&t);
		if (rc != 0)
			return rc;
		/*
		 * w <= r: the NUL lands at worst on the byte that ended the
		 * word, which is read first.
		 */
		end = *t.r;
		*t.w++ = '\0';
		argv[(*argc)++] = start;
		if (end == '\0' || end == '#')
			break;
		t.r++;		/* the separator */
	}
	argv[*argc] = NULL;
	return 0;
}

int
tep_ctl_run_line(const struct tep_ctl_table *t, struct tep_ctl_ctx *ctx,
		 char *line, struct tep_out *out, struct tep_err *err)
{
	char *argv[TEP_CTL_MAX_ARGS + 1];
	int argc, rc;

	rc = tep_ctl_tokenize(line, &argc, argv, TEP_CTL_MAX_ARGS, err);
	if (rc != 0)
		return rc;
	if (argc == 0)
		return 0;
	return tep_ctl_dispatch(t, ctx, argc, argv, out, err);
}

int
tep_ctl_load_file(const struct tep_ctl_table *t, struct tep_ctl_ctx *ctx,
		  const char *path, struct tep_err *err)
{
	enum tep_ctl_origin saved_origin = ctx->origin;
	bool saved_stream = ctx->can_stream;
	struct tep_out out;
	char *line = NULL;
	size_t size = 0;
	unsigned long lineno = 0;
	ssize_t n;
	FILE *f;
	int rc = 0;

	tep_err_clear(err);
	f = fopen(path, "re");
	if (f == NULL) {
		rc = errno;
		return tep_err_set(err, rc, "%s: %s", path, strerror(rc));
	}
	ctx->origin = TEP_CTL_ORIGIN_FILE;
	ctx->can_stream = false;
	tep_out_init(&out, false, 0);
	while ((n = getline(&line, &size, f)) >= 0) {
		lineno++;
		if (n > 0 && line[n - 1] == '\n') {
			line[--n] = '\0';
			if (n > 0 && line[n - 1] == '\r')
				line[--n] = '\0';
		}
		if (strlen(line) != (size_t)n) {
			rc = tep_err_set(err, EINVAL,
					 "NUL byte at column %zu",
					 strlen(line) + 1);
		} else if ((size_t)n > TEP_CTL_MAX_REQ) {
			rc = tep_err_set(err, EINVAL,
					 "line too long (at most %u bytes)",
					 TEP_CTL_MAX_REQ);
		} else {
			tep_out_reset(&out);
			rc = tep_ctl_run_line(t, ctx, line, &out, err);
		}
		if (rc != 0) {
			tep_err_prefix(err, "%s:%lu: ", path, lineno);
			break;
		}
	}
	if (rc == 0 && ferror(f)) {
		rc = EIO;
		tep_err_set(err, rc, "%s:%lu: read error", path, lineno + 1);
	}
	free(line);
	fclose(f);
	tep_out_fini(&out);
	ctx->origin = saved_origin;
	ctx->can_stream = saved_stream;
	return rc;
}
