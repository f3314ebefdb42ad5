/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

#ifndef TEPD_PEER_UID_H
#define TEPD_PEER_UID_H

#include <stdint.h>

/* A NETLINK_SOCK_DIAG socket, non-blocking, in the calling thread's
 * network namespace (the one whose TCP peers it can see); -1 and errno. */
int tep_sock_diag_open(void);

/*
 * The uid owning the other end of the accepted TCP connection `fd`, when
 * that end is a socket of this network namespace (sock_diag's exact
 * lookup of its 4-tuple). Never waits: the kernel answers within the
 * send. 0 and *uid; -ENOENT: no such socket here (another host or
 * namespace, or gone); -ESRCH: the socket has no owner any more (closed
 * by its process: orphaned or in time-wait), so its uid says nothing;
 * another -errno: the lookup failed.
 */
int tep_tcp_peer_uid(int diag_fd, int fd, uint32_t *uid);

#endif
