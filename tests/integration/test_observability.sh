#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# DPDK's own tools against a running tepd: dpdk-telemetry.py reads tepd's
# /tepd/ counters, dpdk-dumpcap captures on its port (a secondary process,
# so this tepd runs on real 2 MiB hugepages, not --no-huge), and tepd
# answers ICMP echo to its own address.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if ! hugepages_reserve 256; then
	echo "skipped: cannot reserve 256 hugepages"
	exit 77
fi

DP=$(ns_add dp)
O=$(ns_add host)
veth "$DP" p0 "$O" q0
ip -n "$O" addr add 192.0.2.10/24 dev q0
printf 'port set net_af_packet0 role access\naddr add 192.0.2.1/24 dev net_af_packet0\n' \
	>"$WORK/c.conf"
PREFIX="tepobs$TAG"
ip netns exec "$DP" "$TEPD" -l 0-1 -m 512 --no-pci --file-prefix "$PREFIX" \
	--vdev=net_af_packet0,iface=p0 -- -s "$WORK/s.sock" -f "$WORK/c.conf" \
	>"$WORK/tepd-obs.log" 2>&1 &
TEPD_PIDS+=($!)
for _ in $(seq 100); do
	$TEPCTL -s "$WORK/s.sock" port list >/dev/null 2>&1 && break
	sleep 0.1
done

# Capture while the host pings tepd's own address.
timeout 20 dpdk-dumpcap --file-prefix "$PREFIX" -i net_af_packet0 -f icmp -c 8 \
	-w "$WORK/cap.pcapng" >"$WORK/dumpcap.log" 2>&1 &
dpid=$!
sleep 2
ip netns exec "$O" ping -c 6 -i 0.2 -W 2 192.0.2.1 >"$WORK/ping" 2>&1 &&
	ok "tepd answers ping to its own address" || fail "no echo reply from tepd"
wait $dpid || true
replies=$(tshark -r "$WORK/cap.pcapng" -Y 'icmp.type == 0' 2>/dev/null | wc -l)
[ "$replies" -ge 1 ] && ok "dpdk-dumpcap captured tepd's echo replies ($replies)" ||
	{ fail "dpdk-dumpcap captured no reply"; cat "$WORK/dumpcap.log"; }

rx=$(echo "/tepd/ports,0" | dpdk-telemetry.py -f "$PREFIX" 2>/dev/null |
	$PY -c 'import json,sys; print(json.load(sys.stdin)["/tepd/ports"]["rx"])' ||
	echo 0)
[ "$rx" -ge 6 ] && ok "dpdk-telemetry.py /tepd/ports,0: rx $rx" ||
	fail "telemetry rx $rx"

tep_cleanup
trap - EXIT
finish
