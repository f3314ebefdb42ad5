#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# The real tepd binary, one worker lcore: an access port net_pcap replaying
# a pcap from memory (infinite_rx), an underlay port net_null counting what
# leaves. Mpps from tepd's own counters over fixed intervals (median),
# beside dpdk-testpmd io forwarding on the same vdevs in the same run.
#
#   bench_pipeline.sh [--smoke] [TYPES] [FAMILIES] [SIZES] [MODES]
#   e.g. bench_pipeline.sh "vxlan geneve fou gue" "4 6" "64 512 1500" "lco full off"
# MODES are the tunnel's csum modes (encapsulation), rco (csum lco with
# remote checksum offload: vxlan and gue only; the tenant's complete
# checksums go out as seeds, docs/lco.md), or decap: VXLAN/IPv4
# from the far VTEP decapsulated and forwarded (the smallest such frame
# is 92 bytes: size 64 gives that).
# With BUILD a sanitizer build, a report in tepd's log fails the run.
# Env: BUILD (build dir), ROUTES (default 100000), SECONDS_PER_SAMPLE (2),
# SAMPLES (3); HUGE=1 (below); NO_REF=1 skips testpmd; PERF=DIR profiles the worker core with perf record.
# GATEWAYS=K (decap): the /32 routes spread over K gateways, one per route
# in turn, so that consecutive packets leave by different next hops (with
# ROUTES >= 1024 every flow has its own /32; default 1 gateway).
# REMOTES=K (decap): the flows come from K far VTEPs in turn, each with
# its tunnel (same VNI), so that consecutive packets belong to different
# tunnels (default 1).
# Prints a table; asserts nothing about speed.
set -euo pipefail

BUILD=${BUILD:-build}
TEPD=$BUILD/app/tepd/tepd
TEPCTL=$BUILD/app/tepctl/tepctl
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
SMOKE=0
if [ "${1:-}" = --smoke ]; then
	SMOKE=1
	shift
fi
TYPES=${1:-vxlan}
FAMS=${2:-4}
SIZES=${3:-64 512 1500}
MODES=${4:-lco full}
TABLE=${TABLE:-seq}
if [ "$TABLE" = internet ]; then
	ROUTES=${ROUTES:-1000000}
	TUNNELS=${TUNNELS:-64}
else
	ROUTES=${ROUTES:-100000}
	TUNNELS=${TUNNELS:-1}
fi
FLOWS=${FLOWS:-512}
# EAL memory (MiB): a VRF sized for a million routes per family needs
# about 900 MiB of FIB and RIB
MEM=${MEM:-$([ "$TABLE" = internet ] && echo 3072 || echo 1536)}
# net_pcap's infinite_rx holds the whole capture in mbufs
export TEPD_POOL_EXTRA=$FLOWS PCAP_PKTS=$FLOWS
DUR=${SECONDS_PER_SAMPLE:-2}
SAMPLES=${SAMPLES:-3}
if [ "$SMOKE" = 1 ]; then
	# the smoke run checks the per-stage cycle counters too
	ROUTES=1000 DUR=1 SAMPLES=1 CYCLES=1
fi
WORK=$(mktemp -d /tmp/tepd-bench.XXXXXX)
PID=
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT INT TERM
# HUGE=1: 2 MiB hugepages (as deployed; needs nr_hugepages >= 800 and a
# hugetlbfs mount) instead of --no-huge's 4 KiB pages, for both tepd and
# testpmd.
if [ -n "${HUGE:-}" ]; then
	# --huge-unlink: no hugepage files left behind for the next run
	# (nor for OVS's --in-memory, which then finds its 1 GiB)
	EAL="-l 0-1 -m $MEM --huge-unlink --no-pci --log-level=lib.eal:error"
else
	EAL="-l 0-1 --no-huge -m $MEM --no-pci --log-level=lib.eal:error"
fi

# median, big, JUMBO_DATA, testpmd_mpps (testpmd io forwarding: the
# I/O ceiling), shared with bench_ovs.sh
. "$HERE/bench_lib.sh"

