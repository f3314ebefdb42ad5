/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_PUNT_H
#define TEPD_PUNT_H

/*
 * What workers hand the control thread (datapath/punt.c -> host/responder.c)
 * and what it hands back: a punted packet's reason and what it carries,
 * the policing of punts, and the ctl_tx ring the control thread sends its
 * own frames through (worker 0 transmits them).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "tepd.h"

/* ---- what a punted packet carries to the control thread ------------------ */

/* Filled in only when a worker punts a packet: the fast path keeps its
 * per-packet state in locals (the private area is a cold cache line). */

enum tep_punt {
	TEP_PUNT_NONE,
	TEP_PUNT_ARP,		/* ARP for the control thread */
	TEP_PUNT_ND,		/* IPv6 neighbour discovery */
	TEP_PUNT_LOCAL,		/* addressed to tepd (ICMP echo, ...) */
	TEP_PUNT_RESOLVE,	/* next hop's MAC unknown: resolve and send */
	TEP_PUNT_TTL,		/* TTL expired: ICMP time exceeded */
	TEP_PUNT_TOO_BIG,	/* DF packet too big after encap: ICMP */
	TEP_PUNT_MAX
};

/*
 * Rate limits, as a token bucket in GCRA form (one timestamp): a packet
 * is allowed while the bucket's theoretical arrival time is no more than
 * burst_tsc ahead of now. interval: TSC ticks per token; burst_tsc:
 * (burst - 1) * interval.
 */
struct tep_rate {
	uint64_t tat;
};

static inline bool
tep_rate_allow(struct tep_rate *r, uint64_t now, uint64_t interval,
	       uint64_t burst_tsc)
{
	uint64_t tat = r->tat > now ? r->tat : now;

	if (tat - now > burst_tsc)
		return false;
	r->tat = tat + interval;
	return true;
}

/* Punts allowed per second for each (reason, VRF), over all workers, and
 * the burst; and at most one punt per source (or per address to resolve)
 * per millisecond and worker. */
#define TEP_PUNT_RATE		2000
#define TEP_PUNT_BURST		200
struct tep_mbuf_priv {
	uint16_t vrf;		/* VRF the packet is routed in */
	uint16_t tx_port;	/* RESOLVE: egress port */
	uint8_t punt;		/* enum tep_punt */
	uint8_t family;		/* 4 or 6 */
	uint8_t family_nh;	/* RESOLVE: family of nh_ip */
	uint8_t pad;
	uint16_t mtu;		/* TOO_BIG: the MTU to report */
	uint8_t nh_ip[16];	/* RESOLVE: the address to resolve */
	uint32_t tunnel;	/* RESOLVE: tunnel, or TEP_NO_TUNNEL; a frame
				 * on ctl_tx with tx_port TEP_NO_PORT: the
				 * tunnel to send it into */
	uint32_t from_tunnel;	/* the tunnel the packet came out of, or
				 * TEP_NO_TUNNEL (ICMP errors go back there) */
};

static inline struct tep_mbuf_priv *
tep_priv(struct rte_mbuf *m)
{
	return (struct tep_mbuf_priv *)rte_mbuf_to_priv(m);
}


/* Control thread: send a frame out of a port (via worker 0's TX), or into
 * a tunnel (an Ethernet frame; IP-carrying tunnels take what follows its
 * 14 bytes). host/frames.c */
/* false when the ring was full (m freed) */
bool tep_ctl_send(uint16_t port, struct rte_mbuf *m);
void tep_ctl_send_tunnel(uint32_t tunnel, struct rte_mbuf *m);

/* Control thread: answer what the workers punted (host/responder.c). */
void tep_punt_drain(void);

#endif /* TEPD_PUNT_H */
