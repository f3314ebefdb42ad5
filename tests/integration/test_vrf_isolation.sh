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

vrf_pair_setup

for t in "$TR" "$TB"; do
	ip -n "$t" addr add 192.0.2.10/24 dev ten0
	ip -n "$t" route add default via 192.0.2.1
done

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
