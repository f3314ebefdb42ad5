#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# tepd on emulated PCI NICs through vfio-pci, as docs/real-nic.md tells a
# user to run it: a QEMU guest (pci_guest.sh) with two NICs bound to
# vfio-pci behind an emulated IOMMU; tepd in the guest; a tenant
# namespace and a Linux kernel VXLAN peer on the host, each on one NIC's
# tap. The host namespaces are joined only through the guest.
#
#   test_pci_nic.sh MODEL [bad]
#     MODEL (e1000, e1000e, virtio) is the underlay NIC's, the one under
#     test: it sends the VXLAN packets, and is asked for their inner
#     checksums. The access NIC is always virtio-net-pci: a NIC that
#     receives frames from a wire hands over complete checksums, and
#     there is then nothing to ask of the underlay NIC. Through
#     virtio-net (the tap's vnet header) the tenant's kernel leaves its
#     TCP checksums pending, as a VM's does, and tepd gets them so
#     (RTE_MBUF_F_RX_L4_CKSUM_NONE).
#     e1000, virtio: the NIC computes the inner checksums tepd asks of
#       it; proven by tepd's counters (by the NIC > 0, in software 0)
#       and by tshark validating every checksum of the frames on the
#       underlay tap.
#     e1000e: QEMU's device cannot (docs/drivers.md); tepd must say so in
#       offload show and do them in software, and the frames must still
#       be right.
#     bad: tepd built with -Dtest_bad_l3_len=true (BUILD names that
#       build); the test then passes only if tshark finds the inner
#       checksums the NIC computed wrong, i.e. the check above can fail.
#
#   ten: tap tpa (192.0.2.10) == [0000:00:03.0 virtio, access, vrf red]
#                                 tepd in the guest
#   peer: tap tpu 198.51.100.2 == [0000:00:04.0 MODEL, underlay 198.51.100.1]
#         vx0 VNI 42, 203.0.113.2/24
#
# Inside the guest this script runs again as "test_pci_nic.sh guest ..."
# (below): it binds the NICs, starts tepd and configures it.
set -euo pipefail

