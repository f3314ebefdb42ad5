/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * The /metrics endpoint: libmicrohttpd's thread serves the snapshot the
 * control thread rendered (metrics.c); started and stopped by tepd's main.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "tep_ctl_server.h"
#include "tepd.h"

#include "metrics_priv.h"
#include "args.h"
#include "metrics.h"

static const char *const content_type[FMT_MAX] = {
	"text/plain; version=0.0.4; charset=utf-8",
	"application/openmetrics-text; version=1.0.0; charset=utf-8",
};

/* A reference to a fresh snapshot, or to the last one if the control
 * thread does not answer in time; NULL before the first. */
static struct snap *
snap_get(void)
{
	uint64_t now = mono_ns(), deadline;
	struct timespec ts;
	struct snap *s;

	pthread_mutex_lock(&M.lock);
	if (M.cur == NULL ||
	    now - M.cur->built_ns > METRICS_FRESH_MS * 1000000ull) {
		if (!M.want) {
			M.want_since = now;
			__atomic_store_n(&M.want, true, __ATOMIC_RELEASE);
			if (M.ctl != NULL)
				tep_ctl_server_wakeup(M.ctl);
		}
		/* Wait only within METRICS_WAIT_MS of the first request
		 * that asked: if the control thread is busy, requests after
		 * that take the last snapshot at once. */
		deadline = M.want_since + METRICS_WAIT_MS * 1000000ull;
		ts.tv_sec = (time_t)(deadline / 1000000000u);
		ts.tv_nsec = (long)(deadline % 1000000000u);
		while (M.want && mono_ns() < deadline)
			if (pthread_cond_timedwait(&M.fresh, &M.lock, &ts) ==
			    ETIMEDOUT)
				break;
	}
	s = M.cur;
	if (s != NULL)
		__atomic_add_fetch(&s->refs, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&M.lock);
	return s;
}

static void
snap_free_cb(void *cls)
{
	snap_put(cls);
}

static enum MHD_Result
reply_text(struct MHD_Connection *c, unsigned int status, const char *text)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text,
					    MHD_RESPMEM_PERSISTENT);
	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *c, const char *url,
	   const char *method, const char *version, const char *upload_data,
	   size_t *upload_data_size, void **con_cls)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	const char *accept;
	struct snap *s;
	int f;

	(void)cls;
	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	/* Answered at once, on the first call: a body, if any, is not
	 * read (libmicrohttpd then closes the connection). */
	__atomic_add_fetch(&M.requests, 1, __ATOMIC_RELAXED);
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				  "GET /metrics\n");
	if (strcmp(url, "/") == 0)
		return reply_text(c, MHD_HTTP_OK, "tepd: GET /metrics\n");
	if (strcmp(url, "/metrics") != 0)
		return reply_text(c, MHD_HTTP_NOT_FOUND, "GET /metrics\n");
	s = snap_get();
	if (s == NULL)
		return reply_text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
				  "no snapshot yet: the control thread is "
				  "busy\n");
	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					     MHD_HTTP_HEADER_ACCEPT);
	f = accept != NULL && strstr(accept, "application/openmetrics-text")
		!= NULL ? FMT_OM : FMT_PROM;
	r = MHD_create_response_from_buffer_with_free_callback_cls(s->len[f],
		s->text[f], snap_free_cb, s);
	if (r == NULL) {
		snap_put(s);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				content_type[f]);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);	/* the snapshot goes with the last use */
	return ret;
}

int
tep_metrics_start(const char *listen, struct tep_ctl_server *ctl,
		  char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	pthread_condattr_t ca;
	struct timespec now;
	unsigned int flags;
	bool v6;

	if (tep_parse_listen(listen, &ss, &v6) != 0) {
		snprintf(err, errlen, "-M %s: want [ADDR]:PORT, e.g. "
			 "127.0.0.1:9108 or [::1]:9108", listen);
		return -1;
	}
	M.g = malloc(sizeof(*M.g));
	if (M.g == NULL) {
		snprintf(err, errlen, "metrics: out of memory");
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	M.start_time = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
	M.ctl = ctl;
	pthread_mutex_init(&M.lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&M.fresh, &ca);
	pthread_condattr_destroy(&ca);
	/* One thread of libmicrohttpd's own, on epoll; it inherits the
	 * control lcore's CPU affinity, never a worker's. */
	flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
		(v6 ? MHD_USE_IPv6 : 0);
	M.mhd = MHD_start_daemon(flags, 0, NULL, NULL, on_request, NULL,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)METRICS_CONN_MAX,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned int)METRICS_CONN_PER_IP,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)METRICS_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)METRICS_CONN_MEM,
		MHD_OPTION_STRICT_FOR_CLIENT, (int)1,
		MHD_OPTION_END);
	if (M.mhd == NULL) {
		snprintf(err, errlen, "-M %s: cannot listen (%s)", listen,
			 errno != 0 ? strerror(errno) : "libmicrohttpd failed");
		free(M.g);
		M.g = NULL;
		return -1;
	}
	return 0;
}

void
tep_metrics_stop(void)
{
	if (M.mhd == NULL)
		return;
	MHD_stop_daemon(M.mhd);		/* joins its thread */
	M.mhd = NULL;
	snap_put(M.cur);
	M.cur = NULL;
	free(M.g);
	M.g = NULL;
}
