#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# EVPN at scale through a real FRR: N type-5 routes (default 100 000 /32
# prefixes) from K remote VTEPs (default 50) reach tepd's VRF through the
# node's own bgpd and zebra (FRR 8.4.4, dplane_fpm_nl), with tenant
# traffic flowing throughout.
#
#   speaker (evpn_speaker.py, the K VTEPs)     Linux VTEP (kernel vxlan,
#        | iBGP l2vpn evpn, 203.0.113.0/30      static), 192.0.2.2,
#   bgpd -> zebra -> FPM -> tepd -N -P          tenant 198.18.2.1 in VNI 100
#                             | underlay 192.0.2.1 ------'
#                             | access (VRF red, L3VNI 100)
#                           tenant 198.18.1.2
#
# The speaker first announces the Linux VTEP's 198.18.2.0/24 (the route
# the traffic follows), then on a signal the N routes in updates of 100,
# VTEP after VTEP (192.0.2.101 upwards, each its own router MAC). Timed:
# from the speaker's first byte of the bulk to tepd counting all N routes
# in red (tepctl vrf list), and from its first withdrawal byte to their
# going. Meanwhile the tenant pings the Linux VTEP's tenant every 10 ms
# through tepd; the loss is reported. One BGP speaker stands in for the
# K VTEPs (and the route reflector): bgpd, zebra, the kernel's VRF table
# and tepd are the real path.
#
#   bench_evpn_frr.sh [--smoke] [N [K]]   (root; FRR installed)
# Env: BUILD (build dir). Prints figures; asserts only that every route
# arrived as a route of the right tunnel and went, and that traffic flowed.
set -euo pipefail
TEP_FRR=1
HERE_BENCH=$(cd "$(dirname "$0")" && pwd)
. "$HERE_BENCH/../integration/lib.sh"	# (re-runs this script: args after it)
SMOKE=
if [ "${1:-}" = --smoke ]; then
	SMOKE=1
	shift
fi
N=${1:-100000}
K=${2:-50}
[ -n "$SMOKE" ] && N=${1:-5000}
# VTEPs that get routes (100 routes an update, one VTEP an update)
KU=$(((N + 99) / 100))
[ "$KU" -gt "$K" ] && KU=$K
SPEAKER=$HERE_BENCH/evpn_speaker.py
if [ "$N" -gt 120000 ]; then
	echo "N at most 120000 (/32s from 198.18.16.0 within 198.18.0.0/15)"
	exit 2
fi

DP=$(ns_add evb-dp)	# tepd and its FRR
TEN=$(ns_add evb-t)	# tenant in red
LX=$(ns_add evb-lx)	# the Linux VTEP, underlay side
LXR=$(ns_add evb-lxr)	# its VNI 100
SPK=$(ns_add evb-spk)	# the speaker
veth "$DP" u0 "$LX" eth0
veth "$DP" a0 "$TEN" eth0
veth "$DP" m0 "$SPK" s0
ip -n "$TEN" addr add 198.18.1.2/24 dev eth0
ip -n "$TEN" route add default via 198.18.1.1
ip -n "$LX" addr add 192.0.2.2/24 dev eth0
ip -n "$DP" addr add 203.0.113.1/30 dev m0
ip -n "$SPK" addr add 203.0.113.2/30 dev s0
# bgpd validates VTEP next hops through zebra: a kernel route will do
ip -n "$DP" route add 192.0.2.0/24 via 203.0.113.2

# The Linux VTEP, programmed as zebra would for one remote VTEP (tepd):
# the route back via tepd's VTEP on-link, tepd's router MAC for it, and
# that MAC behind the VXLAN device towards tepd
l3vni "$LX" "$LXR" 100 192.0.2.2 02:00:00:00:02:64
ip -n "$LXR" addr add 198.18.2.1/24 dev br100
ip -n "$LXR" neigh add 192.0.2.1 lladdr 02:00:00:00:11:64 dev br100 nud permanent
ip -n "$LXR" route add 198.18.1.0/24 via 192.0.2.1 dev br100 onlink
bridge -n "$LXR" fdb add 02:00:00:00:11:64 dev vx100 dst 192.0.2.1 self permanent
bridge -n "$LXR" fdb add 02:00:00:00:11:64 dev vx100 master static