ACC=0000:00:03.0
UND=0000:00:04.0

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
	dpdk-devbind.py --status-dev net
	dpdk-devbind.py -b vfio-pci $ACC $UND
	dpdk-devbind.py --status-dev net >"$G/devbind.txt"
	ls -l /sys/kernel/iommu_groups/*/devices/ >"$G/iommu_groups.txt"
	for d in $ACC $UND; do
		echo "$d $(cat /sys/bus/pci/devices/$d/vendor):$(cat /sys/bus/pci/devices/$d/device) sub $(cat /sys/bus/pci/devices/$d/subsystem_vendor):$(cat /sys/bus/pci/devices/$d/subsystem_device)"
	done >"$G/pci_ids.txt"
	cat >"$G/tepd.conf" <<-CONF
	vrf add red
	port set $ACC role access
	port bind $ACC vrf red
	addr add 192.0.2.1/24 dev $ACC
	port set $UND role underlay
	addr add 198.51.100.1/24 dev $UND
	tunnel add vx1 type vxlan local 198.51.100.1 remote 198.51.100.2 vni 42 vrf red inner-dmac 02:00:00:00:42:02
	route add 203.0.113.0/24 vrf red tunnel vx1
	CONF
	gsay "starting tepd"
	"$BUILD/app/tepd/tepd" -l 0-1 -n 4 -a $ACC -a $UND --file-prefix tepd \
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
	$CTL -j stats port $UND >"$G/stats_und.json"
	$CTL -j stats tunnel vx1 >"$G/stats_tun.json"
	for p in $ACC $UND; do $CTL port show $p; done >"$G/port_show.txt"
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

TEN=$(ns_add ten)
PEER=$(ns_add peer)

pci_guest_boot virtio "$MODEL" "$HERE/test_pci_nic.sh guest $GBUILD $WORK"
pci_guest_taps "$TEN" "$PEER"

ip -n "$TEN" link set "$PG_TAP_ACC" name ten0
ip -n "$TEN" link set ten0 mtu 1400 up
ip -n "$TEN" addr add 192.0.2.10/24 dev ten0
ip -n "$TEN" route add default via 192.0.2.1
ip -n "$PEER" link set "$PG_TAP_UND" name peer0
ip -n "$PEER" link set peer0 up
ip -n "$PEER" addr add 198.51.100.2/24 dev peer0
ip -n "$PEER" link add vx0 type vxlan id 42 remote 198.51.100.1 \
	local 198.51.100.2 dstport 4789 udpcsum
ip -n "$PEER" link set vx0 address 02:00:00:00:42:02 mtu 1400 up
ip -n "$PEER" addr add 203.0.113.2/24 dev vx0
ip -n "$PEER" route add 192.0.2.0/24 via 203.0.113.1 dev vx0
# No forwarding anywhere on the host between the two: only the guest
# joins them.
for ns in "$TEN" "$PEER"; do
	ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=0
done

if ! pci_guest_wait "$G/ready" 600 || [ "$(cat "$G/ready")" != ok ]; then
	fail "guest did not get tepd up ($(el))"
	tail -n 40 "$WORK/console.log" "$G/guest.log" "$G/tepd.log" 2>/dev/null
	finish
fi
say "guest up, tepd running on $ACC $UND after $(el)"
say "$(grep -E "$ACC|$UND" "$G/devbind.txt" | tr '\n' ';')"
sed 's/^/    /' "$G/offload.txt"

# ---- traffic -----------------------------------------------------------------
# Frames on the underlay, for tshark: tepd's encapsulated TCP segments.
ip netns exec "$PEER" tshark -q -i peer0 -w "$WORK/und.pcap" \
	-f "udp port 4789" >"$WORK/tshark_cap.log" 2>&1 &
cap=$!
for _ in $(seq 150); do
	grep -q "Capturing on" "$WORK/tshark_cap.log" && break
	sleep 0.2
done
sleep 1

pinged=0
for _ in 1 2 3; do
	if ip netns exec "$TEN" ping -c 3 -i 0.5 -W 3 203.0.113.2 >"$WORK/ping1" 2>&1; then
		pinged=1; break
	fi
done
if [ $pinged = 1 ]; then
	ok "ping tenant -> kernel vxlan through tepd on $MODEL ($(el))"
else
	fail "ping tenant -> kernel vxlan"; cat "$WORK/ping1"
fi
if ip netns exec "$PEER" ping -c 3 -i 0.5 -W 3 192.0.2.10 >"$WORK/ping2" 2>&1; then
	ok "ping kernel vxlan -> tenant"
else
	fail "ping kernel vxlan -> tenant"; cat "$WORK/ping2"
fi

if [ -n "$BAD" ]; then
	# The NIC writes the checksum at the wrong place: the transfer may
	# not complete. What it sent is what is judged.
	(tcp_xfer "$PEER" "$TEN" 203.0.113.2 300000 >/dev/null 2>&1 || true) &
	x=$!
	for _ in $(seq 40); do kill -0 $x 2>/dev/null || break; sleep 1; done
	pkill -P $x 2>/dev/null || true
	kill $x 2>/dev/null || true
else
	tcp_xfer "$PEER" "$TEN" 203.0.113.2 1000000 || true
	tcp_xfer "$TEN" "$PEER" 192.0.2.10 1000000 || true
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
acc_hw=$(jget ports.0.hw_inner_csum <"$G/stats_acc.json")
acc_sw=$(jget ports.0.sw_inner_csum <"$G/stats_acc.json")
say "inner checksums: underlay port by NIC $und_hw, in software $und_sw; access port by NIC $acc_hw, in software $acc_sw"
acc_pend=$(jget ports.0.rx_csum_pending <"$G/stats_acc.json")
read -r und_mode und_hwdesc < <($PY -c 'import json,sys
for p in json.load(open(sys.argv[1]))["ports"]:
    if p["port"] == sys.argv[2]:
        print(p["inner_csum_mode"], p["hardware"])' "$G/offload.json" "$UND")
say "offload show, $UND: inner checksum $und_mode; by the NIC: $und_hwdesc"
if [ -n "$BAD" ]; then
	:	# the connection may not get past its SYN
elif [ "$acc_pend" -gt 100 ]; then
	ok "access $ACC (virtio): $acc_pend packets with their checksum pending"
else
	fail "access $ACC: only $acc_pend packets with a pending checksum"
fi

# ---- tshark's view of the underlay --------------------------------------------
# Every frame tepd sent with an inner TCP segment: outer IPv4, outer UDP
# (LCO), inner IPv4 and inner TCP checksums, each validated.
tshark -r "$WORK/und.pcap" -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
	-o tcp.check_checksum:TRUE -Y "ip.src == 198.51.100.1 && tcp" \
	-T fields -e ip.checksum.status -e udp.checksum.status \
	-e tcp.checksum.status >"$WORK/verdicts" 2>"$WORK/tshark.err" || true
read -r nframes ngood nbadtcp nbadother < <($PY - "$WORK/verdicts" <<'PYV'
import sys
n = good = badtcp = badother = 0
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if len(f) != 3:
        continue
    n += 1
    ip, udp, tcp = (x.split(",") for x in f)
    # 1 = good (wireshark's PROTO_CHECKSUM_E_GOOD)
    if tcp != ["1"]:
        badtcp += 1
    elif ip != ["1", "1"] or udp != ["1"]:
        badother += 1
    else:
        good += 1
print(n, good, badtcp, badother)
PYV
)
say "tshark: $nframes encapsulated TCP frames from tepd, $ngood all checksums good, $nbadtcp inner TCP bad, $nbadother other bad"

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
	if [ "$und_hw" -gt 100 ] && [ "$und_sw" = 0 ]; then
		ok "underlay $UND: $und_hw inner checksums computed by the NIC, 0 in software"
	else
		fail "underlay $UND: by NIC $und_hw, in software $und_sw"
	fi
	if [ "$und_mode" != software ] && [[ $und_hwdesc == "tcp udp"* ]]; then
		ok "offload show names the NIC: $UND inner checksum $und_mode, by the NIC: $und_hwdesc"
	else
		fail "offload show does not name the NIC for $UND:"; cat "$G/offload.txt"
	fi
	;;
e1000e)
	if [ "$und_sw" -gt 100 ] && [ "$und_hw" = 0 ]; then
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
if [ "$nframes" -gt 100 ] && [ "$ngood" = "$nframes" ]; then
	ok "tshark: all $nframes encapsulated TCP frames have good outer IPv4, outer UDP, inner IPv4 and inner TCP checksums"
else
	fail "tshark: $nframes frames, $ngood good, $nbadtcp inner TCP bad, $nbadother other bad"
fi
say "total $(el)"
finish
