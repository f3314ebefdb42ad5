#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# tepd on emulated PCI NICs through vfio-pci, as docs/real-nic.md tells a
# user to run it: a QEMU guest (pci_guest.sh) with three NICs bound to
# vfio-pci behind an emulated IOMMU; tepd in the guest; two tenant
# namespaces and Linux kernel VXLAN peers on the host, on the NICs' taps.
# The host namespaces are joined only through the guest.
#
#   test_pci_nic.sh MODEL [bad]
#     MODEL (e1000, e1000e, virtio) is the underlay NIC's, the one under
#     test: it sends the VXLAN packets, and is asked for their inner
#     checksums. The access NICs are always virtio-net-pci: a NIC that
#     receives frames from a wire hands over complete checksums, and
#     there is then nothing to ask of the underlay NIC. Through
#     virtio-net (the tap's vnet header) the tenant's kernel leaves its
#     TCP checksums pending, as a VM's does, and tepd gets them so
#     (RTE_MBUF_F_RX_L4_CKSUM_NONE).
#     e1000, virtio: the NIC computes the inner checksums tepd asks of
#       it; proven by tepd's counters (by the NIC > 0, in software 0)
#       and by tshark validating every checksum of the frames tepd sent
#       on the underlay (after the host completed what virtio left
#       partial, see und below).
#     e1000e: QEMU's device cannot (docs/drivers.md); tepd must say so in
#       offload show and do them in software, and the frames must still
#       be right.
#     bad: tepd built with -Dtest_bad_l3_len=true (BUILD names that
#       build); the test then passes only if tshark finds the inner
#       checksums the NIC computed wrong, i.e. the check above can fail.
#
#   Two VRFs with the same tenant addresses, one over each underlay
#   family (tepd picks the VRF by port, so each has its own access NIC):
#
#   tenr: tap (192.0.2.10) == [0000:00:03.0 virtio, access, vrf red ]
#   tenb: tap (192.0.2.10) == [0000:00:05.0 virtio, access, vrf blue]
#                                tepd in the guest
#   und:  tap == [0000:00:04.0 MODEL, underlay 198.51.100.1, 2001:db8:100::1]
#     bridge br0: the tap, and veth u0 with tx checksumming off, so that
#     the host kernel completes a checksum the device left partial
#     (virtio: the tap's vnet header) as the device would have
#   vtep: v0 198.51.100.2, 2001:db8:100::2: the capture point, and the
#     kernel VXLAN devices' sockets:
#       vx4 VNI 42 over IPv4 -> namespace farr (red's far site, 203.0.113.2)
#       vx6 VNI 43 over IPv6 -> namespace farb (blue's far site, 203.0.113.2)
#
# Before tepd starts, the guest also runs tepd once on 0000:01:01.0,
# whose IOMMU group holds 0000:01:02.0 bound to the kernel's e1000: tepd
# must stop, naming the group and the device in the way.
#
# Inside the guest this script runs again as "test_pci_nic.sh guest ..."
# (below): it binds the NICs, starts tepd and configures it.
set -euo pipefail

ACC=0000:00:03.0
AC2=0000:00:05.0
UND=0000:00:04.0
GRP=0000:01:01.0
GRP_OTHER=0000:01:02.0

