#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# Every control command, through the real socket and tepctl: each one at
# least once as it should be used (the reply must be a JSON object with
# -j, and the change must show) and at least once wrong. A wrong command
# must exit non-zero, say on one stderr line what is wrong, print nothing
# on stdout and change nothing (vrf list, route show of every VRF, tunnel
# show, port list and neigh show are compared before and after), in text
# and in JSON mode. Then: stats watch timing, raw garbage and oversized
# requests on the socket, and configuration files with an error on line N.
#
#   [stub s0] --veth-- [dpacc: net_af_packet0, access, vrf red]
#   [stub s1] --veth-- [dpund: net_af_packet1, underlay]
#
# IPv6 is off in both namespaces so that no kernel chatter reaches tepd:
# the neighbour table changes only by command.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

P0=net_af_packet0
P1=net_af_packet1

DP=$(ns_add dp)
STUB=$(ns_add stub)
for ns in "$DP" "$STUB"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
done
veth "$STUB" s0 "$DP" dpacc
veth "$STUB" s1 "$DP" dpund

# The configuration file also exercises the tokenizer: comments, blank
# lines, quotes, tabs.
cat >"$WORK/tepd.conf" <<CONF
# tepd configuration for the command tests
vrf add red
port set $P0 role access
port bind $P0	vrf red
addr add 192.0.2.1/24 dev $P0

port set $P1 role underlay   # the uplink
port set $P1 mtu 1600
addr add 198.51.100.1/24 dev $P1
addr add 2001:db8:1::1/64 dev $P1
tunnel add "vx1" type vxlan local 198.51.100.1 remote 198.51.100.2 vni 42 vrf red inner-dmac 02:00:00:00:42:02
route add 198.18.0.0/24 vrf red tunnel vx1
CONF

tepd_start "$DP" "$WORK/tepd.sock" "$WORK/tepd.conf" \
	--vdev=net_af_packet0,iface=dpacc --vdev=net_af_packet1,iface=dpund
TEPD_PID=${TEPD_PIDS[-1]}
CTL="$TEPCTL -s $WORK/tepd.sock"

# ---- helpers ---------------------------------------------------------------

# The configuration state as tepctl -j shows it, into file $1.
snap() {
	local v
	{
		$CTL -j vrf list
		for v in $($CTL vrf list | awk '{ print $1 }'); do
			$CTL -j route show vrf "$v"
		done
		$CTL -j tunnel show
		$CTL -j port list
		$CTL -j neigh show
	} >"$1" 2>&1
}

