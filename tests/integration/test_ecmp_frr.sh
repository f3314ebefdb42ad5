#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# ECMP and failover in a leaf-spine fabric run by live FRR 8.4.4 (issue 28):
#
#                 spine 1 (AS 65100)          spine 2 (AS 65100)
#                 zebra bgpd bfdd             zebra bgpd bfdd
#                 .2 /     \ .9               .6 /     \ .13
#                   /       \_________________  /       \
#                  /   ___________________    \/         \
#          .1 u1  /   /  .5 u2                /\     .14  \ .10
#   tenant -- tepd (-N -P -H tepd0)        Linux leaf: kernel vxlan,
#   198.18.1.2  leaf 1 (AS 65001)          zebra bgpd bfdd (AS 65002)
#   (red)       zebra bgpd bfdd            VTEP 203.0.113.2 (lo)
#               VTEP 203.0.113.1           red: 198.18.2.0/24, tenant .2
#
# Links: /30s of 198.51.100.0/24 (tepd-sp1 .0, tepd-sp2 .4, lx-sp1 .8,
# lx-sp2 .12). Underlay eBGP, each leaf its own AS and both spines one
# (RFC 7938 5.2.1: routes between leaves then have the same AS path over
# either spine, so `maximum-paths` makes them multipath without
# `multipath-relax`, and a spine never takes a path through the other
# spine). eBGP rather than iBGP with the spines as route reflectors: a
# reflector does not change the next hop, so the leaves' loopbacks would
# need an IGP to be reached over both spines; with eBGP the spines are
# the next hops of the loopback routes, which is what makes them ECMP.
# Spine 2 relays l2vpn evpn with the next hop unchanged (the VTEP);
# spine 1 carries only ipv4 unicast, because of an FRR 8.4.4 bug (below,
# at bgp_conf): what fails over here is the underlay.
# Every session has BFD at 100 ms x 3. The VTEP loopbacks are advertised
# in ipv4 unicast; type-5 routes of VRF red (L3VNI 100, route target
# 65000:100 on both leaves: the automatic one is AS:VNI, which differs).
# tepd's BGP and BFD run over its own underlay ports (tepd -H tepd0, as in
# test_bgp_underlay.sh); its zebra sends it routes over FPM.
#
# Checked:
#  1. the sessions and BFD (100 ms x 3) up; tepd holds 203.0.113.2/32 as a
#     group of two nexthops, one per spine, from zebra (FRR sends it as
#     RTA_MULTIPATH here: `no fpm use-next-hop-groups`); the Linux leaf
#     has 203.0.113.1 over both spines; type-5 routes both ways.
#  2. 64 UDP flows each way (tenant to tenant): each spine forwards 25-75 %
#     of the VXLAN packets of each direction (nft counters on the spines).
#  3. spine 1's end of its link to tepd set down under a steady stream
#     (1000 pps each way, 16 flows, sequence numbers) and a paced TCP
#     transfer: the loss is printed (missing packets, and the longest gap
#     of a flow in ms); it fails only above 5 s (FAILOVER_MAX_MS), a bound
#     for "failover happened", not the goal (BFD's 300 ms plus bgpd ->
#     zebra -> FPM). tepd's af_packet port does not see the link go:
#     tepd learns it from zebra (BFD -> bgpd) or from its own gateway
#     probes (3 s). The TCP transfer completes, sha256 equal at both
#     ends; meanwhile everything of tepd's goes over spine 2.
#  4. link back: tepd's group has both spines again, and the 64 flows
#     spread again over both.
set -euo pipefail
TEP_FRR=1
. "$(dirname "$0")/lib.sh"
FAILOVER_MAX_MS=${FAILOVER_MAX_MS:-5000}
T_START=$(date +%s)

