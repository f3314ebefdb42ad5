#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# Soak: tepd for MINUTES (default 10) with tagged traffic in two VRFs and
# the control plane churning around it; checked every 10 s, a table
# printed every minute and at the end (docs/reliability.md).
#
#   tests/bench/soak.sh [MINUTES]
#
#   red:  tenr (192.0.2.10) -> tepd A -> VXLAN -> the kernel's vx0
#         (198.18.0.2, namespace peerr)
#   blue: tenb (192.0.2.10) -> tepd A -> GENEVE -> tepd B -> remb
#         (198.18.0.2)
# The same addresses in both VRFs: a datagram at the wrong receiver is a
# misdelivery. Meanwhile, on tepd A: route churn in vrf green (IPv4 and
# IPv6, under and beside covering routes), a zebra stand-in reconnecting
# and replaying every 30 s (tepd -P), tunnel "idle" deleted and re-added
# every 10 s, neighbours deleted every 20 s (and relearnt), 100
# short-lived control clients a second and one that hangs, /metrics
# scraped every second (curl), `stats clear` every 45 s.
# Fails on: a misdelivered, duplicated or corrupt datagram; loss over 1 %
# of a stream, or any loss not explained by tepd's drop_no_neigh on the
# stream's tunnel (the neighbour flushes); an accounting gap once traffic
# stopped; mbufs in use above the idle baseline after traffic stopped;
# growth of RSS, of the DPDK heap in use or of its size (the hugepage
# memory mapped), or of open descriptors, over 1 % an hour by linear fit
# after the first 2 minutes (runs of 22 minutes or more; shorter ones
# print the fits without judging them).
#
# SOAK_HUGE=PAGES: tepd A on 2 MiB hugepages (that many reserved for the
# run, DPDK's dynamic memory), as deployed; its RSS is then tepd's own
# memory and the heap size its hugepage memory. Without it, --no-huge:
# the heap is anonymous memory inside RSS, touched for the first time
# when used.
set -euo pipefail
HERE_BENCH=$(cd "$(dirname "$0")" && pwd)
. "$HERE_BENCH/../integration/lib.sh"

MIN=${1:-10}
SECS=$(awk -v m="$MIN" 'BEGIN { printf "%d", m * 60 }')
STOP="$WORK/stop"
RATE=${SOAK_RATE:-200}		# datagrams a second per VRF
CHURN=${SOAK_CHURN:-1200}	# route changes a second
CLIENTS=${SOAK_CLIENTS:-100}	# control clients a second

DP=$(ns_add dp)
DPB=$(ns_add dpb)
TR=$(ns_add tenr)
TB=$(ns_add tenb)
WIRE=$(ns_add wire)
PR=$(ns_add peerr)
RB=$(ns_add remb)
veth "$TR" ten0 "$DP" dpacc0
veth "$TB" ten0 "$DP" dpacc1
veth "$RB" rem0 "$DPB" bacc
wire_bridge "$WIRE" 1600 "$DP" dpund "$PR" up0 "$DPB" bund
for t in "$TR" "$TB"; do
	ip -n "$t" addr add 192.0.2.10/24 dev ten0
	ip -n "$t" route add default via 192.0.2.1
done
ip -n "$RB" addr add 198.18.0.2/24 dev rem0
ip -n "$RB" route add default via 198.18.0.1

