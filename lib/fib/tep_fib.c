/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * VRF registry and next hops over DPDK's rte_fib/rte_fib6. Every function
 * here runs on the control thread; the workers only read tep_rib.vrf[] and
 * tep_rib.nh[] and call rte_fib*_lookup_bulk().
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_rib.h>
#include <rte_rib6.h>

#include "tep_fib.h"
#include "tep_fib_priv.h"
#include "tep_nhg.h"

static void
rcu_wait(struct tep_rib *r)
{
	if (r->rcu != NULL)
		rte_rcu_qsbr_synchronize(r->rcu, RTE_QSBR_THRID_INVALID);
}

void
tep_fib_rcu_wait(struct tep_rib *r)
{
	rcu_wait(r);
}

int
tep_rib_init(struct tep_rib *r, const struct tep_rib_conf *conf,
	     struct rte_rcu_qsbr *rcu, char *err, size_t errlen)
{
	struct rte_hash_parameters hp = {
		.name = "tep_nh_index",
		.entries = TEP_NH_MAX + 1,
		.key_len = sizeof(struct tep_nh),
		.hash_func = rte_jhash,
		.socket_id = conf->socket_id,
	};

	/* What rte_fib*_create() would refuse, refused here: later failures
	 * are then for memory (vrf_fib_fail). 2-byte next hops hold group
	 * numbers up to 32767. */
	if (conf->max_routes4 == 0 || conf->max_routes6 == 0 ||
	    conf->max_routes4 > INT32_MAX || conf->max_routes6 > INT32_MAX ||
	    conf->tbl8_4 == 0 || conf->tbl8_4 > 32767 ||
	    conf->tbl8_6 == 0 || conf->tbl8_6 > 32767)
		return fail(err, errlen, EINVAL, "FIB sizes out of range: "
			    "routes %u/%u (1 to %d), tbl8 groups %u/%u (1 to "
			    "32767)", conf->max_routes4, conf->max_routes6,
			    INT32_MAX, conf->tbl8_4, conf->tbl8_6);
	memset(r, 0, sizeof(*r));
	r->conf = *conf;
	r->rcu = rcu;
	r->nh_free_hint = 1;
	r->nh_index = rte_hash_create(&hp);
	if (r->nh_index == NULL)
		return fail(err, errlen, ENOMEM, "next-hop index: %s",
			    rte_strerror(rte_errno));
	return tep_vrf_add(r, "default", 0, err, errlen);
}

static size_t
heap_used(int socket_id)
{
	struct rte_malloc_socket_stats st;

	if (rte_malloc_get_socket_stats(socket_id, &st) != 0)
		return 0;
	return st.heap_allocsz_bytes;
}

void
tep_rib_fini(struct tep_rib *r)
{
	int i;

	for (i = 0; i < TEP_VRF_MAX; i++) {
		struct tep_vrf *v = r->vrf[i];

		if (v == NULL)
			continue;
		r->vrf[i] = NULL;
		rte_fib_free(v->fib4);
		rte_fib6_free(v->fib6);
		rte_free(v);
	}
	tep_nhg_fini(r);
	rte_hash_free(r->nh_index);
	r->nh_index = NULL;
}

int
tep_vrf_find(const struct tep_rib *r, const char *name)
{
	int i;

	for (i = 0; i < TEP_VRF_MAX; i++)
		if (r->vrf[i] != NULL && strcmp(r->vrf[i]->name, name) == 0)
			return i;
	return -1;
}

static struct rte_fib *
fib4_create(struct tep_rib *r)
{
	struct rte_fib_conf c4 = { 0 };
	char fname[32];

	c4.type = RTE_FIB_DIR24_8;
	c4.default_nh = TEP_NH_NONE;
	c4.max_routes = (int)r->conf.max_routes4;
	c4.dir24_8.nh_sz = RTE_FIB_DIR24_8_2B;
	c4.dir24_8.num_tbl8 = r->conf.tbl8_4;
	snprintf(fname, sizeof(fname), "tep4_%u", r->fib_seq++);
	return rte_fib_create(fname, r->conf.socket_id, &c4);
}

static struct rte_fib6 *
fib6_create(struct tep_rib *r)
{
	struct rte_fib6_conf c6 = { 0 };
	char fname[32];

	c6.type = RTE_FIB6_TRIE;
	c6.default_nh = TEP_NH_NONE;
	c6.max_routes = (int)r->conf.max_routes6;
	c6.trie.nh_sz = RTE_FIB6_TRIE_2B;
	c6.trie.num_tbl8 = r->conf.tbl8_6;
	snprintf(fname, sizeof(fname), "tep6_%u", r->fib_seq++);
	return rte_fib6_create(fname, r->conf.socket_id, &c6);
}

