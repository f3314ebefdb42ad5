/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * The pending checksum path of a VM port: a guest (virtio) hands over TCP
 * with its checksum pending (the field holds the pseudo-header seed) and
 * tepd encapsulates it into VXLAN over IPv4. What that costs per packet,
 * and per 64 KB send when the guest uses TSO and tepd segments, for the
 * outer checksum done by LCO or by a full sum. Prints a table; asserts
 * no timing, only that the packets it times are right.
 *
 *   bench_tso [PACKETS]
 *
 * The three paths, per packet (segment):
 *  lco     tep_encap_write() in LCO mode: the outer sum reads the headers
 *          and the seed; the inner checksum is left pending for the NIC.
 *  lco+sw  the same, then the inner checksum completed in software, as
 *          drivers/ does for a port without the offload (af_packet).
 *  full    the inner checksum completed in software first (a full sum
 *          cannot be taken over a checksum that will still change:
 *          tep_encap_write() refuses it), then tep_encap_write() in FULL
 *          mode, which sums the whole datagram again.
 * The software completion is drivers/' (txpkt_sw): the pseudo-header from
 * the IP header, the L4 region summed with the field zeroed.
 * For a TSO send each segment is first made as app/tepd/gso.c makes it:
 * tep_tso_seg_hdr() into a fresh buffer and a memcpy of its payload.
 * Not included: tep_flow_parse(), the route lookup, mbufs, TX.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>

#include "tep_csum.h"
#include "tep_proto.h"
#include "tep_ref.h"

#define ETH_LEN		14
#define IP_LEN		20
#define TCP_LEN		32	/* with timestamps, as Linux sends */
#define HDR_LEN		(ETH_LEN + IP_LEN + TCP_LEN)
#define MSS		1448	/* a 1500-byte MTU with timestamps */
#define PKT_LEN		(HDR_LEN + MSS)		/* 1514: IP length 1500 */
#define TSO_SEGS	45
#define TSO_PAYLOAD	(TSO_SEGS * MSS)	/* 65160 */
#define TSO_LEN		(HDR_LEN + TSO_PAYLOAD)
#define HEADROOM	128	/* RTE_PKTMBUF_HEADROOM: outer headers go here */
#define SEG_BUF		2048
#define ROUNDS		7

enum path { P_LCO, P_LCO_SW, P_FULL, P_MAX };

static const char *const path_name[P_MAX] = {
	[P_LCO] = "lco",
	[P_LCO_SW] = "lco+sw",
	[P_FULL] = "full",
};

static uint8_t super[TSO_LEN] __attribute__((aligned(64)));
static uint8_t seg_bufs[TSO_SEGS][SEG_BUF] __attribute__((aligned(64)));

/*
 * A guest's TCP/IPv4 frame carrying `payload` bytes, checksum pending: the
 * field holds the folded pseudo-header sum for the real length, as virtio
 * (VIRTIO_NET_HDR_F_NEEDS_CSUM) and rte_eth_tx_prepare() leave it.
 */
static void
make_guest_frame(uint8_t *f, uint32_t payload, uint64_t *rng)
{
	uint8_t *ip = f + ETH_LEN, *tcp = ip + IP_LEN;
	uint32_t l4len = TCP_LEN + payload;

	memcpy(f, "\x02\x00\x00\x00\x00\x0a\x52\x54\x00\x12\x34\x56", 12);
	tep_ref_wr16(f + 12, 0x0800);
	memset(ip, 0, IP_LEN);
	ip[0] = 0x45;
	tep_ref_wr16(ip + 2, (uint16_t)(IP_LEN + l4len));
	tep_ref_wr16(ip + 4, 0x1234);
	tep_ref_wr16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 6;
	memcpy(ip + 12, "\x0a\x00\x00\x02\x0a\x00\x01\x02", 8);
	tep_ref_wr16(ip + 10, (uint16_t)~tep_ref_sum(ip, IP_LEN, 0));
	memset(tcp, 0, TCP_LEN);
	tep_ref_wr16(tcp, 43210);
	tep_ref_wr16(tcp + 2, 5201);
	memcpy(tcp + 4, "\xff\xff\x00\x00\x12\x34\x56\x78", 8);
	tcp[12] = TCP_LEN / 4 << 4;
	tcp[13] = 0x18;				/* PSH ACK */
	tep_ref_wr16(tcp + 14, 502);
	memcpy(tcp + 20, "\x01\x01\x08\x0a\x00\x01\xe2\x40\x7f\xff\xff\xfe",
	       12);
	tep_ref_rnd_fill(rng, tcp + TCP_LEN, payload);
	tep_ref_wr16(tcp + 16, tep_ref_phdr(false, ip + 12, ip + 16, 6, l4len));
}

