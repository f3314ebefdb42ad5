/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * The control server, driven through real sockets: a server thread on a
 * temporary socket, clients written here from the protocol document (raw
 * frames, garbage, slow readers, other uids in forked children), and the
 * built tepctl binary (path in $TEPCTL, set by meson).
 */

#define _GNU_SOURCE		/* setgroups */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "tep_ctl_cmd.h"
#include "tep_ctl_proto.h"
#include "tep_ctl_server.h"

#define NOBODY 65534

/* ---- commands served ----------------------------------------------------- */

static atomic_int ticks_freed;
static char pad[65536];

static int
echo_fn(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *out,
	struct tep_err *err)
{
	int i;

	(void)ctx;
	(void)err;
	tep_out_open_array(out, "words");
	for (i = 0; i < argc; i++)
		tep_out_str(out, NULL, i > 0 ? " %s" : "%s", argv[i]);
	tep_out_close_array(out);
	tep_out_newline(out);
	return 0;
}

static int
fail_fn(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *out,
	struct tep_err *err)
{
	(void)ctx;
	(void)argc;
	(void)argv;
	tep_out_text(out, "partial output, dropped\n");
	return tep_err_set(err, ENOENT, "unknown vrf \"%s\"", "blue");
}

static int
big_fn(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *out,
       struct tep_err *err)
{
	size_t n = strtoul(argv[0], NULL, 10), k;

	(void)ctx;
	(void)argc;
	(void)err;
	while (n > 0) {
		k = n < sizeof(pad) ? n : sizeof(pad);
		tep_out_text(out, "%.*s", (int)k, pad);
		n -= k;
	}
	return 0;
}

static int
nul_fn(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *out,
       struct tep_err *err)
{
	(void)ctx;
	(void)argc;
	(void)argv;
	(void)err;
	tep_out_text(out, "a%cb", 0);
	return 0;
}

static int
whoami_fn(struct tep_ctl_ctx *ctx, int argc, char **argv,
	  struct tep_out *out, struct tep_err *err)
{
	uid_t uid;
	gid_t gid;
	pid_t pid;

	(void)argc;
	(void)argv;
	if (tep_ctl_ctx_origin(ctx) != TEP_CTL_ORIGIN_SOCKET ||
	    tep_ctl_ctx_peer(ctx, &pid, &uid, &gid) != 0 || pid <= 0)
		return tep_err_set(err, EIO, "no peer");
	tep_out_u64(out, "uid", "uid %" PRIu64 "\n", uid);
	return 0;
}

/* sleep MS: hold the server's thread, as a slow command would; while it
 * sleeps, connections wait in the listen queue and are then accepted in
 * one burst */
static atomic_int sleeping;

static int
sleep_fn(struct tep_ctl_ctx *ctx, int argc, char **argv,
	 struct tep_out *out, struct tep_err *err)
{
	(void)ctx;
	(void)argc;
	(void)err;
	atomic_store(&sleeping, 1);
	usleep((useconds_t)atoi(argv[0]) * 1000);
	atomic_store(&sleeping, 0);
	tep_out_text(out, "slept\n");
	return 0;
}

/* fd: pass pass_pipe[0] with the reply; fd fail: pass it, then fail. */
static int pass_pipe[2] = { -1, -1 };

static int
fd_fn(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *out,
      struct tep_err *err)
{
	int rc = tep_ctl_reply_fd(ctx, pass_pipe[0]);

	(void)argv;
	if (rc != 0)
		return tep_err_set(err, rc, "cannot pass it");
	/* a second one for the same reply is refused */
	if (tep_ctl_reply_fd(ctx, pass_pipe[0]) != EBUSY)
		return tep_err_set(err, EIO, "passed twice");
	if (argc > 0)
		return tep_err_set(err, EPERM, "changed my mind");
	tep_out_text(out, "here\n");
	return 0;
}

/* netns: "DEV:INO" of the peer's network namespace, as tepd sees it */
static int
netns_fn(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *out,
	 struct tep_err *err)
{
	uint64_t dev, ino;
	int rc;

	(void)argc;
	(void)argv;
	rc = tep_ctl_ctx_peer_netns(ctx, &dev, &ino);
	if (rc != 0)
		return tep_err_set(err, rc, "peer netns: %s", strerror(rc));
	tep_out_text(out, "%" PRIu64 ":%" PRIu64 "\n", dev, ino);
	return 0;
}

struct tick_arg {
	int n;
	int count;		/* 0: forever */
	size_t size;		/* text padding per item */
	bool fail;		/* fail on the second tick */
};

static void
tick_item(struct tep_out *out, struct tick_arg *a)
{
	tep_out_i64(out, "tick", "tick %" PRId64, a->n);
	tep_out_text(out, "%.*s\n", (int)a->size, pad);
}

static void
tick_free(void *arg)
{
	free(arg);
	atomic_fetch_add(&ticks_freed, 1);
}

static int
tick_fn(struct tep_ctl_ctx *ctx, void *arg, struct tep_out *out,
	struct tep_err *err)
{
	struct tick_arg *a = arg;

	(void)ctx;
	a->n++;
	if (a->fail)
		return tep_err_set(err, EIO, "sensor gone");
	if (a->count > 0 && a->n >= a->count) {
		tep_out_bool(out, "done", "done\n", true);
		return TEP_CTL_STREAM_END;
	}
	tick_item(out, a);
	return 0;
}

/* tick [COUNT [PAD [INTERVAL_MS]]]; INTERVAL_MS 0: paced by the reader */
static int
tick_cmd(struct tep_ctl_ctx *ctx, int argc, char **argv, struct tep_out *out,
	 struct tep_err *err)
{
	struct tick_arg *a = calloc(1, sizeof(*a));
	unsigned int interval = 10;
	int rc;

	if (a == NULL)
		return ENOMEM;
	a->count = argc > 0 ? atoi(argv[0]) : 0;
	a->size = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
	if (argc > 2)
		interval = (unsigned int)atoi(argv[2]);
	if (a->size > sizeof(pad))
		a->size = sizeof(pad);
	rc = interval == 0 ?
	     tep_ctl_stream_start_paced(ctx, tick_fn, a, tick_free) :
	     tep_ctl_stream_start(ctx, interval, tick_fn, a, tick_free);
	if (rc != 0) {
		free(a);
		return tep_err_set(err, rc, "stream refused");
	}
	tick_item(out, a);
	return 0;
}

static int
tickfail_fn(struct tep_ctl_ctx *ctx, void *arg, struct tep_out *out,
	    struct tep_err *err)
{
	((struct tick_arg *)arg)->fail = true;
	return tick_fn(ctx, arg, out, err);
}

static int
tickfail_start(struct tep_ctl_ctx *ctx, int argc, char **argv,
	       struct tep_out *out, struct tep_err *err)
{
	struct tick_arg *a = calloc(1, sizeof(*a));
	int rc;

	(void)argc;
	(void)argv;
	if (a == NULL)
		return ENOMEM;
	rc = tep_ctl_stream_start(ctx, 10, tickfail_fn, a, tick_free);
	if (rc != 0) {
		free(a);
		return tep_err_set(err, rc, "stream refused");
	}
	tick_item(out, a);
	return 0;
}

/* Not flagged TEP_CTL_CMD_STREAM: starting a stream must fail. */
static int
notstream_cmd(struct tep_ctl_ctx *ctx, int argc, char **argv,
	      struct tep_out *out, struct tep_err *err)
{
	int rc;

	(void)argc;
	(void)argv;
	(void)out;
	rc = tep_ctl_stream_start(ctx, 10, tick_fn, NULL, NULL);
	return tep_err_set(err, rc != 0 ? rc : EIO, "stream refused");
}

/* A stream set up, then the handler fails: the arg must be freed. */
static int
streamfail_cmd(struct tep_ctl_ctx *ctx, int argc, char **argv,
	       struct tep_out *out, struct tep_err *err)
{
	struct tick_arg *a = calloc(1, sizeof(*a));

	(void)argc;
	(void)argv;
	(void)out;
	if (a == NULL)
		return ENOMEM;
	if (tep_ctl_stream_start(ctx, 10, tick_fn, a, tick_free) != 0) {
		free(a);
		return EIO;
	}
	return tep_err_set(err, EBUSY, "changed my mind");
}