routes_file() {	# N -> "route add" lines in routes.conf (+ dsts: FLOWS addresses)
	if [ "$TABLE" = internet ]; then
		# prefixes with gen_routes.py's mix, each to one of the
		# tunnels t0..t(TUNNELS-1) by its next-hop number, and FLOWS
		# destinations random over them
		$PY "$HERE/gen_routes.py" "$1" "$WORK/mix.txt" "$WORK/dsts" "$FLOWS"
		awk -v k="$TUNNELS" '{ t = $2 % k
			printf "route add %s vrf red tunnel t%s\n", $1, t ? t : "" }' \
			"$WORK/mix.txt" >"$WORK/routes.conf"
		return
	fi
	$PY - "$1" >"$WORK/routes.conf" <<'PY'
import sys
n = int(sys.argv[1])
out = []
for i in range(n):
    a = 18 + (i >> 16) % 2
    out.append("route add 198.%d.%d.%d/32 vrf red tunnel t" % (a, (i >> 8) & 255, i & 255))
print("\n".join(out))
PY
}

# remote_of FAM K: the underlay address of the K-th far VTEP
remote_of() {
	if [ "$1" = 4 ]; then
		echo "198.51.100.$((2 + $2))"
	else
		printf '2001:db8:1::%x\n' $((2 + $2))
	fi
}

tepd_mpps() {	# TYPE FAM PCAP MODE SIZE -> "mpps load_seconds"
	local type=$1 fam=$2 pcap=$3 mode=$4 size=$5 local_ip remote_ip key
	local mtu=9000 bopt=""
	big "$size" && { mtu=9300; bopt="-B $JUMBO_DATA"; }
	if [ "$fam" = 4 ]; then
		local_ip=198.51.100.1 remote_ip=198.51.100.2 plen=24
	else
		local_ip=2001:db8:1::1 remote_ip=2001:db8:1::2 plen=64
	fi
	case $type in
	vxlan|geneve) key="vni 42 inner-dmac 02:00:00:00:00:42" ;;
	gre) key="key 42 inner-dmac 02:00:00:00:00:42" ;;
	*) key="" ;;
	esac
	csum="csum $mode"
	[ "$mode" = rco ] && csum="csum lco rco on"
	[ "$type" = gre ] && { [ "$mode" = off ] && csum="" || csum="gre-csum on csum $mode"; }
	if [ "$mode" = decap ]; then
		# The other way: VXLAN from the far VTEP into the underlay
		# port, the inner packets out of the access port to a
		# gateway (gen_traffic.py --vxlan).
		cat >"$WORK/tepd.conf" <<CONF
vrf add red
port set net_pcap0 role underlay
addr add 198.51.100.1/24 dev net_pcap0
port set net_null0 role access
port bind net_null0 vrf red
port set net_null0 mtu $mtu
addr add 203.0.113.1/24 dev net_null0
tunnel add t type vxlan local 198.51.100.1 remote 198.51.100.2 vni 42 inner-dmac 02:00:00:00:00:42 vrf red
route add 198.18.0.0/15 vrf red via 203.0.113.2
CONF
		for k in $(seq 1 $((${REMOTES:-1} - 1))); do
			echo "tunnel add t$k type vxlan local 198.51.100.1 remote 198.51.100.$((2 + k)) vni 42 inner-dmac 02:00:00:00:00:42 vrf red"
		done >>"$WORK/tepd.conf"
		awk -v k="${GATEWAYS:-1}" 'BEGIN {
			for (g = 0; g < k; g++)
				printf "neigh add 203.0.113.%d lladdr 02:00:00:00:%02x:77 dev net_null0\n", g + 2, g
		}
		{ sub(/ tunnel t[0-9]*$/, " via 203.0.113." (NR - 1) % k + 2); print }' \
			"$WORK/routes.conf" >>"$WORK/tepd.conf"
	else
	cat >"$WORK/tepd.conf" <<CONF
