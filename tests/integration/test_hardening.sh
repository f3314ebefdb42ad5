#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# tepd on a shared, careless or hostile segment (issue 13): the standard
# site (vxlan_site_setup: a tenant in vrf red, the kernel's VXLAN as the
# remote VTEP) over an IPv4 or IPv6 underlay, and what must not happen:
#   1  frames to another MAC are neither routed nor decapsulated
#   2  ND from behind a tunnel does not touch the underlay's neighbours
#   3  an ICMP error for a sender behind a tunnel with no underlay route is
#      dropped and counted (it used to be counted 27 MB past the counters)
#   5  a tunnel deleted and added again with another remote does not go
#      out to the old remote's MAC
#   6  an IPv4 route via an IPv6 gateway resolves the whole gateway
#   7  a port set down carries no tunnel traffic
#   8  no ICMP error answers an ICMP error, a non-first fragment, a
#      multicast source or a link-layer broadcast; link-local addresses
#      are not forwarded
# usage: test_hardening.sh 4|6
set -euo pipefail
. "$(dirname "$0")/lib.sh"
FAM=${1:-4}

vxlan_site_setup af_packet "$FAM"
ACC=net_af_packet0
HP="$PY $HERE/hardening.py"
ip netns exec "$TEN" ping -c 2 -i 0.2 -W 2 198.18.0.2 >/dev/null 2>&1 || true
ip netns exec "$TEN" ping -6 -c 2 -i 0.2 -W 2 2001:db8:20::2 >/dev/null 2>&1 || true
MAC_ACC=$($CTL -j port show $ACC | jget ports.0.mac)
MAC_UND=$($CTL -j port show "$UND" | jget ports.0.mac)
MAC_PEER=$(ip -n "$PEER" -j link show peer0 | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["address"])')

# counter SECTION NAME KEY: one counter from tepctl -j stats (0 if absent)
counter() {
	$CTL -j stats "$1" "$2" | $PY -c 'import json,sys
d=json.load(sys.stdin); sect={"port":"ports","vrf":"vrfs","tunnel":"tunnels"}[sys.argv[1]]
o=d[sect][0]; k=sys.argv[2]
print(o.get("drops",{}).get(k, o.get(k, 0)))' "$1" "$3"
}
# expect_delta WHAT BEFORE AFTER MIN MAX
expect_delta() {
	local d=$(($3 - $2))
	if [ "$d" -ge "$4" ] && [ "$d" -le "$5" ]; then ok "$1: $d"
	else fail "$1: $d (want $4..$5)"; fi
}

# 1. Not for us.
n0=$(counter port $ACC drop_not_for_us); e0=$(counter tunnel vx1 encap)
ip netns exec "$TEN" $HP foreign ten0 "$FAM" 20 >/dev/null
sleep 0.3
expect_delta "access frames to a foreign MAC dropped as not_for_us" "$n0" "$(counter port $ACC drop_not_for_us)" 20 40
expect_delta "... and not encapsulated" "$e0" "$(counter tunnel vx1 encap)" 0 2
n0=$(counter port "$UND" drop_not_for_us); d0=$(counter tunnel vx1 decap)
ip netns exec "$PEER" $HP vx_foreign peer0 "$FAM" "$U_TEP" "$U_PEER" "$MAC_UND" 20 outer >/dev/null
sleep 0.3
expect_delta "VXLAN to our address, foreign outer MAC: not_for_us" "$n0" "$(counter port "$UND" drop_not_for_us)" 20 40
expect_delta "... and not decapsulated" "$d0" "$(counter tunnel vx1 decap)" 0 2
n0=$(counter tunnel vx1 drop_not_for_us)
ip netns exec "$PEER" $HP vx_foreign peer0 "$FAM" "$U_TEP" "$U_PEER" "$MAC_UND" 20 inner >/dev/null
sleep 0.3
# (the peer kernel's vx0 sends its own IPv6 multicast now and then, MLD
# reports to 33:33:00:00:00:16, which the tunnel counts the same way)
expect_delta "VXLAN with a foreign inner MAC: tunnel's not_for_us" "$n0" "$(counter tunnel vx1 drop_not_for_us)" 20 24 ||
	$CTL stats port "$UND"

