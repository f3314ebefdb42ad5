#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# EVPN type-5 with live FRR 8.4.4 everywhere, nothing typed into tepd but
# its ports, VRFs and L3VNIs. Three VTEPs on one underlay bridge
# (192.0.2.0/24), one iBGP l2vpn evpn route reflector:
#
#   tepd 1 (-N -P) + zebra/bgpd    tepd 2 (-N -P) + zebra/bgpd
#   192.0.2.1, tenants 198.18.1.2  192.0.2.3, tenants 198.18.3.2
#   in red and in blue             in red and in blue
#                \                     /
#                 route reflector (FRR)          (management links,
#                /                                203.0.113.0/24)
#   Linux VTEP: kernel vxlan + zebra/bgpd, netns VRFs red and blue,
#   192.0.2.2, tenants 198.18.2.2 (and 198.18.2.3 in blue only)
#
# Both VRFs use the same tenant prefixes. tepd's zebra runs with the netns
# VRF backend (this kernel has no VRF device) and sees tepd's own VRF
# namespaces (tepd -N) as its VRFs; each holds a bridge + vxlan device for
# zebra's L3VNI only (tepd carries the traffic). tepd tells the VRFs
# apart by zebra's netlink port id in each namespace (docs/evpn.md).
#
# Checked: type-5 routes from the other VTEPs land in the right VRF as
# automatic VXLAN tunnels with the advertised router MAC; ping and TCP
# (checked bytes) in each VRF, tepd to Linux and tepd to tepd; a host only
# blue has is unreachable from red; a withdrawn prefix leaves tepd within
# 2 s; zebra+bgpd restarted on tepd 1's side reconverge to the same tables. The BGP sessions run to a
# route reflector over management links (tepd's underlay ports are DPDK's).
#
# Every FRR instance runs in a mount namespace of its own with a private
# /run/netns (zebra -n makes a VRF of every name there) and /run/frr.
set -euo pipefail
TEP_FRR=1
. "$(dirname "$0")/lib.sh"
ctl() { local n=$1; shift; "$TEPCTL" -s "$WORK/tepd$n.sock" "$@"; }

# ---- namespaces and links --------------------------------------------------
# Underlay: one bridge (in UL) joining the three VTEPs, 192.0.2.0/24.
# Management: each BGP speaker to the reflector on a /30 of 203.0.113.0/24.
UL=$(ns_add ev-ul)
LX=$(ns_add ev-lx)	# the Linux VTEP's underlay side
LXR=$(ns_add ev-lxr)	# its VRF red
LXB=$(ns_add ev-lxb)	# its VRF blue
R2=$(ns_add ev-r2)
B2=$(ns_add ev-b2)
RR=$(ns_add ev-rr)	# route reflector (no VTEP)
ip -n "$UL" link add br0 type bridge stp_state 0
ip -n "$UL" link set br0 up
ul_port() {	# ul_port NS IFNAME: NS's IFNAME on the underlay bridge
	veth "$1" "$2" "$UL" "u${1#ev-}"
	ip -n "$UL" link set "u${1#ev-}" master br0
}
ul_port "$LX" eth0
ip -n "$LX" addr add 192.0.2.2/24 dev eth0
veth "$LX" m0 "$RR" r1
ip -n "$LX" addr add 203.0.113.5/30 dev m0
ip -n "$RR" addr add 203.0.113.6/30 dev r1
ip -n "$RR" route add 192.0.2.0/24 via 203.0.113.5