/* drivers/ txpkt_sw() for TCP/IPv4 in one flat buffer: the standard
 * checksum from the pseudo-header, whatever the field held. */
static inline void
sw_complete_tcp4(uint8_t *ip)
{
	uint32_t ihl = (ip[0] & 0xfu) * 4u;
	uint32_t l4len = (uint32_t)(ip[2] << 8 | ip[3]) - ihl;
	uint8_t *field = ip + ihl + 16;
	uint16_t zero = 0, ck;
	uint32_t sum;

	sum = tep_ipv4_phdr_sum(ip + 12, ip + 16, 6, (uint16_t)l4len);
	memcpy(field, &zero, sizeof(zero));
	sum = tep_csum_partial(ip + ihl, l4len, sum);
	ck = tep_csum_finish(sum);
	memcpy(field, &ck, sizeof(ck));
}

/* One packet: its inner frame at `inner` (the template's room before it),
 * the way `path` sends it. Returns tep_encap_write()'s result. */
static inline int
encap_one(const struct tep_encap_tmpl *t, uint8_t *inner,
	  struct tep_encap_pkt *pk, enum path path)
{
	int ret;

	if (path == P_FULL) {
		sw_complete_tcp4(inner + ETH_LEN);
		pk->l4.state = TEP_L4_COMPLETE;
	} else {
		pk->l4.state = TEP_L4_PENDING;
	}
	ret = tep_encap_write(t, inner - t->len, pk);
	if (path == P_LCO_SW)
		sw_complete_tcp4(inner + ETH_LEN);
	return ret;
}

/* ---- the self-check: what was timed is right, by naive reference ------- */

static int failures;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		if (failures++ < 5) {	/* the first few say enough */	\
			fprintf(stderr, "bench_tso: check failed: "	\
				__VA_ARGS__);				\
			fputc('\n', stderr);				\
		}							\
		return;							\
	}								\
} while (0)

/*
 * An encapsulated packet at `outer` (inner frame of inner_len bytes after
 * the template): complete the inner checksum as the NIC would if it is
 * still pending (on a copy), then every checksum must verify with the
 * naive sum, and the inner payload must be `want_payload`.
 */
static void
verify(const struct tep_encap_tmpl *t, const uint8_t *outer,
       uint32_t inner_len, enum path path, const uint8_t *want_payload,
       uint32_t want_seq, const char *what)
{
	static uint8_t p[HEADROOM + SEG_BUF];
	uint32_t len = t->len + inner_len, udp_len = len - t->l4_off;
	uint8_t *oip = p + t->l2_len, *udp = p + t->l4_off;
	uint8_t *ip = p + t->len + ETH_LEN, *tcp = ip + IP_LEN;
	uint32_t l4len = inner_len - ETH_LEN - IP_LEN;
	uint32_t seq;
	uint16_t ph;

	CHECK(len <= sizeof(p), "%s: %u bytes", what, len);
	memcpy(p, outer, len);
	ph = tep_ref_phdr(false, ip + 12, ip + 16, 6, l4len);
	if (path == P_LCO) {
		/* Still pending: the seed must be the pseudo-header sum. */
		CHECK(tep_ref_rd16(tcp + 16) == ph, "%s: seed %#x, want %#x",
		      what, tep_ref_rd16(tcp + 16), ph);
		tep_ref_wr16(tcp + 16, (uint16_t)~tep_ref_sum(tcp, l4len, 0));
	}
	CHECK(tep_ref_sum(ip, IP_LEN, 0) == 0xffff, "%s: inner IPv4 header",
	      what);
	CHECK(tep_ref_sum(tcp, l4len, ph) == 0xffff,
	      "%s (%s): inner TCP checksum", what, path_name[path]);
	CHECK(tep_ref_sum(oip, 20, 0) == 0xffff, "%s: outer IPv4 header", what);
	CHECK(tep_ref_rd16(oip + 2) == len - t->l2_len, "%s: outer length",
	      what);
	CHECK(tep_ref_rd16(udp + 4) == udp_len, "%s: UDP length", what);
	CHECK(tep_ref_rd16(udp + 6) != 0, "%s: no outer checksum", what);
	CHECK(tep_ref_sum(udp, udp_len, tep_ref_phdr(false, oip + 12, oip + 16,
						     17, udp_len)) == 0xffff,
	      "%s (%s): outer UDP checksum", what, path_name[path]);
	seq = (uint32_t)tcp[4] << 24 | (uint32_t)tcp[5] << 16 |
	      (uint32_t)tcp[6] << 8 | tcp[7];
	CHECK(seq == want_seq, "%s: seq %#x, want %#x", what, seq, want_seq);
	CHECK(memcmp(tcp + TCP_LEN, want_payload, l4len - TCP_LEN) == 0,
	      "%s: payload", what);
}

