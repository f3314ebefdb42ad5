/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Frames the control thread makes (ARP, ND, ICMP) and sends through
 * worker 0 (the ctl_tx ring), and the source addresses it gives them.
 */

#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "tep_bytes.h"
#include "tep_csum.h"
#include "tepd.h"

#include "frames.h"
#include "port.h"
#include "punt.h"
#include "tunnel.h"

#define ARP_HDR_LEN	28
#define PROBE_INTERVAL_MS 1000
#define PROBES_MAX	3
#define STALE_MS	(300 * 1000)

bool
tep_ctl_send(uint16_t port, struct rte_mbuf *m)
{
	tep_priv(m)->tx_port = port;
	if (rte_ring_sp_enqueue(tep.ctl_tx, m) != 0) {
		rte_pktmbuf_free(m);
		return false;
	}
	return true;
}

void
tep_ctl_send_tunnel(uint32_t tunnel, struct rte_mbuf *m)
{
	tep_priv(m)->tunnel = tunnel;
	tep_ctl_send(TEP_NO_PORT, m);
}

/*
 * Send a frame made here (f: its Ethernet header, written for port) out
 * of port, or, when tunnel is set, into that tunnel toward a sender
 * behind it: then our source MAC is the tunnel's overlay MAC.
 */
void
ctl_emit(uint8_t *f, struct rte_mbuf *m, uint16_t port, uint32_t tunnel)
{
	const struct tep_tunnel *t;

	if (tunnel == TEP_NO_TUNNEL) {
		tep_ctl_send(port, m);
		return;
	}
	t = tep_tunnels[tunnel];
	if (t == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	memcpy(f + 6, t->inner_smac.addr_bytes, 6);
	tep_ctl_send_tunnel(tunnel, m);
}

/* ---- addresses ---------------------------------------------------------- */

static bool
in_prefix(const uint8_t *a, const uint8_t *pfx, uint8_t len)
{
	uint8_t full = len / 8, rest = len % 8;

	if (memcmp(a, pfx, full) != 0)
		return false;
	return rest == 0 ||
	       ((a[full] ^ pfx[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

bool
tep_addr_is_ours(uint16_t port, int family, const uint8_t *ip)
{
	const struct tep_port *p = &tep_ports[port];
	int i;

	for (i = 0; i < p->naddr; i++)
		if (p->addr[i].family == family &&
		    memcmp(p->addr[i].a, ip, family == 4 ? 4 : 16) == 0)
			return true;
	return false;
}

/*
 * The targets tepd answers ARP and neighbour solicitations for on `port`:
 * its addresses there; on the default VRF's host port (-H, vrfhost.c) also
 * every address but the underlay's own, since the kernel side sees the
 * underlay subnets as on-link and everything it sends there is tepd's to
 * route.
 */
bool
answers_for(uint16_t port, int family, const uint8_t *ip)
{
	const struct tep_port *p = &tep_ports[port];
	uint16_t i;

	if (tep_addr_is_ours(port, family, ip))
		return true;
	if (!p->vrf_host || p->vrf != TEP_VRF_DEFAULT)
		return false;
	for (i = 0; i < tep_nb_ports; i++)
		if (tep_ports[i].present && !tep_ports[i].vrf_host &&
		    tep_ports[i].vrf == TEP_VRF_DEFAULT &&
		    tep_addr_is_ours(i, family, ip))
			return false;
	return true;
}

/* Our source address on a port for talking to `dst`: one in the same
 * subnet if there is one, else the first of the family. */
const uint8_t *
src_addr_for(uint16_t port, int family, const uint8_t *dst)
{
	const struct tep_port *p = &tep_ports[port];
	const uint8_t *first = NULL;
	int i;

	for (i = 0; i < p->naddr; i++) {
		if (p->addr[i].family != family)
			continue;
		if (dst != NULL && in_prefix(dst, p->addr[i].a, p->addr[i].len))
			return p->addr[i].a;
		if (first == NULL)
			first = p->addr[i].a;
	}
	return first;
}

/* An address of VRF vrf to answer from, the source of ICMP errors to
 * senders behind a tunnel: the first of the family on the VRF's ports. */
const uint8_t *
vrf_src_addr(uint16_t vrf, int family, const uint8_t *dst)
{
	const uint8_t *a, *first = NULL;
	uint16_t i;

	for (i = 0; i < tep_nb_ports; i++) {
		const struct tep_port *p = &tep_ports[i];

		if (!p->present || p->vrf_host || p->vrf != vrf)
			continue;
		a = src_addr_for(i, family, dst);
		if (a != NULL && first == NULL)
			first = a;
	}
	return first;
}

/* ---- building frames ---------------------------------------------------- */

uint8_t *
new_frame(struct rte_mbuf **mp, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(tep.pool);

	*mp = m;
	if (m == NULL)
		return NULL;
	return (uint8_t *)rte_pktmbuf_append(m, len);
}

void
eth_hdr(uint8_t *eth, const uint8_t *dst, uint16_t port, uint16_t type)
{
	memcpy(eth, dst, 6);
	memcpy(eth + 6, tep_ports[port].mac.addr_bytes, 6);
	tep_wr16(eth + 12, type);
}

void
send_arp(uint16_t port, uint16_t op, const uint8_t *spa, const uint8_t *tha,
	 const uint8_t *tpa, const uint8_t *eth_dst)
{
	if (spa == NULL)
		spa = src_addr_for(port, 4, tpa);
	struct rte_mbuf *m;
	uint8_t *f, *a;

	if (spa == NULL)
		return;
	f = new_frame(&m, 14 + ARP_HDR_LEN);
	if (f == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	eth_hdr(f, eth_dst, port, 0x0806);
	a = f + 14;
	tep_wr16(a, 1);			/* Ethernet */
	tep_wr16(a + 2, TEP_ETH_P_IPV4);
	a[4] = 6;
	a[5] = 4;
	tep_wr16(a + 6, op);
	memcpy(a + 8, tep_ports[port].mac.addr_bytes, 6);
	memcpy(a + 14, spa, 4);
	memcpy(a + 18, tha, 6);
	memcpy(a + 24, tpa, 4);
	tep_ctl_send(port, m);
}

/* IPv6 + ICMPv6 frame; body (after the 4-byte ICMPv6 header) given. */
void
send_icmp6(uint16_t port, uint32_t tunnel, const uint8_t *eth_dst,
	   const uint8_t *src, const uint8_t *dst, uint8_t type, uint8_t code,
	   const uint8_t *body, uint16_t body_len, uint8_t hlim)
{
	uint16_t l4 = (uint16_t)(4 + body_len);
	struct rte_mbuf *m;
	uint8_t *f, *ip, *ic;
	uint32_t s;

	f = new_frame(&m, (uint16_t)(14 + 40 + l4));
	if (f == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	eth_hdr(f, eth_dst, port, TEP_ETH_P_IPV6);
	ip = f + 14;
	tep_wr32(ip, 0x60000000);
	tep_wr16(ip + 4, l4);
	ip[6] = 58;
	ip[7] = hlim;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	ic = ip + 40;
	ic[0] = type;
	ic[1] = code;
	tep_wr16(ic + 2, 0);
	memcpy(ic + 4, body, body_len);
	s = tep_ipv6_phdr_sum(src, dst, 58, l4);
	tep_wr_csum(ic + 2, tep_csum_finish(tep_csum_partial(ic, l4, s)));
	ctl_emit(f, m, port, tunnel);
}

void
send_ns(uint16_t port, const uint8_t *target)
{
	const uint8_t *src = src_addr_for(port, 6, target);
	uint8_t dst[16] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
			    0, 0, 0, 0x01, 0xff, 0, 0, 0 };
	uint8_t mac[6] = { 0x33, 0x33, 0xff, 0, 0, 0 };
	uint8_t body[4 + 16 + 8];

	if (src == NULL)
		return;
	/* Solicited-node multicast (RFC 4291 2.7.1) and its MAC. */
	memcpy(dst + 13, target + 13, 3);
	memcpy(mac + 3, target + 13, 3);
	memset(body, 0, 4);
	memcpy(body + 4, target, 16);
	body[20] = 1;			/* source link-layer address option */
	body[21] = 1;
	memcpy(body + 22, tep_ports[port].mac.addr_bytes, 6);
	send_icmp6(port, TEP_NO_TUNNEL, mac, src, dst, 135, 0, body,
		   sizeof(body), 255);
}