# 2. ND from behind the tunnel: an NA claiming the underlay peer's address
# (IPv6 underlay) or the tenant's, with a forged MAC.
n0=$(counter port "$UND" drop_tunnel_nd)
target=$([ "$FAM" = 6 ] && echo "$U_PEER" || echo 2001:db8:10::10)
ip netns exec "$PEER" $HP na vx0 "$target" 02:66:66:66:66:66 >/dev/null
sleep 0.3
expect_delta "NA from inside the tunnel dropped as tunnel_nd" "$n0" "$(counter port "$UND" drop_tunnel_nd)" 3 3
if $CTL neigh show | grep -q "02:66:66:66:66:66"; then
	fail "a tenant behind the tunnel wrote a neighbour: $($CTL neigh show | grep 02:66)"
else
	ok "no neighbour entry took the forged MAC"
fi
ip netns exec "$TEN" ping -c 2 -i 0.2 -W 2 198.18.0.2 >/dev/null 2>&1 &&
	ok "still encapsulating to the real underlay MAC" || fail "tunnel broken after the forged NA"

# 3. An ICMP error for a sender behind the tunnel whose underlay route is
# gone: the error frame is dropped, counted under "control".
UPFX=$([ "$FAM" = 4 ] && echo 198.51.100.0/24 || echo 2001:db8:1::/64)
c0=$($CTL -j stats | jget control.drops.drop_no_route 2>/dev/null || echo 0)
$CTL route del "$UPFX"
ip netns exec "$PEER" ping -t 1 -c 3 -i 0.2 -W 1 192.0.2.10 >/dev/null 2>&1 || true
c1=$($CTL -j stats | jget control.drops.drop_no_route 2>/dev/null || echo 0)
expect_delta "ICMP errors into a tunnel without underlay route: control drop_no_route" "$c0" "$c1" 1 3
$CTL addr del "$U_TEP/$U_LEN" dev "$UND"
$CTL addr add "$U_TEP/$U_LEN" dev "$UND"
ip netns exec "$TEN" ping -c 3 -i 0.3 -W 2 198.18.0.2 >/dev/null 2>&1 &&
	ok "tepd alive and forwarding after the route came back" || fail "not forwarding after the route came back"

# 5. The tunnel's id reused for another remote: nothing goes to the old MAC.
U_NEW=$([ "$FAM" = 4 ] && echo 198.51.100.99 || echo 2001:db8:1::99)
ip netns exec "$PEER" $PY - peer0 "$U_NEW" "$WORK/stale.ready" >"$WORK/stale" <<'PY' &
import json, sys, time
from scapy.all import AsyncSniffer, ARP, IP, IPv6, UDP, ICMPv6ND_NS
iface, new = sys.argv[1], sys.argv[2]
got = {"vxlan_to_new": 0, "resolve_new": 0}
def seen(p):
    if (p.haslayer(IP) and p[IP].dst == new or p.haslayer(IPv6) and p[IPv6].dst == new) and p.haslayer(UDP):
        got["vxlan_to_new"] += 1
    if p.haslayer(ARP) and p[ARP].pdst == new or p.haslayer(ICMPv6ND_NS) and p[ICMPv6ND_NS].tgt == new:
        got["resolve_new"] += 1
s = AsyncSniffer(iface=iface, prn=seen, store=False); s.start()
time.sleep(0.3)
open(sys.argv[3], "w").close()
time.sleep(4); s.stop()
print(json.dumps(got))
PY
sniffer=$!
for _ in $(seq 100); do [ -e "$WORK/stale.ready" ] && break; sleep 0.1; done
ip netns exec "$TEN" ping -c 20 -i 0.05 -W 1 198.18.0.2 >/dev/null 2>&1 &
pinger=$!
$CTL route del 198.18.0.0/24 vrf red
$CTL route del 2001:db8:20::/64 vrf red
$CTL tunnel del vx1
$CTL tunnel add vx1 type vxlan local "$U_TEP" remote "$U_NEW" vni 42 vrf red inner-dmac 02:00:00:00:42:02
$CTL route add 198.18.0.0/24 vrf red tunnel vx1
wait $pinger || true
wait $sniffer || true
read -r to_new resolve <<<"$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["vxlan_to_new"], d["resolve_new"])' "$WORK/stale")"
[ "$to_new" = 0 ] && ok "no frame for the new remote sent to the old one's MAC" ||
	fail "$to_new frames for $U_NEW went out to the old remote's MAC"