holder "$DP"
HD=$HOLDER
in_dp() { nsenter -t "$HD" -m --net="/run/netns/$DP" -- "$@"; }
evpn_leaf_conf "$WORK/tepd.conf"
TEPD_NSENTER=$HD TEPD_ARGS="-N -P 2620 -r $((N + N / 4 + 1024))" \
	tepd_start "$DP" "$WORK/tepd.sock" "$WORK/tepd.conf" \
	--vdev=net_af_packet0,iface=u0 --vdev=net_af_packet1,iface=a0 ||
	{ fail "tepd did not start"; finish; }
CTL="$TEPCTL -s $WORK/tepd.sock"
NSR=$($CTL -j vrf list | vrf_netns red)

printf 'hostname dp\nfpm address 127.0.0.1 port 2620\nno fpm use-next-hop-groups\nvrf %s\n vni 100\nexit-vrf\n' \
	"$NSR" | frr_put in_dp zebra.conf
frr_put in_dp bgpd.conf <<C
router bgp 65000
 bgp router-id 203.0.113.1
 no bgp default ipv4-unicast
 neighbor 203.0.113.2 remote-as 65000
 neighbor 203.0.113.2 passive
 address-family l2vpn evpn
  neighbor 203.0.113.2 activate
  advertise-all-vni
 exit-address-family
exit
router bgp 65000 vrf $NSR
 no bgp network import-check
 address-family ipv4 unicast
  network 198.18.1.0/24
 exit-address-family
 address-family l2vpn evpn
  advertise ipv4 unicast
 exit-address-family
exit
C
SPID=
PPID_=
cleanup() {
	[ -n "$PPID_" ] && kill "$PPID_" 2>/dev/null
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	frr_kill in_dp bgpd zebra || true
	tep_cleanup
}
trap cleanup EXIT INT TERM

frr_fpm_node in_dp "$CTL" "l3vni . $NSR 100 192.0.2.1 02:00:00:00:11:64"
ip netns exec "$SPK" "$PY" "$SPEAKER" --peer 203.0.113.1 \
	--route 198.18.2.0/24,100,192.0.2.2,02:00:00:00:02:64 \
	--bulk "$N" --vteps "$K" --stamp "$WORK/stamp" \
	2>"$WORK/speaker.log" &
SPID=$!

red() {	# the route count of VRF red
	$CTL -j vrf list | $PY -c 'import json,sys
for v in json.load(sys.stdin)["vrfs"]:
    if v["name"] == "red": print(v["routes4"])'
}
has() {
	$CTL -j route show vrf red | $PY -c 'import json,sys
print(any(r["prefix"] == sys.argv[1] for r in json.load(sys.stdin)["routes"]))' "$1"
}
for _ in $(seq 600); do
	[ "$(has 198.18.2.0/24)" = True ] && break
	sleep 0.1
done
if [ "$(has 198.18.2.0/24)" != True ]; then
	fail "the Linux VTEP's route never reached tepd"
	cat "$WORK/speaker.log"
	in_dp vtysh -c 'show bgp l2vpn evpn summary' 2>&1 | tail -8 || true
	finish
fi
for _ in $(seq 20); do
	ip netns exec "$TEN" ping -c 1 -W 1 198.18.2.1 >/dev/null 2>&1 && break
	sleep 0.2
done
base=$(red)
echo "evpn via FRR: $N type-5 routes from $K VTEPs, tepd 1 worker," \
	"$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# the tenant's traffic runs through the whole install and withdrawal
ip netns exec "$TEN" ping -i 0.01 -W 1 198.18.2.1 >"$WORK/ping" 2>&1 &
PPID_=$!
sleep 1

# timed: speaker's first byte to tepd counting WANT routes in red
timed() {	# SIGNAL WANT -> seconds
	local t1
	rm -f "$WORK/stamp" "$WORK/stamp.done"
	kill -"$1" "$SPID"
	for _ in $(seq 6000); do
		[ "$(red)" = "$2" ] && break
		sleep 0.05
	done
	t1=$(date +%s.%N)
	[ "$(red)" = "$2" ] || { echo "timeout"; return; }
	$PY -c "print('%.2f' % ($t1 - float(open('$WORK/stamp').read())))"
}
t=$(timed USR1 $((base + N)))
sent=$($PY -c "print('%.2f' % (float(open('$WORK/stamp.done').read()) - float(open('$WORK/stamp').read())))" 2>/dev/null || echo "?")
if [ "$t" != timeout ]; then
	ok "install: $N routes in tepd's red $t s after the speaker's first byte (sent in $sent s; $($PY -c "print('%.0f' % ($N / max(float('$t'), 0.01)))") routes/s)"