# The commands of the table (from help), longest first, and which of them
# have been run right (GOOD) and wrong (BAD).
mapfile -t COMMANDS < <($CTL -j help | $PY -c 'import json,sys
c = [x["command"] for x in json.load(sys.stdin)["commands"]]
print("\n".join(sorted(c, key=lambda s: -len(s.split()))))')
declare -A GOOD=() BAD=()
cmd_of() {
	local c line="$*"
	for c in "${COMMANDS[@]}"; do
		if [ "$line" = "$c" ] || [ "${line#"$c "}" != "$line" ]; then
			echo "$c"
			return
		fi
	done
	echo "?"
}
shown() { printf '%q ' "$@" | cut -c1-110; }

STATE_OK=0	# 1 while $WORK/state is the current state
LAST_OK=0	# the last good command succeeded; its reply is $WORK/reply

# good CMD...: with -j, CMD succeeds, writes nothing on stderr, and its
# reply is one JSON object.
good() {
	local rc=0
	GOOD[$(cmd_of "$@")]=1
	STATE_OK=0
	LAST_OK=0
	$CTL -j "$@" >"$WORK/reply" 2>"$WORK/err" || rc=$?
	if [ "$rc" != 0 ]; then
		fail "$(shown "$@")-> exit $rc: $(head -c 300 "$WORK/err")"
	elif [ -s "$WORK/err" ]; then
		fail "$(shown "$@")-> stderr: $(head -c 300 "$WORK/err")"
	elif ! $PY -c 'import json,sys
assert isinstance(json.load(open(sys.argv[1])), dict)' "$WORK/reply" 2>/dev/null; then
		fail "$(shown "$@")-> reply is not one JSON object: $(head -c 300 "$WORK/reply")"
	else
		LAST_OK=1
		ok "$(shown "$@")"
	fi
	return 0
}

# jcheck DESC PYEXPR: PYEXPR holds for d, the last good reply.
jcheck() {
	if [ "$LAST_OK" != 1 ]; then
		fail "$1 (not checked: the command failed)"
	elif $PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$WORK/reply" "$2" 2>"$WORK/jerr"; then
		ok "  $1"
	else
		fail "  $1: got $(head -c 400 "$WORK/reply") $(tail -n 1 "$WORK/jerr")"
	fi
}

# text CMD...: in text mode CMD succeeds and prints something.
text() {
	local rc=0
	$CTL "$@" >"$WORK/text" 2>"$WORK/err" || rc=$?
	if [ "$rc" = 0 ] && [ -s "$WORK/text" ] && [ ! -s "$WORK/err" ]; then
		ok "text: $(shown "$@")"
	else
		fail "text: $(shown "$@")-> exit $rc: $(head -c 200 "$WORK/err")"
	fi
}

# refused EXPECT [rc=N] CMD...: CMD exits N (default 1), prints nothing on
# stdout and one line "tepctl: ..." containing EXPECT on stderr, in valid
# UTF-8, and the state does not change; in text and in JSON mode.
refused() {
	local expect=$1 want=1 mode rc why=""
	shift
	case $1 in rc=*) want=${1#rc=}; shift ;; esac
	BAD[$(cmd_of "$@")]=1
	if [ "$STATE_OK" != 1 ]; then
		snap "$WORK/state"
		STATE_OK=1
	fi
	for mode in "" -j; do
		rc=0
		# shellcheck disable=SC2086
		$CTL $mode "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
		snap "$WORK/state.after"
		[ "$rc" = "$want" ] || why+=" ${mode:-text}: exit $rc, want $want;"
		[ -s "$WORK/out" ] && why+=" ${mode:-text}: stdout not empty;"
		[ "$(wc -l <"$WORK/err")" = 1 ] && [ "$(head -c 8 "$WORK/err")" = "tepctl: " ] ||
			why+=" ${mode:-text}: stderr is not one 'tepctl: ' line;"
		grep -aqF -- "$expect" "$WORK/err" ||
			why+=" ${mode:-text}: message does not name '$expect';"
		iconv -f UTF-8 -t UTF-8 "$WORK/err" >/dev/null 2>&1 ||
			why+=" ${mode:-text}: message not UTF-8;"
		if ! cmp -s "$WORK/state" "$WORK/state.after"; then
			# (diff exits 1 here: with set -e and pipefail that
			# would end the script without saying why)
			why+=" ${mode:-text}: state changed: $(diff "$WORK/state" "$WORK/state.after" | head -c 300 | tr '\n' ' '; :);"
			STATE_OK=0
			break
		fi
	done
	if [ -z "$why" ]; then
		ok "refused: $(shown "$@")-> $(head -c 160 "$WORK/err")"
	else
		fail "refused: $(shown "$@")-> $(head -c 160 "$WORK/err"):$why"
	fi
}

snap "$WORK/state.start"
ok "tepd started from a configuration file with comments, blank lines, quotes and tabs"

# ---- help ------------------------------------------------------------------
good help
jcheck "help lists ${#COMMANDS[@]} commands, stats watch as a stream" \
	'len(d["commands"]) > 20 and [c["stream"] for c in d["commands"] if c["command"] == "stats watch"] == [True]'
good help route add
jcheck "help route add: just that command, with its usage" \
	'[c["command"] for c in d["commands"]] == ["route add"] and "PREFIX" in d["commands"][0]["usage"]'
refused 'no command starts with "frob"' help frob
refused 'unknown command "frob"' frob
refused 'unknown command "route frob"' route frob
refused 'incomplete command "route"' route
refused 'unknown command ""' ""

# ---- ports -----------------------------------------------------------------
good port list
jcheck "port list: both ports, $P0 access in red with 192.0.2.1/24" \
	'[p["name"] for p in d["ports"]] == ["'$P0'", "'$P1'"] and d["ports"][0]["role"] == "access" and d["ports"][0]["vrf"] == "red" and d["ports"][0]["addresses"] == ["192.0.2.1/24"]'
refused 'port list: too many arguments' port list extra
good port show $P1
jcheck "port show: the port and its offloads" \
	'd["ports"][0]["name"] == "'$P1'" and d["ports"][0]["mtu"] == 1600 and d["offloads"][0]["port"] == "'$P1'"'
refused 'unknown port "nosuch"' port show nosuch
refused 'port show: missing arguments' port show

good port set $P0 mtu 1400
good port show $P0
jcheck "mtu now 1400" 'd["ports"][0]["mtu"] == 1400'
good port set $P0 mtu 1500
good port set $P0 down
good port show $P0
jcheck "port down" 'd["ports"][0]["state"] == "down"'
good port set $P0 up
good port set $P0 role none
good port show $P0
jcheck "role none" 'd["ports"][0]["role"] == "none"'
good port set $P0 role access
good port set $P1 offload udp_cksum off
good port set $P1 offload udp_cksum on
refused 'mtu "20"' port set $P0 mtu 20
refused 'mtu "65536"' port set $P0 mtu 65536
refused 'role "bogus"' port set $P0 role bogus
refused 'vrf default' port set $P0 role underlay
refused 'unknown tx offload "bogus"' port set $P0 offload bogus on
refused 'on or off' port set $P0 offload udp_cksum maybe
refused 'port set net_af_packet0: expected' port set $P0 frob
refused 'unknown port "nosuch"' port set nosuch up

good port restart $P1
good port show $P1
jcheck "after restart: addresses and mtu kept" \
	'd["ports"][0]["addresses"] == ["198.51.100.1/24", "2001:db8:1::1/64"] and d["ports"][0]["mtu"] == 1600 and d["ports"][0]["state"] == "up"'
refused 'unknown port "nosuch"' port restart nosuch

good vrf add blue table 77
good port bind $P0 vrf blue
good route show vrf blue
jcheck "bound to blue: its address routes moved along" \
	'sorted(r["prefix"] for r in d["routes"]) == ["192.0.2.0/24", "192.0.2.1/32"]'
good port bind $P0 vrf red
good route show vrf blue
jcheck "back in red: blue is empty" 'd["routes"] == []'
refused 'unknown vrf "nosuch"' port bind $P0 vrf nosuch
refused 'underlay port' port bind $P1 vrf red
refused 'port bind net_af_packet0 vrf NAME' port bind $P0 red x
refused 'unknown port "nosuch"' port bind nosuch vrf red

# ---- addresses -------------------------------------------------------------
good addr add 2001:db8:2::1/64 dev $P0
good route show vrf red
jcheck "address routes in red: local /128 and connected /64" \
	'{"2001:db8:2::1/128", "2001:db8:2::/64"} <= {r["prefix"] for r in d["routes"]}'
good addr add 198.51.100.77/32 dev $P1
good port show $P1
jcheck "a /32 address listed" '"198.51.100.77/32" in d["ports"][0]["addresses"]'
refused 'bad address "192.0.2.300/24"' addr add 192.0.2.300/24 dev $P0
refused 'bad address "192.0.2.1"' addr add 192.0.2.1 dev $P0
refused 'already has 192.0.2.1/24' addr add 192.0.2.1/24 dev $P0
refused 'dev PORT' addr add 192.0.2.5/24 via $P0
refused 'unknown port "nosuch"' addr add 192.0.2.5/24 dev nosuch
for i in 2 3 4 5 6; do good addr add 198.51.100.7$i/32 dev $P1; done
refused 'has 8 addresses already' addr add 198.51.100.99/32 dev $P1
for i in 2 3 4 5 6; do good addr del 198.51.100.7$i/32 dev $P1; done
good addr del 198.51.100.77/32 dev $P1
good addr del 2001:db8:2::1/64 dev $P0
good route show vrf red
jcheck "address routes gone" \
	'not {"2001:db8:2::1/128", "2001:db8:2::/64"} & {r["prefix"] for r in d["routes"]}'
refused 'no address 192.0.2.99/24' addr del 192.0.2.99/24 dev $P0
refused 'bad address "bogus"' addr del bogus dev $P0

# ---- neighbours ------------------------------------------------------------
good neigh add 198.51.100.9 lladdr 02:00:00:00:00:09 dev $P1
good neigh add 2001:db8:1::9 lladdr 02:00:00:00:00:0a dev $P1
good neigh show
jcheck "neigh show: both, permanent" \
	'sorted((n["address"], n["lladdr"].lower(), n["state"]) for n in d["neighbours"]) == [
	    ("198.51.100.9", "02:00:00:00:00:09", "permanent"),
	    ("2001:db8:1::9", "02:00:00:00:00:0a", "permanent")]'
