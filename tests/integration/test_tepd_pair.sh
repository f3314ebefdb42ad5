#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# Two tepd instances talk to each other over a tunnel the kernel here does
# not have (GENEVE, FOU, GUE) or over GRE with key and checksum: ping, a
# TCP transfer each way and UDP each way, bytes checked. Every frame on the
# underlay is captured and decoded independently (check_underlay.py,
# scapy): outer IPv4 header, outer UDP or GRE checksum, tunnel header
# fields, inner IPv4 header and inner TCP/UDP/ICMP checksums. The checker
# itself is shown to catch a one-byte corruption first. tshark, when
# installed, checks the checksums a second time. tepd's counters must
# agree with the capture, frame for frame.
#
#   test_tepd_pair.sh TYPE 4|6 [jumbo]  (tunnel type, underlay family)
#   jumbo: tenants at MTU 9000 over a 9200-byte underlay (af_packet with
#   framesz 16384), 4 MB each way, and the inner TCP segments on the wire
#   must be about 8948 bytes.
#   TYPE: geneve | fou | gue | gre   (gre: key 7, checksum on)
#         gue-rco (GUE with remote checksum offload)
#         gre-plain (GRE without key or checksum)
#
#   tenA 192.0.2.10 --veth-- [tepd A, vrf red]                [tepd B, vrf red] --veth-- tenB 203.0.113.10
#                            [underlay .1] ==unda--undb== [underlay .2]
#                                            ^       ^ capture, received frames
#
# The capture: DPDK's af_packet PMD sends with PACKET_QDISC_BYPASS (its
# default), which skips the kernel's packet taps, so a sniffer on unda sees
# only what B sent, never what A sent. Each end's kernel interface is
# therefore captured for what it received (dpA: B->A, dpB: A->B), and the
# two are merged: exactly the frames each tepd got from the wire.
#
# Both tepd run with lib.sh's -l 0-1: each busy-polls a worker on core 1
# (SPLIT_CORES=1 moves B's worker to core 0 with --main-lcore 1). On two
# cores that is still fast enough: 1 MB of TCP takes 0.2-0.8 s; most of
# the test's 15-30 s goes to decoding the capture in Python.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

TYPE=${1:-geneve}
FAM=${2:-4}
JUMBO=${3:-}
if [ "$JUMBO" = jumbo ]; then
	T_MTU=9000 U_MTU=9200 AFP=",framesz=16384,blocksz=16384,framecnt=256"
	TCP_BYTES=4000000 UDP_SIZE=8000
else
	T_MTU="" U_MTU=1600 AFP="" TCP_BYTES=1000000 UDP_SIZE=1200
fi
CHECKER="$HERE/check_underlay.py"

# The peer's overlay MAC for an Ethernet tunnel: tunnel t1 is id 0 on both
# sides, 02:74:65:70:00:00 (tepd B accepts any inner destination anyway).
PEER_MAC=02:74:65:70:00:00
case $TYPE in
geneve)	TT=geneve; TOPT="vni 7 inner-dmac $PEER_MAC"; CHK="--vni 7" ;;
fou)	TT=fou; TOPT=""; CHK="" ;;
gue)	TT=gue; TOPT=""; CHK="--rco off" ;;
gue-rco) TT=gue; TOPT="rco on"; CHK="--rco on" ;;	# see step 6
gre)	TT=gre; TOPT="key 7 gre-csum on inner-dmac $PEER_MAC"
	CHK="--vni 7 --gre-csum on" ;;
gre-plain) TT=gre; TOPT="inner-dmac $PEER_MAC"; CHK="--gre-csum off" ;;
*)	echo "usage: $0 geneve|fou|gue|gue-rco|gre|gre-plain 4|6"; exit 2 ;;
esac

if [ "$FAM" = 4 ]; then
	U_A=198.51.100.1 U_B=198.51.100.2 U_LEN=24
else
	U_A=2001:db8:1::1 U_B=2001:db8:1::2 U_LEN=64
fi

TENA=$(ns_add tenA)
DPA=$(ns_add dpA)
DPB=$(ns_add dpB)
TENB=$(ns_add tenB)

