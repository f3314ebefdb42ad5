/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_FRAMES_H
#define TEPD_FRAMES_H

/*
 * Frames the control thread makes (frames.c): ARP, neighbour discovery,
 * ICMP, sent through worker 0; and which of tepd's addresses they come
 * from. Control thread only.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

/* A new frame of len bytes in *mp: its data, or NULL (pool empty). */
uint8_t *new_frame(struct rte_mbuf **mp, uint16_t len);
void eth_hdr(uint8_t *eth, const uint8_t *dst, uint16_t port, uint16_t type);
void ctl_emit(uint8_t *f, struct rte_mbuf *m, uint16_t port, uint32_t tunnel);
void send_arp(uint16_t port, uint16_t op, const uint8_t *spa, const uint8_t *tha,
	      const uint8_t *tpa, const uint8_t *eth_dst);
void send_icmp6(uint16_t port, uint32_t tunnel, const uint8_t *eth_dst,
		const uint8_t *src, const uint8_t *dst, uint8_t type,
		uint8_t code, const uint8_t *body, uint16_t body_len,
		uint8_t hlim);
void send_ns(uint16_t port, const uint8_t *target);

/* Whether ip is one of port's addresses. */
bool tep_addr_is_ours(uint16_t port, int family, const uint8_t *ip);
/* Whether tepd answers ARP/ND for ip on port. */
bool answers_for(uint16_t port, int family, const uint8_t *ip);
/* tepd's address to send from to dst, out of port or in vrf; NULL if it
 * has none of that family. */
const uint8_t *src_addr_for(uint16_t port, int family, const uint8_t *dst);
const uint8_t *vrf_src_addr(uint16_t vrf, int family, const uint8_t *dst);

#endif /* TEPD_FRAMES_H */