DP=$(ns_add ef-dp)	# tepd, leaf 1
T1=$(ns_add ef-t1)	# its tenant (red)
S1=$(ns_add ef-s1)
S2=$(ns_add ef-s2)
LX=$(ns_add ef-lx)	# the Linux leaf's underlay side
LXR=$(ns_add ef-lxr)	# its VRF red
T2=$(ns_add ef-t2)	# its tenant
veth "$DP" u1 "$S1" e1
veth "$DP" u2 "$S2" e1
veth "$LX" s1 "$S1" e2
veth "$LX" s2 "$S2" e2
veth "$DP" a0 "$T1" eth0
veth "$LXR" eth0 "$T2" eth0
# tepd -H puts the underlay addresses on tepd0 in this namespace: the
# kernel must not answer on u1/u2 for tepd (as in test_bgp_underlay.sh)
no_side_door "$DP" u1
no_side_door "$DP" u2
ip -n "$S1" addr add 198.51.100.2/30 dev e1
ip -n "$S1" addr add 198.51.100.9/30 dev e2
ip -n "$S2" addr add 198.51.100.6/30 dev e1
ip -n "$S2" addr add 198.51.100.13/30 dev e2
ip -n "$LX" addr add 198.51.100.10/30 dev s1
ip -n "$LX" addr add 198.51.100.14/30 dev s2
ip -n "$LX" addr add 203.0.113.2/32 dev lo
for ns in "$S1" "$S2"; do
	ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1
	# What each spine forwards of the tunnels, per direction:
	# to_lx: from leaf 1 (tepd) to leaf 2, to_tepd: the other way
	ip netns exec "$ns" nft -f - <<'NFT'
table inet ecmp {
	counter to_lx { }
	counter to_tepd { }
	chain forward {
		type filter hook forward priority 0; policy accept;
		iifname "e1" udp dport 4789 counter name "to_lx"
		iifname "e2" udp dport 4789 counter name "to_tepd"
	}
}
NFT
done
# The Linux leaf spreads its own VXLAN packets only if its multipath hash
# takes the ports (the outer source port follows the inner flow) and if
# the VXLAN device does not cache its route: it does not with a TOS set
ip netns exec "$LX" sysctl -qw net.ipv4.fib_multipath_hash_policy=1
ip -n "$T1" addr add 198.18.1.2/24 dev eth0
ip -n "$T1" route add default via 198.18.1.1
ip -n "$T2" addr add 198.18.2.2/24 dev eth0
ip -n "$T2" route add default via 198.18.2.1
ip -n "$LXR" addr add 198.18.2.1/24 dev eth0
ip netns exec "$LXR" sysctl -qw net.ipv4.ip_forward=1
l3vni "$LX" "$LXR" 100 203.0.113.2 02:00:00:00:02:64
ip -n "$LXR" link set vx100 type vxlan tos 0x10

holder "$DP"
HD=$HOLDER
holder "$LX" red="$LXR"
HL=$HOLDER
holder "$S1"
HS1=$HOLDER
holder "$S2"
HS2=$HOLDER
in_dp() { nsenter -t "$HD" -m --net="/run/netns/$DP" -- "$@"; }
in_lx() { nsenter -t "$HL" -m --net="/run/netns/$LX" -- "$@"; }
in_s1() { nsenter -t "$HS1" -m --net="/run/netns/$S1" -- "$@"; }
in_s2() { nsenter -t "$HS2" -m --net="/run/netns/$S2" -- "$@"; }

# ---- tepd, leaf 1 -------------------------------------------------------------
cat >"$WORK/tepd.conf" <<'C'
vrf add red table 10
port set net_af_packet0 role underlay
addr add 198.51.100.1/30 dev net_af_packet0
addr add 203.0.113.1/32 dev net_af_packet0
port set net_af_packet1 role underlay
addr add 198.51.100.5/30 dev net_af_packet1
port set net_af_packet2 role access
port bind net_af_packet2 vrf red
addr add 198.18.1.1/24 dev net_af_packet2
evpn local 203.0.113.1
evpn vrf red vni 100 rmac 02:00:00:00:11:64
fpm set quiet 1
C
TEPD_NSENTER=$HD TEPD_ARGS="-N -P 2620 -H tepd0" tepd_start "$DP" \
	"$WORK/tepd.sock" "$WORK/tepd.conf" \
	--vdev=net_af_packet0,iface=u1 --vdev=net_af_packet1,iface=u2 \
	--vdev=net_af_packet2,iface=a0 ||
	{ fail "tepd did not start"; finish; }