veth "$TENA" tena0 "$DPA" acca $T_MTU
veth "$TENB" tenb0 "$DPB" accb $T_MTU
veth "$DPA" unda "$DPB" undb $U_MTU
ip -n "$TENA" addr add 192.0.2.10/24 dev tena0
ip -n "$TENA" route add default via 192.0.2.1
ip -n "$TENB" addr add 203.0.113.10/24 dev tenb0
ip -n "$TENB" route add default via 203.0.113.1
# The underlay carries only what the two tepd send: no kernel IPv6 chatter
# (router solicitations, MLD) and no GRO merging frames before capture.
for x in "$DPA unda" "$DPB undb"; do
	set -- $x
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1"
	ip netns exec "$1" ethtool -K "$2" gro off >/dev/null 2>&1 || true
done

conf() {	# conf LOCAL REMOTE TENANT_ADDR REMOTE_NET
	cat <<CONF
vrf add red
port set net_af_packet0 role access
port bind net_af_packet0 vrf red
addr add $3 dev net_af_packet0
${T_MTU:+port set net_af_packet0 mtu $T_MTU}
port set net_af_packet1 role underlay
port set net_af_packet1 mtu $U_MTU
addr add $1/$U_LEN dev net_af_packet1
tunnel add t1 type $TT local $1 remote $2 $TOPT vrf red
route add $4 vrf red tunnel t1
CONF
}
conf "$U_A" "$U_B" 192.0.2.1/24 203.0.113.0/24 >"$WORK/a.conf"
conf "$U_B" "$U_A" 203.0.113.1/24 192.0.2.0/24 >"$WORK/b.conf"

tepd_start "$DPA" "$WORK/a.sock" "$WORK/a.conf" \
	--vdev=net_af_packet0,iface=acca$AFP --vdev=net_af_packet1,iface=unda$AFP
tepd_start "$DPB" "$WORK/b.sock" "$WORK/b.conf" \
	$([ -n "${SPLIT_CORES:-}" ] && echo --main-lcore 1) \
	--vdev=net_af_packet0,iface=accb$AFP --vdev=net_af_packet1,iface=undb$AFP
CTLA="$TEPCTL -s $WORK/a.sock"
CTLB="$TEPCTL -s $WORK/b.sock"
say "tunnel A: $($CTLA tunnel show t1)"

# Capture the underlay from before the first packet to after the last.
CAPS=()
for x in "$DPA unda" "$DPB undb"; do
	set -- $x
	ip netns exec "$1" $PY "$CHECKER" capture "$2" "$WORK/cap-$2.pcap" \
		--in-only --ready "$WORK/cap-$2.ready" >"$WORK/cap-$2.out" 2>&1 &
	CAPS+=($!)
done
for x in unda undb; do
	for _ in $(seq 100); do
		[ -e "$WORK/cap-$x.ready" ] && break
		sleep 0.1
	done
	[ -e "$WORK/cap-$x.ready" ] || {
		fail "capture on $x did not start"; cat "$WORK/cap-$x.out"; finish; }
done
T0=$(date +%s)

# 1. ping both ways. The first packets of the tunnel are dropped until
# the underlay ARP/ND completes, hence the retry.
if ip netns exec "$TENA" ping -c 3 -i 0.2 -W 2 203.0.113.10 >"$WORK/ping1" 2>&1 ||
   ip netns exec "$TENA" ping -c 3 -i 0.2 -W 2 203.0.113.10 >"$WORK/ping1" 2>&1; then
	ok "ping tenA -> tenB over $TYPE (IPv$FAM underlay)"
else
	fail "ping tenA -> tenB over $TYPE"; cat "$WORK/ping1"
fi
if ip netns exec "$TENB" ping -c 3 -i 0.2 -W 2 192.0.2.10 >"$WORK/ping2" 2>&1; then
	ok "ping tenB -> tenA"
else
	fail "ping tenB -> tenA"; cat "$WORK/ping2"
fi

