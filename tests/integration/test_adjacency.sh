#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# Adjacencies follow the neighbour table. A route's gateway MAC is read by
# the workers from the next hop (app/tepd/neigh/adj.c), not looked up per
# packet, so every change to the gateway's neighbour entry must reach it:
#   ten (192.0.2.10, 2001:db8:10::10) --veth-- [tepd acc0, vrf red]
# Routes 198.18.0.0/24 and 2001:db8:30::/64 lead back out of acc0 via
# gateways .20 / ::20. A UDP datagram sent to each must leave tepd for the
# gateway's current MAC, sent by a worker (not by the control thread
# after a punt): the first one, then after `neigh add` gives it another
# MAC the new one, after `neigh del` none (tepd asks for it by ARP
# / ND instead), after it is re-learned the newest; and a route moved to
# another gateway takes that one's MAC.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DP=$(ns_add adjd)
TEN=$(ns_add adjt)
veth "$TEN" ten0 "$DP" acc0
MAC=$(ip -n "$DP" -br link show acc0 | awk '{ print $3 }')
cat >"$WORK/tepd.conf" <<CONF
vrf add red
port set net_af_packet0 role access
port bind net_af_packet0 vrf red
addr add 192.0.2.1/24 dev net_af_packet0
addr add 2001:db8:10::1/64 dev net_af_packet0
neigh add 192.0.2.20 lladdr 02:00:00:00:00:a1 dev net_af_packet0
neigh add 2001:db8:10::20 lladdr 02:00:00:00:00:a1 dev net_af_packet0
neigh add 192.0.2.30 lladdr 02:00:00:00:00:c3 dev net_af_packet0
route add 198.18.0.0/24 vrf red via 192.0.2.20
route add 2001:db8:30::/64 vrf red via 2001:db8:10::20
CONF
SOCK=$WORK/adj.sock
tepd_start "$DP" "$SOCK" "$WORK/tepd.conf" --vdev net_af_packet0,iface=acc0
CTL="$TEPCTL -s $SOCK"

# probe FAM: send one datagram to the routed prefix, print what came back
# out of tepd: "ip DSTMAC" for the forwarded datagram, "resolve" for an
# ARP request / neighbour solicitation for the gateway, "none" otherwise.
probe() {
	ip netns exec "$TEN" $PY - "$1" "$MAC" <<'PY'
import sys, time
from scapy.all import (AsyncSniffer, Ether, IP, IPv6, UDP, ARP, Raw, sendp,
                       ICMPv6ND_NS, conf)
conf.verb = 0
fam, mac = sys.argv[1], sys.argv[2]
if fam == "4":
    pkt = IP(src="192.0.2.10", dst="198.18.0.5", ttl=9)
else:
    pkt = IPv6(src="2001:db8:10::10", dst="2001:db8:30::5", hlim=9)
tag = b"adjacency-%d" % time.monotonic_ns()
s = AsyncSniffer(iface="ten0", store=True,
                 lfilter=lambda p: p[Ether].src == mac)
s.start()
time.sleep(0.3)
sendp(Ether(src="02:00:00:00:00:10", dst=mac) / pkt / UDP(sport=5000, dport=6000) / Raw(tag),
      iface="ten0")
time.sleep(0.7)
got = s.stop()
out = "none"
for p in got:
    if Raw in p and tag in bytes(p[Raw]):
        out = "ip " + p[Ether].dst
        break
    if ARP in p and p[ARP].op == 1 and p[ARP].pdst == "192.0.2.20":
        out = "resolve"
    if ICMPv6ND_NS in p and p[ICMPv6ND_NS].tgt == "2001:db8:10::20":
        out = "resolve"
print(out)
PY
}

routed() { $CTL -j stats vrf red | jget vrfs.0.routed; }

# A datagram forwarded by a worker counts as routed in the VRF; one the
# control thread sent after resolving does not: so a MAC that was right
# only because the packet took the slow path fails here too.
expect() {	# WHAT FAM WANT
	local got r0 r1
	r0=$(routed)
	got=$(probe "$2")
	r1=$(routed)
	if [ "$got" != "$3" ]; then
		fail "$1 (ipv$2): got '$got', want '$3'"
	elif [ "${3%% *}" = ip ] && [ $((r1 - r0)) -ne 1 ]; then
		fail "$1 (ipv$2): $got, but not by the datapath (routed +$((r1 - r0)))"
	else
		ok "$1 (ipv$2): $got"
	fi
}

# step WHAT MAC|del|- WANT: give both gateways' neighbour entries MAC,
# delete them, or leave them; then probe both families
step() {
	local gw f
	for gw in 192.0.2.20 2001:db8:10::20; do
		case $2 in
		-) ;;
		del) $CTL neigh del $gw dev net_af_packet0 >/dev/null ;;
		*) $CTL neigh add $gw lladdr "$2" dev net_af_packet0 >/dev/null ;;
		esac
	done
	for f in 4 6; do
		expect "$1" $f "$3"
	done
}
step "first MAC" - "ip 02:00:00:00:00:a1"
step "gateway's MAC changed" 02:00:00:00:00:b2 "ip 02:00:00:00:00:b2"
step "gateway's neighbour deleted" del resolve
step "gateway's neighbour back" 02:00:00:00:00:d4 "ip 02:00:00:00:00:d4"
# The IPv4 route to another gateway: a next hop new to the RIB, whose
# neighbour was known before it.
$CTL route del 198.18.0.0/24 vrf red >/dev/null
$CTL route add 198.18.0.0/24 vrf red via 192.0.2.30 >/dev/null
expect "route moved to another gateway" 4 "ip 02:00:00:00:00:c3"
finish
