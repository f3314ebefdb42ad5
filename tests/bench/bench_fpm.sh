#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# How fast tepd takes a full table from zebra over FPM: fpm_feed.py sends
# N /32 routes (198.18.0.0 upwards, via 198.51.100.2 on the underlay) in
# one connection; the time is from the first byte sent until `tepctl vrf
# list` counts them all. Then the same table again on a new connection
# (a replay: every route replaced by itself with the new generation) and
# an empty replay (every route swept after the quiet period).
#
#   bench_fpm.sh [--smoke] [N]        (default N 100000; root)
# Env: BUILD (build dir). Prints figures; asserts only that every route
# arrived and went.
set -euo pipefail

BUILD=${BUILD:-build}
TEPD=$BUILD/app/tepd/tepd
TEPCTL=$BUILD/app/tepctl/tepctl
HERE=$(cd "$(dirname "$0")" && pwd)
FEED=$HERE/../integration/fpm_feed.py
PY=/usr/bin/python3
N=100000
if [ "${1:-}" = --smoke ]; then
	N=1000
	shift
fi
N=${1:-$N}
if [ "$(id -u)" -ne 0 ]; then
	echo "skipped: needs root (network namespaces)"
	exit 77
fi
if [ "$N" -gt 131000 ]; then
	echo "N at most 131000 (198.18.0.0/15)"
	exit 2
fi
WORK=$(mktemp -d /tmp/tepd-bench.XXXXXX)
NS=tepfpmb$$
PID=
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	ip netns del "$NS" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

ip netns add "$NS"
ip -n "$NS" link set lo up
ip -n "$NS" link add und type veth peer name peer
ip -n "$NS" link set und up
ip -n "$NS" link set peer up
cat >"$WORK/tepd.conf" <<CONF
port set net_af_packet0 role underlay
addr add 198.51.100.1/24 dev net_af_packet0
fpm set quiet 1
CONF
SOCK=$WORK/tepd.sock
ip netns exec "$NS" "$TEPD" -l 0-1 --no-huge -m 1536 --no-pci \
	--file-prefix "tepfpmb$$" --vdev=net_af_packet0,iface=und -- \
	-s "$SOCK" -f "$WORK/tepd.conf" -r $((N + N / 4 + 1024)) -P 2620 \
	>"$WORK/tepd.log" 2>&1 &
PID=$!
for _ in $(seq 100); do
	$TEPCTL -s "$SOCK" port list >/dev/null 2>&1 && break
	kill -0 "$PID" 2>/dev/null || { cat "$WORK/tepd.log"; exit 1; }
	sleep 0.1
done
base=$($TEPCTL -s "$SOCK" -j vrf list | $PY -c 'import json,sys
print(json.load(sys.stdin)["vrfs"][0]["routes4"])')

count() {
	$TEPCTL -s "$SOCK" -j vrf list | $PY -c 'import json,sys
print(json.load(sys.stdin)["vrfs"][0]["routes4"] - int(sys.argv[1]))' "$base"
}
# wait_count WANT: seconds until the count is WANT (0.05 s steps)
wait_count() {
	local t0 t1
	t0=$(date +%s.%N)
	for _ in $(seq 2400); do
		[ "$(count)" = "$1" ] && break
		sleep 0.05
	done
	t1=$(date +%s.%N)
	[ "$(count)" = "$1" ] || { echo "FAIL: $(count) routes, want $1"; exit 1; }
	$PY -c "print('%.2f' % ($t1 - $t0))"
}

# The frames are built before the connection; the clock starts at send.
run_feed() {	# run_feed ARGS...: feeds in the background, prints nothing
	ip netns exec "$NS" $PY "$FEED" "$@" 2>"$WORK/feed.err" &
	FPID=$!
}

echo "fpm: $N routes, tepd 1 worker, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$WORK/stamp"
run_feed --stamp "$WORK/stamp" --linger 3 bulk "$N" 198.18.0.0 via 198.51.100.2
for _ in $(seq 2400); do
	[ "$(count)" = "$N" ] && break
	sleep 0.02
done
t1=$(date +%s.%N)
[ "$(count)" = "$N" ] || { echo "FAIL: $(count) routes, want $N"; exit 1; }
wait $FPID
t=$($PY -c "print('%.2f' % ($t1 - float(open('$WORK/stamp').read())))")
echo "install: $N routes counted by tepctl $t s after the first byte was sent"
echo "  ($(cat "$WORK/feed.err"); $($PY -c "print('%.0f' % ($N / max(float('$t'), 0.01)))") routes/s)"

# replay of the same table on a new connection
run_feed --linger 3 bulk "$N" 198.18.0.0 via 198.51.100.2
wait $FPID
echo "replay: same $N routes ($(cat "$WORK/feed.err")); count $(count)"
grep -q "replay complete: 0 stale" "$WORK/tepd.log" &&
	echo "  sweep after the replay removed nothing" ||
	{ echo "FAIL: sweep after a full replay removed routes"; exit 1; }

# empty replay: everything is swept after 1 s of quiet
run_feed --linger 2
t=$(wait_count 0)
wait $FPID
echo "sweep: $N stale routes gone $t s after the empty replay began" \
	"(1 s of it the quiet period)"
grep "tepd: fpm:" "$WORK/tepd.log" | tail -2 | sed 's/^/  /'
echo "PASS"
