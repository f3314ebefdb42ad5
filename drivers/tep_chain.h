/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_CHAIN_H
#define TEP_CHAIN_H

/*
 * Chained mbufs (a jumbo frame on a scattered RX queue, a fragment that
 * points into its datagram): what the datapath needs so that it never
 * linearises. Headers are read and written in the first segment only;
 * these helpers make that hold and do the few things that must walk the
 * chain. They touch mbuf fields only (no EAL), so the unit tests run them
 * on fake chains.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

/*
 * Bytes the datapath reads contiguously: outer Ethernet+VLAN, IPv6, UDP,
 * a GENEVE header with the most options (260), inner Ethernet+VLAN, IPv6
 * and a TCP header with options fit, and so does anything an ICMP error
 * quotes from an IPv4 packet.
 */
#define TEP_CHAIN_HDR_ROOM	512u

/*
 * Make the first segment hold min(pkt_len, want) bytes, moving bytes from
 * the following segments into its tailroom (segments left empty are
 * freed). Returns 0, or -1 when the first segment has no room for them
 * (the chain is left as it was, still valid).
 */
int tep_chain_pullup(struct rte_mbuf *m, uint32_t want);

/* Cut the chain to `len` bytes (len <= pkt_len), freeing whole segments
 * past it: rte_pktmbuf_trim() trims the last segment only. */
void tep_chain_trim(struct rte_mbuf *m, uint32_t len);

/*
 * Finish an L4 checksum that was left pending (its field holds the
 * pseudo-header seed): sum len bytes from offset off of the chain and
 * write the result at off + csum_offset, which must be in the first
 * segment. udp: a result of 0 is sent as 0xffff. -1 if the chain is
 * shorter than off + len or the field is not in the first segment.
 */
int tep_chain_l4_complete(struct rte_mbuf *m, uint32_t off, uint32_t len,
			  uint32_t csum_offset, bool udp);

#endif /* TEP_CHAIN_H */