# Where packets are when a transfer fails: both tepd's tunnel and port
# counters, now, a moment later, and after one more packet each way. One
# suspect: net_af_packet's TX kicks the kernel once per burst with
# sendto(MSG_DONTWAIT) and takes EAGAIN/ENOBUFS as success, so frames can
# wait in its TX ring until the port's next burst; a sender's underlay "tx"
# then runs ahead of the receiver's "rx" until the pings go out.
counters() {	# counters CTL
	$1 -j stats | $PY -c 'import json,sys
d=json.load(sys.stdin)
t=d["tunnels"][0]
p={x["port"]: x for x in d["ports"]}
print("encap %d decap %d | access rx %d tx %d | underlay rx %d tx %d | drops %s" % (
    t["encap"], t["decap"], p["net_af_packet0"]["rx"], p["net_af_packet0"]["tx"],
    p["net_af_packet1"]["rx"], p["net_af_packet1"]["tx"],
    " ".join("%s:%s=%d" % (n, k, v) for n, x in p.items()
             for k, v in sorted(x["drops"].items())) or "-"))'
}
where_are_they() {
	local i
	for i in 1 2 3; do
		say "A: $(counters "$CTLA")"
		say "B: $(counters "$CTLB")"
		case $i in
		1) sleep 2; say "2 s later:" ;;
		2) ip netns exec "$TENA" ping -c 1 -W 1 203.0.113.10 >/dev/null 2>&1 || true
		   ip netns exec "$TENB" ping -c 1 -W 1 192.0.2.10 >/dev/null 2>&1 || true
		   say "after one ping each way:" ;;
		esac
	done
}

# 1b. TTL 2 from tenB: B decrements it on the way in, it expires at A,
# and A's "time exceeded" goes back through the tunnel to tenB.
ip netns exec "$TENB" ping -c 1 -t 2 -W 2 192.0.2.10 >"$WORK/ttl" 2>&1 || true
if grep -q "From 192.0.2.1 .*Time to live exceeded" "$WORK/ttl"; then
	ok "ICMP time exceeded from A back through the $TYPE tunnel"
else
	fail "no ICMP error back through the tunnel: $(tr '\n' ' ' <"$WORK/ttl")"
fi

# 2. TCP both ways, 1 MB each (4 MB jumbo), sha256 compared.
tcp() {	# tcp SERVER_NS CLIENT_NS ADDR
	ip netns exec "$1" $PY "$HERE/xfer.py" tcp-server 5001 >"$WORK/srv" &
	local spid=$! t=$(date +%s%N)
	sleep 0.5
	ip netns exec "$2" $PY "$HERE/xfer.py" tcp-client "$3" 5001 $TCP_BYTES \
		>"$WORK/cli" || true
	wait $spid || true
	t=$((($(date +%s%N) - t) / 1000000 - 500))
	if [ -s "$WORK/cli" ] && cmp -s "$WORK/srv" "$WORK/cli"; then
		ok "tcp $TCP_BYTES bytes to $3 intact (${t} ms)"
	else
		fail "tcp to $3: sent '$(cat "$WORK/cli")' got '$(cat "$WORK/srv")'"
		where_are_they
	fi
}
tcp "$TENB" "$TENA" 203.0.113.10
tcp "$TENA" "$TENB" 192.0.2.10

# 3. UDP each way, 200 datagrams of 1200 bytes (8000 jumbo), each
# self-checked.
udp() {	# udp SERVER_NS CLIENT_NS ADDR
	local spid good bad
	ip netns exec "$1" $PY "$HERE/xfer.py" udp-server 5002 200 >"$WORK/usrv" &
	spid=$!
	sleep 0.5
	ip netns exec "$2" $PY "$HERE/xfer.py" udp-client "$3" 5002 200 $UDP_SIZE >/dev/null
	wait $spid || true
	read -r good bad <"$WORK/usrv"
	if [ "$bad" = 0 ] && [ "$good" -ge 190 ]; then
		ok "udp to $3: $good/200 datagrams intact, $bad corrupt"
	else
		fail "udp to $3: $good/200 intact, $bad corrupt"
		where_are_they
	fi
}
udp "$TENB" "$TENA" 203.0.113.10
udp "$TENA" "$TENB" 192.0.2.10
say "traffic took $(($(date +%s) - T0))s"

sleep 0.3
for i in 0 1; do
	kill -TERM "${CAPS[$i]}"
	wait "${CAPS[$i]}" && caprc=0 || caprc=$?
	x=$([ $i = 0 ] && echo unda || echo undb)
	say "$(cat "$WORK/cap-$x.out")"
	[ "$caprc" = 0 ] || fail "capture on $x lost frames or failed (rc $caprc)"
done
$PY "$CHECKER" merge "$WORK/underlay.pcap" "$WORK/cap-unda.pcap" \
	"$WORK/cap-undb.pcap" >/dev/null

