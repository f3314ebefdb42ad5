/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_CSUM_H
#define TEP_CSUM_H

/*
 * Internet checksum arithmetic (RFC 1071, RFC 1624) and Local Checksum
 * Offload (LCO) for tunnel encapsulation.
 *
 * Conventions, the same as Linux's __wsum and DPDK's rte_raw_cksum():
 *  - A "partial sum" (uint32_t) is a ones-complement accumulator whose value,
 *    once folded to 16 bits, can be stored to memory in host order and gives
 *    the right bytes on the wire. Summing in host order is valid because the
 *    ones-complement sum is byte-order independent (RFC 1071 section 2(B)).
 *  - Folded values (uint16_t) are in the same memory order: write them to the
 *    packet with memcpy, never through htons().
 *  - Nothing here needs EAL or allocates: every function works on plain
 *    byte buffers at any alignment.
 *
 * LCO in one line (docs/lco.md has the proof and a worked example): once an
 * inner TCP/UDP/ICMP/GRE checksum is filled in over a field that held the
 * value `seed`, the inner L4 region sums to ~seed. So the outer checksum
 * needs only the bytes before the inner L4 header and that 16-bit seed.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* End-around-carry addition of two partial sums. */
static inline uint32_t
tep_csum_add(uint32_t a, uint32_t b)
{
	uint64_t s = (uint64_t)a + b;

	return (uint32_t)s + (uint32_t)(s >> 32);
}

/* Ones-complement subtraction: adding ~b removes b from a sum. */
static inline uint32_t
tep_csum_sub(uint32_t a, uint32_t b)
{
	return tep_csum_add(a, ~b);
}

/* Fold a partial sum to 16 bits (not complemented). */
static inline uint16_t
tep_csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/*
 * The sum of a chunk that starts at an odd offset of the checksummed region
 * has its bytes in the other lanes: rotating by 8 swaps them. Rotation is
 * exact modulo 2^32-1 and hence modulo 2^16-1, so no carry is lost (the
 * mistake rte_raw_cksum_mbuf() makes in DPDK 22.11, see the shared notes).
 */
static inline uint32_t
tep_csum_block_add(uint32_t sum, uint32_t chunk, size_t offset)
{
	if (offset & 1)
		chunk = (chunk >> 8) | (chunk << 24);
	return tep_csum_add(sum, chunk);
}

/* Add the RFC 1071 sum of len bytes at buf (any alignment) to sum. */
uint32_t tep_csum_partial(const void *buf, size_t len, uint32_t sum);

/* The checksum field value for a region whose full sum is `sum`. */
static inline uint16_t
tep_csum_finish(uint32_t sum)
{
	return (uint16_t)~tep_csum_fold(sum);
}

/* RFC 768: a computed UDP checksum of 0 is sent as all ones (0 means "none"). */
static inline uint16_t
tep_udp_csum_mangle0(uint16_t csum)
{
	return csum == 0 ? 0xffff : csum;
}

/*
 * RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'). Update a checksum field for one
 * 16-bit word changed from old_word to new_word (all in memory order).
 * Eqn. 3 rather than RFC 1141's ~(~HC - m + m') form, which can produce
 * -0 (0xffff) where a full recompute gives +0.
 */
static inline uint16_t
tep_csum_replace16(uint16_t csum, uint16_t old_word, uint16_t new_word)
{
	uint32_t s = (uint16_t)~csum;

	s = tep_csum_add(s, (uint16_t)~old_word);
	s = tep_csum_add(s, new_word);
	return (uint16_t)~tep_csum_fold(s);
}

/* The same for a 32-bit field (an IPv4 address, for NAT-like rewrites). */
static inline uint16_t
tep_csum_replace32(uint16_t csum, uint32_t old_word, uint32_t new_word)
{
	uint32_t s = (uint16_t)~csum;

	s = tep_csum_add(s, ~old_word);
	s = tep_csum_add(s, new_word);
	return (uint16_t)~tep_csum_fold(s);
}

/*
 * Pseudo-header partial sums (not folded, not complemented).
 * Addresses point at network-order bytes, e.g. straight into the IP header.
 * l4_len is the L4 length in host order: 16 bits on the wire for IPv4
 * (RFC 768/793), 32 bits for IPv6 (RFC 8200 section 8.1).
 */
uint32_t tep_ipv4_phdr_sum(const void *saddr, const void *daddr,
			   uint8_t proto, uint16_t l4_len);
uint32_t tep_ipv6_phdr_sum(const void *saddr, const void *daddr,
			   uint8_t proto, uint32_t l4_len);

/* IPv4 header checksum over ihl_bytes at hdr; the checksum field must be 0. */
static inline uint16_t
tep_ipv4_hdr_csum(const void *hdr, size_t ihl_bytes)
{
	return tep_csum_finish(tep_csum_partial(hdr, ihl_bytes, 0));
}

