/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_RXCSUM_H
#define TEP_RXCSUM_H

/*
 * Receive side of the checksum contract, for packets tepd decapsulates:
 * which header each Rx checksum flag of a DPDK 22.11 PMD speaks of. The
 * transmit side is tep_txprep.h; the per-PMD facts behind every rule here
 * are in docs/drivers.md ("Receive checksums per PMD").
 *
 * The problem: when the NIC parsed the tunnel, RTE_MBUF_F_RX_L4_CKSUM_*
 * (and RX_IP_CKSUM_*) describe the INNER packet, and the outer UDP verdict,
 * if the PMD has one, is RTE_MBUF_F_RX_OUTER_L4_CKSUM_*. When it did not,
 * RX_L4_CKSUM_* is about the outer UDP header. Reading RX_L4 as the outer
 * verdict on a tunnel the NIC parsed skips the outer sum on the strength
 * of the inner one.
 *
 * How "the NIC parsed the tunnel" is told: from packet_type only (any
 * TUNNEL or INNER_* bit). RX_OUTER_L4_CKSUM_* cannot tell it: UNKNOWN is 0,
 * so "no information" and "not parsed" look alike, and net_ice sets
 * OUTER_L4_CKSUM_GOOD on every checked packet, tunnel or not. Every PMD
 * that fills OUTER_L4 also fills packet_type from the same parse, and the
 * PMDs that parse in software (net_tap, virtio, vhost) never set an L4
 * verdict on a packet whose packet_type shows a tunnel, so one rule fits
 * every PMD checked (docs/drivers.md has the table).
 *
 * What decapsulation does with it (app/tepd/worker.c decap()):
 *  1. tep_rxcsum_get() once per packet.
 *  2. tep_parse_outer(..., tep_rxcsum_parse_flags(&v), ...): the outer UDP
 *     sum is skipped only when the PMD says GOOD (or NONE: data verified,
 *     field not final) for the OUTER UDP. A BAD verdict is not acted upon:
 *     the packet is summed here and our sum decides (it is rare, and it
 *     keeps NIC quirks from dropping good packets).
 *     tep_parse_gre() always gets TEP_PARSE_VERIFY_CSUM: no PMD here
 *     verifies a GRE checksum.
 *  3. RCO and "inner checksum derived from the outer" only when
 *     tep_rxcsum_outer_verified(): a non-zero outer UDP checksum verified
 *     by the NIC, or any outer checksum verified by our own sum. A NIC GOOD
 *     for a UDP checksum field of 0 (no checksum, RFC 768) does not count.
 *  4. The decapsulated packet loses every Rx checksum flag
 *     (TEP_RXCSUM_FLAGS) and gets RX_L4_CKSUM_GOOD when
 *     tep_rxcsum_inner_good() (the NIC checked the inner L4) or the inner
 *     checksum was derived from a verified outer one. A BAD inner verdict
 *     only means "not marked good": tepd routes, it does not drop for a bad
 *     inner checksum.
 *
 * Header-only and branch-light: it runs per decapsulated packet. No EAL.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mbuf_ptype.h>

#include "tep_proto.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One checksum verdict. The values are the DPDK 2-bit encodings read as
 * (GOOD bit << 1 | BAD bit), so reading a flag field costs two shifts. */
enum tep_rxv {
	TEP_RXV_UNKNOWN = 0,	/* nothing said: sum it here if it matters */
	TEP_RXV_BAD = 1,	/* the PMD found it wrong */
	TEP_RXV_GOOD = 2,	/* the PMD found it right (the field may be a
				 * UDP 0, "no checksum": see outer_verified) */
	TEP_RXV_NONE = 3,	/* data verified, field not final (net_tap's
				 * UDP 0, a virtio/vhost checksum left
				 * partial) */
};

/* What a received packet's flags say, sorted by header. */
struct tep_rxcsum {
	uint8_t outer;		/* the outer UDP checksum (meaningless when the
				 * outer L4 is GRE: see outer_verified) */
	uint8_t inner;		/* the inner TCP/UDP checksum; UNKNOWN unless
				 * the NIC parsed the tunnel */
	uint8_t outer_ip;	/* the outermost IPv4 header checksum; never
				 * GOOD for a parsed tunnel (no such flag) */
	uint8_t parsed;		/* packet_type shows the NIC parsed a tunnel */
};

/* packet_type bits that only a parse through a tunnel sets. mlx5 sets
 * INNER_* without TUNNEL_* unless one tunnel flow steers to the queue. */
#define TEP_RXCSUM_PTYPE_TUNNEL (RTE_PTYPE_TUNNEL_MASK |		\
	RTE_PTYPE_INNER_L2_MASK | RTE_PTYPE_INNER_L3_MASK |		\
	RTE_PTYPE_INNER_L4_MASK)

