#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# EVPN type-5 with live FRR 8.4.4 on both sides, nothing typed into tepd
# but its ports, VRFs and L3VNIs:
#
#   tenant r1 --\                                      /-- tenant r2 (red)
#   (red)        tepd (-N -P) == VXLAN 100/200 == Linux VTEP (kernel vxlan,
#   tenant b1 --/  zebra+bgpd     192.0.2.1/.2       zebra+bgpd, netns VRFs)
#   (blue)              \                          /              \-- b2 (blue)
#                        iBGP l2vpn evpn, 203.0.113.0/24
#                        route reflector (zebra+bgpd)
#
# Both VRFs use the same tenant prefixes (198.18.1.0/24 behind tepd,
# 198.18.2.0/24 behind the Linux VTEP). tepd's zebra runs with the netns
# VRF backend (this kernel has no VRF device) and sees tepd's own VRF
# namespaces (tepd -N) as its VRFs; each holds a bridge + vxlan device for
# zebra's L3VNI only (tepd carries the traffic). tepd tells the VRFs
# apart by zebra's netlink port id in each namespace (docs/evpn.md).
#
# Checked: type-5 routes from the remote VTEP land in the right VRF as
# automatic VXLAN tunnels with the advertised router MAC; ping and TCP
# (checked bytes) in each VRF; a host only blue has is unreachable from
# red; a withdrawn prefix leaves tepd within 2 s; zebra+bgpd restarted on
# tepd's side reconverge to the same tables. The BGP sessions run to a
# route reflector over management links (tepd's underlay ports are DPDK's).
#
# Every FRR instance runs in a mount namespace of its own with a private
# /run/netns (zebra -n makes a VRF of every name there) and /run/frr.
set -euo pipefail
if [ "$(id -u)" -eq 0 ] && [ -z "${EVPN_FRR_INNER:-}" ]; then
	exec unshare -m --propagation private env EVPN_FRR_INNER=1 "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
if [ ! -x /usr/lib/frr/zebra ] || [ ! -x /usr/lib/frr/bgpd ]; then
	echo "skipped: FRR not installed (apt-get install frr)"
	exit 77
fi
CTL="$TEPCTL -s $WORK/tepd.sock"
HOLDERS=()

# ---- namespaces and links --------------------------------------------------
DP=$(ns_add ev-dp)	# tepd and its FRR
LX=$(ns_add ev-lx)	# the Linux VTEP's underlay side
LXR=$(ns_add ev-lxr)	# its VRF red
LXB=$(ns_add ev-lxb)	# its VRF blue
R1=$(ns_add ev-r1)
B1=$(ns_add ev-b1)
R2=$(ns_add ev-r2)
B2=$(ns_add ev-b2)

veth "$DP" u0 "$LX" eth0		# underlay, tepd's port 0
veth "$DP" a0 "$R1" eth0		# red access, tepd's port 1
veth "$DP" a1 "$B1" eth0		# blue access, tepd's port 2
RR=$(ns_add ev-rr)	# route reflector (bgpd; no VTEP)
veth "$DP" m0 "$RR" r0			# management: BGP to the reflector
veth "$LX" m0 "$RR" r1
ip -n "$DP" addr add 203.0.113.1/30 dev m0
ip -n "$RR" addr add 203.0.113.2/30 dev r0
ip -n "$LX" addr add 203.0.113.5/30 dev m0
ip -n "$RR" addr add 203.0.113.6/30 dev r1
# bgpd validates a VTEP next hop through zebra: kernel routes will do
ip -n "$DP" route add 192.0.2.0/24 via 203.0.113.2
ip -n "$RR" route add 192.0.2.0/24 via 203.0.113.5
ip -n "$LX" addr add 192.0.2.2/24 dev eth0

ip -n "$R1" addr add 198.18.1.2/24 dev eth0
ip -n "$B1" addr add 198.18.1.2/24 dev eth0
veth "$LXR" eth0 "$R2" eth1
veth "$LXB" eth0 "$B2" eth1
for t in "$R2" "$B2"; do
	ip -n "$t" addr add 198.18.2.2/24 dev eth1
	ip -n "$t" route add default via 198.18.2.1
