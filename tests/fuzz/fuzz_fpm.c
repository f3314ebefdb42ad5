/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * libFuzzer target: the FPM stream parser (lib/fpm) on what a zebra, or
 * anything that reached tepd's FPM port, could send.
 *
 * The input is taken twice: as one frame handed to tep_fpm_decode()
 * whole, and as a TCP stream cut into frames by tep_fpm_frame_check()
 * (each decoded in an exact-size copy, so that ASan sees any read past
 * it). The invariants below abort.
 *
 * Seeds: tests/fuzz/corpus/fpm, the frames of tests/golden/fpm (zebra
 * 8.4.4 on the wire) as binary files.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tep_fpm.h"
#include "fuzz_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_msg(int r, const struct tep_fpm_msg *m, size_t len)
{
	unsigned int i;

	CHECK(r >= 0 && r < TEP_FPM_E_MAX);
	/* decode is given whole frames: never "wait for more" */
	CHECK(r != TEP_FPM_E_INCOMPLETE);
	CHECK(tep_fpm_err_str(r) != NULL);
	CHECK(m->err_off <= len);
	if (r != TEP_FPM_E_OK) {
		CHECK(m->kind == TEP_FPM_IGNORED);
		return;
	}
	CHECK(m->kind <= TEP_FPM_NH_DEL);
	CHECK(m->ignore < TEP_FPM_IGN_MAX);
	CHECK((m->kind == TEP_FPM_IGNORED) == (m->ignore != TEP_FPM_IGN_NONE));
	if (m->kind == TEP_FPM_MAC_ADD || m->kind == TEP_FPM_MAC_DEL) {
		CHECK(m->mac.vtep_family == 0 || m->mac.vtep_family == AF_INET ||
		      m->mac.vtep_family == AF_INET6);
		return;
	}
	if (m->kind == TEP_FPM_IGNORED)
		return;
	if (m->kind == TEP_FPM_NH_ADD || m->kind == TEP_FPM_NH_DEL) {
		const struct tep_fpm_nhobj *o = &m->nhobj;
		unsigned int j;

		CHECK(o->id != 0);
		if (m->kind == TEP_FPM_NH_DEL)
			return;
		CHECK(o->family == 0 || o->family == AF_INET ||
		      o->family == AF_INET6);
		CHECK(o->is_group == (o->ngroup > 0));
		CHECK(o->ngroup <= TEP_FPM_MAX_NH);
		CHECK(!o->is_group || !o->blackhole);
		for (i = 0; i < o->ngroup; i++) {
			CHECK(o->group[i].id != 0 && o->group[i].id != o->id);
			CHECK(o->group[i].weight >= 1 &&
			      o->group[i].weight <= 256);
			for (j = 0; j < i; j++)
				CHECK(o->group[j].id != o->group[i].id);
		}
		if (!o->is_group && !o->blackhole)
			CHECK(o->nh.gw_family == 0 || o->family != 0);
		return;
	}
	CHECK(m->route.family == AF_INET || m->route.family == AF_INET6);
	CHECK(m->route.plen <= (m->route.family == AF_INET ? 32 : 128));
	CHECK(m->route.nh_count <= TEP_FPM_MAX_NH);
	if (m->kind == TEP_FPM_ROUTE_ADD &&
	    m->route.type == TEP_FPM_RTN_UNICAST)
		CHECK(m->route.nh_count > 0 || m->route.has_nh_id);
	for (i = 0; i < m->route.nh_count; i++) {
		const struct tep_fpm_nh *nh = &m->route.nh[i];

		CHECK(nh->gw_family == 0 || nh->gw_family == AF_INET ||
		      nh->gw_family == AF_INET6);
		CHECK(!nh->gw_mapped || nh->gw_family == AF_INET);
		CHECK(nh->weight >= 1 && nh->weight <= 256);
		if (nh->encap_type == TEP_FPM_ENCAP_VXLAN)
			CHECK(nh->vni <= 0xffffff);
		else
			CHECK(nh->vni == 0);
	}
}

static void
decode_copy(const uint8_t *p, size_t len)
{
	struct tep_fpm_msg m;
	uint8_t *b = malloc(len ? len : 1);
	int r;

	if (b == NULL)
		abort();
	memcpy(b, p, len);
	r = tep_fpm_decode(b, len, &m);
	check_msg(r, &m, len);
	/* every message of a frame that frames: offsets only move forward,
	 * the last one ends the frame */
	if (r == TEP_FPM_E_OK) {
		size_t off = 0, prev;

		do {
			prev = off;
			r = tep_fpm_decode_next(b, len, &off, &m);
			check_msg(r, &m, len);
			CHECK(off > prev && off <= len);
		} while (r == TEP_FPM_E_OK && off < len);
	}
	free(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

	decode_copy(data, size);
	while (off < size) {
		size_t flen = 0;
		int r = tep_fpm_frame_check(data + off, size - off, &flen);

		CHECK(r >= 0 && r < TEP_FPM_E_MAX);
		if (r == TEP_FPM_E_INCOMPLETE) {
			/* the header, once in, says how much is missing */
			if (size - off >= TEP_FPM_HDR_LEN)
				CHECK(flen > size - off);
			break;
		}
		if (r != TEP_FPM_E_OK)
			break;
		CHECK(flen >= TEP_FPM_MIN_FRAME && flen <= size - off);
		decode_copy(data + off, flen);
		off += flen;
	}
	return 0;
}