/*
 * What one VRF's two FIBs take from the DPDK heap, as rte_fib and rte_fib6
 * (22.11) allocate it with our configuration (2-byte next hops):
 * - DIR24_8: tbl24, 2^24 next hops; tbl8, 256 per group plus one spare
 *   group; a bitmap of the groups;
 * - TRIE: its own tbl24 and tbl8 the same way, and a 4-byte pool entry
 *   per group;
 * - each RIB: a mempool of max_routes nodes, 40 bytes (IPv4) and 56
 *   (IPv6) in 22.11's rte_rib.c/rte_rib6.c, cache-aligned by the pool.
 * A lower bound: 22.11 takes about 30% more (measured: 121 MiB for 93
 * here with the defaults); vrf_fib_fail() prefers what the default VRF's
 * FIBs were seen to take.
 */
static uint64_t
vrf_fib_bytes(const struct tep_rib_conf *c)
{
	struct rte_mempool_objsz sz;
	const uint64_t nh = 2, tbl24 = (1ull << 24) * nh;
	uint64_t b;

	b = tbl24 + (c->tbl8_4 + 1ull) * 256 * nh + (c->tbl8_4 + 63ull) / 8;
	b += tbl24 + (c->tbl8_6 + 1ull) * 256 * nh + c->tbl8_6 * 4ull;
	b += (uint64_t)c->max_routes4 * rte_mempool_calc_obj_size(40, 0, &sz);
	b += (uint64_t)c->max_routes6 * rte_mempool_calc_obj_size(56, 0, &sz);
	return b;
}

/*
 * rte_fib*_create() failed. Its rte_errno does not say why reliably: a
 * RIB mempool that cannot be populated leaves ENOENT, a trie table that
 * does not fit comes back as EINVAL (the cleanup overwrites the ENOMEM),
 * and the heap may look big enough afterwards, once the IPv4 FIB made
 * before is freed. With the configuration checked at tep_rib_init()
 * (2-byte next hops, tbl8 groups in range, unique names) what is left
 * to fail is memory; only a name clash (EEXIST) is told apart.
 */
static int
vrf_fib_fail(const struct tep_rib *r, const char *name, int e, char *err,
	     size_t errlen)
{
	struct rte_malloc_socket_stats st;
	uint64_t need = r->vrf_bytes != 0 ? r->vrf_bytes :
			vrf_fib_bytes(&r->conf);

	if (e == EEXIST)
		return fail(err, errlen, EEXIST, "vrf \"%s\": cannot create "
			    "its FIBs: %s", name, rte_strerror(e));
	memset(&st, 0, sizeof(st));
	rte_malloc_get_socket_stats(r->conf.socket_id, &st);
	return fail(err, errlen, ENOMEM,
		    "out of hugepage memory for VRF %s's FIB: %s%" PRIu64
		    " MiB needed, %zu MiB free (largest block %zu MiB); give "
		    "the EAL more (-m, --socket-mem) or tepd fewer routes "
		    "per VRF (-r)", name, r->vrf_bytes != 0 ? "" : "at least ",
		    (need + (1u << 20) - 1) >> 20,
		    st.heap_freesz_bytes >> 20, st.greatest_free_size >> 20);
}

int
tep_vrf_add(struct tep_rib *r, const char *name, uint32_t table,
	    char *err, size_t errlen)
{
	struct tep_vrf *v;
	int i, slot = -1;
	size_t used;

	if (name[0] == '\0' || strlen(name) >= TEP_VRF_NAME_MAX)
		return fail(err, errlen, EINVAL,
			    "vrf name must be 1-%d characters",
			    TEP_VRF_NAME_MAX - 1);
	if (tep_vrf_find(r, name) >= 0)
		return fail(err, errlen, EEXIST, "vrf \"%s\" exists", name);
	for (i = 0; i < TEP_VRF_MAX; i++) {
		if (r->vrf[i] == NULL) {
			if (slot < 0)
				slot = i;
		} else if (table != 0 && r->vrf[i]->table == table) {
			return fail(err, errlen, EEXIST,
				    "table %u is vrf \"%s\"'s", table,
				    r->vrf[i]->name);
		}
	}
	if (slot < 0)
		return fail(err, errlen, ENOSPC, "at most %d vrfs",
			    TEP_VRF_MAX);

	v = rte_zmalloc_socket("tep_vrf", sizeof(*v), 0, r->conf.socket_id);
	if (v == NULL)
		return fail(err, errlen, ENOMEM, "out of memory");
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->table = table ? table : (uint32_t)slot + 1000;
	v->id = (uint16_t)slot;

	used = heap_used(r->conf.socket_id);
	v->fib4 = fib4_create(r);
	v->fib6 = fib6_create(r);
	/* the first VRF (default) tells what the next ones will need */
	if (r->vrf_bytes == 0 && v->fib4 != NULL && v->fib6 != NULL &&
	    used != 0 && heap_used(r->conf.socket_id) > used)
		r->vrf_bytes = heap_used(r->conf.socket_id) - used;
	if (v->fib4 == NULL || v->fib6 == NULL) {
		int e = rte_errno;

		rte_fib_free(v->fib4);
		rte_fib6_free(v->fib6);
		rte_free(v);
		return vrf_fib_fail(r, name, e, err, errlen);
	}
	__atomic_store_n(&r->vrf[slot], v, __ATOMIC_RELEASE);
	return 0;
}