done
ip -n "$B2" addr add 198.18.2.3/24 dev eth1	# blue only
for t in "$R1" "$B1"; do
	ip -n "$t" route add default via 198.18.1.1
done
for v in "$LXR" "$LXB"; do
	ip -n "$v" addr add 198.18.2.1/24 dev eth0
	ip netns exec "$v" sysctl -qw net.ipv4.ip_forward=1
done

# l3vni NS_UNDERLAY NS_VRF VNI LOCAL MAC: bridge (the SVI, its MAC the
# router MAC) + vxlan device in the VRF's namespace, made next to the
# underlay so that its socket stays there ("." for NS_UNDERLAY: the
# current namespace).
l3vni() {
	local u=(-n "$1")
	[ "$1" = . ] && u=()
	ip "${u[@]}" link add "vx$3" type vxlan id "$3" dstport 4789 \
		local "$4" nolearning
	ip "${u[@]}" link set "vx$3" netns "$2"
	ip -n "$2" link add "br$3" type bridge stp_state 0
	ip -n "$2" link set "br$3" address "$5"
	ip -n "$2" link set "vx$3" master "br$3"
	ip -n "$2" link set "vx$3" up
	ip -n "$2" link set "br$3" up
}
l3vni "$LX" "$LXR" 100 192.0.2.2 02:00:00:00:02:64
l3vni "$LX" "$LXB" 200 192.0.2.2 02:00:00:00:02:c8

# holder NS NAME=NETNS...: a process in NS with a mount namespace of its
# own whose /run/netns holds exactly the given names and whose /run/frr is
# private. Its pid in HOLDER (not printed: a command substitution's
# subshell would run the EXIT trap, cleaning up everything).
holder() {
	local ns=$1 keep=$WORK/keep.$1 b binds=""
	shift
	mkdir -p "$keep"
	for b in "$@"; do
		binds+="touch $keep/${b%%=*}; mount --bind /run/netns/${b#*=} $keep/${b%%=*}; "
	done
	ip netns exec "$ns" unshare -m --propagation private bash -c "
		$binds
		mount -t tmpfs none /run/netns
		mount -t tmpfs none /run/frr
		chown frr:frr /run/frr
		for f in $keep/*; do
			[ -e \"\$f\" ] || continue
			touch /run/netns/\${f##*/}
			mount --bind \$f /run/netns/\${f##*/}
		done
		exec sleep 100000" &
	HOLDER=$!
	HOLDERS+=($!)
	sleep 0.5
}
holder "$DP"
HD=$HOLDER
holder "$LX" red="$LXR" blue="$LXB"
HL=$HOLDER
in_dp() { nsenter -t "$HD" -m --net="/run/netns/$DP" -- "$@"; }
holder "$RR"
HR=$HOLDER
in_lx() { nsenter -t "$HL" -m --net="/run/netns/$LX" -- "$@"; }
in_rr() { nsenter -t "$HR" -m --net="/run/netns/$RR" -- "$@"; }

# ---- tepd ------------------------------------------------------------------
cat >"$WORK/tepd.conf" <<C
vrf add red table 10
vrf add blue table 20
port set net_af_packet0 role underlay
addr add 192.0.2.1/24 dev net_af_packet0
port set net_af_packet1 role access
port bind net_af_packet1 vrf red
addr add 198.18.1.1/24 dev net_af_packet1
port set net_af_packet2 role access
port bind net_af_packet2 vrf blue
addr add 198.18.1.1/24 dev net_af_packet2
evpn vrf red vni 100 rmac 02:00:00:00:01:64
evpn vrf blue vni 200 rmac 02:00:00:00:01:c8
C
TEPD_NSENTER=$HD TEPD_ARGS="-N -P 2620" tepd_start "$DP" "$WORK/tepd.sock" \
	"$WORK/tepd.conf" --vdev=net_af_packet0,iface=u0 \
	--vdev=net_af_packet1,iface=a0 --vdev=net_af_packet2,iface=a1 ||
	{ fail "tepd did not start"; finish; }
