#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# tepd's end-to-end demo, on this machine alone (the README's first
# command runs it). Everything it creates is removed on exit, Ctrl-C or
# failure. Exit status 0 only if traffic crossed the overlay both ways.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

step() { printf '\n== %s\n' "$*"; }
explain() { printf '   %s\n' "$@"; }

step "1. Building a small network in namespaces"
explain "Two tenants, 'red' and 'blue', both use 192.0.2.10/24: only VRFs keep" \
	"them apart. Each has a remote site whose tunnel endpoint is the Linux" \
	"kernel's own VXLAN device: red's over IPv4, blue's over IPv6."
DP=$(ns_add tepd)
TR=$(ns_add red)
TB=$(ns_add blue)
WIRE=$(ns_add underlay)
SR=$(ns_add site-red)
SB=$(ns_add site-blue)
veth "$TR" eth0 "$DP" acc-red
veth "$TB" eth0 "$DP" acc-blue
wire_bridge "$WIRE" 1600 "$DP" uplink "$SR" eth0 "$SB" eth0
for t in "$TR" "$TB"; do
	ip -n "$t" addr add 192.0.2.10/24 dev eth0
	ip -n "$t" route add default via 192.0.2.1
done
explain "namespaces: $DP (tepd), $TR, $TB, $SR, $SB, $WIRE (a bridge)"

step "2. Starting tepd on three DPDK net_af_packet ports"
: >"$WORK/empty.conf"
# -N: every VRF also gets a host side, for tepctl vrf exec (step 5)
TEPD_ARGS=-N tepd_start "$DP" "$WORK/tepd.sock" "$WORK/empty.conf" \
	--vdev=net_af_packet0,iface=acc-red \
	--vdev=net_af_packet1,iface=acc-blue \
	--vdev=net_af_packet2,iface=uplink
CTL="$TEPCTL -s $WORK/tepd.sock"
explain "tepd runs one worker lcore; its control socket is $WORK/tepd.sock"
$CTL port list | sed 's/^/   /'

step "3. Configuring it live with tepctl"
run() { printf '   $ tepctl %s\n' "$*"; $CTL "$@"; }
run vrf add red table 100
run vrf add blue table 200
run port set net_af_packet0 role access
run port bind net_af_packet0 vrf red
run addr add 192.0.2.1/24 dev net_af_packet0
run port set net_af_packet1 role access
run port bind net_af_packet1 vrf blue
run addr add 192.0.2.1/24 dev net_af_packet1
run port set net_af_packet2 role underlay
run port set net_af_packet2 mtu 1600
run addr add 198.51.100.1/24 dev net_af_packet2
run addr add 2001:db8:1::1/64 dev net_af_packet2
run tunnel add to-red-site type vxlan local 198.51.100.1 remote 198.51.100.2 \
	vni 100 vrf red inner-dmac 02:00:00:00:01:00
run tunnel add to-blue-site type vxlan local 2001:db8:1::1 remote 2001:db8:1::3 \
	vni 200 vrf blue inner-dmac 02:00:00:00:02:00
run route add 198.18.0.0/24 vrf red tunnel to-red-site
run route add 198.18.0.0/24 vrf blue tunnel to-blue-site
run tunnel show | sed 's/^/   /'

step "4. The remote sites: Linux VXLAN devices"
ip -n "$SR" addr add 198.51.100.2/24 dev eth0
ip -n "$SR" link add vxlan100 type vxlan id 100 remote 198.51.100.1 \
	local 198.51.100.2 dstport 4789 udpcsum
ip -n "$SR" link set vxlan100 address 02:00:00:00:01:00 up
ip -n "$SB" addr add 2001:db8:1::3/64 dev eth0 nodad
ip -n "$SB" link add vxlan200 type vxlan id 200 remote 2001:db8:1::1 \
	local 2001:db8:1::3 dstport 4789
ip -n "$SB" link set vxlan200 address 02:00:00:00:02:00 up
for s in "$SR:vxlan100:00" "$SB:vxlan200:01"; do
	ns=${s%%:*}; rest=${s#*:}; dev=${rest%%:*}; id=${rest#*:}
	ip -n "$ns" addr add 198.18.0.2/24 dev "$dev"
	# The gateway 198.18.0.1 is resolved over the tunnel: tepd answers
	# the ARP with the tunnel's overlay MAC (02:74:65:70 + its id).
	ip -n "$ns" route add 192.0.2.0/24 via 198.18.0.1 dev "$dev"
	: "$id"
done
explain "site-red: vxlan100 over IPv4, site-blue: vxlan200 over IPv6," \
	"both answering as 198.18.0.2"

step "5. Traffic"
passed=0
for t in "$TR:red" "$TB:blue"; do
	ns=${t%%:*}; name=${t#*:}
	explain "$name tenant pings its site through the tunnel:"
	if ip netns exec "$ns" ping -c 3 -i 0.3 -W 2 198.18.0.2 2>&1 |
	   sed 's/^/      /' | tail -3; then :; fi
	if ip netns exec "$ns" ping -c 2 -i 0.2 -W 2 198.18.0.2 >/dev/null 2>&1; then
		passed=$((passed + 1))
	fi
done
explain "site-blue pings its tenant back:"
ip netns exec "$SB" ping -c 2 -i 0.2 -W 2 192.0.2.10 >/dev/null 2>&1 &&
	{ explain "   replies received"; passed=$((passed + 1)); } ||
	explain "   NO REPLY"
explain "a 1 MB TCP transfer from tenant red to its site, checked by sha256:"
ip netns exec "$SR" $PY "$HERE/xfer.py" tcp-server 5001 >"$WORK/srv" &
spid=$!
sleep 0.5
ip netns exec "$TR" $PY "$HERE/xfer.py" tcp-client 198.18.0.2 5001 1000000 \
	>"$WORK/cli" || true
wait $spid || true
if [ -s "$WORK/cli" ] && cmp -s "$WORK/srv" "$WORK/cli"; then
	explain "   sent and received: $(cut -c1-30 "$WORK/cli")... identical"
	passed=$((passed + 1))
else
	explain "   MISMATCH: sent '$(cat "$WORK/cli")' got '$(cat "$WORK/srv")'"
fi

explain "a host command run inside VRF red (tepctl vrf exec red -- ping):" \
	"its sockets live in red, so it reaches red's site from red's address"
if "$TEPCTL" -s "$WORK/tepd.sock" vrf exec red -- \
	ping -c 2 -i 0.2 -W 2 198.18.0.2 >"$WORK/vexec" 2>&1; then
	sed -n 's/^/      /; 2p; $p' "$WORK/vexec"
	passed=$((passed + 1))
else
	explain "   FAILED: $(tail -n 1 "$WORK/vexec")"
fi

step "6. What tepd counted"
$CTL stats | sed 's/^/   /'
step "7. Checksum offloads per port"
$CTL offload show | sed 's/^/   /'

step "Result"
if [ "$passed" -eq 5 ]; then
	explain "Traffic crossed the overlay both ways, in both VRFs: PASS." \
		"The outer UDP checksums were computed by LCO (outer_csum_lco" \
		"above) and the kernel VTEPs accepted them."
	exit 0
fi
explain "Only $passed of 5 checks passed: FAIL"
exit 1
