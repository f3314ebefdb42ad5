/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_TXPREP_H
#define TEP_TXPREP_H

/*
 * The one place where tepd decides, per packet about to be transmitted,
 * whether a pending inner (or only) TCP/UDP checksum is left to the port or
 * computed here in software -- what validate_xmit_skb()/skb_checksum_help()
 * do in Linux -- and where the device-neutral mbuf Tx-offload metadata the
 * dataplane sets is adapted to what each PMD really reads. These are
 * adapters over DPDK PMDs, not PMDs (drivers/README.md); docs/drivers.md
 * has the per-PMD matrix and the reasons.
 *
 * Input contract (set by the dataplane before tep_txprep_burst()):
 *  - A packet with a pending TCP/UDP checksum has RTE_MBUF_F_TX_TCP_CKSUM or
 *    RTE_MBUF_F_TX_UDP_CKSUM (the 2-bit L4 field), RTE_MBUF_F_TX_IPV4 or
 *    _IPV6 for the header it belongs to (inferred from the IP version when
 *    neither is set), l2_len and l3_len (incl. IPv4 options / IPv6
 *    extension headers), and, for a tunnel packet, RTE_MBUF_F_TX_OUTER_IPV4
 *    or _IPV6, a tunnel type (VXLAN, GENEVE, GRE; TUNNEL_UDP for FOU/GUE),
 *    outer_l2_len, outer_l3_len, and l2_len = outer UDP + tunnel header +
 *    inner Ethernet (GRE: GRE header + inner Ethernet, if any).
 *  - The checksum field holds the standard pseudo-header sum, length
 *    included, not complemented; an outer UDP/GRE checksum, if any, was
 *    computed by LCO assuming the standard inner checksum will be filled in.
 *  - The L3 and L4 headers (and for tunnels the outer ones) are in the
 *    first segment: tepd encapsulates into headroom. Both the software path
 *    and every PMD here need it.
 *  - No other Tx checksum/segmentation request: IP_CKSUM, OUTER_IP_CKSUM,
 *    OUTER_UDP_CKSUM, TCP_SEG, UDP_SEG and SCTP_CKSUM are refused as bad
 *    metadata (outer IPv4 sums are done in software, ICMP/SCTP are
 *    completed by the dataplane, TSO is not used with LCO).
 *
 * Output: a ready packet either still has its L4 request with metadata in
 * the form the port reads (flat or tunnel, see enum tep_txmode), or has its
 * checksum written and RTE_MBUF_F_TX_{L4_MASK,IPV4,IPV6,OUTER_IPV4,
 * OUTER_IPV6,TUNNEL_MASK} cleared (the length fields are then left as they
 * were and mean nothing). Either way the bytes on the wire carry the
 * standard inner checksum (UDP 0 -> 0xffff), so LCO outer sums stay valid.
 *
 * Nothing here needs EAL: only header-inline DPDK code and mbuf fields are
 * used, so the unit tests run on fake mbufs in plain memory.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How a port gets a pending inner/plain L4 checksum filled in. */
enum tep_txmode {
	TEP_TXMODE_NONE,	/* never by the port: always in software */
	TEP_TXMODE_FLAT,	/* the PMD reads only l2_len/l3_len (net_tap,
				 * virtio, ixgbe): a tunnel packet's metadata
				 * is flattened, l2_len = offset of the inner
				 * IP header, OUTER/TUNNEL flags cleared */
	TEP_TXMODE_TUNNEL,	/* the PMD honours DPDK tunnel semantics
				 * (i40e, ice, mlx5) for the tunnel types in
				 * tep_txcaps.tun[]; others in software */
	TEP_TXMODE_MAX
};

/* Why a checksum was computed in software (counted per packet, once). */
enum tep_txsw_reason {
	TEP_TXSW_HW = 0,	/* not software: left to the port */
	TEP_TXSW_NOCAP,		/* the port has no usable offload for it */
	TEP_TXSW_DISABLED,	/* the operator switched the offload off */
	TEP_TXSW_TUNNEL,	/* this tunnel type is not offloadable here */
	TEP_TXSW_MULTISEG,	/* chained mbuf: no MULTI_SEGS, or net_tap's
				 * 22.11 odd-length chain bug */
	TEP_TXSW_L2_LEN,	/* flattened l2_len would exceed 127 */
	TEP_TXSW_TRAILER,	/* bytes after the inner IP datagram: PMDs sum
				 * to the end of the frame */
	TEP_TXSW_IPV6_EXT,	/* inner IPv6 extension headers: the PMDs'
				 * pseudo-headers (rte_ipv6_phdr_cksum) are
				 * wrong with them */
	TEP_TXSW_MAX
};

/* Index of a tunnel type: (ol_flags & RTE_MBUF_F_TX_TUNNEL_MASK) >> 45. */
#define TEP_TXTUN_SHIFT	45
#define TEP_TXTUN_TYPES	16

/* What a TUNNEL-mode port does with one incoming tunnel type. */
struct tep_txtun_rule {
	uint8_t tag;		/* tunnel type index to send with; 0 = sw */
	uint8_t alt_tag;	/* when std_port is set and the outer UDP
				 * destination port differs; 0 = sw */
	uint16_t std_port;	/* host order; 0 = no condition on the port */
	uint8_t sw_reason;	/* enum tep_txsw_reason when the result is 0 */
};

