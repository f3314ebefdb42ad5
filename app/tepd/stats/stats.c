/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

#include <assert.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "tepd.h"
#include "stats.h"

struct tep_lcore_cnt *tep_counters[RTE_MAX_LCORE];

/*
 * Counters are per lcore and written only by their lcore; readers sum them
 * (a torn 64-bit read cannot happen on the 64-bit targets DPDK supports).
 *
 * Two views of the same sums:
 * - raw: everything since tepd started, never going back (a worker's
 *   counter only grows). /metrics and DPDK telemetry (/tepd/) read these:
 *   a monitoring system computes rates and must not see a counter fall.
 * - since clear: raw minus the sums "stats clear" recorded. tepctl reads
 *   these. Clearing writes nothing a worker writes (it used to memset the
 *   workers' counters while they incremented them, and lost increments).
 * The baseline is the control thread's alone: "stats clear", "stats" and
 * tunnel creation all run there.
 */

/* Every counter struct is a run of uint64_t and nothing else, so one loop
 * sums or subtracts any of them, and a field added later is not missed. */
static_assert(sizeof(struct tep_cnt_port) % sizeof(uint64_t) == 0, "u64s");
static_assert(sizeof(struct tep_cnt_vrf) % sizeof(uint64_t) == 0, "u64s");
static_assert(sizeof(struct tep_cnt_tun) % sizeof(uint64_t) == 0, "u64s");
#define N_U64(s)	(sizeof(s) / sizeof(uint64_t))

static struct {
	struct tep_cnt_port port[TEP_PORTS_MAX + 1];	/* + TEP_PORT_CTL */
	struct tep_cnt_vrf vrf[TEP_VRF_MAX];
	struct tep_cnt_tun tun[TEP_TUNNELS_MAX];
	uint64_t stage_cycles[TEP_ST_MAX];
	uint64_t stage_pkts[TEP_ST_MAX];
} base;

static void
add_u64s(uint64_t *dst, const volatile uint64_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] += src[i];
}

/* dst -= base, field by field. A field below its baseline was reset under
 * it (a tunnel id reused): it then counts from that reset. */
static void
sub_u64s(uint64_t *dst, const uint64_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (dst[i] >= b[i])
			dst[i] -= b[i];
}

void
tep_cnt_raw_port(uint16_t port, struct tep_cnt_port *out)
{
	unsigned int lc;

	memset(out, 0, sizeof(*out));
	RTE_LCORE_FOREACH(lc)
		add_u64s((uint64_t *)out,
			 (const uint64_t *)&tep_counters[lc]->port[port],
			 N_U64(*out));
}

void
tep_cnt_raw_vrf(uint16_t vrf, struct tep_cnt_vrf *out)
{
	unsigned int lc;

	memset(out, 0, sizeof(*out));
	RTE_LCORE_FOREACH(lc)
		add_u64s((uint64_t *)out,
			 (const uint64_t *)&tep_counters[lc]->vrf[vrf],
			 N_U64(*out));
}

void
tep_cnt_raw_tun(uint32_t id, struct tep_cnt_tun *out)
{
	unsigned int lc;

	memset(out, 0, sizeof(*out));
	RTE_LCORE_FOREACH(lc)
		add_u64s((uint64_t *)out,
			 (const uint64_t *)&tep_counters[lc]->tun[id],
			 N_U64(*out));
}

void
tep_cnt_sum_port(uint16_t port, struct tep_cnt_port *out)
{
	tep_cnt_raw_port(port, out);
	sub_u64s((uint64_t *)out, (const uint64_t *)&base.port[port],
		 N_U64(*out));
}

void
tep_cnt_sum_vrf(uint16_t vrf, struct tep_cnt_vrf *out)
{
	tep_cnt_raw_vrf(vrf, out);
	sub_u64s((uint64_t *)out, (const uint64_t *)&base.vrf[vrf],
		 N_U64(*out));
}

void
tep_cnt_sum_tun(uint32_t id, struct tep_cnt_tun *out)
{
	tep_cnt_raw_tun(id, out);
	sub_u64s((uint64_t *)out, (const uint64_t *)&base.tun[id],
		 N_U64(*out));
}

void
tep_cnt_raw_stages(uint64_t *cycles, uint64_t *pkts)
{
	unsigned int lc;
	int s;

	for (s = 0; s < TEP_ST_MAX; s++) {
		cycles[s] = 0;
		pkts[s] = 0;
		RTE_LCORE_FOREACH(lc) {
			cycles[s] += tep_counters[lc]->stage_cycles[s];
			pkts[s] += tep_counters[lc]->stage_pkts[s];
		}
	}
}

void
tep_cnt_sum_stages(uint64_t *cycles, uint64_t *pkts)
{
	tep_cnt_raw_stages(cycles, pkts);
	sub_u64s(cycles, base.stage_cycles, TEP_ST_MAX);
	sub_u64s(pkts, base.stage_pkts, TEP_ST_MAX);
}

/* "stats clear": remember where every counter is; tepctl counts from here. */
void
tep_cnt_clear(void)
{
	uint32_t i;

	for (i = 0; i <= TEP_PORT_CTL; i++)
		tep_cnt_raw_port((uint16_t)i, &base.port[i]);
	for (i = 0; i < TEP_VRF_MAX; i++)
		tep_cnt_raw_vrf((uint16_t)i, &base.vrf[i]);
	for (i = 0; i < TEP_TUNNELS_MAX; i++)
		tep_cnt_raw_tun(i, &base.tun[i]);
	tep_cnt_raw_stages(base.stage_cycles, base.stage_pkts);
}

/*
 * A new tunnel in a slot a deleted one had: its counters start at zero.
 * Workers stopped writing them when the old tunnel's grace period ended,
 * so the control thread may write them here.
 */
void
tep_cnt_tun_reset(uint32_t id)
{
	unsigned int lc;

	RTE_LCORE_FOREACH(lc)
		memset(&tep_counters[lc]->tun[id], 0, sizeof(tep_counters[lc]->tun[id]));
	memset(&base.tun[id], 0, sizeof(base.tun[id]));
}

const char *
tep_stage_name(enum tep_stage s)
{
	static const char *const names[TEP_ST_MAX] = {
		"classify", "lookup", "encap", "inner", "txprep" };

	return s < TEP_ST_MAX ? names[s] : "?";
}