/* ---- the timed loops ---------------------------------------------------- */

static void
build_tmpl(struct tep_encap_tmpl *t, enum path path)
{
	struct tep_encap_params p;
	char err[128];

	memset(&p, 0, sizeof(p));
	p.type = TEP_TUN_VXLAN;
	memcpy(p.smac, "\x02\0\0\0\0\x01", 6);
	memcpy(p.dmac, "\x02\0\0\0\0\x02", 6);
	memcpy(p.src, "\xc6\x33\x64\x01", 4);
	memcpy(p.dst, "\xc6\x33\x64\x02", 4);
	p.df = true;
	p.vni = 42;
	p.csum = path == P_FULL ? TEP_CSUM_FULL : TEP_CSUM_LCO;
	if (tep_encap_tmpl_build(t, &p, err, sizeof(err)) != 0) {
		fprintf(stderr, "bench_tso: template: %s\n", err);
		exit(1);
	}
}

/* Per-packet inputs for a guest frame, as encap() fills them. */
static void
pkt_inputs(const uint8_t *frame, uint32_t len, struct tep_encap_pkt *pk)
{
	struct tep_flow f;

	if (tep_flow_parse(frame, len, true, &f) != TEP_R_OK) {
		fprintf(stderr, "bench_tso: tep_flow_parse refused the frame\n");
		exit(1);
	}
	memset(pk, 0, sizeof(*pk));
	pk->inner_len = (uint16_t)len;
	pk->sport = tep_udp_sport(f.hash, 49152, 65535);
	pk->inner_tos = f.tos;
	pk->l4 = f.l4;
	pk->l4.ip4_hdr_ok = 1;	/* classify() verified it */
}

/* (a) One guest packet, encapsulated in place, `iters` times. Returns
 * the cycles per packet. */
static double
time_packet(enum path path, unsigned int iters)
{
	static uint8_t buf[HEADROOM + SEG_BUF] __attribute__((aligned(64)));
	uint8_t *inner = buf + HEADROOM;
	uint8_t *field = inner + ETH_LEN + IP_LEN + 16;
	uint64_t rng = 0x62656e6368747330ull, t0;
	struct tep_encap_tmpl t;
	struct tep_encap_pkt pk;
	uint16_t seed;
	unsigned int i;
	int want = path == P_FULL ? TEP_OCSUM_FULL : TEP_OCSUM_LCO;

	build_tmpl(&t, path);
	make_guest_frame(inner, MSS, &rng);
	memcpy(&seed, field, sizeof(seed));
	pkt_inputs(inner, PKT_LEN, &pk);
	if (encap_one(&t, inner, &pk, path) != want) {
		fprintf(stderr, "bench_tso: %s: tep_encap_write failed\n",
			path_name[path]);
		exit(1);
	}
	verify(&t, inner - t.len, PKT_LEN, path, inner + HDR_LEN, 0xffff0000u,
	       "1500 B packet");

	t0 = rte_rdtsc_precise();
	for (i = 0; i < iters; i++) {
		/* Every packet arrives with its seed in the field. */
		memcpy(field, &seed, sizeof(seed));
		pk.ip_id = (uint16_t)i;
		if (encap_one(&t, inner, &pk, path) != want)
			abort();
	}
	t0 = rte_rdtsc_precise() - t0;
	/* The last packet timed, too. */
	verify(&t, inner - t.len, PKT_LEN, path, inner + HDR_LEN, 0xffff0000u,
	       "1500 B packet, after timing");
	return (double)t0 / iters;
}

