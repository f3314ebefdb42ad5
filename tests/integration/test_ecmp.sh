#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# ECMP and fast failover through the real datapath (issue 28):
#
#   ten (192.0.2.10) --veth-- [acc: af_packet0, vrf red]
#                             [up0: af_packet1 198.51.100.1/30] --veth-- sp1 (198.51.100.2)
#                             [up1: net_tap2   198.51.100.5/30] --br-veth-- sp2 (198.51.100.6)
#
# Overlay ECMP: 198.18.0.0/24 in vrf red over tunnels t1 (remote
# 203.0.113.9) and t2 (203.0.113.10). Underlay ECMP: both remotes are
# reached by 203.0.113.0/24 over both spines. The spines only count:
# each captures what tepd sends it. tepd's up1 is a net_tap whose kernel
# side stays in tepd's namespace, bridged to the veth towards sp2, so that
# setting it down is a real link-down event the PMD reports.
#
# 64 UDP flows from the tenant, then:
#  1. spread: each spine and each tunnel carries 25-75 % of the packets,
#     every flow stays on one spine and one tunnel, and each spine's
#     frames go to that spine's MAC;
#  2. up1's link down: everything on sp1, nothing lost (after the 100 ms
#     poll), the failover counted; link back: every flow on the spine it
#     had in step 1 (resilient: nothing else moved);
#  3. sp1 stops answering ARP (its address removed): within 6 s its path
#     is dead and everything takes sp2; address back: spread again.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DP=$(ns_add ecdp)
TEN=$(ns_add ecten)
SP1=$(ns_add ecsp1)
SP2=$(ns_add ecsp2)
TAP=tu$TAG
veth "$TEN" ten0 "$DP" dpacc
veth "$DP" dpu0 "$SP1" s1
veth "$DP" dpu1 "$SP2" s2
ip -n "$TEN" addr add 192.0.2.10/24 dev ten0
ip -n "$TEN" route add default via 192.0.2.1
ip -n "$SP1" addr add 198.51.100.2/30 dev s1
ip -n "$SP2" addr add 198.51.100.6/30 dev s2
MAC1=$(ip -n "$SP1" -br link show s1 | awk '{ print $3 }')
MAC2=$(ip -n "$SP2" -br link show s2 | awk '{ print $3 }')

cat >"$WORK/tepd.conf" <<CONF
vrf add red
port set net_af_packet0 role access
port bind net_af_packet0 vrf red
addr add 192.0.2.1/24 dev net_af_packet0
port set net_af_packet1 role underlay
port set net_tap2 role underlay
addr add 198.51.100.1/30 dev net_af_packet1
addr add 198.51.100.5/30 dev net_tap2
route add 203.0.113.0/24 nexthop via 198.51.100.2 dev net_af_packet1 nexthop via 198.51.100.6 dev net_tap2
tunnel add t1 type vxlan local 198.51.100.1 remote 203.0.113.9 vni 42 vrf red inner-dmac 02:00:00:00:42:09
tunnel add t2 type vxlan local 198.51.100.1 remote 203.0.113.10 vni 42 vrf red inner-dmac 02:00:00:00:42:10
route add 198.18.0.0/24 vrf red nexthop tunnel t1 nexthop tunnel t2
CONF
tepd_start "$DP" "$WORK/tepd.sock" "$WORK/tepd.conf" \
	--vdev=net_af_packet0,iface=dpacc --vdev=net_af_packet1,iface=dpu0 \
	--vdev=net_tap2,iface=$TAP
CTL="$TEPCTL -s $WORK/tepd.sock"
# The tap's kernel side: an L2 port of a bridge with the veth to sp2; no
# address, so tepd's namespace has nothing to answer with.
# The kernel side has the PMD's MAC: as a bridge port's own address it
# would make the bridge keep sp2's replies for itself.
ip -n "$DP" link set "$TAP" address 02:00:00:00:ec:01
ip -n "$DP" link add ecbr type bridge
ip -n "$DP" link set "$TAP" master ecbr up
ip -n "$DP" link set dpu1 master ecbr
ip -n "$DP" link set ecbr up
for ns in "$DP" "$TEN"; do
	ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=0
done
# (af_packet sees frames before the ingress hook drops them)
no_side_door "$DP" dpacc
no_side_door "$DP" dpu0

