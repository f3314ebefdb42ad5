/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * fpm show, fpm set; evpn local, vrf, show. Argument checks only: the FPM
 * server and the EVPN rules are fpm.c's (docs/evpn.md).
 */

#include <errno.h>
#include <string.h>

#include "cmds.h"
#include "args.h"
#include "fpm.h"

int
cmd_fpm_show(struct tep_ctl_ctx *ctx, int argc, char **argv,
	     struct tep_out *o, struct tep_err *err)
{
	(void)ctx;
	(void)argc;
	(void)argv;
	(void)err;
	tep_fpm_show(o);
	return 0;
}

int
cmd_fpm_set(struct tep_ctl_ctx *ctx, int argc, char **argv,
	    struct tep_out *o, struct tep_err *err)
{
	char e[256];
	int ret;

	(void)ctx;
	(void)argc;
	(void)o;
	ret = tep_fpm_set(argv[0], argv[1], e, sizeof(e));
	return ret ? ERR(ret, "%s", e) : 0;
}

int
cmd_evpn_local(struct tep_ctl_ctx *ctx, int argc, char **argv,
	       struct tep_out *o, struct tep_err *err)
{
	char e[256];
	int ret;

	(void)ctx;
	(void)argc;
	(void)o;
	ret = tep_fpm_evpn_local(argv[0], e, sizeof(e));
	return ret ? ERR(ret, "%s", e) : 0;
}

int
cmd_evpn_vrf(struct tep_ctl_ctx *ctx, int argc, char **argv,
	     struct tep_out *o, struct tep_err *err)
{
	struct rte_ether_addr rmac;
	uint32_t vni;
	char e[256];
	int v, ret;

	(void)ctx;
	(void)o;
	v = vrf_arg(argv[0], err);
	if (v < 0)
		return ENOENT;
	if (strcmp(argv[1], "vni") != 0 ||
	    parse_u32(argv[2], 0xffffff, &vni) != 0 ||
	    (argc > 3 && (argc != 5 || strcmp(argv[3], "rmac") != 0)))
		return ERR(EINVAL, "evpn vrf NAME vni N [rmac MAC], N "
			   "1-16777215 (0: none)");
	if (argc == 5 && (parse_mac(argv[4], &rmac) != 0 ||
			  !rte_is_unicast_ether_addr(&rmac)))
		return ERR(EINVAL, "rmac \"%s\": not a unicast MAC",
			   argv[4]);
	ret = tep_fpm_evpn_vrf((uint16_t)v, vni, argc == 5 ? &rmac : NULL,
			       e, sizeof(e));
	return ret ? ERR(ret, "%s", e) : 0;
}

int
cmd_evpn_show(struct tep_ctl_ctx *ctx, int argc, char **argv,
	      struct tep_out *o, struct tep_err *err)
{
	(void)ctx;
	(void)argc;
	(void)argv;
	(void)err;
	tep_fpm_evpn_show(o);
	return 0;
}