refused '"zz:00:00:00:00:09"' neigh add 198.51.100.9 lladdr zz:00:00:00:00:09 dev $P1
refused 'bad address "198.51.100.999"' neigh add 198.51.100.999 lladdr 02:00:00:00:00:09 dev $P1
refused 'unknown port "nosuch"' neigh add 198.51.100.10 lladdr 02:00:00:00:00:09 dev nosuch
refused 'neigh show: too many arguments' neigh show extra
good neigh del 198.51.100.9 dev $P1
good neigh del 2001:db8:1::9 dev $P1
good neigh show
jcheck "neighbours gone" 'd["neighbours"] == []'
refused 'no neighbour 198.51.100.77' neigh del 198.51.100.77 dev $P1
refused 'unknown port "nosuch"' neigh del 198.51.100.9 dev nosuch

# ---- VRFs (blue exists: table 77) ------------------------------------------
good vrf list
jcheck "vrf list: default, red, blue with table 77" \
	'[(v["name"], v["table"]) for v in d["vrfs"]][2] == ("blue", 77) and [v["name"] for v in d["vrfs"]] == ["default", "red", "blue"]'
refused 'vrf "red" exists' vrf add red
refused 'ID 1-4294967295' vrf add green table 0
# vrf exec and vrf pids need tepd -N (host sides for VRFs); this tepd runs
# without, so here they can only be refused. test_vrf_exec.sh runs them
# right (and wrong again, with -N).
refused 'usage: vrf exec NAME -- COMMAND' rc=2 vrf exec red
refused 'start it with -N' vrf exec red -- true
refused 'unknown vrf "nosuch"' vrf exec nosuch -- true
refused 'tepd runs without -N' vrf pids red
refused 'unknown vrf "nosuch"' vrf pids nosuch
GOOD["vrf exec"]=test_vrf_exec.sh
GOOD["vrf pids"]=test_vrf_exec.sh
refused 'ID 1-4294967295' vrf add green table 4294967296
refused 'table 77' vrf add green table 77
refused 'vrf name must be 1-31 characters' vrf add abcdefghijklmnopqrstuvwxyz0123456789
refused 'vrf name must be 1-31 characters' vrf add ""
refused 'control character 0x01 in word 3' vrf add $'a\x01b'
refused 'vrf list: too many arguments' vrf list x
refused 'unknown vrf "nosuch"' vrf del nosuch
refused 'vrf "red" has 1 port(s) and 1 tunnel(s) bound' vrf del red
refused 'the default vrf cannot be deleted' vrf del default

# ---- tunnels ---------------------------------------------------------------
good tunnel add vx6 type vxlan local 2001:db8:1::1 remote 2001:db8:1::2 \
	vni 16777215 vrf blue csum full ttl 32 tos inherit srcport 50000-50100 \
	inner-dmac 02:00:00:00:66:02 inner-smac 02:00:00:00:66:01
good tunnel add gn1 type geneve local 198.51.100.1 remote 198.51.100.3 vni 0 \
	dstport 6081 csum offload tos 184 df off inner-dmac 02:00:00:00:03:03
good tunnel add fou1 type fou local 198.51.100.1 remote 198.51.100.4 \
	dstport 5555 inner ipv6 csum off
good tunnel add gue1 type gue local 198.51.100.1 remote 198.51.100.5 \
	dstport 6080 rco on
good tunnel add gre1 type gre local 198.51.100.1 remote 198.51.100.6 \
	key 4294967295 gre-csum on csum full inner-dmac 02:00:00:00:06:06
good tunnel show vx6
jcheck "vx6: IPv6 outer, max VNI, options as given" \
	'(lambda t: t["name"] == "vx6" and t["remote"] == "2001:db8:1::2" and t["vni"] == 16777215 and t["vrf"] == "blue" and t["csum"] == "full" and t["ttl"] == 32 and (t["srcport_lo"], t["srcport_hi"]) == (50000, 50100) and t["inner_dmac"].lower() == "02:00:00:00:66:02" and t["inner_smac"].lower() == "02:00:00:00:66:01")(d["tunnels"][0])'
good tunnel show
jcheck "tunnel show: all six, csum offload done by lco, gre key" \
	'(lambda t: sorted(t) == ["fou1", "gn1", "gre1", "gue1", "vx1", "vx6"] and t["gn1"]["csum"] == "offload" and t["gn1"].get("csum_done_by") == "lco" and t["gre1"]["key"] == 4294967295 and t["fou1"]["dstport"] == 5555)({t["name"]: t for t in d["tunnels"]})'
T=(type vxlan local 198.51.100.1 remote 198.51.100.9 inner-dmac 02:00:00:00:09:09)
refused 'tunnel "vx1" exists' tunnel add vx1 "${T[@]}" vni 43
refused 'tunnel "vx1" already has this type, vni/key and remote' \
	tunnel add vx2 type vxlan local 198.51.100.1 remote 198.51.100.2 vni 42 inner-dmac 02:00:00:00:42:02
refused 'vni "16777216" out of range' tunnel add vx2 "${T[@]}" vni 16777216
refused 'vni "-1" out of range' tunnel add vx2 "${T[@]}" vni -1
refused 'csum off is not allowed over an IPv6 underlay' \
	tunnel add vx2 type vxlan local 2001:db8:1::1 remote 2001:db8:1::3 vni 7 csum off
refused 'csum off is not allowed over an IPv6 underlay' \
	tunnel add gn2 type geneve local 2001:db8:1::1 remote 2001:db8:1::3 vni 7 csum off
refused 'unknown vrf "nosuch"' tunnel add vx2 "${T[@]}" vni 7 vrf nosuch
refused 'local and remote must be the same family' \
	tunnel add vx2 type vxlan local 198.51.100.1 remote 2001:db8:1::2 vni 7