# run NAME: capture on both spines while the tenant sends 64 flows of 4
# datagrams (sport 20000+i, each flow to 198.18.0.(i+1)); print per spine
# what arrived: "spine flow tunnel-remote dstmac" lines into $WORK/NAME.
run() {
	local name=$1 ns i
	for i in 1 2; do
		ns=$SP1; [ $i = 2 ] && ns=$SP2
		ip netns exec "$ns" dumpcap -q -P -i s$i -w "$WORK/$name-s$i.pcap" -f \
			"udp port 4789" >/dev/null 2>&1 &
		echo $! >"$WORK/$name-s$i.pid"
	done
	sleep 1
	ip netns exec "$TEN" $PY - <<'PY'
from scapy.all import IP, UDP, Raw, send, conf
conf.verb = 0
pkts = []
for r in range(4):
    for i in range(64):
        pkts.append(IP(src="192.0.2.10", dst="198.18.0.%d" % (i + 1)) /
                    UDP(sport=20000 + i, dport=7000) / Raw(b"ecmp-%d-%d" % (i, r)))
send(pkts, inter=0.002)
PY
	sleep 1
	for i in 1 2; do
		kill -INT "$(cat "$WORK/$name-s$i.pid")" 2>/dev/null || true
	done
	for i in 1 2; do
		wait "$(cat "$WORK/$name-s$i.pid")" 2>/dev/null || true
	done
	$PY - "$WORK/$name" "$WORK/$name-s1.pcap" "$WORK/$name-s2.pcap" <<'PY'
import sys
from scapy.all import rdpcap, Ether, IP, UDP
from scapy.layers.vxlan import VXLAN
out = open(sys.argv[1], "w")
bad = 0
for spine, f in ((1, sys.argv[2]), (2, sys.argv[3])):
    for p in rdpcap(f):
        if VXLAN not in p or IP not in p[VXLAN]:
            continue
        inner = p[VXLAN][IP]
        if inner.src != "192.0.2.10" or UDP not in inner:
            continue
        # outer (LCO) and inner UDP checksums as scapy computes them
        o = p[IP].copy()
        got = (o[UDP].chksum, o[VXLAN][UDP].chksum)
        del o[UDP].chksum
        del o[VXLAN][UDP].chksum
        o = IP(bytes(o))
        if got != (o[UDP].chksum, o[VXLAN][UDP].chksum):
            bad += 1
            continue
        out.write("%d %d %s %s\n" % (spine, inner[UDP].sport, p[IP].dst, p[Ether].dst))
if bad:
    print("%d frames with a wrong outer or inner UDP checksum" % bad,
          file=sys.stderr)
PY
}

# check NAME WANT: WANT is "spread", "sp1" or "sp2"
check() {
	$PY - "$WORK/$1" "$2" "$MAC1" "$MAC2" <<'PY'
import sys, collections
lines = [l.split() for l in open(sys.argv[1])]
want, mac = sys.argv[2], {1: sys.argv[3], 2: sys.argv[4]}
bad = []
if len(lines) != 256:
    bad.append("%d of 256 datagrams arrived" % len(lines))
spine = collections.Counter(int(l[0]) for l in lines)
tun = collections.Counter(l[2] for l in lines)
flows = collections.defaultdict(set)
for s, sport, dst, dmac in lines:
    flows[sport].add((s, dst))
    if dmac != mac[int(s)]:
        bad.append("spine %s got a frame for %s" % (s, dmac))
        break
moved = [f for f, v in flows.items() if len(v) > 1]
if moved:
    bad.append("%d flows took more than one path" % len(moved))
n = max(len(lines), 1)
if want == "spread":
    for k in (1, 2):
        if not 0.25 <= spine[k] / n <= 0.75:
            bad.append("spine %d carried %d of %d" % (k, spine[k], n))
else:
    other = 2 if want == "sp1" else 1
    if spine[other] != 0:
        bad.append("spine %d still carried %d" % (other, spine[other]))
for k in ("203.0.113.9", "203.0.113.10"):
    if not 0.25 <= tun[k] / n <= 0.75:
        bad.append("tunnel to %s carried %d of %d" % (k, tun[k], n))
# The two levels choose independently: were the underlay's choice made
# from the same bits as the overlay's, each tunnel would take one spine.
if want == "spread":
    pairs = collections.Counter((l[0], l[2]) for l in lines)
    if len(pairs) != 4 or min(pairs.values()) < n // 10:
        bad.append("spine and tunnel choices correlated: %s" % dict(pairs))
print("; ".join(bad) if bad else
      "ok spine1 %d spine2 %d t1 %d t2 %d" % (spine[1], spine[2],
      tun["203.0.113.9"], tun["203.0.113.10"]))
PY
}

expect() {	# WHAT NAME WANT
	local r
	r=$(check "$2" "$3")
	case $r in
	ok*) ok "$1: ${r#ok }" ;;
	*) fail "$1: $r" ;;
	esac
}

