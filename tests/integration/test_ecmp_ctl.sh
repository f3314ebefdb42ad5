#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# Multipath routes through the control socket (docs/commands.md, route
# add ... nexthop): routes of 2, 4 and 64 paths; what must be refused (65
# paths, weight 0 or 65536, a path twice, an unknown tunnel, a gateway
# off every connected network) leaves `route show` and `route groups` as
# they were, also from a batch file and a config file; routes with the
# same paths share one group, which goes with the last of them; route
# show and route groups parse as JSON; `route get` over a 4-path route
# sends 200 flows (sport 1..200) to every path, a quarter each within 10
# points; `route get ... hash H` for H = 0..511 over paths weighted 1:3
# lands 128 and 384 times (+-2), so the weights reach the buckets of the
# real daemon; the counters are on /metrics and promtool accepts them.
#
#   tepd in namespace dp: net_null0 underlay 198.51.100.1/24, 70 VXLAN
#   tunnels t1..t70 (members that are always up: gateways on a null port
#   would be probed and declared dead by the failover while we look)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

MPORT=9118
DP=$(ns_add dp)
{
	echo "port set net_null0 role underlay"
	echo "addr add 198.51.100.1/24 dev net_null0"
	echo "vrf add red"
	echo "port set net_null1 role access"
	echo "port bind net_null1 vrf red"
	echo "addr add 192.0.2.1/24 dev net_null1"
	for i in $(seq 70); do
		echo "tunnel add t$i type vxlan local 198.51.100.1 remote 198.51.100.$((100 + i)) vni $i vrf red inner-dmac 02:00:00:00:00:01"
	done
} >"$WORK/tepd.conf"
SOCK=$WORK/tepd.sock
TEPD_ARGS="-M 127.0.0.1:$MPORT" tepd_start "$DP" "$SOCK" "$WORK/tepd.conf" \
	--vdev=net_null0 --vdev=net_null1
CTL="$TEPCTL -s $SOCK"

# The state a refused command must leave as it was: every route of both
# VRFs and every group (id, routes, members and weights; not the members'
# state or buckets, which the failover may change at any time).
snap() {
	{
		$CTL -j route show
		$CTL -j route show vrf red
		$CTL -j route groups
	} | $PY -c '
import json, sys
for ln in sys.stdin:
    d = json.loads(ln)
    for r in d.get("routes", []):
        for m in r.get("nexthops", []):
            m.pop("state", None)
    for g in d.get("groups", []):
        for m in g["nexthops"]:
            m.pop("state", None)
            m.pop("buckets", None)
    d.pop("failover", None)
    print(json.dumps(d, sort_keys=True))'
}

# groups: the groups' ids, routes and member counts, "id:routes:members"
groups() {
	$CTL -j route groups | $PY -c '
import json, sys
d = json.load(sys.stdin)
assert d["count"] == len(d["groups"]), d
print(" ".join("%d:%d:%d" % (g["id"], g["routes"], len(g["nexthops"]))
               for g in d["groups"]))'
}

# good DESC CMD...: CMD succeeds
good() {
	local d=$1
	shift
	if $CTL "$@" >"$WORK/out" 2>&1; then
		ok "$d"
	else
		fail "$d: $(cat "$WORK/out")"
	fi
}

# refused DESC EXPECT CMD...: CMD fails with a message containing EXPECT
# and changes neither the routes nor the groups
refused() {
	local d=$1 expect=$2 rc=0
	shift 2
	snap >"$WORK/before"
	$CTL "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
	snap >"$WORK/after"
	if [ "$rc" = 1 ] && [ ! -s "$WORK/out" ] &&
	   grep -qF -- "$expect" "$WORK/err" &&
	   cmp -s "$WORK/before" "$WORK/after"; then
		ok "refused: $d: $(cat "$WORK/err")"
	else
		fail "refused: $d: exit $rc, '$(cat "$WORK/err")' (want '$expect'), state $(cmp -s "$WORK/before" "$WORK/after" && echo same || echo changed)"
	fi
}

# ---- routes of 2, 4 and 64 paths -----------------------------------------
good "2 paths: gateways, weights 1 and 3 (nexthop via ... weight)" \
	route add 198.18.2.0/24 vrf red nexthop via 192.0.2.20 \
	nexthop via 192.0.2.21 weight 3
good "4 paths: tunnels (nexthop tunnel ...)" \
	route add 198.18.4.0/24 vrf red nexthop tunnel t1 nexthop tunnel t2 \
	nexthop tunnel t3 nexthop tunnel t4
good "2 paths weighted 1:3 (nexthops t5 t6,3)" \
	route add 198.18.13.0/24 vrf red nexthops t5 t6,3
