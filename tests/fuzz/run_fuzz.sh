#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# run_fuzz.sh TARGET SEED_CORPUS: fuzz for $FUZZ_SECONDS (default 10) from a
# scratch copy of the seed corpus (libFuzzer writes new inputs into its
# first corpus directory; the tree must not change). Fails on any crash.
set -eu
target=$1
seeds=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$seeds"/. "$work"/
exec "$target" -max_total_time="${FUZZ_SECONDS:-10}" -seed=1 \
	-print_final_stats=1 -artifact_prefix="${TMPDIR:-/tmp}/" "$work"
