/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

#define _GNU_SOURCE		/* struct ucred, accept4, pipe2 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "tep_ctl_priv.h"
#include "tep_ctl_proto.h"
#include "tep_ctl_server.h"

#define ACCEPT_BURST	16	/* connections accepted per step */
#define ACCEPT_PAUSE_MS	100	/* after EMFILE and the like */
#define RUN_POLL_MS	200	/* tep_ctl_server_run() checks *stop */
#define OUT_KEEP	(64u * 1024)	/* idle queue memory kept */
#define DRAIN_MAX	(64u * 1024)	/* input discarded at close */
#define LISTEN_BACKLOG	16
/* A client that pipelines requests (tepctl -b) is served this many per
 * step, its replies gathered into one send: the control thread has other
 * work (punted packets) between steps, and a send per reply would cost a
 * context switch per request when client and server share a core. */
#define SERVE_BURST	64
#define OUT_BATCH	(16u * 1024)

struct client {
	int fd;
	bool dead;		/* free at the end of this step */
	bool closing;		/* free once the queue is written */
	bool eof;		/* the peer sends nothing more */
	bool more;		/* requests left unserved by SERVE_BURST */
	bool served;		/* one of its requests has run */
	uint64_t deadline;	/* closing: give up then */
	uint64_t wait_since;	/* waiting for a request since (0: not) */
	uint64_t heard;		/* heard_seq: accepted, or bytes read */
	int pass_fd;		/* sent with the byte at pass_at, or -1 */
	uint64_t pass_at;
	uint64_t sent;		/* bytes written to the socket so far */
	struct tep_ctl_ctx ctx;
	bool streaming;
	bool stream_json;
	uint64_t next_tick;
	struct tep_ctl_stream stream;
	uint8_t *out;		/* queued replies: out[head..head+len) */
	size_t out_head;
	size_t out_len;
	size_t out_size;
	size_t in_len;
	uint8_t in[TEP_CTL_LEN_SIZE + TEP_CTL_MAX_REQ];
};

struct tep_ctl_server {
	struct tep_ctl_server_conf conf;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int lfd;
	int wake[2];
	dev_t dev;		/* the socket file we created */
	ino_t ino;
	uid_t euid;
	struct client **cl;
	size_t ncl;
	struct pollfd *pfd;	/* 2 + max_clients */
	uint64_t accept_resume;
	/* Counts accepts and reads that brought bytes: which of two
	 * clients was heard from last, with no ties (a millisecond clock
	 * has them, in a burst of accepts). */
	uint64_t heard_seq;
	atomic_bool stopped;
	struct tep_ctl_server_stats st;	/* __atomic builtins */
};

#define STAT_ADD(s, f, v) __atomic_add_fetch(&(s)->st.f, (v), __ATOMIC_RELAXED)
#define STAT_SUB(s, f, v) __atomic_sub_fetch(&(s)->st.f, (v), __ATOMIC_RELAXED)

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- socket set-up ----------------------------------------------------- */

static int
make_dir(const struct tep_ctl_server *s, const char *dir, struct tep_err *err)
{
	struct stat st;
	int e;

	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return tep_err_set(err, ENOTDIR, "%s: not a directory",
					   dir);
		return 0;
	}
	if (errno != ENOENT) {
		e = errno;
		return tep_err_set(err, e, "%s: %s", dir, strerror(e));
	}
	if (mkdir(dir, TEP_CTL_DIR_MODE) != 0) {
		e = errno;
		if (e == EEXIST)	/* lost a race: fine */
			return 0;
		return tep_err_set(err, e, "cannot create %s: %s", dir,
				   strerror(e));
	}
	/* the umask may have taken bits away */
	if (chmod(dir, TEP_CTL_DIR_MODE) != 0 ||
	    (s->conf.allow_gid_set &&
	     chown(dir, (uid_t)-1, s->conf.allow_gid) != 0)) {
		e = errno;
		return tep_err_set(err, e, "%s: %s", dir, strerror(e));
	}
	return 0;
}

/*
 * Whoever can write to the socket's directory can remove the socket or
 * put one of their own in its place, and tepctl would talk to it. So, as
 * sshd's StrictModes does for ~/.ssh, the directory and every one above
 * it must be owned by root or by us and not writable by group or others.
 * Above the socket's own directory a sticky one (/tmp) is accepted: the
 * others can add names there but cannot rename or remove ours.
 */
static int
dir_safe(const struct tep_ctl_server *s, const char *dir, bool own,
	 struct tep_err *err)
{
	struct stat st;
	int e;

	if (stat(dir, &st) != 0) {
		e = errno;
		return tep_err_set(err, e, "%s: %s", dir, strerror(e));
	}
	if (st.st_uid != 0 && st.st_uid != s->euid)
		return tep_err_set(err, EPERM, "unsafe control socket "
			"directory %s: mode %04o, owner uid %u: it must be "
			"owned by root or by tepd's uid %u", dir,
			(unsigned int)(st.st_mode & 07777),
			(unsigned int)st.st_uid, (unsigned int)s->euid);
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
	    (own || (st.st_mode & S_ISVTX) == 0))
		return tep_err_set(err, EPERM, "unsafe control socket "
			"directory %s: mode %04o, owner uid %u: it must not "
			"be writable by group or others%s", dir,
			(unsigned int)(st.st_mode & 07777),
			(unsigned int)st.st_uid,
			own ? "" : " (unless sticky, like /tmp)");
	return 0;
}