/* One port's checksum capabilities, as decided by tep_txcaps_init(). */
struct tep_txcaps {
	uint8_t mode;		/* enum tep_txmode */
	uint8_t mode_reason;	/* NONE: NOCAP or DISABLED; else TEP_TXSW_HW */
	uint8_t l4_sw[2];	/* [0] TCP, [1] UDP: TEP_TXSW_HW if the port
				 * does it, else the reason it does not */
	uint8_t multiseg_hw;	/* a chained mbuf may be left to the port */
	uint8_t multiseg_bug;	/* net_tap: chains miscomputed (22.11) */
	uint8_t drv;		/* row of the driver table (internal) */
	uint8_t partial_rx;	/* the receiver trusts a partial checksum
				 * (vhost-user guest): verified packets may
				 * be handed on with their checksum pending */
	struct tep_txtun_rule tun[TEP_TXTUN_TYPES];	/* TUNNEL mode only */
	uint64_t capa;		/* tx_offload_capa as advertised */
	uint64_t disabled;	/* RTE_ETH_TX_OFFLOAD_* the operator disabled */
	uint64_t offloads;	/* txmode.offloads to configure (subset of capa) */
	char driver[32];	/* rte_eth_dev_info.driver_name, truncated */
};

/*
 * Decide, for one port, how pending L4 checksums are obtained.
 * driver_name is rte_eth_dev_info.driver_name ("net_tap", "net_i40e",
 * "mlx5_pci", ...; NULL = unknown), tx_offload_capa what the port
 * advertises, disabled a mask of RTE_ETH_TX_OFFLOAD_* bits the operator
 * switched off (honoured even when the port advertises them). On return
 * *offloads_to_enable (if not NULL) holds the txmode.offloads the port must
 * be configured with -- always a subset of tx_offload_capa, and it matters:
 * without them i40e/ice pick Tx paths that ignore ol_flags. Known drivers
 * follow the table in docs/drivers.md; an unknown driver gets FLAT only if
 * it advertises UDP and TCP checksum and no tunnel offload, else NONE.
 * Returns 0, or -EINVAL if c is NULL.
 */
int tep_txcaps_init(struct tep_txcaps *c, const char *driver_name,
		    uint64_t tx_offload_capa, uint64_t disabled,
		    uint64_t *offloads_to_enable);

/* The same for a port whose device is known: dev_id is a PCI device's
 * "VVVV:DDDD SSSS:TTTT" (vendor:device subsystem-vendor:subsystem, lower
 * case hex), or NULL. A few devices are known to do less than their
 * driver's row says (docs/drivers.md, "Devices"). */
int tep_txcaps_init_dev(struct tep_txcaps *c, const char *driver_name,
			const char *dev_id, uint64_t tx_offload_capa,
			uint64_t disabled, uint64_t *offloads_to_enable);

/* For `tepctl offload show`: what the port is asked for, what is not. */
struct tep_txcaps_info {
	const char *driver;	/* as given to tep_txcaps_init() */
	const char *mode;	/* "software", "flat" or "tunnel" */
	const char *why;	/* one line: why this driver has this mode */
	char hw[160];		/* e.g. "udp tcp; tunnels vxlan geneve gre
				 * udp->vxlan; chains" */
	char sw[224];		/* what is always done in software, and when */
	uint64_t offloads;	/* txmode.offloads configured */
};

void tep_txcaps_info(const struct tep_txcaps *c, struct tep_txcaps_info *out);

/* The same on one line ("net_tap: flat (...); hw: ...; sw: ..."), like
 * snprintf: returns the length it needed. */
int tep_txcaps_describe(const struct tep_txcaps *c, char *buf, size_t len);

const char *tep_txmode_name(enum tep_txmode m);
const char *tep_txsw_reason_name(enum tep_txsw_reason r);

/* Per port (and per writer: plain increments, no atomics). */
struct tep_txprep_stats {
	uint64_t hw_inner_csum;		/* left to the port */
	uint64_t sw_inner_csum;		/* computed here */
	uint64_t sw_reason[TEP_TXSW_MAX];	/* split of sw_inner_csum;
						 * [TEP_TXSW_HW] stays 0 */
	uint64_t drop_bad_txmeta;	/* refused: see tep_txprep_burst() */
};

/* Requests the fast path tests for; anything in it sends a packet down the
 * slow path (which refuses all but the TCP/UDP L4 requests). */
#define TEP_TXPREP_REQ_MASK (RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_IP_CKSUM | \
	RTE_MBUF_F_TX_OUTER_IP_CKSUM | RTE_MBUF_F_TX_OUTER_UDP_CKSUM |       \
	RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_UDP_SEG)

/*
 * Prepare n packets for transmission on the port described by c.
 *
 * A packet with none of TEP_TXPREP_REQ_MASK is not touched (one flag test).
 * A packet with a pending TCP/UDP checksum gets port metadata or a software
 * checksum, as the header comment says.
 *
 * A packet whose metadata is malformed -- lengths beyond the first segment,
 * the IP datagram or the packet; inner or outer IP version not matching
 * its flag; IPv4 header length != l3_len; an IPv4 fragment; IPv6 extension
 * headers not ending at l3_len, or others than hop-by-hop, destination
 * options and a finished routing header; L4 protocol not the requested
 * one; a chain shorter than the IP datagram; a refused request -- is NOT
 * sent and is left unmodified.
 *
 * Return value: the array is partitioned in place. pkts[0 .. ret) are the
 * packets ready for rte_eth_tx_prepare()/rte_eth_tx_burst(), in their
 * original order; pkts[ret .. n) are the refused ones, which the caller
 * must free (rte_pktmbuf_free_bulk(pkts + ret, n - ret)). No pointer is
 * lost or duplicated, so nothing can leak. st->drop_bad_txmeta counts them.
 */
uint16_t tep_txprep_burst(const struct tep_txcaps *c, struct rte_mbuf **pkts,
			  uint16_t n, struct tep_txprep_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* TEP_TXPREP_H */
