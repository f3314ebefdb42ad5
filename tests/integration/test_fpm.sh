#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# tepd as zebra's FPM server (tepd -P), fed by fpm_feed.py playing zebra:
# routes appear with proto fpm and go with deletes; a reconnect with a
# smaller replay sweeps what was not replayed; routes are held after a
# disconnect, then removed; configured routes survive all of it;
# malformed frames drop the connection, are counted and logged, and change
# nothing; a connection from a uid that is not allowed is refused and
# changes nothing; traffic follows a route that came from FPM.
#
#   ten (192.0.2.10, lo 203.0.113.5) -- [tepd access, vrf red, table 10]
#                                        [tepd underlay] -- peer (vx0 vni 42,
#                                                                 vx100 vni 100)
# EVPN: routes with an on-link VTEP gateway in vrf red (L3VNI 100, as
# zebra 8.4.4 sends them: no VNI) or with a VXLAN encap go into automatic
# tunnels, held until the VTEP's router MAC arrives.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SITE_RED_TABLE=10 SITE_EXTRA_CONF="vrf add blue table 20
	evpn vrf red vni 100" TEPD_ARGS="-P 2620 -M 127.0.0.1:9108" \
	vxlan_site_setup af_packet 4
LOG=$WORK/tepd-tepd.sock.log
FEED="ip netns exec $DP $PY $HERE/fpm_feed.py"

# has VRF PREFIX: the route's proto, or "none"
has() {
	$CTL -j route show vrf "$1" | $PY -c 'import json,sys
d=json.load(sys.stdin)
r=[x for x in d["routes"] if x["prefix"]==sys.argv[1]]
print(r[0].get("proto","?") if r else "none")' "$2"
}
cnt() { $CTL -j stats | jget "fpm.fpm_$1" 2>/dev/null || echo 0; }
expect() {	# expect WHAT GOT WANT
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: got '$2', want '$3'"; fi
}
# wait_for VRF PREFIX PROTO: up to 5 s
wait_for() {
	for _ in $(seq 50); do
		[ "$(has "$1" "$2")" = "$3" ] && return 0
		sleep 0.1
	done
	return 0
}

$CTL fpm set quiet 1
$CTL fpm set hold 600
$CTL route add 198.18.99.0/24 via 198.51.100.2
$CTL route add 198.18.98.0/24 blackhole

# 1. a first connection (closed right away: its routes are held)
$FEED add 198.18.10.0/24 via 198.51.100.2 \; \
	add 198.18.11.0/24 via 198.51.100.2 \; \
	add 2001:db8:50::/48 blackhole \; \
	add 203.0.113.0/26 via 192.0.2.10 table 10 \; \
	add 198.18.20.0/24 unreachable table 20 \; \
	add 198.18.30.0/24 via 198.51.100.2,198.51.100.3 \; \
	add 198.18.40.0/24 via 198.51.100.2 table 77 \; \
	add 198.18.50.0/24 via 203.0.113.77 \; \
	add 198.18.98.0/24 via 198.51.100.2 \; \
	del 198.18.99.0/24
wait_for default 198.18.30.0/24 fpm
expect "gateway route, default vrf" "$(has default 198.18.10.0/24)" fpm
expect "blackhole route, IPv6" "$(has default 2001:db8:50::/48)" fpm
expect "route for table 10 in vrf red" "$(has red 203.0.113.0/26)" fpm
expect "unreachable route for table 20 in vrf blue" "$(has blue 198.18.20.0/24)" fpm
expect "multipath route" "$(has default 198.18.30.0/24)" fpm
expect "multipath: a group, nothing truncated" \
	"$(cnt routes_multipath) $(cnt ecmp_truncated)" "1 0"
expect "unknown table skipped" "$(cnt routes_no_vrf)" 1
grep -q "tepd: fpm: routes for table 77 skipped" "$LOG" &&
	ok "unknown table logged" || fail "no log line for table 77"
expect "unresolvable gateway skipped" "$(has default 198.18.50.0/24)" none
expect "unresolvable gateway counted" "$(cnt routes_unresolved)" 1
expect "static route not replaced by fpm" "$(has default 198.18.98.0/24)" static
expect "static route not deleted by fpm" "$(has default 198.18.99.0/24)" static
expect "static kept counted" "$(cnt routes_static_kept)" 1
expect "static delete refused counted" "$(cnt route_del_not_fpm)" 1
text=$($CTL route show)
if grep -q "198.18.10.0/24 via 198.51.100.2 dev net_af_packet1 proto fpm" <<<"$text" &&
   grep -q "^198.18.99.0/24 via 198.51.100.2 dev net_af_packet1$" <<<"$text"; then
	ok "route show: proto fpm in text, static routes as before"
else
	fail "route show text: $text"
fi
$CTL -j route show | grep -q '"proto": *"fpm"' && ok "JSON proto" ||
	fail "no \"proto\": \"fpm\" in JSON"

