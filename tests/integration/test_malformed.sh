#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# Malformed frames sent at tepd are dropped and counted under their reason;
# tepd keeps forwarding; the mbuf pool returns to its idle count (no leak).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

vxlan_site_setup af_packet 4
N=20

# Warm up (ARP both sides), then take the idle mbuf count.
ip netns exec "$TEN" ping -c 3 -i 0.2 -W 2 198.18.0.2 >/dev/null 2>&1 || true
sleep 0.5
mbufs() { $CTL -j stats | jget mempool.in_use; }
drops() { $CTL -j stats port "$UND" >"$WORK/drops.json"; }
idle=$(mbufs)
drops; cp "$WORK/drops.json" "$WORK/drops0.json"

mac=$($CTL -j port show "$UND" | jget ports.0.mac)
ip netns exec "$PEER" $PY "$HERE/malformed.py" peer0 "$mac" "$N" >"$WORK/sent.json"
# A tenant packet to a prefix vrf red has no route for.
ip netns exec "$TEN" ping -c "$N" -i 0.01 -W 1 203.0.113.99 >/dev/null 2>&1 || true
sleep 0.5
drops

# One verdict per reason malformed.py sent; the script's exit status must
# agree with them (a crash part-way leaves verdicts out: that fails).
want=$($PY -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' \
	"$WORK/sent.json")
rc=0
$PY - "$WORK/sent.json" "$WORK/drops0.json" "$WORK/drops.json" <<'PY' \
	>"$WORK/verdict" 2>"$WORK/verdict.err" || rc=$?
import json, sys
sent = json.load(open(sys.argv[1]))
d0 = json.load(open(sys.argv[2]))["ports"][0]["drops"]
d1 = json.load(open(sys.argv[3]))["ports"][0]["drops"]
bad = 0
for reason, n in sorted(sent.items()):
    k = "drop_" + reason
    got = d1.get(k, 0) - d0.get(k, 0)
    print(("ok" if got >= n else "FAIL") + ": %-16s sent %3d counted %3d" % (reason, n, got))
    bad += got < n
sys.exit(1 if bad else 0)
PY
got=0 bad=0
while read -r line; do
	got=$((got + 1))
	case $line in
	ok:*) ok "${line#ok: }" ;;
	*) fail "${line#FAIL: }"; bad=$((bad + 1)) ;;
	esac
done <"$WORK/verdict"
if [ "$want" -eq 0 ] || [ "$got" -ne "$want" ]; then
	fail "drop verdicts: $got printed for $want reasons sent: $(tail -n 1 "$WORK/verdict.err")"
fi
if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
	fail "drop verdicts: the script exited $rc: $(tail -n 1 "$WORK/verdict.err")"
fi

no_route=$($CTL -j stats vrf red | $PY -c 'import json,sys
print(json.load(sys.stdin)["vrfs"][0]["drops"].get("drop_no_route", 0))')
[ "$no_route" -ge "$N" ] && ok "vrf red counted $no_route no_route drops" ||
	fail "vrf red no_route drops: $no_route"

# Still forwarding.
if ip netns exec "$TEN" ping -c 3 -i 0.2 -W 2 198.18.0.2 >/dev/null 2>&1; then
	ok "still forwarding after the malformed frames"
else
	fail "tepd stopped forwarding"
fi

# No mbuf leaked: back to the idle count once traffic stops.
sleep 1
now=$(mbufs)
[ "$now" = "$idle" ] && ok "mbufs in use back to idle ($idle)" ||
	fail "mbufs in use: idle $idle, now $now"
finish
