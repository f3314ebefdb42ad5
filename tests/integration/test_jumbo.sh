#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# Jumbo frames end to end against the Linux kernel's VXLAN device: tenant
# MTU 9000 over an underlay of 9100 (IPv4) or 9200 (IPv6).
#
#   test_jumbo.sh af_packet|tap 4|6     (underlay PMD, underlay family)
#
#   ten (192.0.2.10, mtu 9000) --veth-- [tepd access, af_packet framesz 16384]
#                              [tepd underlay] --wire-- peer: vx0 (mtu 9000)
#
# net_af_packet cannot scatter: tepd gives it 16 KiB buffers (framesz
# 16384), and it carries 9000-byte tenants both ways. Checked:
#   1. ping -M do -s 8972 both ways, 5/5 (and IPv6 with 8952 bytes);
#   2. 4 MB over TCP each way, sha256 equal;
#   3. every underlay frame decoded and its checksums recomputed here
#      (check_underlay.py), and the TCP segments on it about 8948 bytes;
#   4. the kernel's UDP and TCP checksum error counters stay at 0;
#   5. port set mtu beyond what the port carries is refused, naming why.
#
# net_tap in DPDK 22.11 receives jumbo frames (scattered into chains of
# 2 KiB mbufs: decapsulated as chains here) but sends none over 1526
# bytes: tepd's port keeps MTU 1504 (docs/jumbo.md) while the wire and
# the kernel stay at 9100/9200. So on tap: kernel -> tenant carries
# 9000-byte packets (chained decap, IPv4 echo replies fragmented by tepd
# on the way back), tenant -> kernel gets tepd's frag-needed/packet-too-
# big with the MTU that fits (1454 / 1434), and TCP adapts to it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PMD=${1:-af_packet}
FAM=${2:-4}
CHECKER="$HERE/check_underlay.py"
if [ "$FAM" = 4 ]; then UMTU=9100; else UMTU=9200; fi

if [ "$PMD" = tap ]; then
	TEPD_UMTU=1504		# net_tap's limit in DPDK 22.11
	if [ "$FAM" = 4 ]; then FIT=1454; else FIT=1434; fi
else
	TEPD_UMTU=$UMTU
fi
AFP_ARGS=",framesz=16384,blocksz=16384,framecnt=256" \
SITE_U_MTU=$UMTU SITE_T_MTU=9000 SITE_TEPD_U_MTU=$TEPD_UMTU \
SITE_EXTRA_CONF="port set net_af_packet0 mtu 9000" \
	vxlan_site_setup "$PMD" "$FAM"

tcp_csum_errors() {
	ip netns exec "$1" awk '
		/^Tcp:/ { if (h) { for (i = 2; i <= NF; i++) if (n[i] == "InCsumErrors") s += $i } else { for (i = 2; i <= NF; i++) n[i] = $i } h = !h }
		END { print s + 0 }' /proc/net/snmp
}
csum_errors() {
	{ udp_csum_errors "$PEER"; udp_csum_errors "$TEN"
	  tcp_csum_errors "$PEER"; tcp_csum_errors "$TEN"; } |
		awk '{ s += $1 } END { print s + 0 }'
}
before=$(csum_errors)

say "offload show: $($CTL offload show | grep -E 'long frames' | paste -sd';')"

# Capture the underlay on the peer's side, both directions.
ip netns exec "$PEER" $PY "$CHECKER" capture peer0 "$WORK/underlay.pcap" \
	--ready "$WORK/cap.ready" >"$WORK/cap.out" 2>&1 &
CAP=$!
for _ in $(seq 100); do
	[ -e "$WORK/cap.ready" ] && break
	sleep 0.1
done
[ -e "$WORK/cap.ready" ] || { fail "capture did not start"; cat "$WORK/cap.out"; finish; }

# 1. Full-size pings, DF set, both ways. The first may be lost while the
# underlay neighbour resolves.
ip netns exec "$TEN" ping -c 1 -W 2 198.18.0.2 >/dev/null 2>&1 || true
ip netns exec "$TEN" ping -6 -c 1 -W 2 2001:db8:20::2 >/dev/null 2>&1 || true
pingn() {	# pingn NS WHAT ARGS...: 5/5 answered?
	local ns=$1 what=$2; shift 2
	if ip netns exec "$ns" ping -c 5 -i 0.2 -W 2 "$@" >"$WORK/ping" 2>&1 &&
	   grep -q '5 received' "$WORK/ping"; then
		ok "$what: $(grep -o '[0-9]* packets transmitted, [0-9]* received' "$WORK/ping")"
	else
		fail "$what"; cat "$WORK/ping"
	fi
}
ptb() {	# ptb WHAT ARGS...: refused by tepd with the MTU that fits?
	local what=$1; shift
	ip netns exec "$TEN" ping -c 3 -i 0.3 -W 2 "$@" >"$WORK/ping" 2>&1 || true
	if grep -Eq "mtu ?= ?$FIT" "$WORK/ping"; then
		ok "$what: tepd answers with mtu $FIT: $(grep -Eo "[^:]*mtu ?= ?$FIT" "$WORK/ping" | head -n 1)"
	else
		fail "$what: no mtu $FIT in the answer"; cat "$WORK/ping"
	fi
}
if [ "$PMD" = af_packet ]; then
	pingn "$TEN" "ping -M do -s 8972 tenant -> kernel vxlan" -M do -s 8972 198.18.0.2
	pingn "$PEER" "ping -M do -s 8972 kernel vxlan -> tenant" -M do -s 8972 192.0.2.10
	pingn "$TEN" "ping -6 -M do -s 8952 tenant -> kernel vxlan" -6 -M do -s 8952 2001:db8:20::2
	pingn "$PEER" "ping -6 -M do -s 8952 kernel vxlan -> tenant" -6 -M do -s 8952 2001:db8:10::10