/*
 * (b) One 64 KB send: segmented as app/tepd/gso.c does (headers written,
 * payload copied into a fresh buffer per segment), each segment then
 * encapsulated (path P_MAX: segmentation alone). Returns the cycles per
 * send.
 */
static double
time_tso(int path, unsigned int sends)
{
	uint64_t rng = 0x62656e6368747331ull, t0 = 0;
	struct tep_encap_tmpl t;
	struct tep_encap_pkt pk;
	struct tep_tso tso;
	unsigned int s, r, want = path == P_FULL ? TEP_OCSUM_FULL :
						   TEP_OCSUM_LCO;
	uint16_t i, ip_id = 0;

	build_tmpl(&t, path == P_FULL ? P_FULL : P_LCO);
	make_guest_frame(super, TSO_PAYLOAD, &rng);
	if (tep_tso_plan(super, TSO_LEN, TSO_LEN, ETH_LEN, MSS, &tso) !=
	    TEP_R_OK || tso.nb_segs != TSO_SEGS) {
		fprintf(stderr, "bench_tso: tep_tso_plan refused the send\n");
		exit(1);
	}
	/* Every segment is full-sized: one set of per-packet inputs, from
	 * the first segment, fits all (encap() parses each; not timed). */
	tep_tso_seg_hdr(&tso, super, seg_bufs[0] + HEADROOM, 0, MSS);
	memcpy(seg_bufs[0] + HEADROOM + HDR_LEN, super + HDR_LEN, MSS);
	pkt_inputs(seg_bufs[0] + HEADROOM, PKT_LEN, &pk);

	/* Round 0 warms up and is checked, round 1 is timed. */
	for (r = 0; r < 2; r++) {
		t0 = rte_rdtsc_precise();

		for (s = 0; s < sends; s++) {
			uint32_t off = HDR_LEN;

			for (i = 0; i < TSO_SEGS; i++, off += MSS) {
				uint8_t *seg = seg_bufs[i] + HEADROOM;

				tep_tso_seg_hdr(&tso, super, seg, i, MSS);
				memcpy(seg + HDR_LEN, super + off, MSS);
				if (path == P_MAX)
					continue;
				pk.ip_id = ip_id++;
				if (encap_one(&t, seg, &pk, (enum path)path) !=
				    (int)want)
					abort();
			}
		}
		t0 = rte_rdtsc_precise() - t0;
		if (path == P_MAX)
			continue;
		/* Every segment of the last send must be right. */
		for (i = 0; i < TSO_SEGS; i++)
			verify(&t, seg_bufs[i] + HEADROOM - t.len, PKT_LEN,
			       (enum path)path,
			       super + HDR_LEN + (uint32_t)i * MSS,
			       0xffff0000u + (uint32_t)i * MSS,
			       r ? "TSO segment, after timing" :
				   "TSO segment");
	}
	return (double)t0 / sends;
}

/* ---- output ------------------------------------------------------------- */

/* The TSC rate: DPDK's figure when the EAL has set it (it has not here:
 * no rte_eal_init()), else measured against CLOCK_MONOTONIC_RAW. */
static double
tsc_hz(void)
{
	struct timespec a, b, d = { .tv_sec = 0, .tv_nsec = 200000000 };
	uint64_t c0, c1;
	double ns;

	if (rte_get_tsc_hz() != 0)
		return (double)rte_get_tsc_hz();
	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	c0 = rte_rdtsc_precise();
	nanosleep(&d, NULL);
	clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	c1 = rte_rdtsc_precise();
	ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	return (double)(c1 - c0) * 1e9 / ns;
}