refused 'remote "198.51.100.300": not an IP address' \
	tunnel add vx2 type vxlan local 198.51.100.1 remote 198.51.100.300 vni 7
refused 'type "bogus"' tunnel add vx2 type bogus local 198.51.100.1 remote 198.51.100.9
refused 'unknown tunnel option "color"' tunnel add vx2 "${T[@]}" vni 7 color blue
refused 'vni needs a value' tunnel add vx2 "${T[@]}" vni
refused 'vxlan takes vni, not key' tunnel add vx2 "${T[@]}" key 7
refused 'udp port 4789 already carries vxlan' \
	tunnel add gn2 type geneve local 198.51.100.1 remote 198.51.100.9 vni 7 dstport 4789 inner-dmac 02:00:00:00:09:09
refused 'inner-dmac MAC (the remote router' \
	tunnel add vx2 type vxlan local 198.51.100.1 remote 198.51.100.9 vni 7
refused 'type, local and remote are required' \
	tunnel add vx2 type vxlan local 198.51.100.1 vni 7 ttl 9
refused 'ttl "0"' tunnel add vx2 "${T[@]}" vni 7 ttl 0
refused 'ttl "256"' tunnel add vx2 "${T[@]}" vni 7 ttl 256
refused 'tos "256"' tunnel add vx2 "${T[@]}" vni 7 tos 256
refused 'srcport "2000-1000"' tunnel add vx2 "${T[@]}" vni 7 srcport 2000-1000
refused 'dstport "0"' tunnel add vx2 "${T[@]}" vni 7 dstport 0
refused 'inner-dmac "zz"' tunnel add vx2 "${T[@]}" vni 7 inner-dmac zz
refused 'inner-smac "01:00:5e:00:00:01": not a unicast MAC' tunnel add vx2 "${T[@]}" vni 7 inner-smac 01:00:5e:00:00:01
refused 'df: on or off' tunnel add vx2 "${T[@]}" vni 7 df maybe
refused 'inner: ipv4 or ipv6' \
	tunnel add fou2 type fou local 198.51.100.1 remote 198.51.100.9 dstport 5555 inner ipv5
refused 'rco needs an outer checksum' \
	tunnel add gue2 type gue local 198.51.100.1 remote 198.51.100.9 dstport 6080 rco on csum off
refused 'gre checksum can be lco or full, not off' \
	tunnel add gre2 type gre local 198.51.100.1 remote 198.51.100.9 gre-csum on csum off
refused 'tunnel name longer than 31' \
	tunnel add abcdefghijklmnopqrstuvwxyz012345 "${T[@]}" vni 7
# options a type does not implement are refused, not accepted and ignored
# (gue1 above took rco on: GUE implements it; so does VXLAN, as Linux's
# remcsumtx/remcsumrx, and it too needs an outer checksum)
U=(local 198.51.100.1 remote 198.51.100.9)
good tunnel add vxr "${T[@]}" vni 7 rco on
good tunnel show vxr
jcheck "vxr: vxlan with rco on" '(lambda t: t["name"] == "vxr" and t["type"] == "vxlan" and t["rco"] == "on")(d["tunnels"][0])'
good tunnel del vxr
refused 'rco needs an outer checksum' \
	tunnel add vx2 "${T[@]}" vni 7 rco on csum off
refused 'option rco is not implemented by type geneve (only by vxlan, gue)' \
	tunnel add gn2 type geneve "${U[@]}" vni 7 inner-dmac 02:00:00:00:09:09 rco on
refused 'option rco is not implemented by type fou (only by vxlan, gue)' \
	tunnel add fou2 type fou "${U[@]}" dstport 5555 rco on
refused 'option rco is not implemented by type gre (only by vxlan, gue)' \
	tunnel add gre2 type gre "${U[@]}" rco off
refused 'option key is not implemented by type fou (only by gre)' \
	tunnel add fou2 type fou "${U[@]}" dstport 5555 key 7
refused 'option vni is not implemented by type gre (only by vxlan, geneve)' \
	tunnel add gre2 type gre "${U[@]}" vni 7 inner-dmac 02:00:00:00:09:09
refused 'option gre-csum is not implemented by type gue (only by gre)' \
	tunnel add gue2 type gue "${U[@]}" dstport 6080 gre-csum on
refused 'option inner is not implemented by type vxlan (only by fou, gue)' \
	tunnel add vx2 "${T[@]}" vni 7 inner ipv6
refused 'option inner-dmac is not implemented by type fou (only by vxlan, geneve, gre)' \
	tunnel add fou2 type fou "${U[@]}" dstport 5555 inner-dmac 02:00:00:00:09:09
refused 'option inner-smac is not implemented by type gue (only by vxlan, geneve, gre)' \
	tunnel add gue2 type gue "${U[@]}" dstport 6080 inner-smac 02:00:00:00:09:09
refused 'option dstport is not implemented by type gre (only by vxlan, geneve, fou, gue)' \
	tunnel add gre2 type gre "${U[@]}" dstport 5000 inner-dmac 02:00:00:00:09:09
refused 'option srcport is not implemented by type gre (only by vxlan, geneve, fou, gue)' \
	tunnel add gre2 type gre "${U[@]}" srcport 1000-2000 inner-dmac 02:00:00:00:09:09
refused 'tunnel add: missing arguments' tunnel add vx2 type vxlan
refused 'no tunnel "nosuch"' tunnel show nosuch
refused 'tunnel show: too many arguments' tunnel show vx1 vx6

# ---- routes ----------------------------------------------------------------
# PREFIX [vrf NAME]|NEXT HOP; deleted again below (those that were added)
ROUTES=("198.19.0.0/24 vrf blue|tunnel vx6"
	"2001:db8:ffff::/48 vrf blue|blackhole"
	"0.0.0.0/0 vrf blue|tunnel gn1"
	"::/0 vrf blue|blackhole"
	"198.19.1.0/24 vrf red|via 192.0.2.20"
	"198.19.2.0/24 vrf red|via 192.0.2.21 dev $P0"
	"198.19.3.0/24|tunnel vx1"
	"2001:db8:fffe::/48|via 2001:db8:1::2")