static const struct tep_ctl_cmd cmds[] = {
	{ .keywords = "echo", .usage = "[WORD...]", .help = "print the words",
	  .max_args = TEP_CTL_ARGS_ANY, .fn = echo_fn },
	{ .keywords = "fail", .help = "always fails", .fn = fail_fn },
	{ .keywords = "big", .usage = "BYTES", .help = "a large reply",
	  .min_args = 1, .max_args = 1, .fn = big_fn },
	{ .keywords = "nul", .help = "a NUL in the reply", .fn = nul_fn },
	{ .keywords = "whoami", .help = "peer uid", .fn = whoami_fn },
	{ .keywords = "fd", .usage = "[fail]", .help = "pass a descriptor",
	  .max_args = 1, .fn = fd_fn },
	{ .keywords = "netns", .help = "peer's netns", .fn = netns_fn },
	{ .keywords = "sleep", .usage = "MS", .help = "hold the thread",
	  .min_args = 1, .max_args = 1, .fn = sleep_fn },
	{ .keywords = "tick", .usage = "[COUNT [PAD [MS]]]",
	  .help = "a stream", .max_args = 3, .flags = TEP_CTL_CMD_STREAM,
	  .fn = tick_cmd },
	{ .keywords = "tick fail", .help = "a stream that fails",
	  .flags = TEP_CTL_CMD_STREAM, .fn = tickfail_start },
	{ .keywords = "tick bad", .help = "not a stream command",
	  .fn = notstream_cmd },
	{ .keywords = "tick undo", .help = "stream then error",
	  .flags = TEP_CTL_CMD_STREAM, .fn = streamfail_cmd },
};

/* ---- a server in a thread ------------------------------------------------ */

struct srv {
	struct tep_ctl_table *t;
	struct tep_ctl_server *s;
	pthread_t th;
	atomic_bool stop;
	int run_rc;
	char dir[64];
	char path[128];
};

static struct srv main_srv;

static void *
srv_thread(void *arg)
{
	struct srv *v = arg;

	v->run_rc = tep_ctl_server_run(v->s, &v->stop);
	return NULL;
}

static void
srv_dir(struct srv *v)
{
	snprintf(v->dir, sizeof(v->dir), "/tmp/tep-ctl-srv.XXXXXX");
	assert_non_null(mkdtemp(v->dir));
	/* others (uid 65534 in the peer tests) may traverse it */
	assert_int_equal(chmod(v->dir, 0755), 0);
	snprintf(v->path, sizeof(v->path), "%s/run/tepd.sock", v->dir);
}

static void
srv_start(struct srv *v, const struct tep_ctl_server_conf *tmpl)
{
	struct tep_ctl_server_conf conf;
	struct tep_err err;

	if (v->dir[0] == '\0')
		srv_dir(v);
	v->t = tep_ctl_table_new();
	assert_non_null(v->t);
	assert_int_equal(tep_ctl_register_all(v->t, cmds,
					      sizeof(cmds) / sizeof(cmds[0]),
					      &err), 0);
	if (tmpl != NULL)
		conf = *tmpl;
	else
		memset(&conf, 0, sizeof(conf));
	conf.path = v->path;
	conf.table = v->t;
	v->s = tep_ctl_server_new(&conf, &err);
	if (v->s == NULL)
		fail_msg("server: %s", err.msg);
	atomic_init(&v->stop, false);
	assert_int_equal(pthread_create(&v->th, NULL, srv_thread, v), 0);
}

static void
srv_stop(struct srv *v)
{
	char sub[160];
	struct stat st;

	atomic_store(&v->stop, true);
	tep_ctl_server_wakeup(v->s);
	assert_int_equal(pthread_join(v->th, NULL), 0);
	assert_int_equal(v->run_rc, 0);
	tep_ctl_server_free(v->s);
	v->s = NULL;
	tep_ctl_table_free(v->t);
	v->t = NULL;
	/* the socket is gone with the server */
	assert_int_equal(lstat(v->path, &st), -1);
	snprintf(sub, sizeof(sub), "%s/run", v->dir);
	rmdir(sub);
	assert_int_equal(rmdir(v->dir), 0);
	v->dir[0] = '\0';
}

static struct tep_ctl_server_stats
stats(const struct srv *v)
{
	struct tep_ctl_server_stats st;

	tep_ctl_server_stats(v->s, &st);
	return st;
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- a raw client -------------------------------------------------------- */

static int
cli_connect(const char *path)
{
	struct sockaddr_un sa;
	struct timeval tv = { .tv_sec = 10 };
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Send all of buf; errors (a server that closed on us) are ignored. */
static void
cli_send_raw(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	ssize_t n;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n <= 0)
			return;
		p += n;
		len -= (size_t)n;
	}
}

static void
cli_send_argv(int fd, uint8_t flags, int argc, char **argv)
{
	uint8_t buf[TEP_CTL_LEN_SIZE + TEP_CTL_MAX_REQ];
	size_t len;

	assert_int_equal(tep_ctl_req_encode(buf, sizeof(buf), flags, argc,
					    argv, &len), TEP_CTL_PERR_OK);
	cli_send_raw(fd, buf, len);
}

static int
read_full(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len > 0) {
		n = recv(fd, p, len, 0);
		if (n == 0)
			return 0;	/* EOF */
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 1;
}

struct rep {
	int kind;
	uint32_t status;
	char *body;		/* NUL-terminated copy */
	size_t len;
};

static void
rep_free(struct rep *r)
{
	free(r->body);
	r->body = NULL;
}

/* One reply frame: 1, or 0 at EOF, or -1 on error (timeout included). */
static int
cli_read(int fd, struct rep *r)
{
	uint8_t len4[4], *frame;
	struct tep_ctl_reply rep;
	size_t plen, flen;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = read_full(fd, len4, 4);
	if (rc <= 0)
		return rc;
	plen = tep_ctl_get_be32(len4);
	assert_true(plen <= TEP_CTL_MAX_REPLY);
	frame = malloc(4 + plen);
	assert_non_null(frame);
	memcpy(frame, len4, 4);
	if (read_full(fd, frame + 4, plen) != 1) {
		free(frame);
		return -1;
	}
	assert_int_equal(tep_ctl_reply_decode(frame, 4 + plen, &rep, &flen),
			 TEP_CTL_PERR_OK);
	r->kind = rep.kind;
	r->status = rep.status;
	r->len = rep.body_len;
	r->body = malloc(rep.body_len + 1);
	assert_non_null(r->body);
	memcpy(r->body, rep.body, rep.body_len);
	r->body[rep.body_len] = '\0';
	free(frame);
	return 1;
}

/* After an error reply, the server closes: EOF, not a reset. */
static void
assert_eof(int fd)
{
	char c;

	assert_int_equal(recv(fd, &c, 1, 0), 0);
}

static void
expect(int fd, int kind, uint32_t status, const char *body)
{
	struct rep r;

	assert_int_equal(cli_read(fd, &r), 1);
	assert_int_equal(r.kind, kind);
	assert_int_equal(r.status, status);
	assert_string_equal(r.body, body);
	rep_free(&r);
}

