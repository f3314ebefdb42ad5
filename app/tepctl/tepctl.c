/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * tepctl: send one command to tepd's control socket and print the reply.
 *
 *	tepctl [-s SOCKET] [-j] COMMAND...
 *	tepctl [-s SOCKET] vrf exec NAME -- COMMAND [ARGS...]
 *	tepctl [-s SOCKET] [-j] -b FILE
 *
 * The reply body goes to stdout as it is (stream items one by one, each
 * flushed); an error reply goes to stderr as "tepctl: MESSAGE".
 * Exit status: 0 success, 1 the command failed, 2 usage or connection
 * error (130 if interrupted before any reply).
 */

#define _GNU_SOURCE		/* ppoll, setns */

#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "tep_ctl_cmd.h"
#include "tep_ctl_proto.h"

#define EXIT_CMD_FAILED	1
#define EXIT_USAGE	2
#define EXIT_INTR	130
#define BATCH_WINDOW	64	/* requests in flight in batch mode */

static volatile sig_atomic_t interrupted;

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: tepctl [-s SOCKET] [-j] COMMAND...\n"
		"       tepctl [-s SOCKET] vrf exec NAME -- COMMAND [ARGS...]\n"
		"       tepctl [-s SOCKET] [-j] -b FILE\n"
		"       tepctl -h\n"
		"Send COMMAND to the tepd daemon and print its reply.\n"
		"  -s SOCKET  control socket "
		"(default: $TEPCTL_SOCKET, else %s)\n"
		"  -j         ask for the reply in JSON\n"
		"  -b FILE    run FILE's commands (one per line, - for stdin) on\n"
		"             one connection, pipelined; every line is run, each\n"
		"             failure reported as FILE:LINE\n"
		"  -h         show this help\n"
		"The daemon lists its commands with: tepctl help\n"
		"Exit status: 0 success, 1 the command failed, "
		"2 usage or connection error.\n",
		TEP_CTL_DEFAULT_SOCKET);
}

static void
on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/*
 * While replies are read, SIGINT and SIGTERM are blocked except inside
 * ppoll(): a signal can never slip in between a check of the flag and a
 * blocking read. Before that (connecting, sending) they act as usual.
 */
static void
catch_signals(sigset_t *wait_mask)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, wait_mask);
	sigdelset(wait_mask, SIGINT);
	sigdelset(wait_mask, SIGTERM);
}

static int
connect_to(const char *path)
{
	struct sockaddr_un sa;
	int fd, e;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "tepctl: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "tepctl: socket: %s\n", strerror(errno));
		return -1;
	}
	while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		if (errno == EINTR)
			continue;
		e = errno;
		fprintf(stderr, "tepctl: cannot connect to %s: %s\n", path,
			strerror(e));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Send the request. A server that refuses us or rejects the request may
 * close before reading all of it; its error reply is still there to read,
 * so a broken pipe is not reported here.
 */
static int
send_all(int fd, const uint8_t *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE || errno == ECONNRESET)
				return 0;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static bool
write_out(const char *body, size_t len)
{
	if (len > 0 && fwrite(body, 1, len, stdout) != len)
		return false;
	return fflush(stdout) == 0;
}

/* Bytes received and not yet consumed: replies to pipelined requests
 * (batch mode) arrive back to back. fd: a descriptor the server sent
 * (vrf exec), or -1. */
struct reader {
	uint8_t *buf;
	size_t len, size;
	int fd;
};

/*
 * recv(2), keeping a descriptor that comes with the bytes (SCM_RIGHTS):
 * the first one is kept in r->fd, any other closed at once. A plain
 * recv() would have the kernel drop it, but also lose the fact.
 */
static ssize_t
recv_keep_fd(int sock, struct reader *r)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(4 * sizeof(int))];
	} cm;
	struct iovec iov = { .iov_base = r->buf + r->len,
			     .iov_len = r->size - r->len };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cm.b,
		.msg_controllen = sizeof(cm.b),
	};
	struct cmsghdr *ch;
	size_t i, n;
	int fds[4];
	ssize_t got;

	got = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (got < 0)
		return got;
	for (ch = CMSG_FIRSTHDR(&mh); ch != NULL; ch = CMSG_NXTHDR(&mh, ch)) {
		if (ch->cmsg_level != SOL_SOCKET ||
		    ch->cmsg_type != SCM_RIGHTS)
			continue;
		n = (ch->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (n > 4)
			n = 4;
		memcpy(fds, CMSG_DATA(ch), n * sizeof(int));
		for (i = 0; i < n; i++) {
			if (r->fd < 0)
				r->fd = fds[i];
			else
				close(fds[i]);
		}
	}
	return got;
}