/* dir as written: a symbolic link on the way could be pointed elsewhere
 * by its owner later, so it must be root's or ours too. */
static int
links_safe(const struct tep_ctl_server *s, const char *dir,
	   struct tep_err *err)
{
	char part[sizeof(s->path)];
	struct stat st;
	size_t i, n = strlen(dir);

	for (i = 1; i <= n; i++) {
		if (i < n && dir[i] != '/')
			continue;
		memcpy(part, dir, i);
		part[i] = '\0';
		if (lstat(part, &st) == 0 && S_ISLNK(st.st_mode) &&
		    st.st_uid != 0 && st.st_uid != s->euid)
			return tep_err_set(err, EPERM, "unsafe control socket "
				"path: %s is a symbolic link owned by uid %u, "
				"not by root or tepd's uid %u", part,
				(unsigned int)st.st_uid,
				(unsigned int)s->euid);
	}
	return 0;
}

static int
check_dirs(const struct tep_ctl_server *s, const char *dir,
	   struct tep_err *err)
{
	char real[PATH_MAX], *slash;
	bool own = true;
	int rc, e;

	rc = links_safe(s, dir, err);
	if (rc != 0)
		return rc;
	if (realpath(dir, real) == NULL) {
		e = errno;
		return tep_err_set(err, e, "%s: %s", dir, strerror(e));
	}
	for (;;) {
		rc = dir_safe(s, real, own, err);
		if (rc != 0 || strcmp(real, "/") == 0)
			return rc;
		own = false;
		slash = strrchr(real, '/');
		if (slash == real)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

/* 1: a server answers at path; 0: nobody does; -errno: cannot tell. */
static int
probe_live(const struct sockaddr_un *sa)
{
	int fd, rc, e;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	e = errno;
	close(fd);
	if (rc == 0 || e == EAGAIN || e == EINPROGRESS)
		return 1;
	if (e == ECONNREFUSED || e == ENOENT)
		return 0;
	return -e;
}

static int
ctl_listen(struct tep_ctl_server *s, struct tep_err *err)
{
	struct sockaddr_un sa;
	char dir[sizeof(s->path)];
	struct stat st;
	char *slash;
	int rc, e;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, s->path, sizeof(sa.sun_path));

	memcpy(dir, s->path, sizeof(dir));
	slash = strrchr(dir, '/');
	if (slash == NULL) {
		strcpy(dir, ".");
	} else if (slash == dir) {
		slash[1] = '\0';
	} else {
		*slash = '\0';
		rc = make_dir(s, dir, err);
		if (rc != 0)
			return rc;
	}
	rc = check_dirs(s, dir, err);
	if (rc != 0)
		return rc;

	if (lstat(s->path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return tep_err_set(err, EEXIST,
					   "%s exists and is not a socket",
					   s->path);
		rc = probe_live(&sa);
		if (rc > 0)
			return tep_err_set(err, EADDRINUSE,
				"another server is listening on %s", s->path);
		if (rc < 0)
			return tep_err_set(err, -rc, "cannot probe %s: %s",
					   s->path, strerror(-rc));
		if (unlink(s->path) != 0 && errno != ENOENT) {
			e = errno;
			return tep_err_set(err, e,
					   "cannot remove stale socket %s: %s",
					   s->path, strerror(e));
		}
	} else if (errno != ENOENT) {
		e = errno;
		return tep_err_set(err, e, "%s: %s", s->path, strerror(e));
	}

	s->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
	if (s->lfd < 0) {
		e = errno;
		return tep_err_set(err, e, "socket: %s", strerror(e));
	}
	if (bind(s->lfd, (const struct sockaddr *)&sa, sizeof(sa)) != 0) {
		e = errno;
		return tep_err_set(err, e, "cannot bind %s: %s", s->path,
				   strerror(e));
	}
	/* Nobody can connect before listen(): set the rights first. */
	if (lstat(s->path, &st) != 0) {
		e = errno;
		unlink(s->path);
		return tep_err_set(err, e, "%s: %s", s->path, strerror(e));
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	if ((s->conf.allow_uid_set || s->conf.allow_gid_set) &&
	    chown(s->path,
		  s->conf.allow_uid_set ? s->conf.allow_uid : (uid_t)-1,
		  s->conf.allow_gid_set ? s->conf.allow_gid : (gid_t)-1) != 0) {
		e = errno;
		unlink(s->path);
		return tep_err_set(err, e, "cannot chown %s: %s", s->path,
				   strerror(e));
	}
	if (chmod(s->path, s->conf.mode) != 0) {
		e = errno;
		unlink(s->path);
		return tep_err_set(err, e, "cannot chmod %s: %s", s->path,
				   strerror(e));
	}
	if (listen(s->lfd, LISTEN_BACKLOG) != 0) {
		e = errno;
		unlink(s->path);
		return tep_err_set(err, e, "cannot listen on %s: %s", s->path,
				   strerror(e));
	}
	return 0;
}

struct tep_ctl_server *
tep_ctl_server_new(const struct tep_ctl_server_conf *conf,
		   struct tep_err *err)
{
	struct tep_ctl_server *s;
	const char *path;
	int e;

	tep_err_clear(err);
	if (conf->table == NULL) {
		tep_err_set(err, EINVAL, "control server without commands");
		return NULL;
	}
	path = conf->path != NULL ? conf->path : TEP_CTL_DEFAULT_SOCKET;
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		tep_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	s->lfd = -1;
	s->wake[0] = s->wake[1] = -1;
	s->conf = *conf;
	s->conf.path = s->path;
	if (s->conf.mode == 0)
		s->conf.mode = TEP_CTL_DEFAULT_MODE;
	if (s->conf.max_clients == 0)
		s->conf.max_clients = TEP_CTL_DEFAULT_CLIENTS;
	if (s->conf.out_cap == 0)
		s->conf.out_cap = TEP_CTL_DEFAULT_OUT_CAP;
	if (s->conf.linger_ms == 0)
		s->conf.linger_ms = TEP_CTL_DEFAULT_LINGER;
	if (s->conf.idle_ms == 0)
		s->conf.idle_ms = TEP_CTL_DEFAULT_IDLE;
	if (s->conf.max_per_uid == 0)
		s->conf.max_per_uid = TEP_CTL_DEFAULT_PER_UID;
	if (s->conf.reserved == 0)
		s->conf.reserved = TEP_CTL_DEFAULT_RESERVED;
	if (s->conf.reserved == TEP_CTL_NONE)
		s->conf.reserved = 0;
	if (s->conf.reserved >= s->conf.max_clients)
		s->conf.reserved = s->conf.max_clients - 1;
	s->euid = geteuid();
	atomic_init(&s->stopped, false);

	if (path[0] == '\0' || strlen(path) >= sizeof(s->path)) {
		tep_err_set(err, ENAMETOOLONG,
			    "bad socket path \"%s\" (1 to %zu bytes)", path,
			    sizeof(s->path) - 1);
		goto fail;
	}
	strcpy(s->path, path);

	s->cl = calloc(s->conf.max_clients, sizeof(*s->cl));
	s->pfd = calloc(2 + (size_t)s->conf.max_clients, sizeof(*s->pfd));
	if (s->cl == NULL || s->pfd == NULL) {
		tep_err_set(err, ENOMEM, "out of memory");
		goto fail;
	}
	if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
		e = errno;
		tep_err_set(err, e, "pipe: %s", strerror(e));
		goto fail;
	}
	if (ctl_listen(s, err) != 0)
		goto fail;
	return s;
fail:
	s->path[0] = '\0';	/* nothing of ours to unlink */
	tep_ctl_server_free(s);
	return NULL;
}

const char *
tep_ctl_server_path(const struct tep_ctl_server *s)
{
	return s->path;
}

/* ---- clients ----------------------------------------------------------- */

/* Discard what the peer sent and we will not read, then close. */
static void
drain_close(int fd)
{
	char buf[4096];
	size_t total = 0;
	ssize_t n;

	/*
	 * Closing an AF_UNIX socket with unread input makes the peer's next
	 * read after our last reply fail with ECONNRESET instead of EOF.
	 */
	while (total < DRAIN_MAX) {
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n <= 0)
			break;
		total += (size_t)n;
	}
	close(fd);
}

static void
stream_end(struct tep_ctl_server *s, struct client *c)
{
	if (!c->streaming)
		return;
	tep_ctl_stream_drop(&c->stream);
	c->streaming = false;
	STAT_SUB(s, streams, 1);
}

static void
client_free(struct tep_ctl_server *s, struct client *c)
{
	stream_end(s, c);
	if (c->pass_fd >= 0)
		close(c->pass_fd);
	if (c->ctx.pass_fd >= 0)
		close(c->ctx.pass_fd);
	if (c->ctx.pidfd >= 0)
		close(c->ctx.pidfd);
	drain_close(c->fd);
	free(c->out);
	free(c);
	STAT_SUB(s, clients, 1);
}

static void
client_close_after_reply(struct tep_ctl_server *s, struct client *c,
			 uint64_t now)
{
	if (c->closing)
		return;
	c->closing = true;
	c->deadline = now + s->conf.linger_ms;
	stream_end(s, c);
}

static bool
outq_append(struct client *c, const void *data, size_t n)
{
	size_t need, nsize;
	uint8_t *nb;

	if (n == 0)
		return true;
	if (c->out_head > 0 && c->out_head + c->out_len + n > c->out_size) {
		memmove(c->out, c->out + c->out_head, c->out_len);
		c->out_head = 0;
	}
	need = c->out_len + n;
	if (need > c->out_size) {
		nsize = c->out_size != 0 ? c->out_size : 4096;
		while (nsize < need)
			nsize *= 2;
		nb = realloc(c->out, nsize);
		if (nb == NULL)
			return false;
		c->out = nb;
		c->out_size = nsize;
	}
	memcpy(c->out + c->out_head + c->out_len, data, n);
	c->out_len += n;
	return true;
}

/* send(2) with fd attached (SCM_RIGHTS) to the first byte. */
static ssize_t
send_with_fd(int sock, const void *buf, size_t len, int fd)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} cm;
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cm.b,
		.msg_controllen = sizeof(cm.b),
	};
	struct cmsghdr *ch;

	memset(&cm, 0, sizeof(cm));
	ch = CMSG_FIRSTHDR(&mh);
	ch->cmsg_level = SOL_SOCKET;
	ch->cmsg_type = SCM_RIGHTS;
	ch->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(ch), &fd, sizeof(int));
	return sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void
