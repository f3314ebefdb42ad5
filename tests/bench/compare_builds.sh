#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# Two builds of tepd through the same bench_pipeline.sh case, in turns,
# ROUNDS times (default 5): on a shared VM one run can be 1.5x slower than
# the next for reasons outside tepd, so builds are compared by the best and
# the median of interleaved runs, never by one run each.
#   compare_builds.sh OLD_BUILD_DIR NEW_BUILD_DIR [TYPE FAM SIZE MODE]
# e.g. compare_builds.sh /tmp/old/build build vxlan 4 64 lco
# Prints per build: Mpps and the per-stage cycles (tepd -C) of each run,
# then best and median. Env: ROUNDS, HUGE, ROUTES (default 1 here),
# GATEWAYS (as bench_pipeline.sh).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
OLD=$1 NEW=$2
TYPE=${3:-vxlan} FAM=${4:-4} SIZE=${5:-64} MODE=${6:-lco}
ROUNDS=${ROUNDS:-5}
OUT=$(mktemp -d /tmp/tepd-cmp.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

for r in $(seq "$ROUNDS"); do
	for b in "$OLD" "$NEW"; do
		tag=$(echo "$b" | tr '/' '_')
		NO_REF=1 BUILD=$b CYCLES=1 ROUTES=${ROUTES:-1} SAMPLES=2 \
			"$HERE/bench_pipeline.sh" "$TYPE" "$FAM" "$SIZE" "$MODE" 2>&1 |
			awk '/^# stages/ { for (i = 1; i <= NF; i++)
					     if ($i ~ /^(classify|lookup|encap|inner|txprep)$/)
						     s = s " " $(i + 1) }
			     /^[a-z]/ && $5 != "" { mpps = $5 }
			     END { print mpps s }' >>"$OUT/$tag"
	done
done
echo "# $TYPE ipv$FAM $SIZE $MODE, $ROUNDS interleaved rounds; columns: Mpps classify lookup encap inner txprep (cycles/packet)"
for b in "$OLD" "$NEW"; do
	tag=$(echo "$b" | tr '/' '_')
	echo "== $b"
	cat "$OUT/$tag"
	sort -k1,1nr "$OUT/$tag" | awk -v n="$ROUNDS" '
		NR == 1 { print "best:   " $0 }
		NR == int((n + 1) / 2) { print "median: " $0 }'
done