/* Every Rx checksum flag: none of them is true of a decapsulated packet. */
#define TEP_RXCSUM_FLAGS (RTE_MBUF_F_RX_IP_CKSUM_MASK |			\
	RTE_MBUF_F_RX_L4_CKSUM_MASK | RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK |	\
	RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD)

/* The encodings tep_rxcsum_get() relies on. */
_Static_assert(RTE_MBUF_F_RX_L4_CKSUM_BAD == (1ULL << 3) &&
	       RTE_MBUF_F_RX_L4_CKSUM_GOOD == (1ULL << 8) &&
	       RTE_MBUF_F_RX_IP_CKSUM_BAD == (1ULL << 4) &&
	       RTE_MBUF_F_RX_IP_CKSUM_GOOD == (1ULL << 7) &&
	       RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD == (1ULL << 21) &&
	       RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD == (1ULL << 22),
	       "DPDK Rx checksum flag layout changed");

/* Sort the Rx checksum flags of one packet by header (rules above). */
static inline void
tep_rxcsum_get(uint64_t ol_flags, uint32_t packet_type, struct tep_rxcsum *v)
{
	uint8_t l4 = (uint8_t)(((ol_flags >> 3) & 1) | ((ol_flags >> 7) & 2));
	uint8_t ip = (uint8_t)(((ol_flags >> 4) & 1) | ((ol_flags >> 6) & 2));
	uint8_t o4 = (uint8_t)((ol_flags >> 21) & 3);
	uint32_t il4 = packet_type & RTE_PTYPE_INNER_L4_MASK;
	bool oip_bad = (ol_flags & RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD) != 0;

	o4 = o4 == 3 ? TEP_RXV_UNKNOWN : o4;	/* OUTER_L4_CKSUM_INVALID */
	v->parsed = (packet_type & TEP_RXCSUM_PTYPE_TUNNEL) != 0;
	if (v->parsed) {
		/* RX_L4/RX_IP are the inner ones; the outer verdict is the
		 * OUTER_ one or nothing (i40e, ixgbe, mlx5 have none). An
		 * inner L4 verdict counts only for TCP/UDP: i40e and ixgbe
		 * report GOOD for any packet without an error bit. */
		v->outer = o4;
		v->inner = (il4 == RTE_PTYPE_INNER_L4_TCP ||
			    il4 == RTE_PTYPE_INNER_L4_UDP) ? l4 : TEP_RXV_UNKNOWN;
		v->outer_ip = oip_bad ? TEP_RXV_BAD : TEP_RXV_UNKNOWN;
	} else {
		/* RX_L4 is the outer UDP. OUTER_L4 means nothing here (ice
		 * says GOOD on every packet); should it say BAD, the two
		 * disagree and nothing is trusted. */
		v->outer = (l4 == TEP_RXV_GOOD && o4 == TEP_RXV_BAD) ?
			   TEP_RXV_UNKNOWN : l4;
		v->inner = TEP_RXV_UNKNOWN;
		v->outer_ip = (ip == TEP_RXV_GOOD && oip_bad) ?
			      TEP_RXV_UNKNOWN : ip;
	}
}

/* Flags for tep_parse_outer(): 0 (skip the outer UDP sum) when the PMD
 * verified the data (GOOD or NONE), else TEP_PARSE_VERIFY_CSUM.
 * tep_parse_gre() is always given TEP_PARSE_VERIFY_CSUM. */
static inline unsigned int
tep_rxcsum_parse_flags(const struct tep_rxcsum *v)
{
	return v->outer >= TEP_RXV_GOOD ? 0u : TEP_PARSE_VERIFY_CSUM;
}

/* The outer checksum of the parsed packet d is present and known right:
 * summed here (d->csum_verified, UDP or GRE), or a non-zero UDP checksum
 * the PMD found GOOD. What RCO and the inner derivation may rest on. */
static inline bool
tep_rxcsum_outer_verified(const struct tep_rxcsum *v,
			  const struct tep_decap *d)
{
	return d->csum_verified ||
	       (d->csum_present && d->l4_proto == 17 &&
		v->outer == TEP_RXV_GOOD);
}

/* The NIC checked the inner TCP/UDP checksum of the tunnel it parsed and
 * found it right (not for RCO, which rewrites that checksum). */
static inline bool
tep_rxcsum_inner_good(const struct tep_rxcsum *v, const struct tep_decap *d)
{
	return v->inner == TEP_RXV_GOOD && !d->has_rco;
}

/* "unknown", "bad", "good", "none" (for logs and test messages). */
const char *tep_rxv_name(unsigned int v);

#ifdef __cplusplus
}
#endif

#endif /* TEP_RXCSUM_H */