ADDED=()
for r in "${ROUTES[@]}"; do
	# shellcheck disable=SC2086
	good route add ${r%|*} ${r#*|}
	[ "$LAST_OK" = 1 ] && ADDED+=("${r%|*}")
done
good route show vrf blue
jcheck "route show vrf blue: all four, defaults included" \
	'{(r["prefix"], r.get("tunnel"), r.get("type")) for r in d["routes"]} == {("198.19.0.0/24", "vx6", None), ("2001:db8:ffff::/48", None, "blackhole"), ("0.0.0.0/0", "gn1", None), ("::/0", None, "blackhole")}'
good route show vrf red
jcheck "route show vrf red: gateways resolved to their port" \
	'{(r["prefix"], r.get("via"), r.get("dev")) for r in d["routes"]} >= {("198.19.1.0/24", "192.0.2.20", "'$P0'"), ("198.19.2.0/24", "192.0.2.21", "'$P0'")}'
good route show vrf blue 198.19.0.0/16
jcheck "route show vrf blue 198.19.0.0/16: only the routes within it" \
	'[r["prefix"] for r in d["routes"]] == ["198.19.0.0/24"]'
good route show vrf blue 2001:db8::/32
jcheck "route show vrf blue 2001:db8::/32: IPv6, the default route left out" \
	'[r["prefix"] for r in d["routes"]] == ["2001:db8:ffff::/48"]'
good route show vrf blue 0.0.0.0/0
jcheck "route show vrf blue 0.0.0.0/0: every IPv4 route, no IPv6 one" \
	'sorted(r["prefix"] for r in d["routes"]) == ["0.0.0.0/0", "198.19.0.0/24"]'
good route show
jcheck "route show (default): tunnel route and IPv6 gateway" \
	'{(r["prefix"], r.get("tunnel") or r.get("via")) for r in d["routes"]} >= {("198.19.3.0/24", "vx1"), ("2001:db8:fffe::/48", "2001:db8:1::2")}'
good vrf list
jcheck "vrf list counts blue's routes: 2 IPv4, 2 IPv6" \
	'[(v["routes4"], v["routes6"]) for v in d["vrfs"] if v["name"] == "blue"] == [(2, 2)]'
good route get 198.19.0.7 vrf blue
jcheck "route get 198.19.0.7 vrf blue: 198.19.0.0/24 tunnel vx6" \
	'"198.19.0.0/24" in json.dumps(d) and "vx6" in json.dumps(d)'
good route get 2001:db8:ffff::1 vrf blue
good route get 198.51.100.2
rc=0
$CTL route get 198.19.0.7 vrf blue >"$WORK/text" 2>&1 || rc=$?
if [ "$rc" = 0 ] && grep -qw -- '198.19.0.0/24' "$WORK/text"; then
	ok "text: route get 198.19.0.7 vrf blue -> $(cat "$WORK/text")"
else
	fail "text: route get 198.19.0.7 vrf blue: prefix not a separate word: $(cat "$WORK/text")"
fi
R=(198.19.9.0/24 vrf red)
refused 'bad prefix "198.18.0.0/33"' route add 198.18.0.0/33 vrf red blackhole
refused 'bad prefix "2001:db8::/129"' route add 2001:db8::/129 vrf red blackhole
refused 'bad prefix "198.19.256.0/24"' route add 198.19.256.0/24 vrf red blackhole
refused 'unknown vrf "nosuch"' route add 198.19.9.0/24 vrf nosuch blackhole
refused 'prefix has host bits set beyond /24' route add 198.19.9.1/24 vrf red blackhole
refused 'route exists in vrf "red"' route add 198.18.0.0/24 vrf red tunnel vx1
refused 'no tunnel "nosuch"' route add "${R[@]}" tunnel nosuch
refused 'route add PREFIX [vrf NAME] (via IP' route add "${R[@]}"
refused 'gateway 203.0.113.1 is not on a connected network' route add "${R[@]}" via 203.0.113.1
refused 'bad gateway "192.0.2.300"' route add "${R[@]}" via 192.0.2.300
refused 'unknown route option "color"' route add "${R[@]}" color blue
refused 'port net_af_packet0 is in vrf "red", not "default"' \
	route add 198.19.9.0/24 via 198.51.100.2 dev $P0
refused 'unknown port "nosuch"' route add 198.19.9.0/24 via 198.51.100.2 dev nosuch
refused 'no such route in vrf "red"' route del "${R[@]}"
refused 'bad prefix "198.19.0.0/33"' route del 198.19.0.0/33 vrf red
refused 'unknown vrf "nosuch"' route del 198.18.0.0/24 vrf nosuch
refused 'route del: too many arguments' route del 198.18.0.0/24 vrf red now
refused 'unknown vrf "nosuch"' route show vrf nosuch
refused 'bad prefix "red" (ADDR/LEN)' route show red
refused 'bad prefix "198.19.0.0" (ADDR/LEN)' route show vrf red 198.19.0.0
refused 'route show [vrf NAME] [PREFIX]' route show 198.19.0.0/16 red
refused 'bad address "198.19.0.999"' route get 198.19.0.999
refused 'unknown vrf "nosuch"' route get 198.19.0.1 vrf nosuch
refused '203.0.113.1: no route in vrf "red"' route get 203.0.113.1 vrf red
refused 'unknown vrf' route show vrf $'\xff\xfe'
# multipath, briefly (test_ecmp_ctl.sh has the rest); tunnels, not
# gateways: the failover would probe gateways and fill the neighbour table
good route add 198.19.8.0/24 vrf red nexthop tunnel vx1 nexthop tunnel gn1 weight 3
good route replace 198.19.8.0/24 vrf red nexthops vx1 fou1,2
good route groups
jcheck "route groups: the replaced route's group alone, weights 1 and 2" \
	'[[m["weight"] for m in g["nexthops"]] for g in d["groups"]] == [[1, 2]] and d["groups"][0]["routes"] == 1'
good route get 198.19.8.1 vrf red proto udp sport 1 dport 2
jcheck "route get over 2 paths: the chosen one and the hash" \
	'd["chosen"]["tunnel"] in ("vx1", "fou1") and isinstance(d["hash"], int)'
refused 'nexthop 2: weight 0 out of range (1 to 65535)' route replace \
	198.19.8.0/24 vrf red nexthop tunnel vx1 nexthop tunnel gn1 weight 0
refused 'no group 4095' route groups 4095
refused 'bad group id "x" (1 to 4095)' route groups x
good route del 198.19.8.0/24 vrf red
good route groups
jcheck "route groups: none left" 'd["count"] == 0 and d["groups"] == []'
refused 'tunnel "vx6" is used by 1 route(s)' tunnel del vx6
refused 'vrf "blue" has 0 port(s) and 1 tunnel(s) bound' vrf del blue
for r in "${ADDED[@]}"; do
	case $r in 0.0.0.0/0*|::/0*) continue ;; esac	# left to vrf del
	# shellcheck disable=SC2086
	good route del $r
