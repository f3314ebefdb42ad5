/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */
#include "tep_reason.h"

static const char *const reason_names[] = {
#define X(e, name, help) [TEP_R_##e] = name,
	TEP_REASONS(X)
#undef X
};

static const char *const reason_helps[] = {
#define X(e, name, help) [TEP_R_##e] = help,
	TEP_REASONS(X)
#undef X
};

const char *
tep_reason_name(enum tep_reason r)
{
	return (unsigned int)r < TEP_R_MAX ? reason_names[r] : "unknown";
}

const char *
tep_reason_help(enum tep_reason r)
{
	return (unsigned int)r < TEP_R_MAX ? reason_helps[r] : "unknown reason";
}
