#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# Open vSwitch with DPDK (Debian's openvswitch-switch-dpdk, OVS 3.1 on
# DPDK 22.11) doing VXLAN/IPv4 encapsulation on the same vdevs as
# bench_pipeline.sh gives tepd, so that tepd's numbers can be set beside
# a widely deployed software dataplane measured the same way:
#
#   net_pcap0 (infinite_rx, gen_traffic.py's 512 flows) -> br-int
#     in_port=pcap0 -> vx0 (type=vxlan, VNI 42, 198.51.100.1 -> .2)
#     userspace tunnel push, route and static ARP on br-phy
#   br-phy in_port=LOCAL -> null0 (net_null0, no-rx)
#
# One PMD thread on core 1 (as tepd's one worker), OVS's main/EAL thread
# on core 0. Mpps: packets leaving null0 per second, median of SAMPLES x
# SECONDS_PER_SAMPLE after a 1 s warm-up; OVS's own processing cycles per
# packet from dpif-netdev/pmd-stats-show over the same period. Beside it,
# dpdk-testpmd io forwarding on the same vdevs in the same run (the I/O
# ceiling, as in bench_pipeline.sh).
#
#   bench_ovs.sh [SIZES] [MODES]
#   e.g. HUGE=1 tests/bench/bench_ovs.sh "64 512 1500" "off on"
# MODES: off (no outer UDP checksum, OVS's default over IPv4, like tepd
# "csum off"), on (options:csum=true: OVS sums the outer UDP checksum in
# software), decap (VXLAN/IPv4 frames from the far VTEP into br-phy, OVS
# pops the tunnel, br-int sends the inner frame to a net_null port).
# Env: SECONDS_PER_SAMPLE (2), SAMPLES (3), HUGE=1 (2 MiB hugepages, as
# bench_pipeline.sh; OVS gets dpdk-socket-mem OVS_MEM MiB, default 1024),
# NO_REF=1 skips testpmd, OVS_VSWITCHD (the DPDK-enabled ovs-vswitchd),
# CPU_LOCK (default /tmp/tepd-cpu.lock: every run that polls a core holds
# it; set it empty if you already hold it, e.g. under flock yourself).
# FLOWS (512): the number of flows in the pcaps. TABLE=internet: their
# destinations as bench_pipeline.sh's TABLE=internet makes them
# (gen_routes.py ROUTES, default 1 000 000: the same pcaps); OVS itself
# holds no such table (one OpenFlow rule a bridge). REMOTES=K (decap): the
# flows from K far VTEPs, as bench_pipeline.sh's; vx0 then takes any
# remote (options:remote_ip=flow).
# Needs root: installs openvswitch-switch-dpdk if missing (and stops the
# system OVS it starts), runs a private ovsdb-server and ovs-vswitchd in a
# network namespace of its own, removed on exit. Not part of CI; prints a
# table and asserts nothing about speed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
SIZES=${1:-64 512 1500}
MODES=${2:-off on}
DUR=${SECONDS_PER_SAMPLE:-2}
SAMPLES=${SAMPLES:-3}
VSWITCHD=${OVS_VSWITCHD:-/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk}
SCHEMA=/usr/share/openvswitch/vswitch.ovsschema
CPU_LOCK=${CPU_LOCK-/tmp/tepd-cpu.lock}
FLOWS=${FLOWS:-512}
TABLE=${TABLE:-seq}
REMOTES=${REMOTES:-1}
export PCAP_PKTS=$FLOWS
NS=ovsb$$
# br-phy's MAC: the decap frames are addressed to it
PHY_MAC=02:00:00:00:00:01

# The same EAL options as bench_pipeline.sh, for testpmd_mpps.
# shellcheck disable=SC2034
if [ -n "${HUGE:-}" ]; then
	# --huge-unlink: no hugepage files left behind for the next run
	# (nor for OVS's --in-memory, which then finds its 1 GiB)
	EAL="-l 0-1 -m 1536 --huge-unlink --no-pci --log-level=lib.eal:error"