done
good tunnel del vx6
# blue still has its default routes, one through gn1: deleting the VRF
# deletes them, so gn1 is free afterwards.
good vrf del blue
good tunnel del gn1
for t in fou1 gue1 gre1; do good tunnel del $t; done
refused 'no tunnel "vx6"' tunnel del vx6
refused 'tunnel del: missing arguments' tunnel del
good vrf list
jcheck "blue gone" '[v["name"] for v in d["vrfs"]] == ["default", "red"]'

# ---- stats and offloads ----------------------------------------------------
good stats
jcheck "stats: ports, vrfs, tunnels, mempool" \
	'all(k in d for k in ("ports", "vrfs", "tunnels", "mempool")) and d["mempool"]["size"] > 0'
good stats port $P0
jcheck "stats port: one port with counters" \
	'd["ports"][0]["port"] == "port '$P0':" or d["ports"][0]["port"] in ("'$P0'",)'
good stats vrf red
jcheck "stats vrf red" 'd["vrfs"][0]["vrf"] in ("red", "vrf red:") and "routed" in d["vrfs"][0]'
good stats tunnel vx1
jcheck "stats tunnel vx1" 'd["tunnels"][0]["tunnel"] in ("vx1", "tunnel vx1:") and "encap" in d["tunnels"][0]'
good stats clear
good stats
jcheck "after stats clear: port counters 0" \
	'all(p["rx"] == 0 and p["tx"] == 0 for p in d["ports"])'
good offload show
jcheck "offload show: one entry per port" \
	'[p["port"] for p in d["ports"]] == ["'$P0'", "'$P1'"] and all("inner_csum_mode" in p for p in d["ports"])'
refused 'unknown port "nosuch"' stats port nosuch
refused 'unknown vrf "nosuch"' stats vrf nosuch
refused 'no tunnel "nosuch"' stats tunnel nosuch
refused 'stats [port P | vrf NAME | tunnel NAME]' stats frob now
refused 'stats clear: too many arguments' stats clear now
refused 'offload show: too many arguments' offload show x
refused 'MS 10-86400000' stats watch interval 5
refused 'MS 10-86400000' stats watch interval abc
refused 'MS 10-86400000' stats watch every 100

# ---- fpm and evpn (tepd here has no -P: settings only) ---------------------
good fpm show
jcheck "fpm show without -P: off" 'd["enabled"] == False'
good fpm set quiet 1.5
good fpm set hold 30
good evpn local 198.51.100.1
good evpn vrf red vni 100
good evpn show
jcheck "evpn show: the L3VNI and the local address" \
	'd["l3vnis"] == [{"vrf": "red", "vni": 100}] and d["local"] == "198.51.100.1" and d["pending"] == 0'
good evpn vrf red vni 100 rmac 02:00:00:00:01:01
good evpn show
jcheck "evpn show: the VRF's router MAC" \
	'd["l3vnis"] == [{"vrf": "red", "vni": 100, "rmac": "02:00:00:00:01:01"}]'
refused 'rmac "01:00:5e:00:00:01": not a unicast MAC' evpn vrf red vni 100 rmac 01:00:5e:00:00:01
refused 'evpn vrf NAME vni N [rmac MAC]' evpn vrf red vni 100 mac 02:00:00:00:01:01
good evpn show
jcheck "evpn show: a refused rmac changed nothing" \
	'd["l3vnis"] == [{"vrf": "red", "vni": 100, "rmac": "02:00:00:00:01:01"}]'
good evpn vrf red vni 0
good evpn local auto
good fpm set quiet 2
good fpm set hold 60
refused 'bad time "abc"' fpm set quiet abc
refused 'quiet must be above 0' fpm set quiet 0
good fpm set stale 45
good fpm set stale 0
refused 'bad time "-1"' fpm set stale -1
refused 'fpm set quiet SECONDS | hold SECONDS | stale SECONDS | uids UID|USER[,...]|none|any | remote on|off | tunnels N | nexthops N' fpm set frob 1
good fpm set tunnels 100
good fpm set nexthops 1000
refused 'tunnels "1025": 0-1024 (how many tunnels FPM may make)' fpm set tunnels 1025
refused 'nexthops "x": 0-32767 (how many next hops FPM may make)' fpm set nexthops x
good fpm set tunnels 768
good fpm set nexthops 24575
refused 'fpm show: too many arguments' fpm show x
refused 'bad address "nope"' evpn local nope
refused 'evpn vrf NAME vni N' evpn vrf red vni 16777216
refused 'unknown vrf "nosuch"' evpn vrf nosuch vni 5
refused 'evpn show: too many arguments' evpn show x

# Text mode of every command that prints something.
for c in "port list" "port show $P0" "vrf list" "tunnel show" \
	 "tunnel show vx1" "route show" "route show vrf red" \
	 "route get 192.0.2.9 vrf red" "stats" "stats vrf red" "offload show" \
	 "fpm show" "evpn show" "help"; do
	# shellcheck disable=SC2086
	text $c
done

# ---- stats watch -----------------------------------------------------------
GOOD["stats watch"]=1
rc=0
timeout --preserve-status -s INT 1.2 $CTL -j stats watch interval 200 \
	>"$WORK/watch" 2>"$WORK/err" || rc=$?
n=$(wc -l <"$WORK/watch")
if [ "$rc" = 0 ] && [ "$n" -ge 5 ] && [ "$n" -le 8 ] && $PY -c 'import json,sys
for ln in open(sys.argv[1]):
    d = json.loads(ln)
    assert isinstance(d, dict) and "ports" in d and "mempool" in d' "$WORK/watch"; then
	ok "tepctl -j stats watch interval 200 for 1.2 s: $n JSON snapshots, exit 0 on ^C"
