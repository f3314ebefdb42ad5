/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#ifndef TEP_FIB_PRIV_H
#define TEP_FIB_PRIV_H

/* What tep_fib.c and tep_nhg.c share; not for lib/fib's users. */

#include <stdarg.h>
#include <stdio.h>

#include "tep_fib.h"

/* Every refusal in lib/fib says what was wrong: the message into err (if
 * any), the code returned. */
static inline int fail(char *err, size_t errlen, int code, const char *fmt,
		       ...) __attribute__((format(printf, 4, 5)));

static inline int
fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* A reference to next hop nh's slot, made if need be: its index, or
 * TEP_NH_NONE when the table is full (or nh names a missing group). */
uint32_t tep_nh_ref_get(struct tep_rib *r, const struct tep_nh *nh);
/* Give one back; the last one frees the slot after a grace period. */
void tep_nh_ref_put(struct tep_rib *r, uint32_t idx);
/* Wait for an RCU grace period (nothing without an RCU domain). */
void tep_fib_rcu_wait(struct tep_rib *r);

#endif /* TEP_FIB_PRIV_H */