/* ---- next hops ---------------------------------------------------------- */

static uint32_t
nh_get(struct tep_rib *r, const struct tep_nh *nh)
{
	struct tep_nh key;
	uint32_t i, idx;
	void *data;

	memset(&key, 0, sizeof(key));
	key = *nh;
	/* a group slot refers to an existing group */
	if (key.type == TEP_NHT_GROUP && tep_nhg_get(r, key.tunnel) == NULL)
		return TEP_NH_NONE;
	if (rte_hash_lookup_data(r->nh_index, &key, &data) >= 0) {
		idx = (uint32_t)(uintptr_t)data;
		r->nh_ref[idx]++;
		return idx;
	}
	for (i = 0; i < TEP_NH_MAX; i++) {
		idx = 1 + (r->nh_free_hint - 1 + i) % TEP_NH_MAX;
		if (r->nh_ref[idx] == 0)
			break;
	}
	if (i == TEP_NH_MAX)
		return TEP_NH_NONE;
	if (rte_hash_add_key_data(r->nh_index, &key,
				  (void *)(uintptr_t)idx) < 0)
		return TEP_NH_NONE;
	/* The slot is unreferenced and a grace period has passed since it
	 * was (nh_put), so no reader can be looking at it. */
	r->nh[idx] = key;
	/* What the last occupant's owner kept here is not this one's. */
	__atomic_store_n(&r->nh_adj[idx], 0, __ATOMIC_RELAXED);
	r->nh_down[idx] = 0;
	if (key.type == TEP_NHT_GROUP)
		r->nhg[key.tunnel]->ref++;
	if (r->conf.nh_init != NULL)
		r->conf.nh_init(r, idx, r->conf.nh_init_arg);
	r->nh_ref[idx] = 1;
	r->nh_free_hint = idx % TEP_NH_MAX + 1;
	return idx;
}

static void
nh_put(struct tep_rib *r, uint32_t idx)
{
	if (idx == TEP_NH_NONE || idx > TEP_NH_MAX || r->nh_ref[idx] == 0)
		return;
	if (--r->nh_ref[idx] > 0)
		return;
	rte_hash_del_key(r->nh_index, &r->nh[idx]);
	if (r->nh[idx].type == TEP_NHT_GROUP)
		r->nhg[r->nh[idx].tunnel]->ref--;
	/* The FIB no longer returns idx; wait out readers that may have
	 * fetched it before the entry may be reused. */
	rcu_wait(r);
}

uint32_t
tep_nh_ref_get(struct tep_rib *r, const struct tep_nh *nh)
{
	return nh_get(r, nh);
}

void
tep_nh_ref_put(struct tep_rib *r, uint32_t idx)
{
	nh_put(r, idx);
}

uint32_t
tep_nh_lookup(const struct tep_rib *r, const struct tep_nh *nh)
{
	struct tep_nh key = *nh;
	void *data;

	if (rte_hash_lookup_data(r->nh_index, &key, &data) < 0)
		return TEP_NH_NONE;
	return (uint32_t)(uintptr_t)data;
}

/* A route's next hop that cannot be had: a missing group, or a full
 * table. */
static int
nh_get_fail(const struct tep_rib *r, const struct tep_nh *nh, char *err,
	    size_t errlen)
{
	if (nh->type == TEP_NHT_GROUP && tep_nhg_get(r, nh->tunnel) == NULL)
		return fail(err, errlen, ENOENT, "no next-hop group %u",
			    nh->tunnel);
	return fail(err, errlen, ENOSPC, "out of next hops (%u)",
		    TEP_NH_MAX);
}

uint32_t
tep_nh_users(const struct tep_rib *r, enum tep_nh_type type, uint32_t id)
{
	uint32_t i, n = 0;

	for (i = 1; i <= TEP_NH_MAX; i++) {
		const struct tep_nh *nh = &r->nh[i];

		if (r->nh_ref[i] == 0 || nh->type != type)
			continue;
		if ((type == TEP_NHT_TUNNEL && nh->tunnel == id) ||
		    (type != TEP_NHT_TUNNEL && nh->port == id))
			n += r->nh_ref[i];
	}
	return n;
}

/* ---- routes ------------------------------------------------------------- */

static struct tep_vrf *
vrf_get(struct tep_rib *r, uint16_t vrf, char *err, size_t errlen)
{
	if (vrf >= TEP_VRF_MAX || r->vrf[vrf] == NULL) {
		fail(err, errlen, ENOENT, "no vrf with id %u", vrf);
		return NULL;
	}
	return r->vrf[vrf];
}

