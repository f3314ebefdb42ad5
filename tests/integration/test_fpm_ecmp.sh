#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# zebra's multipath routes and next-hop objects through tepd -P, fed by
# fpm_feed.py playing zebra (docs/evpn.md, "Multipath and next-hop
# objects"): a multipath route becomes a next-hop group with the paths'
# weights, routes with the same paths share one, a replace releases it;
# an EVPN prefix behind two VTEPs is a group of two automatic tunnels,
# both deleted with the route; a route of 100 paths keeps 64 and counts
# the rest; a frame of 1000 is refused and changes nothing; routes by
# next-hop object follow the object's replaces and go with its delete;
# hostile objects are refused, counted and logged.
#
# Each fpm_feed.py run is a connection of its own: zebra's objects are per
# connection (tepd forgets them at a new one), so each object check sends
# its objects and routes together. quiet and hold are long: nothing is
# swept behind the checks' backs.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SITE_RED_TABLE=10 SITE_EXTRA_CONF="evpn vrf red vni 100" \
	TEPD_ARGS="-P 2620" vxlan_site_setup af_packet 4
LOG=$WORK/tepd-tepd.sock.log
FEED="ip netns exec $DP $PY $HERE/fpm_feed.py"
G=198.51.100	# the underlay's network: its gateways resolve

cnt() { $CTL -j stats | jget "fpm.fpm_$1" 2>/dev/null || echo 0; }
expect() {	# expect WHAT GOT WANT
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: got '$2', want '$3'"; fi
}
# paths VRF PREFIX: "group G: via/tunnel:weight ..." (sorted), "via X" for
# a plain next hop, "none" without a route
paths() {
	$CTL -j route show vrf "$1" | $PY -c 'import json,sys
d=json.load(sys.stdin)
r=[x for x in d["routes"] if x["prefix"]==sys.argv[1]]
if not r:
    print("none"); sys.exit()
r=r[0]
if "nexthops" in r:
    m=sorted("%s:%s" % (n.get("via", n.get("tunnel")), n["weight"])
             for n in r["nexthops"])
    print("group %s: %s" % (r["group"], " ".join(m)))
else:
    print("via %s" % r.get("via", r.get("tunnel", r.get("type"))))' "$2"
}
gid() { paths "$1" "$2" | sed -n 's/^group \([0-9]*\):.*/\1/p'; }
# groups named by any route of any VRF
groups() {
	for v in default red; do
		$CTL -j route show vrf $v | $PY -c 'import json,sys
for r in json.load(sys.stdin)["routes"]:
    if "group" in r: print(r["group"])'
	done | sort -un | tr '\n' ' '
}
tun() { $CTL tunnel show "$1" >/dev/null 2>&1 && echo yes || echo no; }

$CTL fpm set quiet 600
$CTL fpm set hold 600

# 1. multipath routes into groups, with weights; identical paths merge;
# a path that cannot be used is left out and counted
$FEED add 198.18.30.0/24 via $G.2,$G.3 \; \
	add 198.18.31.0/24 via $G.2,$G.3,$G.4,$G.5 weights 1,2,3,4 \; \
	add 198.18.32.0/24 via $G.3,$G.2 \; \
	add 198.18.33.0/24 via $G.2,$G.2,$G.3 weights 1,2,5 \; \
	add 198.18.34.0/24 via $G.2,203.0.113.77
expect "2 paths: a group, weight 1 each" \
	"$(paths default 198.18.30.0/24 | cut -d: -f2-)" " $G.2:1 $G.3:1"
expect "4 paths: a group with the paths' weights" \
	"$(paths default 198.18.31.0/24 | cut -d: -f2-)" " $G.2:1 $G.3:2 $G.4:3 $G.5:4"
g30=$(gid default 198.18.30.0/24)
g31=$(gid default 198.18.31.0/24)
if [ -n "$g30" ] && [ -n "$g31" ] && [ "$g30" != "$g31" ] &&
   [ "$(gid default 198.18.32.0/24)" = "$g30" ]; then
	ok "same paths (another order), same group $g30; other paths, group $g31"
else
	fail "groups: 30 '$g30', 31 '$g31', 32 '$(gid default 198.18.32.0/24)'"
fi
expect "the same gateway twice: one member, weights added" \
	"$(paths default 198.18.33.0/24 | cut -d: -f2-)" " $G.2:3 $G.3:5"
expect "an unresolvable path left out: the route over the other" \
	"$(paths default 198.18.34.0/24) $(cnt paths_skipped)" "via $G.2 1"
