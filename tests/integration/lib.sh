# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# Shared helpers for the integration tests: namespaces, a tepd instance,
# checks. Every test sources this, sets BUILD (meson build dir), and calls
# tep_cleanup on exit (the trap is installed here).
#
# Addresses: tenant side 192.0.2.0/24, underlay 198.51.100.0/24 and
# 2001:db8:1::/64, overlay/remote 198.18.0.0/15, tunnels on 203.0.113.0/24.

set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
	echo "skipped: needs root (network namespaces)"
	exit 77
fi
# A test that runs FRR sets TEP_FRR=1 before sourcing this file: it is
# skipped without FRR, and re-run in a private mount namespace so that its
# /run/frr (and a holder's /run/netns, below) never meet a system FRR's.
if [ -n "${TEP_FRR:-}" ]; then
	if [ ! -x /usr/lib/frr/zebra ] || [ ! -x /usr/lib/frr/bgpd ] ||
	   [ ! -x /usr/lib/frr/staticd ]; then
		echo "skipped: FRR not installed (apt-get install frr)"
		exit 77
	fi
	if [ -z "${TEP_FRR_INNER:-}" ]; then
		exec unshare -m --propagation private env TEP_FRR_INNER=1 \
			"$0" "$@"
	fi
fi

: "${BUILD:=build}"
TEPD=${TEPD:-$BUILD/app/tepd/tepd}
TEPCTL=${TEPCTL:-$BUILD/app/tepctl/tepctl}
PY=/usr/bin/python3
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Unique per test run, so parallel or leftover runs do not collide.
TAG=${TAG:-t$$}
NS_LIST=()
TEPD_PIDS=()
WORK=$(mktemp -d /tmp/tepd-it.XXXXXX)
FAILS=0