client_flush(struct client *c)
{
	bool with_fd;
	size_t len;
	ssize_t n;

	while (c->out_len > 0 && !c->dead) {
		/* A descriptor goes with its reply's first byte: send up to
		 * there without it, then that byte on with it. */
		len = c->out_len;
		with_fd = false;
		if (c->pass_fd >= 0 && c->pass_at > c->sent) {
			if (len > c->pass_at - c->sent)
				len = (size_t)(c->pass_at - c->sent);
		} else if (c->pass_fd >= 0) {
			with_fd = true;
		}
		if (with_fd)
			n = send_with_fd(c->fd, c->out + c->out_head, len,
					 c->pass_fd);
		else
			n = send(c->fd, c->out + c->out_head, len,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				c->dead = true;	/* EPIPE, ... */
			return;
		}
		if (with_fd && n > 0) {
			close(c->pass_fd);
			c->pass_fd = -1;
		}
		c->sent += (uint64_t)n;
		c->out_head += (size_t)n;
		c->out_len -= (size_t)n;
	}
	if (c->out_len == 0) {
		c->out_head = 0;
		if (c->out_size > OUT_KEEP) {
			free(c->out);
			c->out = NULL;
			c->out_size = 0;
		}
	}
}

/* Queue one reply frame and try to write it at once. */
static void
client_reply(struct tep_ctl_server *s, struct client *c, uint8_t kind,
	     uint32_t status, const char *body, size_t len)
{
	static const char nul_msg[] = "internal error: NUL byte in reply";
	uint8_t hdr[TEP_CTL_REPLY_PREFIX];

	if (c->dead)
		return;
	if (len > 0 && memchr(body, '\0', len) != NULL) {
		/* a handler bug: the protocol has no room for NUL bytes */
		stream_end(s, c);
		kind = TEP_CTL_REPLY_FINAL;
		status = EIO;
		body = nul_msg;
		len = sizeof(nul_msg) - 1;
	}
	if (tep_ctl_reply_header(hdr, kind, status, len) != TEP_CTL_PERR_OK) {
		c->dead = true;		/* cannot happen: capped */
		return;
	}
	if (c->out_len > 0 &&
	    c->out_len + sizeof(hdr) + len > s->conf.out_cap) {
		/* It does not read: drop it rather than grow without end. */
		STAT_ADD(s, dropped, 1);
		c->dead = true;
		return;
	}
	if (!outq_append(c, hdr, sizeof(hdr)) || !outq_append(c, body, len)) {
		c->dead = true;
		return;
	}
	/* Small replies wait for the end of the step (client_service). */
	if (c->out_len >= OUT_BATCH)
		client_flush(c);
}