cat >"$WORK/a.conf" <<'CONF'
vrf add red
vrf add blue
vrf add green table 300
port set net_af_packet0 role access
port bind net_af_packet0 vrf red
addr add 192.0.2.1/24 dev net_af_packet0
port set net_af_packet1 role access
port bind net_af_packet1 vrf blue
addr add 192.0.2.1/24 dev net_af_packet1
port set net_af_packet2 role underlay
port set net_af_packet2 mtu 1600
addr add 198.51.100.1/24 dev net_af_packet2
tunnel add vxr type vxlan local 198.51.100.1 remote 198.51.100.2 vni 100 vrf red inner-dmac 02:00:00:00:01:00
tunnel add gnb type geneve local 198.51.100.1 remote 198.51.100.3 vni 200 vrf blue inner-dmac 02:74:65:70:00:00
tunnel add idle type vxlan local 198.51.100.1 remote 198.51.100.9 vni 900 vrf green inner-dmac 02:00:00:00:09:00
route add 198.18.0.0/24 vrf red tunnel vxr
route add 198.18.0.0/24 vrf blue tunnel gnb
route add 10.0.0.0/8 vrf green blackhole
route add 2001:db8:a::/48 vrf green blackhole
route add 172.16.0.0/16 vrf green tunnel idle
CONF
cat >"$WORK/b.conf" <<'CONF'
vrf add blue
port set net_af_packet0 role access
port bind net_af_packet0 vrf blue
addr add 198.18.0.1/24 dev net_af_packet0
port set net_af_packet1 role underlay
port set net_af_packet1 mtu 1600
addr add 198.51.100.3/24 dev net_af_packet1
tunnel add gna type geneve local 198.51.100.3 remote 198.51.100.1 vni 200 vrf blue inner-dmac 02:74:65:70:00:01
route add 192.0.2.0/24 vrf blue tunnel gna
CONF
PREFIX="tepsoak$TAG"
A_MEM="--no-huge -m 1024"
if [ -n "${SOAK_HUGE:-}" ]; then
	if ! hugepages_reserve "$SOAK_HUGE"; then
		fail "cannot reserve $SOAK_HUGE hugepages"
		finish
	fi
	A_MEM="--huge-unlink"
fi
TEPD_MEM=$A_MEM TEPD_PREFIX=$PREFIX TEPD_ARGS="-P 2620 -M 127.0.0.1:9108" \
	tepd_start "$DP" "$WORK/a.sock" "$WORK/a.conf" \
	--vdev=net_af_packet0,iface=dpacc0 --vdev=net_af_packet1,iface=dpacc1 \
	--vdev=net_af_packet2,iface=dpund
APID=${TEPD_PIDS[-1]}
tepd_start "$DPB" "$WORK/b.sock" "$WORK/b.conf" \
	--vdev=net_af_packet0,iface=bacc --vdev=net_af_packet1,iface=bund
CTL="$TEPCTL -s $WORK/a.sock"

# the kernel's VXLAN for red
ip -n "$PR" addr add 198.51.100.2/24 dev up0
ip -n "$PR" link add vx0 type vxlan id 100 remote 198.51.100.1 \
	local 198.51.100.2 dstport 4789 udpcsum
ip -n "$PR" link set vx0 address 02:00:00:00:01:00 mtu 1450 up
ip -n "$PR" addr add 198.18.0.2/24 dev vx0
ip -n "$PR" route add 192.0.2.0/24 via 198.18.0.1 dev vx0