CTL="$TEPCTL -s $WORK/tepd.sock"
NSR=$($CTL -j vrf list | vrf_netns red)

# ---- FRR ---------------------------------------------------------------------
# bgp_conf ASN ROUTER-ID "PEER:ASN ..." IPV4-LINES EVPN-LINES "PEER ...":
# the underlay sessions (ipv4 unicast; l2vpn evpn with the last peers
# only; BFD profile fast); a spine (65100) passes EVPN routes on with
# their next hop, the VTEP
bgp_conf() {
	local p
	printf 'router bgp %s\n bgp router-id %s\n no bgp ebgp-requires-policy\n' "$1" "$2"
	printf ' no bgp default ipv4-unicast\n timers bgp 3 9\n'
	for p in $3; do
		printf ' neighbor %s remote-as %s\n neighbor %s timers connect 1\n' \
			"${p%:*}" "${p#*:}" "${p%:*}"
		printf ' neighbor %s bfd\n neighbor %s bfd profile fast\n' "${p%:*}" "${p%:*}"
	done
	printf ' address-family ipv4 unicast\n%s\n' "$4"
	for p in $3; do
		printf '  neighbor %s activate\n' "${p%:*}"
	done
	printf ' exit-address-family\n address-family l2vpn evpn\n'
	for p in $3; do
		case " $6 " in *" ${p%:*} "*) ;; *) continue ;; esac
		printf '  neighbor %s activate\n' "${p%:*}"
		[ "$1" = 65100 ] &&
			printf '  neighbor %s attribute-unchanged next-hop\n' "${p%:*}"
	done
	printf '%s\n exit-address-family\nexit\n' "$5"
}
# FRR 8.4.4 loses a remote VTEP's router MAC (zebra deletes it, and the
# kernel's neighbour entry) when bgpd sends it a type-5 route again, e.g.
# when the best path moves to the copy of the same route via the other
# spine (same VTEP, same MAC): FRR issue 12391, from 8.4's early route
# queue (pull request 11777), fixed after 8.5. Seen here with l2vpn evpn
# on both spines: after the cut, tepd's route held for a MAC that never
# came back, the Linux leaf's neighbour for tepd's VTEP FAILED, traffic
# stopped for good; also when spine 1 came up after spine 2 with its
# copies less preferred. So l2vpn evpn runs over spine 2 only: each
# type-5 route has one copy, and what moves at the cut is the underlay
# (the VTEP loopbacks, over both spines), whose failover is measured.

# vrf_conf ASN ROUTER-ID VRF IPV4-LINE: the tenant VRF's type-5 routes
vrf_conf() {
	cat <<C
router bgp $1 vrf $3
 bgp router-id $2
 no bgp network import-check
 address-family ipv4 unicast
  $4
 exit-address-family
 address-family l2vpn evpn
  advertise ipv4 unicast
  route-target import 65000:100
  route-target export 65000:100
 exit-address-family
exit
C
}
bfd_conf() {
	printf 'bfd\n profile fast\n  detect-multiplier 3\n  receive-interval 100\n  transmit-interval 100\n exit\nexit\n'
}
{
	bgp_conf 65001 203.0.113.1 "198.51.100.2:65100 198.51.100.6:65100" \
		"  network 203.0.113.1/32
  maximum-paths 4" "  advertise-all-vni" 198.51.100.6
	vrf_conf 65001 203.0.113.1 "$NSR" "network 198.18.1.0/24"
} | frr_put in_dp bgpd.conf
printf 'hostname dp\nfpm address 127.0.0.1 port 2620\nno fpm use-next-hop-groups\nvrf %s\n vni 100\nexit-vrf\n' \
	"$NSR" | frr_put in_dp zebra.conf
{
	bgp_conf 65002 203.0.113.2 "198.51.100.9:65100 198.51.100.13:65100" \
		"  network 203.0.113.2/32
  maximum-paths 4" "  advertise-all-vni" 198.51.100.13
	vrf_conf 65002 203.0.113.2 red "redistribute connected"
} | frr_put in_lx bgpd.conf
printf 'hostname lx\nvrf red\n vni 100\nexit-vrf\n' | frr_put in_lx zebra.conf
bgp_conf 65100 10.255.0.1 "198.51.100.1:65001 198.51.100.10:65002" "" "" "" |
	frr_put in_s1 bgpd.conf