static void
consume(struct reader *r, size_t flen)
{
	memmove(r->buf, r->buf + flen, r->len - flen);
	r->len -= flen;
}

/* Read and print replies until the final one; returns the exit status.
 * With capture, a successful final reply's body goes there (NUL-ended,
 * cut to cap) instead of stdout. With where ("FILE:LINE"), an error is
 * reported as "tepctl: FILE:LINE: message". */
static int
read_replies(int fd, struct reader *r, const sigset_t *wait_mask,
	     char *capture, size_t cap, const char *where)
{
	size_t flen, need;
	struct tep_ctl_reply rep;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	bool got_item = false;
	uint8_t *buf, *nb;
	ssize_t n;
	int perr, rc = EXIT_USAGE;

	if (r->buf == NULL) {
		r->size = 64 * 1024;
		r->buf = malloc(r->size);
		if (r->buf == NULL) {
			fprintf(stderr, "tepctl: out of memory\n");
			return EXIT_USAGE;
		}
	}
	buf = r->buf;
	for (;;) {
		perr = tep_ctl_reply_decode(buf, r->len, &rep, &flen);
		if (perr == TEP_CTL_PERR_OK) {
			if (rep.kind == TEP_CTL_REPLY_ITEM) {
				got_item = true;
				if (!write_out(rep.body, rep.body_len)) {
					fprintf(stderr,
						"tepctl: write error: %s\n",
						strerror(errno));
					break;
				}
				consume(r, flen);
				continue;
			}
			if (rep.status == 0 && capture != NULL) {
				rc = EXIT_SUCCESS;
				snprintf(capture, cap, "%.*s",
					 (int)rep.body_len, rep.body);
			} else if (rep.status == 0) {
				rc = EXIT_SUCCESS;
				if (!write_out(rep.body, rep.body_len)) {
					fprintf(stderr,
						"tepctl: write error: %s\n",
						strerror(errno));
					rc = EXIT_USAGE;
				}
			} else {
				rc = EXIT_CMD_FAILED;
				if (rep.body_len > 0)
					fprintf(stderr, "tepctl: %s%s%.*s\n",
						where ? where : "",
						where ? ": " : "",
						(int)rep.body_len, rep.body);
				else
					fprintf(stderr, "tepctl: %s%s%s\n",
						where ? where : "",
						where ? ": " : "",
						strerror((int)rep.status));
			}
			consume(r, flen);
			break;
		}
		if (perr != TEP_CTL_PERR_INCOMPLETE) {
			fprintf(stderr, "tepctl: bad reply: %s\n",
				tep_ctl_perr_str(perr));
			break;
		}
		/* room for the whole frame once its length is known */
		need = r->len + 4096;
		if (r->len >= TEP_CTL_LEN_SIZE)
			need = TEP_CTL_LEN_SIZE + tep_ctl_get_be32(buf);
		if (need > r->size) {
			nb = realloc(buf, need);
			if (nb == NULL) {
				fprintf(stderr, "tepctl: out of memory\n");
				break;
			}
			buf = r->buf = nb;
			r->size = need;
		}
		if (interrupted) {
			/* ^C ends a stream normally */
			rc = got_item ? EXIT_SUCCESS : EXIT_INTR;
			break;
		}
		if (ppoll(&pfd, 1, NULL, wait_mask) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "tepctl: poll: %s\n", strerror(errno));
			break;
		}
		n = recv_keep_fd(fd, r);
		if (n > 0) {
			r->len += (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n == 0)
			fprintf(stderr, "tepctl: connection closed by the "
				"server before its reply\n");
		else
			fprintf(stderr, "tepctl: receive: %s\n",
				strerror(errno));
		break;
	}
	return rc;
}

/*
 * A descriptor from the server is entered (vrf exec) only if the server
 * is root or ourselves: anyone else who got to listen on the path (a
 * socket directory it could write to, a -s of its choosing) could hand
 * out a namespace of its own making.
 */
static bool
server_trusted(int fd, const char *path)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) != 0) {
		fprintf(stderr, "tepctl: %s: SO_PEERCRED: %s\n", path,
			strerror(errno));
		return false;
	}
	if (uc.uid == 0 || uc.uid == getuid())
		return true;
	fprintf(stderr, "tepctl: vrf exec: the server on %s runs as uid %u, "
		"neither root nor you (uid %u): not entering a namespace it "
		"hands out\n", path, (unsigned int)uc.uid,
		(unsigned int)getuid());
	return false;
}

