/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEPD_ARGS_H
#define TEPD_ARGS_H

/*
 * Parsing what operators type (args.c, listen.c): addresses, prefixes,
 * numbers, MACs, ports and VRFs by name, listening addresses. Used by the
 * command handlers, the FPM listener and the metrics endpoint.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

#include "tep_ctl_cmd.h"
#include "port.h"

struct tep_port;
struct sockaddr_storage;

/* An address: family 4 or 6 in *family, network-order bytes in a. */
int parse_ip(const char *s, int *family, uint8_t *a);
/* "A/L", or "A" (a host route) unless need_len. */
int parse_prefix(const char *s, int *family, uint8_t *a, uint8_t *len,
		 bool need_len);
/* 0 to max: decimal, 0x hex or 0 octal, no sign. */
int parse_u32(const char *s, uint32_t max, uint32_t *v);
int parse_mac(const char *s, struct rte_ether_addr *m);
const char *ip_str(int family, const uint8_t *a, char *buf, size_t len);
/* A port or VRF by name, or -1 with err set (ENODEV, ENOENT). */
int port_arg(const char *s, struct tep_err *err);
int vrf_arg(const char *s, struct tep_err *err);
/* EPERM with err set if p is a VRF's host port, else 0. */
int refuse_host_port(const struct tep_port *p, struct tep_err *err);

/* "[ADDR]:PORT", "ADDR:PORT", ":PORT" or "PORT" (address 127.0.0.1 if
 * none); 0, or -1 if malformed. */
int tep_parse_listen(const char *arg, struct sockaddr_storage *ss, bool *v6);

#endif /* TEPD_ARGS_H */
