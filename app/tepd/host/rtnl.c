/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * rtnetlink inside a VRF's namespace, just enough for its host port's
 * link state, addresses, rule and default routes, and to read an L3VNI's
 * VXLAN device. Control thread only.
 */

#define _GNU_SOURCE		/* setns, unshare */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/fib_rules.h>
#include <linux/netlink.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include <rte_eal.h>
#include <rte_ethdev.h>

#include "tepd.h"

#include "vrfhost_priv.h"
#include "port.h"
#include "vrfhost.h"


/* ---- rtnetlink, just enough for addresses and routes --------------------- */

struct nlreq {
	struct nlmsghdr n;
	union {
		struct ifaddrmsg a;
		struct rtmsg r;
		struct ifinfomsg i;
		struct fib_rule_hdr f;
	};
	uint8_t attrs[256];
};

static void
nl_attr(struct nlreq *q, uint16_t type, const void *data, size_t len)
{
	uint8_t *at = (uint8_t *)q + NLMSG_ALIGN(q->n.nlmsg_len);
	struct rtattr ra = {
		.rta_len = (unsigned short)RTA_LENGTH(len),
		.rta_type = type,
	};

	memcpy(at, &ra, sizeof(ra));
	memcpy(at + RTA_LENGTH(0), data, len);
	q->n.nlmsg_len = NLMSG_ALIGN(q->n.nlmsg_len) + RTA_ALIGN(ra.rta_len);
}