# 2. traffic follows the FPM route: peer -> tunnel -> vrf red -> FPM
# route 203.0.113.0/26 via the tenant -> tenant's 203.0.113.5
ip -n "$TEN" addr add 203.0.113.5/32 dev lo
ip -n "$PEER" route add 203.0.113.0/26 via 198.18.0.1 dev vx0
if ip netns exec "$PEER" ping -c 3 -i 0.2 -W 2 203.0.113.5 >"$WORK/ping" 2>&1 ||
   ip netns exec "$PEER" ping -c 3 -i 0.2 -W 2 203.0.113.5 >"$WORK/ping" 2>&1; then
	ok "ping through the tunnel along an FPM route"
else
	fail "ping 203.0.113.5 along the FPM route"; cat "$WORK/ping"
fi

# 3. still held (hold 600 s), then a reconnect replays less: a delete
# while connected, then the sweep after 1 s of quiet
expect "routes held after the disconnect" "$(has blue 198.18.20.0/24)" fpm
$FEED --linger 3 add 198.18.10.0/24 via 198.51.100.2 \; \
	add 203.0.113.0/26 via 192.0.2.10 table 10 \; \
	add 198.18.30.0/24 via 198.51.100.2 \; \
	del 198.18.30.0/24 &
fpid=$!
wait_for default 198.18.30.0/24 none
expect "fpm delete removes the route" "$(has default 198.18.30.0/24)" none
expect "not yet swept during the replay" "$(has default 198.18.11.0/24)" fpm
wait $fpid
expect "replayed route kept" "$(has default 198.18.10.0/24)" fpm
expect "replayed route in vrf red kept" "$(has red 203.0.113.0/26)" fpm
expect "unreplayed route swept" "$(has default 198.18.11.0/24)" none
expect "unreplayed IPv6 route swept" "$(has default 2001:db8:50::/48)" none
expect "unreplayed route in vrf blue swept" "$(has blue 198.18.20.0/24)" none
expect "static routes survive the sweep" \
	"$(has default 198.18.99.0/24) $(has default 198.18.98.0/24)" "static static"
expect "swept count" "$(cnt routes_swept)" 3
grep -q "replay complete: 3 stale route(s) removed" "$LOG" &&
	ok "sweep logged" || fail "no sweep log line"

# 3b. BGP stale time: a replay without zebra's BGP routes (bgpd not back
# yet) sweeps the others at once and BGP's only `stale` seconds later
$CTL fpm set stale 2
KEEP="add 198.18.10.0/24 via 198.51.100.2 ; add 203.0.113.0/26 via 192.0.2.10 table 10"
# shellcheck disable=SC2086
$FEED --linger 2 $KEEP \; add 198.18.60.0/24 via 198.51.100.2 proto 186 \; \
	add 198.18.61.0/24 via 198.51.100.2
sw0=$(cnt routes_swept)
# shellcheck disable=SC2086
$FEED --linger 5 $KEEP &
fpid=$!
sleep 1.8
got="$(has default 198.18.60.0/24) $(has default 198.18.61.0/24)"
expect "after the replay: the BGP route held, the other swept" "$got" "fpm none"
wait_for default 198.18.60.0/24 none
expect "the BGP route swept after the stale time" \
	"$(has default 198.18.60.0/24) $(($(cnt routes_swept) - sw0))" "none 2"
wait $fpid
grep -q "replay complete: 1 stale route(s) removed, 1 BGP route(s) held for 2000 ms" "$LOG" &&
   grep -q "BGP stale time over: 1 stale route(s) removed" "$LOG" &&
	ok "stale time logged" || fail "no stale time log lines"
expect "replayed routes kept" \
	"$(has default 198.18.10.0/24) $(has red 203.0.113.0/26)" "fpm fpm"
$CTL fpm set stale 0