bgp_conf 65100 10.255.0.2 "198.51.100.5:65001 198.51.100.14:65002" "" "" \
	"198.51.100.5 198.51.100.14" |
	frr_put in_s2 bgpd.conf
for n in in_dp in_lx in_s1 in_s2; do
	bfd_conf | frr_put $n bfdd.conf
done
printf 'hostname s1\n' | frr_put in_s1 zebra.conf
printf 'hostname s2\n' | frr_put in_s2 zebra.conf
cleanup() {
	local n
	for n in in_dp in_lx in_s1 in_s2; do
		frr_kill $n zebra bgpd bfdd || true
	done
	tep_cleanup
}
trap cleanup EXIT INT TERM

for n in in_s1 in_s2; do
	frr_run $n zebra
	frr_run $n bfdd
	frr_run $n bgpd
done
frr_run in_lx zebra -n
frr_run in_lx bfdd
frr_run in_lx bgpd
frr_fpm_node in_dp "$CTL" "l3vni . $NSR 100 203.0.113.1 02:00:00:00:11:64" \
	bfdd bgpd

bgp_state() {	# IN PEER
	$1 vtysh -c "show bgp neighbors $2 json" 2>/dev/null | $PY -c 'import json,sys
try: print(json.load(sys.stdin)[sys.argv[1]]["bgpState"])
except Exception: print("?")' "$2"
}
bfd_peer() {	# IN PEER: "status rx-ms tx-ms multiplier"
	$1 vtysh -c "show bfd peers json" 2>/dev/null | $PY -c 'import json,sys
try:
    p=[p for p in json.load(sys.stdin) if p["peer"] == sys.argv[1]][0]
    print(p["status"], p["receive-interval"], p["transmit-interval"], p["detect-multiplier"])
except Exception: print("?")' "$2"
}
SESSIONS="in_dp:198.51.100.2 in_dp:198.51.100.6 in_lx:198.51.100.9
in_lx:198.51.100.13 in_s1:198.51.100.1 in_s1:198.51.100.10
in_s2:198.51.100.5 in_s2:198.51.100.14"
sessions_up() {	# print the sessions not Established (BGP) or not up (BFD)
	local s
	for s in $SESSIONS; do
		[ "$(bgp_state "${s%%:*}" "${s#*:}")" = Established ] || echo "bgp:$s"
		[ "$(bfd_peer "${s%%:*}" "${s#*:}")" = "up 100 100 3" ] ||
			echo "bfd:$s($(bfd_peer "${s%%:*}" "${s#*:}"))"
	done
}
t0=$(date +%s)
for _ in $(seq 90); do
	[ -z "$(sessions_up)" ] && break
	sleep 1
done
bad=$(sessions_up | tr '\n' ' ')
if [ -z "$bad" ]; then
	ok "8 eBGP sessions and their BFD (100 ms x 3) up ($(($(date +%s) - t0)) s)"
else
	fail "sessions not up: $bad"
	in_dp tail -5 /run/frr/bgpd.log || true
fi

# ---- multipath from zebra ---------------------------------------------------------
# lo_paths: tepd's route to the Linux leaf's VTEP as "group N: VIA/DEV ..."
lo_paths() {
	$CTL -j route show 203.0.113.2/32 | $PY -c 'import json,sys
r=json.load(sys.stdin)["routes"]
if not r: print("none"); sys.exit()
r=r[0]
if "nexthops" in r:
    print("group", " ".join("%s/%s/%s" % (n.get("via"), n.get("dev"), n["state"]) for n in r["nexthops"]), r.get("proto"))
else:
    print("single", "%s/%s" % (r.get("via"), r.get("dev")), r.get("proto"))'
}
BOTH="group 198.51.100.2/net_af_packet0/up 198.51.100.6/net_af_packet1/up fpm"
for _ in $(seq 40); do
	[ "$(lo_paths)" = "$BOTH" ] && break
	sleep 0.5
done
got=$(lo_paths)
if [ "$got" = "$BOTH" ]; then
	ok "tepd: 203.0.113.2/32 from zebra is a group over both spines ($(
		$CTL -j stats | jget fpm.fpm_routes_multipath) multipath routes, $(
		$CTL -j stats | jget fpm.fpm_routes_by_nh_obj) by next-hop object)"
else
	fail "tepd's route to 203.0.113.2: '$got'"
	$CTL route show
fi
lx_paths() { ip -n "$LX" route show 203.0.113.1 | grep -c 'nexthop via'; }
for _ in $(seq 20); do
	[ "$(lx_paths)" = 2 ] && break
	sleep 0.5
done
[ "$(lx_paths)" = 2 ] &&
	ok "Linux leaf: 203.0.113.1 over both spines" ||
	fail "Linux leaf's route to 203.0.113.1: $(ip -n "$LX" route show 203.0.113.1)"
tun() {
	$CTL -j route show vrf red 198.18.2.0/24 | $PY -c 'import json,sys
r=json.load(sys.stdin)["routes"]
print(r[0].get("tunnel", "-") if r else "none")'
}
for _ in $(seq 60); do
	[ "$(tun)" != none ] &&
		ip -n "$LXR" route show 198.18.1.0/24 | grep -q 203.0.113.1 && break
	sleep 0.5
done
if [ "$(tun)" = evpn-red-203.0.113.2-100 ] &&
   ip -n "$LXR" route show 198.18.1.0/24 | grep -q "via 203.0.113.1"; then
	ok "type-5 routes both ways between the VTEP loopbacks"
else
	fail "EVPN: tepd red 198.18.2.0/24 -> $(tun); Linux leaf: '$(ip -n "$LXR" route show 198.18.1.0/24)'"
fi
ping_ok=0
for _ in 1 2 3; do
	ip netns exec "$T1" ping -c 3 -i 0.2 -W 2 198.18.2.2 >"$WORK/ping" 2>&1 &&
		{ ping_ok=1; break; }
done
[ "$ping_ok" = 1 ] && ok "tenant ping across the fabric" ||
	{ fail "tenant ping"; cat "$WORK/ping"; }

# ---- spread ------------------------------------------------------------------
cnt() {	# NS COUNTER: packets
	ip netns exec "$1" nft list counter inet ecmp "$2" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }'
}
counters() { echo "$(cnt "$S1" to_lx) $(cnt "$S2" to_lx) $(cnt "$S1" to_tepd) $(cnt "$S2" to_tepd)"; }
# spread NAME [sp2]: 64 flows x 10 datagrams each way at once; each
# spine's share of each direction's VXLAN packets (25-75 %, or with sp2
# all on spine 2), and what arrived (at least 95 %)
spread() {
	local c0 c1 u1 u2 d1 d2 r
	c0=$(counters)
	ip netns exec "$T2" $PY "$HERE/seq_stream.py" recv 7000 3 "$WORK/$1-r2" &
	local p2=$!
	ip netns exec "$T1" $PY "$HERE/seq_stream.py" recv 7000 3 "$WORK/$1-r1" &
	local p1=$!
	sleep 0.3
	ip netns exec "$T1" $PY "$HERE/seq_stream.py" send 198.18.2.2 7000 64 1000 640 >/dev/null &
	ip netns exec "$T2" $PY "$HERE/seq_stream.py" send 198.18.1.2 7000 64 1000 640 >/dev/null
	wait $p1 $p2 || true
	c1=$(counters)
	read -r u1 u2 d1 d2 <<<"$($PY -c 'import sys
a=[int(x) for x in sys.argv[1].split()]; b=[int(x) for x in sys.argv[2].split()]
print(*[y - x for x, y in zip(a, b)])' "$c0" "$c1")"
	r=$($PY - "$u1" "$u2" "$d1" "$d2" "$WORK/$1-r2" "$WORK/$1-r1" "${2:-}" <<'PY'
import json, sys
u1, u2, d1, d2 = (int(x) for x in sys.argv[1:5])
got = [len(json.load(open(f))["seqs"]) for f in sys.argv[5:7]]
only2 = sys.argv[7] == "sp2"
bad = []
for what, a, b, n in (("tepd->lx", u1, u2, got[0]), ("lx->tepd", d1, d2, got[1])):
    if n < 608:
        bad.append("%s: %d of 640 arrived" % (what, n))
    if a + b < 608 or (only2 and a > 0) or \
       (not only2 and not (0.25 <= a / (a + b) <= 0.75)):
        bad.append("%s: spine 1 %d, spine 2 %d" % (what, a, b))
print("; ".join(bad) if bad else
      "ok tepd->lx: spine 1 %d, spine 2 %d (%d arrived); lx->tepd: spine 1 %d, spine 2 %d (%d arrived)"
      % (u1, u2, got[0], d1, d2, got[1]))
PY
)
	echo "$r"
}
spread warm >/dev/null	# ARP on every path
r=$(spread spread)
case $r in
ok*) ok "64 flows each way spread over both spines: ${r#ok }" ;;
*) fail "spread: $r" ;;
esac