static uint32_t
ip4_host(const uint8_t *a)
{
	return (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 |
	       (uint32_t)a[2] << 8 | a[3];
}

/* Does the prefix have host bits set? ("10.0.0.1/8" is a typo, refuse.) */
static bool
host_bits_set(int family, const uint8_t *a, uint8_t depth)
{
	int n = family == 4 ? 4 : 16, i;

	for (i = 0; i < n; i++) {
		int keep = (int)depth - i * 8;
		uint8_t mask = keep >= 8 ? 0xff : keep <= 0 ? 0 :
			       (uint8_t)(0xff << (8 - keep));

		if (a[i] & ~mask)
			return true;
	}
	return false;
}

/* Existing route's next hop, or -1 if there is no such exact route. */
static int64_t
route_exact(struct tep_vrf *v, int family, const uint8_t *a, uint8_t depth)
{
	uint64_t nh;

	if (family == 4) {
		struct rte_rib_node *n = rte_rib_lookup_exact(
			rte_fib_get_rib(v->fib4), ip4_host(a), depth);

		if (n == NULL || rte_rib_get_nh(n, &nh) < 0)
			return -1;
	} else {
		struct rte_rib6_node *n = rte_rib6_lookup_exact(
			rte_fib6_get_rib(v->fib6), a, depth);

		if (n == NULL || rte_rib6_get_nh(n, &nh) < 0)
			return -1;
	}
	return (int64_t)nh;
}

/* A fresh FIB of one family being filled from the VRF's routes. */
struct rebuild {
	const struct tep_rib *r;
	struct rte_fib *f4;
	struct rte_fib6 *f6;
	int err;
};

static void
rebuild_add(void *arg, int family, const uint8_t *pfx, uint8_t depth,
	    const struct tep_nh *nh)
{
	struct rebuild *b = arg;
	uint64_t idx = (uint64_t)(nh - b->r->nh);
	int ret;

	if (b->err != 0)
		return;
	ret = family == 4 ? rte_fib_add(b->f4, ip4_host(pfx), depth, idx) :
			    rte_fib6_add(b->f6, pfx, depth, idx);
	if (ret < 0)
		b->err = ret;
}

/*
 * DPDK 22.11 miscounts the tbl8 groups it reserves, in both families, so
 * that a table can refuse every route longer than /24 although it has
 * room:
 * - a route added with its covering route's next hop reserves nothing
 *   (its add returns early), but its delete gives back what it would have
 *   reserved: the count wraps below zero and stays "full" (IPv4 and IPv6;
 *   tepd shares next hops, so a /32 under a /24 to the same tunnel or
 *   blackhole is common);
 * - the IPv6 trie works out what a delete gives back with the route
 *   still in place, so its reservations mostly only grow.
 * The cure is a fresh table: built from the VRF's routes (the RIB is
 * right), published, the old one retired after a grace period.
 */
static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Route changes since the last rebuild that pay for the next one. */
#define REBUILD_CHANGES_MIN	64u
#define REBUILD_CHANGES_SHARE	8u	/* of the table's routes */

/* Nanoseconds until a rebuild of v's table of family f may run (0: now),
 * by the rules at conf.rebuild_gap. */
static uint64_t
rebuild_wait_ns(const struct tep_rib *r, const struct tep_vrf *v, int f,
		uint64_t now)
{
	uint32_t routes = f ? v->routes6 : v->routes4;
	uint64_t ready = v->fib_rebuilt_at[f] +
			 (uint64_t)r->conf.rebuild_gap * v->fib_rebuild_ns[f];

	if (r->conf.rebuild_gap == 0 || v->fib_rebuilds[f] == 0 ||
	    now >= ready ||
	    v->fib_changes[f] >= RTE_MAX(REBUILD_CHANGES_MIN,
					 routes / REBUILD_CHANGES_SHARE))
		return 0;
	return ready - now;
}

static int
fib_rebuild(struct tep_rib *r, struct tep_vrf *v, int family)
{
	struct rebuild b = { .r = r };
	int f = family == 6;
	uint64_t t0 = mono_ns();

	if (family == 4)
		b.f4 = fib4_create(r);
	else
		b.f6 = fib6_create(r);
	if (b.f4 == NULL && b.f6 == NULL)
		return -ENOMEM;
	tep_route_walk(r, v->id, family, rebuild_add, &b);
	if (b.err != 0) {
		rte_fib_free(b.f4);
		rte_fib6_free(b.f6);
		return -ENOSPC;
	}
	if (family == 4) {
		struct rte_fib *old = v->fib4;

		__atomic_store_n(&v->fib4, b.f4, __ATOMIC_RELEASE);
		rcu_wait(r);
		rte_fib_free(old);
	} else {
		struct rte_fib6 *old = v->fib6;

		__atomic_store_n(&v->fib6, b.f6, __ATOMIC_RELEASE);
		rcu_wait(r);
		rte_fib6_free(old);
	}
	v->fib_rebuilds[f]++;
	v->fib_fresh[f] = true;
	v->fib_rebuilt_at[f] = mono_ns();
	v->fib_rebuild_ns[f] = v->fib_rebuilt_at[f] - t0;
	v->fib_changes[f] = 0;
	return 0;
}

/*
 * Point prefix addr/depth of VRF v at next hop idx (a new prefix, or one
 * rewritten in place). On failure the reference to idx is given back and
 * the error is said in err.
 */
static int
fib_write(struct tep_rib *r, struct tep_vrf *v, int family,
	  const uint8_t *addr, uint8_t depth, uint32_t idx, char *err,
	  size_t errlen)
{
	int f = family == 6, rb = 0, ret;
	uint64_t wait = 0;

	ret = family == 4 ? rte_fib_add(v->fib4, ip4_host(addr), depth, idx) :
			    rte_fib6_add(v->fib6, addr, depth, idx);
	/* A table just rebuilt from unchanged routes is full for real:
	 * rebuilding it again for every refused route (a table's worth of
	 * adds each) would only cost time. Nor is one rebuilt again soon
	 * after the last (churn at capacity: delete one, add one). */
	if (ret == -ENOSPC && !v->fib_fresh[f])
		wait = rebuild_wait_ns(r, v, f, mono_ns());
	if (ret == -ENOSPC && !v->fib_fresh[f] && wait == 0) {
		rb = fib_rebuild(r, v, family);
		if (rb == 0)
			ret = family == 4 ?
			      rte_fib_add(v->fib4, ip4_host(addr), depth, idx) :
			      rte_fib6_add(v->fib6, addr, depth, idx);
	}
	if (ret >= 0) {
		v->fib_fresh[f] = false;
		v->fib_changes[f]++;
		return 0;
	}
	nh_put(r, idx);
	if (wait != 0) {
		v->fib_rebuilds_deferred[f]++;
		return fail(err, errlen, ENOSPC, "vrf \"%s\": FIB full; the "
			    "IPv%d table may have room after a rebuild, but "
			    "the last one (%" PRIu64 " ms) was too recent: "
			    "the next in %" PRIu64 " ms", v->name, family,
			    v->fib_rebuild_ns[f] / 1000000,
			    (wait + 999999) / 1000000);
	}
	if (rb == -ENOMEM)
		return fail(err, errlen, ENOSPC, "vrf \"%s\": FIB full, and "
			    "no memory for the fresh IPv%d table that may have "
			    "room (give the EAL more: -m, --socket-mem)",
			    v->name, family);
	return fail(err, errlen, -ret == ENOSPC ? ENOSPC : -ret,
		    "vrf \"%s\": %s", v->name,
		    -ret == ENOSPC ? "FIB full (routes or tbl8 groups)" :
				     strerror(-ret));
}

int
tep_route_add(struct tep_rib *r, uint16_t vrf, int family,
	      const uint8_t *addr, uint8_t depth, const struct tep_nh *nh,
	      char *err, size_t errlen)
{
	struct tep_vrf *v = vrf_get(r, vrf, err, errlen);
	uint32_t idx;
	int ret;

	if (v == NULL)
		return ENOENT;
	if ((family == 4 && depth > 32) || (family == 6 && depth > 128))
		return fail(err, errlen, EINVAL, "prefix length %u too long",
			    depth);
	if (host_bits_set(family, addr, depth))
		return fail(err, errlen, EINVAL,
			    "prefix has host bits set beyond /%u", depth);
	if (route_exact(v, family, addr, depth) >= 0)
		return fail(err, errlen, EEXIST,
			    "route exists in vrf \"%s\"", v->name);
	idx = nh_get(r, nh);
	if (idx == TEP_NH_NONE)
		return nh_get_fail(r, nh, err, errlen);
	ret = fib_write(r, v, family, addr, depth, idx, err, errlen);
	if (ret != 0)
		return ret;
	if (family == 4)
		v->routes4++;
	else
		v->routes6++;
	return 0;
}

int
tep_route_replace(struct tep_rib *r, uint16_t vrf, int family,
		  const uint8_t *addr, uint8_t depth, const struct tep_nh *nh,
		  char *err, size_t errlen)
{
	struct tep_vrf *v = vrf_get(r, vrf, err, errlen);
	int64_t old;
	uint32_t idx;
	int ret;

	if (v == NULL)
		return ENOENT;
	old = route_exact(v, family, addr, depth);
	if (old < 0)
		return tep_route_add(r, vrf, family, addr, depth, nh, err,
				     errlen);
	idx = nh_get(r, nh);
	if (idx == TEP_NH_NONE)
		return nh_get_fail(r, nh, err, errlen);
	if (idx == (uint32_t)old) {
		/* same next hop: nothing changes, drop the extra reference */
		nh_put(r, idx);
		return 0;
	}
	/* rte_fib_add on an existing prefix rewrites its entries in place */
	ret = fib_write(r, v, family, addr, depth, idx, err, errlen);
	if (ret != 0)
		return ret;
	nh_put(r, (uint32_t)old);
	return 0;
}

const struct tep_nh *
tep_route_exact(struct tep_rib *r, uint16_t vrf, int family,
		const uint8_t *addr, uint8_t depth)
{
	struct tep_vrf *v = vrf < TEP_VRF_MAX ? r->vrf[vrf] : NULL;
	int64_t idx;

	if (v == NULL || (family == 4 && depth > 32) || depth > 128)
		return NULL;
	idx = route_exact(v, family, addr, depth);
	return idx <= 0 ? NULL : &r->nh[idx];
}

int
tep_route_del(struct tep_rib *r, uint16_t vrf, int family,
	      const uint8_t *addr, uint8_t depth, char *err, size_t errlen)
{
	struct tep_vrf *v = vrf_get(r, vrf, err, errlen);
	int64_t idx;
	int ret;

	if (v == NULL)
		return ENOENT;
	idx = route_exact(v, family, addr, depth);
	if (idx < 0)
		return fail(err, errlen, ENOENT, "no such route in vrf \"%s\"",
			    v->name);
	if (family == 4)
		ret = rte_fib_delete(v->fib4, ip4_host(addr), depth);
	else
		ret = rte_fib6_delete(v->fib6, addr, depth);
	if (ret < 0)
		return fail(err, errlen, -ret, "vrf \"%s\": delete: %s",
			    v->name, strerror(-ret));
	if (family == 4)
		v->routes4--;
	else
		v->routes6--;
	v->fib_fresh[family == 6] = false;
	v->fib_changes[family == 6]++;
	nh_put(r, (uint32_t)idx);
	return 0;
}

uint32_t
tep_route_get(struct tep_rib *r, uint16_t vrf, int family,
	      const uint8_t *addr, uint8_t *pfx, uint8_t *depth)
{
	struct tep_vrf *v = vrf_get(r, vrf, NULL, 0);
	uint64_t nh = TEP_NH_NONE;

	if (v == NULL)
		return TEP_NH_NONE;
	if (family == 4) {
		struct rte_rib_node *n = rte_rib_lookup(rte_fib_get_rib(v->fib4),
							ip4_host(addr));
		uint32_t ip;

		if (n == NULL)
			return TEP_NH_NONE;
		rte_rib_get_nh(n, &nh);
		rte_rib_get_ip(n, &ip);
		rte_rib_get_depth(n, depth);
		pfx[0] = ip >> 24;
		pfx[1] = (ip >> 16) & 0xff;
		pfx[2] = (ip >> 8) & 0xff;
		pfx[3] = ip & 0xff;
	} else {
		struct rte_rib6_node *n = rte_rib6_lookup(
			rte_fib6_get_rib(v->fib6), addr);

		if (n == NULL)
			return TEP_NH_NONE;
		rte_rib6_get_nh(n, &nh);
		rte_rib6_get_ip(n, pfx);
		rte_rib6_get_depth(n, depth);
	}
	return (uint32_t)nh;
}

/* Where a ranged walk is: routes passed (pos) and given to cb (seen). */
struct walk_pos {
	uint64_t pos, seen, skip, max;
};

/* Is the next route of the walk one to give to cb? False for a skipped
 * one (only counted) and once max were given. */
static inline bool
walk_take(struct walk_pos *w)
{
	if (w->seen == w->max)
		return false;
	if (w->pos++ < w->skip)
		return false;
	w->seen++;
	return true;
}

/* RIB node n's prefix (bytes, network order), length and next hop. */
static uint64_t
key4(const struct rte_rib_node *n, uint8_t a[4], uint8_t *depth)
{
	uint64_t nh;
	uint32_t ip;

	rte_rib_get_ip(n, &ip);
	rte_rib_get_depth(n, depth);
	rte_rib_get_nh(n, &nh);
	a[0] = ip >> 24;
	a[1] = (ip >> 16) & 0xff;
	a[2] = (ip >> 8) & 0xff;
	a[3] = ip & 0xff;
	return nh;
}

static uint64_t
key6(const struct rte_rib6_node *n, uint8_t a[16], uint8_t *depth)
{
	uint64_t nh;

	rte_rib6_get_ip(n, a);
	rte_rib6_get_depth(n, depth);
	rte_rib6_get_nh(n, &nh);
	return nh;
}

/* Route n of the RIB to cb. */
static void
give4(const struct tep_rib *r, const struct rte_rib_node *n, tep_route_cb cb,
      void *arg)
{
	uint8_t a[4], depth;
	uint64_t nh = key4(n, a, &depth);

	cb(arg, 4, a, depth, &r->nh[nh]);
}

static void
give6(const struct tep_rib *r, const struct rte_rib6_node *n, tep_route_cb cb,
      void *arg)
{
	uint8_t a[16], depth;
	uint64_t nh = key6(n, a, &depth);

	cb(arg, 6, a, depth, &r->nh[nh]);
}

/*
 * The routes of a family's RIB after node n, in the walk's order (NULL:
 * from the first after the default route, which get_nxt() does not
 * return and the walk gives first), as w takes them.
 */
static void
walk_after4(struct tep_rib *r, struct rte_rib *rib, struct rte_rib_node *n,
	    struct walk_pos *w, tep_route_cb cb, void *arg)
{
	while (w->seen < w->max &&
	       (n = rte_rib_get_nxt(rib, 0, 0, n, RTE_RIB_GET_NXT_ALL)) != NULL)
		if (walk_take(w))
			give4(r, n, cb, arg);
}

static void
walk_after6(struct tep_rib *r, struct rte_rib6 *rib, struct rte_rib6_node *n,
	    struct walk_pos *w, tep_route_cb cb, void *arg)
{
	uint8_t zero[16] = { 0 };

	while (w->seen < w->max &&
	       (n = rte_rib6_get_nxt(rib, zero, 0, n,
				     RTE_RIB6_GET_NXT_ALL)) != NULL)
		if (walk_take(w))
			give6(r, n, cb, arg);
}

uint64_t
tep_route_walk_range(struct tep_rib *r, uint16_t vrf, int family,
		     uint64_t skip, uint64_t max, tep_route_cb cb, void *arg)
{
	struct tep_vrf *v = vrf_get(r, vrf, NULL, 0);
	struct walk_pos w = { .skip = skip, .max = max };
	uint8_t zero[16] = { 0 };
	uint64_t nh;

	/* The trie's order is stable while it is not changed: a listing in
	 * pieces may resume by position; a skipped route costs a step of
	 * the walk but no callback. */
	if (v == NULL)
		return 0;
	if (family == 4) {
		struct rte_rib *rib = rte_fib_get_rib(v->fib4);
		struct rte_rib_node *n = rte_rib_lookup_exact(rib, 0, 0);

		if (n != NULL && walk_take(&w)) {
			rte_rib_get_nh(n, &nh);
			cb(arg, 4, zero, 0, &r->nh[nh]);
		}
		walk_after4(r, rib, NULL, &w, cb, arg);
	} else {
		struct rte_rib6 *rib = rte_fib6_get_rib(v->fib6);
		struct rte_rib6_node *n = rte_rib6_lookup_exact(rib, zero, 0);

		if (n != NULL && walk_take(&w)) {
			rte_rib6_get_nh(n, &nh);
			cb(arg, 6, zero, 0, &r->nh[nh]);
		}
		walk_after6(r, rib, NULL, &w, cb, arg);
	}
	return w.seen;
}

/* A walk in pieces: the caller's callback, and the cursor that keeps the
 * last route given. */
struct walk_rec {
	tep_route_cb cb;
	void *arg;
	struct tep_walk_cursor *c;
};

static void
walk_rec_cb(void *arg, int family, const uint8_t *pfx, uint8_t depth,
	    const struct tep_nh *nh)
{
	struct walk_rec *w = arg;

	memcpy(w->c->pfx, pfx, family == 4 ? 4 : 16);
	w->c->depth = depth;
	w->cb(w->arg, family, pfx, depth, nh);
}

/*
 * Does route a/alen come after b/blen in the walk? The walk gives the
 * default route first, then the RIB's order (rte_rib_get_nxt(): the trie
 * in post-order): the 0 branch before the 1 branch, and a prefix after
 * every route within it.
 */
static bool
walk_key_after(const uint8_t *a, uint8_t alen, const uint8_t *b, uint8_t blen)
{
	unsigned int i, n = RTE_MIN(alen, blen);

	if (alen == 0 || blen == 0)
		return blen == 0 && alen != 0;
	for (i = 0; i < n; i++) {
		unsigned int x = (a[i / 8] >> (7 - i % 8)) & 1;
		unsigned int y = (b[i / 8] >> (7 - i % 8)) & 1;

		if (x != y)
			return x > y;
	}
	return alen < blen;
}

/* The first route of the RIB's order after pfx/depth (which is not in
 * it): a scan, for the rare piece whose last route was deleted. */
static struct rte_rib_node *
first_after4(struct rte_rib *rib, const uint8_t *pfx, uint8_t depth)
{
	struct rte_rib_node *n = NULL;
	uint8_t a[4], d;

	while ((n = rte_rib_get_nxt(rib, 0, 0, n, RTE_RIB_GET_NXT_ALL)) != NULL) {
		key4(n, a, &d);
		if (walk_key_after(a, d, pfx, depth))
			return n;
	}
	return NULL;
}

static struct rte_rib6_node *
first_after6(struct rte_rib6 *rib, const uint8_t *pfx, uint8_t depth)
{
	struct rte_rib6_node *n = NULL;
	uint8_t zero[16] = { 0 }, a[16], d;

	while ((n = rte_rib6_get_nxt(rib, zero, 0, n,
				     RTE_RIB6_GET_NXT_ALL)) != NULL) {
		key6(n, a, &d);
		if (walk_key_after(a, d, pfx, depth))
			return n;
	}
	return NULL;
}

uint64_t
tep_route_walk_next(struct tep_rib *r, uint16_t vrf, int family,
		    struct tep_walk_cursor *c, uint64_t max, tep_route_cb cb,
		    void *arg)
{
	struct tep_vrf *v = vrf_get(r, vrf, NULL, 0);
	struct walk_rec rec = { .cb = cb, .arg = arg, .c = c };
	struct walk_pos w = { .max = max };

	if (v == NULL)
		return 0;
	if (c->pos == 0) {
		w.seen = tep_route_walk_range(r, vrf, family, 0, max,
					      walk_rec_cb, &rec);
		c->pos += w.seen;
		return w.seen;
	}
	/*
	 * Resume after the last route given (after the default route: from
	 * get_nxt()'s first, which is not it). If that route is gone, from
	 * the first route after the place it had.
	 */
	if (family == 4) {
		struct rte_rib *rib = rte_fib_get_rib(v->fib4);
		struct rte_rib_node *n =
			rte_rib_lookup_exact(rib, ip4_host(c->pfx), c->depth);

		if (n == NULL) {
			n = first_after4(rib, c->pfx, c->depth);
			if (n == NULL)
				return 0;
			if (walk_take(&w))
				give4(r, n, walk_rec_cb, &rec);
		} else if (c->depth == 0) {
			n = NULL;
		}
		walk_after4(r, rib, n, &w, walk_rec_cb, &rec);
	} else {
		struct rte_rib6 *rib = rte_fib6_get_rib(v->fib6);
		struct rte_rib6_node *n =
			rte_rib6_lookup_exact(rib, c->pfx, c->depth);

		if (n == NULL) {
			n = first_after6(rib, c->pfx, c->depth);
			if (n == NULL)
				return 0;
			if (walk_take(&w))
				give6(r, n, walk_rec_cb, &rec);
		} else if (c->depth == 0) {
			n = NULL;
		}
		walk_after6(r, rib, n, &w, walk_rec_cb, &rec);
	}
	c->pos += w.seen;
	return w.seen;
}

void
tep_route_walk(struct tep_rib *r, uint16_t vrf, int family, tep_route_cb cb,
	       void *arg)
{
	tep_route_walk_range(r, vrf, family, 0, UINT64_MAX, cb, arg);
}

struct flush_ctx {
	const struct tep_rib *rib;
	uint32_t idx;		/* next hop to match, or 0 for any */
	int n;
	struct {
		int family;
		uint8_t a[16];
		uint8_t depth;
		uint32_t nh;
	} hit[64];
};

static void
collect(void *arg, int family, const uint8_t *pfx, uint8_t depth,
	const struct tep_nh *nh)
{
	struct flush_ctx *f = arg;
	uint32_t idx = (uint32_t)(nh - f->rib->nh);

	if ((f->idx != 0 && idx != f->idx) || f->n >= (int)RTE_DIM(f->hit))
		return;
	f->hit[f->n].family = family;
	memcpy(f->hit[f->n].a, pfx, family == 4 ? 4 : 16);
	f->hit[f->n].depth = depth;
	f->hit[f->n].nh = idx;
	f->n++;
}

void
tep_route_flush_nh(struct tep_rib *r, const struct tep_nh *match)
{
	struct flush_ctx f = { .rib = r };
	struct tep_nh key = *match;
	void *data;
	int vrf, fam, i;

	if (rte_hash_lookup_data(r->nh_index, &key, &data) < 0)
		return;
	f.idx = (uint32_t)(uintptr_t)data;
	for (vrf = 0; vrf < TEP_VRF_MAX; vrf++) {
		for (fam = 4; fam <= 6 && r->vrf[vrf] != NULL; fam += 2) {
			/* Collect a batch, delete it, until none is left. */
			do {
				f.n = 0;
				tep_route_walk(r, (uint16_t)vrf, fam, collect,
					       &f);
				for (i = 0; i < f.n; i++)
					tep_route_del(r, (uint16_t)vrf, fam,
						      f.hit[i].a,
						      f.hit[i].depth, NULL, 0);
			} while (f.n == (int)RTE_DIM(f.hit));
		}
	}
}

int
tep_vrf_del(struct tep_rib *r, uint16_t id, char *err, size_t errlen)
{
	struct flush_ctx f = { .rib = r, .idx = 0 };
	struct tep_vrf *v;
	int fam, i;

	if (id == TEP_VRF_DEFAULT)
		return fail(err, errlen, EPERM,
			    "the default vrf cannot be deleted");
	v = vrf_get(r, id, err, errlen);
	if (v == NULL)
		return ENOENT;
	/* Drop the routes first so their next hops are released. */
	for (fam = 4; fam <= 6; fam += 2) {
		do {
			f.n = 0;
			tep_route_walk(r, id, fam, collect, &f);
			for (i = 0; i < f.n; i++)
				tep_route_del(r, id, fam, f.hit[i].a,
					      f.hit[i].depth, NULL, 0);
		} while (f.n == (int)RTE_DIM(f.hit));
	}
	__atomic_store_n(&r->vrf[id], NULL, __ATOMIC_RELEASE);
	rcu_wait(r);
	rte_fib_free(v->fib4);
	rte_fib6_free(v->fib6);
	rte_free(v);
	return 0;
}
