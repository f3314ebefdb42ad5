/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * vrf add, del, list, exec, pids. A VRF comes with its host side
 * (vrfhost.c, tepd -N): add makes both or neither, and a VRF with tasks
 * inside is not deleted.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "cmds.h"
#include "args.h"
#include "port.h"
#include "tunnel.h"
#include "vrfhost.h"

int
cmd_vrf_add(struct tep_ctl_ctx *ctx, int argc, char **argv,
	    struct tep_out *o, struct tep_err *err)
{
	uint32_t table = 0;
	char e[256];
	int ret, v;

	(void)ctx;
	(void)o;
	if (argc == 3) {
		if (strcmp(argv[1], "table") != 0 ||
		    parse_u32(argv[2], UINT32_MAX, &table) != 0 || table == 0)
			return ERR(EINVAL, "expected: vrf add NAME [table ID] "
				   "with ID 1-4294967295");
	} else if (argc != 1) {
		return ERR(EINVAL, "expected: vrf add NAME [table ID]");
	}
	ret = tep_vrf_add(&tep_rib, argv[0], table, e, sizeof(e));
	if (ret != 0)
		return ERR(ret, "%s", e);
	/* All or nothing: a VRF whose host side cannot be made is not
	 * added. */
	v = tep_vrf_find(&tep_rib, argv[0]);
	if (tep_vrfhost_create((uint16_t)v, e, sizeof(e)) != 0) {
		tep_vrf_del(&tep_rib, (uint16_t)v, NULL, 0);
		return ERR(EIO, "%s", e);
	}
	return 0;
}

/* The RFC's rule: a VRF with tasks inside stays. */
static int
vrf_tasks_refuse(uint16_t v, const char *what, struct tep_err *err)
{
	int pids[4], n = tep_vrfhost_pids(v, pids, 4), i;
	char list[64] = "";
	size_t len = 0;

	if (n == 0)
		return 0;
	for (i = 0; i < n && i < 4; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d",
					i ? " " : "", pids[i]);
	return ERR(EBUSY, "vrf \"%s\" has %d task(s) inside (pid %s%s): %s; "
		   "see: vrf pids %s", tep_rib.vrf[v]->name, n, list,
		   n > 4 ? " ..." : "", what, tep_rib.vrf[v]->name);
}

int
cmd_vrf_del(struct tep_ctl_ctx *ctx, int argc, char **argv,
	    struct tep_out *o, struct tep_err *err)
{
	int v = vrf_arg(argv[0], err), i, nport = 0, ntun = 0;
	char e[256];
	int ret;

	(void)ctx;
	(void)argc;
	(void)o;
	if (v < 0)
		return ENOENT;
	for (i = 0; i < tep_nb_ports; i++)
		nport += tep_ports[i].present && !tep_ports[i].vrf_host &&
			 tep_ports[i].vrf == v;
	for (i = 0; i < TEP_TUNNELS_MAX; i++)
		ntun += tep_tunnels[i] != NULL && tep_tunnels[i]->vrf == v;
	if (v != TEP_VRF_DEFAULT && (nport || ntun))
		return ERR(EBUSY, "vrf \"%s\" has %d port(s) and %d tunnel(s) "
			   "bound: rebind or delete them first", argv[0],
			   nport, ntun);
	ret = vrf_tasks_refuse((uint16_t)v, "cannot delete it", err);
	if (ret != 0)
		return ret;
	tep_vrfhost_destroy((uint16_t)v);
	ret = tep_vrf_del(&tep_rib, (uint16_t)v, e, sizeof(e));
	return ret ? ERR(ret, "%s", e) : 0;
}

int
cmd_vrf_list(struct tep_ctl_ctx *ctx, int argc, char **argv,
	     struct tep_out *o, struct tep_err *err)
{
	int i;

	(void)ctx;
	(void)argc;
	(void)argv;
	(void)err;
	tep_out_open_array(o, "vrfs");
	for (i = 0; i < TEP_VRF_MAX; i++) {
		const struct tep_vrf *v = tep_rib.vrf[i];

		if (v == NULL)
			continue;
		tep_out_open_object(o, NULL);
		tep_out_str(o, "name", "%s", v->name);
		tep_out_u64(o, "table", " table %" PRIu64, v->table);
		tep_out_u64(o, "routes4", " routes4 %" PRIu64, v->routes4);
		tep_out_u64(o, "routes6", " routes6 %" PRIu64, v->routes6);
		tep_out_u64(o, "fib4_rebuilds", " fib4_rebuilds %" PRIu64,
			    v->fib_rebuilds[0]);
		tep_out_u64(o, "fib6_rebuilds", " fib6_rebuilds %" PRIu64,
			    v->fib_rebuilds[1]);
		tep_out_u64(o, "fib4_rebuilds_deferred",
			    " fib4_rebuilds_deferred %" PRIu64,
			    v->fib_rebuilds_deferred[0]);
		tep_out_u64(o, "fib6_rebuilds_deferred",
			    " fib6_rebuilds_deferred %" PRIu64,
			    v->fib_rebuilds_deferred[1]);
		if (tep_vrfhost_netns((uint16_t)i) != NULL)
			tep_out_str(o, "netns", " netns %s",
				    tep_vrfhost_netns((uint16_t)i));
		tep_out_newline(o);
		tep_out_close_object(o);
	}
	tep_out_close_array(o);
	return 0;
}