else
	fail "install: $(($(red) - base)) of $N routes in tepd"
fi
evpn_tunnels() {
	$CTL -j tunnel show | $PY -c 'import json,sys
print(sum(1 for t in json.load(sys.stdin)["tunnels"] if t["name"].startswith("evpn-red-")))'
}
tunnels=$(evpn_tunnels)
# a sample: route i from VTEP 192.0.2.(101 + (i/100 mod K)), its MAC
# about 200 sampled routes (route show of 100 000 is past the control
# socket's 4 MiB reply): route i from VTEP 192.0.2.(101 + (i/100 mod K))
$PY -c 'import ipaddress,sys
n = int(sys.argv[1])
for i in range(0, n, max(1, n // 199)):
    print("route get %s vrf red" % ipaddress.IPv4Address(int(ipaddress.IPv4Address("198.18.16.0")) + i))' \
	"$N" >"$WORK/sample"
chk=$($CTL -j -b "$WORK/sample" | $PY -c 'import ipaddress,json,sys
n, k = int(sys.argv[1]), int(sys.argv[2])
bad = seen = 0
for line in sys.stdin:
    if not line.startswith("{"):
        continue
    r = json.loads(line)["routes"][0]
    i = int(ipaddress.IPv4Address(r["prefix"].split("/")[0])) - int(ipaddress.IPv4Address("198.18.16.0"))
    seen += 1
    if r["prefix"].endswith("/32") and r.get("tunnel") != "evpn-red-192.0.2.%d-100" % (101 + (i // 100) % k):
        bad += 1
print("%d/%d" % (bad, seen))' "$N" "$K")
mac=$($CTL -j tunnel show evpn-red-192.0.2.$((101 + KU - 1))-100 | jget tunnels.0.inner_dmac)
if [ "$tunnels" = $((KU + 1)) ] && [ "${chk%/*}" = 0 ] && [ "${chk#*/}" -ge 100 ] &&
   [ "${mac,,}" = "$(printf '02:00:00:01:00:%02x' $((KU - 1)))" ]; then
	ok "$tunnels automatic tunnels; sampled routes in the right tunnel; router MACs per VTEP"
else
	fail "tunnels $tunnels (want $((KU + 1))), $chk sampled routes wrong, last VTEP's MAC $mac"
fi
krt=$(in_dp ip -n "$NSR" route show | wc -l)
say "kernel routes in the VRF namespace (zebra's): $krt"
in_dp vtysh -c 'show bgp l2vpn evpn summary' 2>/dev/null | grep -A1 "^Neighbor" | sed 's/^/    /' || true

t=$(timed USR2 "$base")
[ "$t" != timeout ] &&
	ok "withdrawal: $N routes gone from tepd $t s after the speaker's first byte" ||
	fail "withdrawal: $(($(red) - base)) routes left"
for _ in $(seq 50); do
	[ "$(evpn_tunnels)" = 1 ] && break
	sleep 0.1
done
left=$(evpn_tunnels)
[ "$left" = 1 ] && ok "the $KU bulk tunnels went with their last routes" ||
	fail "$left automatic tunnels left, want 1"

sleep 1
kill -INT "$PPID_"
wait "$PPID_" 2>/dev/null || true
PPID_=
stat=$(grep "packets transmitted" "$WORK/ping" || echo "no ping summary")
rx=$(echo "$stat" | sed -n 's/.* \([0-9]*\) received.*/\1/p')
if [ -n "$rx" ] && [ "$rx" -gt 0 ]; then
	ok "tenant traffic during install and withdrawal: $stat"
else
	fail "no tenant traffic: $stat"
fi
say "fpm: $($CTL -j stats | $PY -c 'import json,sys
f=json.load(sys.stdin)["fpm"]
print(" ".join("%s %s" % (k[4:], v) for k, v in f.items() if v and k != "fpm_connects"))')"
[ "$($CTL -j stats | jget fpm.fpm_conn_dropped)" = 0 ] ||
	fail "zebra's connection dropped"
finish
