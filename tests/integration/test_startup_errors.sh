#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# What stops tepd at start, or refuses a VRF, must say what and why:
# - no hugepages EAL can use (DPDK says "Permission denied"): what is
#   reserved, free and mounted, and what to do;
# - `-a ADDR` for a PCI device EAL did not take: no such address, bound
#   to no driver, bound to a kernel driver (with the command to run);
# - `-H IFNAME` naming an interface that exists, or not a plain name;
# - a --vdev whose probe fails (an af_packet port on an interface that
#   does not exist): tepd exits 1 naming it, instead of running without
#   that port;
# - the mbuf pool, sized from ports x workers x descriptors, and a pool
#   that does not fit named with its numbers;
# - VRFs added until the DPDK heap (--no-huge -m 512) cannot hold the next
#   one's FIBs: "out of hugepage memory for VRF NAME's FIB: N MiB needed",
#   from tepctl and from a configuration file, not "Invalid argument";
# - none of the starts that failed after the EAL came up leaves its
#   runtime directory (/var/run/dpdk/PREFIX) behind.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DP=$(ns_add dp)
: >"$WORK/empty.conf"

# run_tepd NAME CONF EAL-ARGS...: start tepd, wait up to 10 s for it to
# exit; its status in RC (or "running", then it is stopped), log in
# $WORK/NAME.log
run_tepd() {
	local name=$1 conf=$2 pid; shift 2
	ip netns exec "$DP" "$TEPD" -l 0-1 --no-huge -m 512 --no-pci \
		--file-prefix "tep${TAG}$name" "$@" -- \
		-s "$WORK/$name.sock" -f "$conf" ${TEPD_EXTRA:-} \
		>"$WORK/$name.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	RC=0
	if kill -0 "$pid" 2>/dev/null; then
		RC=running
		kill "$pid"
		wait "$pid" 2>/dev/null || true
	else
		wait "$pid" || RC=$?
	fi
}

# ---- a --vdev that fails to probe ------------------------------------------
run_tepd vdev "$WORK/empty.conf" --vdev=net_null0 \
	--vdev="net_af_packet9,iface=nosuch$TAG"
want="tepd: --vdev net_af_packet9,iface=nosuch$TAG: probe failed: the driver could not set it up (see the EAL and PMD messages above)"
if [ "$RC" = 1 ] && grep -qxF "$want" "$WORK/vdev.log"; then
	ok "a --vdev that fails to probe stops tepd: $(tail -n 1 "$WORK/vdev.log")"
else
	fail "--vdev that fails to probe: exit $RC: $(tail -n 3 "$WORK/vdev.log")"
fi

# ---- no hugepages -------------------------------------------------------------
# Without --no-huge, a --huge-dir that is no hugetlbfs mount is what EAL
# sees when none is mounted: DPDK 22.11 says only "Permission denied".
mkdir -p "$WORK/nohuge"
ip netns exec "$DP" "$TEPD" -l 0-1 --huge-dir "$WORK/nohuge" --no-pci \
	--file-prefix "tep${TAG}nohuge" --vdev=net_null0 -- \
	-s "$WORK/nohuge.sock" -f "$WORK/empty.conf" >"$WORK/nohuge.log" 2>&1 &&
	RC=0 || RC=$?
if [ "$RC" = 1 ] && grep -q "^tepd: EAL init failed: no hugepages it can use: .* hugetlbfs mounted at: .*--huge-dir must be one of those.*--no-huge" "$WORK/nohuge.log"; then
	ok "no usable hugepages: $(tail -n 1 "$WORK/nohuge.log" | cut -c1-120)..."
else
	fail "no usable hugepages: exit $RC: $(tail -n 2 "$WORK/nohuge.log")"
fi