good "a tunnel and a gateway with dev in one route" \
	route add 198.18.5.0/24 vrf red nexthop tunnel t7 \
	nexthop via 192.0.2.30 dev net_null1 weight 2
mapfile -t T64 < <(seq -f 't%g' 1 64)
good "64 paths (nexthops t1 ... t64)" \
	route add 198.18.64.0/24 vrf red nexthops "${T64[@]}"
if g=$(groups) && [ "$(wc -w <<<"$g")" = 5 ] &&
   [ "$(tr ' ' '\n' <<<"$g" | cut -d: -f3 | sort -n | tr '\n' ' ')" = "2 2 2 4 64 " ] &&
   [ "$(tr ' ' '\n' <<<"$g" | cut -d: -f2 | sort -u)" = 1 ]; then
	ok "route groups: 5 groups of 2, 2, 2, 4 and 64 paths, one route each ($g)"
else
	fail "route groups after the adds: ${g:-}"
fi

# ---- refusals: nothing changes ---------------------------------------------
mapfile -t T65 < <(seq -f 't%g' 1 65)
refused "65 paths" "more than 64 nexthops" \
	route add 198.18.65.0/24 vrf red nexthops "${T65[@]}"
refused "weight 0" "nexthop 2: weight 0 out of range (1 to 65535)" \
	route add 198.18.9.0/24 vrf red nexthop tunnel t1 nexthop tunnel t2 weight 0
refused "weight 65536" "nexthop 3: weight 65536 out of range (1 to 65535)" \
	route add 198.18.9.0/24 vrf red nexthop tunnel t1 nexthop tunnel t2 \
	nexthop tunnel t3 weight 65536
refused "weight 0 (nexthops)" "nexthop 1: weight 0 out of range" \
	route add 198.18.9.0/24 vrf red nexthops t1,0 t2
refused "the same path twice" "nexthop 3: the same path as nexthop 1" \
	route add 198.18.9.0/24 vrf red nexthop tunnel t1 nexthop tunnel t2 \
	nexthop tunnel t1 weight 5
refused "the same gateway twice" "nexthop 2: the same path as nexthop 1" \
	route add 198.18.9.0/24 vrf red nexthop via 192.0.2.20 \
	nexthop via 192.0.2.20 dev net_null1
refused "unknown tunnel" 'nexthop 2: no tunnel "nosuch"' \
	route add 198.18.9.0/24 vrf red nexthop tunnel t1 nexthop tunnel nosuch
refused "unknown tunnel (nexthops)" 'nexthop 3: no tunnel "nosuch"' \
	route add 198.18.9.0/24 vrf red nexthops t1 t2 nosuch
refused "gateway off the connected networks" \
	"nexthop 2: gateway 203.0.113.9 is not on a connected network" \
	route add 198.18.9.0/24 vrf red nexthop tunnel t1 nexthop via 203.0.113.9
refused "one path and nexthops together" "not both" \
	route add 198.18.9.0/24 vrf red tunnel t1 nexthop tunnel t2
refused "an existing prefix: the group made for it is not left behind" \
	"route exists" \
	route add 198.18.4.0/24 vrf red nexthop tunnel t8 nexthop tunnel t9

# ---- shared groups ----------------------------------------------------------
good "a second route with the 4 paths, in another order" \
	route add 198.18.40.0/24 vrf red nexthop tunnel t4 nexthop tunnel t3 \
	nexthop tunnel t2 nexthop tunnel t1