else
	EAL="-l 0-1 --no-huge -m 1536 --no-pci --log-level=lib.eal:error"
fi
. "$HERE/bench_lib.sh"

[ "$(id -u)" = 0 ] || { echo "bench_ovs: needs root" >&2; exit 1; }

# ovs-vswitchd-dpdk comes with the package; the plain ovs-vswitchd that
# /usr/sbin/ovs-vswitchd points to by default has no DPDK.
if [ ! -x "$VSWITCHD" ]; then
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y openvswitch-switch-dpdk
fi

# The package starts the system OVS on install (where policy-rc.d lets
# it): it would take CPU time and, with DPDK configured, hugepages.
# Stopped by its pid files, so that nothing else is touched.
system_ovs_running() {
	local d p
	for d in ovsdb-server ovs-vswitchd; do
		p=/run/openvswitch/$d.pid
		[ -s "$p" ] && kill -0 "$(cat "$p")" 2>/dev/null && return 0
	done
	return 1
}
if system_ovs_running; then
	if [ -d /run/systemd/system ]; then
		systemctl stop openvswitch-switch ovs-vswitchd ovsdb-server || true
	fi
	if system_ovs_running; then
		/usr/share/openvswitch/scripts/ovs-ctl stop || true
	fi
	if system_ovs_running; then
		echo "bench_ovs: the system ovsdb-server/ovs-vswitchd still run" >&2
		exit 1
	fi
fi