# ---- failover under traffic -----------------------------------------------------
# 1000 pps each way (16 flows) for 8 s, the cut 3 s in; a TCP transfer
# at 1 MB/s for 6 s from 1 s in
PPS=1000 N=8000 FL=16
ip netns exec "$T2" $PY "$HERE/seq_stream.py" recv 7000 10 "$WORK/cut-r2" &
R2P=$!
ip netns exec "$T1" $PY "$HERE/seq_stream.py" recv 7000 10 "$WORK/cut-r1" &
R1P=$!
ip netns exec "$T2" $PY "$HERE/xfer.py" tcp-server 5001 >"$WORK/tcp-srv" &
TSP=$!
sleep 0.3
ip netns exec "$T1" $PY "$HERE/seq_stream.py" send 198.18.2.2 7000 $FL $PPS $N >"$WORK/cut-s1" &
S1P=$!
ip netns exec "$T2" $PY "$HERE/seq_stream.py" send 198.18.1.2 7000 $FL $PPS $N >"$WORK/cut-s2" &
S2P=$!
sleep 1
ip netns exec "$T1" $PY "$HERE/seq_stream.py" tcp-client 198.18.2.2 5001 6 1000000 >"$WORK/tcp-cli" &
TCP=$!
sleep 2
m0=$($CTL -j stats | jget fpm.fpm_routes_added)
ip -n "$S1" link set e1 down
tcut=$(date +%s.%N)
t_single=""
for _ in $(seq 100); do
	case $(lo_paths) in
	single*|*dead*) t_single=$(date +%s.%N); break ;;
	esac
	sleep 0.05
