#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# Every example in config/ loads into a running tepd (so they never rot):
# tepd must start with it, and show the tunnels, VRFs and routes it names.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

CONFDIR=$(cd "$HERE/../../config" && pwd)
n=0
for conf in "$CONFDIR"/*.conf; do
	name=$(basename "$conf" .conf)
	DP=$(ns_add "cf$n")
	OTHER=$(ns_add "co$n")
	for i in 0 1 2; do
		veth "$DP" "p$i" "$OTHER" "q$i"
	done
	sock="$WORK/$name.sock"
	if ! tepd_start "$DP" "$sock" "$conf" --vdev=net_af_packet0,iface=p0 \
		--vdev=net_af_packet1,iface=p1 --vdev=net_af_packet2,iface=p2; then
		fail "$name: tepd did not start with it"
		continue
	fi
	want_t=$(grep -c '^tunnel add' "$conf" || true)
	want_v=$(( $(grep -c '^vrf add' "$conf" || true) + 1 ))
	want_r=$(grep -c '^route add' "$conf" || true)
	got_t=$($TEPCTL -s "$sock" -j tunnel show | $PY -c \
		'import json,sys; print(len(json.load(sys.stdin)["tunnels"]))')
	got_v=$($TEPCTL -s "$sock" -j vrf list | $PY -c \
		'import json,sys; print(len(json.load(sys.stdin)["vrfs"]))')
	got_r=0
	for v in $($TEPCTL -s "$sock" -j vrf list | $PY -c \
		'import json,sys; print(" ".join(v["name"] for v in json.load(sys.stdin)["vrfs"]))'); do
		# configured routes: neither local nor connected ones
		c=$($TEPCTL -s "$sock" -j route show vrf "$v" | $PY -c \
			'import json,sys; print(sum(1 for r in json.load(sys.stdin)["routes"] if "scope" not in r and r.get("type") != "local"))')
		got_r=$((got_r + c))
	done
	if [ "$got_t/$got_v/$got_r" = "$want_t/$want_v/$want_r" ]; then
		ok "$name: $got_t tunnels, $got_v vrfs, $got_r routes"
	else
		fail "$name: tunnels/vrfs/routes $got_t/$got_v/$got_r, want $want_t/$want_v/$want_r"
	fi
	kill "${TEPD_PIDS[-1]}"
	wait "${TEPD_PIDS[-1]}" 2>/dev/null || true
	n=$((n + 1))
done
[ "$n" -ge 4 ] || fail "only $n example configs found"

# The systemd unit parses, where systemd is there to ask.
if command -v systemd-analyze >/dev/null 2>&1; then
	if systemd-analyze verify "$CONFDIR/tepd.service" 2>&1 |
	   grep -v -e 'tepd: .*No such file' -e 'Failed to' -e '^$' |
	   grep -qi 'unknown\|invalid'; then
		fail "tepd.service: systemd-analyze complains"
	else
		ok "tepd.service: systemd-analyze verify finds no unknown setting"
	fi
fi
finish
