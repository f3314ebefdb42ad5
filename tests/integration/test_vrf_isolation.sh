#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# Two VRFs with the same tenant prefix stay apart. Tenants red and blue
# both are 192.0.2.10/24 behind tepd; each VRF has a VXLAN tunnel (VNI 100,
# 200) to its own kernel VTEP, and both remote sites are 198.18.0.2. A
# datagram tagged "red" must reach only red's site, and the other way
# round: a packet never crosses VRFs.
#
#   tenR --- [acc0 vrf red ]              +-- peerR: vx0 vni 100, 198.18.0.2
#                            tepd [und] --br0
#   tenB --- [acc1 vrf blue]              +-- peerB: vx0 vni 200, 198.18.0.2
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DP=$(ns_add dp)
TR=$(ns_add tenr)
TB=$(ns_add tenb)
WIRE=$(ns_add wire)
PR=$(ns_add peerr)
PB=$(ns_add peerb)

veth "$TR" ten0 "$DP" dpacc0
veth "$TB" ten0 "$DP" dpacc1
wire_bridge "$WIRE" 1600 "$DP" dpund "$PR" up0 "$PB" up0

for t in "$TR" "$TB"; do
	ip -n "$t" addr add 192.0.2.10/24 dev ten0
	ip -n "$t" route add default via 192.0.2.1
done

cat >"$WORK/tepd.conf" <<'CONF'
vrf add red table 100
vrf add blue table 200
port set net_af_packet0 role access
port bind net_af_packet0 vrf red
addr add 192.0.2.1/24 dev net_af_packet0
port set net_af_packet1 role access
port bind net_af_packet1 vrf blue
addr add 192.0.2.1/24 dev net_af_packet1
port set net_af_packet2 role underlay
port set net_af_packet2 mtu 1600
addr add 198.51.100.1/24 dev net_af_packet2
tunnel add vxr type vxlan local 198.51.100.1 remote 198.51.100.2 vni 100 vrf red inner-dmac 02:00:00:00:01:00
tunnel add vxb type vxlan local 198.51.100.1 remote 198.51.100.3 vni 200 vrf blue inner-dmac 02:00:00:00:02:00
route add 198.18.0.0/24 vrf red tunnel vxr
route add 198.18.0.0/24 vrf blue tunnel vxb
CONF
tepd_start "$DP" "$WORK/tepd.sock" "$WORK/tepd.conf" \
	--vdev=net_af_packet0,iface=dpacc0 --vdev=net_af_packet1,iface=dpacc1 \
	--vdev=net_af_packet2,iface=dpund

# Remote sites: same overlay address, different VNI and VTEP.
vrf_sites_setup "$PR" "$PB"

for t in "$TR" "$TB"; do
	ip netns exec "$t" ping -c 2 -i 0.2 -W 2 198.18.0.2 >/dev/null 2>&1 || true
done

# Tenant -> site: tags must land on their own side only.
ip netns exec "$PR" $PY "$HERE/xfer.py" tag-server 6000 4 >"$WORK/pr" &
p1=$!
ip netns exec "$PB" $PY "$HERE/xfer.py" tag-server 6000 4 >"$WORK/pb" &
p2=$!
sleep 0.5
ip netns exec "$TR" $PY "$HERE/xfer.py" tag-client 198.18.0.2 6000 red 100 &
ip netns exec "$TB" $PY "$HERE/xfer.py" tag-client 198.18.0.2 6000 blue 100
wait $p1 $p2 || true
check_tags "$WORK/pr" red blue "site red"
check_tags "$WORK/pb" blue red "site blue"

# Site -> tenant, the same address on both sides.
ip netns exec "$TR" $PY "$HERE/xfer.py" tag-server 6001 4 >"$WORK/tr" &
p1=$!
ip netns exec "$TB" $PY "$HERE/xfer.py" tag-server 6001 4 >"$WORK/tb" &
p2=$!
sleep 0.5
ip netns exec "$PR" $PY "$HERE/xfer.py" tag-client 192.0.2.10 6001 red 100 &
ip netns exec "$PB" $PY "$HERE/xfer.py" tag-client 192.0.2.10 6001 blue 100
wait $p1 $p2 || true
check_tags "$WORK/tr" red blue "tenant red"
check_tags "$WORK/tb" blue red "tenant blue"

# And the VRFs' route tables say the same.
$TEPCTL -s "$WORK/tepd.sock" route get 198.18.0.2 vrf red | grep -q "tunnel vxr" &&
$TEPCTL -s "$WORK/tepd.sock" route get 198.18.0.2 vrf blue | grep -q "tunnel vxb" &&
	ok "route get: red -> vxr, blue -> vxb" || fail "route get"
finish
