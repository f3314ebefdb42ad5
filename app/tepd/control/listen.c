/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Listening addresses, as the TCP listeners take them (-M, -P).
 */

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "tepd.h"
#include "args.h"

/* "[ADDR]:PORT", "ADDR:PORT", ":PORT", "PORT"; ADDR IPv4 or [IPv6].
 * Shared with the FPM listener (fpm.c). */
int
tep_parse_listen(const char *arg, struct sockaddr_storage *ss, bool *v6)
{
	char host[INET6_ADDRSTRLEN + 2] = "";
	const char *port;
	char *end;
	unsigned long pn;

	memset(ss, 0, sizeof(*ss));
	if (arg[0] == '[') {
		const char *rb = strchr(arg, ']');

		if (rb == NULL || rb[1] != ':' ||
		    (size_t)(rb - arg - 1) >= sizeof(host))
			return -1;
		memcpy(host, arg + 1, (size_t)(rb - arg - 1));
		port = rb + 2;
	} else if ((port = strrchr(arg, ':')) != NULL) {
		if ((size_t)(port - arg) >= sizeof(host))
			return -1;
		memcpy(host, arg, (size_t)(port - arg));
		port++;
	} else {
		port = arg;
	}
	errno = 0;
	pn = strtoul(port, &end, 10);
	if (*port == '\0' || *end != '\0' || errno != 0 || pn == 0 ||
	    pn > 65535)
		return -1;
	if (host[0] == '\0')
		strcpy(host, "127.0.0.1");
	*v6 = strchr(host, ':') != NULL;
	if (*v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)pn);
		return inet_pton(AF_INET6, host, &a->sin6_addr) == 1 ? 0 : -1;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)pn);
		return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -1;
	}
}