# tepd node N (1, 2): namespace DP[N] with tepd and its FRR, underlay
# 192.0.2.(2N-1) (.1, .3), tenants 198.18.(2N-1).2 (.1.2, .3.2) in red
# (R[N]) and blue (B[N]), management 203.0.113.(8N-7)/30 (.1, .9) to the
# reflector's .(8N-6) (.2, .10). Router MACs 02:00:00:00:1N:64 (red),
# :c8 (blue); the Linux VTEP's 02:00:00:00:02:64 / :c8 (bgpd ignores a
# route whose router MAC is its own).
declare -A DP R B HD
for n in 1 2; do
	DP[$n]=$(ns_add "ev-dp$n")
	R[$n]=$(ns_add "ev-r$((2 * n - 1))")
	B[$n]=$(ns_add "ev-b$((2 * n - 1))")
	ul_port "${DP[$n]}" u0
	veth "${DP[$n]}" a0 "${R[$n]}" eth0
	veth "${DP[$n]}" a1 "${B[$n]}" eth0
	for t in "${R[$n]}" "${B[$n]}"; do
		ip -n "$t" addr add "198.18.$((2 * n - 1)).2/24" dev eth0
		ip -n "$t" route add default via "198.18.$((2 * n - 1)).1"
	done
	veth "${DP[$n]}" m0 "$RR" "r$((n * 2))"
	ip -n "${DP[$n]}" addr add "203.0.113.$((8 * n - 7))/30" dev m0
	ip -n "$RR" addr add "203.0.113.$((8 * n - 6))/30" dev "r$((n * 2))"
	# bgpd validates a VTEP next hop through zebra: a kernel route will do
	ip -n "${DP[$n]}" route add 192.0.2.0/24 via "203.0.113.$((8 * n - 6))"
done
R1=${R[1]} B1=${B[1]} R3=${R[2]} B3=${B[2]}

veth "$LXR" eth0 "$R2" eth1
veth "$LXB" eth0 "$B2" eth1
for t in "$R2" "$B2"; do
	ip -n "$t" addr add 198.18.2.2/24 dev eth1
	ip -n "$t" route add default via 198.18.2.1
done
ip -n "$B2" addr add 198.18.2.3/24 dev eth1	# blue only
for v in "$LXR" "$LXB"; do
	ip -n "$v" addr add 198.18.2.1/24 dev eth0
	ip netns exec "$v" sysctl -qw net.ipv4.ip_forward=1
done

l3vni "$LX" "$LXR" 100 192.0.2.2 02:00:00:00:02:64
l3vni "$LX" "$LXB" 200 192.0.2.2 02:00:00:00:02:c8

for n in 1 2; do
	holder "${DP[$n]}"
	HD[$n]=$HOLDER
done
holder "$LX" red="$LXR" blue="$LXB"
HL=$HOLDER
holder "$RR"
HR=$HOLDER
in_dp1() { nsenter -t "${HD[1]}" -m --net="/run/netns/${DP[1]}" -- "$@"; }
in_dp2() { nsenter -t "${HD[2]}" -m --net="/run/netns/${DP[2]}" -- "$@"; }
in_lx() { nsenter -t "$HL" -m --net="/run/netns/$LX" -- "$@"; }
in_rr() { nsenter -t "$HR" -m --net="/run/netns/$RR" -- "$@"; }

# ---- tepd ------------------------------------------------------------------
declare -A NR NB
nsname() {	# NODE VRF: the VRF's namespace name, as zebra -n calls it
	ctl "$1" -j vrf list | vrf_netns "$2"
}
for n in 1 2; do
	cat >"$WORK/tepd$n.conf" <<C
vrf add red table 10
vrf add blue table 20
port set net_af_packet0 role underlay
addr add 192.0.2.$((2 * n - 1))/24 dev net_af_packet0
port set net_af_packet1 role access
port bind net_af_packet1 vrf red
addr add 198.18.$((2 * n - 1)).1/24 dev net_af_packet1
port set net_af_packet2 role access
port bind net_af_packet2 vrf blue
addr add 198.18.$((2 * n - 1)).1/24 dev net_af_packet2
evpn vrf red vni 100 rmac 02:00:00:00:1$n:64
evpn vrf blue vni 200 rmac 02:00:00:00:1$n:c8
fpm set quiet 1
C
	TEPD_NSENTER=${HD[$n]} TEPD_ARGS="-N -P 2620" tepd_start "${DP[$n]}" \
		"$WORK/tepd$n.sock" "$WORK/tepd$n.conf" \
		--vdev=net_af_packet0,iface=u0 --vdev=net_af_packet1,iface=a0 \
		--vdev=net_af_packet2,iface=a1 ||
		{ fail "tepd $n did not start"; finish; }
	NR[$n]=$(nsname "$n" red)
	NB[$n]=$(nsname "$n" blue)