/*
 * Is an IPv4 header's checksum right? Every packet in the dataplane asks,
 * so the common 20-byte header is summed inline as five 32-bit words
 * (a ones-complement sum may be taken in any word size and folded); with
 * options, the general sum.
 */
static inline bool
tep_ipv4_hdr_ok(const void *hdr, size_t ihl_bytes)
{
	const uint8_t *p = (const uint8_t *)hdr;
	uint32_t w0, w1, w2, w3, w4;
	uint64_t s;

	if (ihl_bytes != 20)
		return tep_csum_fold(tep_csum_partial(hdr, ihl_bytes, 0)) ==
		       0xffff;
	/* Five loads straight from the packet: a copy into an array let
	 * the compiler bounce the header through the stack with a 16-byte
	 * store read back as 4-byte loads, which stalled every packet. */
	memcpy(&w0, p, 4);
	memcpy(&w1, p + 4, 4);
	memcpy(&w2, p + 8, 4);
	memcpy(&w3, p + 12, 4);
	memcpy(&w4, p + 16, 4);
	s = (uint64_t)w0 + w1 + w2 + w3 + w4;
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffffffffu) + (s >> 32);
	return tep_csum_fold((uint32_t)s) == 0xffff;
}

/*
 * Local Checksum Offload.
 *
 * `hdr` is the start of the outer checksummed region (the outer UDP header,
 * or the GRE header), with its own checksum field set to 0; `csum_start` is
 * the offset from hdr of the inner L4 header; `outer_phdr` is the outer
 * pseudo-header sum (0 for GRE, which has none); `inner_seed` is the 16-bit
 * value the inner checksum field held when its checksum was (or will be)
 * computed over it. Returns the outer checksum, not mangled.
 *
 * Why it works: a checksum c computed over a region whose field held s makes
 * the region, with c in place of s, sum to sum_without_field + ~(that + s),
 * which is ~s. The payload cancels out, so none of it is read here.
 */
static inline uint16_t
tep_lco_csum(uint32_t outer_phdr, const void *hdr, size_t csum_start,
	     uint16_t inner_seed)
{
	uint32_t sum = tep_csum_partial(hdr, csum_start, outer_phdr);

	/* If csum_start is odd the inner region's words sit in the other byte
	 * lanes of the outer sum. */
	sum = tep_csum_block_add(sum, (uint16_t)~inner_seed, csum_start);
	return tep_csum_finish(sum);
}

/*
 * Outer UDP checksum by LCO for an inner checksum that is still pending
 * (offloaded to the NIC or to the software fallback at transmit). The seed
 * is read from the inner checksum field at hdr + csum_start + csum_offset,
 * so it must already hold what the completer will checksum over: for TCP/UDP
 * the non-complemented pseudo-header sum, as rte_eth_tx_prepare() leaves it.
 */
static inline uint16_t
tep_lco_udp_csum_pending(uint32_t outer_phdr, const void *hdr,
			 size_t csum_start, size_t csum_offset)
{
	uint16_t seed;

	memcpy(&seed, (const uint8_t *)hdr + csum_start + csum_offset,
	       sizeof(seed));
	return tep_udp_csum_mangle0(tep_lco_csum(outer_phdr, hdr, csum_start,
						 seed));
}

/*
 * Outer UDP checksum by LCO for an inner packet whose checksum is complete
 * and valid. A valid TCP/UDP/ICMPv6 region sums to ~pseudo-header, an ICMPv4
 * one to ~0, so the seed is the folded inner pseudo-header sum (pass 0 for
 * ICMPv4). Not for an IPv4 UDP datagram sent with checksum 0: its region
 * sums to nothing predictable and needs a full sum.
 */
static inline uint16_t
tep_lco_udp_csum_complete(uint32_t outer_phdr, const void *hdr,
			  size_t csum_start, uint32_t inner_phdr)
{
	return tep_udp_csum_mangle0(tep_lco_csum(outer_phdr, hdr, csum_start,
						 tep_csum_fold(inner_phdr)));
}

/*
 * Complete a pending L4 checksum in software, as a NIC does: the field at
 * l4 + csum_offset holds the non-complemented pseudo-header sum, so the
 * sum of the whole L4 datagram (len bytes, the seed included) is the final
 * value's complement. UDP sends a computed 0 as 0xffff.
 */
static inline void
tep_l4_csum_complete(void *l4, size_t len, size_t csum_offset, bool udp)
{
	uint16_t ck = tep_csum_finish(tep_csum_partial(l4, len, 0));

	if (udp)
		ck = tep_udp_csum_mangle0(ck);
	memcpy((uint8_t *)l4 + csum_offset, &ck, sizeof(ck));
}

/* Outer UDP checksum the slow way: every byte of the datagram is summed. */
static inline uint16_t
tep_udp_csum_full(uint32_t outer_phdr, const void *udp, size_t udp_len)
{
	return tep_udp_csum_mangle0(
		tep_csum_finish(tep_csum_partial(udp, udp_len, outer_phdr)));
}

#ifdef __cplusplus
}
#endif

#endif /* TEP_CSUM_H */
