#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# What a VRF's IPv6 table holds with the default -r (65536), against the
# arithmetic in docs/commands.md (Notes): DPDK 22.11's trie reserves 5
# tbl8 groups for each /64 and tepd gives IPv6 32767, so 6553 /64 routes
# fit and the 6554th answers "FIB full", leaving the table as it was. The
# trie keeps a deleted route's groups reserved: after all 6553 are deleted,
# 6553 others fit again only because tepd rebuilds the table
# (fib6_rebuilds in vrf list counts it). IPv4 holds what -r says: 65536
# /32s, all in one VRF. And a route deleted from under its covering
# route with the same next hop leaves the table able to take more (DPDK
# 22.11 miscounts that case).
#
#   tepd in namespace dp, ports net_null0/1
set -euo pipefail
. "$(dirname "$0")/lib.sh"

FIT6=6553	# floor(32767 / 5)
DP=$(ns_add dp)
echo "vrf add cap" >"$WORK/tepd.conf"
SOCK=$WORK/tepd.sock
tepd_start "$DP" "$SOCK" "$WORK/tepd.conf" --vdev=net_null0 --vdev=net_null1
CTL="$TEPCTL -s $SOCK"

# batch FILE: tepctl -b over FILE; prints how many commands failed (one
# FILE:LINE: line each)
batch() {
	local out
	out=$($CTL -b "$1" 2>&1 >/dev/null || true)
	grep -c "^tepctl: $1:[0-9]*: " <<<"$out" || true
}
# routes6 CMD FIRST N: N route CMD lines for 2001:db8:X::/64, X from FIRST
routes6() {
	$PY - "$@" <<-'PY'
	import sys
	cmd, first, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
	for i in range(first, first + n):
	    tail = " blackhole" if cmd == "add" else ""
	    print("route %s 2001:db8:%x::/64 vrf cap%s" % (cmd, i, tail))
	PY
}
vrf_cap() {	# FIELD: vrf cap's FIELD in vrf list
	$CTL -j vrf list | $PY -c 'import json,sys
for v in json.load(sys.stdin)["vrfs"]:
    if v["name"] == "cap": print(v[sys.argv[1]])' "$1"
}

routes6 add 1 "$FIT6" >"$WORK/a.cmds"
failed=$(batch "$WORK/a.cmds")
if [ "$failed" = 0 ] && [ "$(vrf_cap routes6)" = "$FIT6" ]; then
	ok "default -r: $FIT6 IPv6 /64 routes in one VRF"
else
	fail "$FIT6 IPv6 /64 routes: $failed failed, routes6 $(vrf_cap routes6)"
fi
msg=$($CTL route add 2001:db8:ffff::/64 vrf cap blackhole 2>&1 || true)
if grep -q "FIB full" <<<"$msg" && [ "$(vrf_cap routes6)" = "$FIT6" ] &&
   ! $CTL route show vrf cap 2001:db8:ffff::/64 | grep -q .; then
	ok "the next /64 answers \"FIB full\", nothing changed: $msg"
else
	fail "route $((FIT6 + 1)): '$msg', routes6 $(vrf_cap routes6)"
fi
# The refusal rebuilt the table once (routes may have been added in an
# order that reserved more than a fresh build does); more refusals with
# nothing changed must not rebuild it again, each a table's worth of adds.
r0=$(vrf_cap fib6_rebuilds)
routes6 add 49153 200 >"$WORK/over.cmds"
t0=$(date +%s%N)
failed=$(batch "$WORK/over.cmds")
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
r1=$(vrf_cap fib6_rebuilds)
if [ "$r0" = 1 ] && [ "$r1" = 1 ] && [ "$failed" = 200 ]; then
	ok "200 more refused without a rebuild each (one in all; $ms ms)"
else
	fail "200 more: $failed refused, rebuilds $r0 -> $r1, $ms ms"
fi
# The lookups still give the routes (the rebuild tried on "full" kept
# the table whole).
if $CTL route get 2001:db8:1::1 vrf cap | grep -q "2001:db8:1::/64" &&
   $CTL route get 2001:db8:1999::1 vrf cap | grep -q "2001:db8:1999::/64"; then
	ok "route get finds the first and the last after the refusal"
else
	fail "route get after the refusal: $($CTL route get 2001:db8:1999::1 vrf cap 2>&1)"
fi

r0=$(vrf_cap fib6_rebuilds)
routes6 del 1 "$FIT6" >"$WORK/d.cmds"
routes6 add 32769 "$FIT6" >"$WORK/a2.cmds"
failed=$(( $(batch "$WORK/d.cmds") + $(batch "$WORK/a2.cmds") ))
r1=$(vrf_cap fib6_rebuilds)
if [ "$failed" = 0 ] && [ "$(vrf_cap routes6)" = "$FIT6" ] && [ "$r1" -gt "$r0" ]; then
	ok "all deleted, $FIT6 others added: the table was rebuilt ($r0 -> $r1 rebuilds)"