static void
client_error(struct tep_ctl_server *s, struct client *c, int status,
	     const char *msg)
{
	client_reply(s, c, TEP_CTL_REPLY_FINAL, (uint32_t)status, msg,
		     strlen(msg));
}

/* An output's own error (too large, ...) into err; 0 if none. */
static int
out_status(const struct tep_out *out, struct tep_err *err)
{
	switch (tep_out_error(out)) {
	case 0:
		return 0;
	case EMSGSIZE:
		return tep_err_set(err, EMSGSIZE,
				   "reply too large (more than %u bytes)",
				   TEP_CTL_MAX_BODY);
	case ENOMEM:
		return tep_err_set(err, ENOMEM, "out of memory");
	default:
		return tep_err_set(err, EIO,
				   "internal error: malformed command output");
	}
}

static void
run_request(struct tep_ctl_server *s, struct client *c,
	    struct tep_ctl_req *req)
{
	bool json = (req->flags & TEP_CTL_F_JSON) != 0;
	struct tep_out out;
	struct tep_err err;
	int rc;

	tep_out_init(&out, json, TEP_CTL_MAX_BODY);
	c->ctx.stream_set = false;
	memset(&c->ctx.stream, 0, sizeof(c->ctx.stream));
	rc = tep_ctl_dispatch(s->conf.table, &c->ctx, req->argc, req->argv,
			      &out, &err);
	if (rc == 0) {
		tep_out_finish(&out);
		rc = out_status(&out, &err);
	}
	/* A descriptor goes with a successful final reply only. */
	if (c->ctx.pass_fd >= 0 && rc == 0 && !c->ctx.stream_set) {
		c->pass_fd = c->ctx.pass_fd;
		c->pass_at = c->sent + c->out_len;
	} else if (c->ctx.pass_fd >= 0) {
		close(c->ctx.pass_fd);
	}
	c->ctx.pass_fd = -1;
	if (rc != 0) {
		if (c->ctx.stream_set) {
			tep_ctl_stream_drop(&c->ctx.stream);
			c->ctx.stream_set = false;
		}
		client_error(s, c, rc, err.msg);
	} else if (c->ctx.stream_set) {
		c->stream = c->ctx.stream;
		c->ctx.stream_set = false;
		memset(&c->ctx.stream, 0, sizeof(c->ctx.stream));
		c->streaming = true;
		c->stream_json = json;
		c->next_tick = mono_ms() + c->stream.interval_ms;
		STAT_ADD(s, streams, 1);
		if (!tep_out_empty(&out))
			client_reply(s, c, TEP_CTL_REPLY_ITEM, 0,
				     tep_out_data(&out), tep_out_len(&out));
	} else {
		client_reply(s, c, TEP_CTL_REPLY_FINAL, 0, tep_out_data(&out),
			     tep_out_len(&out));
	}
	tep_out_fini(&out);
}