done
wait $S1P $S2P || true
wait $R1P $R2P || true
wait $TCP || true
wait $TSP || true
if [ -n "$t_single" ]; then
	ok "tepd's route to 203.0.113.2 left spine 1 within $(awk -v a="$tcut" -v b="$t_single" \
		'BEGIN { printf "%.0f", (b - a) * 1000 }') ms of the cut (polled): $(lo_paths) ($((
		$($CTL -j stats | jget fpm.fpm_routes_added) - m0)) FPM route updates)"
else
	fail "tepd's route to 203.0.113.2 still over spine 1 5 s after the cut: $(lo_paths)"
fi
for dir in "1 2 tepd->lx" "2 1 lx->tepd"; do
	read -r from to what <<<"$dir"
	sent=$(cat "$WORK/cut-s$from")
	read -r _ miss _ lossy _ gap <<<"$($PY "$HERE/seq_stream.py" loss "$WORK/cut-r$to" "$sent" $FL $PPS)"
	msg="$what: $miss of $sent datagrams lost at $PPS pps ($((miss * 1000 / PPS)) ms of the stream; $lossy of $FL flows hit, the longest gap in a flow $gap ms)"
	if [ "$sent" -lt $((N * 95 / 100)) ]; then
		fail "$what: the sender sent only $sent of $N"
	elif [ "$gap" -le "$FAILOVER_MAX_MS" ] && [ "$miss" -le $((PPS * FAILOVER_MAX_MS / 1000)) ]; then
		ok "failover $msg (bound ${FAILOVER_MAX_MS} ms)"
	else
		fail "failover too slow: $msg (bound ${FAILOVER_MAX_MS} ms)"
	fi