else
	fail "stats watch: exit $rc, $n items: $(head -c 200 "$WORK/err")"
fi
$PY "$HERE/ctlwire.py" "$WORK/tepd.sock" watch 200 1.2 >"$WORK/watch.json"
if $PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
g = d["gaps_ms"]
sys.exit(0 if 5 <= d["items"] <= 8 and not d["bad"] and
         150 <= sum(g) / len(g) <= 260 and max(g) < 500 else 1)' "$WORK/watch.json"; then
	ok "stream timing: $(cat "$WORK/watch.json")"
else
	fail "stream timing: $(cat "$WORK/watch.json")"
fi
rc=0
timeout --preserve-status -s INT 0.55 $CTL stats watch interval 100 \
	>"$WORK/watch" 2>&1 || rc=$?
n=$(grep -c 'mbufs in use' "$WORK/watch" || true)
[ "$rc" = 0 ] && [ "$n" -ge 3 ] && ok "text stats watch: $n snapshots" ||
	fail "text stats watch: exit $rc, $n snapshots"

# ---- limits, on the tepctl side ---------------------------------------------
long=$(printf 'x%.0s' $(seq 1025))
refused 'word too long' rc=2 vrf add "$long"
# shellcheck disable=SC2046
refused 'too many words' rc=2 route show $(seq 130)
mid=$(printf 'y%.0s' $(seq 1000))
refused 'message too long' rc=2 vrf add "$mid" "$mid" "$mid" "$mid" "$mid" \
	"$mid" "$mid" "$mid" "$mid"

