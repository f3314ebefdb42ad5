#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# Decapsulation finds the right tunnel among many: 672 VXLAN tunnels into
# one VRF, from 320 IPv4 remote VTEPs with VNI 42, from one IPv4 remote
# with 320 VNIs, and from 32 IPv6 remotes. Their packets arrive
# interleaved (a different tunnel nearly every packet, each tunnel 1 to 3
# packets) from a pcap on the underlay port. The workers keep the tunnels
# they found in a cache of 256 slots, direct-mapped by (VNI, remote): with
# more tunnels than slots, tunnels of one VNI, and tunnels of one remote,
# must share slots and evict each other, so a cache that told them apart
# by less than the whole key would count packets on the wrong tunnels.
# Every tunnel's decap counter must equal what its remote sent, and every
# inner packet must leave.
. "$(dirname "$0")/lib.sh"

$PY - "$WORK" <<'PY'
import random, sys
from scapy.all import Ether, IP, IPv6, UDP, Raw, wrpcap
work = sys.argv[1]
tun = []                       # (name, family, remote, vni)
for k in range(320):
    tun.append(("r%d" % k, 4, "198.18.%d.%d" % (k >> 7, (k & 127) + 1), 42))
for k in range(320):
    tun.append(("n%d" % k, 4, "198.51.100.2", 1000 + k))
for k in range(32):
    tun.append(("s%d" % k, 6, "2001:db8:1::%x" % (0x100 + k), 42))
conf = []
rounds = []
for n, (name, fam, remote, vni) in enumerate(tun):
    local = "198.51.100.1" if fam == 4 else "2001:db8:1::1"
    smac = "02:74:65:71:%02x:%02x" % (n >> 8, n & 255)
    conf.append("tunnel add %s type vxlan local %s remote %s vni %d "
                "inner-dmac 02:00:00:00:00:42 inner-smac %s vrf red"
                % (name, local, remote, vni, smac))
pkts, want = [], {}
rng = random.Random(7)
for r in range(3):
    order = [n for n in range(len(tun)) if n % 3 >= r]
    rng.shuffle(order)
    for n in order:
        name, fam, remote, vni = tun[n]
        want[name] = want.get(name, 0) + 1
        inner = (Ether(dst="02:74:65:71:%02x:%02x" % (n >> 8, n & 255),
                       src="02:00:00:00:00:42") /
                 IP(src="192.0.2.10", dst="198.18.%d.%d" % (n >> 8, n & 255 or 1)) /
                 UDP(sport=10000 + n, dport=4000) / Raw(b"tunnel %d" % n))
        vx = bytes([0x08, 0, 0, 0]) + (vni << 8).to_bytes(4, "big")
        if fam == 4:
            outer = IP(src=remote, dst="198.51.100.1") / UDP(sport=49152 + n, dport=4789, chksum=0)
        else:
            outer = IPv6(src=remote, dst="2001:db8:1::1") / UDP(sport=49152 + n, dport=4789)
        pkts.append(Ether(dst="02:70:63:61:70:00", src="02:00:00:00:00:99") /
                    outer / Raw(vx) / inner)
wrpcap(work + "/in.pcap", pkts)
open(work + "/tunnels.conf", "w").write("\n".join(conf) + "\n")
open(work + "/want", "w").write("".join("%s %d\n" % kv for kv in want.items()))
print(len(pkts), file=open(work + "/nin", "w"))
PY
NIN=$(cat "$WORK/nin")

cat >"$WORK/tepd.conf" <<CONF
vrf add red
port set net_pcap0 role underlay
addr add 198.51.100.1/24 dev net_pcap0
addr add 2001:db8:1::1/64 dev net_pcap0
port set net_pcap1 role access
port bind net_pcap1 vrf red
addr add 203.0.113.1/24 dev net_pcap1
neigh add 203.0.113.2 lladdr 02:00:00:00:00:77 dev net_pcap1
route add 198.18.0.0/15 vrf red via 203.0.113.2
$(cat "$WORK/tunnels.conf")
CONF

NS=$(ns_add dt)
SOCK=$WORK/dt.sock
# net_pcap reads its file as the worker polls, and workers start after
# the config is loaded: no packet is read before the tunnels are there.
tepd_start "$NS" "$SOCK" "$WORK/tepd.conf" \
	--vdev "net_pcap0,rx_pcap=$WORK/in.pcap,tx_pcap=$WORK/out0.pcap" \
	--vdev "net_pcap1,tx_pcap=$WORK/out1.pcap"
last=
for _ in $(seq 100); do
	now=$($TEPCTL -s "$SOCK" -j stats)
	rx=$(echo "$now" | jget ports.0.rx)
	[ "$rx" = "$NIN" ] && [ "$now" = "$last" ] && break
	last=$now
	sleep 0.2
done
echo "$now" >"$WORK/stats.json"
if $PY - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
d = json.load(open(work + "/stats.json"))
want = dict((l.split()[0], int(l.split()[1])) for l in open(work + "/want"))
got = {t["tunnel"]: t["decap"] for t in d["tunnels"]}
bad = [(n, want[n], got.get(n)) for n in want if got.get(n) != want[n]]
tx = d["ports"][1]["tx"]
print("    %d tunnels, %d packets decapsulated, %d forwarded"
      % (len(want), sum(got.values()), tx))
for b in bad[:10]:
    print("    tunnel %s: sent %d, decap counted %s" % b)
sys.exit(1 if bad or tx != sum(want.values()) else 0)
PY
then
	ok "every packet counted on its own tunnel and forwarded ($NIN)"
else
	fail "decapsulation attributed packets to the wrong tunnels, or lost some"
fi
finish