/* TCP payload Gbit/s one core would carry at `cycles` per `bytes`. */
static double
gbps(double hz, double cycles, double bytes)
{
	return bytes * 8 * hz / cycles / 1e9;
}

int
main(int argc, char **argv)
{
	unsigned int pkts = argc > 1 ? (unsigned int)atoi(argv[1]) : 200000;
	unsigned int sends = pkts / TSO_SEGS ? pkts / TSO_SEGS : 1;
	double hz, pkt[P_MAX], tso[P_MAX + 1];
	int p, r;

	if (pkts == 0) {
		fprintf(stderr, "usage: bench_tso [PACKETS]\n");
		return 2;
	}
	hz = tsc_hz();
	/* Paths take turns, round after round, and each keeps its best: on
	 * a shared machine a burst of someone else's load then hits one
	 * round of every path rather than all rounds of one. */
	for (p = 0; p < P_MAX; p++)
		pkt[p] = 1e300;
	for (p = 0; p <= P_MAX; p++)
		tso[p] = 1e300;
	for (r = 0; r < ROUNDS; r++) {
		for (p = 0; p < P_MAX; p++) {
			double c = time_packet((enum path)p, pkts);

			pkt[p] = c < pkt[p] ? c : pkt[p];
		}
		for (p = 0; p <= P_MAX; p++) {
			double c = time_tso(p, sends);

			tso[p] = c < tso[p] ? c : tso[p];
		}
	}
	if (failures) {
		fprintf(stderr, "bench_tso: %d self-check failure(s)\n",
			failures);
		return 1;
	}

	printf("Pending inner TCP checksum into VXLAN/IPv4 (a guest's frames)\n"
	       "TSC %.3f GHz; best of %d rounds of (a) %u packets, (b) %u "
	       "sends of %u segments\n", hz / 1e9, ROUNDS, pkts, sends,
	       TSO_SEGS);
	printf("(a) one %u-byte frame (IP 1500, TCP payload %u), "
	       "encapsulated in place\n", PKT_LEN, MSS);
	printf("(b) one %u-byte TSO send (TCP payload %u) cut at MSS %u: "
	       "tep_tso_seg_hdr + payload memcpy\n    per segment, then each "
	       "segment encapsulated\n", TSO_LEN, TSO_PAYLOAD, MSS);
	printf("paths: lco = LCO outer, inner left to the NIC; lco+sw = LCO, "
	       "then inner\n       completed in software (port without the "
	       "offload); full = inner completed\n       in software, then "
	       "the full outer sum. Not timed: flow parse, lookup, mbufs, TX.\n"
	       "Gbit/s: TCP payload one core would carry doing only this.\n\n");
	printf("%-15s %-8s %12s %12s %8s %8s\n", "case", "path", "cycles/pkt",
	       "cycles/send", "x lco", "Gbit/s");
	for (p = 0; p < P_MAX; p++)
		printf("%-15s %-8s %12.1f %12.1f %8.2f %8.1f\n",
		       p == 0 ? "(a) 1500 B" : "", path_name[p], pkt[p],
		       pkt[p], pkt[p] / pkt[P_LCO], gbps(hz, pkt[p], MSS));
	printf("%-15s %-8s %12.1f %12.1f %8s %8.1f\n", "(b) 64 KB TSO",
	       "seg only", tso[P_MAX] / TSO_SEGS, tso[P_MAX], "-",
	       gbps(hz, tso[P_MAX], TSO_PAYLOAD));
	for (p = 0; p < P_MAX; p++)
		printf("%-15s %-8s %12.1f %12.1f %8.2f %8.1f\n", "",
		       path_name[p], tso[p] / TSO_SEGS, tso[p],
		       tso[p] / tso[P_LCO], gbps(hz, tso[p], TSO_PAYLOAD));
	printf("\nfull/lco: (a) %.2f, (b) %.2f; full/(lco+sw): (a) %.2f, "
	       "(b) %.2f\n", pkt[P_FULL] / pkt[P_LCO], tso[P_FULL] / tso[P_LCO],
	       pkt[P_FULL] / pkt[P_LCO_SW], tso[P_FULL] / tso[P_LCO_SW]);
	return 0;
}