/* Send one request and handle its replies (see read_replies). With
 * pass_fd (vrf exec), the server must be trusted and the descriptor it
 * sends with the reply is returned there (-1 if none). */
static int
run(const char *path, uint8_t flags, int argc, char **argv, char *capture,
    size_t cap, int *pass_fd)
{
	uint8_t req[TEP_CTL_LEN_SIZE + TEP_CTL_MAX_REQ];
	struct reader rd = { .fd = -1 };
	sigset_t wait_mask, saved;
	size_t rlen;
	int perr, fd, rc;

	perr = tep_ctl_req_encode(req, sizeof(req), flags, argc, argv, &rlen);
	if (perr != TEP_CTL_PERR_OK) {
		fprintf(stderr, "tepctl: command too long: %s "
			"(at most %d words of %u bytes, %u bytes in all)\n",
			tep_ctl_perr_str(perr), TEP_CTL_MAX_ARGS,
			TEP_CTL_MAX_WORD, TEP_CTL_MAX_REQ);
		return EXIT_USAGE;
	}
	fd = connect_to(path);
	if (fd < 0)
		return EXIT_USAGE;
	if (pass_fd != NULL && !server_trusted(fd, path)) {
		close(fd);
		return EXIT_USAGE;
	}
	if (send_all(fd, req, rlen) != 0) {
		fprintf(stderr, "tepctl: send: %s\n", strerror(errno));
		close(fd);
		return EXIT_USAGE;
	}
	sigprocmask(SIG_SETMASK, NULL, &saved);
	catch_signals(&wait_mask);
	rc = read_replies(fd, &rd, &wait_mask, capture, cap, NULL);
	free(rd.buf);
	close(fd);
	if (pass_fd != NULL && rc == EXIT_SUCCESS)
		*pass_fd = rd.fd;
	else if (rd.fd >= 0)
		close(rd.fd);
	if (capture != NULL) {	/* the command to exec gets them as usual */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigprocmask(SIG_SETMASK, &saved, NULL);
	}
	return rc;
}

/* With no request in flight, anything to read (its idle-timeout reply,
 * end of file) means the server has dropped us. */
