#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# fpm_golden.sh OUTDIR: capture what a real zebra (FRR 8.4.4, Debian 12)
# sends over FPM, one file of hex frames per scenario, for
# tests/golden/fpm (see its README and docs/evpn.md).
#
# Runs in a private mount namespace with its own /run/netns and /run/frr:
# zebra -n (netns VRF backend) turns every name in /run/netns into a VRF,
# so it must not see anybody else's namespaces, and the daemons' sockets
# must not meet a system FRR. Root only; not part of `meson test`.
set -u
if [ -z "${FPM_GOLDEN_INNER:-}" ]; then
	exec unshare -m --propagation private env FPM_GOLDEN_INNER=1 \
		"$0" "$@"
fi
out=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out" /run/netns /run/frr
mount -t tmpfs none /run/netns
mount -t tmpfs none /run/frr
chown frr:frr /run/frr
T=$(mktemp -d)
chmod 755 "$T"
raw=$T/raw.hex
pids=()

cleanup() {
	local p
	for p in "$T"/*.pid; do
		[ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	sleep 1
	ip netns del r1 2>/dev/null
	ip netns del red 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# r1: the node whose zebra feeds the dataplane; red: its VRF (a netns).
ip netns add r1
ip netns add red
ip -n r1 link set lo up
ip -n red link set lo up
# no dummy driver in this kernel: a veth pair with both ends inside
ip -n r1 link add eth0 type veth peer name eth0p
ip -n r1 link set eth0p up
ip -n r1 addr add 192.0.2.1/24 dev eth0
ip -n r1 addr add 2001:db8:1::1/64 dev eth0
ip -n r1 link set eth0 up
ip -n red link add eth1 type veth peer name eth1p
ip -n red link set eth1p up
ip -n red addr add 198.51.100.1/24 dev eth1
ip -n red link set eth1 up

cat > "$T/zebra.conf" <<C
hostname r1
fpm address 127.0.0.1 port 2620
no fpm use-next-hop-groups
C
chown -R frr:frr "$T"

ip netns exec r1 python3 "$here/fpm_capture.py" "$raw" &
pids+=($!)
cap=$!
sleep 1
ip netns exec r1 /usr/lib/frr/zebra -d -n -M dplane_fpm_nl \
	-f "$T/zebra.conf" -i "$T/zebra.pid" --log "file:$T/zebra.log"
ip netns exec r1 /usr/lib/frr/staticd -d -f /dev/null \
	-i "$T/staticd.pid" --log "file:$T/staticd.log"
sleep 3

names=(connected)
# step NAME VTYSH-ARGS...: run the commands, wait for zebra to push them,
# cut the capture there.
step() {
	local name=$1
	shift
	kill -USR1 "$cap"
	names+=("$name")
	ip netns exec r1 vtysh -c 'conf t' "$@" || echo "vtysh failed: $*"
	sleep 2
}
step static4 -c 'ip route 203.0.113.0/24 192.0.2.2'
step static6 -c 'ipv6 route 2001:db8:100::/48 2001:db8:1::2'
step ecmp4 -c 'ip route 203.0.113.128/25 192.0.2.2' \
	-c 'ip route 203.0.113.128/25 192.0.2.3'
step ecmp6 -c 'ipv6 route 2001:db8:200::/48 2001:db8:1::2' \
	-c 'ipv6 route 2001:db8:200::/48 2001:db8:1::3'
step blackhole -c 'ip route 198.51.100.128/25 blackhole' \
	-c 'ip route 198.51.100.192/26 reject' \
	-c 'ipv6 route 2001:db8:300::/48 blackhole'
step vrf -c 'vrf red' -c 'ip route 203.0.113.64/26 198.51.100.2' \
	-c 'ipv6 route 2001:db8:400::/48 eth1'
step del4 -c 'no ip route 203.0.113.0/24 192.0.2.2'
step del6 -c 'no ipv6 route 2001:db8:100::/48 2001:db8:1::2'
step delvrf -c 'vrf red' -c 'no ip route 203.0.113.64/26 198.51.100.2'
kill -USR1 "$cap"
ip netns exec r1 vtysh -c 'show fpm counters' -c 'show ip route vrf all' \
	-c 'show ipv6 route vrf all' > "$out/show.txt" 2>&1
cp "$T/zebra.log" "$out/zebra.log"

# split the capture at the marks
python3 - "$raw" "$out" "${names[@]}" <<'PY'
import sys
raw, out, names = sys.argv[1], sys.argv[2], sys.argv[3:]
parts = [[]]
for line in open(raw):
    line = line.strip()
    if line == '# mark':
        parts.append([])
    elif line and not line.startswith('#'):
        parts[-1].append(line)
for name, frames in zip(names, parts):
    with open(f'{out}/{name}.hex', 'w') as f:
        for fr in frames:
            f.write(fr + '\n')
    print(name, len(frames))
PY