/*
 * tepd's half of `tepctl vrf exec NAME -- COMMAND`: check that the caller
 * may enter the VRF and hand it our descriptor for the VRF's namespace
 * (SCM_RIGHTS, with the reply); tepctl does the setns and exec. Which VRF
 * the caller is in now is found from its pid (SO_PEERCRED), not asked:
 * a task already in one VRF cannot move to another by saying otherwise.
 */
int
cmd_vrf_exec(struct tep_ctl_ctx *ctx, int argc, char **argv,
	     struct tep_out *o, struct tep_err *err)
{
	uint64_t dev, ino;
	int v, cur, rc;
	pid_t pid = 0;

	(void)argc;
	v = vrf_arg(argv[0], err);
	if (v < 0)
		return ENOENT;
	if (v == TEP_VRF_DEFAULT)
		return ERR(EINVAL, "vrf default needs no exec: it is tepd's "
			   "underlay; run the command as it is");
	if (!tep_vrfhost_enabled())
		return ERR(ENOTSUP, "tepd runs without VRF host ports: start "
			   "it with -N to run tasks in a VRF");
	if (tep_ctl_ctx_peer(ctx, &pid, NULL, NULL) != 0)
		return ERR(EINVAL, "vrf exec is for tepctl on the control "
			   "socket: tepctl vrf exec NAME -- COMMAND [ARGS...]");
	rc = tep_ctl_ctx_peer_netns(ctx, &dev, &ino);
	if (rc != 0)
		return ERR(rc == ESRCH ? ESRCH : EACCES, "cannot tell which "
			   "VRF the caller (pid %d) is in: /proc/%d/ns/net: "
			   "%s", (int)pid, (int)pid, rc == ESRCH ?
			   "it has exited" : strerror(rc));
	cur = tep_vrfhost_vrf_of(dev, ino);
	if (cur >= 0 && cur != v)
		return ERR(EPERM, "this task is in vrf \"%s\" already: a "
			   "task's VRF cannot change (start it from outside "
			   "any VRF)", tep_rib.vrf[cur]->name);
	/* Our descriptor, not the name under /run/netns: the bind mount
	 * may live in a mount namespace of tepd's own (systemd
	 * PrivateTmp, ip netns exec), and a descriptor cannot be swapped
	 * for another VRF's between the reply and its use. */
	rc = tep_ctl_reply_fd(ctx, tep_vrfhost_netns_fd((uint16_t)v));
	if (rc != 0)
		return ERR(rc, "cannot pass vrf \"%s\"'s namespace: %s",
			   argv[0], strerror(rc));
	tep_out_str(o, "netns", "%s\n", tep_vrfhost_netns((uint16_t)v));
	return 0;
}

int
cmd_vrf_pids(struct tep_ctl_ctx *ctx, int argc, char **argv,
	     struct tep_out *o, struct tep_err *err)
{
	int v = vrf_arg(argv[0], err), pids[1024], n, i;

	(void)ctx;
	(void)argc;
	if (v < 0)
		return ENOENT;
	if (tep_vrfhost_netns((uint16_t)v) == NULL)
		return ERR(ENOENT, "vrf \"%s\" has no host side%s", argv[0],
			   v == TEP_VRF_DEFAULT ? " (it is the underlay)" :
			   " (tepd runs without -N)");
	n = tep_vrfhost_pids((uint16_t)v, pids, 1024);
	tep_out_open_array(o, "pids");
	for (i = 0; i < n && i < 1024; i++) {
		char path[64], comm[64] = "?";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/comm", pids[i]);
		f = fopen(path, "r");
		if (f != NULL) {
			if (fgets(comm, sizeof(comm), f) != NULL)
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		tep_out_open_object(o, NULL);
		tep_out_i64(o, "pid", "%" PRId64, pids[i]);
		tep_out_str(o, "comm", " %s", comm);
		tep_out_newline(o);
		tep_out_close_object(o);
	}
	tep_out_close_array(o);
	return 0;
}