/*
 * Is the server waiting for the client's next request (it has nothing
 * queued for the client, no stream, nothing left to serve)? The idle
 * clock runs from then until a complete request arrives.
 */
static void
client_wait_update(struct client *c, uint64_t now)
{
	bool waiting = !c->dead && !c->closing && !c->streaming &&
		       c->out_len == 0 && !c->more && c->pass_fd < 0;
	size_t flen;

	/* a whole request not yet served is not the client's delay */
	if (waiting && tep_ctl_frame_check(c->in, c->in_len, TEP_CTL_MAX_REQ,
					   &flen) != TEP_CTL_PERR_INCOMPLETE)
		waiting = false;
	if (!waiting)
		c->wait_since = 0;
	else if (c->wait_since == 0)
		c->wait_since = now;
}

/* Run what can run now: queued requests, end of input. */
static void
client_service(struct tep_ctl_server *s, struct client *c, uint64_t now)
{
	struct tep_ctl_req req;
	unsigned int served = 0;
	char msg[128];
	size_t flen;
	int perr;

	c->more = false;
again:
	/* A client that does not read its replies is not served more; nor
	 * is one whose descriptor has not gone out yet (one at a time). */
	while (!c->dead && !c->closing && !c->streaming &&
	       c->out_len < OUT_BATCH && c->in_len > 0 && c->pass_fd < 0) {
		if (served == SERVE_BURST) {
			c->more = true;
			break;
		}
		perr = tep_ctl_req_decode(c->in, c->in_len, &req, &flen);
		if (perr == TEP_CTL_PERR_INCOMPLETE)
			break;
		if (perr != TEP_CTL_PERR_OK) {
			STAT_ADD(s, bad_requests, 1);
			snprintf(msg, sizeof(msg), "bad request: %s",
				 tep_ctl_perr_str(perr));
			client_error(s, c, tep_ctl_perr_errno(perr), msg);
			client_close_after_reply(s, c, now);
			client_flush(c);
			return;
		}
		STAT_ADD(s, requests, 1);
		c->served = true;
		c->wait_since = 0;	/* the idle clock starts again */
		run_request(s, c, &req);
		served++;
		memmove(c->in, c->in + flen, c->in_len - flen);
		c->in_len -= flen;
	}
	if (c->pass_fd >= 0) {
		/* the descriptor went with this flush: serve on */
		client_flush(c);
		if (c->pass_fd < 0 && !c->dead)
			goto again;
	}
	client_flush(c);
	client_wait_update(c, now);
	if (c->dead || c->closing || c->streaming || !c->eof)
		return;
	if (c->in_len == 0) {
		/* all served: close once the replies are out */
		client_close_after_reply(s, c, now);
	} else if (c->out_len == 0) {
		/* the peer stopped sending mid-request */
		STAT_ADD(s, bad_requests, 1);
		client_error(s, c, EPROTO, "bad request: truncated message");
		client_close_after_reply(s, c, now);
	}
}

/* Read what the client has sent. true: some bytes came. */
static bool
client_read(struct tep_ctl_server *s, struct client *c)
{
	bool got = false;
	size_t space;
	ssize_t n;

	while (!c->eof && !c->dead) {
		space = sizeof(c->in) - c->in_len;
		if (space == 0)
			break;
		n = recv(c->fd, c->in + c->in_len, space, MSG_DONTWAIT);
		if (n > 0) {
			c->in_len += (size_t)n;
			got = true;
		} else if (n == 0) {
			c->eof = true;
		} else if (errno == EINTR) {
			continue;
		} else {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				c->dead = true;
			break;
		}
	}
	if (got)
		c->heard = ++s->heard_seq;
	return got;
}

/* A stream on a clock (stats watch), or paced by its reader (interval 0:
 * the next piece once the last is read)? */
static bool
stream_due_by_clock(const struct client *c)
{
	return c->stream.interval_ms != 0;
}

static void
client_tick(struct tep_ctl_server *s, struct client *c, uint64_t now)
{
	struct tep_out out;
	struct tep_err err;
	int rc, orc;

	tep_err_clear(&err);
	tep_out_init(&out, c->stream_json, TEP_CTL_MAX_BODY);
	rc = c->stream.tick(&c->ctx, c->stream.arg, &out, &err);
	if (rc < 0 && rc != TEP_CTL_STREAM_END)
		rc = -rc;
	if (rc == 0 || rc == TEP_CTL_STREAM_END) {
		tep_out_finish(&out);
		orc = out_status(&out, &err);
		if (orc != 0)
			rc = orc;
	}
	if (rc == 0) {
		c->next_tick += c->stream.interval_ms;
		if (c->next_tick <= now)	/* late: skip, don't burst */
			c->next_tick = now + c->stream.interval_ms;
		client_reply(s, c, TEP_CTL_REPLY_ITEM, 0, tep_out_data(&out),
			     tep_out_len(&out));
	} else if (rc == TEP_CTL_STREAM_END) {
		stream_end(s, c);
		client_reply(s, c, TEP_CTL_REPLY_FINAL, 0, tep_out_data(&out),
			     tep_out_len(&out));
	} else {
		stream_end(s, c);
		if (err.msg[0] == '\0')
			tep_err_set(&err, rc, "%s", strerror(rc));
		client_error(s, c, rc, err.msg);
	}
	tep_out_fini(&out);
}

