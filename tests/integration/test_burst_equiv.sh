#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# Burst processing against the per-packet path: the same mixed traffic
# (encap into five tunnels of every UDP type over both underlays,
# decap, tunnel to tunnel, local forwarding, fragmentation, ARP/ND/echo
# and ICMP errors, named drops; VRFs red and blue, IPv4 and IPv6) is
# replayed from pcaps through tepd three times: one packet per RX burst
# (TEPD_RX_BURST=1: every stage sees bursts of one, the reference), full
# bursts of 32, and bursts of 5 (runs cut at other places).
# burst_equiv.py checks every output frame against its input with scapy
# and compares the runs: datapath frames per stream in order, byte for
# byte; control-thread frames as a multiset; every counter.
. "$(dirname "$0")/lib.sh"

BE=$HERE/burst_equiv.py
$PY "$BE" gen "$WORK"
NIN=$($PY -c 'import sys
from scapy.all import rdpcap
print(sum(len(rdpcap(f)) for f in sys.argv[1:]))' "$WORK"/in[012].pcap)

cat >"$WORK/tepd.conf" <<CONF
vrf add red
vrf add blue
port set net_pcap0 role access
port bind net_pcap0 vrf red
addr add 192.0.2.1/24 dev net_pcap0
addr add 2001:db8:10::1/64 dev net_pcap0
port set net_pcap1 role access
port bind net_pcap1 vrf blue
addr add 192.0.2.1/24 dev net_pcap1
addr add 2001:db8:10::1/64 dev net_pcap1
port set net_pcap2 role underlay
addr add 198.51.100.1/24 dev net_pcap2
addr add 2001:db8:1::1/64 dev net_pcap2
# static neighbours: nothing waits for ARP/ND
neigh add 198.51.100.2 lladdr 02:00:00:00:00:02 dev net_pcap2
neigh add 198.51.100.3 lladdr 02:00:00:00:00:03 dev net_pcap2
neigh add 2001:db8:1::2 lladdr 02:00:00:00:00:12 dev net_pcap2
neigh add 2001:db8:1::3 lladdr 02:00:00:00:00:13 dev net_pcap2
neigh add 192.0.2.10 lladdr 02:00:00:00:0a:0a dev net_pcap0
neigh add 2001:db8:10::10 lladdr 02:00:00:00:0a:0a dev net_pcap0
neigh add 192.0.2.20 lladdr 02:00:00:00:0a:14 dev net_pcap0
neigh add 2001:db8:10::20 lladdr 02:00:00:00:0a:14 dev net_pcap0
neigh add 192.0.2.10 lladdr 02:00:00:00:0b:0a dev net_pcap1
neigh add 2001:db8:10::10 lladdr 02:00:00:00:0b:0a dev net_pcap1
neigh add 192.0.2.20 lladdr 02:00:00:00:0b:14 dev net_pcap1
neigh add 2001:db8:10::20 lladdr 02:00:00:00:0b:14 dev net_pcap1
$($PY "$BE" tunnels)
route add 198.18.0.0/24 vrf red tunnel vxr
route add 198.18.1.0/24 vrf red tunnel gnr
route add 2001:db8:18::/64 vrf red tunnel vxr
route add 2001:db8:19::/64 vrf red tunnel gnr
route add 198.18.9.0/24 vrf red blackhole
route add 203.0.113.0/24 vrf red via 192.0.2.20
route add 2001:db8:30::/64 vrf red via 2001:db8:10::20
route add 198.18.0.0/24 vrf blue tunnel fob
route add 198.18.1.0/24 vrf blue tunnel vxb
route add 2001:db8:18::/64 vrf blue tunnel gub
route add 2001:db8:19::/64 vrf blue tunnel vxb
route add 203.0.113.0/24 vrf blue via 192.0.2.20
route add 2001:db8:30::/64 vrf blue via 2001:db8:10::20
CONF

NS=$(ns_add be)
MPORT=9464

# run NAME BURST: replay the inputs through tepd with RX bursts of at most
# BURST packets, into $WORK/NAME/. net_pcap reads its file as the worker
# polls, and workers start after the config is loaded: nothing is read
# before the routes and neighbours are there.
run() {
	local name=$1 burst=$2 dir=$WORK/$1 rx last='' now sock=$WORK/$1.sock
	mkdir -p "$dir"
	export TEPD_RX_BURST=$burst
	TEPD_ARGS="-M 127.0.0.1:$MPORT" tepd_start "$NS" "$sock" \
		"$WORK/tepd.conf" \
		--vdev "net_pcap0,rx_pcap=$WORK/in0.pcap,tx_pcap=$dir/out0.pcap" \
		--vdev "net_pcap1,rx_pcap=$WORK/in1.pcap,tx_pcap=$dir/out1.pcap" \
		--vdev "net_pcap2,rx_pcap=$WORK/in2.pcap,tx_pcap=$dir/out2.pcap"
	unset TEPD_RX_BURST
	# Until every input packet is in and the counters stop moving (the
	# control thread answers punts a little later).
	for _ in $(seq 100); do
		now=$($TEPCTL -s "$sock" -j stats)
		rx=$(echo "$now" | $PY -c 'import json,sys
print(sum(p["rx"] for p in json.load(sys.stdin)["ports"]))')
		[ "$rx" = "$NIN" ] && [ "$now" = "$last" ] && break
		last=$now
		sleep 0.2
	done
	echo "$now" >"$dir/stats.json"
	$TEPCTL -s "$sock" -j tunnel show >"$dir/tunnels.json"
	# packets per RX burst: the knob did what it says
	ip netns exec "$NS" $PY -c 'import sys, urllib.request
for l in urllib.request.urlopen(sys.argv[1]).read().decode().splitlines():
    if l.startswith("tepd_worker_rx_burst_packets_") and "le=" not in l:
        print(l.split()[-1], end=" ")
print()' \
		"http://127.0.0.1:$MPORT/metrics" >"$dir/bursts"
	kill "${TEPD_PIDS[-1]}"
	wait "${TEPD_PIDS[-1]}" 2>/dev/null || true
	say "$name: $rx of $NIN packets in; packets, bursts: $(cat "$dir/bursts")"
	if [ "$rx" != "$NIN" ]; then
		fail "$name: tepd took $rx of $NIN input packets"
	fi
}

run one 1
run full 32
run five 5
read -r s1 c1 <"$WORK/one/bursts"
read -r s5 c5 <"$WORK/five/bursts"
read -r s32 c32 <"$WORK/full/bursts"
# 91 packets on three ports: bursts of one, of up to 5 (at least 19), of
# up to 32 (a handful)
if [ "$c1" = "$NIN" ] && [ "$s1" = "$NIN" ] && [ "$c5" -ge 19 ] &&
   [ "$c5" -lt "$NIN" ] && [ "$c32" -lt "$c5" ]; then
	ok "RX bursts: $c1 of one packet, $c5 of up to 5, $c32 of up to 32"
else
	fail "RX bursts (packets, bursts): one $s1 $c1, five $s5 $c5, full $s32 $c32"
fi

if $PY "$BE" check "$WORK" "$WORK/one" "$WORK/full" "$WORK/five"; then
	ok "bursts of 32 and of 5 give what one packet at a time gives"
else
	fail "burst and per-packet processing differ (above)"
fi
finish
