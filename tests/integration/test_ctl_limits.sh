#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# No set of clients locks the administrator out of the control socket
# (docs/security.md). 200 connections that send nothing and 50 that send
# one byte every 200 ms of a request that never completes, all reopened
# as soon as they are refused or dropped (ctl_flood.py), first as an
# unprivileged uid that is allowed on the socket (-G), then as root
# itself: root's `tepctl vrf list` must answer in under a second, every
# time (CTL_LIMITS_TRIES times, 20 by default; the flood lasts long enough
# for them). Then the idle timeout (-T) on its own, and a tepd that
# refuses to start on a control socket directory others can write to.
#
# Under root's own flood the slots turn over every 25 ms or so; a tepctl
# that a busy machine holds up between its connect and its send must
# still keep its slot. To see that, run with a CPU hog beside it and
# more tries, e.g. CTL_LIMITS_TRIES=150 with `while :; do :; done` x 4.
#
#   tepd in namespace dp, ports net_null0/1; socket $WORK/ctl/tepd.sock,
#   group nogroup allowed (-G), idle timeout 2 s (-T 2)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

NOGROUP=nogroup
NOBODY=65534
getent group "$NOGROUP" >/dev/null || { echo "skipped: no group $NOGROUP"; exit 77; }

DP=$(ns_add dp)
cat >"$WORK/tepd.conf" <<-'CONF'
vrf add red
CONF
# uid nobody must reach $WORK/ctl (made 0750 root:nogroup by tepd)
chmod 0755 "$WORK"
SOCK=$WORK/ctl/tepd.sock
# CTL_T: the idle timeout option ("" to run a tepd without -T)
TEPD_ARGS="-G $NOGROUP ${CTL_T--T 2}" tepd_start "$DP" "$SOCK" "$WORK/tepd.conf" \
	--vdev=net_null0 --vdev=net_null1
CTL="$TEPCTL -s $SOCK"
TRIES=${CTL_LIMITS_TRIES:-20}
FLOOD_S=$((10 + TRIES / 10))	# 12 s for 20 tries