fi

# One byte more does not fit the tenant MTU: refused by the sender itself.
if ip netns exec "$TEN" ping -c 1 -W 1 -M do -s 8973 198.18.0.2 >/dev/null 2>&1; then
	fail "ping -s 8973 with DF went through a 9000-byte MTU"
else
	ok "ping -M do -s 8973 does not fit (tenant MTU 9000)"
fi

# 2. TCP both ways, 4 MB each, sha256 compared.
tcp() { tcp_xfer "$1" "$2" "$3" 4000000 || true; }
if [ "$PMD" = af_packet ]; then
	tcp "$PEER" "$TEN" 198.18.0.2
	tcp "$TEN" "$PEER" 192.0.2.10
else
	# Kernel -> tenant first: once tepd's frag-needed has taught the
	# tenant a path MTU of $FIT, it advertises an MSS to match.
	# The 9000-byte echo request comes in chained; the reply (no DF)
	# is fragmented by tepd to fit its underlay port.
	pingn "$PEER" "ping -M do -s 8972 kernel vxlan -> tenant" -M do -s 8972 192.0.2.10
	# A chain cut into fragments: with the access port at MTU 1500, the
	# 9000-byte request without DF (received scattered from the tap) is
	# fragmented by tepd into header mbufs plus indirect mbufs.
	frags() { $CTL -j stats port $UND | jget ports.0.ipv4_frag_pkts; }
	$CTL port set net_af_packet0 mtu 1500
	f0=$(frags)
	pingn "$PEER" "ping -M dont -s 8972 kernel vxlan -> tenant, access MTU 1500" -M dont -s 8972 192.0.2.10
	f1=$(frags)
	if [ $((f1 - f0)) -ge 5 ]; then
		ok "tepd fragmented $((f1 - f0)) chained packets from $UND"
	else
		fail "chained packets fragmented: $((f1 - f0)) (want 5)"
	fi
	$CTL port set net_af_packet0 mtu 9000
	tcp "$TEN" "$PEER" 192.0.2.10
	ptb "ping -M do -s 8972 tenant -> kernel vxlan" -M do -s 8972 198.18.0.2
	ptb "ping -6 -M do -s 8952 tenant -> kernel vxlan" -6 -M do -s 8952 2001:db8:20::2
	tcp "$PEER" "$TEN" 198.18.0.2
fi

sleep 0.3
kill -TERM $CAP
wait $CAP && caprc=0 || caprc=$?
say "$(cat "$WORK/cap.out")"
[ "$caprc" = 0 ] || fail "capture lost frames or failed (rc $caprc)"

# 3. Every underlay frame, decoded and summed independently.
if $PY "$CHECKER" check "$WORK/underlay.pcap" vxlan --vni 42 --min 500 --sport-range 1024-65535 \
	--min-dir 200 >"$WORK/check.txt" 2>&1; then
	ok "underlay capture: every frame decodes, every checksum right"
	sed 's/^/    /' "$WORK/check.txt"
else
	fail "underlay capture check:"
	grep -v "^BAD\|^      " "$WORK/check.txt" | head -n 30
	grep -A3 "^BAD" "$WORK/check.txt" | head -n 24
fi
# The TCP segments inside: full-size ones of about 8948 bytes (9000 less
# IPv4 20, TCP 20 and timestamps 12) each way; on tap, from the kernel
# only (tepd sends at most 1504-byte packets there).
# (check_underlay.py: "inner tcp payload SRC > DST: largest N, M of ...")
sizes=$(grep "inner tcp payload" "$WORK/check.txt" | sed 's/^ *//' | paste -sd';')
if [ "$PMD" = af_packet ]; then
	want='$9 >= 100 && $8 >= 8900 && $8 <= 8960'
else
	want="(\$4 == \"$U_PEER\" && \$9 >= 100 && \$8 <= 8960) ||
	      (\$4 == \"$U_TEP\" && \$8 <= $FIT - 52)"
fi
if [ "$(grep -c "inner tcp payload" "$WORK/check.txt")" = 2 ] &&
   grep "inner tcp payload" "$WORK/check.txt" | tr -d ',' |
	awk "{ if (!($want)) bad = 1 } END { exit bad }"; then
	ok "inner TCP on the underlay: $sizes"
else
	fail "inner TCP on the underlay: $sizes"
fi

# 4. The kernel found no bad checksum.
after=$(csum_errors)
if [ "$after" = "$before" ]; then
	ok "kernel UDP/TCP checksum errors: $before before, $after after"
else
	fail "kernel checksum errors: $before before, $after after"
fi
say "tepd: $($CTL stats tunnel vx1 | head -n 3 | paste -sd' ')"
[ "$FAILS" = 0 ] || { $CTL stats port $UND; $CTL stats port net_af_packet0; $CTL xstats $UND 2>/dev/null | grep -v " 0$" | head -30; } || true

# 5. An MTU the port cannot carry is refused, naming the limit.
if [ "$PMD" = af_packet ]; then big=16333; else big=1505; fi
if out=$($CTL port set $UND mtu $big 2>&1); then
	fail "port set $UND mtu $big accepted"
elif echo "$out" | grep -q "at most"; then
	ok "port set $UND mtu $big refused: $out"
else
	fail "port set $UND mtu $big: $out"
fi
finish
