#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# Host tasks inside a VRF (tepd -N, tepctl vrf exec). VRFs red and blue
# have the same addresses (192.0.2.1 on their access ports) and the same
# remote prefix (198.18.0.0/24) behind a VXLAN tunnel each, to their own
# kernel VTEP. A ping, a TCP transfer and tagged datagrams started with
# `tepctl vrf exec red` reach red's site and never blue's, and the other
# way round; IPv6 in red checks ND across the host port. Then the rules
# borrowed from the l3mdev cgroup RFC: the VRF must exist, the default VRF
# needs no exec, a task's VRF cannot change, a VRF with tasks inside
# cannot be deleted, and the kernel side comes and goes with the VRF.
# The protocol: tepd takes the caller's VRF from its pid, not from the
# request, and passes the namespace as a descriptor; tepctl trusts one
# only from a server that is root or itself.
#
#   tenR --- [acc0 vrf red ] [host port: netns ...-red ]   +-- peerR vni 100
#                            tepd [und] ------------ br0 --+
#   tenB --- [acc1 vrf blue] [host port: netns ...-blue]   +-- peerB vni 200
set -euo pipefail
. "$(dirname "$0")/lib.sh"

TEPD_ARGS=-N vrf_pair_setup
ctl() { "$TEPCTL" -s "$WORK/tepd.sock" "$@"; }
vexec() { local v=$1; shift; "$TEPCTL" -s "$WORK/tepd.sock" vrf exec "$v" -- "$@"; }

