/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * TCP segmentation headers, on plain bytes (app/tepd/gso.c does the mbuf
 * side). Segmenting before encapsulation, rather than after as Linux's
 * skb_udp_tunnel_segment() does, gives the same bytes on the wire and lets
 * every segment take the ordinary encapsulation path: one LCO outer sum
 * per segment, and the inner checksum left pending for the NIC or for
 * drivers/' software fallback.
 */

#include <string.h>

#include "tep_bytes.h"
#include "tep_csum.h"
#include "tep_proto.h"

#define TCP_FIN	0x01
#define TCP_PSH	0x08
#define TCP_CWR	0x80

enum tep_reason
tep_tso_plan(const uint8_t *frame, size_t hdr_room, uint32_t frame_len,
	     uint16_t l3_off, uint16_t mss, struct tep_tso *t)
{
	const uint8_t *ip = frame + l3_off;
	const uint8_t *tcp;
	uint32_t ip_len, l3_len, l4_len, hdr_len;

	if (mss == 0)
		return TEP_R_BAD_GSO;
	if (hdr_room < (size_t)l3_off + 20 || frame_len < (uint32_t)l3_off + 20)
		return TEP_R_TRUNCATED;
	switch (ip[0] >> 4) {
	case 4:
		l3_len = (ip[0] & 0xfu) * 4u;
		ip_len = tep_rd16(ip + 2);
		/* Not a fragment, TCP, a sane header */
		if (l3_len < 20 || ip[9] != 6 || (tep_rd16(ip + 6) & 0x3fff))
			return TEP_R_BAD_GSO;
		t->family = 4;
		break;
	case 6:
		if (hdr_room < (size_t)l3_off + 40)
			return TEP_R_TRUNCATED;
		l3_len = 40;
		ip_len = 40u + tep_rd16(ip + 4);
		if (ip[6] != 6)		/* extension headers: not here */
			return TEP_R_BAD_GSO;
		t->family = 6;
		break;
	default:
		return TEP_R_BAD_GSO;
	}
	/* The frame must be exactly the IP datagram: segments copy payload
	 * up to its end. */
	if (ip_len != frame_len - l3_off)
		return TEP_R_BAD_GSO;
	if (hdr_room < (size_t)l3_off + l3_len + 20)
		return TEP_R_TRUNCATED;
	tcp = ip + l3_len;
	l4_len = (tcp[12] >> 4) * 4u;
	hdr_len = l3_off + l3_len + l4_len;
	if (l4_len < 20 || hdr_len > frame_len)
		return TEP_R_BAD_GSO;
	if (hdr_len > hdr_room)
		return TEP_R_TRUNCATED;
	t->l3_off = l3_off;
	t->l3_len = (uint16_t)l3_len;
	t->l4_len = (uint16_t)l4_len;
	t->hdr_len = (uint16_t)hdr_len;
	t->mss = mss;
	t->payload = frame_len - hdr_len;
	t->nb_segs = (uint16_t)(t->payload == 0 ? 1 :
				(t->payload + mss - 1) / mss);
	return TEP_R_OK;
}

void
tep_tso_seg_hdr(const struct tep_tso *t, const uint8_t *frame, uint8_t *out,
		uint16_t idx, uint16_t seg_payload)
{
	uint8_t *ip = out + t->l3_off;
	uint8_t *tcp = ip + t->l3_len;
	uint32_t l4 = (uint32_t)t->l4_len + seg_payload;
	uint32_t phdr;
	uint16_t seed;

	if (out != frame)
		memcpy(out, frame, t->hdr_len);
	if (t->family == 4) {
		tep_wr16(ip + 2, (uint16_t)(t->l3_len + l4));
		tep_wr16(ip + 4, (uint16_t)(tep_rd16(ip + 4) + idx));
		tep_wr16(ip + 10, 0);
		tep_wr_csum(ip + 10, tep_ipv4_hdr_csum(ip, t->l3_len));
		phdr = tep_ipv4_phdr_sum(ip + 12, ip + 16, 6, (uint16_t)l4);
	} else {
		tep_wr16(ip + 4, (uint16_t)l4);
		phdr = tep_ipv6_phdr_sum(ip + 8, ip + 24, 6, l4);
	}
	tep_wr32(tcp + 4, tep_rd32(tcp + 4) + (uint32_t)idx * t->mss);
	if (idx > 0)
		tcp[13] &= (uint8_t)~TCP_CWR;
	if (idx + 1u < t->nb_segs)
		tcp[13] &= (uint8_t)~(TCP_FIN | TCP_PSH);
	seed = tep_csum_fold(phdr);
	memcpy(tcp + 16, &seed, 2);
}