ids=$($CTL -j route show vrf red | $PY -c '
import json, sys
d = {r["prefix"]: r.get("group") for r in json.load(sys.stdin)["routes"]}
print(d["198.18.4.0/24"], d["198.18.40.0/24"])')
read -r shared other <<<"$ids"
if [ "$shared" != None ] && [ "$shared" = "$other" ] &&
   groups | tr ' ' '\n' | grep -qx "$shared:2:4"; then
	ok "both routes name group $shared, which counts 2 routes"
else
	fail "shared group: groups '$ids', $(groups)"
fi
good "route del the first" route del 198.18.4.0/24 vrf red
if groups | tr ' ' '\n' | grep -qx "$shared:1:4"; then
	ok "group $shared stays for the other route"
else
	fail "after the first delete: $(groups)"
fi
good "route del the second" route del 198.18.40.0/24 vrf red
if ! groups | tr ' ' '\n' | grep -q "^$shared:"; then
	ok "group $shared went with the last route naming it ($(groups))"
else
	fail "group $shared left behind: $(groups)"
fi
good "route replace: the 64-path route becomes one tunnel" \
	route replace 198.18.64.0/24 vrf red tunnel t1
if [ "$(groups | wc -w)" = 3 ] && ! groups | grep -q ':64$\|:64 '; then
	ok "its group went ($(groups))"
else
	fail "after route replace: $(groups)"
fi
good "4 paths again, for the flows" \
	route add 198.18.4.0/24 vrf red nexthop tunnel t1 nexthop tunnel t2 \
	nexthop tunnel t3 nexthop tunnel t4

# ---- output -----------------------------------------------------------------
if $CTL -j route show vrf red | $PY -c '
import json, sys
d = {r["prefix"]: r for r in json.loads(sys.stdin.read())["routes"]}
r = d["198.18.2.0/24"]
assert [(m["via"], m["dev"], m["weight"]) for m in r["nexthops"]] == \
    [("192.0.2.20", "net_null1", 1), ("192.0.2.21", "net_null1", 3)], r
assert all(m["state"] in ("up", "dead") for m in r["nexthops"]), r
r = d["198.18.5.0/24"]
assert [(m.get("tunnel"), m.get("via"), m["weight"]) for m in r["nexthops"]] == \
    [("t7", None, 1), (None, "192.0.2.30", 2)], r
'; then
	ok "route show -j: the members, their weights, gateways and tunnels"
else
	fail "route show -j"
fi
if $CTL route show vrf red >"$WORK/text" &&
   grep -qx '198.18.13.0/24 nexthop tunnel t5 weight 1 nexthop tunnel t6 weight 3' "$WORK/text" &&
   grep -q '^198.18.2.0/24 nexthop via 192.0.2.20 dev net_null1 weight 1\( dead\)\? nexthop via 192.0.2.21 dev net_null1 weight 3' "$WORK/text"; then
	ok "route show (text): one line per route, its nexthops in it"
else
	fail "route show (text): $(cat "$WORK/text")"
fi
if $CTL -j route groups | $PY -c '
import json, sys
d = json.loads(sys.stdin.read())
for g in d["groups"]:
    assert sum(m["buckets"] for m in g["nexthops"]) in (0, 512) or \
        any(m["state"] == "dead" for m in g["nexthops"]), g
    for m in g["nexthops"]:
        assert m["state"] == "dead" or m["buckets"] > 0, g
f = d["failover"]
assert set(f) >= {"nh_failovers", "nh_recoveries", "port_down", "port_up",
                  "gw_lost", "gw_back", "gw_watched", "gw_down"}, f
' && $CTL route groups | grep -q '^    nexthop tunnel t6 weight 3 up buckets 384$'; then
	ok "route groups (JSON and text): buckets add up to 512, t6 holds 384"
else
	fail "route groups: $($CTL route groups | head -20)"
fi

# ---- which path a flow takes ------------------------------------------------
for s in $(seq 200); do
	echo "route get 198.18.4.9 vrf red from 192.0.2.10 proto udp sport $s dport 4789"
done >"$WORK/flows"
if out=$($CTL -j -b "$WORK/flows" | $PY -c '
import collections, json, sys
n = collections.Counter()
hashes = set()
for ln in sys.stdin:
    d = json.loads(ln)
    n[d["chosen"]["tunnel"]] += 1
    hashes.add(d["hash"])
print(" ".join("%s=%d" % kv for kv in sorted(n.items())), len(hashes))
ok = sorted(n) == ["t1", "t2", "t3", "t4"] and all(30 <= v <= 70 for v in n.values())
sys.exit(0 if ok else 1)'); then
	ok "200 flows (sport 1..200) over 4 paths: $out distinct hashes, each path 15-35 %"
else
	fail "200 flows over 4 paths: ${out:-}"
fi
a=$($CTL -j route get 198.18.4.9 vrf red from 192.0.2.10 proto tcp sport 1000 dport 80 | jget hash)
b=$($CTL -j route get 198.18.4.9 vrf red from 192.0.2.10 proto tcp sport 1000 dport 80 | jget hash)
c=$($CTL -j route get 198.18.4.9 vrf red from 192.0.2.10 proto tcp sport 1001 dport 80 | jget hash)
if [ "$a" = "$b" ] && [ "$a" != "$c" ]; then
	ok "a flow's hash is the same each time ($a), the next port's another ($c)"
else
	fail "flow hashes: $a $b $c"
fi
if $CTL route get 198.18.4.9 vrf red proto tcp sport 1000 dport 80 |
   grep -q '^chosen: nexthop tunnel t[1-4] (flow hash 0x[0-9a-f]\{8\}, bucket [0-9]*)$'; then
	ok "route get (text): the chosen path and the flow hash"
else
	fail "route get (text): $($CTL route get 198.18.4.9 vrf red proto tcp sport 1000 dport 80 2>&1)"
fi

for h in $(seq 0 511); do
	echo "route get 198.18.13.1 vrf red hash $h"
done >"$WORK/hashes"
if out=$($CTL -j -b "$WORK/hashes" | $PY -c '
import collections, json, sys
n = collections.Counter(json.loads(ln)["chosen"]["tunnel"] for ln in sys.stdin)
print("t5=%d t6=%d" % (n["t5"], n["t6"]))
sys.exit(0 if abs(n["t5"] - 128) <= 2 and abs(n["t6"] - 384) <= 2 and
         sum(n.values()) == 512 else 1)'); then
	ok "hash 0..511 over paths weighted 1:3: $out"
else
	fail "hash 0..511 over 1:3: ${out:-}"
fi
if [ "$($CTL -j route get 198.18.13.1 vrf red hash 7 | jget chosen.tunnel)" = \
     "$($CTL -j route get 198.18.13.1 vrf red hash $((7 + 512 * 1000)) | jget chosen.tunnel)" ]; then
	ok "a hash's low 9 bits choose the bucket"
else
	fail "hash 7 and 7 + 512000 took different paths"
fi
refused "hash and flow fields" "not both" \
	route get 198.18.13.1 vrf red hash 7 sport 5
refused "ports without a protocol that has them" "need proto tcp, udp or sctp" \
	route get 198.18.13.1 vrf red proto 1 sport 5
refused "from of the other family" "is not an IPv4 address" \
	route get 198.18.13.1 vrf red from 2001:db8::1

# ---- a batch file and a config file with a bad line -----------------------
printf '# one bad path\nroute add 198.18.99.0/24 vrf red nexthop tunnel t1 nexthop tunnel t2 weight 0\n' >"$WORK/bad.batch"
snap >"$WORK/before"
rc=0
$CTL -b "$WORK/bad.batch" >/dev/null 2>"$WORK/err" || rc=$?
snap >"$WORK/after"
if [ "$rc" = 1 ] && grep -qF "$WORK/bad.batch:2: nexthop 2: weight 0 out of range" "$WORK/err" &&
   cmp -s "$WORK/before" "$WORK/after"; then
	ok "tepctl -b: $(head -n 1 "$WORK/err"), nothing changed"
else
	fail "tepctl -b with a bad nexthop: exit $rc, $(cat "$WORK/err")"
fi
cat >"$WORK/bad.conf" <<-'CONF'
port set net_null0 role underlay
tunnel add a type vxlan local 198.51.100.1 remote 198.51.100.2 vni 1 inner-dmac 02:00:00:00:00:01
route add 198.18.0.0/24 nexthop tunnel a nexthop tunnel nosuch
CONF
rc=0
timeout 60 ip netns exec "$DP" "$TEPD" -l 0-1 --no-huge -m 512 --no-pci \
	--file-prefix "tep$TAG$RANDOM" --vdev=net_null0 -- \
	-s "$WORK/bad.sock" -f "$WORK/bad.conf" >"$WORK/bad.out" 2>"$WORK/bad.err" || rc=$?
if [ "$rc" != 0 ] && [ "$rc" != 124 ] &&
   grep -qxF "tepd: $WORK/bad.conf:3: nexthop 2: no tunnel \"nosuch\"" "$WORK/bad.err" &&
   [ ! -e "$WORK/bad.sock" ]; then
	ok "config file: $(grep -F bad.conf "$WORK/bad.err"), tepd did not start"
else
	fail "config file with a bad nexthop: exit $rc, $(grep -v '^EAL\|^TELEMETRY' "$WORK/bad.err" | head -c 300)"
fi

# ---- /metrics ---------------------------------------------------------------
want=$(groups | wc -w)
page=$(ip netns exec "$DP" curl -sf "http://127.0.0.1:$MPORT/metrics" || true)
if grep -qx "tepd_nexthop_groups $want" <<<"$page" &&
   grep -q '^tepd_nexthop_failovers_total [0-9]*$' <<<"$page" &&
   grep -q '^tepd_nexthop_gateway_lost_total [0-9]*$' <<<"$page"; then
	ok "/metrics: tepd_nexthop_groups $want, failovers and gateways counted"
else
	fail "/metrics: $(grep nexthop <<<"$page" | head -5)"
fi
if command -v promtool >/dev/null; then
	if promtool check metrics <<<"$page" >"$WORK/promtool" 2>&1; then
		ok "promtool check metrics accepts the page"
	else
		fail "promtool: $(head -5 "$WORK/promtool")"
	fi
fi

# ---- cleanup: every group goes with its routes ------------------------------
for p in 198.18.2.0/24 198.18.4.0/24 198.18.13.0/24 198.18.5.0/24 198.18.64.0/24; do
	$CTL route del "$p" vrf red
done
if [ "$($CTL -j route groups | jget count)" = 0 ]; then
	ok "all routes deleted: no group left"
else
	fail "groups left: $(groups)"
fi
finish
