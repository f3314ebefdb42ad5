#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# BGP and BFD over tepd's own underlay port (tepd -H): the box's NIC
# belongs to DPDK and there is no management link, yet its FRR peers with
# the next VTEP across tepd.
#
#   tenant 198.18.1.2 -- tepd (-N -P -H tepd0) -- underlay -- Linux VTEP
#   (red)                zebra, bgpd, bfdd in     192.0.2.2   (kernel vxlan,
#                        tepd's namespace,                     zebra, bgpd,
#                        192.0.2.1 on tepd0                    bfdd; red:
#                                                              198.18.2.2)
#
# iBGP l2vpn evpn between 192.0.2.1 and 192.0.2.2 with single-hop BFD
# (RFC 5881: TTL 255 both ways, so tepd must not decrement the TTL of
# what its host side sends and receives). Checked: the kernel side holds
# the underlay addresses and their subnets on-link only; the BGP session
# and the BFD session come up, the node has no other way to the peer;
# EVPN routes are exchanged over it (the peer's prefix in tepd's red as an
# automatic tunnel, tepd's in the peer's VRF), IPv4 and IPv6 tenant
# prefixes; tenant ping and TCP in both families; the
# BGP packets crossed tepd's host port; a tunnel packet to tepd's address
# is still decapsulated by tepd, not handed to the kernel; BFD goes down
# when the underlay link does.
set -euo pipefail
TEP_FRR=1
. "$(dirname "$0")/lib.sh"

DP=$(ns_add bu-dp)
R1=$(ns_add bu-r1)
LX=$(ns_add bu-lx)
LXR=$(ns_add bu-lxr)
R2=$(ns_add bu-r2)
veth "$DP" u0 "$LX" eth0
# tepd's namespace holds 192.0.2.1 (on tepd0): without this, its kernel
# would take the peer's BGP and BFD straight off u0 and tepd's host port
# would carry only the replies.
no_side_door "$DP" u0
veth "$DP" a0 "$R1" eth0
veth "$LXR" eth0 "$R2" eth1
ip -n "$LX" addr add 192.0.2.2/24 dev eth0
ip -n "$R1" addr add 198.18.1.2/24 dev eth0
ip -n "$R1" route add default via 198.18.1.1
ip -n "$R2" addr add 198.18.2.2/24 dev eth1
ip -n "$R2" route add default via 198.18.2.1
ip -n "$LXR" addr add 198.18.2.1/24 dev eth0
ip netns exec "$LXR" sysctl -qw net.ipv4.ip_forward=1
# IPv6 tenants: type-5 routes of IPv6 prefixes over the IPv4 underlay
ip -n "$R1" addr add 2001:db8:1::2/64 dev eth0 nodad
ip -n "$R1" route add default via 2001:db8:1::1
ip -n "$R2" addr add 2001:db8:2::2/64 dev eth1 nodad
ip -n "$R2" route add default via 2001:db8:2::1
ip -n "$LXR" addr add 2001:db8:2::1/64 dev eth0 nodad
ip netns exec "$LXR" sysctl -qw net.ipv6.conf.all.forwarding=1
l3vni "$LX" "$LXR" 100 192.0.2.2 02:00:00:00:02:64

holder "$DP"
HD=$HOLDER
holder "$LX" red="$LXR"
HL=$HOLDER
in_dp() { nsenter -t "$HD" -m --net="/run/netns/$DP" -- "$@"; }
in_lx() { nsenter -t "$HL" -m --net="/run/netns/$LX" -- "$@"; }

evpn_leaf_conf "$WORK/tepd.conf" "addr add 2001:db8:1::1/64 dev net_af_packet1"
TEPD_NSENTER=$HD TEPD_ARGS="-N -P 2620 -H tepd0" tepd_start "$DP" \
	"$WORK/tepd.sock" "$WORK/tepd.conf" \
	--vdev=net_af_packet0,iface=u0 --vdev=net_af_packet1,iface=a0 ||
	{ fail "tepd did not start"; finish; }