/* Refuse a connection with one error reply, without a client slot. */
static void
refuse(int fd, int status, const char *msg)
{
	uint8_t buf[TEP_CTL_REPLY_PREFIX + 256];
	size_t len = strlen(msg), flen;

	if (len > sizeof(buf) - TEP_CTL_REPLY_PREFIX)
		len = sizeof(buf) - TEP_CTL_REPLY_PREFIX;
	if (tep_ctl_reply_encode(buf, sizeof(buf), TEP_CTL_REPLY_FINAL,
				 (uint32_t)status, msg, len, &flen) ==
	    TEP_CTL_PERR_OK) {
		/* a fresh socket's buffer takes a small frame whole */
		if (send(fd, buf, flen, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
			/* nothing more to do for it */
		}
	}
	drain_close(fd);
}

/* Is want among the peer's supplementary groups (Linux 4.13+)? */
static bool
in_group(int fd, gid_t want)
{
#ifdef SO_PEERGROUPS
	gid_t small[64], *g = small;
	socklen_t len = sizeof(small);
	bool found = false;
	size_t i, n;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) != 0) {
		if (errno != ERANGE || len == 0)
			return false;
		g = malloc(len);
		if (g == NULL)
			return false;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) != 0) {
			free(g);
			return false;
		}
	}
	n = len / sizeof(gid_t);
	for (i = 0; i < n && !found; i++)
		found = g[i] == want;
	if (g != small)
		free(g);
	return found;
#else
	(void)fd;
	(void)want;
	return false;
#endif
}

static bool
peer_allowed(const struct tep_ctl_server *s, int fd, const struct ucred *uc)
{
	if (uc->uid == 0 || uc->uid == s->euid)
		return true;
	if (s->conf.allow_uid_set && uc->uid == s->conf.allow_uid)
		return true;
	if (!s->conf.allow_gid_set)
		return false;
	return uc->gid == s->conf.allow_gid || in_group(fd, s->conf.allow_gid);
}

static unsigned int
uid_clients(const struct tep_ctl_server *s, uid_t uid)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < s->ncl; i++)
		n += !s->cl[i]->dead && s->cl[i]->ctx.uid == uid;
	return n;
}

static bool
evictable(const struct client *c)
{
	return !c->served && !c->closing && !c->dead && c->wait_since != 0;
}

/*
 * Among the clients that have never sent a complete request, the one
 * silent longest of the process that holds the most of them. The process
 * comes first because a client that has just connected has had no time
 * to send: with the slots turning over as fast as a flood of root's
 * connections can make them, silence alone would drop the administrator's
 * tepctl whenever the machine is busy enough to hold it up between its
 * connect and its send. The flood's process holds many such slots,
 * tepctl one. NULL: there is none.
 */
static struct client *
evict_choice(const struct tep_ctl_server *s, size_t *at)
{
	const struct client *c, *o;
	struct client *best = NULL;
	unsigned int held, best_held = 0;
	size_t i, j;

	for (i = 0; i < s->ncl; i++) {
		c = s->cl[i];
		if (!evictable(c))
			continue;
		held = 0;
		for (j = 0; j < s->ncl; j++) {
			o = s->cl[j];
			held += evictable(o) && o->ctx.pid == c->ctx.pid;
		}
		if (best == NULL || held > best_held ||
		    (held == best_held && c->heard < best->heard)) {
			best = s->cl[i];
			best_held = held;
			*at = i;
		}
	}
	return best;
}

/*
 * Every slot is taken and root (or the server's uid) knocks: take the slot
 * of a client that has never sent a complete request (evict_choice).
 * Clients that work (served once) are not touched, so an administrator's
 * stream or a batch in progress stays. One whose bytes are already in
 * its socket, not yet read, is not silent: it is read and spared. false:
 * no slot to take.
 */
static bool
evict_idle(struct tep_ctl_server *s, uint64_t now)
{
	static const char msg[] = "dropped: no complete request yet, and "
				  "the slot is needed";
	struct client *c = NULL;
	size_t at = 0, tries;

	for (tries = 0; tries < s->ncl; tries++) {
		c = evict_choice(s, &at);
		if (c == NULL)
			return false;
		if (!client_read(s, c) || c->dead)
			break;
		/* a complete request now: served next step */
		client_wait_update(c, now);
		if (c->wait_since == 0)
			c->more = true;
		c = NULL;
	}
	if (c == NULL)
		return false;
	client_reply(s, c, TEP_CTL_REPLY_FINAL, EBUSY, msg, sizeof(msg) - 1);
	client_flush(c);
	client_free(s, c);
	s->cl[at] = s->cl[--s->ncl];
	STAT_ADD(s, evicted, 1);
	return true;
}

