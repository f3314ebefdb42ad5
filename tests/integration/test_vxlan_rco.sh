#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# VXLAN remote checksum offload (draft-herbert-vxlan-rco) with the Linux
# kernel as the peer, both ways: tepd's tunnel has `rco on`, the kernel's
# vx0 `remcsumtx remcsumrx` (udpcsum over IPv4; over IPv6 the checksum is
# on unless udp6zerocsumtx).
#
#   test_vxlan_rco.sh af_packet|tap 4|6     (underlay PMD, underlay family)
#
# What proves it, none of it tepd's own code:
#  - ping and TCP transfers both ways (IPv4 and IPv6 inside), sha256 of
#    the bytes compared at both ends;
#  - the kernels' checksum error counters: the peer's UDP (outer) and the
#    tenant's TCP (the inner checksum tepd completed from RCO) stay 0, and
#    vx0 counts no RX errors;
#  - the frames on the wire, captured: tshark checks every outer UDP
#    checksum, and a decoder written here (RFC 1071 by hand) reads the RCO
#    fields by Linux's rules, checks the inner checksum field holds the
#    pseudo-header seed and that finishing it as the receiver does gives a
#    checksum that verifies;
#  - negatives: with the kernel's remcsumrx off, tepd's RCO frames are
#    dropped by the kernel (rx_frame_errors) and TCP fails while ping (no
#    RCO for ICMP) still works; with tepd's rco off, the kernel's RCO
#    frames are dropped by tepd as reserved_set.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PMD=${1:-af_packet}
FAM=${2:-4}
vxlan_site_setup "$PMD" "$FAM"

TUN=(type vxlan local "$U_TEP" remote "$U_PEER" vni 42 vrf red
     inner-dmac 02:00:00:00:42:02 inner-smac 02:74:65:70:00:00)

# tepd's vx1 again, with rco on or off (the routes go with it).
tepd_rco() {
	$CTL route del 198.18.0.0/24 vrf red >/dev/null
	$CTL route del 2001:db8:20::/64 vrf red >/dev/null
	$CTL tunnel del vx1 >/dev/null
	$CTL tunnel add vx1 "${TUN[@]}" rco "$1" >/dev/null
	$CTL route add 198.18.0.0/24 vrf red tunnel vx1 >/dev/null
	$CTL route add 2001:db8:20::/64 vrf red tunnel vx1 >/dev/null
}

# The peer's vx0 again, with the RCO options given.
kernel_vx() {
	ip -n "$PEER" link del vx0
	# shellcheck disable=SC2046
	ip -n "$PEER" link add vx0 type vxlan id 42 remote "$U_TEP" \
		local "$U_PEER" dstport 4789 \
		$([ "$FAM" = 4 ] && echo udpcsum || echo noudp6zerocsumtx) "$@"
	ip -n "$PEER" link set vx0 address 02:00:00:00:42:02 up
	ip -n "$PEER" addr add 198.18.0.2/24 dev vx0
	ip -n "$PEER" route add 192.0.2.0/24 via 198.18.0.1 dev vx0
	ip -n "$PEER" addr add 2001:db8:20::2/64 dev vx0 nodad
	ip -n "$PEER" -6 route add 2001:db8:10::/64 via 2001:db8:20::1 dev vx0
}

