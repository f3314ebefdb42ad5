#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# One tenant cannot starve another of tepd's control thread (issue 13,
# items 4 and 8). VRFs red and blue (vrf_pair_setup):
#  1. red scans a /16 of its connected subnet as fast as it can send: each
#     address is a neighbour to resolve. Meanwhile blue's far site pings a
#     blue host tepd has never resolved: the reply must come within 1 s.
#     Red's punts are policed and its unresolved neighbours and held
#     packets stay within its share; afterwards no mbuf is left behind.
#  2. red floods datagrams whose TTL expires at tepd; blue's traceroute-
#     like probes still get their ICMP time exceeded (ICMP errors are
#     rate limited per VRF).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

vrf_pair_setup
CTL="$TEPCTL -s $WORK/tepd.sock"
for t in "$TR" "$TB"; do
	ip -n "$t" addr add 192.0.2.10/24 dev ten0
	ip -n "$t" route add default via 192.0.2.1
done
# A blue host tepd has not met yet: a second address of blue's tenant.
ip -n "$TB" addr add 192.0.2.20/24 dev ten0
# Red's scan target: a connected /16 where nobody answers.
$CTL addr add 198.19.0.1/16 dev net_af_packet0
for t in "$TR" "$TB"; do
	ip netns exec "$t" ping -c 2 -i 0.2 -W 2 198.18.0.2 >/dev/null 2>&1 || true
done
sleep 0.5
mbufs() { $CTL -j stats | jget mempool.in_use; }
idle=$(mbufs)
MACR=$($CTL -j port show net_af_packet0 | jget ports.0.mac)

# 1. The scan, and a fresh neighbour for blue while it runs.
ip netns exec "$TR" $PY "$HERE/flood.py" scan ten0 "$MACR" 192.0.2.10 198.19 5 \
	>"$WORK/scan" &
scan=$!
sleep 2
if ip netns exec "$PB" ping -c 1 -W 1 192.0.2.20 >"$WORK/fresh" 2>&1; then
	ok "blue resolved a fresh neighbour during red's scan: $(grep -o 'time=[0-9.]* ms' "$WORK/fresh")"
else
	fail "blue's fresh neighbour not reached within 1 s during red's scan"
fi
$CTL -j neigh show >"$WORK/neigh.json"
wait $scan || true
read -r sent secs <"$WORK/scan"
say "red sent $sent scan frames in $secs s"
$CTL -j stats vrf red >"$WORK/red.json"
# Three verdicts (ok: or FAIL:) and one info line; the script's exit
# status must agree with them (a crash part-way leaves verdicts out).
rc=0
$PY - "$WORK/red.json" "$WORK/neigh.json" "$sent" <<'PY' \
	>"$WORK/verdict" 2>"$WORK/verdict.err" || rc=$?
import json, sys
d = json.load(open(sys.argv[1]))["vrfs"][0]["drops"]
nb = json.load(open(sys.argv[2]))
ents = nb.get("neighbours", nb.get("neigh", []))
incomplete = sum(1 for e in ents if e.get("dev") == "net_af_packet0" and
                 e.get("state") == "incomplete")
sent = int(sys.argv[3])
policed = d.get("drop_punt_policed", 0)
share = d.get("drop_hold_limit", 0)
print(("ok" if sent >= 20000 else "FAIL") + ": the scan sent %d frames (at least 20000 needed to matter)" % sent)
print(("ok" if policed > 0 else "FAIL") + ": red's punts policed: %d" % policed)
print(("ok" if incomplete <= 256 else "FAIL") + ": red's unresolved neighbours during the scan: %d (its share 256)" % incomplete)
print("info: red over its share of neighbours/held packets: %d" % share)
PY
got=0 bad=0
while read -r line; do
	case $line in
	ok:*) ok "${line#ok: }"; got=$((got + 1)) ;;
	info:*) say "${line#info: }" ;;
	*) fail "${line#FAIL: }"; got=$((got + 1)); bad=$((bad + 1)) ;;
	esac
done <"$WORK/verdict"
if [ "$got" -ne 3 ]; then
	fail "scan verdicts: $got of 3 printed: $(tail -n 1 "$WORK/verdict.err")"
fi
if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
	fail "scan verdicts: the script exited $rc: $(tail -n 1 "$WORK/verdict.err")"
fi

# 2. TTL flood from red; blue's probes still answered.
ip netns exec "$TR" $PY "$HERE/flood.py" ttl ten0 "$MACR" 192.0.2.10 198.18.0.2 4 \
	>"$WORK/ttlflood" &
flood=$!
sleep 1
ip netns exec "$TB" ping -t 1 -c 5 -i 0.3 -W 1 198.18.0.2 >"$WORK/blue_ttl" 2>&1 || true
wait $flood || true
read -r sent secs <"$WORK/ttlflood"
got=$(grep -c "Time to live exceeded" "$WORK/blue_ttl" || true)
if [ "$got" -ge 4 ]; then
	ok "blue got $got/5 time-exceeded while red sent $sent expiring datagrams in $secs s"
else
	fail "blue got $got/5 time-exceeded while red flooded ($sent in $secs s)"
fi

# Nothing left behind: unresolved neighbours give up after 3 probes.
for _ in $(seq 60); do
	[ "$(mbufs)" = "$idle" ] && break
	sleep 0.2
done
now=$(mbufs)
[ "$now" = "$idle" ] && ok "mbufs in use back to idle ($idle)" ||
	fail "mbufs in use: idle $idle, now $now"
ip netns exec "$TB" ping -c 2 -i 0.2 -W 2 198.18.0.2 >/dev/null 2>&1 &&
	ok "blue still forwarding" || fail "blue stopped forwarding"
finish
