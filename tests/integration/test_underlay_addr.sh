#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# tepd's own underlay addresses answer: the kernel VTEP pings each of them
# (IPv4 and IPv6) across the underlay, first with tepd alone (its ICMP echo
# responder), then with tepd -H (the host side answers, through tepd's host
# port). A tunnel packet to the same address must still be decapsulated by
# tepd, and nothing may be counted as drop_unknown_proto.
#
#   ten (192.0.2.10) -- [tepd access, red]  [tepd underlay] -- peer: vx0
#                                           198.51.100.1       198.51.100.2
#                                           2001:db8:1::1      2001:db8:1::2
#
# No side door: tepd's underlay port is net_af_packet on veth dpund, whose
# kernel side in tepd's namespace would answer for the -H host side's
# addresses. An ingress drop on dpund (no_side_door, lib.sh) stops the
# kernel from seeing the peer's packets (af_packet still does), so every
# echo reply counted here was produced by tepd or came through tepd's host
# port.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

run_site() {	# MODE: plain | host
	local mode=$1 n a fam got ping hp hin hout unk

	SITE_EXTRA_CONF="addr add 2001:db8:1::1/64 dev net_af_packet1"
	[ "$mode" = host ] && TEPD_ARGS="-H tepu$TAG" || TEPD_ARGS=""
	vxlan_site_setup af_packet 4
	no_side_door "$DP" dpund
	ip -n "$PEER" addr add 2001:db8:1::2/64 dev peer0 nodad

	if [ "$mode" = host ]; then
		hp=$($CTL -j port list | $PY -c 'import json,sys
for p in json.load(sys.stdin)["ports"]:
    if p.get("vrf_host") and p["vrf"] == "default": print(p["name"])')
		if [ -z "$hp" ]; then
			fail "-H: no host port in the default VRF"
			return
		fi
		read -r hin hout <<<"$($CTL -j stats port "$hp" | $PY -c 'import json,sys
p=json.load(sys.stdin)["ports"][0]
print(p["rx"], p["tx"])')"
	fi
	for a in 198.51.100.1 2001:db8:1::1; do
		fam=4
		case $a in *:*) fam=6 ;; esac
		ping=(ping -c 3 -i 0.2 -W 2)
		[ "$fam" = 6 ] && ping=(ping -6 -c 3 -i 0.2 -W 2)
		# The first echo may wait on tepd's neighbour resolution.
		ip netns exec "$PEER" "${ping[@]}" "$a" >"$WORK/ping" 2>&1 || true
		ip netns exec "$PEER" "${ping[@]}" "$a" >"$WORK/ping" 2>&1 || true
		got=$(awk '/packets transmitted/ { print $4 }' "$WORK/ping")
		if [ "${got:-0}" = 3 ]; then
			ok "$mode: peer pings tepd's underlay address $a: 3 of 3 replies"
		else
			fail "$mode: ping $a: ${got:-0} of 3 replies"
			cat "$WORK/ping"
		fi
	done
	if [ "$mode" = host ]; then
		local hin2 hout2
		read -r hin2 hout2 <<<"$($CTL -j stats port "$hp" | $PY -c 'import json,sys
p=json.load(sys.stdin)["ports"][0]
print(p["rx"], p["tx"])')"
		# 12 echo requests in, 12 replies out, at the least
		if [ $((hin2 - hin)) -ge 12 ] && [ $((hout2 - hout)) -ge 12 ]; then
			ok "host: the echoes crossed tepd's host port (to host $((hout2 - hout)), from host $((hin2 - hin)))"
		else
			fail "host: host port to host $((hout2 - hout)), from host $((hin2 - hin)) (want >= 12 each)"
		fi
	fi
	[ "$mode" = plain ] && neigh_refresh
	# Tunnel traffic to the same address is still tepd's to decapsulate.
	n=$($CTL -j stats tunnel vx1 | jget tunnels.0.decap)
	ip netns exec "$PEER" ping -c 3 -i 0.2 -W 2 192.0.2.10 >"$WORK/ping" 2>&1 || true
	got=$($CTL -j stats tunnel vx1 | jget tunnels.0.decap)
	if grep -q ' 0% packet loss' "$WORK/ping" && [ $((got - n)) -ge 3 ]; then
		ok "$mode: VXLAN to the same address decapsulated by tepd ($((got - n)) packets)"
	else
		fail "$mode: tunnel ping: decap $((got - n)), $(grep 'packet loss' "$WORK/ping")"
	fi
	unk=$($CTL -j stats port net_af_packet1 | $PY -c 'import json,sys
p=json.load(sys.stdin)["ports"][0]
print(p.get("drops", {}).get("drop_unknown_proto", 0))')
	[ "$unk" = 0 ] && ok "$mode: nothing dropped as unknown_proto on the underlay" ||
		fail "$mode: drop_unknown_proto $unk on the underlay port"

	# Down for the next round: tepd and the namespaces.
	tep_cleanup_site
}

# The peer's ARP replies confirming the MAC tepd has for it leave the
# workers' tunnel caches alone; a new MAC empties them (underlay_changes).
arp_from_peer() {	# MAC COUNT
	ip netns exec "$PEER" $PY - "$1" "$2" <<'PYEOF'
import sys, time
from scapy.all import ARP, Ether, sendp, conf
conf.verb = 0
mac, n = sys.argv[1], int(sys.argv[2])
for _ in range(n):
    sendp(Ether(src=mac, dst="ff:ff:ff:ff:ff:ff") /
          ARP(op=2, hwsrc=mac, psrc="198.51.100.2",
              hwdst="ff:ff:ff:ff:ff:ff", pdst="198.51.100.1"),
          iface="peer0")
    time.sleep(0.05)
PYEOF
	sleep 0.3
}
underlay_changes() { $CTL -j stats | jget control.underlay_changes; }
neigh_refresh() {
	local mac u0 u1 u2 u3
	mac=$(ip -n "$PEER" -j link show peer0 | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["address"])')
	u0=$(underlay_changes)
	arp_from_peer "$mac" 5
	u1=$(underlay_changes)
	arp_from_peer 02:00:00:00:99:99 1
	u2=$(underlay_changes)
	arp_from_peer "$mac" 1
	u3=$(underlay_changes)
	if [ "$u1" = "$u0" ] && [ "$u2" -gt "$u1" ] && [ "$u3" -gt "$u2" ]; then
		ok "neighbour refresh: same MAC 5 times leaves the caches ($u0 -> $u1), a new MAC and back empties them ($u1 -> $u2 -> $u3)"
	else
		fail "underlay_changes: $u0, after 5 same-MAC refreshes $u1, new MAC $u2, old MAC $u3"
	fi
}

# Stop tepd and remove this round's namespaces, keeping WORK.
tep_cleanup_site() {
	local pid ns
	for pid in "${TEPD_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	TEPD_PIDS=()
	for ns in "$DP" "$TEN" "$PEER"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	: >"$WORK/namespaces"
}

run_site plain
run_site host
finish