# ---- sampling ---------------------------------------------------------------
SAMPLES="$WORK/samples"
: >"$SAMPLES"
sample() {	# T: one line: t rss_kib heap_alloc heap_size mbufs fds gap_ports
	local t=$1 rss heap mb fds gaps
	rss=$(awk '/^VmRSS/ { print $2 }' /proc/"$APID"/status)
	heap=$(echo "/eal/heap_info,0" | dpdk-telemetry.py -f "$PREFIX" 2>/dev/null |
		$PY -c 'import json,sys
try:
    h = json.load(sys.stdin)["/eal/heap_info"]; print(h["Alloc_size"], h["Heap_size"])
except Exception: print(-1, -1)' || echo -1 -1)
	$CTL -j stats >"$WORK/st.json" 2>/dev/null || echo '{}' >"$WORK/st.json"
	mb=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["mempool"]["in_use"])' \
		"$WORK/st.json" 2>/dev/null || echo -1)
	gaps=$($PY -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(",".join(str(p["accounting_gap"]) for p in d["ports"]))' "$WORK/st.json" 2>/dev/null || echo "?")
	fds=$(ls /proc/"$APID"/fd | wc -l)
	echo "$t $rss $heap $mb $fds $gaps" >>"$SAMPLES"
}
ROW='{ printf "%8s %10s %12s %12s %8s %5s %s\n", $1, $2, $3, $4, $5, $6, $7 }'
table() {
	printf '%8s %10s %12s %12s %8s %5s %s\n' "t(s)" "RSS(KiB)" "heap use(B)" \
		"heap size(B)" "mbufs" "fds" "accounting gap per port (in flight)"
	awk "$ROW" "$SAMPLES" |
		awk -v every="${1:-6}" 'NR % every == 1 || every == 1'
}

sleep 1
sample 0
IDLE_MBUFS=$(awk 'END { print $5 }' "$SAMPLES")
say "idle: mbufs in use $IDLE_MBUFS"

# ---- load ---------------------------------------------------------------------
PIDS=()
ip netns exec "$PR" $PY "$HERE_BENCH/soak_flow.py" recv 7000 red "$STOP" "$WORK/recv-red" &
PIDS+=($!)
ip netns exec "$RB" $PY "$HERE_BENCH/soak_flow.py" recv 7000 blue "$STOP" "$WORK/recv-blue" &
PIDS+=($!)
sleep 1
# first packets resolve the neighbours: warm up before counting
ip netns exec "$TR" ping -c 2 -i 0.2 -W 1 198.18.0.2 >/dev/null 2>&1 || true
ip netns exec "$TB" ping -c 2 -i 0.2 -W 1 198.18.0.2 >/dev/null 2>&1 || true
ip netns exec "$TR" $PY "$HERE_BENCH/soak_flow.py" send 198.18.0.2 7000 red 4 "$RATE" "$STOP" "$WORK/send-red" &
SENDERS=($!)
ip netns exec "$TB" $PY "$HERE_BENCH/soak_flow.py" send 198.18.0.2 7000 blue 4 "$RATE" "$STOP" "$WORK/send-blue" &
SENDERS+=($!)
$PY "$HERE_BENCH/soak_side.py" churn "$WORK/a.sock" "$CHURN" "$STOP" >"$WORK/churn.out" 2>&1 &
PIDS+=($!)
$PY "$HERE_BENCH/soak_side.py" clients "$WORK/a.sock" "$CLIENTS" "$STOP" >"$WORK/clients.out" 2>&1 &
PIDS+=($!)
$PY "$HERE_BENCH/soak_side.py" hang "$WORK/a.sock" "$STOP" >/dev/null 2>&1 &
PIDS+=($!)

# Datagrams tepd A dropped on the two tunnels while a flushed underlay
# neighbour resolved again (drop_no_neigh): the loss the churn causes by
# design (tunnel packets are not held, docs/architecture.md). Summed over
# `stats clear`s: read just before each one and at the end.
declare -A NONEIGH=([vxr]=0 [gnb]=0)
no_neigh() {	# TUNNEL: its drop_no_neigh since the last stats clear
	$CTL -j stats tunnel "$1" 2>/dev/null | $PY -c 'import json,sys
print(json.load(sys.stdin)["tunnels"][0]["drops"].get("drop_no_neigh", 0))' 2>/dev/null || echo 0
}
add_no_neigh() { local t; for t in vxr gnb; do NONEIGH[$t]=$((NONEIGH[$t] + $(no_neigh "$t"))); done; }
# what the warm-up pings cost (the first packet of each resolves)
NONEIGH[vxr]=$((-$(no_neigh vxr))) NONEIGH[gnb]=$((-$(no_neigh gnb)))
ev_fpm=0 ev_tun=0 ev_neigh=0 ev_clear=0 scrapes=0 scrape_fail=0
start=$(date +%s)
next_sample=10
while :; do
	now=$(( $(date +%s) - start ))
	[ "$now" -ge "$SECS" ] && break
	if ip netns exec "$DP" curl -sf -m 2 -o /dev/null http://127.0.0.1:9108/metrics; then
		scrapes=$((scrapes + 1))
	else
		scrape_fail=$((scrape_fail + 1))
	fi
	if [ $((now % 30)) -eq 5 ] && [ "$ev_fpm" -lt $((now / 30 + 1)) ]; then
		# zebra reconnects and replays its routes (table 300: green)
		ip netns exec "$DP" $PY "$HERE/fpm_feed.py" --port 2620 --linger 1 \
			"add 12.0.0.0/16 blackhole table 300" ";" \
			"add 12.1.0.0/16 blackhole table 300" ";" \
			"bulk 200 13.0.0.0 blackhole table 300" >/dev/null 2>&1 &
		ev_fpm=$((now / 30 + 1))
	fi
	if [ $((now % 10)) -eq 3 ] && [ "$ev_tun" -lt $((now / 10 + 1)) ]; then
		$CTL route del 172.16.0.0/16 vrf green >/dev/null 2>&1 || true
		$CTL tunnel del idle >/dev/null 2>&1 || true
		$CTL tunnel add idle type vxlan local 198.51.100.1 remote 198.51.100.9 \
			vni 900 vrf green inner-dmac 02:00:00:00:09:00 >/dev/null 2>&1 || true
		$CTL route add 172.16.0.0/16 vrf green tunnel idle >/dev/null 2>&1 || true
		ev_tun=$((now / 10 + 1))
	fi
	if [ $((now % 20)) -eq 7 ] && [ "$ev_neigh" -lt $((now / 20 + 1)) ]; then
		$CTL neigh del 192.0.2.10 dev net_af_packet0 >/dev/null 2>&1 || true
		$CTL neigh del 192.0.2.10 dev net_af_packet1 >/dev/null 2>&1 || true
		$CTL neigh del 198.51.100.2 dev net_af_packet2 >/dev/null 2>&1 || true
		$CTL neigh del 198.51.100.3 dev net_af_packet2 >/dev/null 2>&1 || true
		ev_neigh=$((now / 20 + 1))
	fi
	if [ $((now % 45)) -eq 40 ] && [ "$ev_clear" -lt $((now / 45 + 1)) ]; then
		add_no_neigh
		$CTL stats clear >/dev/null 2>&1 || true
		ev_clear=$((now / 45 + 1))
	fi
	if [ "$now" -ge "$next_sample" ]; then
		sample "$now"
		next_sample=$((next_sample + 10))
		if [ $((now % 60)) -lt 10 ]; then
			echo "--- minute $((now / 60))"
			tail -n 1 "$SAMPLES"
		fi
	fi
	sleep 1
done

# ---- stop, settle, check ---------------------------------------------------------
touch "$STOP"
for p in "${SENDERS[@]}" "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
sleep 5	# held packets expire (3 probes, 1 s apart)
sample "$SECS-end"
add_no_neigh
echo "red vxr ${NONEIGH[vxr]}" >"$WORK/no_neigh"
echo "blue gnb ${NONEIGH[gnb]}" >>"$WORK/no_neigh"
echo
echo "soak: $MIN min, tepd A pid $APID, load average $(cut -d' ' -f1-3 /proc/loadavg)"
table 6
echo "end (traffic stopped 5 s):"
tail -n 1 "$SAMPLES" | awk "$ROW"
say "churn: $(cat "$WORK/churn.out")"
say "control clients: $(cat "$WORK/clients.out")"
say "/metrics scrapes: $scrapes ok, $scrape_fail failed; FPM replays $ev_fpm, tunnel re-adds $ev_tun, neighbour flushes $ev_neigh, stats clears $ev_clear"

# An ASan build's RSS grows as its quarantine of freed memory fills (256
# MiB by default) and with its shadow memory: not tepd's to judge there
# (the heap figures still are).
ASAN=0
ldd "$TEPD" 2>/dev/null | grep -q libasan && ASAN=1
$PY - "$WORK" "$SAMPLES" "$IDLE_MBUFS" "$SECS" "$ASAN" <<'PYEOF' || FAILS=$((FAILS + 1))
import json, sys
work, samples, idle, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
asan = sys.argv[5] == "1"
bad = 0
def fail(m):
    global bad
    print("FAIL: " + m); bad += 1
no_neigh = {l.split()[0]: (l.split()[1], int(l.split()[2])) for l in open(f"{work}/no_neigh")}
for vrf in ("red", "blue"):
    s = json.load(open(f"{work}/send-{vrf}"))
    r = json.load(open(f"{work}/recv-{vrf}"))
    lost = 0
    for f, n in sorted(s["sent"].items()):
        got = r["got"].get(f, 0)
        loss = n - got
        lost += loss
        print(f"    stream {vrf}/{f}: sent {n} received {got} lost {loss} ({100.0 * loss / max(n, 1):.3f} %)")
        if loss > 0.01 * n:
            fail(f"{vrf}/{f} lost {loss} of {n}")
    # Every datagram lost must be one tepd dropped while the flushed
    # neighbour of its tunnel resolved again: nothing lost unexplained.
    tun, nn = no_neigh[vrf]
    print(f"    {vrf}: lost {lost} in all; tunnel {tun} dropped {nn} while its flushed underlay neighbour resolved (drop_no_neigh)")
    if lost > nn:
        fail(f"{vrf}: {lost - nn} datagrams lost that tepd did not drop for a flushed neighbour")
    print(f"    receiver {vrf}: misdelivered {r['misdelivered']} dup {r['dup']} corrupt {r['bad']}")
    if r["misdelivered"] or r["dup"] or r["bad"]:
        fail(f"{vrf}: misdelivered {r['misdelivered']} dup {r['dup']} corrupt {r['bad']}")
rows = [l.split() for l in open(samples)]
last = rows[-1]
gaps = last[6].split(",")
if any(g != "0" for g in gaps):
    fail(f"accounting gap after traffic stopped: {last[6]}")
else:
    print("    accounting: every port's gap 0 after traffic stopped")
mb = int(last[4])
print(f"    mbufs in use: idle {idle}, after traffic {mb}")
if mb > idle:
    fail(f"mbufs in use {mb} > idle baseline {idle}")
# Judged over at least 20 minutes after the first 2: the hugepage memory
# moves up and down by a few 2 MiB pages (FIB rebuilds; each page is an
# open file too), a bounded swing of about 1 % that a shorter window
# would read as several % an hour.
def fit(col):
    pts = [(float(r[0]), float(r[col])) for r in rows[1:-1] if float(r[0]) >= 120 and float(r[col]) >= 0]
    if len(pts) < 3:
        pts = [(float(r[0]), float(r[col])) for r in rows[1:-1] if float(r[0]) >= 30 and float(r[col]) >= 0]
        short = True
    else:
        short = pts[-1][0] - pts[0][0] < 1200
    if len(pts) < 2:
        return None, short
    n = len(pts); mx = sum(p[0] for p in pts) / n; my = sum(p[1] for p in pts) / n
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    slope = sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx if sxx else 0
    return (slope * 3600 / my * 100 if my else 0), short
for col, name in ((1, "RSS"), (2, "DPDK heap in use"), (3, "DPDK heap size"), (5, "open fds")):
    g, short = fit(col)
    if g is None:
        print(f"    {name}: too few samples for a fit"); continue
    note = " (not judged: fitted over less than 20 minutes)" if short else ""
    if asan and name == "RSS":
        short, note = True, " (not judged: an ASan build, whose quarantine fills)"
    print(f"    {name} growth: {g:+.3f} % per hour{note}")
    if not short and abs(g) > 1.0 and g > 0:
        fail(f"{name} grows {g:.2f} % per hour")
sys.exit(1 if bad else 0)
PYEOF
finish