# 4. The checker must be able to fail: one flipped byte in the payload of
# one packet, and one in its tunnel header, each make exactly that packet
# bad.
for where in payload header; do
	$PY "$CHECKER" corrupt "$WORK/underlay.pcap" "$WORK/bad-$where.pcap" \
		$where >"$WORK/corrupt.out"
	if $PY "$CHECKER" check "$WORK/bad-$where.pcap" $TT $CHK \
		>"$WORK/bad-$where.txt" 2>&1; then
		fail "checker missed a corrupted byte ($where)"
		cat "$WORK/corrupt.out"
	elif grep -q "bad: 1\$" "$WORK/bad-$where.txt"; then
		ok "checker catches a flipped $where byte: $(grep -A2 '^BAD' \
			"$WORK/bad-$where.txt" | tail -n +2 | sed 's/^ *//' | paste -sd';')"
	else
		fail "checker on a pcap with one corrupted packet ($where):"
		cat "$WORK/bad-$where.txt"
	fi
done

# 5. Every frame of the real capture.
if $PY "$CHECKER" check "$WORK/underlay.pcap" $TT $CHK --min 1000 \
	--min-dir 400 ${JUMBO:+--jumbo 200} >"$WORK/check.txt" 2>&1; then
	ok "underlay capture: every frame decodes, every checksum right"
	sed 's/^/    /' "$WORK/check.txt"
	if [ "$TYPE" = gue-rco ]; then
		n=$(awk '$1 == "gue" && NF == 2 { print $2 }' "$WORK/check.txt")
		p=$(awk '/gue private flags field/ { print $NF }' "$WORK/check.txt")
		[ "${p:-0}" = "$n" ] &&
			ok "GUE: all $n headers carry the private flags field (rco on)" ||
			fail "GUE rco on: private flags field on ${p:-0} of $n headers"
	fi
else
	fail "underlay capture check:"
	head -n 120 "$WORK/check.txt"
fi

# 5b. A second, unrelated decoder where there is one: tshark with checksum
# validation on (FOU decoded as IP on its port; tshark has no GUE
# dissector, so there only the outer headers are checked). Status 0 is
# "bad", 1 "good". It must also see the corrupted byte.
# One exception: Linux's software checksum (skb_checksum_help) writes a
# computed TCP checksum of 0 as 0xffff, the other ones'-complement zero,
# which every receiver accepts, and tshark reports as bad ("should be
# 0x0000, see RFC 1624"). The sender's kernel does this about once in
# 65536 segments and tepd forwards it as it came; the checker above has
# already verified that such a segment sums right, so it is not "bad".
tshark_sums() {	# PCAP: "bad FRAMES ip/udp/tcp/icmp/gre good COUNTS ffff N"
	tshark -n -r "$1" $([ "$TT" = fou ] && echo -d udp.port==5555,ip) \
		-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
		-o tcp.check_checksum:TRUE -T fields -E occurrence=a \
		-E "separator=;" -e ip.checksum.status -e udp.checksum.status \
		-e tcp.checksum.status -e icmp.checksum.status \
		-e gre.checksum.status -e tcp.checksum 2>/dev/null | $PY -c 'import sys
bad, ffff, good = 0, 0, [0] * 5
for line in sys.stdin:
    f = [x.split(",") for x in line.rstrip("\n").split(";")]
    st, tcpsum = f[:5], f[5]
    if st[2] == ["0"] and tcpsum == ["0xffff"] and \
            not any("0" in x for i, x in enumerate(st) if i != 2):
        ffff += 1
        continue
    bad += any("0" in x for x in st)
    for i, x in enumerate(st):
        good[i] += x.count("1")
print("bad %d good ip %d udp %d tcp %d icmp %d gre %d ffff %d" % (bad, *good, ffff))'
}
if command -v tshark >/dev/null; then
	read -r _ tbad _ _ tip _ tudp _ ttcp _ ticmp _ tgre _ tffff < <(tshark_sums "$WORK/underlay.pcap")
	read -r _ cbad _ < <(tshark_sums "$WORK/bad-payload.pcap")
	say "tshark: $tbad bad frames; good checksums: ip $tip udp $tudp tcp $ttcp icmp $ticmp gre $tgre; TCP 0xffff (-0): $tffff"
	if [ "$tbad" = 0 ] && [ "$tudp" -gt 0 -o "$tgre" -gt 0 ] && [ "$cbad" = 1 ]; then
		ok "tshark agrees: no bad checksum (and it flags the corrupted frame)"
	else
		fail "tshark: $tbad frames with a bad checksum, $cbad in the corrupted copy (want 0 and 1)"
	fi