/* Has the uid a slot? Refuses fd (one error reply) if not. */
static bool
slot_for(struct tep_ctl_server *s, int fd, uid_t uid, bool priv,
	 uint64_t now)
{
	unsigned int cap = s->conf.max_clients;
	char msg[128];

	if (!priv && s->conf.max_per_uid != TEP_CTL_NONE &&
	    uid_clients(s, uid) >= s->conf.max_per_uid) {
		snprintf(msg, sizeof(msg), "too many clients for uid %u "
			 "(at most %u)", (unsigned int)uid,
			 s->conf.max_per_uid);
		refuse(fd, EBUSY, msg);
		return false;
	}
	if (!priv)
		cap -= s->conf.reserved;
	if (s->ncl < cap || (priv && evict_idle(s, now)))
		return true;
	refuse(fd, EBUSY, "too many clients");
	return false;
}

static int
pidfd_open_peer(pid_t pid, int *err)
{
#ifdef SYS_pidfd_open
	long fd = syscall(SYS_pidfd_open, pid, 0);

	*err = fd < 0 ? errno : 0;
	return (int)fd;
#else
	(void)pid;
	*err = ENOSYS;
	return -1;
#endif
}

static void
accept_clients(struct tep_ctl_server *s, uint64_t now)
{
	struct ucred uc;
	socklen_t len;
	struct client *c;
	char msg[128];
	bool priv;
	int fd, i;

	for (i = 0; i < ACCEPT_BURST; i++) {
		fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM)
				s->accept_resume = now + ACCEPT_PAUSE_MS;
			return;
		}
		STAT_ADD(s, accepted, 1);
		len = sizeof(uc);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) != 0) {
			STAT_ADD(s, refused, 1);
			refuse(fd, EACCES, "permission denied: no credentials");
			continue;
		}
		if (!peer_allowed(s, fd, &uc)) {
			STAT_ADD(s, refused, 1);
			snprintf(msg, sizeof(msg),
				 "permission denied: uid %u gid %u not allowed",
				 (unsigned int)uc.uid, (unsigned int)uc.gid);
			refuse(fd, EACCES, msg);
			continue;
		}
		priv = uc.uid == 0 || uc.uid == s->euid;
		if (!slot_for(s, fd, uc.uid, priv, now)) {
			STAT_ADD(s, refused, 1);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (c == NULL) {
			refuse(fd, ENOMEM, "out of memory");
			continue;
		}
		c->fd = fd;
		c->wait_since = now;
		c->heard = ++s->heard_seq;
		c->pass_fd = -1;
		c->ctx.pass_fd = -1;
		/* The peer process itself, not its number: whether it is
		 * still the one that connected can be told later
		 * (tep_ctl_ctx_peer_netns). */
		c->ctx.pidfd = pidfd_open_peer(uc.pid, &c->ctx.pidfd_err);
		c->ctx.user = s->conf.user;
		c->ctx.origin = TEP_CTL_ORIGIN_SOCKET;
		c->ctx.has_peer = true;
		c->ctx.pid = uc.pid;
		c->ctx.uid = uc.uid;
		c->ctx.gid = uc.gid;
		c->ctx.can_stream = true;
		s->cl[s->ncl++] = c;
		STAT_ADD(s, clients, 1);
	}
}

/* ---- the loop ---------------------------------------------------------- */

static int
min_wait(int wait, uint64_t at, uint64_t now)
{
	uint64_t d = at > now ? at - now : 0;

	if (d > 60000)
		d = 60000;
	if (wait < 0 || (uint64_t)wait > d)
		return (int)d;
	return wait;
}

/*
 * sshd's LoginGraceTime for each request: a client the server has waited
 * on for idle_ms without getting a complete request is told so and
 * closed. Slow senders (a byte now and then) count as idle too.
 */
static void
expire_idle(struct tep_ctl_server *s, uint64_t now)
{
	struct client *c;
	char msg[96];
	size_t i, flen;

	if (s->conf.idle_ms == TEP_CTL_NONE)
		return;
	for (i = 0; i < s->ncl; i++) {
		c = s->cl[i];
		if (c->wait_since == 0 || c->dead || c->closing ||
		    now < c->wait_since + s->conf.idle_ms)
			continue;
		/* The request may have come in after poll() returned: one
		 * already in the socket is not late, serve it next step. */
		client_read(s, c);
		if (c->in_len > 0 &&
		    tep_ctl_frame_check(c->in, c->in_len, TEP_CTL_MAX_REQ,
					&flen) != TEP_CTL_PERR_INCOMPLETE) {
			c->more = true;
			continue;
		}
		STAT_ADD(s, timed_out, 1);
		snprintf(msg, sizeof(msg), "idle timeout: no complete request "
			 "in %u ms", s->conf.idle_ms);
		client_error(s, c, ETIMEDOUT, msg);
		client_close_after_reply(s, c, now);
		client_flush(c);
	}
}

static void
reap(struct tep_ctl_server *s, uint64_t now)
{
	struct client *c;
	size_t i;

	for (i = 0; i < s->ncl;) {
		c = s->cl[i];
		if (c->closing && (c->out_len == 0 || now >= c->deadline))
			c->dead = true;
		if (!c->dead) {
			i++;
			continue;
		}
		client_free(s, c);
		s->cl[i] = s->cl[--s->ncl];
	}
}