/* Connect, send one command (NULL-terminated words), read one reply. */
static void
cmd_expect(const char *path, uint8_t flags, uint32_t status,
	   const char *body, ...)
{
	char *argv[TEP_CTL_MAX_ARGS + 1];
	va_list ap;
	int argc = 0, fd;

	va_start(ap, body);
	while ((argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	fd = cli_connect(path);
	assert_true(fd >= 0);
	cli_send_argv(fd, flags, argc, argv);
	expect(fd, TEP_CTL_REPLY_FINAL, status, body);
	close(fd);
}

/* ---- tests --------------------------------------------------------------- */

static int
group_setup(void **state)
{
	struct tep_ctl_server_conf conf;

	(void)state;
	memset(pad, 'x', sizeof(pad));
	memset(&conf, 0, sizeof(conf));
	conf.out_cap = 256 * 1024;
	srv_start(&main_srv, &conf);
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	srv_stop(&main_srv);
	return 0;
}

static void
test_echo(void **state)
{
	const char *p = main_srv.path;
	char me[32];

	(void)state;
	cmd_expect(p, 0, 0, "hello world\n", "echo", "hello", "world", NULL);
	cmd_expect(p, 0, 0, "\n", "echo", NULL);
	cmd_expect(p, TEP_CTL_F_JSON, 0, "{\"words\":[\"a\",\"q\\\"\"]}\n",
		   "echo", "a", "q\"", NULL);
	cmd_expect(p, TEP_CTL_F_JSON, 0, "{\"words\":[]}\n", "echo", NULL);
	snprintf(me, sizeof(me), "uid %u\n", (unsigned int)geteuid());
	cmd_expect(p, 0, 0, me, "whoami", NULL);
}

static void
test_errors(void **state)
{
	const char *p = main_srv.path;

	(void)state;
	/* the handler's partial output is dropped */
	cmd_expect(p, 0, ENOENT, "unknown vrf \"blue\"", "fail", NULL);
	/* error bodies are text in JSON mode too */
	cmd_expect(p, TEP_CTL_F_JSON, ENOENT, "unknown vrf \"blue\"", "fail",
		   NULL);
	cmd_expect(p, 0, EINVAL, "unknown command \"nope\"; try help", "nope",
		   NULL);
	cmd_expect(p, 0, EINVAL, "empty command; try help", NULL);
	cmd_expect(p, 0, EINVAL, "control character 0x0a in word 2", "echo",
		   "a\nb", NULL);
	cmd_expect(p, 0, EINVAL, "big: missing arguments; usage: big BYTES",
		   "big", NULL);
	cmd_expect(p, 0, EMSGSIZE, "reply too large (more than 4194298 bytes)",
		   "big", "5000000", NULL);
	cmd_expect(p, 0, EIO, "internal error: NUL byte in reply", "nul",
		   NULL);
	cmd_expect(p, 0, EINVAL, "stream refused", "tick", "bad", NULL);
	cmd_expect(p, 0, 0, "help [COMMAND...]\n"
		   "    list the commands, or those that start with COMMAND\n",
		   "help", "help", NULL);
}

static void
test_stream_then_error(void **state)
{
	int before = atomic_load(&ticks_freed);

	(void)state;
	cmd_expect(main_srv.path, 0, EBUSY, "changed my mind", "tick", "undo",
		   NULL);
	assert_int_equal(atomic_load(&ticks_freed), before + 1);
	assert_int_equal(stats(&main_srv).streams, 0);
}

static void
test_big_reply(void **state)
{
	char n[32];
	struct rep r;
	char *argv[] = { "big", n, NULL };
	int fd;
	size_t i;

	(void)state;
	snprintf(n, sizeof(n), "%u", TEP_CTL_MAX_BODY);
	fd = cli_connect(main_srv.path);
	assert_true(fd >= 0);
	cli_send_argv(fd, 0, 2, argv);
	assert_int_equal(cli_read(fd, &r), 1);
	assert_int_equal(r.status, 0);
	assert_int_equal(r.len, TEP_CTL_MAX_BODY);
	for (i = 0; i < r.len; i++)
		if (r.body[i] != 'x')
			fail_msg("byte %zu is %d", i, r.body[i]);
	rep_free(&r);
	close(fd);
}

/* Requests written at once are answered in order, on one connection. */
static void
test_pipeline(void **state)
{
	uint8_t buf[256];
	size_t len, off = 0;
	char *a1[] = { "echo", "one", NULL };
	char *a2[] = { "fail", NULL };
	char *a3[] = { "echo", "three", NULL };
	int fd;

	(void)state;
	assert_int_equal(tep_ctl_req_encode(buf, sizeof(buf), 0, 2, a1, &len),
			 TEP_CTL_PERR_OK);
	off += len;
	assert_int_equal(tep_ctl_req_encode(buf + off, sizeof(buf) - off,
					    TEP_CTL_F_JSON, 1, a2, &len),
			 TEP_CTL_PERR_OK);
	off += len;
	assert_int_equal(tep_ctl_req_encode(buf + off, sizeof(buf) - off,
					    TEP_CTL_F_JSON, 2, a3, &len),
			 TEP_CTL_PERR_OK);
	off += len;
	fd = cli_connect(main_srv.path);
	assert_true(fd >= 0);
	cli_send_raw(fd, buf, off);
	expect(fd, TEP_CTL_REPLY_FINAL, 0, "one\n");
	expect(fd, TEP_CTL_REPLY_FINAL, ENOENT, "unknown vrf \"blue\"");
	expect(fd, TEP_CTL_REPLY_FINAL, 0, "{\"words\":[\"three\"]}\n");
	/* the connection stays usable */
	cli_send_argv(fd, 0, 2, a1);
	expect(fd, TEP_CTL_REPLY_FINAL, 0, "one\n");
	close(fd);
}

static void
garbage_case(const void *bytes, size_t len, uint32_t status, const char *msg)
{
	int fd = cli_connect(main_srv.path);

	assert_true(fd >= 0);
	cli_send_raw(fd, bytes, len);
	expect(fd, TEP_CTL_REPLY_FINAL, status, msg);
	assert_eof(fd);
	close(fd);
	/* and the server still serves others */
	cmd_expect(main_srv.path, 0, 0, "still here\n", "echo", "still",
		   "here", NULL);
}

static void
test_garbage(void **state)
{
	static const char http[] = "GET / HTTP/1.0\r\n\r\n";
	static const uint8_t badver[] = { 0, 0, 0, 7, 2, 0, 'h', 'e', 'l',
					  'p', 0 };
	static const uint8_t badflags[] = { 0, 0, 0, 7, 1, 0x40, 'h', 'e',
					    'l', 'p', 0 };
	static const uint8_t nonul[] = { 0, 0, 0, 6, 1, 0, 'h', 'e', 'l',
					 'p' };
	static const uint8_t short_hdr[] = { 0, 0, 0, 1, 1 };
	uint8_t many[4 + 2 + 2 * 129];
	uint64_t bad0 = stats(&main_srv).bad_requests;
	int i;

	(void)state;
	garbage_case(http, sizeof(http) - 1, EMSGSIZE,
		     "bad request: message too long");
	garbage_case(badver, sizeof(badver), EPROTO,
		     "bad request: unsupported protocol version");
	garbage_case(badflags, sizeof(badflags), EPROTO,
		     "bad request: unknown request flags");
	garbage_case(nonul, sizeof(nonul), EPROTO,
		     "bad request: word not NUL-terminated");
	garbage_case(short_hdr, sizeof(short_hdr), EPROTO,
		     "bad request: message shorter than its header");
	tep_ctl_put_be32(many, 2 + 2 * 129);
	many[4] = 1;
	many[5] = 0;
	for (i = 0; i < 129; i++) {
		many[6 + 2 * i] = 'x';
		many[6 + 2 * i + 1] = 0;
	}
	garbage_case(many, sizeof(many), E2BIG, "bad request: too many words");
	assert_int_equal(stats(&main_srv).bad_requests, bad0 + 6);
}

static void
test_oversized(void **state)
{
	static uint8_t big[4 + 9000];
	static char w[8][TEP_CTL_MAX_WORD + 1];
	char *argv[9];
	struct rep r;
	int fd, i;

	(void)state;
	/* a well-formed frame over the limit: refused from its prefix */
	tep_ctl_put_be32(big, 9000);
	big[4] = 1;
	memset(big + 6, 'a', sizeof(big) - 6);
	fd = cli_connect(main_srv.path);
	assert_true(fd >= 0);
	cli_send_raw(fd, big, sizeof(big));
	expect(fd, TEP_CTL_REPLY_FINAL, EMSGSIZE,
	       "bad request: message too long");
	/* the rest of the request was discarded, not left to reset us */
	assert_eof(fd);
	close(fd);

	/* exactly the limit is served: echo + 7 x 1024 + 1009 = 8192 */
	argv[0] = "echo";
	for (i = 0; i < 7; i++) {
		memset(w[i], 'a' + i, TEP_CTL_MAX_WORD);
		argv[i + 1] = w[i];
	}
	memset(w[7], 'h', 1009);
	argv[8] = w[7];
	assert_int_equal(tep_ctl_req_size(9, argv), 4 + TEP_CTL_MAX_REQ);
	fd = cli_connect(main_srv.path);
	assert_true(fd >= 0);
	cli_send_argv(fd, 0, 9, argv);
	assert_int_equal(cli_read(fd, &r), 1);
	assert_int_equal(r.status, 0);
	assert_int_equal(r.len, 7 * 1025 + 1009 + 1);
	rep_free(&r);
	close(fd);
}

/* A request cut short by the client's end of input. */
static void
test_truncated_then_eof(void **state)
{
	uint8_t buf[64];
	char *argv[] = { "echo", "x", NULL };
	size_t len;
	int fd;

	(void)state;
	assert_int_equal(tep_ctl_req_encode(buf, sizeof(buf), 0, 2, argv,
					    &len), TEP_CTL_PERR_OK);
	fd = cli_connect(main_srv.path);
	assert_true(fd >= 0);
	cli_send_raw(fd, buf, len - 1);
	assert_int_equal(shutdown(fd, SHUT_WR), 0);
	expect(fd, TEP_CTL_REPLY_FINAL, EPROTO,
	       "bad request: truncated message");
	assert_eof(fd);
	close(fd);

	/* a whole request then EOF: answered, then closed */
	fd = cli_connect(main_srv.path);
	assert_true(fd >= 0);
	cli_send_raw(fd, buf, len);
	assert_int_equal(shutdown(fd, SHUT_WR), 0);
	expect(fd, TEP_CTL_REPLY_FINAL, 0, "x\n");
	assert_eof(fd);
	close(fd);
}

static void
test_stream(void **state)
{
	char *argv[] = { "tick", "3", NULL };
	char *e[] = { "echo", "after", NULL };
	int fd, freed = atomic_load(&ticks_freed);

	(void)state;
	fd = cli_connect(main_srv.path);
	assert_true(fd >= 0);
	cli_send_argv(fd, 0, 2, argv);
	/* a request sent during the stream waits for its end */
	cli_send_argv(fd, 0, 2, e);
	expect(fd, TEP_CTL_REPLY_ITEM, 0, "tick 0\n");
	expect(fd, TEP_CTL_REPLY_ITEM, 0, "tick 1\n");
	expect(fd, TEP_CTL_REPLY_ITEM, 0, "tick 2\n");
	expect(fd, TEP_CTL_REPLY_FINAL, 0, "done\n");
	expect(fd, TEP_CTL_REPLY_FINAL, 0, "after\n");
	assert_int_equal(atomic_load(&ticks_freed), freed + 1);

	/* JSON items are whole documents */
	argv[1] = "2";
	cli_send_argv(fd, TEP_CTL_F_JSON, 2, argv);
	expect(fd, TEP_CTL_REPLY_ITEM, 0, "{\"tick\":0}\n");
	expect(fd, TEP_CTL_REPLY_ITEM, 0, "{\"tick\":1}\n");
	expect(fd, TEP_CTL_REPLY_FINAL, 0, "{\"done\":true}\n");
	close(fd);
}

static void
test_stream_fails(void **state)
{
	char *argv[] = { "tick", "fail", NULL };
	int fd, freed = atomic_load(&ticks_freed);

	(void)state;
	fd = cli_connect(main_srv.path);
	assert_true(fd >= 0);
	cli_send_argv(fd, 0, 2, argv);
	expect(fd, TEP_CTL_REPLY_ITEM, 0, "tick 0\n");
	expect(fd, TEP_CTL_REPLY_FINAL, EIO, "sensor gone");
	assert_int_equal(atomic_load(&ticks_freed), freed + 1);
	close(fd);
}

/* Half-closed clients still get the whole stream. */
static void
test_stream_half_closed(void **state)
{
	char *argv[] = { "tick", "2", NULL };
	int fd;

	(void)state;
	fd = cli_connect(main_srv.path);
	assert_true(fd >= 0);
	cli_send_argv(fd, 0, 2, argv);
	assert_int_equal(shutdown(fd, SHUT_WR), 0);
	expect(fd, TEP_CTL_REPLY_ITEM, 0, "tick 0\n");
	expect(fd, TEP_CTL_REPLY_ITEM, 0, "tick 1\n");
	expect(fd, TEP_CTL_REPLY_FINAL, 0, "done\n");
	assert_eof(fd);
	close(fd);
}

static bool
wait_streams(uint64_t want, int ms)
{
	uint64_t end = now_ms() + (uint64_t)ms;

	while (now_ms() < end) {
		if (stats(&main_srv).streams == want)
			return true;
		usleep(2000);
	}
	return false;
}

/* A disconnect ends the stream and frees its state. */
static void
test_stream_disconnect(void **state)
{
	char *argv[] = { "tick", NULL };
	int fd, freed = atomic_load(&ticks_freed);
	uint64_t end;

	(void)state;
	fd = cli_connect(main_srv.path);
	assert_true(fd >= 0);
	cli_send_argv(fd, 0, 1, argv);
	expect(fd, TEP_CTL_REPLY_ITEM, 0, "tick 0\n");
	expect(fd, TEP_CTL_REPLY_ITEM, 0, "tick 1\n");
	assert_int_equal(stats(&main_srv).streams, 1);
	close(fd);
	assert_true(wait_streams(0, 5000));
	end = now_ms() + 5000;
	while (atomic_load(&ticks_freed) != freed + 1 && now_ms() < end)
		usleep(2000);
	assert_int_equal(atomic_load(&ticks_freed), freed + 1);

	/* between two distant ticks, too: the hang-up alone ends it */
	fd = cli_connect(main_srv.path);
	assert_true(fd >= 0);
	{
		char *slow[] = { "tick", "0", "0", "60000", NULL };

		cli_send_argv(fd, 0, 4, slow);
	}
	expect(fd, TEP_CTL_REPLY_ITEM, 0, "tick 0\n");
	assert_true(wait_streams(1, 5000));
	close(fd);
	assert_true(wait_streams(0, 5000));
	assert_int_equal(atomic_load(&ticks_freed), freed + 2);
}

/*
 * A client that starts a stream and never reads: the others are served
 * without delay meanwhile, and it is dropped once its queue passes the cap.
 */
static void
test_slow_reader(void **state)
{
	char *argv[] = { "tick", "0", "1024", "2", NULL };
	uint64_t dropped0 = stats(&main_srv).dropped, t0, dt, worst = 0;
	uint64_t end;
	char buf[65536];
	ssize_t n;
	int slow, served = 0;

	(void)state;
	slow = cli_connect(main_srv.path);
	assert_true(slow >= 0);
	cli_send_argv(slow, 0, 4, argv);
	end = now_ms() + 30000;
	while (stats(&main_srv).dropped == dropped0 && now_ms() < end) {
		t0 = now_ms();
		cmd_expect(main_srv.path, 0, 0, "ping\n", "echo", "ping",
			   NULL);
		dt = now_ms() - t0;
		if (dt > worst)
			worst = dt;
		served++;
		usleep(10000);
	}
	assert_int_equal(stats(&main_srv).dropped, dropped0 + 1);
	assert_true(wait_streams(0, 5000));
	/* served while the stream ran, each well under a second */
	assert_true(served >= 5);
	assert_true(worst < 1000);
	/* the slow client finds what was sent, then EOF */
	do {
		n = recv(slow, buf, sizeof(buf), 0);
	} while (n > 0);
	assert_int_equal(n, 0);
	close(slow);
}

/*
 * A paced stream (a listing in pieces) and a client that reads nothing
 * for 1.5 s: 2000 items of 1 KiB, twice the queue's cap, would get it
 * dropped on a clock. Paced, the items wait for it: it is not dropped,
 * and then reads every item, in order, and the end.
 */
static void
test_paced_stream(void **state)
{
	char *argv[] = { "tick", "2000", "1024", "0", NULL };
	uint64_t dropped0 = stats(&main_srv).dropped;
	struct rep r;
	int fd, items = 0;

	(void)state;
	fd = cli_connect(main_srv.path);
	assert_true(fd >= 0);
	cli_send_argv(fd, 0, 4, argv);
	usleep(1500 * 1000);
	assert_int_equal(stats(&main_srv).dropped, dropped0);
	for (;;) {
		assert_int_equal(cli_read(fd, &r), 1);
		assert_int_equal(r.status, 0);
		if (r.kind == TEP_CTL_REPLY_FINAL) {
			assert_string_equal(r.body, "done\n");
			rep_free(&r);
			break;
		}
		items++;
		rep_free(&r);
	}
	/* the command's own item, 1999 ticks' items, then the end */
	assert_int_equal(items, 2000);
	assert_int_equal(stats(&main_srv).dropped, dropped0);
	close(fd);
	assert_true(wait_streams(0, 5000));
}

static void
test_socket_files(void **state)
{
	struct stat st;
	char dir[160];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/run", main_srv.dir);
	assert_int_equal(stat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0750);
	assert_int_equal(lstat(main_srv.path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0660);
	assert_string_equal(tep_ctl_server_path(main_srv.s), main_srv.path);
}

static void
test_second_server_refused(void **state)
{
	struct tep_ctl_server_conf conf;
	struct tep_err err;
	char want[256];

	(void)state;
	memset(&conf, 0, sizeof(conf));
	conf.path = main_srv.path;
	conf.table = main_srv.t;
	assert_null(tep_ctl_server_new(&conf, &err));
	assert_int_equal(err.code, EADDRINUSE);
	snprintf(want, sizeof(want), "another server is listening on %s",
		 main_srv.path);
	assert_string_equal(err.msg, want);
	/* the live one is untouched */
	cmd_expect(main_srv.path, 0, 0, "ok\n", "echo", "ok", NULL);

	conf.table = NULL;
	assert_null(tep_ctl_server_new(&conf, &err));
	assert_int_equal(err.code, EINVAL);
}

static void
test_stale_and_foreign_files(void **state)
{
	struct tep_ctl_server_conf conf;
	struct tep_ctl_server *s;
	struct sockaddr_un sa;
	struct tep_err err;
	struct stat st;
	char dir[64], path[128], want[256], longp[200];
	int fd;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/tep-ctl-stale.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/tepd.sock", dir);
	memset(&conf, 0, sizeof(conf));
	conf.path = path;
	conf.table = main_srv.t;

	/* a socket file nobody listens on: removed, then ours */
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	assert_true(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	assert_int_equal(lstat(path, &st), 0);
	s = tep_ctl_server_new(&conf, &err);
	if (s == NULL)
		fail_msg("stale socket not replaced: %s", err.msg);
	tep_ctl_server_free(s);
	assert_int_equal(lstat(path, &st), -1);

	/* anything else is left alone */
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_null(tep_ctl_server_new(&conf, &err));
	assert_int_equal(err.code, EEXIST);
	snprintf(want, sizeof(want), "%s exists and is not a socket", path);
	assert_string_equal(err.msg, want);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(unlink(path), 0);

	/* the socket's directory must be a directory */
	snprintf(path, sizeof(path), "%s/file", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/file/tepd.sock", dir);
	assert_null(tep_ctl_server_new(&conf, &err));
	assert_int_equal(err.code, ENOTDIR);
	snprintf(path, sizeof(path), "%s/file", dir);
	assert_int_equal(unlink(path), 0);

	/* too long for sun_path */
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	conf.path = longp;
	assert_null(tep_ctl_server_new(&conf, &err));
	assert_int_equal(err.code, ENAMETOOLONG);

	assert_int_equal(rmdir(dir), 0);
}

static void
test_too_many_clients(void **state)
{
	struct tep_ctl_server_conf conf;
	struct srv v;
	char *e[] = { "echo", "hi", NULL };
	int c1, c2, c3, fd, ok = 0;
	uint64_t end;

	(void)state;
	memset(&v, 0, sizeof(v));
	memset(&conf, 0, sizeof(conf));
	conf.max_clients = 2;
	srv_start(&v, &conf);
	c1 = cli_connect(v.path);
	c2 = cli_connect(v.path);
	assert_true(c1 >= 0 && c2 >= 0);
	cli_send_argv(c1, 0, 2, e);
	expect(c1, TEP_CTL_REPLY_FINAL, 0, "hi\n");
	cli_send_argv(c2, 0, 2, e);
	expect(c2, TEP_CTL_REPLY_FINAL, 0, "hi\n");
	c3 = cli_connect(v.path);
	assert_true(c3 >= 0);
	expect(c3, TEP_CTL_REPLY_FINAL, EBUSY, "too many clients");
	assert_eof(c3);
	close(c3);
	/* a slot frees up when a client leaves */
	close(c1);
	end = now_ms() + 5000;
	while (!ok && now_ms() < end) {
		struct rep r;

		fd = cli_connect(v.path);
		assert_true(fd >= 0);
		cli_send_argv(fd, 0, 2, e);
		assert_int_equal(cli_read(fd, &r), 1);
		ok = r.status == 0;
		rep_free(&r);
		close(fd);
		if (!ok)
			usleep(5000);
	}
	assert_true(ok);
	assert_true(stats(&v).refused >= 1);
	close(c2);
	srv_stop(&v);
}

/*
 * In a forked child (no cmocka, no malloc): become uid NOBODY with the
 * given groups, send "whoami" and check the reply. Exit 0 on a match.
 */
static int
child_whoami(const char *path, gid_t gid, const gid_t *groups, int ngroups,
	     uint32_t want_status, const char *want_body)
{
	uint8_t req[64], in[512];
	char *argv[] = { "whoami", NULL };
	struct tep_ctl_reply rep;
	size_t len, flen, got = 0;
	pid_t pid;
	int st, fd;
	ssize_t n;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
			return -1;
		return WEXITSTATUS(st);
	}
	if (setgroups((size_t)ngroups, groups) != 0 || setgid(gid) != 0 ||
	    setuid(NOBODY) != 0)
		_exit(10);
	fd = cli_connect(path);
	if (fd < 0)
		_exit(11);
	if (tep_ctl_req_encode(req, sizeof(req), 0, 1, argv, &len) != 0)
		_exit(12);
	cli_send_raw(fd, req, len);
	for (;;) {
		if (tep_ctl_reply_decode(in, got, &rep, &flen) == 0)
			break;
		n = recv(fd, in + got, sizeof(in) - got, 0);
		if (n <= 0)
			_exit(13);
		got += (size_t)n;
	}
	if (rep.status != want_status)
		_exit(14);
	if (rep.body_len != strlen(want_body) ||
	    memcmp(rep.body, want_body, rep.body_len) != 0)
		_exit(15);
	_exit(0);
}

static void
test_peer_credentials(void **state)
{
	struct tep_ctl_server_conf conf;
	uint64_t refused0;
	gid_t g0 = 0, g4242 = 4242;
	struct srv v;
	struct stat st;

	(void)state;
	if (geteuid() != 0) {
		print_message("not root: peer credential tests skipped\n");
		skip();
	}
	/* gid 0 reaches the socket (0660 root:root) but uid 65534 is refused */
	refused0 = stats(&main_srv).refused;
	assert_int_equal(child_whoami(main_srv.path, 0, &g0, 1, EACCES,
		"permission denied: uid 65534 gid 0 not allowed"), 0);
	assert_int_equal(stats(&main_srv).refused, refused0 + 1);

	/* an allowed uid gets in; the handler sees who it is */
	memset(&v, 0, sizeof(v));
	memset(&conf, 0, sizeof(conf));
	conf.allow_uid_set = true;
	conf.allow_uid = NOBODY;
	srv_start(&v, &conf);
	assert_int_equal(lstat(v.path, &st), 0);
	assert_int_equal(st.st_uid, NOBODY);
	assert_int_equal(child_whoami(v.path, 0, &g0, 1, 0, "uid 65534\n"), 0);
	srv_stop(&v);

	/* an allowed group, held as a supplementary group */
	memset(&v, 0, sizeof(v));
	memset(&conf, 0, sizeof(conf));
	conf.allow_gid_set = true;
	conf.allow_gid = 4242;
	srv_start(&v, &conf);
	assert_int_equal(lstat(v.path, &st), 0);
	assert_int_equal(st.st_gid, 4242);
	assert_int_equal(child_whoami(v.path, 4343, &g4242, 1, 0,
				      "uid 65534\n"), 0);
	srv_stop(&v);
}

/* ---- who gets a slot: idle timeout, per-uid limit, reserved slots -------- */

/* A client that sends no complete request is told so and closed after
 * idle_ms; so is one that trickles a request byte by byte, and one that
 * goes quiet after a reply. */
static void
test_idle_timeout(void **state)
{
	static const char want[] = "idle timeout: no complete request in "
				   "300 ms";
	struct tep_ctl_server_conf conf;
	char *e[] = { "echo", "hi", NULL };
	uint8_t req[64];
	uint64_t t0, dt;
	struct srv v;
	size_t len, i;
	int fd;

	(void)state;
	memset(&v, 0, sizeof(v));
	memset(&conf, 0, sizeof(conf));
	conf.idle_ms = 300;
	srv_start(&v, &conf);

	/* silent */
	t0 = now_ms();
	fd = cli_connect(v.path);
	assert_true(fd >= 0);
	expect(fd, TEP_CTL_REPLY_FINAL, ETIMEDOUT, want);
	dt = now_ms() - t0;
	assert_eof(fd);
	close(fd);
	if (dt < 250 || dt > 2000)
		fail_msg("silent client dropped after %" PRIu64 " ms", dt);

	/* a byte every 50 ms: still no complete request at 300 ms */
	assert_int_equal(tep_ctl_req_encode(req, sizeof(req), 0, 2, e, &len),
			 TEP_CTL_PERR_OK);
	fd = cli_connect(v.path);
	assert_true(fd >= 0);
	for (i = 0; i + 1 < len && i < 8; i++) {
		cli_send_raw(fd, req + i, 1);
		usleep(50000);
	}
	expect(fd, TEP_CTL_REPLY_FINAL, ETIMEDOUT, want);
	close(fd);

	/* served, then quiet: the clock restarts at the reply */
	fd = cli_connect(v.path);
	assert_true(fd >= 0);
	usleep(200000);
	cli_send_argv(fd, 0, 2, e);
	expect(fd, TEP_CTL_REPLY_FINAL, 0, "hi\n");
	usleep(200000);
	cli_send_argv(fd, 0, 2, e);
	expect(fd, TEP_CTL_REPLY_FINAL, 0, "hi\n");
	t0 = now_ms();
	expect(fd, TEP_CTL_REPLY_FINAL, ETIMEDOUT, want);
	assert_true(now_ms() - t0 >= 250);
	close(fd);
	assert_int_equal(stats(&v).timed_out, 3);
	srv_stop(&v);
}

/* Receive into buf (up to len) and the one descriptor that came with
 * it (-1 if none; more than one fails the test). */
static int
recv_fd(int sock, void *buf, size_t len)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(4 * sizeof(int))];
	} cm;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cm.b,
		.msg_controllen = sizeof(cm.b),
	};
	struct cmsghdr *ch;
	int fd = -1;

	assert_true(recvmsg(sock, &mh, MSG_CMSG_CLOEXEC) > 0);
	assert_false(mh.msg_flags & MSG_CTRUNC);
	for (ch = CMSG_FIRSTHDR(&mh); ch != NULL; ch = CMSG_NXTHDR(&mh, ch)) {
		if (ch->cmsg_level != SOL_SOCKET ||
		    ch->cmsg_type != SCM_RIGHTS)
			continue;
		assert_int_equal(ch->cmsg_len, CMSG_LEN(sizeof(int)));
		assert_int_equal(fd, -1);
		memcpy(&fd, CMSG_DATA(ch), sizeof(int));
	}
	return fd;
}

