#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# fpm_golden_evpn.sh OUTDIR: capture what zebra 8.4.4 sends over FPM for
# EVPN type-5 routes (tests/golden/fpm/README, docs/evpn.md).
#
# r1 (its zebra feeds the capture server) and r2 are iBGP l2vpn evpn
# peers over eth0 (192.0.2.1, 192.0.2.2 = the VTEPs). Each has VRF red
# with L3VNI 100: netns VRF backend (this kernel has no VRF device), so
# "red" is a namespace holding bridge br100 (the SVI, its MAC the router
# MAC) with vxlan100 enslaved. zebra -n makes a VRF of every name in
# /run/netns, so r1 and r2 each get a private mount namespace with their
# own /run/netns and /run/frr: r2's lives inside r1's. Root only.
set -u
here=$(cd "$(dirname "$0")" && pwd)

# setup_node NAME VTEP MAC: netns NAME + VRF netns red, devices; the
# underlay eth0 is moved in by the caller.
setup_node() {
	local n=$1 vtep=$2 mac=$3
	ip netns add "$n"
	ip netns add red
	ip -n "$n" link set lo up
	ip -n red link set lo up
	ip -n red link add br100 type bridge stp_state 0
	ip -n red link set br100 address "$mac"
	# created next to the underlay, then moved: its socket stays there
	ip -n "$n" link add vxlan100 type vxlan id 100 dstport 4789 \
		local "$vtep" nolearning
	ip -n "$n" link set vxlan100 netns red
	ip -n red link set vxlan100 master br100
	ip -n red link set br100 up
	ip -n red link set vxlan100 up
}

# start_frr NAME DIR: zebra (+FPM for r1) and bgpd with DIR/{zebra,bgpd}.conf
start_frr() {
	local n=$1 d=$2 fpm=()
	[ "$n" = r1 ] && fpm=(-M dplane_fpm_nl)
	chown -R frr:frr "$d"
	ip netns exec "$n" /usr/lib/frr/zebra -d -n "${fpm[@]}" \
		-f "$d/zebra.conf" -i "$d/zebra.pid" --log "file:$d/zebra.log"
	sleep 1
	ip netns exec "$n" /usr/lib/frr/bgpd -d -f "$d/bgpd.conf" \
		-i "$d/bgpd.pid" --log "file:$d/bgpd.log"
}

private_run() {
	mkdir -p /run/netns /run/frr
	mount -t tmpfs none /run/netns
	mount -t tmpfs none /run/frr
	chown frr:frr /run/frr
}

bgp_conf() {
	local me=$1 peer=$2
	cat <<C
hostname $3
router bgp 65000
 bgp router-id $me
 no bgp default ipv4-unicast
 neighbor $peer remote-as 65000
 address-family l2vpn evpn
  neighbor $peer activate
  advertise-all-vni
 exit-address-family
exit
router bgp 65000 vrf red
 no bgp network import-check
 address-family l2vpn evpn
  advertise ipv4 unicast
  advertise ipv6 unicast
 exit-address-family
exit
C
}

# --- r2, in its own mount namespace (called back by the r1 part) ---
if [ "${1:-}" = --r2 ]; then
	d=$2
	private_run
	setup_node r2 192.0.2.2 02:00:00:00:02:02
	ip netns exec r2 sleep 100000 &
	echo $! > "$d/holder.pid"
	# wait for r1 to move our underlay in
	for _ in $(seq 50); do
		ip -n r2 link show eth0r2 >/dev/null 2>&1 && break
		sleep 0.2
	done
	ip -n r2 link set eth0r2 name eth0
	ip -n r2 addr add 192.0.2.2/24 dev eth0
	ip -n r2 link set eth0 up
	printf 'hostname r2\nvrf red\n vni 100\nexit-vrf\n' > "$d/zebra.conf"
	bgp_conf 192.0.2.2 192.0.2.1 r2 > "$d/bgpd.conf"
	start_frr r2 "$d"
	exit 0
fi

if [ -z "${FPM_GOLDEN_INNER:-}" ]; then
	exec unshare -m --propagation private env FPM_GOLDEN_INNER=1 \
		"$0" "$@"
fi
out=$(realpath "$1")
mkdir -p "$out"
private_run
T=$(mktemp -d)
chmod 755 "$T"
mkdir -p "$T/r1" "$T/r2"
chmod 777 "$T/r1" "$T/r2"
raw=$T/raw.hex
cap=

cleanup() {
	local p
	for p in "$T"/r*/*.pid; do
		[ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null
	done
	[ -n "$cap" ] && kill "$cap" 2>/dev/null
	sleep 1
	ip netns del r1 2>/dev/null
	ip netns del red 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

setup_node r1 192.0.2.1 02:00:00:00:01:01
ip -n r1 link add eth0 type veth peer name eth0r2
unshare -m --propagation private "$0" --r2 "$T/r2" &
for _ in $(seq 50); do
	[ -s "$T/r2/holder.pid" ] && break
	sleep 0.2
done
ip -n r1 link set eth0r2 netns "$(cat "$T/r2/holder.pid")"
ip netns exec r1 true
ip -n r1 addr add 192.0.2.1/24 dev eth0
ip -n r1 link set eth0 up
wait

ip netns exec r1 python3 "$here/fpm_capture.py" "$raw" &
cap=$!
sleep 1
cat > "$T/r1/zebra.conf" <<C
hostname r1
fpm address 127.0.0.1 port 2620
no fpm use-next-hop-groups
vrf red
 vni 100
exit-vrf
C
bgp_conf 192.0.2.1 192.0.2.2 r1 > "$T/r1/bgpd.conf"
start_frr r1 "$T/r1"

r2() {
	nsenter -t "$(cat "$T/r2/zebra.pid")" -m -n vtysh "$@"
}
# wait for the session and the L3VNI
for _ in $(seq 60); do
	ip netns exec r1 vtysh -c 'show bgp neighbors 192.0.2.2' 2>/dev/null |
		grep -q 'BGP state = Established' &&
		break
	sleep 1
done
sleep 3

names=(evpn_startup)
step() {
	local name=$1
	shift
	kill -USR1 "$cap"
	names+=("$name")
	r2 -c 'conf t' "$@" || echo "vtysh failed: $*"
	sleep 4
}
step evpn4 -c 'router bgp 65000 vrf red' -c 'address-family ipv4 unicast' \
	-c 'network 203.0.113.0/24'
step evpn6 -c 'router bgp 65000 vrf red' -c 'address-family ipv6 unicast' \
	-c 'network 2001:db8:500::/48'
step evpndel4 -c 'router bgp 65000 vrf red' -c 'address-family ipv4 unicast' \
	-c 'no network 203.0.113.0/24'
step evpndel6 -c 'router bgp 65000 vrf red' -c 'address-family ipv6 unicast' \
	-c 'no network 2001:db8:500::/48'
kill -USR1 "$cap"
{
	ip netns exec r1 vtysh -c 'show fpm counters' \
		-c 'show bgp l2vpn evpn summary' -c 'show evpn vni detail' \
		-c 'show evpn rmac vni all' -c 'show evpn next-hops vni all' \
		-c 'show ip route vrf all' -c 'show bgp l2vpn evpn route'
	ip -n r1 -d link show
	ip -n red -d link show
} > "$out/show.txt" 2>&1
cp "$T/r1/zebra.log" "$out/zebra-r1.log"
cp "$T/r1/bgpd.log" "$out/bgpd-r1.log"
cp "$T/r2/bgpd.log" "$out/bgpd-r2.log" 2>/dev/null

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