done
if [ -s "$WORK/tcp-cli" ] && cmp -s "$WORK/tcp-srv" "$WORK/tcp-cli"; then
	ok "TCP across the cut: $(cut -d' ' -f1 "$WORK/tcp-cli") bytes intact (sha256 $(cut -d' ' -f2 "$WORK/tcp-cli" | cut -c1-16)... both ends)"
else
	fail "TCP across the cut: sent '$(cat "$WORK/tcp-cli")' got '$(cat "$WORK/tcp-srv")'"
fi
rmacs=$(in_dp vtysh -c 'show evpn rmac vni all' | grep -c 02:00:00:00:02:64 || true)
rmacs="$rmacs $(in_lx vtysh -c 'show evpn rmac vni all' | grep -c 02:00:00:00:11:64 || true)"
[ "$rmacs" = "1 1" ] &&
	ok "both leaves' zebra kept the other's router MAC" ||
	fail "router MACs after the cut (tepd's zebra, the Linux leaf's): $rmacs"
r=$(spread cut sp2)
case $r in
ok*) ok "link still cut: 64 flows each way, all over spine 2: ${r#ok }" ;;
*) fail "link still cut: $r" ;;
esac

# ---- link back -----------------------------------------------------------------
ip -n "$S1" link set e1 up
t0=$(date +%s)
for _ in $(seq 60); do
	[ "$(lo_paths)" = "$BOTH" ] && [ "$(lx_paths)" = 2 ] &&
		[ -z "$(sessions_up)" ] && break
	sleep 0.5
done
if [ "$(lo_paths)" = "$BOTH" ] && [ "$(lx_paths)" = 2 ]; then
	ok "link back: both leaves over both spines again ($(($(date +%s) - t0)) s)"
else
	fail "link back: tepd '$(lo_paths)', Linux leaf $(lx_paths) paths; $(sessions_up | tr '\n' ' ')"
fi
spread back >/dev/null	# ARP again for spine 1
r=$(spread back)
case $r in
ok*) ok "spread over both spines again: ${r#ok }" ;;
*) fail "spread after the link came back: $r" ;;
esac
say "runtime $(($(date +%s) - T_START)) s"
# HOLD=SECONDS: keep the fabric up that long before cleaning up (debugging)
[ -n "${HOLD:-}" ] && { echo "holding: CTL=\"$CTL\" S1=$S1 T1=$T1 T2=$T2 LX=$LX"; sleep "$HOLD"; }
finish