WORK=$(mktemp -d /tmp/tepd-ovsb.XXXXXX)
DBPID='' VSPID=''
stop_ovs() {
	# vswitchd first: it holds the PMD core and the hugepages
	if [ -n "$VSPID" ]; then
		kill "$VSPID" 2>/dev/null || true
		wait "$VSPID" 2>/dev/null || true
		VSPID=
	fi
	if [ -n "$DBPID" ]; then
		kill "$DBPID" 2>/dev/null || true
		wait "$DBPID" 2>/dev/null || true
		DBPID=
	fi
	# and the bridges' taps and addresses with the namespace
	ip netns del "$NS" 2>/dev/null || true
}
cleanup() {
	trap - EXIT INT TERM
	stop_ovs
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

nsx() { ip netns exec "$NS" "$@"; }

# Every process that polls a core runs holding CPU_LOCK (the developer's
# builds and benchmarks take it too), one run at a time, so that the
# numbers are not shared with something else on the 2 cores.
cpu_lock() {
	[ -n "$CPU_LOCK" ] || return 0
	exec 9>>"$CPU_LOCK"
	flock 9
}
cpu_unlock() {
	[ -n "$CPU_LOCK" ] || return 0
	flock -u 9
	exec 9>&-
}

# ovs-vsctl/ovs-appctl/ovs-ofctl for the private OVS of this run (the
# OVS_* directories are exported by ovs_start)
vsctl() { nsx ovs-vsctl --db="unix:$OVS_RUNDIR/db.sock" --timeout=30 "$@"; }
appctl() { nsx ovs-appctl -t "$OVS_RUNDIR/vswitchd.ctl" "$@"; }
ofctl() { nsx ovs-ofctl "$@"; }

ovs_start() {	# DIR PCAP MODE SIZE: a private OVS, configured, forwarding
	local d=$1 pcap=$2 mode=$3 size=$4 mtu=1600 mem extra i csum=()
	mkdir -p "$d/run" "$d/db" "$d/log" "$d/etc"
	# a namespace per run: br-int/br-phy's taps live there, never in
	# the root namespace, and go with it
	ip netns add "$NS"
	nsx ip link set lo up
	# no IPv6 router solicitations etc. from the taps into br-phy
	nsx sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	export OVS_RUNDIR=$d/run OVS_DBDIR=$d/db OVS_LOGDIR=$d/log \
		OVS_SYSCONFDIR=$d/etc
	ovsdb-tool create "$d/db/conf.db" "$SCHEMA"
	ip netns exec "$NS" ovsdb-server "$d/db/conf.db" --remote="punix:$d/run/db.sock" \
		--unixctl="$d/run/ovsdb-server.ctl" --no-chdir \
		--log-file="$d/log/ovsdb-server.log" -vconsole:off \
		</dev/null >/dev/null 2>&1 &
	DBPID=$!
	for i in $(seq 100); do
		[ -S "$d/run/db.sock" ] && break
		sleep 0.05
	done
	# OVS adds --in-memory itself (no hugepage files left behind);
	# the unique --file-prefix keeps it apart from other DPDK
	# processes all the same. Core 0: main thread (-c 0x1), core 1:
	# the PMD thread.
	extra="--no-pci --file-prefix $NS --log-level=lib.eal:error"
	# Memory: hugepages reserved up front with HUGE=1; else 4 KiB
	# pages as bench_pipeline.sh (--no-huge is legacy memory, which
	# --in-memory refuses: saying --legacy-mem stops OVS adding that).
	if [ -n "${HUGE:-}" ]; then
		mem=(other_config:dpdk-socket-mem="${OVS_MEM:-1024}")
	else
		mem=()
		extra="--no-huge --legacy-mem -m ${OVS_MEM:-1024} $extra"
	fi
	# The underlay port must carry the 50 bytes VXLAN adds (netdev-dpdk
	# drops frames over its MTU on transmit); both ports get the same
	# MTU so that they share one mempool. Frames over 2 KB must fit in
	# one mbuf for net_pcap's infinite_rx.
	[ "$size" != imix ] && [ "$size" -gt $((mtu - 64)) ] && mtu=$((size + 64))
	vsctl --no-wait init
	vsctl --no-wait set Open_vSwitch . other_config:dpdk-init=true \
		other_config:dpdk-lcore-mask=0x1 other_config:pmd-cpu-mask=0x2 \
		"${mem[@]}" other_config:dpdk-extra="\"$extra\""
	# on: OVS sums the outer UDP checksum (over IPv4 it sends none
	# by default)
	[ "$mode" = on ] && csum=(options:csum=true)
	local remote=198.51.100.2
	[ "$mode" = decap ] && [ "$REMOTES" -gt 1 ] && remote=flow
	# fail_mode=secure: no NORMAL flow, so that nothing floods to the
	# bridges' taps before our flows are in.
	vsctl --no-wait \
		-- add-br br-int -- set Bridge br-int datapath_type=netdev \
			fail_mode=secure \
		-- add-br br-phy -- set Bridge br-phy datapath_type=netdev \
			fail_mode=secure other_config:hwaddr="\"$PHY_MAC\"" \
		-- add-port br-int vx0 -- set Interface vx0 type=vxlan \
			ofport_request=2 options:remote_ip="$remote" \
			options:local_ip=198.51.100.1 options:key=42 "${csum[@]}"
	# encap: tenant frames into br-int, the tunnel's out of br-phy;
	# decap: VXLAN into br-phy (the underlay), the inner frames out of
	# br-int to a sink
	local pbr=br-int nbr=br-phy
	[ "$mode" = decap ] && { pbr=br-phy; nbr=br-int; }
	vsctl --no-wait \
		-- add-port "$pbr" pcap0 -- set Interface pcap0 type=dpdk \
			ofport_request=1 mtu_request=$mtu \
			options:dpdk-devargs="\"net_pcap0,rx_pcap=$pcap,infinite_rx=1\"" \
		-- add-port "$nbr" null0 -- set Interface null0 type=dpdk \
			ofport_request=1 mtu_request=$mtu \
			options:dpdk-devargs="\"net_null0,no-rx=1\""
	ip netns exec "$NS" "$VSWITCHD" "unix:$d/run/db.sock" --unixctl="$d/run/vswitchd.ctl" \
		--no-chdir --log-file="$d/log/ovs-vswitchd.log" -vconsole:off \
		-vnetdev_dpdk:file:dbg </dev/null >"$d/log/vswitchd.out" 2>&1 &
	VSPID=$!
	# ready: both DPDK ports have their OpenFlow port numbers and
	# br-phy's tap exists
	for i in $(seq 600); do
		kill -0 "$VSPID" 2>/dev/null || {
			cat "$d/log/vswitchd.out" "$d/log/ovs-vswitchd.log" >&2
			return 1
		}
		[ "$(vsctl get Interface pcap0 ofport 2>/dev/null)" = 1 ] &&
			[ "$(vsctl get Interface null0 ofport 2>/dev/null)" = 1 ] &&
			nsx ip link show br-phy >/dev/null 2>&1 && break
		sleep 0.1
	done
	if [ "$(vsctl get Interface null0 ofport)" != 1 ] ||
		[ "$(vsctl get Interface pcap0 ofport)" != 1 ]; then
		echo "bench_ovs: OVS did not add the DPDK ports:" >&2
		vsctl --columns=name,ofport,error list Interface >&2
		grep -E 'ERR|WARN' "$d/log/ovs-vswitchd.log" >&2
		return 1
	fi
	# The underlay: br-phy's address (the kernel route in the namespace
	# is what OVS's route table learns too), the route made explicit,
	# and the far VTEP's MAC, static: no ARP is sent.
	nsx ip addr add 198.51.100.1/24 dev br-phy
	nsx ip link set br-phy up
	appctl ovs/route/add 198.51.100.0/24 br-phy >/dev/null 2>&1 || true
	appctl tnl/arp/set br-phy 198.51.100.2 02:00:00:00:00:99 >/dev/null
	if [ "$mode" = decap ]; then
		# To br-phy's own address: out of LOCAL, where the datapath
		# pops the tunnel (tnl_pop) and continues in br-int from vx0.
		ofctl add-flow br-phy in_port=1,actions=LOCAL
		ofctl add-flow br-int in_port=2,actions=output:1
	else
		# What vx0's tunnel push outputs enters br-phy from LOCAL.
		ofctl add-flow br-phy in_port=LOCAL,actions=output:1
		ofctl add-flow br-int in_port=1,actions=output:2
	fi
}

tx_null0() {	# packets sent by null0 so far
	# Live from the netdev: the Interface statistics column in the
	# database is refreshed only every 5 s at best
	# (other_config:stats-update-interval has a 5000 ms minimum).
	local br="br-phy"
	[ "$1" = decap ] && br="br-int"
	ofctl dump-ports "$br" 1 | sed -n 's/.*tx pkts=\([0-9]*\).*/\1/p'
}

# Run in this shell, not a subshell, so that the trap knows the OVS
# processes to stop: the results are left in MPPS and CYC.
ovs_mpps() {	# PCAP MODE SIZE
	local pcap=$1 mode=$2 size=$3 d=$WORK/ovs-$3-$2
	ovs_start "$d" "$pcap" "$mode" "$size"
	# warm-up: the first packets of each flow go up to the slow path
	# (upcalls), then the datapath flow and the EMC serve them
	sleep 1
	appctl dpif-netdev/pmd-stats-clear >/dev/null
	local samples=() a b
	for _ in $(seq "$SAMPLES"); do
		a=$(tx_null0 "$mode")
		sleep "$DUR"
		b=$(tx_null0 "$mode")
		samples+=("$(( (b - a) / DUR ))")
	done
	local stats flows
	stats=$(appctl dpif-netdev/pmd-stats-show)
	flows=$(appctl dpctl/dump-flows)
	# the mempool OVS made (it halves its size until it fits; logged
	# at debug level)
	grep -oE '(Allocated|Failed to create) .*mempool.* [0-9]+ mbufs' \
		"$d/log/ovs-vswitchd.log" |
		sed "s/^/# $size $mode /" >&2 || true
	stop_ovs
	# the datapath flow(s) and how the PMD found them, for the record
	echo "$flows" | sed "s/^/# $size $mode dp flow: /" >&2
	echo "$stats" | awk -v t="# $size $mode pmd:" '
		/^pmd thread/ { p = / core_id 1:/; next }
		/^main thread/ { p = 0 }
		p && /(simple match|emc|smc|megaflow) hits|upcall|per output batch/ {
			sub(/^ */, ""); s = s " " $0 ";"
		}
		END { print t s }' >&2
	MPPS=$(printf '%s\n' "${samples[@]}" | median |
		awk '{ printf "%.2f", $1 / 1e6 }')
	CYC=$(echo "$stats" | awk '/^pmd thread/ { p = / core_id 1:/ }
		p && /avg processing cycles per packet:/ { printf "%.0f", $6; f = 1 }
		END { if (!f) print 0 }')
}

echo "# OVS-DPDK ($("$VSWITCHD" --version | awk 'NR == 1 { print $NF }'), $("$VSWITCHD" --version | sed -n 's/^DPDK //p' | sed 's/^/DPDK /')):" \
	"net_pcap (infinite_rx, $FLOWS flows) -> br-int -> vxlan -> br-phy -> net_null"
echo "# 1 PMD thread (core 1); median of $SAMPLES x ${DUR}s; cyc/pkt: OVS's processing cycles per packet"
echo "# machine: $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
printf '%-7s %-4s %5s %-5s %9s %12s %9s %12s\n' type fam bytes csum ovs_Mpps \
	testpmd_Mpps fraction "ovs_cyc/pkt"
DEAD=
DSTS=
if [ "$TABLE" = internet ]; then
	$PY "$HERE/gen_routes.py" "${ROUTES:-1000000}" "$WORK/mix.txt" "$WORK/dsts" "$FLOWS"
	DSTS="--dst-file $WORK/dsts"
fi
for size in $SIZES; do
	ref='' refvx=''
	case " $MODES " in *" decap "*)
		# gen_traffic.py makes the smallest VXLAN frame it can
		# (92 bytes) for size 64
		$PY "$HERE/gen_traffic.py" --vxlan --remotes "$REMOTES" $DSTS \
			"$size" "$WORK/v$size.pcap" "$FLOWS" "$PHY_MAC"
		cpu_lock
		refvx=$(testpmd_mpps "$WORK/v$size.pcap" "$size")
		cpu_unlock ;;
	esac
	case " $MODES " in *" off "*|*" on "*)
		$PY "$HERE/gen_traffic.py" $DSTS "$size" "$WORK/p$size.pcap" "$FLOWS"
		cpu_lock
		ref=$(testpmd_mpps "$WORK/p$size.pcap" "$size")
		cpu_unlock ;;
	esac
	for mode in $MODES; do
		pcap=$WORK/p$size.pcap r=$ref
		[ "$mode" = decap ] && pcap=$WORK/v$size.pcap r=$refvx
		cpu_lock
		ovs_mpps "$pcap" "$mode" "$size"
		cpu_unlock
		mpps=$MPPS cyc=$CYC
		frac=$(awk -v a="$mpps" -v b="$r" \
			'BEGIN { printf "%.0f%%", (b > 0 ? 100 * a / b : 0) }')
		printf '%-7s %-4s %5s %-5s %9s %12s %9s %12s\n' vxlan ipv4 \
			"$size" "$mode" "$mpps" "$r" "$frac" "$cyc"
		# nothing forwarded is a broken set-up, not a slow one
		[ "$mpps" != 0.00 ] || DEAD="$DEAD $size/$mode"
	done
done
if [ -n "$DEAD" ]; then
	echo "bench_ovs: OVS forwarded nothing in:$DEAD" >&2
	exit 1
fi