else
	fail "delete and re-add: $failed failed, routes6 $(vrf_cap routes6), rebuilds $r0 -> $r1"
fi

# Churn at capacity: 300 times, delete one route and add another. The
# trie gives a deleted /64's groups back to nobody, so each add needs a
# rebuild (6553 routes, some 15 ms); tepd rebuilds only once an eighth of
# the routes changed or 19 rebuild-times have passed, and refuses the rest
# (fib6_rebuilds_deferred). Meanwhile another client's vrf list answers
# promptly all along.
r0=$(vrf_cap fib6_rebuilds)
d0=$(vrf_cap fib6_rebuilds_deferred)
$PY - <<-'PY' >"$WORK/churn.cmds"
	for i in range(300):
	    print("route del 2001:db8:%x::/64 vrf cap" % (32769 + i))
	    print("route add 2001:db8:%x::/64 vrf cap blackhole" % (0xe000 + i))
	PY
t0=$(date +%s%N)
$CTL -b "$WORK/churn.cmds" >/dev/null 2>"$WORK/churn.err" &
bpid=$!
worst=0 polls=0
while kill -0 "$bpid" 2>/dev/null; do
	p0=$(date +%s%N)
	$CTL vrf list >/dev/null
	p=$(( ($(date +%s%N) - p0) / 1000000 ))
	[ "$p" -gt "$worst" ] && worst=$p
	polls=$((polls + 1))
	sleep 0.02
done
wait "$bpid" || true
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
r1=$(vrf_cap fib6_rebuilds)
d1=$(vrf_cap fib6_rebuilds_deferred)
refused=$(grep -c "FIB full" "$WORK/churn.err" || true)
say "churn: 300 deletes and adds in $ms ms, $((r1 - r0)) rebuilds, $((d1 - d0)) deferred, $refused refused; vrf list: worst $worst ms over $polls polls"
if [ $((r1 - r0)) -le 10 ] && [ $((d1 - d0)) -gt 0 ] &&
   [ "$refused" = $((d1 - d0)) ] && [ "$worst" -lt 250 ]; then
	ok "churn at capacity: $((r1 - r0)) rebuilds for 300 adds, the rest refused at once; vrf list within $worst ms throughout"
else
	fail "churn at capacity: rebuilds $r0 -> $r1, deferred $d0 -> $d1, refused $refused, vrf list worst $worst ms, $ms ms in all"
fi

# DPDK 22.11 reserves nothing for a route added with its covering route's
# next hop, but gives back on its delete: the count wraps and every
# route longer than /24 is refused. tepd rebuilds the table then.
$CTL vrf add under
for c in "route add 10.1.2.0/24 vrf under blackhole" \
	 "route add 10.1.2.3/32 vrf under blackhole" \
	 "route del 10.1.2.3/32 vrf under" \
	 "route add 10.9.9.9/32 vrf under blackhole" \
	 "route add 2001:db8:1::/48 vrf under blackhole" \
	 "route add 2001:db8:1:1::/64 vrf under blackhole" \
	 "route del 2001:db8:1:1::/64 vrf under" \
	 "route add 2001:db8:9:9::/64 vrf under blackhole"; do
	# shellcheck disable=SC2086
	$CTL $c || fail "$c"
done
rb=$($CTL -j vrf list | $PY -c 'import json,sys
v = [v for v in json.load(sys.stdin)["vrfs"] if v["name"] == "under"][0]
print(v["fib4_rebuilds"], v["fib6_rebuilds"])')
if $CTL route get 10.9.9.9 vrf under | grep -q "10.9.9.9/32" &&
   $CTL route get 10.1.2.3 vrf under | grep -q "10.1.2.0/24" &&
   $CTL route get 2001:db8:9:9::1 vrf under | grep -q "2001:db8:9:9::/64"; then
	ok "a /32 (/64) deleted under a /24 (/48) with its next hop: the next one still goes in (rebuilds IPv4, IPv6: $rb)"
else
	fail "after a route under its covering route's next hop was deleted (rebuilds $rb)"
fi

$PY - <<-'PY' >"$WORK/v4.cmds"
	for i in range(65536):
	    print("route add 198.18.%d.%d/32 vrf cap blackhole" % (i >> 8, i & 255))
	PY
failed=$(batch "$WORK/v4.cmds")
if [ "$failed" = 0 ] && [ "$(vrf_cap routes4)" = 65536 ]; then
	ok "default -r: 65536 IPv4 /32 routes in the same VRF"
else
	fail "65536 IPv4 /32 routes: $failed failed, routes4 $(vrf_cap routes4)"
fi
finish
