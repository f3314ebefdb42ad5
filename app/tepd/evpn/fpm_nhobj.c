/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * zebra's next-hop objects (RTM_NEWNEXTHOP / RTM_DELNEXTHOP, sent with
 * `fpm use-next-hop-groups`, FRR's default): kept in lib/fpm's table
 * (tep_fpm_nhtab), and the routes that came naming only an object
 * (RTA_NH_ID) remembered by prefix with the object's id, because zebra
 * then says no more about them when the object changes: it replaces the
 * object (RTM_NEWNEXTHOP with the same id) and every route through it
 * must follow, as the kernel's do; it deletes the object, and the routes
 * through it go, as the kernel deletes them. docs/evpn.md has the rules.
 *
 * A route's next hop itself is made by fpm_routes.c's route_add() from
 * the object's paths, like a multipath route's; here is only who uses
 * which object. Control thread only.
 */

#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_lcore.h>

#include "tep_fpm.h"

#include "fpm_priv.h"

struct tep_fpm_nhtab nhtab;
static struct tep_fpm_nhent *nhent;
static unsigned int refusals_logged;

/* A route by object, found by prefix. */
struct nhobj_key {
	uint16_t vrf;
	uint8_t family, plen;
	uint8_t prefix[16];	/* past the family's length: zero */
};

struct nhobj_route {
	struct nhobj_key k;
	uint32_t nh_id;
	uint32_t gen;		/* the connection that sent the route */
	/* what route_add() judges a route by besides its paths */
	uint8_t protocol;
	uint32_t rtm_flags;
};

/* What follows an object's replacement or deletion: fpm_routes.c's
 * route_add() and route_forget(), registered by fpm.c
 * (nhobj_on_change()) so that the routes' file and this one do not call
 * each other. */
static void (*follow_add)(const struct tep_fpm_route *rt, int vrf);
static bool (*follow_forget)(uint16_t vrf, int family, const uint8_t *a,
			     uint8_t plen);

void
nhobj_on_change(void (*add)(const struct tep_fpm_route *rt, int vrf),
		bool (*forget)(uint16_t vrf, int family, const uint8_t *a,
			       uint8_t plen))
{
	follow_add = add;
	follow_forget = forget;
}

/* Dense, so that following an object is a scan of the routes by object
 * only; the hash holds each one's index. */
static struct rte_hash *rec_index;
static struct nhobj_route *rec;
static uint32_t nrec;

int
nhobj_init(char *err, size_t errlen)
{
	struct rte_hash_parameters hp = {
		.name = "fpm_nhobj_routes",
		.entries = FPM_NHOBJ_ROUTES,
		.key_len = sizeof(struct nhobj_key),
		.socket_id = (int)rte_socket_id(),
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};

	if (rec_index != NULL)
		return 0;
	nhent = calloc(FPM_NHOBJ_MAX, sizeof(*nhent));
	rec = calloc(FPM_NHOBJ_ROUTES, sizeof(*rec));
	rec_index = nhent != NULL && rec != NULL ? rte_hash_create(&hp) : NULL;
	if (rec_index == NULL) {
		snprintf(err, errlen, "-P: next-hop objects: %s",
			 nhent == NULL || rec == NULL ? "out of memory" :
			 rte_strerror(rte_errno));
		free(nhent);
		free(rec);
		nhent = NULL;
		rec = NULL;
		return -1;
	}
	tep_fpm_nhtab_init(&nhtab, nhent, FPM_NHOBJ_MAX);
	return 0;
}

/*
 * A new connection. zebra sends every object it has before its routes
 * (dplane_fpm_nl's replay), and a zebra that restarted numbers them
 * anew: the old ones mean nothing now. Routes installed through them
 * stay until the replay refreshes or the sweep removes them; they no
 * longer follow an object (nhobj_add() follows this connection's only).
 */
void
nhobj_reset(void)
{
	if (nhent != NULL)
		tep_fpm_nhtab_init(&nhtab, nhent, FPM_NHOBJ_MAX);
	refusals_logged = 0;
}