LOG=$WORK/tepd-tepd.sock.log
$CTL fpm set quiet 1
nsname() {	# the VRF's namespace name, as zebra -n calls the VRF
	$CTL -j vrf list | $PY -c 'import json,sys
for v in json.load(sys.stdin)["vrfs"]:
    if v["name"] == sys.argv[1]: print(v["netns"].rsplit("/", 1)[1])' "$1"
}
NR=$(nsname red)
NB=$(nsname blue)
# (Re)made once zebra runs: zebra 8.4.4 ties a VXLAN device to its L3VNI
# only when the device appears after the L3VNI is configured; else it
# has an L3VNI without device and crashes sending its router MACs to FPM.
dp_l3vnis() {
	in_dp bash -c "ip -n $NR link del vx100; ip -n $NB link del vx200" \
		2>/dev/null || true
	in_dp bash -c "$(declare -f l3vni); l3vni . $NR 100 192.0.2.1 02:00:00:00:01:64; l3vni . $NB 200 192.0.2.1 02:00:00:00:01:c8" 2>/dev/null ||
		true
}

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
# frr_start dp|lx: zebra (tepd's with FPM, -r) then bgpd, in the node's
# holder; configs in its private /run/frr
frr_start() {
	local run=in_$1 fpm=()
	[ "$1" = dp ] && fpm=(-r -M dplane_fpm_nl)
	$run /usr/lib/frr/zebra -d -n "${fpm[@]}" -f /run/frr/zebra.conf \
		-i /run/frr/zebra.pid --log file:/run/frr/zebra.log
	sleep 1
	if [ "$1" = dp ]; then
		dp_l3vnis
		# bgpd only once zebra is connected to tepd: zebra 8.4.4
		# crashes (fpm_rmac_send) replaying router MACs it learned
		# before the FPM connection came up (docs/evpn.md)
		local c0=$FPM_CONNECTS
		for _ in $(seq 150); do
			FPM_CONNECTS=$(cnt connects)
			[ "$FPM_CONNECTS" != "$c0" ] && break
			sleep 0.1
		done
	fi
	$run /usr/lib/frr/bgpd -d -f /run/frr/bgpd.conf \
		-i /run/frr/bgpd.pid --log file:/run/frr/bgpd.log
}
frr_stop() {
	local run=in_$1 p pid
	for p in zebra bgpd; do
		pid=$($run cat "/run/frr/$p.pid" 2>/dev/null) || continue
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
		$run rm -f "/run/frr/$p.pid"
	done
}
put() {	# put dp|lx FILE: stdin to the node's /run/frr/FILE
	in_"$1" bash -c "cat >/run/frr/$2 && chown frr:frr /run/frr/$2"
}
printf 'hostname dp\nfpm address 127.0.0.1 port 2620\nno fpm use-next-hop-groups\nvrf %s\n vni 100\nexit-vrf\nvrf %s\n vni 200\nexit-vrf\n' \
	"$NR" "$NB" | put dp zebra.conf
bgp_conf 203.0.113.1 203.0.113.2 "$NR" "$NB" "  network 198.18.1.0/24" |
	put dp bgpd.conf
printf 'hostname lx\nvrf red\n vni 100\nexit-vrf\nvrf blue\n vni 200\nexit-vrf\n' |
	put lx zebra.conf
bgp_conf 203.0.113.5 203.0.113.6 red blue "  redistribute connected" |
	put lx bgpd.conf

FPM_CONNECTS=0
printf 'hostname rr\n' | put rr zebra.conf
cat <<C | put rr bgpd.conf
router bgp 65000
 bgp router-id 203.0.113.2
 no bgp default ipv4-unicast
 bgp cluster-id 203.0.113.2
 neighbor 203.0.113.1 remote-as 65000
 neighbor 203.0.113.1 timers connect 1
 neighbor 203.0.113.5 remote-as 65000
 neighbor 203.0.113.5 timers connect 1
 address-family l2vpn evpn
  neighbor 203.0.113.1 activate
  neighbor 203.0.113.1 route-reflector-client
  neighbor 203.0.113.5 activate
  neighbor 203.0.113.5 route-reflector-client
 exit-address-family