vrf add red
port set net_pcap0 role access
port bind net_pcap0 vrf red
addr add 192.0.2.1/24 dev net_pcap0
port set net_null0 role underlay
port set net_null0 mtu $mtu
addr add $local_ip/$plen dev net_null0
neigh add $remote_ip lladdr 02:00:00:00:00:99 dev net_null0
tunnel add t type $type local $local_ip remote $remote_ip $key vrf red $csum
route add 198.18.0.0/15 vrf red tunnel t
CONF
	if [ "$TABLE" = internet ]; then
		# tunnel tK to far VTEP K ("t" is the first)
		for k in $(seq 1 $((TUNNELS - 1))); do
			r=$(remote_of "$fam" "$k")
			echo "neigh add $r lladdr 02:00:00:00:$(printf %02x "$k"):99 dev net_null0"
			echo "tunnel add t$k type $type local $local_ip remote $r $key vrf red $csum"
		done >>"$WORK/tepd.conf"
	fi
	cat "$WORK/routes.conf" >>"$WORK/tepd.conf"
	fi
	local t0 t1
	t0=$(date +%s.%N)
	$TEPD $EAL --file-prefix "tb$$" --vdev "net_pcap0,rx_pcap=$pcap,infinite_rx=1" \
		--vdev net_null0,no-rx=1 -- -s "$WORK/s.sock" -f "$WORK/tepd.conf" \
		-r $((ROUTES + 1024)) ${CYCLES:+-C} $bopt >"$WORK/tepd.log" 2>&1 &
	PID=$!
	# a million routes take a while to load
	for _ in $(seq $((600 + ROUTES / 500))); do
		$TEPCTL -s "$WORK/s.sock" port list >/dev/null 2>&1 && break
		kill -0 "$PID" 2>/dev/null || { cat "$WORK/tepd.log" >&2; exit 1; }
		sleep 0.05
	done
	t1=$(date +%s.%N)
	sleep 1
	# PERF=DIR: a profile of the worker lcore (core 1) for one sample
	# period, before the samples, as DIR/TYPE-FAM-SIZE-MODE.data.
	if [ -n "${PERF:-}" ]; then
		mkdir -p "$PERF"
		perf record -q -C 1 -o "$PERF/$type-$fam-$size-$mode.data" \
			-- sleep "$DUR" >/dev/null 2>&1 || true
	fi
	local samples=() a b i
	for i in $(seq "$SAMPLES"); do
		a=$($TEPCTL -s "$WORK/s.sock" -j stats port net_null0 |
			$PY -c 'import json,sys; print(json.load(sys.stdin)["ports"][0]["tx"])')
		sleep "$DUR"
		b=$($TEPCTL -s "$WORK/s.sock" -j stats port net_null0 |
			$PY -c 'import json,sys; print(json.load(sys.stdin)["ports"][0]["tx"])')
		samples+=("$(( (b - a) / DUR ))")
	done
	if [ -n "${CYCLES:-}" ]; then
		echo "# stages $type ipv$fam $size $mode: $($TEPCTL -s "$WORK/s.sock" stats |
			grep 'stages' | sed 's/^.*): //')" >&2
		# Each stage the packets pass has its figure, and only those:
		# inner (after decapsulation) for decap alone.
		$TEPCTL -s "$WORK/s.sock" -j stats | $PY -c 'import json,sys
c = json.load(sys.stdin)["cycles_per_packet"]
want = ["classify", "lookup", "encap"] + (["inner"] if sys.argv[1] == "decap" else [])
bad = [s for s in want if c.get(s, 0) == 0] + \
      [s for s in c if s not in want and s != "txprep" and c[s] != 0]