uint32_t
nhobj_count(void)
{
	return nhtab.n;
}

uint32_t
nhobj_route_count(void)
{
	return nrec;
}

static void
key_of(struct nhobj_key *k, uint16_t vrf, int family, const uint8_t *a,
       uint8_t plen)
{
	memset(k, 0, sizeof(*k));
	k->vrf = vrf;
	k->family = (uint8_t)family;
	k->plen = plen;
	memcpy(k->prefix, a, family == 4 ? 4 : 16);
}

bool
nhobj_route_set(const struct tep_fpm_route *rt, uint16_t vrf)
{
	struct nhobj_key k;
	struct nhobj_route *r;
	void *data;

	if (rec_index == NULL)
		return false;
	key_of(&k, vrf, family_of(rt->family), rt->prefix, rt->plen);
	if (rte_hash_lookup_data(rec_index, &k, &data) >= 0) {
		r = &rec[(uintptr_t)data];
	} else {
		if (nrec == FPM_NHOBJ_ROUTES ||
		    rte_hash_add_key_data(rec_index, &k,
					  (void *)(uintptr_t)nrec) < 0) {
			if (fpm.c.nh_obj_routes_full == 0)
				fprintf(stderr, "tepd: fpm: %u routes by "
					"next-hop object already: more are not "
					"installed (counted in "
					"fpm_nh_obj_routes_full; logged once)\n",
					nrec);
			return false;
		}
		r = &rec[nrec++];
		r->k = k;
	}
	r->nh_id = rt->nh_id;
	r->gen = fpm.gen;
	r->protocol = rt->protocol;
	r->rtm_flags = rt->rtm_flags;
	return true;
}

static void
rec_remove(uint32_t i)
{
	rte_hash_del_key(rec_index, &rec[i].k);
	if (i != --nrec) {
		rec[i] = rec[nrec];
		/* an existing key: its index updated in place */
		rte_hash_add_key_data(rec_index, &rec[i].k,
				      (void *)(uintptr_t)i);
	}
}

void
nhobj_route_clear(uint16_t vrf, int family, const uint8_t *a, uint8_t plen)
{
	struct nhobj_key k;
	void *data;

	if (nrec == 0)
		return;
	key_of(&k, vrf, family, a, plen);
	if (rte_hash_lookup_data(rec_index, &k, &data) >= 0)
		rec_remove((uint32_t)(uintptr_t)data);
}

void
nhobj_routes_sweep(bool all)
{
	uint32_t i = nrec;

	while (i-- > 0) {
		const struct nhobj_route *r = &rec[i];
		const struct tep_nh *nh;

		if (!all && r->gen == fpm.gen)
			continue;
		/* an older route still installed (BGP's, held for the
		 * stale time) keeps its entry until it goes */
		nh = tep_route_exact(&tep_rib, r->k.vrf, r->k.family,
				     r->k.prefix, r->k.plen);
		if (!all && nh != NULL && nh->proto == TEP_PROTO_FPM &&
		    nh->gen == r->gen)
			continue;
		rec_remove(i);
	}
}

static void
refused(uint32_t id, int err, const char *what)
{
	fpm.c.nh_objs_refused++;
	if (refusals_logged > FPM_NHOBJ_LOGGED)
		return;
	if (refusals_logged++ == FPM_NHOBJ_LOGGED)
		fprintf(stderr, "tepd: fpm: %d next-hop objects refused on "
			"this connection: more are counted, not logged\n",
			FPM_NHOBJ_LOGGED);
	else
		fprintf(stderr, "tepd: fpm: next-hop object %u: %s refused: "
			"%s (counted in fpm_nh_objs_refused; nothing "
			"changed)\n", id, what, tep_fpm_err_str(err));
}

/* Is route r's object one of ids[0..n) (sorted)? */
static bool
id_in(uint32_t id, const uint32_t *ids, unsigned int n)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (ids[mid] == id)
			return true;
		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The routes of this connection through object id, or through a group
 * that has it as a member: their keys, in a malloc'd array (*n of them).
 * Collected first: installing a route may change the records.
 */