exit
C
cleanup() {
	frr_stop dp || true
	frr_stop lx || true
	frr_stop rr || true
	tep_cleanup
	kill "${HOLDERS[@]}" 2>/dev/null || true
}
trap cleanup EXIT INT TERM

has() {	# has VRF PREFIX: the route's proto, or "none"
	$CTL -j route show vrf "$1" | $PY -c 'import json,sys
d=json.load(sys.stdin)
r=[x for x in d["routes"] if x["prefix"]==sys.argv[1]]
print(r[0].get("proto","?") if r else "none")' "$2"
}
cnt() { $CTL -j stats | jget "fpm.fpm_$1"; }
wait_for() {	# SECONDS VRF PREFIX PROTO: ms it took, or "timeout"
	local t0 now
	t0=$(date +%s%N)
	for _ in $(seq $(($1 * 20))); do
		if [ "$(has "$2" "$3")" = "$4" ]; then
			now=$(date +%s%N)
			echo "$(((now - t0) / 1000000)) ms"
			return 0
		fi
		sleep 0.05
	done
	echo timeout
}
fpm_routes() {	# the FPM routes of both VRFs, one line each, sorted
	local v
	for v in default red blue; do
		$CTL -j route show vrf "$v" | $PY -c 'import json,sys
for r in json.load(sys.stdin)["routes"]:
    if r.get("proto") == "fpm": print(sys.argv[1], json.dumps(r, sort_keys=True))' "$v"
	done | sort
}

frr_start rr
frr_start lx
frr_start dp

# ---- the fabric comes up ---------------------------------------------------
t=$(wait_for 60 red 198.18.2.0/24 fpm)
t2=$(wait_for 10 blue 198.18.2.0/24 fpm)
if [ "$t" != timeout ] && [ "$t2" != timeout ]; then
	ok "type-5 198.18.2.0/24 from the Linux VTEP in tepd's red and blue ($t after FRR started)"
else
	fail "no EVPN routes in tepd: red $t blue $t2"
	in_dp vtysh -c 'show bgp l2vpn evpn summary' -c 'show evpn vni' \
		-c 'show ip route vrf all' 2>&1 | tail -40 || true
	$CTL evpn show
	in_dp tail -20 /run/frr/zebra.log || true
	finish
fi
TR=evpn-red-192.0.2.2-100
TB=evpn-blue-192.0.2.2-200
tun() { $CTL -j tunnel show "$1" | $PY -c 'import json,sys
t=json.load(sys.stdin)["tunnels"][0]
print(t["vni"], t["vrf"], t["remote"], t["inner_dmac"].lower(), t["inner_smac"].lower())'; }
got="$(tun $TR) / $(tun $TB)"
if [ "$got" = "100 red 192.0.2.2 02:00:00:00:02:64 02:00:00:00:01:64 / 200 blue 192.0.2.2 02:00:00:00:02:c8 02:00:00:00:01:c8" ]; then
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

# ---- traffic ---------------------------------------------------------------
for pair in "$R1 red" "$B1 blue"; do
	set -- ${pair% *} ${pair#* }
	if ip netns exec "$1" ping -c 3 -i 0.2 -W 2 198.18.2.2 >"$WORK/ping" 2>&1 ||
	   ip netns exec "$1" ping -c 3 -i 0.2 -W 2 198.18.2.2 >"$WORK/ping" 2>&1; then
		ok "$2: ping 198.18.1.2 -> 198.18.2.2 across the fabric"
	else
		fail "$2: ping"; cat "$WORK/ping"
	fi
done
tcp_xfer "$R2" "$R1" 198.18.2.2 200000
tcp_xfer "$B2" "$B1" 198.18.2.2 200000
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
before=$(fpm_routes)
s0=$(cnt sweeps)
frr_stop dp
sleep 1
held=$(fpm_routes)
t0=$(date +%s%N)
frr_start dp
# the new connection's replay is over (its sweep), then BGP converges
for _ in $(seq 100); do
	[ "$(cnt sweeps)" -gt "$s0" ] && break
	sleep 0.2
done
for _ in $(seq 60); do
	[ "$(fpm_routes)" = "$before" ] && break
	sleep 0.5
done
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
finish