else
	say "tshark not installed: second decoder skipped"
fi

# 6. tepd's own counters: encapsulated (outer checksum by LCO unless GRE
# carries no checksum), decapsulated, and no drop for a malformed or
# unmatched packet.
tun_counts() {	# CTL: prints "encap decap lco full none drops"
	$1 -j stats tunnel t1 | $PY -c 'import json,sys
t=json.load(sys.stdin)["tunnels"][0]
print(t["encap"], t["decap"], t["outer_csum_lco"], t["outer_csum_full"],
      t["outer_csum_none"], ",".join("%s=%d" % kv for kv in sorted(t["drops"].items())) or "-")'
}
for side in A B; do
	ctl=CTL$side
	read -r enc dec lco full none drops < <(tun_counts "${!ctl}")
	say "tepd $side t1: encap $enc decap $dec lco $lco full $full none $none drops $drops"
	if [ "$enc" -gt 0 ] && [ "$dec" -gt 0 ]; then
		ok "tepd $side: $enc encapsulated, $dec decapsulated"
	else
		fail "tepd $side: encap $enc decap $dec"
	fi
	if [ "$TYPE" = gre-plain ]; then
		[ "$none" = "$enc" ] && ok "tepd $side: GRE without checksum: none $none" ||
			fail "tepd $side: GRE without checksum: lco $lco full $full none $none"
	elif [ "$lco" -gt 0 ] && [ "$none" = 0 ]; then
		ok "tepd $side: outer checksum by LCO on $lco packets"
	else
		fail "tepd $side: outer checksum lco $lco full $full none $none"
	fi
	if [ "$TYPE" = gue-rco ]; then
		# tepd hands an inner checksum to the receiver (RCO) only when
		# it is still pending, i.e. the access port's PMD reported
		# RTE_MBUF_F_RX_L4_CKSUM_NONE; af_packet never does, so every
		# packet here goes by LCO with an empty RCO field. Say which.
		say "tepd $side: RCO (outer sum in full) on $full packets, LCO on $lco"
	fi
	# Drops that would mean a malformed, mismatched or lost tunnel packet
	# anywhere in this tepd (no_neigh at start-up is expected).
	${!ctl} -j stats | $PY -c 'import json,re,sys
d=json.load(sys.stdin)
bad=re.compile(r"drop_(truncated|bad_|reserved_set|unknown_proto|fragment|zero_udp6|critical|control_msg|oam|no_tunnel|encap_failed|tx_full|too_big|no_headroom)")
out=[]
for kind in ("ports","vrfs","tunnels"):
    for o in d.get(kind, []):
        name=o.get("port") or o.get("vrf") or o.get("tunnel")
        for k,v in sorted(o.get("drops",{}).items()):
            out.append(("BAD " if bad.match(k) else "")+"%s %s %s=%d" % (kind[:-1], name, k, v))
print("\n".join(out))' >"$WORK/drops-$side"
	if grep -q '^BAD' "$WORK/drops-$side"; then
		fail "tepd $side dropped packets for a bad reason:"
		cat "$WORK/drops-$side"
	else
		ok "tepd $side: no drop for a malformed packet ($(paste -sd' ' "$WORK/drops-$side"))"
	fi
	eval "ENC_$side=$enc DEC_$side=$dec"
done
# What the capture saw against what the two tepd counted.
ab=$(awk -v s="$U_A > $U_B:" '$1 == "direction" && $2" "$3" "$4 == s { print $5 }' "$WORK/check.txt")
ba=$(awk -v s="$U_B > $U_A:" '$1 == "direction" && $2" "$3" "$4 == s { print $5 }' "$WORK/check.txt")
say "captured A->B ${ab:-0} (A encap $ENC_A, B decap $DEC_B), B->A ${ba:-0} (B encap $ENC_B, A decap $DEC_A)"
if [ "${ab:-0}" = "$ENC_A" ] && [ "${ba:-0}" = "$ENC_B" ] &&
   [ "$DEC_B" = "$ENC_A" ] && [ "$DEC_A" = "$ENC_B" ]; then
	ok "every encapsulated packet was captured and decapsulated"
else
	fail "capture and counters disagree"
fi

$CTLA stats >"$WORK/stats-a.txt"
$CTLB stats >"$WORK/stats-b.txt"
finish
