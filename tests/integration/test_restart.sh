#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# kill -9 under traffic, then a start from the config file as
# config/tepd.service does (tepd $TEPD_EAL -- -f CONF -s SOCK $TEPD_ARGS),
# on real hugepages and with -N (a namespace and host port per VRF):
# - the new tepd starts (the killed one's hugepage files, runtime
#   directory, VRF namespace and socket are still there) and takes the VRF
#   namespace over;
# - the configured routes, tunnels and addresses are back, and tenant
#   traffic to the kernel's VXLAN flows again within 2 s of the start
#   (measured from the exec to the first echo reply, and printed);
# - with -P, a zebra stand-in that reconnects as zebra does replays its
#   routes (101 in vrf red's table 100), and they are back (time printed);
# - after a clean stop (SIGTERM, as systemd stops it) no hugepage file,
#   runtime directory, namespace, control socket or tap is left.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if ! hugepages_reserve 256; then
	echo "skipped: cannot reserve 256 hugepages"
	exit 77
fi

PREFIX="tepd$TAG"	# the VRF namespaces: /run/netns/$PREFIX-red
DP=$(ns_add dp)
TEN=$(ns_add ten)
PEER=$(ns_add peer)
veth "$TEN" ten0 "$DP" dpacc
ip -n "$TEN" addr add 192.0.2.10/24 dev ten0
ip -n "$TEN" route add default via 192.0.2.1
veth "$DP" dpund "$PEER" peer0 1600
ip -n "$PEER" addr add 198.51.100.2/24 dev peer0
ip -n "$PEER" link add vx0 type vxlan id 42 remote 198.51.100.1 \
	local 198.51.100.2 dstport 4789 udpcsum
ip -n "$PEER" link set vx0 address 02:00:00:00:42:02 up
ip -n "$PEER" addr add 198.18.0.2/24 dev vx0
ip -n "$PEER" route add 192.0.2.0/24 via 198.18.0.1 dev vx0

cat >"$WORK/tepd.conf" <<CONF
vrf add red table 100
port set net_af_packet0 role access
port bind net_af_packet0 vrf red
addr add 192.0.2.1/24 dev net_af_packet0
port set net_af_packet1 role underlay
port set net_af_packet1 mtu 1600
addr add 198.51.100.1/24 dev net_af_packet1
tunnel add vx1 type vxlan local 198.51.100.1 remote 198.51.100.2 vni 42 vrf red inner-dmac 02:00:00:00:42:02
route add 198.18.0.0/24 vrf red tunnel vx1
route add 198.19.7.0/24 vrf red blackhole
CONF
SOCK="$WORK/tepd.sock"
CTL="$TEPCTL -s $SOCK"
# as /etc/default/tepd would say, for these ports
TEPD_EAL="-l 0-1 -m 256 --no-pci --file-prefix $PREFIX --log-level=pmd.net.tap:error
	--vdev=net_af_packet0,iface=dpacc --vdev=net_af_packet1,iface=dpund"
TEPD_ARGS_UNIT="-N -P 2620"

# unit_start LOG: ExecStart, in the namespace of the ports; the pid in
# TPID, the time of the exec in T0 (ns).
unit_start() {
	T0=$(date +%s%N)
	# shellcheck disable=SC2086
	ip netns exec "$DP" "$TEPD" $TEPD_EAL -- -f "$WORK/tepd.conf" -s "$SOCK" \
		$TEPD_ARGS_UNIT >"$WORK/$1" 2>&1 &
	TPID=$!
	TEPD_PIDS+=("$TPID")
}

# Echo replies from the kernel's VXLAN, 20 per second, in the background:
# each reply's time printed (ping -D).
ip netns exec "$TEN" ping -D -i 0.05 -W 1 198.18.0.2 >"$WORK/ping.log" 2>&1 &
PING=$!

# zebra's part: connect (again and again while tepd is away, as zebra's
# FPM client does), replay every route, stay until tepd closes the
# connection. 101 routes in red (table 100): a blackhole and 100 /32s via
# the tenant.
ip netns exec "$DP" bash -c 'while [ ! -e "$1/stop" ]; do
	"$2" "$3" --port 2620 --expect-close 3600 \
		"add 198.19.8.0/24 blackhole table 100" ";" \
		"bulk 100 198.19.100.0 via 192.0.2.10 table 100" >/dev/null 2>&1
	sleep 0.1; done' zebra "$WORK" "$PY" "$HERE/fpm_feed.py" &
ZEBRA=$!
fpm_routes() { $CTL route show vrf red 2>/dev/null | grep -c "198\.19\.\(8\.0/24\|100\.\)" || true; }
# wait_fpm_routes: until all 101 are in red (up to 10 s); the time in FPM_MS
wait_fpm_routes() {
	local n=0
	for _ in $(seq 500); do
		n=$(fpm_routes)
		[ "$n" -ge 101 ] && break
		sleep 0.02
	done
	FPM_MS=$(( ($(date +%s%N) - T0) / 1000000 ))
	[ "$n" -ge 101 ]
}

unit_start tepd-1.log
for _ in $(seq 100); do
	$CTL port list >/dev/null 2>&1 && break
	sleep 0.1
