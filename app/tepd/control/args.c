/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Parsing the control commands' arguments (addresses, prefixes, numbers,
 * MACs, ports and VRFs by name), shared by every cmd_OBJECT.c.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "args.h"
#include "port.h"

/* ---- argument parsing --------------------------------------------------- */

/* An address: family 4 or 6 in *family, network-order bytes in a. */
int
parse_ip(const char *s, int *family, uint8_t *a)
{
	if (inet_pton(AF_INET, s, a) == 1) {
		*family = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a) == 1) {
		*family = 6;
		return 0;
	}
	return -1;
}

/* "A/L" or "A" (host route). */
int
parse_prefix(const char *s, int *family, uint8_t *a, uint8_t *len,
	     bool need_len)
{
	char buf[INET6_ADDRSTRLEN + 8];
	char *slash, *end;
	unsigned long l;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash != NULL)
		*slash = '\0';
	else if (need_len)
		return -1;
	if (parse_ip(buf, family, a) != 0)
		return -1;
	if (slash == NULL) {
		*len = *family == 4 ? 32 : 128;
		return 0;
	}
	errno = 0;
	l = strtoul(slash + 1, &end, 10);
	if (errno != 0 || *end != '\0' || slash[1] == '\0' ||
	    l > (*family == 4 ? 32u : 128u))
		return -1;
	*len = (uint8_t)l;
	return 0;
}

int
parse_u32(const char *s, uint32_t max, uint32_t *v)
{
	unsigned long long x;
	char *end;

	if (*s == '\0' || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0' || x > max)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

int
parse_mac(const char *s, struct rte_ether_addr *m)
{
	return rte_ether_unformat_addr(s, m);
}

const char *
ip_str(int family, const uint8_t *a, char *buf, size_t len)
{
	return inet_ntop(family == 4 ? AF_INET : AF_INET6, a, buf,
			 (socklen_t)len);
}

int
port_arg(const char *s, struct tep_err *err)
{
	int p = tep_port_find(s);

	if (p < 0)
		ERR(ENODEV, "unknown port \"%s\" (see: port list)", s);
	return p;
}

int
vrf_arg(const char *s, struct tep_err *err)
{
	int v = tep_vrf_find(&tep_rib, s);

	if (v < 0)
		ERR(ENOENT, "unknown vrf \"%s\"", s);
	return v;
}

/* A VRF's host port is tepd's own: its role, VRF and addresses follow the
 * VRF (vrfhost.c). */
int
refuse_host_port(const struct tep_port *p, struct tep_err *err)
{
	if (!p->vrf_host)
		return 0;
	return ERR(EPERM, "port %s is vrf \"%s\"'s host port: tepd manages "
		   "its role, vrf and addresses (see: vrf exec)", p->name,
		   tep_rib.vrf[p->vrf]->name);
}