say() { printf '    %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*"; FAILS=$((FAILS + 1)); }
ok() { printf 'ok: %s\n' "$*"; }

# hugepages_reserve N: at least N free 2 MiB hugepages (more reserved if
# others use some) and hugetlbfs mounted at /dev/hugepages, or 1 (the
# count left as it was). The count is put back at exit (tep_cleanup), once
# tepd has stopped.
HP_BEFORE=
hugepages_free() { awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo; }
hugepages_reserve() {
	local free
	[ -n "$HP_BEFORE" ] || HP_BEFORE=$(cat /proc/sys/vm/nr_hugepages)
	free=$(hugepages_free)
	[ "$free" -ge "$1" ] || echo $(($(cat /proc/sys/vm/nr_hugepages) + $1 - free)) \
		>/proc/sys/vm/nr_hugepages
	mkdir -p /dev/hugepages
	mountpoint -q /dev/hugepages || mount -t hugetlbfs nodev /dev/hugepages
	if [ "$(hugepages_free)" -lt "$1" ]; then
		hugepages_restore
		return 1
	fi
}
hugepages_restore() {
	[ -z "$HP_BEFORE" ] ||
		echo "$HP_BEFORE" >/proc/sys/vm/nr_hugepages 2>/dev/null || true
}

tep_cleanup() {
	local pid ns
	for pid in "${TEPD_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${TEPD_PIDS[@]}"; do
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
	done
	# Namespaces tepd -N made for its VRFs ("FILE-PREFIX-VRF"): a tepd
	# that stops cleanly removes them; one that was killed leaves them.
	for ns in /run/netns/tep"$TAG"[0-9]*-*; do
		[ -e "$ns" ] || continue
		ip netns pids "${ns##*/}" 2>/dev/null | xargs -r kill 2>/dev/null || true
		ip netns del "${ns##*/}" 2>/dev/null || true
	done
	if [ -f "$WORK/namespaces" ]; then
		mapfile -t -O "${#NS_LIST[@]}" NS_LIST <"$WORK/namespaces"
	fi
	for ns in "${NS_LIST[@]}"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
	done
	hugepages_restore
	if [ -n "${KEEP_WORK:-}" ]; then
		echo "work dir kept: $WORK"
	else
		rm -rf "$WORK"
	fi
}
trap tep_cleanup EXIT INT TERM

# ns_add NAME: create namespace NAME-TAG and print its name. Callers use
# $(ns_add ...), a subshell, so the name is recorded in a file, not in a
# variable, for tep_cleanup to find.
ns_add() {
	local ns="$1-$TAG"
	ip netns add "$ns"
	echo "$ns" >>"$WORK/namespaces"
	ip -n "$ns" link set lo up
	echo "$ns"
}

# veth NS1 IF1 NS2 IF2 [MTU]
veth() {
	ip link add "$2" netns "$1" type veth peer name "$4" netns "$3"
	ip -n "$1" link set "$2" up
	ip -n "$3" link set "$4" up
	if [ -n "${5:-}" ]; then
		ip -n "$1" link set "$2" mtu "$5"
		ip -n "$3" link set "$4" mtu "$5"
	fi
	# Frames handed to af_packet must carry complete checksums: the
	# kernel's partial-checksum hint (TP_STATUS_CSUMNOTREADY) is not
	# passed to DPDK (see docs/drivers.md).
	ip netns exec "$1" ethtool -K "$2" tx off >/dev/null 2>&1 || true
	ip netns exec "$3" ethtool -K "$4" tx off >/dev/null 2>&1 || true
}

# wire_bridge WIRE MTU NS1 IF1 [NS2 IF2 ...]: an L2 segment. Each NSi gets
# interface IFi on a veth whose other end is a port of bridge br0 in WIRE.
wire_bridge() {
	local wire=$1 mtu=$2 i=0
	shift 2
	ip -n "$wire" link add br0 type bridge
	ip -n "$wire" link set br0 up
	while [ $# -ge 2 ]; do
		veth "$1" "$2" "$wire" "w$i" "$mtu"
		ip -n "$wire" link set "w$i" master br0
		i=$((i + 1))
		shift 2
	done
}

# tepd_start NS SOCKET CONFIG EAL-ARGS...: start tepd in NS, wait for it.
# TEPD_ARGS: more tepd options (after --), e.g. -N. TEPD_LCORES: the EAL
# lcore option (default "-l 0-1": the main lcore and one worker).
# TEPD_MEM: the EAL memory options (default "--no-huge -m 1024").
tepd_start() {
	local ns=$1 sock=$2 conf=$3; shift 3
	local log="$WORK/tepd-$(basename "$sock").log"
	local in=(ip netns exec "$ns")
	# TEPD_NSENTER=PID: also in that process's mount namespace (a private
	# /run/netns, for a zebra that must see only tepd's VRF namespaces)
	[ -n "${TEPD_NSENTER:-}" ] &&
		in=(nsenter -t "$TEPD_NSENTER" -m --net="/run/netns/$ns" --wd="$PWD" --)
	# shellcheck disable=SC2086
	"${in[@]}" "$TEPD" ${TEPD_LCORES:--l 0-1} ${TEPD_MEM:---no-huge -m 1024} --no-pci \
		--file-prefix "${TEPD_PREFIX:-tep$TAG$RANDOM}" \
		--log-level=pmd.net.tap:error \
		"$@" -- -s "$sock" -f "$conf" ${TEPD_ARGS:-} >"$log" 2>&1 &
	TEPD_PIDS+=($!)
	for _ in $(seq 100); do
		if "$TEPCTL" -s "$sock" port list >/dev/null 2>&1; then
			return 0
		fi
		if ! kill -0 "${TEPD_PIDS[-1]}" 2>/dev/null; then
			echo "tepd died:"; cat "$log"
			return 1
		fi
		sleep 0.1
	done
	echo "tepd did not come up:"; cat "$log"
	return 1
}

# The standard site: a tenant namespace behind tepd (vrf red) and a Linux
# kernel VXLAN device (VNI 42) as the remote VTEP.
#   vxlan_site_setup af_packet|tap 4|6
#   ten (192.0.2.10) --veth-- [tepd access, vrf red]
#                              [tepd underlay] --wire-- peer: vx0 198.18.0.2
# Sets DP TEN PEER UND U_TEP U_PEER CTL. Optional: SITE_EXTRA_VDEV (more
# EAL --vdev arguments), SITE_EXTRA_CONF (more tepd.conf lines),
# SITE_RED_TABLE (vrf red's table, for routes from FPM).
vxlan_site_setup() {
	local PMD=$1 FAM=$2

	DP=$(ns_add dp)
	TEN=$(ns_add ten)
	PEER=$(ns_add peer)

	if [ "$FAM" = 4 ]; then
		U_TEP=198.51.100.1 U_PEER=198.51.100.2 U_LEN=24
	else
		U_TEP=2001:db8:1::1 U_PEER=2001:db8:1::2 U_LEN=64
	fi

	# Tenant link: always af_packet (the access side is not under test here).
	veth "$TEN" ten0 "$DP" dpacc ${SITE_T_MTU:-}
	ip -n "$TEN" addr add 192.0.2.10/24 dev ten0
	ip -n "$TEN" route add default via 192.0.2.1
	# IPv6 tenant traffic too, across whichever underlay family
	ip -n "$TEN" addr add 2001:db8:10::10/64 dev ten0 nodad
	ip -n "$TEN" -6 route add default via 2001:db8:10::1

	# On af_packet the underlay MTU is raised so that 1500-byte tenant packets
	# fit after encapsulation. net_tap caps frames at 1522 bytes, so there the
	# underlay stays at 1500 and tenant TCP must discover the path MTU from
	# tepd's ICMP "fragmentation needed" (which this test also exercises).
	# SITE_U_MTU / SITE_T_MTU: other underlay / tenant MTUs (jumbo);
	# SITE_TEPD_U_MTU: tepd's underlay port MTU if not SITE_U_MTU.
	if [ "$PMD" = af_packet ]; then
		U_MTU=${SITE_U_MTU:-1600}
		veth "$DP" dpund "$PEER" peer0 "$U_MTU"
		UND=net_af_packet1
		VDEV_UND="--vdev=net_af_packet1,iface=dpund${AFP_ARGS:-}"
	else
		UND=net_tap0
		VDEV_UND="--vdev=net_tap0,iface=tepund$TAG"
		U_MTU=${SITE_U_MTU:-1500}
	fi

	cat >"$WORK/tepd.conf" <<-CONF
	# access side: the tenant, in vrf red
	vrf add red${SITE_RED_TABLE:+ table $SITE_RED_TABLE}
	port set net_af_packet0 role access
	port bind net_af_packet0 vrf red
	addr add 192.0.2.1/24 dev net_af_packet0
	addr add 2001:db8:10::1/64 dev net_af_packet0
	# underlay
	port set $UND role underlay
	port set $UND mtu ${SITE_TEPD_U_MTU:-$U_MTU}
	addr add $U_TEP/$U_LEN dev $UND
	tunnel add vx1 type vxlan local $U_TEP remote $U_PEER vni 42 vrf red inner-dmac 02:00:00:00:42:02
	route add 198.18.0.0/24 vrf red tunnel vx1
	route add 2001:db8:20::/64 vrf red tunnel vx1
	${SITE_EXTRA_CONF:-}
	CONF

	# shellcheck disable=SC2086
	tepd_start "$DP" "$WORK/tepd.sock" "$WORK/tepd.conf" \
		--vdev=net_af_packet0,iface=dpacc${AFP_ARGS:-} $VDEV_UND ${SITE_EXTRA_VDEV:-}
	CTL="$TEPCTL -s $WORK/tepd.sock"

	if [ "$PMD" = tap ]; then
		# The tap's kernel side is the wire to the peer.
		ip -n "$DP" link set "tepund$TAG" netns "$PEER"
		ip -n "$PEER" link set "tepund$TAG" name peer0
		ip -n "$PEER" link set peer0 mtu $U_MTU up
	fi
	ip -n "$PEER" addr add "$U_PEER/$U_LEN" dev peer0 $([ "$FAM" = 6 ] && echo nodad)
	ip -n "$PEER" link add vx0 type vxlan id 42 remote "$U_TEP" local "$U_PEER" \
		dstport 4789 $([ "$FAM" = 4 ] && echo udpcsum)
	ip -n "$PEER" link set vx0 address 02:00:00:00:42:02 up
	if [ -n "${SITE_T_MTU:-}" ]; then
		ip -n "$PEER" link set vx0 mtu "$SITE_T_MTU"
	fi
	ip -n "$PEER" addr add 198.18.0.2/24 dev vx0
	ip -n "$PEER" route add 192.0.2.0/24 via 198.18.0.1 dev vx0
	ip -n "$PEER" addr add 2001:db8:20::2/64 dev vx0 nodad
	ip -n "$PEER" -6 route add 2001:db8:10::/64 via 2001:db8:20::1 dev vx0
	# No static neighbour for the gateways 198.18.0.1 and 2001:db8:20::1:
	# the kernel resolves them over the tunnel and tepd answers (proxy
	# ARP/ND) with tunnel vx1's overlay MAC, 02:74:65:70:00:00.

}

# VRFs red and blue with the same addresses, each with a VXLAN tunnel to
# its own remote site (test_vrf_isolation, test_vrf_exec):
#   tenR --- [acc0 vrf red ]              +-- peerR: vx0 vni 100, 198.18.0.2
#                            tepd [und] --br0
#   tenB --- [acc1 vrf blue]              +-- peerB: vx0 vni 200, 198.18.0.2
# Sets DP TR TB WIRE PR PB; tepd is started with $TEPD_ARGS.
vrf_pair_setup() {
	DP=$(ns_add dp)
	TR=$(ns_add tenr)
	TB=$(ns_add tenb)
	WIRE=$(ns_add wire)
	PR=$(ns_add peerr)
	PB=$(ns_add peerb)
	veth "$TR" ten0 "$DP" dpacc0
	veth "$TB" ten0 "$DP" dpacc1
	wire_bridge "$WIRE" 1600 "$DP" dpund "$PR" up0 "$PB" up0
	cat >"$WORK/tepd.conf" <<-'CONF'
	vrf add red table 100
	vrf add blue table 200
	port set net_af_packet0 role access
	port bind net_af_packet0 vrf red
	addr add 192.0.2.1/24 dev net_af_packet0
	addr add 2001:db8:1::1/64 dev net_af_packet0
	port set net_af_packet1 role access
	port bind net_af_packet1 vrf blue
	addr add 192.0.2.1/24 dev net_af_packet1
	port set net_af_packet2 role underlay
	port set net_af_packet2 mtu 1600
	addr add 198.51.100.1/24 dev net_af_packet2
	tunnel add vxr type vxlan local 198.51.100.1 remote 198.51.100.2 vni 100 vrf red inner-dmac 02:00:00:00:01:00
	tunnel add vxb type vxlan local 198.51.100.1 remote 198.51.100.3 vni 200 vrf blue inner-dmac 02:00:00:00:02:00
	route add 198.18.0.0/24 vrf red tunnel vxr
	route add 2001:db8:18::/64 vrf red tunnel vxr
	route add 198.18.0.0/24 vrf blue tunnel vxb
	CONF
	tepd_start "$DP" "$WORK/tepd.sock" "$WORK/tepd.conf" \
		--vdev=net_af_packet0,iface=dpacc0 \
		--vdev=net_af_packet1,iface=dpacc1 \
		--vdev=net_af_packet2,iface=dpund
	vrf_sites_setup "$PR" "$PB"
}

# Two remote sites for VRFs red and blue (vrf_pair_setup):
# the same overlay addresses (198.18.0.2/24, 2001:db8:18::2/64) behind the
# Linux kernel's VXLAN, VNI 100 at 198.51.100.2 in namespace $1 and VNI 200
# at 198.51.100.3 in $2, each with up0 on the underlay, routing the tenant
# prefixes (192.0.2.0/24, 2001:db8:1::/64) back to tepd's tunnels vxr (id 0)
# and vxb (id 1); tepd answers their ARP/ND for the gateways with the
# overlay MACs 02:74:65:70:00:00 and :01.
vrf_sites_setup() {	# NS_RED NS_BLUE
	local site ns rest u vni mac tid
	for site in "$1:198.51.100.2:100:02:00:00:00:01:00:00" \
		    "$2:198.51.100.3:200:02:00:00:00:02:00:01"; do
		ns=${site%%:*}; rest=${site#*:}
		u=${rest%%:*}; rest=${rest#*:}
		vni=${rest%%:*}; rest=${rest#*:}
		mac=${rest%:*}; tid=${rest##*:}
		ip -n "$ns" addr add "$u/24" dev up0
		ip -n "$ns" link add vx0 type vxlan id "$vni" remote 198.51.100.1 \
			local "$u" dstport 4789 udpcsum udp6zerocsumrx
		ip -n "$ns" link set vx0 address "$mac" mtu 1450 up
		ip -n "$ns" addr add 198.18.0.2/24 dev vx0
		ip -n "$ns" addr add 2001:db8:18::2/64 dev vx0 nodad
		ip -n "$ns" route add 192.0.2.0/24 via 198.18.0.1 dev vx0
		ip -n "$ns" route add 2001:db8:1::/64 via 2001:db8:18::1 dev vx0
		# the gateways are resolved through the tunnel (proxy ARP/ND)
		: "$tid"
	done
}

# tcp_xfer SERVER_NS CLIENT_NS ADDR BYTES: BYTES seeded random bytes over
# TCP from CLIENT_NS to ADDR:5001 in SERVER_NS; ok if both ends' sha256
# agree. Returns 1 (after fail) otherwise.
tcp_xfer() {
	ip netns exec "$1" $PY "$HERE/xfer.py" tcp-server 5001 >"$WORK/srv" &
	local spid=$!
	sleep 0.5
	ip netns exec "$2" $PY "$HERE/xfer.py" tcp-client "$3" 5001 "$4" \
		>"$WORK/cli" || true
	wait $spid || true
	if [ -s "$WORK/cli" ] && cmp -s "$WORK/srv" "$WORK/cli"; then
		ok "tcp $4 bytes to $3 intact (sha256 $(cut -c1-16 "$WORK/cli")... both ends)"
	else
		fail "tcp to $3: sent '$(cat "$WORK/cli" 2>/dev/null)' got '$(cat "$WORK/srv" 2>/dev/null)'"
		return 1
	fi
}

# check_tags FILE WANT OTHER WHERE: FILE (xfer.py tag-server's output) holds
# at least 95 datagrams tagged WANT and none of anything else.
check_tags() {
	local got mine theirs kinds
	got=$($PY -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(d.get(sys.argv[2], 0), d.get(sys.argv[3], 0), len(d))' "$1" "$2" "$3")
	read -r mine theirs kinds <<<"$got"
	if [ "$theirs" = 0 ] && [ "$kinds" = 1 ] && [ "$mine" -ge 95 ]; then
		ok "$4 got $mine '$2', none of '$3'"
	else
		fail "$4: $(cat "$1")"
	fi
}

# Kernel UDP checksum error counters of a namespace (IPv4 + IPv6).
udp_csum_errors() {
	ip netns exec "$1" awk '
		/^Udp:/ { if (h) { for (i = 2; i <= NF; i++) if (n[i] == "InCsumErrors") s += $i } else { for (i = 2; i <= NF; i++) n[i] = $i } h = !h }
		END { print s + 0 }' /proc/net/snmp
	ip netns exec "$1" awk '$1 == "Udp6InCsumErrors" { print $2 }' /proc/net/snmp6
}

# no_side_door NS IF: the kernel in NS no longer receives what arrives on
# IF (a veth that tepd's net_af_packet port uses). Without it, the kernel
# answers for tepd wherever NS holds the destination address (tepd -H puts
# the underlay addresses there). An nftables netdev ingress hook with policy
# drop: af_packet's tap comes before it, so tepd still sees every frame.
no_side_door() {
	ip netns exec "$1" nft add table netdev tep_side_door
	ip netns exec "$1" nft add chain netdev tep_side_door "in_$2" \
		"{ type filter hook ingress device \"$2\" priority 0; policy drop; }"
}

# JSON field from tepctl -j output: jq-less, with python.
jget() {
	$PY -c 'import json,sys
d=json.load(sys.stdin)
for k in sys.argv[1].split("."):
    d = d[int(k)] if isinstance(d, list) else d[k]
print(d)' "$1"
}


# ---- FRR -------------------------------------------------------------------
HOLDERS=()
# holder NS NAME=NETNS...: a process in NS with a mount namespace of its
# own whose /run/netns holds exactly the given names and whose /run/frr is
# private. Its pid in HOLDER (not printed: a command substitution's
# subshell would run the EXIT trap, cleaning up everything).
holder() {
	local ns=$1 keep=$WORK/keep.$1 b binds=""
	shift
	mkdir -p "$keep"
	for b in "$@"; do
		binds+="touch $keep/${b%%=*}; mount --bind /run/netns/${b#*=} $keep/${b%%=*}; "
	done
	ip netns exec "$ns" unshare -m --propagation private bash -c "
		$binds
		mount -t tmpfs none /run/netns
		mount -t tmpfs none /run/frr
		chown frr:frr /run/frr
		for f in $keep/*; do
			[ -e \"\$f\" ] || continue
			touch /run/netns/\${f##*/}
			mount --bind \$f /run/netns/\${f##*/}
		done
		exec sleep 100000" &
	HOLDER=$!
	HOLDERS+=($!)
	sleep 0.5
}
# l3vni NS_UNDERLAY NS_VRF VNI LOCAL MAC: the L3VNI devices (bridge with
# the router MAC + vxlan device) in the VRF's namespace, made next to the
# underlay ("." for NS_UNDERLAY: the current namespace) by the very
# script docs/evpn.md tells operators to run.
export L3VNI_DEVICES="$HERE/../../scripts/l3vni-devices"
l3vni() {
	if [ "$1" = . ]; then
		"$L3VNI_DEVICES" "$2" "$3" "$4" "$5"
	else
		ip netns exec "$1" "$L3VNI_DEVICES" "$2" "$3" "$4" "$5"
	fi
}
# frr_run IN DAEMON [ARGS...]: start an FRR daemon through IN (a command
# that enters the node: its holder), with $FRR_RUN/DAEMON.conf there
# (FRR_RUN: /run/frr unless set)
frr_run() {
	local in=$1 d=$2 r=${FRR_RUN:-/run/frr}
	shift 2
	$in /usr/lib/frr/"$d" -d "$@" -f "$r/$d.conf" -i "$r/$d.pid" \
		--log "file:$r/$d.log"
}
# frr_kill IN DAEMON...: stop them in that order (SIGKILL after 5 s)
frr_kill() {
	local in=$1 d pid r=${FRR_RUN:-/run/frr}
	shift
	for d in "$@"; do
		pid=$($in cat "$r/$d.pid" 2>/dev/null) || continue
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
		$in rm -f "$r/$d.pid"
	done
}
# frr_fpm_node IN CTL L3VNI_CMDS [DAEMON...]: a tepd node's FRR in the
# order FRR 8.4.4 needs (docs/evpn.md): zebra with FPM to tepd; then
# L3VNI_CMDS, a shell line that makes the L3VNI devices (with `l3vni .`)
# after zebra's L3VNI config, or zebra never ties them; then, once tepd
# counts a new connection from zebra (CTL: the node's tepctl command), the
# DAEMONs (default bgpd)
frr_fpm_node() {
	local in=$1 ctl=$2 l3=$3 c0 d
	shift 3
	c0=$($ctl -j stats | jget fpm.fpm_connects)
	frr_run "$in" zebra -n -r -M dplane_fpm_nl
	sleep 1
	$in bash -c "$(declare -f l3vni); $l3"
	for _ in $(seq 150); do
		[ "$($ctl -j stats | jget fpm.fpm_connects)" != "$c0" ] && break
		sleep 0.1
	done
	for d in "${@:-bgpd}"; do
		frr_run "$in" "$d"
	done
}
# vrf_netns VRF: from a `tepctl -j vrf list` on stdin, the name of VRF's
# namespace, as zebra -n calls the VRF
vrf_netns() {
	$PY -c 'import json,sys
for v in json.load(sys.stdin)["vrfs"]:
    if v["name"] == sys.argv[1]: print(v["netns"].rsplit("/", 1)[1])' "$1"
}
# evpn_leaf_conf FILE [LINE...]: the tepd of the one-leaf EVPN tests in
# FILE: VRF red (table 10) with L3 VNI 100 and router MAC
# 02:00:00:00:11:64, the underlay on net_af_packet0 at 192.0.2.1/24, the
# tenants on net_af_packet1 at 198.18.1.1/24; each LINE one more line
# before the EVPN one (an address, say)
evpn_leaf_conf() {
	local f=$1 l
	shift
	{
		cat <<C
vrf add red table 10
port set net_af_packet0 role underlay
addr add 192.0.2.1/24 dev net_af_packet0
port set net_af_packet1 role access
port bind net_af_packet1 vrf red
addr add 198.18.1.1/24 dev net_af_packet1
C
		for l in "$@"; do
			echo "$l"
		done
		printf 'evpn vrf red vni 100 rmac 02:00:00:00:11:64\nfpm set quiet 1\n'
	} >"$f"
}
# frr_put IN FILE: stdin to the node's $FRR_RUN/FILE, FRR's to read
frr_put() {
	local r=${FRR_RUN:-/run/frr}
	$1 bash -c "cat >$r/$2 && chown frr:frr $r/$2"
}

finish() {
	local f
	# A sanitizer build of tepd reports into its log and may go on.
	for f in "$WORK"/tepd-*.log; do
		[ -f "$f" ] || continue
		if grep -q "ERROR: AddressSanitizer\|runtime error:" "$f"; then
			fail "sanitizer report in $(basename "$f")"
			grep -A12 "ERROR: AddressSanitizer\|runtime error:" "$f" | head -30
		fi
	done
	if [ "$FAILS" -eq 0 ]; then
		echo "PASS"
		exit 0
	fi
	echo "FAILED ($FAILS)"
	for f in "$WORK"/tepd-*.log; do
		[ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }
	done
	exit 1
}