done
sleep 2
if wait_fpm_routes; then ok "zebra's 101 routes installed before the kill"
else fail "zebra's routes not installed before the kill ($(fpm_routes) of 101)"; fi
n1=$(grep -c "bytes from" "$WORK/ping.log" || true)
if [ "$n1" -ge 5 ]; then ok "traffic flows before the kill ($n1 replies)"
else fail "no traffic before the kill"; cat "$WORK/tepd-1.log"; fi
$CTL route show vrf red >"$WORK/routes.before"
$CTL tunnel show >"$WORK/tunnels.before"
$CTL port list | sed 's/ mac [0-9A-F:]*//' >"$WORK/addrs.before"; $CTL route show >>"$WORK/routes.before"

# kill -9 under traffic
kill -9 "$TPID"
wait "$TPID" 2>/dev/null || true
sleep 0.5
count() { local n=0 f; for f in "$@"; do [ -e "$f" ] && n=$((n + 1)); done; echo "$n"; }
say "left by kill -9: $(count /dev/hugepages/"$PREFIX"map_*) hugepage file(s), namespace: $(count /run/netns/"$PREFIX"-*), socket: $([ -e "$SOCK" ] && echo yes || echo no)"
: >"$WORK/ping.log.mark"
mark=$(wc -l <"$WORK/ping.log")

# start again, as the unit does; measure to the first echo reply
unit_start tepd-2.log
first=""
for _ in $(seq 200); do
	if ! kill -0 "$TPID" 2>/dev/null; then
		break
	fi
	line=$(tail -n +"$((mark + 1))" "$WORK/ping.log" | grep -m1 "bytes from" || true)
	if [ -n "$line" ]; then
		first=$line
		break
	fi
	sleep 0.02
done
if [ -z "$first" ]; then
	fail "no traffic after the restart"
	cat "$WORK/tepd-2.log"
else
	# ping -D: [seconds.micros]
	ts=$(echo "$first" | sed -n 's/^\[\([0-9.]*\)\].*/\1/p')
	ms=$($PY -c "print(round(($ts * 1e9 - $T0) / 1e6))")
	echo "restart: traffic flowing again $ms ms after the start"
	if [ "$ms" -lt 2000 ]; then ok "traffic again within 2 s of the start ($ms ms)"
	else fail "traffic again after $ms ms (limit 2000)"; fi
fi
if wait_fpm_routes; then
	echo "restart: zebra's 101 routes back $FPM_MS ms after the start"
	ok "zebra's replay restored its routes ($FPM_MS ms after the start)"
else
	fail "zebra's routes not back after the restart ($(fpm_routes) of 101)"
fi
if grep -qi "taken over" "$WORK/tepd-2.log"; then
	ok "VRF namespace taken over: $(grep -i -m1 "over" "$WORK/tepd-2.log")"
else
	fail "the log does not say the VRF namespace was taken over"
	cat "$WORK/tepd-2.log"
fi
$CTL route show vrf red >"$WORK/routes.after" 2>&1 || true
$CTL tunnel show >"$WORK/tunnels.after" 2>&1 || true
$CTL port list 2>&1 | sed 's/ mac [0-9A-F:]*//' >"$WORK/addrs.after" || true; $CTL route show >>"$WORK/routes.after" 2>&1 || true
for k in routes tunnels addrs; do
	if cmp -s "$WORK/$k.before" "$WORK/$k.after"; then
		ok "$k are back ($(wc -l <"$WORK/$k.after") lines)"
	else
		fail "$k differ after the restart"
		diff "$WORK/$k.before" "$WORK/$k.after" || true
	fi
done
# (the VRF's host port gets a new random MAC: compared without MACs)
# the VRF's host side works: a task in red reaches the tenant
if timeout 10 $CTL vrf exec red -- ping -c 2 -i 0.2 -W 2 192.0.2.10 >"$WORK/vx" 2>&1; then
	ok "vrf exec red works after the restart"
else
	fail "vrf exec red after the restart"; cat "$WORK/vx"
fi
kill "$PING" 2>/dev/null || true
touch "$WORK/stop"

# clean stop, as systemd stops it (SIGTERM); nothing left behind
kill -TERM "$TPID"
for _ in $(seq 100); do kill -0 "$TPID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$TPID" 2>/dev/null; then fail "tepd did not stop on SIGTERM"; fi
wait "$TPID" 2>/dev/null || true
leftovers=""
for f in /dev/hugepages/"$PREFIX"* /dev/hugepages/*/"$PREFIX"*rtemap* \
	 /var/run/dpdk/"$PREFIX" /run/netns/"$PREFIX"-* "$SOCK"; do
	[ -e "$f" ] && leftovers="$leftovers $f" && [ "${#leftovers}" -gt 300 ] && break
done
taps=$(ip -n "$DP" -o link show 2>/dev/null | grep -c "vrf-\|dtap\|tap" || true)
[ "$taps" -eq 0 ] || leftovers="$leftovers $taps-tap(s)"
if [ -z "$leftovers" ]; then ok "nothing left after a clean stop"
else fail "left after a clean stop:$leftovers"; fi

kill "$ZEBRA" 2>/dev/null || true
finish