# time_vrf_list N: run root's `tepctl vrf list` N times; prints the
# slowest and the median in ms, and how many failed.
time_vrf_list() {
	$PY - "$TEPCTL" "$SOCK" "$1" <<-'PY'
	import subprocess, sys, time
	tepctl, sock, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
	times, bad = [], []
	for _ in range(n):
	    t0 = time.monotonic()
	    r = subprocess.run([tepctl, "-s", sock, "vrf", "list"],
	                       capture_output=True, text=True, timeout=30)
	    times.append((time.monotonic() - t0) * 1000)
	    if r.returncode != 0 or not r.stdout.startswith("default"):
	        bad.append((r.returncode, r.stderr.strip()))
	    time.sleep(0.1)
	times.sort()
	print("%d %d %d %s" % (times[-1], times[len(times) // 2], len(bad),
	                       bad[0][1].replace(" ", "_") if bad else "-"))
	PY
}

# Control connections tepd holds now (sockets among its descriptors,
# less the listening socket and the ones it had before any client).
tepd_conns() {
	local n
	n=$(find "/proc/$TEPD_PID/fd" -lname 'socket:*' 2>/dev/null | wc -l)
	echo $((n - BASE_SOCKS))
}
# The median of 5 looks 50 ms apart: one look may catch a connection
# just accepted, before tepd refuses it or frees the slot it evicts for
# it (one more than tepd holds).
tepd_conns_median() {
	local i
	for i in 1 2 3 4 5; do
		tepd_conns
		sleep 0.05
	done | sort -n | sed -n 3p
}
TEPD_PID=${TEPD_PIDS[-1]}
BASE_SOCKS=0
BASE_SOCKS=$(tepd_conns)

# flood_case WHO MIN MAX [--as-uid UID]: 200 idle + 50 slow clients for
# FLOOD_S s, of which tepd holds MIN to MAX at a time; root's vrf list
# TRIES times meanwhile, each under 1 s.
flood_case() {
	local who=$1 lo=$2 hi=$3 res max med nbad why st; shift 3
	rm -f "$WORK/ready"
	$PY "$HERE/ctl_flood.py" "$SOCK" 200 50 "$FLOOD_S" --ready "$WORK/ready" "$@" \
		>"$WORK/flood.json" 2>"$WORK/flood.err" &
	local fl=$!
	for _ in $(seq 50); do
		[ -s "$WORK/ready" ] && break
		sleep 0.1
	done
	sleep 1		# let them take every slot they can
	held=$(tepd_conns_median)
	res=$(time_vrf_list "$TRIES")
	read -r max med nbad why <<<"$res"
	wait "$fl" || true
	st=$(cat "$WORK/flood.json" "$WORK/flood.err" 2>/dev/null)
	say "flood as $who: $st; tepd held $held client connections"
	# the flood must have been there: connections made, slots taken
	if ! grep -q '"connects": [1-9]' "$WORK/flood.json" ||
	   [ "$held" -lt "$lo" ] || [ "$held" -gt "$hi" ]; then
		fail "flood as $who: tepd held $held of its connections, not $lo to $hi: $st"
	else
		ok "flood as $who: tepd held $held of its connections"
	fi
	if [ "$nbad" = 0 ] && [ "$max" -lt 1000 ]; then
		ok "root's vrf list under 250 hostile clients ($who): max ${max} ms, median ${med} ms over $TRIES"
	else
		fail "root's vrf list under 250 hostile clients ($who): max ${max} ms, median ${med} ms, $nbad of $TRIES failed (${why//_/ })"
	fi
}

# uid nobody: no more than its 8 (-U default); root: all but what the
# test's own tepctl takes, through evictions
flood_case "uid $NOBODY" 8 8 --as-uid "$NOBODY"
flood_case root 50 64

# The server is still well afterwards, and the flood's leftovers gone.
sleep 2.5
$CTL vrf list | grep -q '^red' && ok "tepd serves as before after the floods" ||
	fail "tepd after the floods: $($CTL vrf list 2>&1)"

# ---- the idle timeout on its own -------------------------------------------
res=$($PY - "$SOCK" <<-'PY'
import socket, struct, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
t0 = time.monotonic()
s.settimeout(10)
buf = b""
while True:
    try:
        b = s.recv(4096)
    except socket.timeout:
        break                   # still open after 10 s
    if not b:
        break
    buf += b
dt = time.monotonic() - t0
status = struct.unpack("!I", buf[6:10])[0] if len(buf) >= 10 else -1
print("%.2f %d %s" % (dt, status, buf[10:].decode().replace(" ", "_")))
PY
)
read -r dt status body <<<"$res"
if [ "$status" = 110 ] && [ "${body//_/ }" = "idle timeout: no complete request in 2000 ms" ] &&
   $PY -c "import sys; sys.exit(0 if 1.5 <= float(sys.argv[1]) <= 4 else 1)" "$dt"; then
	ok "a silent client is dropped after ${dt} s (-T 2): ${body//_/ }"
else
	fail "silent client: after ${dt} s, status $status, body '${body//_/ }'"
fi

# ---- the socket's directory --------------------------------------------------
mkdir "$WORK/open"
chmod 0777 "$WORK/open"
rc=0
ip netns exec "$DP" "$TEPD" -l 0-1 --no-huge -m 512 --no-pci \
	--file-prefix "tep${TAG}dir" --vdev=net_null0 -- \
	-s "$WORK/open/tepd.sock" -f "$WORK/tepd.conf" >"$WORK/dir.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
	kill "$pid"; wait "$pid" || true
	fail "tepd started on a control socket in a 0777 directory"
else
	wait "$pid" || rc=$?
	want="tepd: control socket: unsafe control socket directory $WORK/open: mode 0777, owner uid 0: it must not be writable by group or others"
	if [ "$rc" = 1 ] && grep -qxF "$want" "$WORK/dir.log"; then
		ok "refused a 0777 socket directory: $(tail -n 1 "$WORK/dir.log")"
	else
		fail "0777 socket directory: rc $rc: $(tail -n 3 "$WORK/dir.log")"
	fi
fi
finish