# Kernel checksum error counters of a namespace: UDP (v4 + v6) and TCP.
csum_errors() {
	local u t
	u=$(udp_csum_errors "$1" | awk '{ s += $1 } END { print s + 0 }')
	t=$(ip netns exec "$1" awk '
		/^Tcp:/ { if (h) { for (i = 2; i <= NF; i++) if (n[i] == "InCsumErrors") s += $i } else { for (i = 2; i <= NF; i++) n[i] = $i } h = !h }
		END { print s + 0 }' /proc/net/snmp)
	echo $((u + t))
}
vx_stat() { ip netns exec "$PEER" cat "/sys/class/net/vx0/statistics/$1"; }
tun_drop() {
	$CTL -j stats tunnel vx1 | $PY -c 'import json,sys
t = json.load(sys.stdin)["tunnels"][0]
print(t.get("drops", {}).get("drop_" + sys.argv[1], 0))' "$1"
}

# tcp_blocked SERVER_NS CLIENT_NS ADDR: a TCP connection from CLIENT_NS
# to ADDR must get no answer at all (0), where it would otherwise be
# refused: nothing listens on the port, so a frame that got through
# comes back as a reset.
tcp_blocked() {
	ip netns exec "$2" $PY - "$3" <<'PYB'
import socket, sys
try:
    socket.create_connection((sys.argv[1], 5009), timeout=3).close()
except (socket.timeout, TimeoutError):
    sys.exit(0)
except OSError as e:
    print("reached:", e)
sys.exit(1)
PYB
}

tepd_rco on
kernel_vx remcsumtx remcsumrx
if $CTL tunnel show vx1 | grep -q " rco on"; then
	ok "tunnel show: $($CTL tunnel show vx1)"
else
	fail "tunnel show does not say rco on: $($CTL tunnel show vx1)"
fi

peer_err0=$(csum_errors "$PEER")
ten_err0=$(csum_errors "$TEN")

# 1. ping both ways, both inner families (ICMP carries no RCO: a check
# that the tunnel itself is up).
p() {
	ip netns exec "$1" ping "${@:3}" -c 3 -i 0.2 -W 2 "$2" >"$WORK/ping" 2>&1 ||
	ip netns exec "$1" ping "${@:3}" -c 3 -i 0.2 -W 2 "$2" >"$WORK/ping" 2>&1
}
for args in "$TEN 198.18.0.2" "$PEER 192.0.2.10" "$TEN 2001:db8:20::2 -6" \
	    "$PEER 2001:db8:10::10 -6"; do
	# shellcheck disable=SC2086
	if p $args; then
		ok "ping $args ($PMD, IPv$FAM underlay, rco on both ends)"
	else
		fail "ping $args"; cat "$WORK/ping"
	fi
done

# 2. Captured: a TCP transfer each way and one over IPv6 inside, small
# enough to keep every byte of every frame for the decoder.
ip netns exec "$PEER" dumpcap -q -P -i peer0 -w "$WORK/rco.pcap" \
	>"$WORK/dumpcap.log" 2>&1 &
cpid=$!
sleep 1
tcp_xfer "$PEER" "$TEN" 198.18.0.2 300000 || true
tcp_xfer "$TEN" "$PEER" 192.0.2.10 300000 || true
tcp_xfer "$PEER" "$TEN" 2001:db8:20::2 200000 || true
tcp_xfer "$TEN" "$PEER" 2001:db8:10::10 200000 || true
sleep 0.5
kill "$cpid"
wait "$cpid" || true

# 3. The large transfers, not captured: 2 MB each way.
tcp_xfer "$PEER" "$TEN" 198.18.0.2 2000000 || true
tcp_xfer "$TEN" "$PEER" 192.0.2.10 2000000 || true

peer_err=$(( $(csum_errors "$PEER") - peer_err0 ))
ten_err=$(( $(csum_errors "$TEN") - ten_err0 ))
vx_rxerr=$(vx_stat rx_errors)
if [ "$peer_err" = 0 ] && [ "$ten_err" = 0 ] && [ "$vx_rxerr" = 0 ]; then
	ok "kernel counters: no UDP/TCP checksum errors at the peer or the tenant, vx0 rx_errors 0"
else
	fail "kernel counters: peer csum errors +$peer_err, tenant +$ten_err, vx0 rx_errors $vx_rxerr"
fi
# tepd knows the checksums it finished are right (the seed was the inner
# pseudo-header sum, the outer checksum verified): it marks them so (a VM
# behind it is spared its own check) and counts them.
iok=$($CTL -j stats tunnel vx1 | jget tunnels.0.decap_inner_csum_ok)
if [ "$iok" -gt 1000 ]; then
	ok "tepd: $iok decapsulated packets with the inner checksum known good"
else
	fail "tepd: decap_inner_csum_ok $iok after the kernel's RCO transfers"
fi
for r in bad_rco reserved_set bad_outer_csum; do
	n=$(tun_drop $r)
	if [ "$n" = 0 ]; then
		ok "tepd: no drop_$r on vx1"
	else
		fail "tepd: drop_$r $n on vx1"
	fi
done

# 4. The capture, judged without tepd. tshark: the outer UDP checksum of
# every VXLAN frame, both directions.
tshark -r "$WORK/rco.pcap" -o udp.check_checksum:TRUE \
	-Y "udp.port == 4789" -T fields -e udp.checksum.status \
	>"$WORK/tshark.txt" 2>"$WORK/tshark.err" || true
read -r tgood tbad <<<"$(awk '$1 == 1 { g++ } $1 != 1 { b++ }
	END { print g + 0, b + 0 }' "$WORK/tshark.txt")"
if [ "$tgood" -gt 100 ] && [ "$tbad" = 0 ]; then
	ok "tshark: $tgood VXLAN frames, every outer UDP checksum good"
else
	fail "tshark: $tgood good outer UDP checksums, $tbad not"
	head -5 "$WORK/tshark.err"
fi

# The RCO fields by Linux's rules (include/net/vxlan.h): flag 0x20 in the
# second byte; in the byte after the VNI the start in 2-byte units from
# the inner Ethernet header and 0x80 for UDP (field at +6, else TCP's
# +16). The field must hold the inner pseudo-header sum (what a
# CHECKSUM_PARTIAL packet holds), and the receiver's completion
# (~ the sum from the start to the end of the frame) must verify.
$PY - "$WORK/rco.pcap" "$U_TEP" >"$WORK/decode.json" <<'PYDEC'
import ipaddress, json, struct, sys

def s16(b, s=0):
    if len(b) % 2:
        b += b"\0"
    for i in range(0, len(b), 2):
        s += b[i] << 8 | b[i + 1]
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s

def l3(b):
    """(src, dst, proto, l4 offset, l4 length) of an IP packet at b."""
    if b[0] >> 4 == 4:
        ihl = (b[0] & 15) * 4
        return b[12:16], b[16:20], b[9], ihl, struct.unpack("!H", b[2:4])[0] - ihl
    return b[8:24], b[24:40], b[6], 40, struct.unpack("!H", b[4:6])[0]

def phdr(src, dst, proto, n):
    return s16(src + dst + struct.pack("!HH", proto, n) if len(src) == 4
               else src + dst + struct.pack("!IxxxB", n, proto))

f = open(sys.argv[1], "rb").read()
tep = ipaddress.ip_address(sys.argv[2]).packed
out = {d: dict(frames=0, rco=0, plain_l4=0, bad=[], outer_bad=0)
       for d in ("tepd", "kernel")}
off = 24
while off + 16 <= len(f):
    incl = struct.unpack("<I", f[off + 8:off + 12])[0]
    pkt = f[off + 16:off + 16 + incl]
    off += 16 + incl
    et = struct.unpack("!H", pkt[12:14])[0]
    if et not in (0x0800, 0x86dd):
        continue
    ip = pkt[14:]
    src, dst, proto, l4o, l4n = l3(ip)
    if proto != 17:
        continue
    udp = ip[l4o:l4o + l4n]
    if struct.unpack("!H", udp[2:4])[0] != 4789:
        continue
    d = out["tepd" if src == tep else "kernel"]
    d["frames"] += 1
    if s16(udp, phdr(src, dst, 17, l4n)) != 0xffff:
        d["outer_bad"] += 1
    vx, inner = udp[8:16], udp[16:]
    iet = struct.unpack("!H", inner[12:14])[0]
    if iet not in (0x0800, 0x86dd):
        continue
    isrc, idst, iproto, il4o, il4n = l3(inner[14:])
    if iproto not in (6, 17):
        continue
    start = 14 + il4o
    if not vx[1] & 0x20:
        d["plain_l4"] += 1
        if vx[7]:
            d["bad"].append("reserved byte %02x without RCO" % vx[7])
        continue
    d["rco"] += 1
    rs = (vx[7] & 0x7f) * 2
    ro = rs + (6 if vx[7] & 0x80 else 16)
    seed = phdr(isrc, idst, iproto, il4n)
    field = struct.unpack("!H", inner[ro:ro + 2])[0]
    why = []
    if rs != start:
        why.append("start %d, the L4 header is at %d" % (rs, start))
    if ro - rs != (6 if iproto == 17 else 16):
        why.append("offset %d for protocol %d" % (ro - rs, iproto))
    if field != seed:
        why.append("field %04x, pseudo-header sum %04x" % (field, seed))
    # the receiver's completion, then the ordinary check of the result
    done = bytearray(inner)
    c = ~s16(bytes(inner[rs:])) & 0xffff
    done[ro:ro + 2] = struct.pack("!H", c)
    if s16(bytes(done[start:start + il4n]), seed) != 0xffff:
        why.append("completed checksum %04x does not verify" % c)
    if why:
        d["bad"].append("; ".join(why))
for d in out.values():
    d["bad"] = d["bad"][:5] + (["..."] if len(d["bad"]) > 5 else [])
print(json.dumps(out))
PYDEC
dec() { $PY -c 'import json,sys; d=json.load(open(sys.argv[1]))
a = sys.argv[2].split("."); v = d[a[0]][a[1]]
print(len(v) if isinstance(v, list) else v)' "$WORK/decode.json" "$1"; }
tr=$(dec tepd.rco); tp=$(dec tepd.plain_l4); tb=$(dec tepd.bad)
tob=$(dec tepd.outer_bad)
if [ "$tr" -gt 50 ] && [ "$tp" = 0 ] && [ "$tb" = 0 ] && [ "$tob" = 0 ]; then
	ok "wire, tepd -> kernel: $tr TCP frames with RCO, none without; Linux's fields, the seed in the field, completion verifies, outer sums right"
else
	fail "wire, tepd -> kernel: rco $tr, TCP/UDP without RCO $tp, outer bad $tob, wrong: $(cat "$WORK/decode.json")"
fi
kr=$(dec kernel.rco); kb=$(dec kernel.bad); kob=$(dec kernel.outer_bad)
if [ "$kr" -gt 50 ] && [ "$kb" = 0 ] && [ "$kob" = 0 ]; then
	ok "wire, kernel -> tepd: $kr TCP frames with RCO (tepd completed them: the tenant's transfers above are intact, its TCP counted no checksum error)"
else
	fail "wire, kernel -> tepd: rco $kr, outer bad $kob, wrong: $(cat "$WORK/decode.json")"
fi

# 5. Negative: the kernel without remcsumrx does not finish tepd's
# checksums. Older kernels drop the frame for its reserved bits
# (VXLAN_INVALID_HDR: vx0 rx_frame_errors where counted); newer ones pass
# it on and the inner TCP drops it, the seed not being a checksum
# (TcpInCsumErrors). Either way nothing gets through, and the kernel says
# why in one of its counters.
kernel_vx remcsumtx noremcsumrx
peer_stat() { ip netns exec "$PEER" cat "/sys/class/net/$1/statistics/$2"; }
if p "$TEN" 198.18.0.2; then
	ok "remcsumrx off: ping still gets through (ICMP goes without RCO)"
else
	fail "remcsumrx off: ping failed"; cat "$WORK/ping"
fi
w0=$(peer_stat peer0 rx_packets)
f0=$(peer_stat vx0 rx_frame_errors)
e0=$(csum_errors "$PEER")
if tcp_blocked "$PEER" "$TEN" 198.18.0.2; then
	w=$(( $(peer_stat peer0 rx_packets) - w0 ))
	f=$(( $(peer_stat vx0 rx_frame_errors) - f0 ))
	e=$(( $(csum_errors "$PEER") - e0 ))
	if [ "$w" -ge 2 ] && { [ "$f" -gt 0 ] || [ "$e" -gt 0 ]; }; then
		ok "remcsumrx off: TCP with RCO refused by the kernel ($w frames on its wire; vx0 rx_frame_errors +$f, checksum errors +$e)"
	else
		fail "remcsumrx off: TCP failed, but $w frames on the wire, vx0 rx_frame_errors +$f, checksum errors +$e"
	fi
else
	fail "remcsumrx off: TCP got through tepd's RCO frames"
fi

# 6. Negative the other way: tepd without rco drops the kernel's RCO
# frames (reserved_set), as the kernel does.
kernel_vx remcsumtx remcsumrx
tepd_rco off
rs0=$(tun_drop reserved_set)
p "$TEN" 198.18.0.2 || true	# the kernel learns its gateway again
if tcp_blocked "$TEN" "$PEER" 192.0.2.10; then
	rs=$(( $(tun_drop reserved_set) - rs0 ))
	if [ "$rs" -gt 0 ]; then
		ok "tepd rco off: the kernel's RCO frames dropped as reserved_set ($rs)"
	else
		fail "tepd rco off: TCP failed but no drop_reserved_set"
	fi
else
	fail "tepd rco off: TCP from the kernel got through with RCO bits set"
fi

# 7. Both back on: traffic flows again.
tepd_rco on
tcp_xfer "$PEER" "$TEN" 198.18.0.2 100000 || true
$CTL stats >"$WORK/stats.txt"
finish