/* Send one request and wait for its acknowledgement: 0 or -errno. */
static int
nl_talk(struct vrfhost *h, struct nlreq *q)
{
	uint8_t buf[4096];
	ssize_t len;

	q->n.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	q->n.nlmsg_seq = ++h->nl_seq;
	if (send(h->nl_fd, q, q->n.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		size_t off = 0;

		len = recv(h->nl_fd, buf, sizeof(buf), 0);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		/* Headers copied out: buf has no alignment guarantee. */
		while (off + sizeof(struct nlmsghdr) <= (size_t)len) {
			struct nlmsghdr m;
			struct nlmsgerr e;

			memcpy(&m, buf + off, sizeof(m));
			if (m.nlmsg_len < sizeof(m) ||
			    off + m.nlmsg_len > (size_t)len)
				break;
			if (m.nlmsg_seq == h->nl_seq &&
			    m.nlmsg_type == NLMSG_ERROR &&
			    m.nlmsg_len >= NLMSG_LENGTH(sizeof(e))) {
				memcpy(&e, buf + off + NLMSG_HDRLEN, sizeof(e));
				return e.error;
			}
			off += NLMSG_ALIGN(m.nlmsg_len);
		}
	}
}

int
nl_link_up(struct vrfhost *h, int ifindex)
{
	struct nlreq q;

	memset(&q, 0, sizeof(q));
	q.n.nlmsg_len = NLMSG_LENGTH(sizeof(q.i));
	q.n.nlmsg_type = RTM_NEWLINK;
	q.i.ifi_family = AF_UNSPEC;
	q.i.ifi_index = ifindex;
	q.i.ifi_flags = IFF_UP;
	q.i.ifi_change = IFF_UP;
	return nl_talk(h, &q);
}

int
nl_addr(struct vrfhost *h, const struct tep_addr *a, bool add)
{
	size_t alen = a->family == 4 ? 4 : 16;
	struct nlreq q;

	memset(&q, 0, sizeof(q));
	q.n.nlmsg_len = NLMSG_LENGTH(sizeof(q.a));
	q.n.nlmsg_type = add ? RTM_NEWADDR : RTM_DELADDR;
	if (add)
		q.n.nlmsg_flags = NLM_F_CREATE | NLM_F_REPLACE;
	q.a.ifa_family = a->family == 4 ? AF_INET : AF_INET6;
	q.a.ifa_prefixlen = h->own_ns ? a->len : a->family == 4 ? 32 : 128;
	q.a.ifa_flags = IFA_F_NODAD;	/* tepd owns the address already */
	q.a.ifa_scope = RT_SCOPE_UNIVERSE;
	q.a.ifa_index = (uint32_t)h->ifindex;
	nl_attr(&q, IFA_LOCAL, a->a, alen);
	nl_attr(&q, IFA_ADDRESS, a->a, alen);
	return nl_talk(h, &q);
}

/* The rule that has the namespace look its tepd table up first. Already
 * there (a namespace taken over): fine. */
static int
nl_host_rule(struct vrfhost *h, int family)
{
	uint32_t table = VRF_HOST_TABLE, pref = VRF_HOST_RULE_PREF;
	struct nlreq q;
	int ret;

	memset(&q, 0, sizeof(q));
	q.n.nlmsg_len = NLMSG_LENGTH(sizeof(q.f));
	q.n.nlmsg_type = RTM_NEWRULE;
	q.n.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	q.f.family = family == 4 ? AF_INET : AF_INET6;
	q.f.action = FR_ACT_TO_TBL;
	q.f.table = RT_TABLE_UNSPEC;
	nl_attr(&q, FRA_TABLE, &table, sizeof(table));
	nl_attr(&q, FRA_PRIORITY, &pref, sizeof(pref));
	ret = nl_talk(h, &q);
	return ret == -EEXIST ? 0 : ret;
}

/* The kernel side's default route via tepd (169.254.0.1, fe80::1), in
 * table `table`. */
static int
nl_default_route(struct vrfhost *h, int family, uint32_t table)
{
	uint32_t oif = (uint32_t)h->ifindex;
	struct nlreq q;

	memset(&q, 0, sizeof(q));
	q.n.nlmsg_len = NLMSG_LENGTH(sizeof(q.r));
	q.n.nlmsg_type = RTM_NEWROUTE;
	q.n.nlmsg_flags = NLM_F_CREATE | NLM_F_REPLACE;
	q.r.rtm_family = family == 4 ? AF_INET : AF_INET6;
	q.r.rtm_table = table < 256 ? (uint8_t)table : RT_TABLE_UNSPEC;
	q.r.rtm_protocol = RTPROT_STATIC;
	q.r.rtm_scope = RT_SCOPE_UNIVERSE;
	q.r.rtm_type = RTN_UNICAST;
	/* 169.254.0.1 is on no subnet of the kernel side: say it is on
	 * the link (fe80::/64 is on every IPv6 link anyway). */
	if (family == 4)
		q.r.rtm_flags = RTNH_F_ONLINK;
	nl_attr(&q, RTA_GATEWAY, family == 4 ? vh_gw4 : vh_gw6,
		family == 4 ? 4 : 16);
	nl_attr(&q, RTA_OIF, &oif, sizeof(oif));
	nl_attr(&q, RTA_TABLE, &table, sizeof(table));
	return nl_talk(h, &q);
}

/* A VRF's host sends everything to tepd, whatever else main holds (the
 * default routes are in main too, for `ip route` readers); the default
 * VRF's only what goes to its subnets (their prefix routes): no default
 * route. */
int
nl_default_routes(struct vrfhost *h)
{
	int family, ret = 0;

	if (h->own_ns)
		return 0;
	for (family = 4; family <= 6 && ret == 0; family += 2) {
		ret = nl_default_route(h, family, RT_TABLE_MAIN);
		if (ret == 0)
			ret = nl_default_route(h, family, VRF_HOST_TABLE);
		if (ret == 0)
			ret = nl_host_rule(h, family);
	}
	return ret;
}

/* The attribute `type` among those in [p, end), or NULL. */
static const struct rtattr *
nl_find(const uint8_t *p, const uint8_t *end, uint16_t type, size_t *len)
{
	while (p + sizeof(struct rtattr) <= end) {
		struct rtattr a;

		memcpy(&a, p, sizeof(a));
		if (a.rta_len < sizeof(a) || p + a.rta_len > end)
			return NULL;
		if ((a.rta_type & NLA_TYPE_MASK) == type) {
			*len = a.rta_len - RTA_LENGTH(0);
			return (const struct rtattr *)(uintptr_t)p;
		}
		p += RTA_ALIGN(a.rta_len);
	}
	return NULL;
}

/* The VNI of the VXLAN device `ifindex` of the namespace: 0, or -errno
 * (-ENODEV: no such device, -EINVAL: not a VXLAN device). */
static int
nl_vxlan_vni(struct vrfhost *h, int ifindex, uint32_t *vni)
{
	static uint8_t buf[32768];
	const uint8_t *p, *end, *a;
	struct nlmsghdr m;
	struct nlreq q;
	size_t alen;
	ssize_t len;

	memset(&q, 0, sizeof(q));
	q.n.nlmsg_len = NLMSG_LENGTH(sizeof(q.i));
	q.n.nlmsg_type = RTM_GETLINK;
	q.n.nlmsg_flags = NLM_F_REQUEST;
	q.n.nlmsg_seq = ++h->nl_seq;
	q.i.ifi_family = AF_UNSPEC;
	q.i.ifi_index = ifindex;
	if (send(h->nl_fd, &q, q.n.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		len = recv(h->nl_fd, buf, sizeof(buf), 0);
		if (len < 0 && errno == EINTR)
			continue;
		if (len < (ssize_t)sizeof(m))
			return len < 0 ? -errno : -EIO;
		memcpy(&m, buf, sizeof(m));
		if (m.nlmsg_seq == h->nl_seq)
			break;	/* an older request's late answer otherwise */
	}
	if (m.nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr e;

		if (m.nlmsg_len < NLMSG_LENGTH(sizeof(e)))
			return -EIO;
		memcpy(&e, buf + NLMSG_HDRLEN, sizeof(e));
		return e.error != 0 ? e.error : -EIO;
	}
	if (m.nlmsg_type != RTM_NEWLINK || m.nlmsg_len > (size_t)len ||
	    m.nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
		return -EIO;
	p = buf + NLMSG_LENGTH(sizeof(struct ifinfomsg));
	end = buf + m.nlmsg_len;
	a = (const uint8_t *)nl_find(p, end, IFLA_LINKINFO, &alen);
	if (a == NULL)
		return -EINVAL;
	p = a + RTA_LENGTH(0);
	end = p + alen;
	a = (const uint8_t *)nl_find(p, end, IFLA_INFO_KIND, &alen);
	if (a == NULL || alen < 5 || memcmp(a + RTA_LENGTH(0), "vxlan", 5) != 0)
		return -EINVAL;
	a = (const uint8_t *)nl_find(p, end, IFLA_INFO_DATA, &alen);
	if (a == NULL)
		return -EINVAL;
	p = a + RTA_LENGTH(0);
	a = (const uint8_t *)nl_find(p, p + alen, IFLA_VXLAN_ID, &alen);
	if (a == NULL || alen != sizeof(*vni))
		return -EINVAL;
	memcpy(vni, a + RTA_LENGTH(0), sizeof(*vni));
	return 0;
}

int
tep_vrfhost_vxlan_vni(uint16_t vrf, int ifindex, uint32_t *vni)
{
	if (vrf >= TEP_VRF_MAX || !vh_hosts[vrf].on || vh_hosts[vrf].nl_fd < 0)
		return -ENOENT;
	return nl_vxlan_vni(&vh_hosts[vrf], ifindex, vni);
}