expect "counters: multipath routes, nothing truncated" \
	"$(cnt routes_multipath) $(cnt ecmp_truncated)" "4 0"
$CTL route show | grep -q "^198.18.31.0/24 group $g31\|^198.18.31.0/24.* nexthop via $G.5 dev net_af_packet1 weight 4" &&
	ok "route show text names the paths" || { fail "route show text"; $CTL route show; }

# 2. a replace to a single path releases the group; a group another route
# still names stays
$FEED add 198.18.31.0/24 via $G.2 \; add 198.18.30.0/24 via $G.4
got="$(paths default 198.18.31.0/24) $(paths default 198.18.30.0/24) $(gid default 198.18.32.0/24)"
expect "replaced by single paths" "$got" "via $G.2 via $G.4 $g30"
case " $(groups)" in
*" $g31 "*) fail "group $g31 still named after its route went to one path: $(groups)" ;;
*" $g30 "*) ok "group $g31 released, $g30 kept for 198.18.32.0/24 (groups: $(groups))" ;;
*) fail "group $g30 gone while 198.18.32.0/24 names it: $(groups)" ;;
esac
# A deleted group gives back its members' next-hop slots (FPM's count in
# `fpm show`): left are the plain next hops via .2 (198.18.34.0/24, first
# connection; 198.18.31.0/24, second) and via .4 (198.18.30.0/24), and
# the groups of 198.18.32.0/24 and .33 with member .3 of the first
# connection (.2 is shared): 6; once those two routes go, 3.
nhs() { $CTL -j fpm show | jget nexthops; }
expect "group $g31 deleted: its members' next hops given back" "$(nhs)" 6
$FEED del 198.18.32.0/24 \; del 198.18.33.0/24
case " $(groups)" in
*" $g30 "*) fail "group $g30 left after its last route went: $(groups)" ;;
*) ok "group $g30 released with its last route" ;;
esac
expect "the last groups deleted: their members' next hops given back" "$(nhs)" 3

# 3. EVPN: one prefix behind two VTEPs: a tunnel each, a group of both;
# the delete removes both tunnels
T2=evpn-red-$G.2-100 T3=evpn-red-$G.3-100 T6=evpn-red-$G.6-100
$FEED mac 02:00:00:00:01:02 $G.2 \; mac 02:00:00:00:01:03 $G.3 \; \
	add 198.18.40.0/24 via $G.2,$G.3 vni 100 table 10
expect "EVPN, two VTEPs: two tunnels, one group" \
	"$(paths red 198.18.40.0/24 | cut -d: -f2-) $(tun $T2) $(tun $T3)" \
	" $T2:1 $T3:1 yes yes"
$FEED del 198.18.40.0/24 table 10
expect "EVPN route deleted: both automatic tunnels gone" \
	"$(paths red 198.18.40.0/24) $(tun $T2) $(tun $T3)" "none no no"
# a VTEP without a router MAC yet: the route goes over the other, and
# over both once the MAC comes
$FEED add 198.18.41.0/24 via $G.2,$G.6 vni 100 table 10
expect "one VTEP waits for its router MAC: the route over the other" \
	"$(paths red 198.18.41.0/24) $($CTL -j evpn show | jget pending)" "via $T2 1"
$FEED mac 02:00:00:00:01:06 $G.6
expect "its MAC came: the route over both" \
	"$(paths red 198.18.41.0/24 | cut -d: -f2-) $($CTL -j evpn show | jget pending)" \
	" $T2:1 $T6:1 0"
$FEED del 198.18.41.0/24 table 10
expect "and both tunnels go with it" "$(tun $T2) $(tun $T6)" "no no"