int
tep_ctl_server_poll(struct tep_ctl_server *s, int timeout_ms)
{
	uint64_t now = mono_ms();
	int wait = timeout_ms;
	size_t i, nold;
	struct client *c;
	short ev, re;
	char junk[64];
	int n;

	for (i = 0; i < s->ncl; i++) {
		c = s->cl[i];
		if (c->more)
			wait = 0;
		if (c->streaming && stream_due_by_clock(c))
			wait = min_wait(wait, c->next_tick, now);
		else if (c->streaming && c->out_len == 0)
			wait = 0;	/* paced: read all, the next piece */
		if (c->closing)
			wait = min_wait(wait, c->deadline, now);
		if (c->wait_since != 0 && s->conf.idle_ms != TEP_CTL_NONE)
			wait = min_wait(wait, c->wait_since + s->conf.idle_ms,
					now);
	}
	if (s->accept_resume > now)
		wait = min_wait(wait, s->accept_resume, now);

	s->pfd[0].fd = s->lfd;
	s->pfd[0].events = s->accept_resume <= now ? POLLIN : 0;
	s->pfd[1].fd = s->wake[0];
	s->pfd[1].events = POLLIN;
	for (i = 0; i < s->ncl; i++) {
		c = s->cl[i];
		ev = 0;
		if (!c->eof && !c->closing && c->in_len < sizeof(c->in))
			ev |= POLLIN;
		if (c->out_len > 0)
			ev |= POLLOUT;
		s->pfd[2 + i].fd = c->fd;
		s->pfd[2 + i].events = ev;
		s->pfd[2 + i].revents = 0;
	}
	nold = s->ncl;
	n = poll(s->pfd, 2 + nold, wait);
	if (n < 0)
		return errno == EINTR ? 0 : errno;
	now = mono_ms();

	if (s->pfd[1].revents & POLLIN)
		while (read(s->wake[0], junk, sizeof(junk)) > 0)
			;

	for (i = 0; i < nold; i++) {
		c = s->cl[i];
		re = s->pfd[2 + i].revents;
		if (re == 0 && !c->more)
			continue;
		if (re & (POLLERR | POLLNVAL)) {
			c->dead = true;
			continue;
		}
		if (re & POLLOUT)
			client_flush(c);
		if (re & (POLLIN | POLLHUP))
			client_read(s, c);
		/* fully closed: nobody left to stream to */
		if ((re & POLLHUP) && c->streaming)
			c->dead = true;
		client_service(s, c, now);
	}

	expire_idle(s, now);
	reap(s, now);
	if (s->pfd[0].revents & POLLIN)
		accept_clients(s, now);

	for (i = 0; i < s->ncl; i++) {
		c = s->cl[i];
		if (c->streaming && !c->dead &&
		    (stream_due_by_clock(c) ? c->next_tick <= now :
					      c->out_len == 0)) {
			client_tick(s, c, now);
			client_service(s, c, now);
		}
	}
	reap(s, now);
	return 0;
}

int
tep_ctl_server_run(struct tep_ctl_server *s, const atomic_bool *stop)
{
	int rc;

	while (!atomic_load(&s->stopped) &&
	       (stop == NULL || !atomic_load(stop))) {
		rc = tep_ctl_server_poll(s, RUN_POLL_MS);
		if (rc != 0)
			return rc;
	}
	return 0;
}

void
tep_ctl_server_wakeup(struct tep_ctl_server *s)
{
	int saved = errno;

	if (write(s->wake[1], "", 1) < 0) {
		/* full pipe: a wakeup is pending anyway */
	}
	errno = saved;
}

void
tep_ctl_server_stop(struct tep_ctl_server *s)
{
	atomic_store(&s->stopped, true);
	tep_ctl_server_wakeup(s);
}

void
tep_ctl_server_stats(const struct tep_ctl_server *s,
		     struct tep_ctl_server_stats *st)
{
	st->accepted = __atomic_load_n(&s->st.accepted, __ATOMIC_RELAXED);
	st->refused = __atomic_load_n(&s->st.refused, __ATOMIC_RELAXED);
	st->timed_out = __atomic_load_n(&s->st.timed_out, __ATOMIC_RELAXED);
	st->evicted = __atomic_load_n(&s->st.evicted, __ATOMIC_RELAXED);
	st->requests = __atomic_load_n(&s->st.requests, __ATOMIC_RELAXED);
	st->bad_requests = __atomic_load_n(&s->st.bad_requests,
					   __ATOMIC_RELAXED);
	st->dropped = __atomic_load_n(&s->st.dropped, __ATOMIC_RELAXED);
	st->clients = __atomic_load_n(&s->st.clients, __ATOMIC_RELAXED);
	st->streams = __atomic_load_n(&s->st.streams, __ATOMIC_RELAXED);
}

void
tep_ctl_server_free(struct tep_ctl_server *s)
{
	struct stat st;
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->ncl; i++)
		client_free(s, s->cl[i]);
	s->ncl = 0;
	if (s->lfd >= 0)
		close(s->lfd);
	/* Unlink only our own socket, not one a newer server made since. */
	if (s->path[0] != '\0' && lstat(s->path, &st) == 0 &&
	    S_ISSOCK(st.st_mode) && st.st_dev == s->dev &&
	    st.st_ino == s->ino)
		unlink(s->path);
	if (s->wake[0] >= 0)
		close(s->wake[0]);
	if (s->wake[1] >= 0)
		close(s->wake[1]);
	free(s->cl);
	free(s->pfd);
	free(s);
}
