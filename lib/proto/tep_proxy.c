/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Answers to address resolution that arrives through an Ethernet-carrying
 * tunnel (VXLAN, GENEVE, GRE with TEB), on plain bytes. A tunnel to tepd is
 * a point-to-point link: everything the remote router reaches through it
 * is reached through tepd, so tepd answers every ARP request and neighbour
 * solicitation that comes through with the tunnel's overlay MAC (proxy
 * ARP/ND), and the remote VTEP needs no static neighbour for its gateway.
 * Requests a host makes about its own address (gratuitous ARP, DAD) are
 * left unanswered.
 */

#include <string.h>

#include "tep_bytes.h"
#include "tep_csum.h"
#include "tep_proto.h"

#define ETH_P_ARP	0x0806
#define ARP_LEN		28
#define ICMP6_NS	135
#define ICMP6_NA	136
#define ND_OPT_SLLA	1
#define ND_OPT_TLLA	2
#define NA_LEN		(24 + 8)	/* NA with a target link-layer option */

static const uint8_t unspecified[16];

uint32_t
tep_proxy_arp(uint8_t *frame, uint32_t len, const uint8_t mac[6])
{
	uint8_t *a = frame + 14, ip[4];

	if (len < 14 + ARP_LEN || tep_rd16(frame + 12) != ETH_P_ARP)
		return 0;
	/* Ethernet/IPv4 request (RFC 826), not about the sender itself */
	if (tep_rd16(a) != 1 || tep_rd16(a + 2) != TEP_ETH_P_IPV4 ||
	    a[4] != 6 || a[5] != 4 || tep_rd16(a + 6) != 1 ||
	    memcmp(a + 14, a + 24, 4) == 0 || (frame[6] & 1))
		return 0;
	memcpy(ip, a + 24, 4);
	tep_wr16(a + 6, 2);
	memcpy(a + 18, a + 8, 10);	/* THA, TPA = the requester */
	memcpy(a + 8, mac, 6);
	memcpy(a + 14, ip, 4);
	memcpy(frame, a + 18, 6);	/* back to the requester */
	memcpy(frame + 6, mac, 6);
	return 14 + ARP_LEN;
}

uint32_t
tep_proxy_nd(uint8_t *frame, uint32_t len, uint32_t room, const uint8_t mac[6])
{
	uint8_t *ip = frame + 14, *ic = ip + 40, target[16];
	uint32_t plen;

	if (len < 14 + 40 + 24 || room < 14 + 40 + NA_LEN ||
	    tep_rd16(frame + 12) != TEP_ETH_P_IPV6 || (ip[0] >> 4) != 6)
		return 0;
	plen = tep_rd16(ip + 4);
	/* RFC 4861 7.1.1: a valid solicitation; not DAD (unspecified
	 * source), not about the sender's own address. */
	if (ip[6] != 58 || ip[7] != 255 || plen < 24 || 54 + plen > len ||
	    ic[0] != ICMP6_NS || ic[1] != 0 ||
	    memcmp(ip + 8, unspecified, 16) == 0 ||
	    memcmp(ip + 8, ic + 8, 16) == 0 || (ic[8] == 0xff) ||
	    tep_csum_fold(tep_csum_partial(ic, plen,
			tep_ipv6_phdr_sum(ip + 8, ip + 24, 58, plen))) != 0xffff)
		return 0;
	memcpy(target, ic + 8, 16);
	/* To the solicitor, from the target address it asked about */
	memcpy(ip + 24, ip + 8, 16);
	memcpy(ip + 8, target, 16);
	tep_wr32(ip, 0x60000000u);
	tep_wr16(ip + 4, NA_LEN);
	ip[6] = 58;
	ip[7] = 255;
	ic[0] = ICMP6_NA;
	ic[1] = 0;
	tep_wr16(ic + 2, 0);
	tep_wr32(ic + 4, 0x60000000u);		/* Solicited, Override */
	memcpy(ic + 8, target, 16);
	ic[24] = ND_OPT_TLLA;
	ic[25] = 1;
	memcpy(ic + 26, mac, 6);
	tep_wr_csum(ic + 2, tep_csum_finish(tep_csum_partial(ic, NA_LEN,
		tep_ipv6_phdr_sum(ip + 8, ip + 24, 58, NA_LEN))));
	memcpy(frame, frame + 6, 6);		/* back to the solicitor */
	memcpy(frame + 6, mac, 6);
	return 14 + 40 + NA_LEN;
}