/*
 * A connection made as uid as (in a forked child, which hands the socket
 * back over a socketpair and exits): SO_PEERCRED holds the connecting
 * process's credentials, so the parent can then use it as that uid's
 * client. as (uid_t)-1: the child keeps our uid.
 */
static int
connect_as(const char *path, uid_t as)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} cm;
	struct iovec iov;
	struct msghdr mh;
	struct cmsghdr *ch;
	int sp[2], fd = -1, st;
	char c = 0;
	pid_t pid;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(sp[0]);
		/* gid 0 kept: the server's directory is root:root 0750 */
		if (as != (uid_t)-1 && setuid(as) != 0)
			_exit(10);
		fd = cli_connect(path);
		if (fd < 0)
			_exit(11);
		memset(&mh, 0, sizeof(mh));
		memset(&cm, 0, sizeof(cm));
		iov.iov_base = &c;
		iov.iov_len = 1;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cm.b;
		mh.msg_controllen = sizeof(cm.b);
		ch = CMSG_FIRSTHDR(&mh);
		ch->cmsg_level = SOL_SOCKET;
		ch->cmsg_type = SCM_RIGHTS;
		ch->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(ch), &fd, sizeof(int));
		_exit(sendmsg(sp[1], &mh, 0) == 1 ? 0 : 12);
	}
	close(sp[1]);
	fd = recv_fd(sp[0], &c, 1);
	close(sp[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return fd;
}

static void
test_uid_limit_and_reserved(void **state)
{
	struct tep_ctl_server_conf conf;
	char *e[] = { "echo", "hi", NULL };
	int nb[4], root[3], i;
	struct srv v;

	(void)state;
	if (geteuid() != 0) {
		print_message("not root: per-uid and reserved slot tests "
			      "skipped\n");
		skip();
	}
	memset(&v, 0, sizeof(v));
	memset(&conf, 0, sizeof(conf));
	conf.allow_uid_set = true;
	conf.allow_uid = NOBODY;
	conf.max_clients = 5;
	conf.reserved = 2;
	conf.max_per_uid = 2;
	conf.idle_ms = TEP_CTL_NONE;	/* they hold their slots */
	srv_start(&v, &conf);
	/* uid 65534: two, then refused whatever is free */
	for (i = 0; i < 3; i++)
		nb[i] = connect_as(v.path, NOBODY);
	for (i = 0; i < 2; i++) {
		cli_send_argv(nb[i], 0, 2, e);
		expect(nb[i], TEP_CTL_REPLY_FINAL, 0, "hi\n");
	}
	expect(nb[2], TEP_CTL_REPLY_FINAL, EBUSY,
	       "too many clients for uid 65534 (at most 2)");
	close(nb[2]);
	/* root takes the third unreserved slot, then the two reserved */
	for (i = 0; i < 3; i++) {
		root[i] = cli_connect(v.path);
		assert_true(root[i] >= 0);
		cli_send_argv(root[i], 0, 2, e);
		expect(root[i], TEP_CTL_REPLY_FINAL, 0, "hi\n");
	}
	/* full; 65534 is refused by the count, root by the size */
	nb[3] = connect_as(v.path, NOBODY);
	expect(nb[3], TEP_CTL_REPLY_FINAL, EBUSY,
	       "too many clients for uid 65534 (at most 2)");
	close(nb[3]);
	i = cli_connect(v.path);
	assert_true(i >= 0);
	expect(i, TEP_CTL_REPLY_FINAL, EBUSY, "too many clients");
	close(i);
	/* root leaves two, 65534 one: 2 of 5 slots taken */
	close(root[1]);
	close(root[2]);
	close(nb[1]);
	usleep(100000);
	root[1] = cli_connect(v.path);
	cli_send_argv(root[1], 0, 2, e);
	expect(root[1], TEP_CTL_REPLY_FINAL, 0, "hi\n");
	/* 3 taken: 65534 is under its own limit, but the 2 left are
	 * reserved */
	nb[1] = connect_as(v.path, NOBODY);
	expect(nb[1], TEP_CTL_REPLY_FINAL, EBUSY, "too many clients");
	close(nb[1]);
	root[2] = cli_connect(v.path);
	cli_send_argv(root[2], 0, 2, e);
	expect(root[2], TEP_CTL_REPLY_FINAL, 0, "hi\n");
	nb[1] = cli_connect(v.path);
	cli_send_argv(nb[1], 0, 2, e);
	expect(nb[1], TEP_CTL_REPLY_FINAL, 0, "hi\n");
	assert_int_equal(stats(&v).clients, 5);
	for (i = 0; i < 2; i++)
		close(nb[i]);
	for (i = 0; i < 3; i++)
		close(root[i]);
	srv_stop(&v);
}

/* Unprivileged clients fill every unreserved slot without a request;
 * root fills the reserved ones the same way; root still gets in, in the
 * place of the client that waited longest; a client that has been
 * served is never the one dropped. */
static void
test_evict_idle(void **state)
{
	struct tep_ctl_server_conf conf;
	char *e[] = { "echo", "hi", NULL };
	int c[3], fd;
	struct srv v;

	(void)state;
	memset(&v, 0, sizeof(v));
	memset(&conf, 0, sizeof(conf));
	conf.max_clients = 3;
	conf.idle_ms = TEP_CTL_NONE;
	srv_start(&v, &conf);
	c[0] = cli_connect(v.path);
	cli_send_argv(c[0], 0, 2, e);
	expect(c[0], TEP_CTL_REPLY_FINAL, 0, "hi\n");	/* served */
	c[1] = cli_connect(v.path);			/* idle, oldest */
	usleep(20000);
	c[2] = cli_connect(v.path);			/* idle */
	assert_true(c[0] >= 0 && c[1] >= 0 && c[2] >= 0);
	usleep(50000);
	fd = cli_connect(v.path);
	assert_true(fd >= 0);
	cli_send_argv(fd, 0, 2, e);
	expect(fd, TEP_CTL_REPLY_FINAL, 0, "hi\n");
	expect(c[1], TEP_CTL_REPLY_FINAL, EBUSY,
	       "dropped: no complete request yet, and the slot is needed");
	assert_eof(c[1]);
	close(c[1]);
	assert_int_equal(stats(&v).evicted, 1);
	/* c[2] goes next; then only served clients are left: refused */
	c[1] = cli_connect(v.path);
	cli_send_argv(c[1], 0, 2, e);
	expect(c[1], TEP_CTL_REPLY_FINAL, 0, "hi\n");
	expect(c[2], TEP_CTL_REPLY_FINAL, EBUSY,
	       "dropped: no complete request yet, and the slot is needed");
	close(c[2]);
	c[2] = cli_connect(v.path);
	expect(c[2], TEP_CTL_REPLY_FINAL, EBUSY, "too many clients");
	close(c[2]);
	cli_send_argv(c[0], 0, 2, e);
	expect(c[0], TEP_CTL_REPLY_FINAL, 0, "hi\n");
	close(c[0]);
	close(c[1]);
	close(fd);
	srv_stop(&v);
}

/* Wait (up to 5 s) until the server holds n clients. */
static void
wait_clients(const struct srv *v, uint64_t n)
{
	int i;

	for (i = 0; i < 500 && stats(v).clients != n; i++)
		usleep(10000);
	assert_int_equal(stats(v).clients, n);
}

/*
 * Connections that queued while the server was busy are accepted in one
 * burst, within the same millisecond: the ones that came first are
 * dropped first, never one that has just connected, whose request may
 * already be in its socket (tepctl sends it at once).
 */
static void
test_evict_order(void **state)
{
	static const char dropped[] = "dropped: no complete request yet, "
				      "and the slot is needed";
	struct tep_ctl_server_conf conf;
	char *slp[] = { "sleep", "300", NULL };
	char *mine[] = { "echo", "mine", NULL };
	int busy, x[5], t, i;
	struct srv v;

	(void)state;
	memset(&v, 0, sizeof(v));
	memset(&conf, 0, sizeof(conf));
	conf.max_clients = 4;
	conf.idle_ms = TEP_CTL_NONE;
	srv_start(&v, &conf);
	busy = cli_connect(v.path);
	assert_true(busy >= 0);
	cli_send_argv(busy, 0, 2, slp);
	for (i = 0; i < 500 && atomic_load(&sleeping) == 0; i++)
		usleep(1000);
	assert_int_equal(atomic_load(&sleeping), 1);
	/* three silent, then ours with its request, then two silent */
	for (i = 0; i < 3; i++)
		x[i] = cli_connect(v.path);
	t = cli_connect(v.path);
	assert_true(t >= 0);
	cli_send_argv(t, 0, 2, mine);
	for (i = 3; i < 5; i++)
		x[i] = cli_connect(v.path);
	for (i = 0; i < 5; i++)
		assert_true(x[i] >= 0);
	expect(busy, TEP_CTL_REPLY_FINAL, 0, "slept\n");
	expect(t, TEP_CTL_REPLY_FINAL, 0, "mine\n");
	for (i = 0; i < 3; i++) {
		expect(x[i], TEP_CTL_REPLY_FINAL, EBUSY, dropped);
		assert_eof(x[i]);
	}
	assert_int_equal(stats(&v).evicted, 3);
	wait_clients(&v, 4);
	for (i = 0; i < 5; i++)
		close(x[i]);
	close(t);
	close(busy);
	srv_stop(&v);
}

/*
 * One process keeps opening connections that send nothing (a runaway
 * script as root): it loses its own, oldest first, and a client of
 * another process that has not sent its request yet (tepctl, held up by
 * a busy machine between connect and send) keeps its slot, however many
 * times the slots turn over.
 */
static void
test_evict_busiest_process(void **state)
{
	static const char dropped[] = "dropped: no complete request yet, "
				      "and the slot is needed";
	struct tep_ctl_server_conf conf;
	char *mine[] = { "echo", "mine", NULL };
	int x[3], y[6], t, i, k;
	struct srv v;

	(void)state;
	memset(&v, 0, sizeof(v));
	memset(&conf, 0, sizeof(conf));
	conf.max_clients = 4;
	conf.idle_ms = TEP_CTL_NONE;
	srv_start(&v, &conf);
	t = connect_as(v.path, (uid_t)-1);	/* another process, first */
	wait_clients(&v, 1);
	for (i = 0; i < 3; i++) {
		x[i] = cli_connect(v.path);
		assert_true(x[i] >= 0);
	}
	wait_clients(&v, 4);
	for (i = 0; i < 6; i++) {
		y[i] = cli_connect(v.path);
		assert_true(y[i] >= 0);
		for (k = 0; k < 500 && stats(&v).evicted != (uint64_t)i + 1;
		     k++)
			usleep(10000);
		assert_int_equal(stats(&v).evicted, (uint64_t)i + 1);
	}
	cli_send_argv(t, 0, 2, mine);
	expect(t, TEP_CTL_REPLY_FINAL, 0, "mine\n");
	for (i = 0; i < 3; i++)
		expect(x[i], TEP_CTL_REPLY_FINAL, EBUSY, dropped);
	for (i = 0; i < 3; i++)
		expect(y[i], TEP_CTL_REPLY_FINAL, EBUSY, dropped);
	assert_int_equal(stats(&v).evicted, 6);
	for (i = 0; i < 3; i++)
		close(x[i]);
	for (i = 0; i < 6; i++)
		close(y[i]);
	close(t);
	srv_stop(&v);
}

/* ---- descriptors with replies, the peer's namespace ---------------------- */

/* A descriptor handed to tep_ctl_reply_fd() arrives with the reply, once,
 * and is the same open file; none comes with a failed command's reply. */
static void
test_pass_fd(void **state)
{
	uint8_t buf[512];
	char *a_fd[] = { "fd", NULL };
	char *a_fail[] = { "fd", "fail", NULL };
	char *a_echo[] = { "echo", "x", NULL };
	struct stat want, got;
	size_t len, off = 0;
	int sock, fd, n = 0;
	struct rep r;

	(void)state;
	assert_int_equal(pipe(pass_pipe), 0);
	assert_int_equal(fstat(pass_pipe[0], &want), 0);
	/* echo, fd, fd fail, echo: pipelined in one write */
	assert_int_equal(tep_ctl_req_encode(buf, sizeof(buf), 0, 2, a_echo,
					    &len), 0);
	off += len;
	assert_int_equal(tep_ctl_req_encode(buf + off, sizeof(buf) - off, 0,
					    1, a_fd, &len), 0);
	off += len;
	assert_int_equal(tep_ctl_req_encode(buf + off, sizeof(buf) - off, 0,
					    2, a_fail, &len), 0);
	off += len;
	assert_int_equal(tep_ctl_req_encode(buf + off, sizeof(buf) - off, 0,
					    2, a_echo, &len), 0);
	off += len;
	sock = cli_connect(main_srv.path);
	assert_true(sock >= 0);
	cli_send_raw(sock, buf, off);
	/* byte by byte, so each descriptor is seen with the byte it came
	 * with: the first byte of the second reply */
	fd = -1;
	for (;;) {
		uint8_t c;
		int k = recv_fd(sock, &c, 1);

		n++;
		if (k >= 0) {
			assert_int_equal(fd, -1);
			fd = k;
			/* reply 1 is echo's: 4 + 6 + "x\n" = 12 bytes */
			assert_int_equal(n, 13);
		}
		/* 4 replies: 12 + (10 + 5) + (10 + 15) + 12 bytes */
		if (n == 12 + 15 + 25 + 12)
			break;
	}
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &got), 0);
	assert_int_equal(got.st_dev, want.st_dev);
	assert_int_equal(got.st_ino, want.st_ino);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	/* nothing more, and the connection still works */
	cli_send_argv(sock, 0, 2, a_echo);
	assert_int_equal(cli_read(sock, &r), 1);
	assert_int_equal(r.status, 0);
	rep_free(&r);
	close(sock);
	close(pass_pipe[0]);
	close(pass_pipe[1]);
	pass_pipe[0] = pass_pipe[1] = -1;
}