# 4. malformed frames: the valid frame before stays, the bad one is not
# installed, the connection is dropped, counted and logged
before=$($CTL -j route show)
n=1
for kind in short:"frame length below minimum" \
	    nlmsg-len:"nlmsg_len disagrees with frame length" \
	    attr-trunc:"truncated attribute header" \
	    nested-past-end:"nested attribute past end" \
	    rtnh-past-end:"next hop past end" \
	    version:"bad version" \
	    partial:"incomplete frame"; do
	k=${kind%%:*} name=${kind#*:}
	key=fpm_err_$(tr -c 'a-z0-9\n' _ <<<"$name")
	if [ "$k" = partial ]; then
		$FEED add 198.18.10.0/24 via 198.51.100.2 \; partial
		sleep 0.3
		res=0
	else
		res=0
		$FEED --expect-close 3 add 198.18.10.0/24 via 198.51.100.2 \; \
			bad "$k" 2>/dev/null || res=$?
	fi
	got=$($CTL -j stats | jget "fpm.$key" 2>/dev/null || echo 0)
	if [ "$res" = 0 ] && [ "$got" = 1 ] &&
	   grep -q "tepd: fpm: $name at frame 2, dropping the connection" "$LOG" &&
	   [ "$(has default 203.0.113.99/32)$(has default 203.0.113.98/32)$(has default 203.0.113.97/32)" = nonenonenone ] &&
	   [ "$($CTL -j route show)" = "$before" ]; then
		ok "malformed ($k): dropped, $key=1, logged, RIB unchanged"
	else
		fail "malformed ($k): closed rc=$res $key=$got"
		grep "tepd: fpm:" "$LOG" | tail -3
	fi
	n=$((n + 1))
done
expect "drops counted" "$(cnt conn_dropped)" 7

# one client at a time: a new connection replaces the current one (both
# close before the quiet period, so nothing is swept)
$FEED --expect-close 3 add 198.18.10.0/24 via 198.51.100.2 2>/dev/null &
fpid=$!
sleep 0.3
$FEED add 198.18.10.0/24 via 198.51.100.2
rc=0
wait $fpid || rc=$?
if [ "$rc" = 0 ] && [ "$(cnt conn_replaced)" = 1 ] &&
   grep -q "closed: replaced by a new connection" "$LOG" &&
   [ "$(has default 198.18.10.0/24) $(has red 203.0.113.0/26)" = "fpm fpm" ]; then
	ok "a second connection replaces the first (closed, counted, logged)"
else
	fail "replacement: first closed rc=$rc, replaced=$(cnt conn_replaced)"
fi

# 4b. only root, tepd's uid and `fpm set uids` may connect: a live
# session (root, zebra's stand-in) is not replaced by uid 65534, whose
# connection is closed at once and installs nothing
NOBODY="ip netns exec $DP setpriv --reuid=65534 --regid=65534 --clear-groups $PY $HERE/fpm_feed.py"
$CTL fpm set quiet 10	# no sweep: the sessions here replay nothing
$FEED --linger 4 add 198.18.13.0/24 via 198.51.100.2 &
fpid=$!
wait_for default 198.18.13.0/24 fpm
gen=$($CTL -j fpm show | jget generation)
c0="$(cnt connects) $(cnt conn_replaced)"
rc=0
$NOBODY --expect-close 3 add 198.18.14.0/24 via 198.51.100.2 2>/dev/null || rc=$?
sleep 0.3
got="rc=$rc $(has default 198.18.14.0/24) refused_uid=$(cnt refused_uid) gen=$($CTL -j fpm show | jget generation) connected=$($CTL -j fpm show | jget connected) $(cnt connects) $(cnt conn_replaced)"
want="rc=0 none refused_uid=1 gen=$gen connected=True $c0"
if [ "$got" = "$want" ] &&
   grep -q "tepd: fpm: connection from 127.0.0.1:[0-9]* refused: uid 65534 is not allowed" "$LOG"; then
	ok "uid 65534 refused: closed, nothing installed, zebra's session kept, counted, logged"
else
	fail "uid 65534: got '$got', want '$want'"
	grep "tepd: fpm:" "$LOG" | tail -3
fi
wait $fpid
# a connection whose owner closed it before tepd accepted (tepd stopped
# meanwhile): its socket has no owner left to check, so it is refused
kill -STOP "${TEPD_PIDS[0]}"
$NOBODY --close-at-once add 198.18.15.0/24 via 198.51.100.2 2>/dev/null
kill -CONT "${TEPD_PIDS[0]}"
sleep 0.5
got="$(has default 198.18.15.0/24) $(cnt refused_unverified)"
if [ "$got" = "none 1" ] &&
   grep -q "refused: its socket is closed, its owner unknown" "$LOG"; then
	ok "a connection closed before the accept: refused (its uid cannot be told)"
else
	fail "closed before the accept: got '$got', want 'none 1'"
	grep "tepd: fpm:" "$LOG" | tail -3
fi
# the allowed uids are settable; root stays allowed
$CTL fpm set uids 65534
$NOBODY add 198.18.14.0/24 via 198.51.100.2 2>/dev/null
wait_for default 198.18.14.0/24 fpm
expect "fpm set uids 65534: uid 65534 accepted" "$(has default 198.18.14.0/24)" fpm
$CTL fpm set uids none
$FEED add 198.18.16.0/24 via 198.51.100.2
wait_for default 198.18.16.0/24 fpm
expect "fpm set uids none: root still accepted" "$(has default 198.18.16.0/24)" fpm
say "$($CTL fpm show | sed -n 2p)"
$CTL fpm show | grep -q "allowed uids: 0 (root); peers outside tepd's namespace: refused" &&
	ok "fpm show names the allowed uids" || { fail "fpm show: uids"; $CTL fpm show; }
if ! $CTL fpm set uids nosuchuser-x 2>"$WORK/err" &&
   grep -q 'no user "nosuchuser-x"' "$WORK/err" &&
   ! $CTL fpm set remote maybe 2>/dev/null &&
   $CTL -j fpm show | grep -q '"allowed_uids": *\[ *0 *\]'; then
	ok "fpm set uids/remote refuse bad values and change nothing"
else
	fail "fpm set uids/remote: $(cat "$WORK/err")"; $CTL -j fpm show
fi
$CTL fpm set uids frr
$CTL fpm set quiet 1

# 5. EVPN. Routes before their VTEP's router MAC are held; the MAC
# releases them into an automatic tunnel; deletes release the tunnel.
ip -n "$PEER" link add vx100 type vxlan id 100 remote 198.51.100.1 \
	local 198.51.100.2 dstport 4789 udpcsum
ip -n "$PEER" link set vx100 address 02:00:00:00:01:00 up
ip -n "$PEER" addr add 198.18.100.2/24 dev vx100
ip -n "$PEER" route add 203.0.113.5/32 via 198.18.100.1 dev vx100
TUN=evpn-red-198.51.100.2-100
$FEED evpn 198.18.100.0/24 198.51.100.2 table 10 \; \
	evpn 2001:db8:100::/48 198.51.100.2 table 10
sleep 0.3
expect "evpn routes held without a router MAC" \
	"$(has red 198.18.100.0/24) $(cnt evpn_pending) $($CTL -j evpn show | jget pending)" "none 2 2"
$FEED mac 02:00:00:00:01:00 198.51.100.2
wait_for red 198.18.100.0/24 fpm
expect "router MAC releases them" \
	"$(has red 198.18.100.0/24) $(has red 2001:db8:100::/48) $($CTL -j evpn show | jget pending)" "fpm fpm 0"
if $CTL -j tunnel show "$TUN" >"$WORK/tun" 2>&1 &&
   grep -q '02:00:00:00:01:00' "$WORK/tun" && grep -q '"vni": *100' "$WORK/tun" &&
   $CTL route show vrf red | grep -q "^198.18.100.0/24 tunnel $TUN proto fpm"; then
	ok "tunnel $TUN made, inner-dmac the router MAC, route into it"
else
	fail "evpn tunnel: $(cat "$WORK/tun")"; $CTL route show vrf red
fi
if ip netns exec "$TEN" ping -c 3 -i 0.2 -W 2 -I 203.0.113.5 198.18.100.2 >"$WORK/ping5" 2>&1 ||
   ip netns exec "$TEN" ping -c 3 -i 0.2 -W 2 -I 203.0.113.5 198.18.100.2 >"$WORK/ping5" 2>&1; then
	ok "ping through the EVPN tunnel (kernel vxlan vni 100)"
else
	fail "ping through the EVPN tunnel"; cat "$WORK/ping5"
fi
# a route with a VXLAN encap names its VNI itself
$FEED add 198.18.101.0/24 via 198.51.100.2 vni 101 table 10
wait_for red 198.18.101.0/24 fpm
$CTL route show vrf red | grep -q "^198.18.101.0/24 tunnel evpn-red-198.51.100.2-101 proto fpm" &&
	ok "route with VXLAN encap: tunnel per VNI" ||
	{ fail "encap route"; $CTL route show vrf red; }
# the MAC withdrawn while routes use it: they stay (zebra 8.4.4 did that)
$FEED macdel 02:00:00:00:01:00 198.51.100.2 \; \
	del 198.18.100.0/24 table 10
sleep 0.3
expect "tunnel stays while a route uses it" \
	"$(has red 198.18.100.0/24) $(has red 2001:db8:100::/48) $($CTL tunnel show "$TUN" >/dev/null 2>&1 && echo yes)" "none fpm yes"
$FEED del 2001:db8:100::/48 table 10 \; del 198.18.101.0/24 table 10
sleep 0.3
if ! $CTL tunnel show "$TUN" >/dev/null 2>&1 &&
   ! $CTL tunnel show evpn-red-198.51.100.2-101 >/dev/null 2>&1; then
	ok "tunnels deleted with their last route"
else
	fail "evpn tunnels left: $($CTL tunnel show)"
fi
expect "evpn counters" "$(cnt evpn_tunnels_created) $(cnt evpn_tunnels_deleted)" "2 2"
# over a configured route: not applied, and no tunnel made for it
$CTL route add 198.18.103.0/24 vrf red blackhole
$FEED mac 02:00:00:00:01:00 198.51.100.2 \; evpn 198.18.103.0/24 198.51.100.2 table 10
sleep 0.3
expect "evpn route over a configured one: not applied, no tunnel made" \
	"$(has red 198.18.103.0/24) $($CTL tunnel show "$TUN" >/dev/null 2>&1 && echo made)" "static "
$CTL route del 198.18.103.0/24 vrf red
# the MAC is known again, from a tunnel-less state: a route re-made
$FEED mac 02:00:00:00:01:00 198.51.100.2 \; evpn 198.18.102.0/24 198.51.100.2 table 10
wait_for red 198.18.102.0/24 fpm
expect "evpn route after the MAC" "$(has red 198.18.102.0/24)" fpm

# 6. zebra gone for good: after the hold time every FPM route goes, and
# configured ones stay
# (hold 3 s: the checks below take a second on a loaded machine)
$CTL fpm set hold 3
$FEED add 198.18.12.0/24 via 198.51.100.2
wait_for default 198.18.12.0/24 fpm
sleep 0.5
expect "held right after the disconnect" "$(has default 198.18.12.0/24)" fpm
wait_for default 198.18.12.0/24 none
expect "removed after the hold time" \
	"$(has default 198.18.12.0/24) $(has default 198.18.10.0/24) $(has red 203.0.113.0/26)" \
	"none none none"
expect "static routes survive the hold timeout" \
	"$(has default 198.18.99.0/24) $(has default 198.18.98.0/24)" "static static"
expect "evpn route and tunnel gone after the hold time" \
	"$(has red 198.18.102.0/24) $($CTL tunnel show "$TUN" >/dev/null 2>&1 && echo left)" "none "

# 7. frames a real zebra 8.4.4 sent (tests/golden/fpm): EVPN type-5
# routes of VRF red came with table 254 (netns VRF backend), so here they
# land in the default VRF, given L3VNI 100 there (taken from red: one
# VRF per VNI)
G=$HERE/../golden/fpm
$CTL fpm set hold 600
$CTL evpn vrf red vni 0
$CTL evpn vrf default vni 100
GT=evpn-default-192.0.2.2-100
$FEED hex "$G/connected.hex" \; hex "$G/static4.hex" \; hex "$G/blackhole.hex" \; \
	hex "$G/evpn4.hex" \; hex "$G/evpn6.hex"
wait_for default 2001:db8:500::/48 fpm
got="$(has default 198.51.100.128/25) $(has default 198.51.100.192/26) $(has default 2001:db8:300::/48) $(has default 203.0.113.0/24)"
if [ "$got" = "fpm fpm fpm fpm" ] &&
   $CTL route show | grep -q "^203.0.113.0/24 tunnel $GT proto fpm" &&
   $CTL route show | grep -q "^2001:db8:500::/48 tunnel $GT proto fpm" &&
   $CTL -j tunnel show "$GT" | grep -q '02:00:00:00:02:02'; then
	ok "zebra's frames: blackhole/reject routes, EVPN v4 and v6 into $GT with r2's router MAC"
else
	fail "zebra's frames: $got"; $CTL route show
fi
$FEED hex "$G/evpndel4.hex"
sleep 0.3
expect "zebra's EVPN v4 withdrawal (with its router MAC): v6 route and tunnel stay" \
	"$(has default 203.0.113.0/24) $(has default 2001:db8:500::/48) $($CTL tunnel show "$GT" >/dev/null 2>&1 && echo yes)" "none fpm yes"
$FEED hex "$G/evpndel6.hex"
sleep 0.3
expect "zebra's EVPN v6 withdrawal: route and tunnel gone" \
	"$(has default 2001:db8:500::/48) $($CTL tunnel show "$GT" >/dev/null 2>&1 && echo left)" "none "
$CTL evpn vrf default vni 0
$CTL evpn vrf red vni 100

# 8. bad settings are refused and change nothing
if ! $CTL fpm set quiet 0 2>/dev/null && ! $CTL fpm set hold x 2>/dev/null &&
   $CTL -j fpm show | grep -q '"quiet_ms": *1000'; then
	ok "fpm set refuses bad values"
else
	fail "fpm set accepted a bad value"
fi
if ! $CTL evpn vrf red vni 16777216 2>/dev/null &&
   ! $CTL evpn vrf blue vni 100 2>/dev/null && ! $CTL evpn local x 2>/dev/null &&
   ! $CTL evpn vrf nosuch vni 5 2>/dev/null &&
   [ "$($CTL -j evpn show | jget l3vnis.0.vni)" = 100 ]; then
	ok "evpn commands refuse bad values"
else
	fail "evpn command accepted a bad value"
fi
$CTL fpm show >"$WORK/show" && grep -q "listening on 2620" "$WORK/show" &&
	ok "fpm show" || { fail "fpm show"; cat "$WORK/show"; }

# 9. /metrics has the FPM counters, and the page is valid
ip netns exec "$DP" $PY -c 'import urllib.request
print(urllib.request.urlopen("http://127.0.0.1:9108/metrics").read().decode())' \
	>"$WORK/metrics.txt"
if grep -qx 'tepd_fpm_parse_errors_total{error="bad version"} 1' "$WORK/metrics.txt" &&
   grep -qx 'tepd_fpm_events_total{event="conn_dropped"} 7' "$WORK/metrics.txt" &&
   grep -qx 'tepd_fpm_events_total{event="refused_uid"} 1' "$WORK/metrics.txt" &&
   grep -qx 'tepd_fpm_connected 0' "$WORK/metrics.txt" &&
   { ! command -v promtool >/dev/null ||
     promtool check metrics <"$WORK/metrics.txt" >"$WORK/promtool" 2>&1; }; then
	ok "/metrics: tepd_fpm_events_total (refused_uid among them), tepd_fpm_parse_errors_total, tepd_fpm_connected"
else
	fail "/metrics fpm: $(grep fpm "$WORK/metrics.txt" | head -5) $(cat "$WORK/promtool" 2>/dev/null)"
fi

# 10. a bad -P stops tepd at start, saying why
: >"$WORK/empty.conf"
for arg in "nonsense:expected [ADDR:]PORT" "2620:cannot listen (Address already in use)"; do
	p=${arg%%:*} want=${arg#*:} rc=0
	timeout 20 ip netns exec "$DP" "$TEPD" -l 0-1 --no-huge -m 512 --no-pci \
		--file-prefix "tep${TAG}p$p" --vdev=net_null0 -- -s "$WORK/p.sock" \
		-f "$WORK/empty.conf" -P "$p" >"$WORK/p.log" 2>&1 || rc=$?
	if [ "$rc" = 1 ] && grep -qF "tepd: -P $p: $want" "$WORK/p.log"; then
		ok "tepd -P $p refused: $(grep -F 'tepd: -P' "$WORK/p.log")"
	else
		fail "tepd -P $p: exit $rc: $(tail -n 2 "$WORK/p.log")"
	fi
done

# 11. a peer outside tepd's namespace (here: another namespace over a
# veth) has no uid tepd can learn: refused unless `fpm set remote on`;
# a local root process connecting to the same non-loopback address is
# let in (what counts is where the socket is, not the address). On an
# IPv6 listener ([::]: IPv4 peers as ::ffff:a.b.c.d), also over ::1.
ip link add fpmr0 netns "$DP" type veth peer name fpmr1 netns "$PEER"
ip -n "$DP" addr add 100.64.0.1/30 dev fpmr0
ip -n "$PEER" addr add 100.64.0.2/30 dev fpmr1
ip -n "$DP" link set fpmr0 up
ip -n "$PEER" link set fpmr1 up
TEPD_ARGS="-P [::]:2621" tepd_start "$DP" "$WORK/r.sock" "$WORK/empty.conf" \
	--vdev=net_null0
CTLR="$TEPCTL -s $WORK/r.sock"
RLOG=$WORK/tepd-r.sock.log
rfeed() {	# rfeed NS ADDR ARGS...
	local ns=$1 addr=$2; shift 2
	ip netns exec "$ns" $PY "$HERE/fpm_feed.py" --addr "$addr" --port 2621 "$@"
}
rhas() {
	$CTLR -j route show | $PY -c 'import json,sys
d=json.load(sys.stdin)
print("fpm" if any(x["prefix"]==sys.argv[1] for x in d["routes"]) else "none")' "$1"
}
rcnt() { $CTLR -j stats | jget "fpm.fpm_$1"; }
rc=0
rfeed "$PEER" 100.64.0.1 --expect-close 3 add 198.18.17.0/24 blackhole 2>/dev/null || rc=$?
got="rc=$rc $(rhas 198.18.17.0/24) $(rcnt refused_unverified)"
if [ "$got" = "rc=0 none 1" ] &&
   grep -q "connection from \[::ffff:100.64.0.2\]:[0-9]* refused: its socket is not in tepd's network namespace" "$RLOG"; then
	ok "a peer in another namespace: refused, counted, logged"
else
	fail "peer in another namespace: got '$got', want 'rc=0 none 1'"
	grep "tepd: fpm:" "$RLOG" | tail -3
fi
rc=0
ip netns exec "$DP" setpriv --reuid=65534 --regid=65534 --clear-groups \
	$PY "$HERE/fpm_feed.py" --addr ::1 --port 2621 --expect-close 3 \
	add 198.18.19.0/24 blackhole 2>/dev/null || rc=$?
got="rc=$rc $(rhas 198.18.19.0/24) $(rcnt refused_uid)"
if [ "$got" = "rc=0 none 1" ] &&
   grep -q "connection from \[::1\]:[0-9]* refused: uid 65534" "$RLOG"; then
	ok "IPv6: uid 65534 over ::1 refused"
else
	fail "IPv6 uid 65534: got '$got', want 'rc=0 none 1'"
fi
rfeed "$DP" 100.64.0.1 add 198.18.18.0/24 blackhole 2>/dev/null
rfeed "$DP" ::1 add 198.18.20.0/24 blackhole 2>/dev/null
$CTLR fpm set remote on
rfeed "$PEER" 100.64.0.1 add 198.18.17.0/24 blackhole 2>/dev/null
got="$(rhas 198.18.18.0/24) $(rhas 198.18.20.0/24) $(rhas 198.18.17.0/24)"
if [ "$got" = "fpm fpm fpm" ] && $CTLR -j fpm show | grep -q '"remote": *true'; then
	ok "local root let in on a non-loopback address and over ::1; the remote peer with remote on"
else
	fail "remote on / local: got '$got', want 'fpm fpm fpm'"
fi

# 12. router MACs: a full table is counted and logged; a delete removes
# what its add made even when the L3VNI changed in between; a reconnect's
# sweep removes the MACs zebra did not send again
# rmacs [VTEP]: the router MACs in evpn show, "VTEP MAC VRF" each (of
# that VTEP only if given), sorted
rmacs() {
	$CTL -j evpn show | $PY -c 'import json,sys
r = json.load(sys.stdin)["router_macs"]
print(" ".join(sorted("%s=%s=%s" % (x["vtep"], x["mac"].lower(), x.get("vrf", "any"))
                      for x in r if len(sys.argv) < 2 or x["vtep"] == sys.argv[1])))' "$@"
}
nrmacs() { rmacs | wc -w; }
# the L3VNI changes between a MAC's add and its delete: the delete still
# finds it (zebra names the neighbour by device, VNI, MAC and VTEP)
$FEED mac 02:00:00:00:0a:0a 198.51.100.10 vni 100 ifindex 7
sleep 0.3
expect "router MAC with NDA_VNI 100: vrf red's" "$(rmacs 198.51.100.10)" \
	"198.51.100.10=02:00:00:00:0a:0a=red"
$CTL evpn vrf red vni 200
$FEED macdel 02:00:00:00:0a:0a 198.51.100.10 vni 100 ifindex 7
sleep 0.3
expect "deleted after the L3VNI changed" "$(rmacs 198.51.100.10)" ""
$CTL evpn vrf red vni 100
# a VTEP's MAC replaced, then the old one deleted: the new one stays
del0=$(cnt rmac_del_unknown)
$FEED mac 02:00:00:00:0b:01 198.51.100.11 \; mac 02:00:00:00:0b:02 198.51.100.11 \; \
	macdel 02:00:00:00:0b:01 198.51.100.11
sleep 0.3
expect "a delete of a VTEP's previous MAC leaves the current one" \
	"$(rmacs 198.51.100.11) $(($(cnt rmac_del_unknown) - del0))" \
	"198.51.100.11=02:00:00:00:0b:02=any 1"
# 300 MACs on one connection: those of earlier connections (not sent
# again: stale) give way first, then the table is full
full0=$(cnt rmac_full)
$FEED macbulk 300 10.99.0.1
sleep 0.3
expect "router MAC table full: 256 kept, the rest counted in fpm_rmac_full" \
	"$(nrmacs) $(($(cnt rmac_full) - full0)) $(rmacs 198.51.100.11)" "256 44 "
grep -q "tepd: fpm: router MAC table full (256 VTEPs): MAC of VTEP .* not kept (counted in fpm_rmac_full; logged once)" "$LOG" &&
	ok "full router MAC table logged" || fail "no log line for the full router MAC table"

# a reconnect that sends one MAC: after its replay, the others are gone
sw0=$(cnt rmacs_swept)
$FEED --linger 2.5 mac 02:00:00:00:01:00 198.51.100.2
expect "reconnect + sweep: only the MAC sent again is left" \
	"$(rmacs) $(($(cnt rmacs_swept) - sw0 >= 255))" \
	"198.51.100.2=02:00:00:00:01:00=any 1"

ip netns exec "$DP" $PY -c 'import urllib.request
print(urllib.request.urlopen("http://127.0.0.1:9108/metrics").read().decode())' \
	>"$WORK/metrics2.txt"
grep -qx "tepd_fpm_events_total{event=\"rmac_full\"} $(cnt rmac_full)" "$WORK/metrics2.txt" &&
	ok "/metrics: fpm_rmac_full" ||
	fail "/metrics rmac_full: $(grep rmac "$WORK/metrics2.txt")"

# 13. what FPM may take of the tunnels and next hops it shares with the
# configuration (fpm set tunnels|nexthops; 3/4 by default): beyond it,
# routes are refused, counted and logged, and the operator's own tunnels
# and routes are still made
expect "fpm show: the caps, 3/4 by default" \
	"$($CTL -j fpm show | jget tunnels_max) $($CTL -j fpm show | jget nexthops_max)" "768 24575"
$CTL fpm set tunnels 1
tc0=$(cnt tunnel_cap)
$FEED mac 02:00:00:00:01:00 198.51.100.2 \; \
	add 198.18.110.0/24 via 198.51.100.2 vni 110 table 10 \; \
	add 198.18.111.0/24 via 198.51.100.2 vni 111 table 10
wait_for red 198.18.110.0/24 fpm
expect "fpm set tunnels 1: a second EVPN tunnel refused, counted" \
	"$(has red 198.18.110.0/24) $(has red 198.18.111.0/24) $(($(cnt tunnel_cap) - tc0)) $($CTL -j fpm show | jget tunnels)" \
	"fpm none 1 1"
grep -q "tepd: fpm: evpn tunnel to 198.51.100.2 refused: fpm may make 1 tunnels (fpm set tunnels; counted in fpm_tunnel_cap; logged once)" "$LOG" &&
	ok "tunnel cap logged" || fail "no log line for the tunnel cap"
if $CTL tunnel add opvx type vxlan local 198.51.100.1 remote 198.51.100.77 \
	vni 77 inner-dmac 02:00:00:00:77:77 && $CTL tunnel del opvx; then
	ok "the operator's tunnel is made beyond FPM's cap"
else
	fail "tunnel add refused under FPM's tunnel cap"
fi
$CTL fpm set tunnels 768
# next hops: two new ones allowed; a route through one FPM already holds
# takes no new slot
used=$($CTL -j fpm show | jget nexthops)
$CTL fpm set nexthops $((used + 2))
nc0=$(cnt nh_cap)
$FEED add 198.18.120.0/24 via 198.51.100.20 \; add 198.18.121.0/24 via 198.51.100.21 \; \
	add 198.18.122.0/24 via 198.51.100.22 \; add 198.18.123.0/24 via 198.51.100.23 \; \
	add 198.18.124.0/24 via 198.51.100.20
wait_for default 198.18.124.0/24 fpm
expect "fpm set nexthops USED+2: two new next hops, two refused, a shared one taken" \
	"$(has default 198.18.120.0/24) $(has default 198.18.121.0/24) $(has default 198.18.122.0/24) $(has default 198.18.123.0/24) $(has default 198.18.124.0/24) $(($(cnt nh_cap) - nc0))" \
	"fpm fpm none none fpm 2"
grep -q "tepd: fpm: route not installed: fpm may hold $((used + 2)) next hops (fpm set nexthops; counted in fpm_nh_cap; logged once)" "$LOG" &&
	ok "next-hop cap logged" || fail "no log line for the next-hop cap"
if $CTL route add 198.18.125.0/24 via 198.51.100.25 && $CTL route del 198.18.125.0/24; then
	ok "the operator's route with a new next hop is made beyond FPM's cap"
else
	fail "route add refused under FPM's next-hop cap"
fi
if ! $CTL fpm set tunnels 1025 2>"$WORK/err1" && ! $CTL fpm set nexthops -1 2>"$WORK/err2" &&
   grep -qF 'tunnels "1025": 0-1024 (how many tunnels FPM may make)' "$WORK/err1" &&
   grep -qF 'nexthops "-1": 0-32767' "$WORK/err2" &&
   [ "$($CTL -j fpm show | jget tunnels_max) $($CTL -j fpm show | jget nexthops_max)" = "768 $((used + 2))" ]; then
	ok "fpm set refuses caps out of range, changing nothing"
else
	fail "fpm set caps: $(cat "$WORK/err1" "$WORK/err2")"
fi
$CTL fpm set nexthops 24575

# 14. a route that changes: zebra 8.4.4 sends RTM_DELROUTE and
# RTM_NEWROUTE of the prefix in one frame. Applied one after the other,
# the prefix would have no route between the two, and an EVPN route's
# automatic tunnel, its only user gone, would be deleted and made again
# (its underlay neighbour resolved anew). tepd applies the pair as one
# replacement: 200 changes of an EVPN route, on one connection, make no
# tunnel and delete none.
$CTL fpm set hold 600
c0=$(cnt evpn_tunnels_created) d0=$(cnt evpn_tunnels_deleted) ch0=$(cnt routes_changed)
$FEED --linger 3 mac 02:00:00:00:01:00 198.51.100.2 \; \
	evpn 198.18.104.0/24 198.51.100.2 table 10 \; \
	change 200 198.18.104.0/24 evpn 198.51.100.2 table 10 &
fpid=$!
for _ in $(seq 50); do
	[ "$(( $(cnt routes_changed) - ch0 ))" -ge 200 ] && break
	sleep 0.1
done
expect "200 changes of an EVPN route (delete + add in one frame): replacements; one tunnel made, none deleted" \
	"$(( $(cnt routes_changed) - ch0 )) $(( $(cnt evpn_tunnels_created) - c0 )) $(( $(cnt evpn_tunnels_deleted) - d0 )) $(has red 198.18.104.0/24)" \
	"200 1 0 fpm"
$CTL route show vrf red | grep -q "^198.18.104.0/24 tunnel $TUN proto fpm" &&
	ok "the route still goes into $TUN" ||
	{ fail "route after the changes"; $CTL route show vrf red; }
wait $fpid || true

finish