# ---- raw bytes on the socket ------------------------------------------------
# raw DESC STATUS BODY CLOSED HEX|@FILE [--shut]: one reply (STATUS, BODY),
# the connection closed (or not) after it, another client served meanwhile,
# tepd alive, nothing changed.
raw() {
	local desc=$1 status=$2 body=$3 closed=$4
	shift 4
	[ "$STATE_OK" = 1 ] || { snap "$WORK/state"; STATE_OK=1; }
	$PY "$HERE/ctlwire.py" "$WORK/tepd.sock" raw "$@" >"$WORK/raw.json" || true
	snap "$WORK/state.after"
	if $PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
r = d["replies"]
sys.exit(0 if len(r) == 1 and r[0]["kind"] == 0 and
         r[0]["status"] == int(sys.argv[2]) and r[0]["body"] == sys.argv[3] and
         d["closed"] == (sys.argv[4] == "closed") and d["bystander"] else 1)' \
		"$WORK/raw.json" "$status" "$body" "$closed" &&
	   kill -0 "$TEPD_PID" && cmp -s "$WORK/state" "$WORK/state.after"; then
		ok "raw $desc: $body ($status), $closed; others served"
	else
		fail "raw $desc: $(cat "$WORK/raw.json")"
		STATE_OK=0
	fi
}
hex() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }
frame() {	# frame VERSION FLAGS HEXPAYLOAD -> hex of a whole frame
	local p="$1$2$3"
	printf '%08x%s' $((${#p} / 2)) "$p"
}
raw "HTTP request" 90 "bad request: message too long" closed \
	"$(hex $'GET / HTTP/1.0\r\nHost: x\r\n\r\n')"
$PY -c 'import random,sys; r = random.Random(7)
sys.stdout.buffer.write(bytes([0x9f]) + bytes(r.getrandbits(8) for _ in range(4095)))' \
	>"$WORK/garbage.bin"
raw "4 KiB of random bytes" 90 "bad request: message too long" closed "@$WORK/garbage.bin"
$PY -c 'import struct,sys; p = bytes([1, 0]) + b"z" * 100000 + b"\0"
sys.stdout.buffer.write(struct.pack("!I", len(p)) + p)' >"$WORK/big.bin"
raw "100 KB request" 90 "bad request: message too long" closed "@$WORK/big.bin"
$PY -c 'import struct,sys; p = bytes([1, 0]) + b"x" * 8191
sys.stdout.buffer.write(struct.pack("!I", len(p)) + p)' >"$WORK/big.bin"
raw "8193-byte request" 90 "bad request: message too long" closed "@$WORK/big.bin"
raw "1025-byte word" 90 "bad request: word too long" closed \
	"$(frame 01 00 "$(printf '61%.0s' $(seq 1025))00")"
raw "129 words" 7 "bad request: too many words" closed \
	"$(frame 01 00 "$(printf '6100%.0s' $(seq 129))")"
raw "version 2" 71 "bad request: unsupported protocol version" closed \
	"$(frame 02 00 "$(hex 'vrf')00$(hex 'list')00")"
raw "flag bit 1" 71 "bad request: unknown request flags" closed \
	"$(frame 01 02 "$(hex 'vrf')00$(hex 'list')00")"
raw "1-byte payload" 71 "bad request: message shorter than its header" closed 0000000101
raw "no final NUL" 71 "bad request: word not NUL-terminated" closed \
	"$(frame 01 00 "$(hex 'vrf')00$(hex 'list')")"
raw "half a request, then EOF" 71 "bad request: truncated message" closed \
	"000000400101$(hex 'vrf')00" --shut
raw "control byte in a word" 22 "control character 0x1b in word 3" open \
	"$(frame 01 00 "$(hex 'vrf')00$(hex 'add')00$(hex $'r\x1bd')00")"
raw "no words" 22 "empty command; try help" open "$(frame 01 01 '')"
if kill -0 "$TEPD_PID" && $CTL port list >/dev/null; then
	ok "tepd alive and serving after the garbage"
else
	fail "tepd died"
fi

# ---- tepctl -b: a file of commands on one connection, pipelined ----------
# Every line runs; failures are reported as FILE:LINE and make exit 1;
# replies come back in order. The batch leaves the state as it found it.
cat >"$WORK/batch.cmds" <<'B'
vrf add b1 table 991
vrf add b1
# a comment, then a blank line

bogus words
vrf list
vrf del b1
B
rc=0
$CTL -b "$WORK/batch.cmds" >"$WORK/batch.out" 2>"$WORK/batch.err" || rc=$?
if [ "$rc" = 1 ] &&
   grep -qxF "tepctl: $WORK/batch.cmds:2: vrf \"b1\" exists" "$WORK/batch.err" &&
   grep -qF "tepctl: $WORK/batch.cmds:5: unknown command" "$WORK/batch.err" &&
   grep -qxF "tepctl: $WORK/batch.cmds: 2 of 5 commands failed" "$WORK/batch.err" &&
   grep -q "^b1 table 991" "$WORK/batch.out" && ! $CTL vrf list | grep -q "^b1"; then
	ok "tepctl -b: 5 commands, 2 failures named by line, vrf list output in order"
else
	fail "tepctl -b: rc $rc, stderr: $(cat "$WORK/batch.err"), stdout: $(head -c 300 "$WORK/batch.out")"
fi
# Many commands in flight: 3000 routes added and deleted through one
# connection, all accepted.
for i in $(seq 0 2999); do
	echo "route add 10.$((i / 256)).$((i % 256)).0/24 vrf red blackhole"
done >"$WORK/many.cmds"
sed 's/^route add \([^ ]*\) vrf red blackhole/route del \1 vrf red/' \
	"$WORK/many.cmds" >>"$WORK/many.cmds.del"
if $CTL -b "$WORK/many.cmds" >/dev/null 2>"$WORK/many.err" &&
   [ "$($CTL -j vrf list | $PY -c 'import json,sys
print([v["routes4"] for v in json.load(sys.stdin)["vrfs"] if v["name"]=="red"][0])')" -ge 3000 ] &&
   $CTL -b "$WORK/many.cmds.del" >/dev/null 2>>"$WORK/many.err"; then
	ok "tepctl -b: 3000 route adds then 3000 deletes, pipelined, none refused"
else
	fail "tepctl -b many: $(head -c 300 "$WORK/many.err")"
fi

# ---- every command tried both ways ---------------------------------------
for c in "${COMMANDS[@]}"; do
	[ -n "${GOOD[$c]:-}" ] || fail "command \"$c\" never run successfully"
	[ -n "${BAD[$c]:-}" ] || fail "command \"$c\" never run wrong"
done
ok "${#COMMANDS[@]} commands, each run right and wrong"

snap "$WORK/state.end"
if cmp -s "$WORK/state.start" "$WORK/state.end"; then
	ok "everything undone: the state is the one the config file made"
else
	fail "state differs from the start: $(diff "$WORK/state.start" "$WORK/state.end" | head -c 600)"
fi

# ---- configuration files with an error on line N ---------------------------
# badconf LINE MESSAGE: tepd refuses to start with "FILE:LINE: MESSAGE".
badconf() {
	local line=$1 msg=$2 conf="$WORK/bad$BADN.conf" rc=0
	BADN=$((BADN + 1))
	cat >"$conf"
	timeout 60 "$TEPD" -l 0-1 --no-huge -m 512 --no-pci \
		--file-prefix "tep$TAG$RANDOM" --vdev=net_null0 -- \
		-s "$WORK/bad.sock" -f "$conf" >"$WORK/bad.out" 2>"$WORK/bad.err" || rc=$?
	if [ "$rc" != 0 ] && [ "$rc" != 124 ] &&
	   grep -qxF "tepd: $conf:$line: $msg" "$WORK/bad.err" &&
	   ! grep -q running "$WORK/bad.out" && [ ! -e "$WORK/bad.sock" ]; then
		ok "config error on line $line: exit $rc, $(grep -F "$conf" "$WORK/bad.err")"
	else
		fail "config error on line $line ($msg): exit $rc: $(grep -v '^EAL\|^TELEMETRY' "$WORK/bad.err" | head -c 300)"
	fi
}
BADN=1
badconf 4 'bad prefix "198.18.0.0/33"' <<'CONF'
# line 1: a comment, then a blank line

vrf add red
route add 198.18.0.0/33 vrf red blackhole
vrf add blue
CONF
badconf 2 'unknown vrf "blue"' <<'CONF'
vrf add red
route add 198.19.0.0/24 vrf blue blackhole
CONF
badconf 3 'unterminated quote at column 9' <<'CONF'
vrf add red

vrf add "blue
CONF
badconf 1 'control character 0x1b at column 9' <<<$'vrf add \x1bred'
badconf 1 'unknown escape "\q" at column 11' <<<'vrf add "a\qb"'
badconf 1 'stats watch needs a control socket client' <<<'stats watch interval 100'
badconf 1 'csum off is not allowed over an IPv6 underlay (RFC 6935: IPv6 UDP needs a checksum)' \
	<<<'tunnel add t6 type vxlan local 2001:db8:1::1 remote 2001:db8:1::2 vni 5 csum off'
badconf 2 'vni "16777216" out of range 0-16777215' <<'CONF'
vrf add red
tunnel add t4 type vxlan local 198.51.100.1 remote 198.51.100.2 vni 16777216
CONF
badconf 3 'option rco is not implemented by type geneve (only by vxlan, gue)' <<'CONF'
vrf add red
# rco is GUE's and VXLAN's: on a GENEVE tunnel it would do nothing
tunnel add t4 type geneve local 198.51.100.1 remote 198.51.100.2 vni 5 inner-dmac 02:00:00:00:00:05 rco on
CONF
badconf 2 'line too long (at most 8192 bytes)' <<CONF
vrf add red
vrf add $(printf 'x%.0s' $(seq 9000))
CONF
badconf 3 'unknown command "frob"; try help' \
	< <(printf 'vrf add red\r\nroute add 198.19.0.0/24 vrf red blackhole\r\nfrob\r\n')
rc=0
timeout 60 "$TEPD" -l 0-1 --no-huge -m 512 --no-pci --file-prefix "tep$TAG$RANDOM" \
	--vdev=net_null0 -- -s "$WORK/bad.sock" -f "$WORK/missing.conf" \
	>/dev/null 2>"$WORK/bad.err" || rc=$?
if [ "$rc" != 0 ] && grep -qxF "tepd: $WORK/missing.conf: No such file or directory" "$WORK/bad.err"; then
	ok "missing config file: exit $rc, $(grep -F missing.conf "$WORK/bad.err")"
else
	fail "missing config file: exit $rc: $(grep -v '^EAL\|^TELEMETRY' "$WORK/bad.err")"
fi

kill -0 "$TEPD_PID" && ok "the running tepd was not disturbed" || fail "tepd died"
finish