# ---- in the guest ------------------------------------------------------------
if [ "${1:-}" = guest ]; then
	BUILD=$2 G=$3/g
	mkdir -p "$G"
	exec >"$G/guest.log" 2>&1
	set -x
	trap '[ -e "$G/ready" ] || echo failed >"$G/ready"' EXIT
	gsay() { echo "PCI-GUEST: $*" >/dev/console; }
	# docs/real-nic.md, step by step
	grep -i huge /proc/meminfo
	modprobe vfio-pci
	# The IOMMU group case first: GRP for DPDK, GRP_OTHER on e1000.
	modprobe e1000
	dpdk-devbind.py -b vfio-pci $GRP
	ls -l /sys/kernel/iommu_groups/*/devices/ >"$G/iommu_groups.txt"
	gsay "tepd on $GRP, whose IOMMU group is not viable"
	t0=$(date +%s)
	rc=0
	timeout 600 "$BUILD/app/tepd/tepd" -l 0 -n 4 -a $GRP --file-prefix tepg \
		-- -s /run/tepg.sock >"$G/group.log" 2>&1 || rc=$?
	echo "$rc $(( $(date +%s) - t0 ))" >"$G/group.rc"
	dpdk-devbind.py -u $GRP
	dpdk-devbind.py --status-dev net
	dpdk-devbind.py -b vfio-pci $ACC $AC2 $UND
	dpdk-devbind.py --status-dev net >"$G/devbind.txt"
	for d in $ACC $AC2 $UND; do
		echo "$d $(cat /sys/bus/pci/devices/$d/vendor):$(cat /sys/bus/pci/devices/$d/device) sub $(cat /sys/bus/pci/devices/$d/subsystem_vendor):$(cat /sys/bus/pci/devices/$d/subsystem_device)"
	done >"$G/pci_ids.txt"
	cat >"$G/tepd.conf" <<-CONF
	vrf add red
	vrf add blue
	port set $ACC role access
	port bind $ACC vrf red
	addr add 192.0.2.1/24 dev $ACC
	port set $AC2 role access
	port bind $AC2 vrf blue
	addr add 192.0.2.1/24 dev $AC2
	port set $UND role underlay
	addr add 198.51.100.1/24 dev $UND
	addr add 2001:db8:100::1/64 dev $UND
	tunnel add vxr type vxlan local 198.51.100.1 remote 198.51.100.2 vni 42 vrf red inner-dmac 02:00:00:00:42:02
	tunnel add vxb type vxlan local 2001:db8:100::1 remote 2001:db8:100::2 vni 43 vrf blue inner-dmac 02:00:00:00:43:02
	route add 203.0.113.0/24 vrf red tunnel vxr
	route add 203.0.113.0/24 vrf blue tunnel vxb
	CONF
	gsay "starting tepd"
	"$BUILD/app/tepd/tepd" -l 0-1 -n 4 -a $ACC -a $AC2 -a $UND --file-prefix tepd \
		-- -s /run/tepd.sock -f "$G/tepd.conf" >"$G/tepd.log" 2>&1 &
	tpid=$!
	CTL="$BUILD/app/tepctl/tepctl -s /run/tepd.sock"
	up=0
	for _ in $(seq 600); do
		if $CTL port list >/dev/null 2>&1; then up=1; break; fi
		kill -0 $tpid 2>/dev/null || break
		sleep 0.5
	done
	if [ $up = 0 ]; then
		gsay "tepd did not come up"
		echo failed >"$G/ready"
		exit 1
	fi
	$CTL port list >"$G/ports.txt"
	$CTL offload show >"$G/offload.txt"
	$CTL -j offload show >"$G/offload.json"
	gsay "tepd up"
	echo ok >"$G/ready"
	for _ in $(seq 900); do
		[ -e "$G/done" ] && break
		sleep 1
	done
	$CTL stats >"$G/stats.txt"
	$CTL -j stats port $ACC >"$G/stats_acc.json"
	$CTL -j stats port $AC2 >"$G/stats_ac2.json"
	$CTL -j stats port $UND >"$G/stats_und.json"
	$CTL -j stats tunnel vxr >"$G/stats_vxr.json"
	$CTL -j stats tunnel vxb >"$G/stats_vxb.json"
	for p in $ACC $AC2 $UND; do $CTL port show $p; done >"$G/port_show.txt"
	kill $tpid
	wait $tpid || true
	gsay "tepd stopped"
	echo ok >"$G/finished"
	exit 0
fi

# ---- on the host -------------------------------------------------------------
. "$(dirname "$0")/lib.sh"
. "$HERE/pci_guest.sh"

MODEL=${1:-e1000}
BAD=${2:-}
pci_guest_check
command -v tshark >/dev/null || { echo "skipped: tshark missing"; exit 77; }

T0=$(date +%s)
el() { echo "$(( $(date +%s) - T0 )) s"; }
G=$WORK/g

# bad: the guest runs a tepd built with -Dtest_bad_l3_len=true, from
# TEPD_BAD_BUILD, or built here from SRC into BUILD/pci-bad-l3-len.
GBUILD=$BUILD
if [ -n "$BAD" ]; then
	GBUILD=${TEPD_BAD_BUILD:-$BUILD/pci-bad-l3-len}
	if [ -z "${TEPD_BAD_BUILD:-}" ]; then
		if { [ -d "$GBUILD" ] || meson setup "$GBUILD" "${SRC:-$HERE/../..}" \
			-Dtest_bad_l3_len=true -Dtests=false; } >"$WORK/bad-build.log" 2>&1 &&
		   ninja -C "$GBUILD" app/tepd/tepd app/tepctl/tepctl \
			>>"$WORK/bad-build.log" 2>&1; then
			say "tepd with a wrong l3_len built in $GBUILD ($(el))"
		else
			fail "cannot build tepd with -Dtest_bad_l3_len=true:"
			tail -n 20 "$WORK/bad-build.log"
			finish
		fi
	fi
fi
mkdir -p "$G"
chmod 755 "$WORK"
stop_guest() { touch "$G/done" 2>/dev/null || true; pci_guest_stop 5; }
trap 'stop_guest; tep_cleanup' EXIT INT TERM

TENR=$(ns_add tenr)
TENB=$(ns_add tenb)
UNDNS=$(ns_add und)
VTEP=$(ns_add vtep)
FARR=$(ns_add farr)
FARB=$(ns_add farb)

pci_guest_boot virtio "$MODEL" "$HERE/test_pci_nic.sh guest $GBUILD $WORK"
pci_guest_taps "$TENR" "$TENB" "$UNDNS"

for t in "$TENR:$PG_TAP_ACC" "$TENB:$PG_TAP_AC2"; do
	ns=${t%%:*} tap=${t#*:}
	ip -n "$ns" link set "$tap" name ten0
	ip -n "$ns" link set ten0 mtu 1400 up
	ip -n "$ns" addr add 192.0.2.10/24 dev ten0
	ip -n "$ns" route add default via 192.0.2.1
done
# The underlay: the guest's tap and a veth into vtep, bridged. u0 does
# not checksum in hardware, so the kernel completes there a checksum the
# guest's device left partial (a virtio NIC's request rides the tap's
# vnet header); the capture in vtep then sees what a wire would carry.
ip -n "$UNDNS" link add br0 type bridge
ip -n "$UNDNS" link set "$PG_TAP_UND" name und0
ip -n "$UNDNS" link add u0 type veth peer name v0 netns "$VTEP"
ip netns exec "$UNDNS" ethtool -K u0 tx off >/dev/null
for l in und0 u0; do
	ip -n "$UNDNS" link set "$l" master br0 up
done
ip -n "$UNDNS" link set br0 up
ip -n "$VTEP" link set v0 up
ip -n "$VTEP" addr add 198.51.100.2/24 dev v0
ip -n "$VTEP" addr add 2001:db8:100::2/64 dev v0 nodad
# The VXLAN devices keep their sockets in vtep; each site is a namespace
# of its own with the same address.
ip -n "$VTEP" link add vx4 type vxlan id 42 remote 198.51.100.1 \
	local 198.51.100.2 dstport 4789 udpcsum
ip -n "$VTEP" link add vx6 type vxlan id 43 remote 2001:db8:100::1 \
	local 2001:db8:100::2 dstport 4789
ip -n "$VTEP" link set vx4 netns "$FARR"
ip -n "$VTEP" link set vx6 netns "$FARB"
for t in "$FARR:vx4:02:00:00:00:42:02" "$FARB:vx6:02:00:00:00:43:02"; do
	ns=${t%%:*} rest=${t#*:}
	dev=${rest%%:*} mac=${rest#*:}
	ip -n "$ns" link set "$dev" address "$mac" mtu 1400 up
	ip -n "$ns" addr add 203.0.113.2/24 dev "$dev"
	ip -n "$ns" route add 192.0.2.0/24 via 203.0.113.1 dev "$dev"
done
# No forwarding anywhere on the host between the two sides: only the
# guest joins them.
for ns in "$TENR" "$TENB" "$UNDNS" "$VTEP" "$FARR" "$FARB"; do
	ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=0
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.forwarding=0
done

if ! pci_guest_wait "$G/ready" 900 || [ "$(cat "$G/ready")" != ok ]; then
	fail "guest did not get tepd up ($(el))"
	tail -n 40 "$WORK/console.log" "$G/guest.log" "$G/tepd.log" 2>/dev/null
	finish
fi
say "guest up, tepd running on $ACC $AC2 $UND after $(el)"
say "$(grep -E "$ACC|$AC2|$UND" "$G/devbind.txt" | tr '\n' ';')"
sed 's/^/    /' "$G/offload.txt"

# ---- an IOMMU group that is not viable ----------------------------------------
read -r grc gsecs <"$G/group.rc"
gmsg=$(grep -m1 "^tepd: -a $GRP" "$G/group.log" || true)
if [ "$grc" != 0 ] && [[ $gmsg == *"not viable"* ]] &&
   [[ $gmsg == *"$GRP_OTHER"* ]] && [[ $gmsg == *e1000* ]] &&
   [[ $gmsg == *"dpdk-devbind.py -b vfio-pci $GRP_OTHER"* ]]; then
	ok "IOMMU group not viable: tepd stopped (status $grc, ${gsecs} s): $gmsg"
else
	fail "IOMMU group not viable: status $grc, message: '$gmsg'"
	sed 's/^/    /' "$G/group.log" | tail -n 15
fi

# ---- traffic -----------------------------------------------------------------
# Frames on the underlay, for tshark: what tepd sent, once the host kernel
# completed anything left partial (see u0 above).
ip netns exec "$VTEP" tshark -q -i v0 -w "$WORK/und.pcap" \
	-f "udp port 4789" >"$WORK/tshark_cap.log" 2>&1 &
cap=$!
for _ in $(seq 150); do
	grep -q "Capturing on" "$WORK/tshark_cap.log" && break
	sleep 0.2
done
sleep 1

# ping_both TEN FAR WHAT: ping each way, tenant first (its ARP for the
# gateway, tepd's ND/ARP for the VTEP).
ping_both() {
	local pinged=0
	for _ in 1 2 3; do
		if ip netns exec "$1" ping -c 3 -i 0.5 -W 3 203.0.113.2 >"$WORK/ping1" 2>&1; then
			pinged=1; break
		fi
	done
	if [ $pinged = 1 ]; then
		ok "$3: ping tenant -> kernel vxlan through tepd on $MODEL ($(el))"
	else
		fail "$3: ping tenant -> kernel vxlan"; cat "$WORK/ping1"
	fi
	if ip netns exec "$2" ping -c 3 -i 0.5 -W 3 192.0.2.10 >"$WORK/ping2" 2>&1; then
		ok "$3: ping kernel vxlan -> tenant"
	else
		fail "$3: ping kernel vxlan -> tenant"; cat "$WORK/ping2"
	fi
}
ping_both "$TENR" "$FARR" "red (IPv4 underlay)"
ping_both "$TENB" "$FARB" "blue (IPv6 underlay)"

if [ -n "$BAD" ]; then
	# The NIC writes the checksum at the wrong place: the transfer may
	# not complete. What it sent is what is judged.
	(tcp_xfer "$FARR" "$TENR" 203.0.113.2 300000 >/dev/null 2>&1 || true) &
	x=$!
	for _ in $(seq 40); do kill -0 $x 2>/dev/null || break; sleep 1; done
	pkill -P $x 2>/dev/null || true
	kill $x 2>/dev/null || true
else
	# Each transfer's server is in one VRF's namespace only: a segment
	# tepd sent into the other VRF would meet no listener there.
	# PCI_XFER_BYTES: more, to look for rare events by hand
	xb=${PCI_XFER_BYTES:-1000000}
	tcp_xfer "$FARR" "$TENR" 203.0.113.2 "$xb" || true
	tcp_xfer "$TENR" "$FARR" 192.0.2.10 "$xb" || true
	tcp_xfer "$FARB" "$TENB" 203.0.113.2 "$xb" || true
	tcp_xfer "$TENB" "$FARB" 192.0.2.10 "$xb" || true
fi
say "traffic done ($(el))"
sleep 1
kill "$cap" 2>/dev/null || true
wait "$cap" 2>/dev/null || true

touch "$G/done"
pci_guest_wait "$G/finished" 120 || fail "guest did not stop tepd"
pci_guest_stop 60
say "guest stopped ($(el))"

# ---- tepd's view -------------------------------------------------------------
und_hw=$(jget ports.0.hw_inner_csum <"$G/stats_und.json")
und_sw=$(jget ports.0.sw_inner_csum <"$G/stats_und.json")
say "inner checksums on the underlay port: by the NIC $und_hw, in software $und_sw"
read -r und_mode und_hwdesc < <($PY -c 'import json,sys
for p in json.load(open(sys.argv[1]))["ports"]:
    if p["port"] == sys.argv[2]:
        print(p["inner_csum_mode"], p["hardware"].replace(" ", "+"))' \
	"$G/offload.json" "$UND")
say "offload show, $UND: inner checksum $und_mode; by the NIC: ${und_hwdesc//+/ }"
# Where a packet came in decides the hash its tunnel source port comes
# from: the access ports'. DPDK 22.11's net_virtio delivers no RSS hash
# (docs/drivers.md), so offload show must name tepd's own.
acc_hash=$($PY -c 'import json,sys
for p in json.load(open(sys.argv[1]))["ports"]:
    if p["port"] == sys.argv[2]:
        print(p["source_port_hash"])' "$G/offload.json" "$ACC")
if [[ $acc_hash == "tepd's hash"* ]]; then
	ok "offload show, $ACC (virtio): tunnel source port from $acc_hash"
else
	fail "offload show, $ACC (virtio): tunnel source port from '$acc_hash'"
fi
if [ -z "$BAD" ]; then
	for a in "$ACC acc red" "$AC2 ac2 blue"; do
		read -r pci key vrf <<<"$a"
		pend=$(jget ports.0.rx_csum_pending <"$G/stats_$key.json")
		if [ "$pend" -gt 100 ]; then
			ok "access $pci (virtio, $vrf): $pend packets with their checksum pending"
		else
			fail "access $pci ($vrf): only $pend packets with a pending checksum"
		fi
	done
fi

# What the underlay PMD said of the outer UDP checksums of what tepd
# decapsulated (docs/drivers.md, "Receive checksums").
for tn in vxr vxb; do
	read -r dec ans vg vp vb vu ing < <($PY -c 'import json,sys
t = json.load(open(sys.argv[1]))["tunnels"][0]
print(t["decap"], t["arp_nd_answered"], t["decap_outer_csum_nic_good"],
      t["decap_outer_csum_nic_partial"], t["decap_outer_csum_nic_bad"],
      t["decap_outer_csum_nic_unknown"], t["decap_inner_csum_nic_good"])' \
		"$G/stats_$tn.json")
	say "tunnel $tn: decapsulated $dec ($ans ARP/ND answered); outer UDP checksum per the NIC: good $vg, partial $vp, bad $vb, unknown $vu; inner good per the NIC $ing"
	# every packet decapsulated and sent on has its verdict counted
	if [ $((vg + vp + vb + vu + ans)) != "$dec" ]; then
		fail "tunnel $tn: verdicts $((vg + vp + vb + vu)) + answered $ans != decapsulated $dec"
	elif [ "$MODEL" = virtio ] && [ -z "$BAD" ]; then
		# The host kernel's VXLAN leaves the outer UDP checksum to the
		# device when the inner one is done (ICMP), and the inner one
		# when it is not (TCP, outer by LCO): net_virtio reports the
		# first as partial (RX_L4_CKSUM_NONE), and says nothing of the
		# second (the partial sum lies past the headers it parses; it
		# completes the inner checksum itself).
		if [ "$vp" -gt 0 ] && [ "$vu" -gt 100 ]; then
			ok "tunnel $tn on virtio: $vp outer checksums partial per the PMD (not summed), $vu without a verdict (summed by tepd)"
		else
			fail "tunnel $tn on virtio: partial $vp, unknown $vu"
		fi
	fi
	drops=$($PY -c 'import json,sys
t = json.load(open(sys.argv[1]))["tunnels"][0]
print(" ".join("%s=%d" % kv for kv in sorted(t["drops"].items())))' "$G/stats_$tn.json")
	[ -z "$drops" ] || say "tunnel $tn drops: $drops"
done

# ---- tshark's view of the underlay --------------------------------------------
# Every frame tepd sent with an inner TCP segment: outer IPv4 header,
# outer UDP (LCO), inner IPv4 and inner TCP checksums, each validated
# (outer IPv6 has no header checksum). And each inner flow's outer source
# port.
tshark -r "$WORK/und.pcap" -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
	-o tcp.check_checksum:TRUE \
	-Y "(ip.src == 198.51.100.1 || ipv6.src == 2001:db8:100::1) && ip" \
	-E occurrence=a -T fields -e frame.number -e ipv6.src -e ip.checksum.status \
	-e udp.checksum.status -e tcp.checksum.status -e udp.srcport \
	-e ip.src -e ip.dst -e ip.proto -e tcp.srcport -e tcp.dstport \
	>"$WORK/verdicts" 2>"$WORK/tshark.err" || true
read -r n4 n6 ngood nbadtcp nbadother nflows nports nsplit < <($PY - "$WORK/verdicts" "$WORK/bad_frames" <<'PYV'
import sys
n4 = n6 = good = badtcp = badother = 0
flows = {}
bad = open(sys.argv[2], "w")
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if len(f) != 11:
        continue
    num, v6, ip, udp, tcp, usport, isrc, idst, iproto, tsp, tdp = f
    # the inner flow: the last IPv4 header's addresses and protocol
    key = (isrc.split(",")[-1], idst.split(",")[-1], iproto.split(",")[-1],
           tsp, tdp)
    flows.setdefault(key, set()).add(usport.split(",")[0])
    if not tcp:
        continue
    if v6:
        n6 += 1
        want_ip = ["1"]
    else:
        n4 += 1
        want_ip = ["1", "1"]
    # 1 = good (wireshark's PROTO_CHECKSUM_E_GOOD)
    if tcp.split(",") != ["1"]:
        badtcp += 1
        bad.write(num + "\n")
    elif ip.split(",") != want_ip or udp.split(",") != ["1"]:
        badother += 1
        bad.write(num + "\n")
    else:
        good += 1
ports = set().union(*flows.values()) if flows else set()
split = sum(1 for p in flows.values() if len(p) > 1)
print(n4, n6, good, badtcp, badother, len(flows), len(ports), split)
PYV
)
nframes=$((n4 + n6))
say "tshark: $nframes encapsulated TCP frames from tepd ($n4 over IPv4, $n6 over IPv6), $ngood all checksums good, $nbadtcp inner TCP bad, $nbadother other bad"
# the first bad ones, as tshark decodes them, for whoever reads the log,
# and the capture kept beside meson's logs
if [ -z "$BAD" ] && [ -s "$WORK/bad_frames" ]; then
	if [ -d "$BUILD/meson-logs" ]; then
		cp "$WORK/und.pcap" "$BUILD/meson-logs/pci-$MODEL-bad-frames.pcap"
		say "capture kept: $BUILD/meson-logs/pci-$MODEL-bad-frames.pcap (frames $(head -n 10 "$WORK/bad_frames" | tr '\n' ' '))"
	fi
	for num in $(head -n 3 "$WORK/bad_frames"); do
		say "bad frame $num:"
		tshark -r "$WORK/und.pcap" -o ip.check_checksum:TRUE \
			-o udp.check_checksum:TRUE -o tcp.check_checksum:TRUE \
			-Y "frame.number == $num" -V 2>/dev/null |
			grep -E "Frame Length|Total Length|Payload Length|Checksum|Flags: |Sequence Number \(raw|TCP Segment Len|Source Port|Destination Port|Length:" |
			sed 's/^/        /'
	done
fi

if [ -n "$BAD" ]; then
	if [ "$und_hw" -gt 0 ] && [ "$nframes" -gt 0 ] && [ "$nbadtcp" -gt 0 ]; then
		ok "wrong l3_len build: tshark finds $nbadtcp of $nframes inner TCP checksums the NIC computed wrong: the check can fail"
	else
		fail "wrong l3_len build: hw $und_hw, frames $nframes, bad inner $nbadtcp: the check did not catch it"
	fi
	finish
fi

case $MODEL in
e1000|virtio)
	if [ "$und_hw" -gt 200 ] && [ "$und_sw" = 0 ]; then
		ok "underlay $UND: $und_hw inner checksums computed by the NIC, 0 in software"
	else
		fail "underlay $UND: by NIC $und_hw, in software $und_sw"
	fi
	if [ "$und_mode" != software ] && [[ $und_hwdesc == "tcp+udp"* ]]; then
		ok "offload show names the NIC: $UND inner checksum $und_mode, by the NIC: ${und_hwdesc//+/ }"
	else
		fail "offload show does not name the NIC for $UND:"; cat "$G/offload.txt"
	fi
	;;
e1000e)
	if [ "$und_sw" -gt 200 ] && [ "$und_hw" = 0 ]; then
		ok "underlay $UND: $und_sw inner checksums in software, 0 asked of the device"
	else
		fail "underlay $UND: by NIC $und_hw, in software $und_sw"
	fi
	if [ "$und_mode" = software ]; then
		ok "offload show: $UND inner checksum software ($(grep -A1 "$UND" "$G/offload.txt" | sed -n 's/.*why: //p'))"
	else
		fail "offload show does not say software for $UND:"; cat "$G/offload.txt"
	fi
	;;
esac
if [ "$n4" -gt 100 ] && [ "$n6" -gt 100 ] && [ "$ngood" = "$nframes" ]; then
	ok "tshark: all $nframes encapsulated TCP frames ($n4 IPv4, $n6 IPv6 underlay) have good outer IPv4, outer UDP, inner IPv4 and inner TCP checksums"
else
	fail "tshark: $n4 + $n6 frames, $ngood good, $nbadtcp inner TCP bad, $nbadother other bad"
fi
# The source port's entropy (the NIC's RSS hash where the PMD gives one,
# tepd's own flow hash otherwise): one port per flow, and not one port
# for all.
if [ "$nflows" -ge 4 ] && [ "$nsplit" = 0 ] && [ "$nports" -ge 2 ]; then
	ok "outer source ports: $nflows inner flows, $nports distinct ports, each flow on one"
else
	fail "outer source ports: $nflows flows, $nports ports, $nsplit flows on more than one"
fi
say "total $(el)"
finish
