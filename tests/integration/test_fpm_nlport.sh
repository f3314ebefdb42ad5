#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# tepd -N -P: table-254 routes are mapped to VRFs by their nlmsg_pid
# (zebra's netlink port id in the VRF's namespace, docs/evpn.md). Port
# ids that exist nowhere must cost the control thread next to nothing:
# 2000 routes with random ids, sent in four frames, while `tepctl vrf
# list` and `stats` are timed every 10 ms; every answer within 100 ms. Then the
# mapping still works: a route whose id is a netlink socket in tepd's
# namespace lands in the default VRF, one whose id is a socket in VRF
# red's host namespace lands in red, and a socket opened after a flood of
# unknown ids is found at once (nothing of the flood stays cached
# against it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DP=$(ns_add dp)
cat >"$WORK/tepd.conf" <<-'CONF'
vrf add red table 100
vrf add blue table 200
vrf add green table 300
vrf add gold table 400
port set net_null0 role underlay
addr add 198.51.100.1/24 dev net_null0
CONF
TEPD_ARGS="-N -P 2620" tepd_start "$DP" "$WORK/tepd.sock" "$WORK/tepd.conf" \
	--vdev=net_null0
CTL="$TEPCTL -s $WORK/tepd.sock"
LOG=$WORK/tepd-tepd.sock.log
FEED="ip netns exec $DP $PY $HERE/fpm_feed.py"
$CTL fpm set hold 600
cnt() { $CTL -j stats | jget "fpm.fpm_$1" 2>/dev/null || echo 0; }
has() {
	$CTL -j route show vrf "$1" | $PY -c 'import json,sys
d=json.load(sys.stdin)
r=[x for x in d["routes"] if x["prefix"]==sys.argv[1]]
print(r[0].get("proto","?") if r else "none")' "$2"
}

# 1. 2000 random port ids while `vrf list` is timed, on one control
# connection (ctlwire.py: no process start in the measure). The timer
# runs until tepd has counted every route (or 60 s).
cat >"$WORK/timer.py" <<-'PY'
import json, sys, time
sys.path.insert(0, sys.argv[1])
import ctlwire
c = ctlwire.Conn(sys.argv[2], timeout=60)
worst, n, done, t_end = 0.0, 0, False, time.monotonic() + 60
while not done and time.monotonic() < t_end:
    for words, js in ((["vrf", "list"], False), (["stats"], True)):
        t0 = time.monotonic()
        r = c.call(words, js)
        worst, n = max(worst, time.monotonic() - t0), n + 1
    try:
        done = json.loads(r[2])["fpm"]["fpm_routes_vrf_unknown"] >= 2000
    except (TypeError, ValueError, KeyError):
        pass
    time.sleep(0.01)
with open(sys.argv[3], "w") as f:
    f.write("%d %.1f %d\n" % (n, worst * 1000, done))
PY
$PY "$WORK/timer.py" "$HERE" "$WORK/tepd.sock" "$WORK/timer" &
tpid=$!
sleep 0.3
$FEED --linger 1 bulk 2000 10.64.0.0 via 198.51.100.2 pid random per-frame 500
wait $tpid
read -r n worst finished <"$WORK/timer"
say "2000 routes with random port ids: $n requests, the slowest answered in $worst ms; $(cnt nlport_snapshots) snapshot(s) of the port ids"
if [ "$finished" = 1 ] && [ "$(cnt routes_vrf_unknown)" = 2000 ] &&
   [ "$(cnt routes_added)" = 0 ]; then
	ok "2000 unknown port ids: every route skipped and counted (fpm_routes_vrf_unknown 2000)"
else
	fail "unknown port ids: finished=$finished vrf_unknown=$(cnt routes_vrf_unknown) added=$(cnt routes_added)"
fi
if $PY -c 'import sys; sys.exit(0 if float(sys.argv[1]) < 100 else 1)' "$worst"; then
	ok "control thread answered throughout: slowest request $worst ms (< 100 ms)"
else
	fail "control thread stalled: a request took $worst ms (want < 100 ms)"
fi
nlog=$(grep -c "netlink port id .* is in no vrf's namespace" "$LOG" || true)
if [ "$nlog" -le 20 ]; then
	ok "unknown port ids logged a bounded number of times ($nlog lines)"
else
	fail "unknown port ids logged $nlog times"
fi

# 2. The mapping still works, right after the flood: a socket opened
# now, in tepd's namespace, then in red's host namespace
$FEED add 198.18.1.0/24 via 198.51.100.2 pid nl
$CTL vrf exec red -- $PY "$HERE/fpm_feed.py" --connect-netns "/run/netns/$DP" \
	add 198.18.2.0/24 blackhole pid nl
for _ in $(seq 30); do
	[ "$(has red 198.18.2.0/24)" = fpm ] && break
	sleep 0.1
done
expect_got="$(has default 198.18.1.0/24) $(has red 198.18.2.0/24) $(has default 198.18.2.0/24)"
if [ "$expect_got" = "fpm fpm none" ]; then
	ok "port id of a socket in tepd's namespace: default VRF; in red's: red"
else
	fail "mapping after the flood: got '$expect_got', want 'fpm fpm none'"
	grep "tepd: fpm: netlink port id" "$LOG" | tail -5
fi
grep -q "tepd: fpm: netlink port id [0-9]*: vrf red" "$LOG" &&
	ok "red's port id logged" || fail "no log line for red's port id"

finish