done
LOG=$WORK/tepd-tepd1.sock.log
# ---- FRR -------------------------------------------------------------------
bgp_conf() {	# ME PEER VRF_RED VRF_BLUE LOCAL_NETWORKS
	cat <<C
router bgp 65000
 bgp router-id $1
 no bgp default ipv4-unicast
 neighbor $2 remote-as 65000
 neighbor $2 timers connect 1
 address-family l2vpn evpn
  neighbor $2 activate
  advertise-all-vni
 exit-address-family
exit
C
	local v
	for v in "$3" "$4"; do
		cat <<C
router bgp 65000 vrf $v
 no bgp network import-check
 address-family ipv4 unicast
$5
 exit-address-family
 address-family l2vpn evpn
  advertise ipv4 unicast
 exit-address-family
exit
C
	done
}
# frr_start dp1|dp2|lx|rr: zebra then bgpd in the node's holder, configs
# in its private /run/frr; a tepd node's zebra with FPM (-r), its L3VNI
# devices made anew after it (frr_fpm_node)
frr_start() {
	local n=${1#dp} u
	if [ "$n" = "$1" ]; then
		frr_run "in_$1" zebra -n
		sleep 1
		frr_run "in_$1" bgpd
		return
	fi
	u=192.0.2.$((2 * n - 1))
	frr_fpm_node "in_$1" "ctl $n" "ip -n ${NR[$n]} link del vx100 2>/dev/null; ip -n ${NB[$n]} link del vx200 2>/dev/null; l3vni . ${NR[$n]} 100 $u 02:00:00:00:1$n:64; l3vni . ${NB[$n]} 200 $u 02:00:00:00:1$n:c8"
}
frr_stop() { frr_kill "in_$1" zebra bgpd; }
put() { frr_put "in_$1" "$2"; }	# put dp1|dp2|lx|rr FILE
for n in 1 2; do
	printf 'hostname dp%s\nfpm address 127.0.0.1 port 2620\nno fpm use-next-hop-groups\nvrf %s\n vni 100\nexit-vrf\nvrf %s\n vni 200\nexit-vrf\n' \
		"$n" "${NR[$n]}" "${NB[$n]}" | put "dp$n" zebra.conf
	bgp_conf "203.0.113.$((8 * n - 7))" "203.0.113.$((8 * n - 6))" \
		"${NR[$n]}" "${NB[$n]}" "  network 198.18.$((2 * n - 1)).0/24" |
		put "dp$n" bgpd.conf
done
printf 'hostname lx\nvrf red\n vni 100\nexit-vrf\nvrf blue\n vni 200\nexit-vrf\n' |
	put lx zebra.conf
bgp_conf 203.0.113.5 203.0.113.6 red blue "  redistribute connected" |
	put lx bgpd.conf
printf 'hostname rr\n' | put rr zebra.conf
{
	printf 'router bgp 65000\n bgp router-id 203.0.113.2\n'
	printf ' no bgp default ipv4-unicast\n bgp cluster-id 203.0.113.2\n'
	for p in 203.0.113.1 203.0.113.5 203.0.113.9; do
		printf ' neighbor %s remote-as 65000\n neighbor %s timers connect 1\n' "$p" "$p"
	done
	printf ' address-family l2vpn evpn\n'
	for p in 203.0.113.1 203.0.113.5 203.0.113.9; do
		printf '  neighbor %s activate\n  neighbor %s route-reflector-client\n' "$p" "$p"
	done
	printf ' exit-address-family\nexit\n'
} | put rr bgpd.conf

cleanup() {
	local n
	for n in dp1 dp2 lx rr; do frr_stop "$n" || true; done
	tep_cleanup
	kill "${HOLDERS[@]}" 2>/dev/null || true
}
trap cleanup EXIT INT TERM

has() {	# has VRF PREFIX [NODE]: the route's proto, or "none"
	ctl "${3:-1}" -j route show vrf "$1" | $PY -c 'import json,sys
d=json.load(sys.stdin)
r=[x for x in d["routes"] if x["prefix"]==sys.argv[1]]
print(r[0].get("proto","?") if r else "none")' "$2"
}
cnt() { ctl "${2:-1}" -j stats | jget "fpm.fpm_$1"; }
wait_for() {	# SECONDS VRF PREFIX PROTO [NODE]: ms it took, or "timeout"
	local t0 now
	t0=$(date +%s%N)
	for _ in $(seq $(($1 * 20))); do
		if [ "$(has "$2" "$3" "${5:-1}")" = "$4" ]; then
			now=$(date +%s%N)
			echo "$(((now - t0) / 1000000)) ms"
			return 0
		fi
		sleep 0.05
	done
	echo timeout
}
fpm_routes() {	# [NODE]: the FPM routes of all VRFs, one line each, sorted
	local v
	for v in default red blue; do
		ctl "${1:-1}" -j route show vrf "$v" | $PY -c 'import json,sys
for r in json.load(sys.stdin)["routes"]:
    if r.get("proto") == "fpm": print(sys.argv[1], json.dumps(r, sort_keys=True))' "$v"
	done | sort
}
tepd_again() {	# NODE: tepd started again with its EAL file prefix (so the
	# same VRF namespace names: zebra's VRFs), in its holder
	local n=$1 pfx=${NR[$1]%-red}
	TEPD_PREFIX=$pfx TEPD_NSENTER=${HD[$n]} TEPD_ARGS="-N -P 2620" \
		tepd_start "${DP[$n]}" "$WORK/tepd$n.sock" "$WORK/tepd$n.conf" \
		--vdev=net_af_packet0,iface=u0 --vdev=net_af_packet1,iface=a0 \
		--vdev=net_af_packet2,iface=a1 || fail "tepd $n did not restart"
}
routes_back() {	# NODE ROUTES: wait up to 30 s for the node's FPM routes
	for _ in $(seq 60); do
		[ "$(fpm_routes "$1")" = "$2" ] && break
		sleep 0.5
	done
}

CTL="ctl 1"

frr_start rr
frr_start lx
frr_start dp1
frr_start dp2

# ---- the fabric comes up ---------------------------------------------------
t=$(wait_for 60 red 198.18.2.0/24 fpm)
t2=$(wait_for 10 blue 198.18.2.0/24 fpm)
if [ "$t" != timeout ] && [ "$t2" != timeout ]; then
	ok "type-5 198.18.2.0/24 from the Linux VTEP in tepd's red and blue ($t after the last FRR started)"
else
	fail "no EVPN routes in tepd: red $t blue $t2"
	in_dp1 vtysh -c 'show bgp l2vpn evpn summary' -c 'show evpn vni' \
		-c 'show ip route vrf all' 2>&1 | tail -40 || true
	$CTL evpn show
	in_dp1 tail -20 /run/frr/zebra.log || true
	finish
fi
TR=evpn-red-192.0.2.2-100
TB=evpn-blue-192.0.2.2-200
tun() { ctl "${2:-1}" -j tunnel show "$1" | $PY -c 'import json,sys
t=json.load(sys.stdin)["tunnels"][0]
print(t["vni"], t["vrf"], t["remote"], t["inner_dmac"].lower(), t["inner_smac"].lower())'; }
got="$(tun $TR) / $(tun $TB)"
if [ "$got" = "100 red 192.0.2.2 02:00:00:00:02:64 02:00:00:00:11:64 / 200 blue 192.0.2.2 02:00:00:00:02:c8 02:00:00:00:11:c8" ]; then
	ok "automatic tunnels: VNI, VRF, remote router MAC, own router MAC per VRF"
else
	fail "automatic tunnels: $got"
fi
if [ "$(cnt routes_vrf_ambiguous)" = 0 ] && [ "$(cnt conn_dropped)" = 0 ] &&
   grep -q "port id [0-9]*: vrf red" "$LOG" &&
   grep -q "port id [0-9]*: vrf blue" "$LOG"; then
	ok "zebra's VRFs told apart by netlink port id, no frame refused"
else
	fail "ambiguous $(cnt routes_vrf_ambiguous), dropped $(cnt conn_dropped)"
	grep "fpm" "$LOG"
fi
# and tepd's prefix reached the Linux VTEP, in each VRF
for v in "$LXR" "$LXB"; do
	for _ in $(seq 40); do
		ip -n "$v" route show 198.18.1.0/24 | grep -q 192.0.2.1 && break
		sleep 0.5
	done
done
if ip -n "$LXR" route show 198.18.1.0/24 | grep -q "via 192.0.2.1" &&
   ip -n "$LXB" route show 198.18.1.0/24 | grep -q "via 192.0.2.1"; then
	ok "tepd's 198.18.1.0/24 advertised through its FRR into both VRFs of the Linux VTEP"
else
	fail "Linux VTEP has no route to tepd's tenants"
	ip -n "$LXR" route; in_lx vtysh -c 'show bgp l2vpn evpn route' | tail -30
fi

# the other tepd: each has the other's prefix, in each VRF, in tunnels
# with the other's router MAC of that VRF
t=$(wait_for 30 red 198.18.3.0/24 fpm 1)
t2=$(wait_for 10 blue 198.18.1.0/24 fpm 2)
t3=$(wait_for 10 red 198.18.2.0/24 fpm 2)
got="$(tun evpn-red-192.0.2.3-100 1) / $(tun evpn-blue-192.0.2.1-200 2)"
if [ "$t" != timeout ] && [ "$t2" != timeout ] && [ "$t3" != timeout ] &&
   [ "$got" = "100 red 192.0.2.3 02:00:00:00:12:64 02:00:00:00:11:64 / 200 blue 192.0.2.1 02:00:00:00:11:c8 02:00:00:00:12:c8" ]; then
	ok "the two tepd nodes learned each other's prefixes and router MACs through their FRRs"
else
	fail "tepd to tepd: red $t, blue $t2, Linux VTEP's in tepd 2 $t3, tunnels $got"
fi

# ---- traffic ---------------------------------------------------------------
ping_vrfs() {	# DST WHAT: from tepd 1's red and blue tenants (one retry)
	local dst=$1 what=$2 ns vrf
	for ns in "$R1" "$B1"; do
		vrf=red
		[ "$ns" = "$B1" ] && vrf=blue
		if ip netns exec "$ns" ping -c 3 -i 0.2 -W 2 "$dst" >"$WORK/ping" 2>&1 ||
		   ip netns exec "$ns" ping -c 3 -i 0.2 -W 2 "$dst" >"$WORK/ping" 2>&1; then
			ok "$vrf: ping 198.18.1.2 -> $dst, $what"
		else
			fail "$vrf: ping $dst, $what"; cat "$WORK/ping"
		fi
	done
}
ping_vrfs 198.18.2.2 "tepd to the Linux VTEP"
tcp_xfer "$R2" "$R1" 198.18.2.2 200000
tcp_xfer "$B2" "$B1" 198.18.2.2 200000
ping_vrfs 198.18.3.2 "tepd to tepd"
tcp_xfer "$R3" "$R1" 198.18.3.2 200000
tcp_xfer "$B3" "$B1" 198.18.3.2 200000
if ip netns exec "$B1" ping -c 2 -i 0.2 -W 1 198.18.2.3 >/dev/null 2>&1 &&
   ! ip netns exec "$R1" ping -c 2 -i 0.2 -W 1 198.18.2.3 >/dev/null 2>&1; then
	ok "198.18.2.3 (blue only) answers blue, not red"
else
	fail "VRF separation: 198.18.2.3 from blue/red"
fi
say "encapsulated: red $($CTL -j stats tunnel $TR | jget tunnels.0.encap), blue $($CTL -j stats tunnel $TB | jget tunnels.0.encap)"

# ---- withdrawal ------------------------------------------------------------
ip -n "$LXR" addr add 198.18.20.1/24 dev lo
t=$(wait_for 20 red 198.18.20.0/24 fpm)
[ "$t" != timeout ] && ok "new prefix in red after $t" ||
	fail "198.18.20.0/24 never came"
ip -n "$LXR" addr del 198.18.20.1/24 dev lo
t=$(wait_for 2 red 198.18.20.0/24 none)
[ "$t" != timeout ] && ok "withdrawn prefix gone from tepd after $t" ||
	fail "withdrawn prefix still in tepd after 2 s"
[ "$(has blue 198.18.20.0/24)" = none ] &&
	ok "it never appeared in blue" || fail "red's prefix in blue"

# ---- zebra and bgpd restarted on tepd's side -------------------------------
# With a BGP stale time, the EVPN routes zebra's replay lacks (bgpd has
# not converged yet) are not swept with it. (A tenant's ping still loses
# the seconds in which the other VTEPs, having lost this node's BGP
# session, withdraw its prefix: BGP graceful restart on the peers would
# keep it; not configured here.)
ctl 1 fpm set stale 30 >/dev/null
before=$(fpm_routes)
s0=$(cnt sweeps)
sw0=$(cnt routes_swept)
ip netns exec "$R1" ping -i 0.05 -W 1 198.18.2.2 >"$WORK/ping-restart" 2>&1 &
PING_RESTART=$!
sleep 0.5
frr_stop dp1
# zebra -r left its routes in the kernel: a zebra that starts reads them
# back as its own and, on some machines (it dates the read against its
# start-up in whole seconds), keeps and replays them, so the early replay
# would not lack the EVPN routes this step is about. The kernel is not
# under test: the new zebra starts with none of them.
left=0
for ns in . "${NR[1]}" "${NB[1]}"; do	# .: the node's own namespace
	n=(-n "$ns")
	[ "$ns" = . ] && n=()
	left=$((left + $(in_dp1 ip "${n[@]}" route show proto bgp | wc -l)))
	in_dp1 ip "${n[@]}" -4 route flush proto bgp 2>/dev/null || true
	in_dp1 ip "${n[@]}" -6 route flush proto bgp 2>/dev/null || true
done
say "BGP routes zebra left in the kernel, flushed: $left"
sleep 1
held=$(fpm_routes)
t0=$(date +%s%N)
frr_start dp1
# the new connection's replay is over (its sweep), then BGP converges
for _ in $(seq 100); do
	[ "$(cnt sweeps)" -gt "$s0" ] && break
	sleep 0.2
done
routes_back 1 "$before"
say "routes back $((($(date +%s%N) - t0) / 1000000)) ms after zebra started; swept in all: $(cnt routes_swept)"
after=$(fpm_routes)
if [ -n "$before" ] && [ "$held" = "$before" ] && [ "$after" = "$before" ]; then
	ok "FRR restart: $(echo "$before" | wc -l) FPM routes held, then the same after the replay"
else
	fail "FRR restart: before/held/after differ"
	diff <(echo "$before") <(echo "$after") | head
fi
if ip netns exec "$R1" ping -c 2 -i 0.2 -W 2 198.18.2.2 >/dev/null 2>&1 &&
   ip netns exec "$B1" ping -c 2 -i 0.2 -W 2 198.18.2.2 >/dev/null 2>&1; then
	ok "traffic after the restart"
else
	fail "no traffic after the FRR restart"
fi
kill -INT "$PING_RESTART" 2>/dev/null || true
wait "$PING_RESTART" 2>/dev/null || true
st=$(grep "packets transmitted" "$WORK/ping-restart" || echo "no summary")
tx=$(echo "$st" | awk '{print $1}')
rx=$(echo "$st" | sed -n 's/.* \([0-9]*\) received.*/\1/p')
if [ "$(cnt routes_swept)" = "$sw0" ] && grep -q "4 BGP route(s) held" "$LOG" &&
   ! grep -q "BGP stale time over" "$LOG" && [ -n "$rx" ] && [ "$rx" -gt 0 ]; then
	ok "stale time 30 s: the 4 EVPN routes the early replay lacked held, none swept"
	say "tenant ping across the restart: $st"
else
	fail "stale time: swept $(($(cnt routes_swept) - sw0)), ping: $st"
	grep "tepd: fpm: replay\|stale" "$LOG" | tail -3
fi
ctl 1 fpm set stale 0 >/dev/null

# ---- tepd 2 restarted, then its FRR ----------------------------------------
# Same EAL file prefix, so the same VRF namespace names (zebra's VRFs).
# zebra 8.4.4 keeps a VRF on the namespace it opened, which a restarted
# tepd replaces: restart zebra and bgpd after tepd (docs/evpn.md).
before=$(fpm_routes 2)
kill "${TEPD_PIDS[1]}"
wait "${TEPD_PIDS[1]}" 2>/dev/null || true
frr_stop dp2
tepd_again 2
t0=$(date +%s%N)
frr_start dp2
routes_back 2 "$before"
after=$(fpm_routes 2)
if [ -n "$before" ] && [ "$after" = "$before" ] &&
   ip netns exec "$R3" ping -c 2 -i 0.2 -W 2 198.18.1.2 >/dev/null 2>&1 &&
   ip netns exec "$B3" ping -c 2 -i 0.2 -W 2 198.18.2.3 >/dev/null 2>&1 &&
   [ "$(cnt routes_vrf_unknown 2)" = 0 ]; then
	ok "tepd 2 restarted, then its FRR: the same $(echo "$before" | wc -l) FPM routes $((($(date +%s%N) - t0) / 1000000)) ms after zebra started, traffic in both VRFs"
else
	fail "tepd 2 restart: unknown $(cnt routes_vrf_unknown 2)"
	diff <(echo "$before") <(echo "$after") | head
fi

# ---- tepd 1 killed, started again --------------------------------------------
# The next tepd with the same file prefix takes over the VRF namespaces the
# killed one left (and with them the sockets of zebra's VRFs). zebra 8.4.4
# then crashes as the FPM connection comes back while it holds router MACs
# (fpm_rmac_reset -> fpm_rmac_send; FRR fixed it in 2024, after 8.4.4):
# when it has, it is started again, as systemd would, and replays.
before=$(fpm_routes 1)
zpid=$(in_dp1 cat /run/frr/zebra.pid)
kill -9 "${TEPD_PIDS[0]}"
wait "${TEPD_PIDS[0]}" 2>/dev/null || true
t0=$(date +%s%N)
tepd_again 1
zebra=kept
for _ in $(seq 100); do
	kill -0 "$zpid" 2>/dev/null || { zebra=crashed; break; }
	[ "$(fpm_routes 1)" = "$before" ] && break
	sleep 0.1
done
if [ "$zebra" = crashed ]; then
	frr_stop dp1
	frr_start dp1
fi
routes_back 1 "$before"
after=$(fpm_routes 1)
if [ -n "$before" ] && [ "$after" = "$before" ] &&
   [ "$(grep -c "taken over" "$LOG")" = 2 ] &&
   ip netns exec "$R1" ping -c 2 -i 0.2 -W 2 198.18.2.2 >/dev/null 2>&1 &&
   ip netns exec "$B1" ping -c 2 -i 0.2 -W 2 198.18.3.2 >/dev/null 2>&1; then
	# (routes_vrf_unknown may count: frames read after zebra crashed
	# name sockets that went with it)
	ok "tepd 1 killed and started again: both VRF namespaces taken over, the same $(echo "$before" | wc -l) FPM routes $((($(date +%s%N) - t0) / 1000000)) ms after its start (zebra $zebra), traffic in both VRFs"
else
	fail "tepd 1 killed: unknown $(cnt routes_vrf_unknown), taken over $(grep -c "taken over" "$LOG"), zebra $zebra"
	diff <(echo "$before") <(echo "$after") | head
fi
finish