# ---- -a: a PCI device EAL did not take --------------------------------------
# EAL skips it quietly; tepd says which of the three it is and what to do.
# The host's own devices serve: one bound to no driver, one bound to a
# kernel driver (EAL never touches either: no DPDK driver is bound).
run_pci() {	# NAME ADDR WANT-PREFIX
	local pid
	ip netns exec "$DP" "$TEPD" -l 0-1 --no-huge -m 512 -a "$2" \
		--file-prefix "tep${TAG}$1" -- -s "$WORK/$1.sock" \
		-f "$WORK/empty.conf" >"$WORK/$1.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid"; wait "$pid" 2>/dev/null || true
		fail "-a $2: tepd kept running"
	elif grep -q "^tepd: -a $2: $3" "$WORK/$1.log"; then
		ok "$(grep "^tepd: -a" "$WORK/$1.log")"
	else
		fail "-a $2: $(tail -n 2 "$WORK/$1.log")"
	fi
}
run_pci pcinone 0000:7f:1f.7 "no PCI device at that address"
nodrv= kdrv=
for d in /sys/bus/pci/devices/*; do
	if [ -e "$d/driver" ]; then
		drv=$(basename "$(readlink "$d/driver")")
		case $drv in vfio-pci|uio_pci_generic|igb_uio) ;; *) kdrv=${kdrv:-${d##*/}} ;; esac
	else
		nodrv=${nodrv:-${d##*/}}
	fi
done
# Without an IOMMU (as on this machine: no KVM, no vIOMMU) vfio-pci would
# refuse the device too, and tepd says so.
iommu_off() {
	[ ! -e "/sys/bus/pci/devices/$1/iommu_group" ] &&
		! grep -qs '^[Y1]' /sys/module/vfio/parameters/enable_unsafe_noiommu_mode
}
for d in "pcinodrv|$nodrv|the device is bound to no driver" \
	 "pcikdrv|$kdrv|the device is bound to the kernel driver .*"; do
	IFS='|' read -r name addr want <<<"$d"
	[ -n "$addr" ] || continue
	want="$want.*dpdk-devbind.py -b vfio-pci $addr"
	if iommu_off "$addr"; then
		want="$want.*The IOMMU is off here.*intel_iommu=on"
	fi
	run_pci "$name" "$addr" "$want"
done

# ---- -H: the default VRF's host interface must be a new, plain name -------
for h in "lo|lo: an interface of that name exists" \
	 "a/b|\"a/b\": an interface name of at most 15 letters, digits, '_', '.', '-'"; do
	arg=${h%%|*}
	want="tepd: -H ${h#*|}"
	TEPD_EXTRA="-H $arg" run_tepd h "$WORK/empty.conf" --vdev=net_null0
	if [ "$RC" = 1 ] && grep -qxF "$want" "$WORK/h.log"; then
		ok "$want"
	else
		fail "-H $arg: exit $RC: $(tail -n 2 "$WORK/h.log")"
	fi
done

# ---- VRFs until the heap is full ---------------------------------------------
# -m 512 rather than lib.sh's 1024: full after a few VRFs
ip netns exec "$DP" "$TEPD" -l 0-1 --no-huge -m 512 --no-pci \
	--file-prefix "tep${TAG}mem" --vdev=net_null0 -- \
	-s "$WORK/mem2.sock" -f "$WORK/empty.conf" >"$WORK/tepd-mem.log" 2>&1 &
TEPD_PIDS+=($!)
for _ in $(seq 100); do
	"$TEPCTL" -s "$WORK/mem2.sock" vrf list >/dev/null 2>&1 && break
	sleep 0.1
done
added=0 last=
for i in $(seq 1 20); do
	if ! "$TEPCTL" -s "$WORK/mem2.sock" vrf add "v$i" 2>"$WORK/vrf.err"; then
		last=v$i
		break
	fi
	added=$i
done
msg=$(cat "$WORK/vrf.err")
if [ -n "$last" ] && [ "$added" -ge 1 ] &&
   grep -Eq "^tepctl: out of hugepage memory for VRF $last's FIB: [0-9]+ MiB needed, [0-9]+ MiB free" <<<"$msg"; then
	ok "$added VRFs added, then: $msg"
else
	fail "VRFs until the heap is full: $added added, last '$last': $msg"
fi
"$TEPCTL" -s "$WORK/mem2.sock" vrf list | grep -q "^v1 " &&
	ok "the VRFs that fit are still there" || fail "vrf list after the failure"
kill "${TEPD_PIDS[-1]}"	# a clean stop: its runtime directory goes too
wait "${TEPD_PIDS[-1]}" 2>/dev/null || true

# the same from a configuration file: tepd stops at that line
for i in $(seq 1 20); do echo "vrf add v$i"; done >"$WORK/vrfs.conf"
run_tepd conf "$WORK/vrfs.conf" --vdev=net_null0
if [ "$RC" = 1 ] &&
   grep -Eq "^tepd: $WORK/vrfs.conf:[0-9]+: out of hugepage memory for VRF v[0-9]+'s FIB: [0-9]+ MiB needed" "$WORK/conf.log"; then
	ok "from a config file: $(grep '^tepd:' "$WORK/conf.log" | tail -n 1)"
else
	fail "VRFs from a config file: exit $RC: $(tail -n 3 "$WORK/conf.log")"
fi
# The mbuf pool is sized from the ports (issue 13 item 4): 6 ports x 2
# workers x (1024 RX + 1024 TX descriptors) are 24576 mbufs on the rings
# alone, more than the fixed 16383 tepd had.
vd=(); for i in 0 1 2 3 4 5; do vd+=("--vdev=net_null$i"); done
ip netns exec "$DP" "$TEPD" --lcores 0@0,1@1,2@1 --no-huge -m 1024 --no-pci \
	--file-prefix "tep${TAG}pool" "${vd[@]}" -- -s "$WORK/pool.sock" \
	-f "$WORK/empty.conf" >"$WORK/pool.log" 2>&1 &
pid=$!
size=0
for _ in $(seq 100); do
	size=$("$TEPCTL" -s "$WORK/pool.sock" -j stats 2>/dev/null | jget mempool.size 2>/dev/null) && break
	size=0; sleep 0.1
done
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
if [ "$size" -ge $((6 * 2 * 2048)) ]; then
	ok "mbuf pool for 6 ports x 2 workers: $size mbufs"
else
	fail "mbuf pool for 6 ports x 2 workers: $size mbufs (rings alone take 24576)"
fi
# ... and a pool that does not fit stops tepd with the numbers.
ip netns exec "$DP" "$TEPD" -l 0-1 --no-huge -m 96 --no-pci \
	--file-prefix "tep${TAG}pool2" --vdev=net_null0 --vdev=net_null1 -- \
	-s "$WORK/pool2.sock" -f "$WORK/empty.conf" >"$WORK/pool2.log" 2>&1 &
pid=$!
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then
	kill "$pid"; wait "$pid" 2>/dev/null || true
	fail "tepd runs with -m 96: its mbuf pool cannot fit there"
elif grep -q "mbuf pool: [0-9]* mbufs of [0-9]* bytes ([0-9]* MiB) for 2 port(s) x 1 worker(s)" "$WORK/pool2.log"; then
	ok "a pool that does not fit: $(grep -o 'mbuf pool: .*MiB)' "$WORK/pool2.log")"
else
	fail "no clear error for a pool that does not fit: $(tail -2 "$WORK/pool2.log")"
fi
# A start that failed after the EAL came up leaves no runtime directory
# (the one that failed in the EAL itself may: its prefix could be a
# running tepd's, and tepd does not touch it).
left=$(cd /var/run/dpdk 2>/dev/null && ls -d "tep${TAG}"* 2>/dev/null |
	grep -v "^tep${TAG}nohuge$" | tr '\n' ' ' || true)
if [ -z "$left" ]; then
	ok "failed starts left no runtime directory in /var/run/dpdk"
else
	fail "failed starts left runtime directories: $left"
fi
rm -rf /var/run/dpdk/"tep${TAG}nohuge"
finish