# 4. past 64 paths: 100 (zebra may send up to 256) keep their first 64;
# 1000 are refused whole, the connection dropped, nothing changed
$FEED paths 198.18.50.0/24 100 $G.10
n=$($CTL -j route show | $PY -c 'import json,sys
r=[x for x in json.load(sys.stdin)["routes"] if x["prefix"]=="198.18.50.0/24"]
print(len(r[0]["nexthops"]) if r else 0)')
expect "100 paths: a group of the first 64, 36 counted" \
	"$n $(cnt ecmp_truncated)" "64 36"
grep -q "tepd: fpm: a route of 100 paths installed with its first 64" "$LOG" &&
	ok "truncation logged" || fail "no truncation log line"
before=$($CTL -j route show)
rc=0
$FEED --expect-close 3 add 198.18.51.0/24 via $G.2 \; \
	paths 198.18.50.0/24 1000 10.0.0.1 2>/dev/null || rc=$?
if [ "$rc" = 0 ] &&
   [ "$($CTL -j stats | jget fpm.fpm_err_too_many_next_hops)" = 1 ] &&
   grep -q "tepd: fpm: too many next hops at frame 2, dropping the connection" "$LOG" &&
   [ "$(paths default 198.18.51.0/24)" = "via $G.2" ]; then
	ok "1000 paths: refused (counted, logged, connection dropped), the frame before applied"
else
	fail "1000 paths: rc=$rc $($CTL -j stats | jget fpm.fpm_err_too_many_next_hops 2>&1)"
fi
$FEED del 198.18.51.0/24
if [ "$($CTL -j route show)" = "$before" ]; then
	ok "1000 paths: routes unchanged"
else
	fail "1000 paths changed the routes"
fi

# 5. routes by next-hop object (`fpm use-next-hop-groups`): a group
# object and a single one; the group replaced, then a member replaced:
# the routes follow each time; a group with a member tepd lacks is
# refused, counted and logged; a route by an unknown object is skipped
$FEED nh 1 via $G.2 \; nh 2 via $G.3 \; nh 3 via $G.4 \; \
	nhg 10 1,2:3 \; \
	add 198.18.60.0/24 nhid 10 \; add 198.18.61.0/24 nhid 1 \; \
	add 198.18.63.0/24 nhid 10 \; \
	nhg 10 1,3:2 \; nh 1 via $G.5 \; \
	nhg 12 1,99 \; add 198.18.62.0/24 nhid 77
expect "route by a group object: its members; replaces followed" \
	"$(paths default 198.18.60.0/24 | cut -d: -f2-)" " $G.4:2 $G.5:1"
expect "route by a single object: its gateway, replace followed" \
	"$(paths default 198.18.61.0/24)" "via $G.5"
expect "two routes by one object: one group" \
	"$(gid default 198.18.63.0/24)" "$(gid default 198.18.60.0/24)"
expect "followed, by object, unknown object, refused" \
	"$(cnt nh_obj_routes_followed) $(cnt routes_by_nh_obj) $(cnt routes_nh_id) $(cnt nh_objs_refused)" \
	"5 8 1 1"
expect "route by an unknown object: not installed" \
	"$(paths default 198.18.62.0/24)" none
grep -q "tepd: fpm: next-hop object 12: add refused: group member unknown (counted in fpm_nh_objs_refused; nothing changed)" "$LOG" &&
	ok "refused object logged" || fail "no log line for object 12"
# deleting an object deletes the routes through it (as the kernel does);
# a member of a group is not deleted before the group
$FEED nh 1 via $G.2 \; nh 2 via $G.3 \; nhg 10 1,2 \; \
	add 198.18.60.0/24 nhid 10 \; add 198.18.61.0/24 nhid 1 \; \
	nhdel 1 \; nhdel 10 \; nhdel 1
expect "object deletes: the routes through them gone, a member refused first" \
	"$(paths default 198.18.60.0/24) $(paths default 198.18.61.0/24) $(cnt nh_obj_routes_removed) $(cnt nh_objs_refused)" \
	"none none 2 2"
# left: object 2; of the connection before (not replayed, not swept):
# 198.18.63.0/24, and 198.18.62.0/24 by the unknown object 77 (it would
# follow a replace of 77)
expect "fpm show: objects and routes by object" \
	"$($CTL -j fpm show | jget nh_objects) $($CTL -j fpm show | jget nh_obj_routes)" "1 2"
# a group naming itself is malformed: the connection is dropped
rc=0
$FEED --expect-close 3 nh 1 via $G.2 \; nhg 11 1,11 2>/dev/null || rc=$?
expect "a group naming itself: connection dropped, counted" \
	"$rc $($CTL -j stats | jget fpm.fpm_err_group_contains_itself)" "0 1"

# 6. the sweep after a replay releases the groups of the routes it
# removes, and their members' next hops: a replay of one EVPN route over
# two VTEPs leaves that group, its two tunnels and its three next hops
g0=$(groups)
$CTL fpm set quiet 1
$FEED --linger 2.5 add 198.18.42.0/24 via $G.2,$G.3 vni 100 table 10
sleep 0.5
got="$(groups)/$(nhs)/$(tun $T2) $(tun $T3)/$(paths default 198.18.50.0/24)"
want="$(gid red 198.18.42.0/24) /3/yes yes/none"
if [ "$got" = "$want" ] && [ -n "$g0" ]; then
	ok "sweep: groups ($g0) released with their routes, the replayed one kept"
else
	fail "sweep: got '$got', want '$want' (groups before: '$g0')"
fi

finish