# ---- the kernel side of each VRF ------------------------------------------
NSR=$(ctl -j vrf list | $PY -c 'import json,sys
print([v.get("netns","") for v in json.load(sys.stdin)["vrfs"] if v["name"]=="red"][0])')
NSB=$(ctl -j vrf list | $PY -c 'import json,sys
print([v.get("netns","") for v in json.load(sys.stdin)["vrfs"] if v["name"]=="blue"][0])')
if [ -e "$NSR" ] && [ -e "$NSB" ] && [ "$NSR" != "$NSB" ]; then
	ok "vrf list names the namespaces: $NSR $NSB"
else
	fail "vrf list: red '$NSR' blue '$NSB'"
fi
# Seen from inside: tepd's bind mount under /run/netns may be in its own
# mount namespace (here: ip netns exec), so `ip -n` cannot be relied on.
addrs=$(vexec red ip -br addr show dev vrf-red 2>&1 || true)
say "red's kernel side: $addrs"
if grep -q "192.0.2.1/32" <<<"$addrs" && grep -q "2001:db8:1::1/128" <<<"$addrs"; then
	ok "red's addresses are on its kernel side"
else
	fail "red's kernel side lacks its addresses: $addrs"
fi
vexec red ip route show default | grep -q "via 169.254.0.1 dev vrf-red" &&
	ok "default route via tepd" || fail "no default route in red"
ctl port list | grep -q "net_tap_vrf_red.*vrf red.*vrf-host" &&
	ok "port list shows red's host port" || fail "port list: $(ctl port list)"

# ---- traffic from tasks in the VRFs ----------------------------------------
if vexec red ping -c 3 -i 0.2 -W 2 198.18.0.2 >"$WORK/ping4" 2>&1; then
	ok "vrf exec red -- ping 198.18.0.2: $(grep -o '[0-9]* received' "$WORK/ping4")"
else
	fail "ping in red: $(tail -n 3 "$WORK/ping4")"
fi
# The host side is the box's own stack: tepd keeps the TTL both ways (a
# task's TTL 1 reaches the remote VTEP; its reply arrives with the 64 it
# left with)
if grep -q "ttl=64" "$WORK/ping4" &&
   vexec red ping -t 1 -c 2 -i 0.2 -W 2 198.18.0.2 >"$WORK/ping4t" 2>&1; then
	ok "TTL kept through tepd for the VRF's tasks (reply ttl=64, TTL 1 sent gets through)"
else
	fail "TTL: $(grep -o 'ttl=[0-9]*' "$WORK/ping4" | head -1), ttl 1: $(tail -n 2 "$WORK/ping4t")"
fi
if vexec red ping -6 -c 3 -i 0.2 -W 2 2001:db8:18::2 >"$WORK/ping6" 2>&1; then
	ok "vrf exec red -- ping -6 2001:db8:18::2: $(grep -o '[0-9]* received' "$WORK/ping6")"
else
	fail "ping6 in red: $(tail -n 3 "$WORK/ping6")"
fi
vexec blue ping -c 3 -i 0.2 -W 2 198.18.0.2 >"$WORK/pingb" 2>&1 &&
	ok "vrf exec blue -- ping 198.18.0.2" ||
	fail "ping in blue: $(tail -n 3 "$WORK/pingb")"

# TCP: a byte-checked transfer from a task in red to red's site.
ip netns exec "$PR" $PY "$HERE/xfer.py" tcp-server 7000 >"$WORK/tcp-srv" &
srv=$!
sleep 0.5
vexec red $PY "$HERE/xfer.py" tcp-client 198.18.0.2 7000 2000000 \
	>"$WORK/tcp-cli" 2>&1 || true
wait $srv || true
if [ -s "$WORK/tcp-srv" ] && [ "$(cat "$WORK/tcp-srv")" = "$(cat "$WORK/tcp-cli")" ]; then
	ok "TCP from red: $(cut -d' ' -f1 "$WORK/tcp-srv") bytes, sha256 matches"
else
	fail "TCP from red: server '$(cat "$WORK/tcp-srv")' client '$(cat "$WORK/tcp-cli")'"
fi

# Tags: each site hears only its own VRF.
ip netns exec "$PR" $PY "$HERE/xfer.py" tag-server 6000 4 >"$WORK/pr" &
p1=$!
ip netns exec "$PB" $PY "$HERE/xfer.py" tag-server 6000 4 >"$WORK/pb" &
p2=$!
sleep 0.5
vexec red $PY "$HERE/xfer.py" tag-client 198.18.0.2 6000 red 100 &
vexec blue $PY "$HERE/xfer.py" tag-client 198.18.0.2 6000 blue 100
wait $p1 $p2 || true
check_tags "$WORK/pr" red blue "site red (from vrf exec red)"
check_tags "$WORK/pb" blue red "site blue (from vrf exec blue)"

# A tenant host pinging the VRF's address is answered by the VRF's kernel
# side now (tepd hands it the VRF's own addresses).
ip netns exec "$TR" ip addr add 192.0.2.10/24 dev ten0
ip netns exec "$TR" ping -c 2 -i 0.2 -W 2 192.0.2.1 >/dev/null 2>&1 &&
	ok "tenant red pings 192.0.2.1 through the host port" ||
	fail "tenant red cannot ping 192.0.2.1"

# ---- the rules --------------------------------------------------------------
refused() {	# WHAT WANT-IN-MESSAGE COMMAND...
	local what=$1 want=$2 rc=0; shift 2
	"$@" >"$WORK/out" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ] && grep -q -- "$want" "$WORK/out"; then
		ok "refused: $what ($(head -n 1 "$WORK/out"))"
	else
		fail "$what: rc $rc: $(cat "$WORK/out")"
	fi
}
refused "unknown vrf" 'unknown vrf "nosuch"' vexec nosuch true
refused "default vrf" "needs no exec" vexec default true
refused "changing a task's VRF" "cannot change" \
	vexec red "$TEPCTL" -s "$WORK/tepd.sock" vrf exec blue -- true
vexec red "$TEPCTL" -s "$WORK/tepd.sock" vrf exec red -- true &&
	ok "vrf exec red from inside red is allowed" ||
	fail "vrf exec red from inside red"
refused "address on a host port" "host port" \
	ctl addr add 192.0.2.99/24 dev net_tap_vrf_red
refused "rebinding a host port" "host port" \
	ctl port bind net_tap_vrf_red vrf blue
refused "no command" "usage: vrf exec" "$TEPCTL" -s "$WORK/tepd.sock" vrf exec red --

# ---- what tepd is told and what it sends -------------------------------------
# tepd finds the caller's VRF from its pid (SO_PEERCRED), whatever the
# request says, and sends the namespace as a descriptor with the reply
# (SCM_RIGHTS), never as a number to open under /proc (a number can name
# another file by the time it is opened). Raw requests, not tepctl.
fdwire() { $PY "$HERE/ctl_fdwire.py" "$WORK/tepd.sock" "$@"; }
# wire_check WHAT FILE STATUS FDS-INO BODY-OR-"": the reply in FILE
wire_check() {
	if $PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
ino = [f["ino"] for f in d["fds"]]
want_ino = [int(sys.argv[3])] if sys.argv[3] else []
ok = d["status"] == int(sys.argv[2]) and ino == want_ino and sys.argv[4] in (d["body"] or "")
sys.exit(0 if ok else 1)' "$2" "$3" "$4" "$5"; then
		ok "$1: $(cat "$2")"
	else
		fail "$1: $(cat "$2")"
	fi
}
RED_INO=$(vexec red stat -L -c %i /proc/self/ns/net)
HOST_NS=$(stat -L -c %d:%i /proc/self/ns/net)
fdwire vrf exec red >"$WORK/w1"
wire_check "vrf exec red: red's namespace comes as a descriptor" \
	"$WORK/w1" 0 "$RED_INO" "$NSR"
if grep -q "\"body\": \"$NSR\\\\n\"" "$WORK/w1"; then
	ok "the reply's body is the namespace's name only, no descriptor number"
else
	fail "reply body: $(cat "$WORK/w1")"
fi
vexec red $PY "$HERE/ctl_fdwire.py" "$WORK/tepd.sock" vrf exec blue >"$WORK/w2"
wire_check "raw vrf exec blue from inside red is refused" \
	"$WORK/w2" 1 "" "is in vrf \"red\" already"
# the request of the old protocol, lying about the caller's namespace
vexec red $PY "$HERE/ctl_fdwire.py" "$WORK/tepd.sock" vrf exec blue netns "$HOST_NS" \
	>"$WORK/w3"
if $PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["status"] != 0 and not d["fds"] else 1)' "$WORK/w3"; then
	ok "a task in red claiming the host's namespace gets nothing: $(cat "$WORK/w3")"