CTL="$TEPCTL -s $WORK/tepd.sock"
NSR=$($CTL -j vrf list | vrf_netns red)

# ---- the host side ---------------------------------------------------------
a=$(ip -n "$DP" -4 -o addr show dev tepd0 | awk '{print $4}')
r=$(ip -n "$DP" route show dev tepd0 | tr -s ' ')
other=$(ip -n "$DP" route show | grep -v "dev tepd0" || true)
if [ "$a" = 192.0.2.1/24 ] &&
   [ "$r" = "192.0.2.0/24 proto kernel scope link src 192.0.2.1 " ] &&
   [ -z "$other" ]; then
	ok "tepd0 holds the underlay address and its subnet on-link, nothing else routes"
else
	fail "host side: address '$a', routes '$r', other '$other'"
fi
host_port() { $CTL -j port list | $PY -c 'import json,sys
for p in json.load(sys.stdin)["ports"]:
    if p.get("vrf_host") and p["vrf"] == "default": print(p["name"])'; }
HP=$(host_port)
[ -n "$HP" ] && ok "the default VRF's host port: $HP" ||
	fail "no default VRF host port in port list"

# ---- FRR on both sides -------------------------------------------------------
bgp_conf() {	# ME PEER VRF IPV4_LINES IPV6_LINES
	cat <<C
router bgp 65000
 bgp router-id $1
 no bgp default ipv4-unicast
 neighbor $2 remote-as 65000
 neighbor $2 timers connect 1
 neighbor $2 bfd
 address-family l2vpn evpn
  neighbor $2 activate
  advertise-all-vni
 exit-address-family
exit
router bgp 65000 vrf $3
 no bgp network import-check
 address-family ipv4 unicast
$4
 exit-address-family
 address-family ipv6 unicast
$5
 exit-address-family
 address-family l2vpn evpn
  advertise ipv4 unicast
  advertise ipv6 unicast
 exit-address-family
exit
C
}
printf 'hostname dp\nfpm address 127.0.0.1 port 2620\nno fpm use-next-hop-groups\nvrf %s\n vni 100\nexit-vrf\n' \
	"$NSR" | frr_put in_dp zebra.conf
bgp_conf 192.0.2.1 192.0.2.2 "$NSR" "  network 198.18.1.0/24" \
	"  network 2001:db8:1::/64" |
	frr_put in_dp bgpd.conf
printf 'hostname lx\nvrf red\n vni 100\nexit-vrf\n' | frr_put in_lx zebra.conf
bgp_conf 192.0.2.2 192.0.2.1 red "  redistribute connected" \
	"  redistribute connected" |
	frr_put in_lx bgpd.conf
for n in in_dp in_lx; do
	printf 'bfd\nexit\n' | frr_put $n bfdd.conf
done
cleanup() {
	frr_kill in_dp zebra bgpd bfdd || true
	frr_kill in_lx zebra bgpd bfdd || true
	tep_cleanup
}
trap cleanup EXIT INT TERM

# Every BGP segment that reaches tepd's host side, both ways, on tepd0.
ip netns exec "$DP" dumpcap -q -i tepd0 -f "tcp port 179" \
	-w "$WORK/bgp.pcapng" >/dev/null 2>&1 &
CAP=$!
frr_run in_lx zebra -n
frr_run in_lx bfdd
frr_run in_lx bgpd
frr_fpm_node in_dp "$CTL" "l3vni . $NSR 100 192.0.2.1 02:00:00:00:11:64" \
	bfdd bgpd

bgp_state() {
	$1 vtysh -c "show bgp neighbors $2 json" 2>/dev/null | $PY -c 'import json,sys
try: print(json.load(sys.stdin)[sys.argv[1]]["bgpState"])
except Exception: print("?")' "$2"
}
bfd_status() {
	$1 vtysh -c "show bfd peers json" 2>/dev/null | $PY -c 'import json,sys
try: print(" ".join(p["status"] for p in json.load(sys.stdin) if p["peer"] == sys.argv[1]) or "none")
except Exception: print("?")' "$2"
}
t0=$(date +%s)
for _ in $(seq 120); do
	[ "$(bgp_state in_dp 192.0.2.2)" = Established ] && break
	sleep 0.5
done
if [ "$(bgp_state in_dp 192.0.2.2)" = Established ] &&
   [ "$(bgp_state in_lx 192.0.2.1)" = Established ]; then
	ok "BGP session 192.0.2.1 - 192.0.2.2 established over tepd's underlay port ($(($(date +%s) - t0)) s)"
else
	fail "BGP: dp $(bgp_state in_dp 192.0.2.2), lx $(bgp_state in_lx 192.0.2.1)"
	in_dp tail -5 /run/frr/bgpd.log || true
fi
sleep 1
kill "$CAP" 2>/dev/null || true
wait "$CAP" 2>/dev/null || true
bgp_seg() { tshark -r "$WORK/bgp.pcapng" -Y "$1" 2>/dev/null | wc -l; }
from_peer=$(bgp_seg "ip.src == 192.0.2.2 && tcp.srcport == 179 || ip.src == 192.0.2.2 && tcp.dstport == 179")
to_peer=$(bgp_seg "ip.dst == 192.0.2.2")
open_in=$(bgp_seg "ip.src == 192.0.2.2 && bgp.type == 1")
if [ "$from_peer" -gt 0 ] && [ "$to_peer" -gt 0 ] && [ "$open_in" -gt 0 ]; then
	ok "the BGP session's TCP crossed tepd's host port: $from_peer segments from the peer (its OPEN among them), $to_peer to it"
else
	fail "BGP over tepd0: from the peer $from_peer (OPEN $open_in), to it $to_peer"
fi
for _ in $(seq 40); do
	[ "$(bfd_status in_dp 192.0.2.2) $(bfd_status in_lx 192.0.2.1)" = "up up" ] && break
	sleep 0.5
done
got="$(bfd_status in_dp 192.0.2.2) $(bfd_status in_lx 192.0.2.1)"
[ "$got" = "up up" ] &&
	ok "single-hop BFD up both ways (TTL 255 kept across tepd)" ||
	fail "BFD: $got"

# ---- EVPN over it ------------------------------------------------------------
has() {
	$CTL -j route show vrf red | $PY -c 'import json,sys
r=[x for x in json.load(sys.stdin)["routes"] if x["prefix"]==sys.argv[1]]
print(r[0].get("tunnel","-") if r else "none")' "$1"
}
for _ in $(seq 60); do
	[ "$(has 198.18.2.0/24)" != none ] && break
	sleep 0.5
done
for _ in $(seq 40); do
	ip -n "$LXR" route show 198.18.1.0/24 | grep -q 192.0.2.1 && break
	sleep 0.5
done
if [ "$(has 198.18.2.0/24)" = evpn-red-192.0.2.2-100 ] &&
   ip -n "$LXR" route show 198.18.1.0/24 | grep -q "via 192.0.2.1"; then
	ok "type-5 routes both ways over that session"
else
	fail "EVPN: tepd red 198.18.2.0/24 -> $(has 198.18.2.0/24); Linux VTEP: $(ip -n "$LXR" route show 198.18.1.0/24)"
fi
if ip netns exec "$R1" ping -c 3 -i 0.2 -W 2 198.18.2.2 >"$WORK/ping" 2>&1 ||
   ip netns exec "$R1" ping -c 3 -i 0.2 -W 2 198.18.2.2 >"$WORK/ping" 2>&1; then
	ok "tenant ping through tepd's tunnel"
else
	fail "tenant ping"; cat "$WORK/ping"
fi
tcp_xfer "$R2" "$R1" 198.18.2.2 200000
for _ in $(seq 40); do
	[ "$(has 2001:db8:2::/64)" != none ] &&
		ip -n "$LXR" -6 route show 2001:db8:1::/64 | grep -q 192.0.2.1 && break
	sleep 0.5
done
if [ "$(has 2001:db8:2::/64)" = evpn-red-192.0.2.2-100 ] &&
   ip -n "$LXR" -6 route show 2001:db8:1::/64 | grep -q "via ::ffff:192.0.2.1" &&
   { ip netns exec "$R1" ping -6 -c 3 -i 0.2 -W 2 2001:db8:2::2 >"$WORK/ping" 2>&1 ||
     ip netns exec "$R1" ping -6 -c 3 -i 0.2 -W 2 2001:db8:2::2 >"$WORK/ping" 2>&1; }; then
	ok "IPv6 tenants: type-5 routes both ways in the same tunnel (IPv4-mapped VTEP), ping"
else
	fail "IPv6 EVPN: tepd red 2001:db8:2::/64 -> $(has 2001:db8:2::/64); Linux VTEP: $(ip -n "$LXR" -6 route show 2001:db8:1::/64)"
	cat "$WORK/ping"
fi
tcp_xfer "$R2" "$R1" 2001:db8:2::2 200000

# A task in red reaches the EVPN prefix through tepd's red table, not
# through zebra's copy of the route in the namespace's kernel table (via
# br100: the kernel's vx100 would encapsulate it and send it out of the
# default VRF's host port).
zr=$(in_dp ip -n "$NSR" route show 198.18.2.0/24 | tr -s ' ')
e0=$($CTL -j stats tunnel evpn-red-192.0.2.2-100 | jget tunnels.0.encap)
$CTL vrf exec red -- ping -c 3 -i 0.2 -W 2 198.18.2.2 >"$WORK/xping" 2>&1 || true
e1=$($CTL -j stats tunnel evpn-red-192.0.2.2-100 | jget tunnels.0.encap)
if grep -q ' 0% packet loss' "$WORK/xping" && [ $((e1 - e0)) -ge 3 ]; then
	ok "vrf exec red -- ping 198.18.2.2: through tepd's red table into the EVPN tunnel ($((e1 - e0)) encapsulated; zebra's kernel route: '${zr:-none}')"
else
	fail "vrf exec red ping: $(grep 'packet loss' "$WORK/xping"), tunnel encap $e0 -> $e1, zebra's kernel route '${zr:-none}', kernel's choice: $(in_dp ip -n "$NSR" route get 198.18.2.2 2>&1)"
fi
hp_pkts() { $CTL -j stats port "$HP" | $PY -c 'import json,sys
p=json.load(sys.stdin)["ports"][0]
print(p["rx"], p["tx"])'; }
read -r hin hout <<<"$(hp_pkts)"
enc=$($CTL -j stats tunnel evpn-red-192.0.2.2-100 | jget tunnels.0.decap)
if [ "$hin" -gt 0 ] && [ "$hout" -gt 0 ] && [ "$enc" -gt 0 ]; then
	ok "host port carried the control plane (in $hin, out $hout packets); tunnel packets to 192.0.2.1 decapsulated by tepd ($enc)"
else
	fail "host port in '$hin' out '$hout', decapsulated '$enc'"
fi

# ---- BFD notices the underlay going away ----------------------------------
[ "$got" = "up up" ] || { fail "BFD was never up: its going down not checked"; finish; }
ip -n "$LX" link set eth0 down
for _ in $(seq 40); do
	[ "$(bfd_status in_dp 192.0.2.2)" = down ] && break
	sleep 0.25
done
[ "$(bfd_status in_dp 192.0.2.2)" = down ] &&
	ok "BFD down on tepd's side when the underlay link goes" ||
	fail "BFD after link down: $(bfd_status in_dp 192.0.2.2)"
finish