if bad:
    print("stages %s: %s" % (" ".join(bad), c))
    sys.exit(1)' "$mode" >&2 || echo "$type/ipv$fam/$size/$mode" >>"$WORK/badstages"
	fi
	kill "$PID"; wait "$PID" 2>/dev/null || true; PID=
	# a sanitizer build (BUILD=an ASan/UBSan build) reports into the log
	if grep -q "ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer" \
		"$WORK/tepd.log"; then
		grep -A20 -m3 "ERROR: \|runtime error:" "$WORK/tepd.log" >&2
		echo "$type/ipv$fam/$size/$mode" >>"$WORK/sanitizer"
	fi
	printf '%s %.1f\n' "$(printf '%s\n' "${samples[@]}" | median |
		awk '{ printf "%.2f", $1 / 1e6 }')" "$(echo "$t1 - $t0" | awk '{print $1 - $3}')"
}

echo "# tepd pipeline: net_pcap (infinite_rx, $FLOWS flows) -> tepd (1 worker) -> net_null"
if [ "$TABLE" = internet ]; then
	echo "# $ROUTES Internet-mix prefixes over $TUNNELS tunnels (decap: ${GATEWAYS:-1} gateways) in the VRF, destinations random over them; median of $SAMPLES x ${DUR}s"
else
	echo "# $ROUTES /32 routes + 1 covering /15 in the VRF; median of $SAMPLES x ${DUR}s"
fi
echo "# machine: $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
routes_file "$ROUTES"
DSTS=
[ "$TABLE" != internet ] || DSTS="--dst-file $WORK/dsts"
DEAD=
printf '%-7s %-4s %5s %-5s %9s %11s %9s %8s\n' type fam bytes csum "tepd_Mpps" \
	"testpmd_Mpps" "fraction" "load_s"
for size in $SIZES; do
	ref= refvx=
	case " $MODES " in *" decap "*)
		# decap: VXLAN/IPv4 frames of this size, their own reference
		$PY "$HERE/gen_traffic.py" --vxlan --remotes "${REMOTES:-1}" \
			$DSTS "$size" "$WORK/v$size.pcap" "$FLOWS"
		refvx=$(testpmd_mpps "$WORK/v$size.pcap" "$size") ;;
	esac
	case " $MODES " in *" lco "*|*" full "*|*" off "*|*" offload "*|*" rco "*)
		$PY "$HERE/gen_traffic.py" $DSTS "$size" "$WORK/p$size.pcap" "$FLOWS"
		ref=$(testpmd_mpps "$WORK/p$size.pcap" "$size") ;;
	esac
	for type in $TYPES; do
		for fam in $FAMS; do
			for mode in $MODES; do
				pcap=$WORK/p$size.pcap r=$ref
				if [ "$mode" = decap ]; then
					# the generator makes VXLAN/IPv4 only
					[ "$type/$fam" = vxlan/4 ] || continue
					pcap=$WORK/v$size.pcap r=$refvx
				fi
				# remote checksum offload: vxlan and gue have it
				if [ "$mode" = rco ]; then
					case $type in vxlan|gue) ;; *) continue ;; esac
				fi
				read -r mpps load < <(tepd_mpps "$type" "$fam" \
					"$pcap" "$mode" "$size")
				frac=$(awk -v a="$mpps" -v b="$r" \
					'BEGIN { printf "%.0f%%", (b > 0 ? 100 * a / b : 0) }')
				printf '%-7s %-4s %5s %-5s %9s %11s %9s %8s\n' \
					"$type" "ipv$fam" "$size" "$mode" "$mpps" \
					"$r" "$frac" "$load"
				# nothing forwarded is a broken set-up, not a
				# slow one
				[ "$mpps" != 0.00 ] || DEAD="$DEAD $type/ipv$fam/$size/$mode"
			done
		done
	done
done
if [ -n "${DEAD:-}" ]; then
	echo "bench_pipeline: tepd forwarded nothing in:$DEAD" >&2
	exit 1
fi
if [ -s "$WORK/sanitizer" ]; then
	echo "bench_pipeline: sanitizer reports in:" \
		"$(tr '\n' ' ' <"$WORK/sanitizer")" >&2
	exit 1
fi
if [ -s "$WORK/badstages" ]; then
	echo "bench_pipeline: wrong per-stage cycle counters (tepd -C) in:" \
		"$(tr '\n' ' ' <"$WORK/badstages")" >&2
	exit 1
fi