else
	fail "a task in red claiming the host's namespace: $(cat "$WORK/w3")"
fi

# tepctl enters a namespace only from a server that is root or itself: a
# socket some other uid listens on (here uid 65534, handing out blue's
# peer namespace the way tepd used to, as a number, and as a descriptor)
# is not trusted, and the command does not run.
FAKE=$(mktemp -d /tmp/tepd-fake.XXXXXX)
chmod 0777 "$FAKE"
$PY "$HERE/ctl_fdwire.py" --fake-server "$FAKE/s.sock" "/run/netns/$PB" 65534 8 \
	>"$WORK/fake.out" 2>&1 &
fake=$!
for _ in $(seq 50); do [ -S "$FAKE/s.sock" ] && break; sleep 0.1; done
rc=0
"$TEPCTL" -s "$FAKE/s.sock" vrf exec red -- touch "$WORK/fake-ran" >"$WORK/out" 2>&1 || rc=$?
kill "$fake" 2>/dev/null || true
wait "$fake" 2>/dev/null || true
rm -rf "$FAKE"
if [ "$rc" -ne 0 ] && [ ! -e "$WORK/fake-ran" ] &&
   grep -q "runs as uid 65534, neither root nor you" "$WORK/out"; then
	ok "refused: a namespace from a uid-65534 server ($(head -n 1 "$WORK/out"))"
else
	fail "namespace from a uid-65534 server: rc $rc, ran: $([ -e "$WORK/fake-ran" ] && echo yes || echo no): $(cat "$WORK/out")"
fi

ctl vrf add green
NSG=/run/netns/$(basename "$NSR" | sed 's/-red$/-green/')
vexec green ip link show vrf-green >/dev/null 2>&1 &&
	ok "vrf add green made $NSG with vrf-green" || fail "no kernel side for green"
"$TEPCTL" -s "$WORK/tepd.sock" vrf exec green -- sleep 30 &
sleeper=$!	# tepctl becomes sleep: same pid
for _ in $(seq 50); do
	ctl vrf pids green | grep -q sleep && break
	sleep 0.1
done
ctl -j vrf pids green >"$WORK/pids"
if $PY -c 'import json,sys
p=json.load(open(sys.argv[1]))["pids"]
sys.exit(0 if len(p)==1 and p[0]["comm"]=="sleep" and p[0]["pid"]==int(sys.argv[2]) else 1)' \
	"$WORK/pids" "$sleeper"; then
	ok "vrf pids green: $(ctl vrf pids green)"
else
	fail "vrf pids green: $(cat "$WORK/pids") (sleeper $sleeper)"
fi
refused "deleting a VRF with tasks" "task(s) inside" ctl vrf del green
ctl vrf list | grep -q "^green.*netns" && vexec green true &&
	ok "green and its namespace are still there" || fail "green changed"
kill "$sleeper"; wait "$sleeper" 2>/dev/null || true
ctl vrf del green || true
if [ ! -e "$NSG" ] && ! ctl port list | grep -q net_tap_vrf_green &&
   ! ctl vrf list | grep -q "^green"; then
	ok "vrf del green removed its namespace and host port"
else
	fail "vrf del green: $(ls /run/netns) $(ctl port list)"
fi
# red still works after green came and went (port ids were reused), and
# after its host port is restarted (queues re-created inside the VRF's
# namespace) with another MTU.
ctl port set net_tap_vrf_red mtu 1300 && ctl port restart net_tap_vrf_red ||
	fail "restarting red's host port"
vexec red ip link show vrf-red | grep -q "mtu 1300" &&
	ok "host port MTU 1300 seen inside red" || fail "MTU not applied inside red"
vexec red ping -c 2 -i 0.2 -W 2 198.18.0.2 >/dev/null 2>&1 &&
	ok "red still reaches its site after green and a host port restart" ||
	fail "red broken after green / restart"

ctl stats vrf red >"$WORK/stats"
say "$(tr '\n' ' ' <"$WORK/stats" | cut -c1-300)"
finish