# flow -> spine, from a run
paths() { awk '{ print $2, $1 }' "$WORK/$1" | sort -u; }

failovers() { $CTL -j route groups | jget failover.nh_failovers; }

# dead_within TENTHS: true once some path is marked dead within TENTHS
# tenths of a second; alive_within: once none is
any_dead() { $CTL -j route show | grep -q '"state": *"dead"'; }
dead_within() {
	for _ in $(seq "$1"); do any_dead && return 0; sleep 0.1; done
	return 1
}
alive_within() {
	for _ in $(seq "$1"); do any_dead || return 0; sleep 0.1; done
	return 1
}
same_paths() {	# RUN: every flow on the spine it had in run "spread"
	if [ "$(paths spread)" = "$(paths "$1")" ]; then
		ok "$1: every flow back on the spine it had"
	else
		fail "$1: flows moved: $(diff <(paths spread) <(paths "$1") | grep -c '^[<>]') lines differ"
	fi
}

# ARP for both spines first (the first packets of each path are punted to
# resolve their gateway and dropped, as for any next hop).
run warm >/dev/null 2>&1 || true
sleep 1

run spread
expect "spread over both spines and both tunnels" spread spread
# route get predicts each flow's tunnel as the datapath chose it
# (af_packet gives no RSS hash: tepd's own hash on both sides)
mism=0 seen=0
while read -r sport dst; do
	seen=$((seen + 1))
	i=$((sport - 20000))
	t=$($CTL -j route get 198.18.0.$((i + 1)) vrf red from 192.0.2.10 \
		proto udp sport "$sport" dport 7000 | jget chosen.tunnel)
	want=t1; [ "$dst" = 203.0.113.10 ] && want=t2
	[ "$t" = "$want" ] || mism=$((mism + 1))
done < <(awk '{ print $2, $3 }' "$WORK/spread" | sort -u)
if [ "$mism" = 0 ] && [ "$seen" = 64 ]; then ok "route get names the tunnel each of the 64 flows took"
else fail "route get: $mism of $seen flows named another tunnel than the datapath took"; fi

f0=$(failovers)
ip -n "$DP" link set "$TAP" down
sleep 0.5
run linkdown
expect "up1's link down: all on sp1" linkdown sp1
f1=$(failovers)
if [ "$f1" -gt "$f0" ]; then ok "failover counted ($f0 -> $f1)"
else fail "failover not counted ($f0 -> $f1)"; fi
if $CTL -j route show | grep -q '"state": *"dead"'; then
	ok "route show marks the path dead"
else
	fail "route show does not mark the path dead"
fi

ip -n "$DP" link set "$TAP" up
sleep 0.5
run linkup
expect "link back: spread again" linkup spread
same_paths linkup

ip -n "$SP1" addr del 198.51.100.2/30 dev s1
if dead_within 60; then ok "sp1 silent: its path declared dead"
else fail "sp1 silent for 6 s: its path still up"; fi
run silent
expect "sp1 silent: all on sp2" silent sp2

ip -n "$SP1" addr add 198.51.100.2/30 dev s1
if alive_within 40; then ok "sp1 answers again: path back"
else fail "sp1 answers again, but its path stays dead"; fi
run back
expect "sp1 back: spread again" back spread
same_paths back

# 4. The underlay route flips between one path and two, 40 times, while
# the tenant sends: each flip deletes or makes the group a tunnel's
# cached egress names. Then one path: everything on sp2, tepd alive.
GRP="nexthop via 198.51.100.2 dev net_af_packet1 nexthop via 198.51.100.6 dev net_tap2"
( for _ in $(seq 20); do
	$CTL route replace 203.0.113.0/24 via 198.51.100.6 dev net_tap2 >/dev/null
	sleep 0.02
	# shellcheck disable=SC2086
	$CTL route replace 203.0.113.0/24 $GRP >/dev/null
	sleep 0.02
  done ) &
FLIP=$!
run flips >/dev/null
wait "$FLIP" || fail "route replace failed during the flips"
$CTL route replace 203.0.113.0/24 via 198.51.100.6 dev net_tap2 >/dev/null
run single
expect "underlay route down to one path: all on sp2" single sp2
if kill -0 "${TEPD_PIDS[0]}" 2>/dev/null &&
   [ "$($CTL -j route groups | jget count)" = 1 ]; then
	ok "after 40 flips under traffic: tepd up, only the overlay's group left"
else
	fail "after the flips: tepd gone or groups left: $($CTL route groups 2>&1 | head -3)"
fi
finish