static bool
dropped_idle(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/*
 * Batch mode: the lines of a file (the config file's syntax), sent on one
 * connection with up to BATCH_WINDOW requests in flight, so loading a
 * million routes costs the server's work, not a round trip per line. The
 * server answers in order; every line is run (as ip -batch -force), each
 * failure is reported as "FILE:LINE: message", replies' bodies go to
 * stdout in order. Exit 1 if any line failed.
 */
static int
batch(const char *path, uint8_t flags, const char *file)
{
	static uint8_t req[TEP_CTL_LEN_SIZE + TEP_CTL_MAX_REQ];
	unsigned long inflight[BATCH_WINDOW], lineno = 0, ncmds = 0;
	unsigned long nfail = 0, head = 0, tail = 0;
	struct reader rd = { .fd = -1 };
	char *argv[TEP_CTL_MAX_ARGS + 1], *line = NULL, where[300];
	size_t cap = 0, rlen;
	sigset_t wait_mask;
	struct tep_err err;
	FILE *in;
	ssize_t n;
	int fd, argc, perr, rc = EXIT_SUCCESS;
	bool eof = false;

	in = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
	if (in == NULL) {
		fprintf(stderr, "tepctl: %s: %s\n", file, strerror(errno));
		return EXIT_USAGE;
	}
	fd = connect_to(path);
	if (fd < 0) {
		if (in != stdin)
			fclose(in);
		return EXIT_USAGE;
	}
	catch_signals(&wait_mask);
	while (!eof || head != tail) {
		/* Fill the window, then take one reply. */
		while (!eof && tail - head < BATCH_WINDOW) {
			n = getline(&line, &cap, in);
			if (n < 0) {
				eof = true;
				break;
			}
			lineno++;
			line[strcspn(line, "\r\n")] = '\0';
			tep_err_clear(&err);
			if (tep_ctl_tokenize(line, &argc, argv,
					     TEP_CTL_MAX_ARGS, &err) != 0) {
				fprintf(stderr, "tepctl: %s:%lu: %s\n", file,
					lineno, err.msg);
				ncmds++;
				nfail++;
				continue;
			}
			if (argc == 0)
				continue;
			ncmds++;
			perr = tep_ctl_req_encode(req, sizeof(req), flags, argc,
						  argv, &rlen);
			if (perr != TEP_CTL_PERR_OK) {
				fprintf(stderr, "tepctl: %s:%lu: %s\n", file,
					lineno, tep_ctl_perr_str(perr));
				nfail++;
				continue;
			}
			if (head == tail && dropped_idle(fd)) {
				/* a slow producer on stdin: tepd dropped the
				 * idle connection (idle timeout); a new one */
				close(fd);
				rd.len = 0;
				fd = connect_to(path);
				if (fd < 0) {
					rc = EXIT_USAGE;
					goto out_nofd;
				}
			}
			if (send_all(fd, req, rlen) != 0) {
				fprintf(stderr, "tepctl: send: %s\n",
					strerror(errno));
				rc = EXIT_USAGE;
				goto out;
			}
			inflight[tail++ % BATCH_WINDOW] = lineno;
		}
		if (head == tail)
			continue;
		snprintf(where, sizeof(where), "%s:%lu", file,
			 inflight[head % BATCH_WINDOW]);
		head++;
		switch (read_replies(fd, &rd, &wait_mask, NULL, 0, where)) {
		case EXIT_SUCCESS:
			break;
		case EXIT_CMD_FAILED:
			nfail++;
			break;
		default:		/* connection lost, interrupted */
			rc = EXIT_USAGE;
			goto out;
		}
	}
	if (nfail > 0) {
		fprintf(stderr, "tepctl: %s: %lu of %lu commands failed\n",
			file, nfail, ncmds);
		rc = EXIT_CMD_FAILED;
	}
out:
	close(fd);
out_nofd:
	free(line);
	free(rd.buf);
	if (rd.fd >= 0)
		close(rd.fd);
	if (in != stdin)
		fclose(in);
	return rc;
}

/*
 * vrf exec NAME -- COMMAND [ARGS...]: tepd checks that we may enter the
 * VRF (it finds out for itself which one we are in now, from our pid)
 * and sends its descriptor for the VRF's network namespace with the
 * reply; we enter it and become the command, so it and all its children
 * have their sockets in the VRF (docs/vrf-exec.md).
 */
static int
vrf_exec(const char *path, int argc, char **argv)
{
	char reply[512];
	char *words[3];
	int rc, nsfd = -1;

	if (argc < 5 || strcmp(argv[3], "--") != 0) {
		fprintf(stderr, "tepctl: usage: vrf exec NAME -- COMMAND "
			"[ARGS...]\n");
		return EXIT_USAGE;
	}
	words[0] = argv[0];
	words[1] = argv[1];
	words[2] = argv[2];
	rc = run(path, 0, 3, words, reply, sizeof(reply), &nsfd);
	if (rc != EXIT_SUCCESS)
		return rc;
	reply[strcspn(reply, "\n")] = '\0';
	if (nsfd < 0) {
		fprintf(stderr, "tepctl: vrf exec %s: the server sent no "
			"namespace descriptor (reply: %s)\n", argv[2], reply);
		return EXIT_USAGE;
	}
	/* setns() checks that it is a network namespace (EINVAL if not) */
	if (setns(nsfd, CLONE_NEWNET) != 0) {
		fprintf(stderr, "tepctl: entering vrf %s (%s): %s%s\n",
			argv[2], reply, strerror(errno), errno == EPERM ?
			" (vrf exec needs CAP_SYS_ADMIN, like ip netns exec)" :
			"");
		close(nsfd);
		return EXIT_CMD_FAILED;
	}
	close(nsfd);
	execvp(argv[4], argv + 4);
	fprintf(stderr, "tepctl: %s: %s\n", argv[4], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

int
main(int argc, char **argv)
{
	const char *path = NULL, *env, *batch_file = NULL;
	uint8_t flags = 0;
	int opt;

	while ((opt = getopt(argc, argv, "+b:hjs:")) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		case 'j':
			flags |= TEP_CTL_F_JSON;
			break;
		case 's':
			path = optarg;
			break;
		case 'b':
			batch_file = optarg;
			break;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if ((optind >= argc) == (batch_file == NULL)) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (path == NULL) {
		env = getenv("TEPCTL_SOCKET");
		path = env != NULL && env[0] != '\0' ?
		       env : TEP_CTL_DEFAULT_SOCKET;
	}

	if (batch_file != NULL)
		return batch(path, flags, batch_file);
	if (argc - optind >= 2 && strcmp(argv[optind], "vrf") == 0 &&
	    strcmp(argv[optind + 1], "exec") == 0)
		return vrf_exec(path, argc - optind, argv + optind);
	return run(path, flags, argc - optind, argv + optind, NULL, 0, NULL);
}
