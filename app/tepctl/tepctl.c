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
static pid_t server_pid;	/* from SO_PEERCRED, for vrf exec */

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
 * (batch mode) arrive back to back. */
struct reader {
	uint8_t *buf;
	size_t len, size;
};

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
		n = recv(fd, buf + r->len, r->size - r->len, MSG_DONTWAIT);
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

/* Send one request and handle its replies (see read_replies). */
static int
run(const char *path, uint8_t flags, int argc, char **argv, char *capture,
    size_t cap)
{
	uint8_t req[TEP_CTL_LEN_SIZE + TEP_CTL_MAX_REQ];
	struct reader rd = { 0 };
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
	if (capture != NULL) {
		struct ucred uc;
		socklen_t ulen = sizeof(uc);

		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &ulen) == 0)
			server_pid = uc.pid;
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
	if (capture != NULL) {	/* the command to exec gets them as usual */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigprocmask(SIG_SETMASK, &saved, NULL);
	}
	return rc;
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
	struct reader rd = { 0 };
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
	free(line);
	free(rd.buf);
	close(fd);
	if (in != stdin)
		fclose(in);
	return rc;
}

/*
 * vrf exec NAME -- COMMAND [ARGS...]: tepd checks the request and names
 * the VRF's network namespace; we enter it and become the command, so it
 * and all its children have their sockets in the VRF (docs/vrf-exec.md).
 */
static int
vrf_exec(const char *path, int argc, char **argv)
{
	char ns_id[48], reply[512], name[400], nsfd_path[64];
	char *words[5];
	struct stat st;
	int rc, fd, nsfd;

	if (argc < 5 || strcmp(argv[3], "--") != 0) {
		fprintf(stderr, "tepctl: usage: vrf exec NAME -- COMMAND "
			"[ARGS...]\n");
		return EXIT_USAGE;
	}
	if (stat("/proc/self/ns/net", &st) != 0) {
		fprintf(stderr, "tepctl: /proc/self/ns/net: %s\n",
			strerror(errno));
		return EXIT_USAGE;
	}
	snprintf(ns_id, sizeof(ns_id), "%llu:%llu",
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	words[0] = argv[0];
	words[1] = argv[1];
	words[2] = argv[2];
	words[3] = (char *)"netns";
	words[4] = ns_id;
	rc = run(path, 0, 5, words, reply, sizeof(reply));
	if (rc != EXIT_SUCCESS)
		return rc;
	/* "NAME FD": tepd's descriptor for the namespace, opened through
	 * /proc, works whatever mount namespace tepd's NAME is in. */
	if (sscanf(reply, "%399s %d", name, &nsfd) != 2 || server_pid <= 0) {
		fprintf(stderr, "tepctl: unexpected reply: %s\n", reply);
		return EXIT_CMD_FAILED;
	}
	snprintf(nsfd_path, sizeof(nsfd_path), "/proc/%d/fd/%d",
		 (int)server_pid, nsfd);
	fd = open(nsfd_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "tepctl: %s (%s): %s\n", nsfd_path, name,
			strerror(errno));
		return EXIT_CMD_FAILED;
	}
	if (setns(fd, CLONE_NEWNET) != 0) {
		fprintf(stderr, "tepctl: entering %s: %s%s\n", name,
			strerror(errno), errno == EPERM ?
			" (vrf exec needs CAP_SYS_ADMIN, like ip netns exec)" :
			"");
		close(fd);
		return EXIT_CMD_FAILED;
	}
	close(fd);
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
	return run(path, flags, argc - optind, argv + optind, NULL, 0);
}