/* The peer's namespace is read from /proc/PID/ns/net, PID from
 * SO_PEERCRED; a peer that has exited is not looked up by its PID. */
static void
test_peer_netns(void **state)
{
	char *a[] = { "netns", NULL };
	char want[64];
	struct stat st;
	int fd;

	(void)state;
	assert_int_equal(stat("/proc/self/ns/net", &st), 0);
	snprintf(want, sizeof(want), "%llu:%llu\n",
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	cmd_expect(main_srv.path, 0, 0, want, "netns", NULL);

	/* the process that connected has exited; we hold its socket */
	fd = connect_as(main_srv.path, (uid_t)-1);
	assert_true(fd >= 0);
	cli_send_argv(fd, 0, 1, a);
	expect(fd, TEP_CTL_REPLY_FINAL, ESRCH,
	       "peer netns: No such process");
	close(fd);
}

/* ---- the socket's directory ---------------------------------------------- */

static void
dir_refused(const char *dir, const char *sub, const char *want_part)
{
	struct tep_ctl_server_conf conf;
	struct tep_err err;
	char path[200];

	memset(&conf, 0, sizeof(conf));
	snprintf(path, sizeof(path), "%s%s/tepd.sock", dir, sub);
	conf.path = path;
	conf.table = main_srv.t;
	assert_null(tep_ctl_server_new(&conf, &err));
	assert_int_equal(err.code, EPERM);
	if (strstr(err.msg, want_part) == NULL)
		fail_msg("%s: got \"%s\", want \"%s\"", path, err.msg,
			 want_part);
}

static void
test_socket_dir_checked(void **state)
{
	struct tep_ctl_server_conf conf;
	struct tep_ctl_server *s;
	struct tep_err err;
	char dir[64], sub[128], path[200], want[256], link[160];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/tep-ctl-dir.XXXXXX");
	assert_non_null(mkdtemp(dir));

	/* writable by others: refused, whatever the sticky bit */
	assert_int_equal(chmod(dir, 0777), 0);
	snprintf(want, sizeof(want), "unsafe control socket directory %s: "
		 "mode 0777, owner uid %u: it must not be writable by group "
		 "or others", dir, (unsigned int)geteuid());
	dir_refused(dir, "", want);
	assert_int_equal(chmod(dir, 01777), 0);
	dir_refused(dir, "", "mode 1777");
	assert_int_equal(chmod(dir, 0770), 0);
	dir_refused(dir, "", "mode 0770");

	/* above the socket's directory, sticky is fine and plain is not */
	snprintf(sub, sizeof(sub), "%s/run", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(chmod(dir, 01777), 0);
	memset(&conf, 0, sizeof(conf));
	snprintf(path, sizeof(path), "%s/tepd.sock", sub);
	conf.path = path;
	conf.table = main_srv.t;
	s = tep_ctl_server_new(&conf, &err);
	if (s == NULL)
		fail_msg("under a sticky directory: %s", err.msg);
	tep_ctl_server_free(s);
	assert_int_equal(chmod(dir, 0777), 0);
	snprintf(want, sizeof(want), "unsafe control socket directory %s: "
		 "mode 0777, owner uid %u: it must not be writable by group "
		 "or others (unless sticky, like /tmp)", dir,
		 (unsigned int)geteuid());
	dir_refused(dir, "/run", want);
	assert_int_equal(chmod(dir, 0755), 0);

	if (geteuid() == 0) {
		/* owned by someone else */
		assert_int_equal(chown(sub, NOBODY, NOBODY), 0);
		snprintf(want, sizeof(want), "unsafe control socket directory "
			 "%s: mode 0700, owner uid 65534: it must be owned by "
			 "root or by tepd's uid 0", sub);
		dir_refused(dir, "/run", want);
		assert_int_equal(chown(sub, 0, 0), 0);
		/* a symbolic link its owner could turn elsewhere */
		snprintf(link, sizeof(link), "%s/link", dir);
		assert_int_equal(symlink(sub, link), 0);
		assert_int_equal(lchown(link, NOBODY, NOBODY), 0);
		snprintf(want, sizeof(want), "unsafe control socket path: %s "
			 "is a symbolic link owned by uid 65534, not by root "
			 "or tepd's uid 0", link);
		dir_refused(dir, "/link", want);
		assert_int_equal(unlink(link), 0);
	}
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* ---- the tepctl binary --------------------------------------------------- */

struct run {
	int status;		/* exit status, or 128 + signal */
	char out[8192];
	char err[8192];
};

/*
 * Run tepctl with args; env_sock sets TEPCTL_SOCKET (NULL: unset);
 * as_nobody runs it as uid 65534 (status 121: it cannot run tepctl).
 */
static void
run_tepctl(struct run *r, const char *env_sock, bool as_nobody,
	   const char *const *args)
{
	const char *bin = getenv("TEPCTL");
	char *argv[300];
	int po[2], pe[2], st, n = 0, open_fds;
	size_t lo = 0, le = 0;
	struct pollfd pf[2];
	ssize_t k;
	pid_t pid;

	assert_non_null(bin);
	argv[n++] = (char *)bin;
	while (*args != NULL && n < 298)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	assert_int_equal(pipe(po), 0);
	assert_int_equal(pipe(pe), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		if (env_sock != NULL)
			setenv("TEPCTL_SOCKET", env_sock, 1);
		else
			unsetenv("TEPCTL_SOCKET");
		if (as_nobody && setuid(NOBODY) != 0)
			_exit(120);
		if (as_nobody && access(bin, X_OK) != 0)
			_exit(121);
		execv(bin, argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	pf[0].fd = po[0];
	pf[1].fd = pe[0];
	pf[0].events = pf[1].events = POLLIN;
	open_fds = 2;
	while (open_fds > 0) {
		assert_true(poll(pf, 2, 20000) > 0);
		if (pf[0].revents) {
			k = read(po[0], r->out + lo, sizeof(r->out) - 1 - lo);
			if (k <= 0) {
				pf[0].fd = -1;
				open_fds--;
			} else {
				lo += (size_t)k;
			}
		}
		if (pf[1].revents) {
			k = read(pe[0], r->err + le, sizeof(r->err) - 1 - le);
			if (k <= 0) {
				pf[1].fd = -1;
				open_fds--;
			} else {
				le += (size_t)k;
			}
		}
	}
	r->out[lo] = '\0';
	r->err[le] = '\0';
	close(po[0]);
	close(pe[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void
tepctl_case(const char *env_sock, const char *const *args, int status,
	    const char *out, const char *err)
{
	struct run r;

	run_tepctl(&r, env_sock, false, args);
	if (r.status != status || strcmp(r.out, out) != 0 ||
	    strcmp(r.err, err) != 0)
		fail_msg("tepctl %s %s...: status %d (want %d)\n"
			 "stdout [%s] (want [%s])\nstderr [%s] (want [%s])",
			 args[0], args[1] != NULL ? args[1] : "", r.status,
			 status, r.out, out, r.err, err);
}

static void
test_tepctl(void **state)
{
	const char *p = main_srv.path;
	const char *bin = getenv("TEPCTL");
	char want[512];
	const char *many[140];
	struct run r;
	int i;

	(void)state;
	if (bin == NULL) {
		print_message("TEPCTL not set: tepctl tests skipped\n");
		skip();
	}
	tepctl_case(NULL, (const char *[]){ "-s", p, "echo", "hi", "there",
		    NULL }, 0, "hi there\n", "");
	tepctl_case(NULL, (const char *[]){ "-s", p, "-j", "echo", "a",
		    NULL }, 0, "{\"words\":[\"a\"]}\n", "");
	/* options end at the command */
	tepctl_case(NULL, (const char *[]){ "-s", p, "echo", "-j", "x",
		    NULL }, 0, "-j x\n", "");
	tepctl_case(NULL, (const char *[]){ "-s", p, "fail", NULL }, 1, "",
		    "tepctl: unknown vrf \"blue\"\n");
	tepctl_case(NULL, (const char *[]){ "-s", p, "-j", "fail", NULL }, 1,
		    "", "tepctl: unknown vrf \"blue\"\n");
	tepctl_case(NULL, (const char *[]){ "-s", p, "nope", NULL }, 1, "",
		    "tepctl: unknown command \"nope\"; try help\n");
	tepctl_case(NULL, (const char *[]){ "-s", p, "tick", "3", NULL }, 0,
		    "tick 0\ntick 1\ntick 2\ndone\n", "");
	tepctl_case(NULL, (const char *[]){ "-s", p, "-j", "tick", "2", NULL },
		    0, "{\"tick\":0}\n{\"tick\":1}\n{\"done\":true}\n", "");
	tepctl_case(NULL, (const char *[]){ "-s", p, "tick", "fail", NULL }, 1,
		    "tick 0\n", "tepctl: sensor gone\n");
	tepctl_case(NULL, (const char *[]){ "-s", p, "help", "echo", NULL }, 0,
		    "echo [WORD...]\n    print the words\n", "");
	/* $TEPCTL_SOCKET, and -s over it */
	tepctl_case(p, (const char *[]){ "echo", "env", NULL }, 0, "env\n",
		    "");
	tepctl_case("/nonexistent/x.sock", (const char *[]){ "-s", p, "echo",
		    "flag", NULL }, 0, "flag\n", "");
	tepctl_case(NULL, (const char *[]){ "-s", "/nonexistent/tepd.sock",
		    "help", NULL }, 2, "",
		    "tepctl: cannot connect to /nonexistent/tepd.sock: "
		    "No such file or directory\n");

	/* usage */
	run_tepctl(&r, NULL, false, (const char *[]){ "-h", NULL });
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_memory_equal(r.out, "usage: tepctl [-s SOCKET] [-j] COMMAND...\n",
			    42);
	run_tepctl(&r, NULL, false, (const char *[]){ "-s", p, NULL });
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_memory_equal(r.err, "usage: tepctl", 13);
	run_tepctl(&r, NULL, false, (const char *[]){ "-x", "help", NULL });
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "usage: tepctl"));

	/* too many words is caught before connecting */
	many[0] = "-s";
	many[1] = "/nonexistent/tepd.sock";
	for (i = 2; i < 2 + TEP_CTL_MAX_ARGS + 1; i++)
		many[i] = "w";
	many[i] = NULL;
	run_tepctl(&r, NULL, false, many);
	assert_int_equal(r.status, 2);
	snprintf(want, sizeof(want), "tepctl: command too long: too many words "
		 "(at most 128 words of 1024 bytes, 8192 bytes in all)\n");
	assert_string_equal(r.err, want);

	/* refused peer, end to end */
	if (geteuid() == 0) {
		run_tepctl(&r, NULL, true, (const char *[]){ "-s", p, "echo",
			   NULL });
		if (r.status == 121) {
			print_message("tepctl not executable by uid %d: "
				      "refusal through tepctl not checked\n",
				      NOBODY);
		} else {
			assert_int_equal(r.status, 1);
			assert_string_equal(r.err, "tepctl: permission denied: "
					    "uid 65534 gid 0 not allowed\n");
		}
	}
}

/* ^C ends a stream: exit 0, and the server ends the stream. */
static void
test_tepctl_interrupt(void **state)
{
	const char *bin = getenv("TEPCTL");
	char buf[4096] = "";
	size_t got = 0;
	int po[2], st;
	ssize_t k;
	pid_t pid;

	(void)state;
	if (bin == NULL)
		skip();
	assert_int_equal(pipe(po), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(po[1], 1);
		close(po[0]);
		execl(bin, bin, "-s", main_srv.path, "tick", "0", "0", "20",
		      (char *)NULL);
		_exit(127);
	}
	close(po[1]);
	while (strstr(buf, "tick 2\n") == NULL) {
		k = read(po[0], buf + got, sizeof(buf) - 1 - got);
		assert_true(k > 0);
		got += (size_t)k;
		buf[got] = '\0';
	}
	assert_memory_equal(buf, "tick 0\ntick 1\ntick 2\n", 21);
	assert_int_equal(stats(&main_srv).streams, 1);
	assert_int_equal(kill(pid, SIGINT), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	close(po[0]);
	assert_true(wait_streams(0, 5000));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_echo),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_stream_then_error),
		cmocka_unit_test(test_big_reply),
		cmocka_unit_test(test_pipeline),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_truncated_then_eof),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_stream_fails),
		cmocka_unit_test(test_stream_half_closed),
		cmocka_unit_test(test_stream_disconnect),
		cmocka_unit_test(test_slow_reader),
		cmocka_unit_test(test_paced_stream),
		cmocka_unit_test(test_socket_files),
		cmocka_unit_test(test_second_server_refused),
		cmocka_unit_test(test_stale_and_foreign_files),
		cmocka_unit_test(test_too_many_clients),
		cmocka_unit_test(test_peer_credentials),
		cmocka_unit_test(test_idle_timeout),
		cmocka_unit_test(test_uid_limit_and_reserved),
		cmocka_unit_test(test_evict_idle),
		cmocka_unit_test(test_evict_order),
		cmocka_unit_test(test_evict_busiest_process),
		cmocka_unit_test(test_pass_fd),
		cmocka_unit_test(test_peer_netns),
		cmocka_unit_test(test_socket_dir_checked),
		cmocka_unit_test(test_tepctl),
		cmocka_unit_test(test_tepctl_interrupt),
	};

	/* a server that closes on a client must not kill the test */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