[ "$resolve" -ge 1 ] && ok "the new remote is resolved first ($resolve ARP/NS)" ||
	fail "no ARP/NS for the new remote $U_NEW"
$CTL route del 198.18.0.0/24 vrf red
$CTL tunnel del vx1
$CTL tunnel add vx1 type vxlan local "$U_TEP" remote "$U_PEER" vni 42 vrf red inner-dmac 02:00:00:00:42:02
$CTL route add 198.18.0.0/24 vrf red tunnel vx1
$CTL route add 2001:db8:20::/64 vrf red tunnel vx1

# 6. IPv4 via an IPv6 gateway (RFC 5549): the tenant is its own gateway.
$CTL route add 203.0.113.0/24 vrf red via 2001:db8:10::10
back=$(ip netns exec "$TEN" $HP via6 ten0 "$MAC_ACC" | jget back)
[ "$back" -ge 1 ] && ok "IPv4 via IPv6 gateway 2001:db8:10::10: $back/3 came back" ||
	fail "IPv4 via IPv6 gateway: nothing came back ($($CTL neigh show | tr '\n' ';'))"
$CTL neigh show | grep -q "2001:db8:10::10 dev $ACC lladdr" &&
	ok "neighbour 2001:db8:10::10 resolved" || fail "gateway not resolved: $($CTL neigh show | tr '\n' ';')"
$CTL route del 203.0.113.0/24 vrf red

# 7. Port down: no tunnel traffic.
ip netns exec "$TEN" ping -c 2 -i 0.2 -W 2 198.18.0.2 >/dev/null 2>&1 || true
p0=$(counter tunnel vx1 drop_port_down)
$CTL port set "$UND" down
if ip netns exec "$TEN" ping -c 3 -i 0.2 -W 1 198.18.0.2 >/dev/null 2>&1; then
	fail "tunnel traffic left a port set down"
else
	ok "no tunnel traffic while $UND is down"
fi
expect_delta "... counted as the tunnel's port_down" "$p0" "$(counter tunnel vx1 drop_port_down)" 3 3
$CTL port set "$UND" up
ip netns exec "$TEN" ping -c 3 -i 0.2 -W 2 198.18.0.2 >/dev/null 2>&1 &&
	ok "tunnel traffic again once $UND is up" || fail "no tunnel traffic after port up"

# 8. Which packets get an ICMP error.
ip netns exec "$TEN" $HP icmp_rules ten0 "$MAC_ACC" >"$WORK/icmp.json"
$PY - "$WORK/icmp.json" <<'PY' >"$WORK/verdict" || true
import json, sys
got = json.load(open(sys.argv[1]))
want = {"udp4": 1, "udp6": 1}
for k, n in sorted(got.items()):
    w = want.get(k, 0)
    print(("ok" if (n >= 1) == (w == 1) else "FAIL") +
          ": TTL 1 %s: %d ICMP error(s) back (want %s)" % (k, n, "one" if w else "none"))
PY
while read -r line; do
	case $line in ok:*) ok "${line#ok: }" ;; *) fail "${line#FAIL: }" ;; esac
done <"$WORK/verdict"
l0=$(counter vrf red drop_link_local)
ip netns exec "$TEN" $PY - ten0 "$MAC_ACC" <<'PY'
import sys
from scapy.all import Ether, IP, IPv6, UDP, sendp, conf
conf.verb = 0
i, mac = sys.argv[1], sys.argv[2]
sendp([Ether(dst=mac) / IP(src="192.0.2.10", dst="169.254.1.1") / UDP(),
       Ether(dst=mac) / IP(src="169.254.1.1", dst="198.18.0.2") / UDP(),
       Ether(dst=mac) / IPv6(src="2001:db8:10::10", dst="fe80::1") / UDP(),
       Ether(dst=mac) / IPv6(src="fe80::10", dst="2001:db8:20::2") / UDP()], iface=i)
PY
sleep 0.3
expect_delta "link-local source or destination not forwarded (link_local)" "$l0" "$(counter vrf red drop_link_local)" 4 4
finish