static struct nhobj_route *
routes_through(uint32_t id, bool members_too, uint32_t *n)
{
	uint32_t *ids, i, j, nids = 0;
	struct nhobj_route *out;

	*n = 0;
	if (nrec == 0)
		return NULL;
	ids = malloc((nhtab.n + 1) * sizeof(*ids));
	out = malloc(nrec * sizeof(*out));
	if (ids == NULL || out == NULL) {
		free(ids);
		free(out);
		fprintf(stderr, "tepd: fpm: out of memory: routes through "
			"next-hop object %u not followed\n", id);
		return NULL;
	}
	ids[nids++] = id;
	for (i = 0; members_too && i < nhtab.n; i++) {
		const struct tep_fpm_nhobj *o = &nhtab.ent[i].obj;

		for (j = 0; o->is_group && j < o->ngroup; j++)
			if (o->group[j].id == id) {
				ids[nids++] = o->id;
				break;
			}
	}
	qsort(ids, nids, sizeof(*ids), cmp_u32);
	for (i = 0; i < nrec; i++)
		if (rec[i].gen == fpm.gen && id_in(rec[i].nh_id, ids, nids))
			out[(*n)++] = rec[i];
	free(ids);
	return out;
}

void
nhobj_add(const struct tep_fpm_nhobj *o)
{
	bool existed = tep_fpm_nhtab_find(&nhtab, o->id) != NULL;
	struct tep_fpm_route rt;
	struct nhobj_route *v;
	uint32_t i, n;
	int ret;

	ret = nhent != NULL ? tep_fpm_nhtab_add(&nhtab, o) :
			      TEP_FPM_E_NHTAB_FULL;
	if (ret != TEP_FPM_E_OK) {
		refused(o->id, ret, existed ? "replacement" : "add");
		return;
	}
	fpm.c.nh_objs_added++;
	/* members past TEP_FPM_MAX_NH (lib/fpm kept the first ones) */
	fpm.c.ecmp_truncated += o->ngroup_dropped;
	if (!existed)
		return;
	/* Replaced: the routes through it (or through a group it is a
	 * member of) follow, each with its generation (this connection's:
	 * see nhobj_reset()). */
	v = routes_through(o->id, !o->is_group, &n);
	for (i = 0; i < n; i++) {
		if (tep_rib.vrf[v[i].k.vrf] == NULL)
			continue;
		memset(&rt, 0, sizeof(rt));
		rt.family = v[i].k.family == 4 ? AF_INET : AF_INET6;
		rt.plen = v[i].k.plen;
		memcpy(rt.prefix, v[i].k.prefix, 16);
		rt.table = 254;
		rt.type = TEP_FPM_RTN_UNICAST;
		rt.protocol = v[i].protocol;
		rt.rtm_flags = v[i].rtm_flags;
		rt.has_nh_id = true;
		rt.nh_id = v[i].nh_id;
		follow_add(&rt, v[i].k.vrf);
		fpm.c.nh_obj_routes_followed++;
	}
	free(v);
}

void
nhobj_del(uint32_t id)
{
	struct nhobj_route *v;
	uint32_t i, n;
	int ret;

	ret = tep_fpm_nhtab_del(&nhtab, id);
	if (ret == TEP_FPM_E_NH_UNKNOWN) {
		/* e.g. one the previous connection sent */
		fpm.c.nh_del_unknown++;
		return;
	}
	if (ret != TEP_FPM_E_OK) {
		/* a member of a group: zebra deletes the group first */
		refused(id, ret, "delete");
		return;
	}
	fpm.c.nh_objs_deleted++;
	/* as the kernel: the routes through a deleted object go */
	v = routes_through(id, false, &n);
	for (i = 0; i < n; i++)
		if (follow_forget(v[i].k.vrf, v[i].k.family, v[i].k.prefix,
				  v[i].k.plen))
			fpm.c.nh_obj_routes_removed++;
	free(v);
}
