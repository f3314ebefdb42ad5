#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# tepd -M: a real Prometheus scrapes /metrics while a steady UDP stream
# goes through a VXLAN tunnel to the Linux kernel (vxlan_site_setup).
#   1. the page: HTTP statuses, promtool check metrics, OpenMetrics
#   2. Prometheus' rate() of the tunnel's encapsulated packets against the
#      rate from two tepctl -j stats readings over the same window (5 %);
#      the Grafana dashboard's queries run in that Prometheus
#   3. stats clear: tepctl counts from zero, /metrics never goes back
#      (and Prometheus saw no counter reset)
#   4. a storm of 100 concurrent scrapers, slow-loris, silent and garbage
#      clients: forwarding rate (against the rate offered) and control
#      socket latency with and without it
# Everything runs in the test's namespaces; the endpoint and Prometheus
# listen on the loopback of tepd's namespace.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

MPORT=9108
PPORT=9090
PPS=${METRICS_PPS:-3000}
URL="http://127.0.0.1:$MPORT/metrics"
PROM="http://127.0.0.1:$PPORT"
ML="$HERE/metrics_load.py"
ENC='tepd_tunnel_encap_packets_total{tunnel="vx1"}'

TEPD_ARGS="-M 127.0.0.1:$MPORT" vxlan_site_setup af_packet 4
indp() { ip netns exec "$DP" "$@"; }
# tepd's control lcore is CPU 0 and its worker CPU 1 (-l 0-1). Prometheus
# and the hostile clients go on CPU 0, as they would go on a real host's
# non-dataplane cores; tepd's HTTP thread is on CPU 0 too (it inherits the
# control lcore's affinity).

now() { date +%s.%N; }
encap() { $CTL -j stats tunnel vx1 | jget tunnels.0.encap; }

# ---- 1. the page ---------------------------------------------------------
if indp $PY "$ML" get "$URL" >"$WORK/page.txt" 2>"$WORK/ct" &&
   grep -q '^text/plain; version=0.0.4' "$WORK/ct" &&
   promtool check metrics <"$WORK/page.txt" >"$WORK/promtool" 2>&1; then
	ok "GET /metrics: $(wc -l <"$WORK/page.txt") lines, promtool check metrics passes"
else
	fail "GET /metrics or promtool: $(cat "$WORK/ct" "$WORK/promtool" 2>/dev/null)"
fi
if indp $PY "$ML" get "$URL" om >"$WORK/page.om" 2>"$WORK/ct" &&
   grep -q '^application/openmetrics-text; version=1.0.0' "$WORK/ct" &&
   [ "$(tail -n 1 "$WORK/page.om")" = "# EOF" ] &&
   grep -q '^# TYPE tepd_tunnel_encap_packets counter$' "$WORK/page.om"; then
	ok "OpenMetrics when asked: $(cat "$WORK/ct")"
else
	fail "OpenMetrics: $(cat "$WORK/ct"); $(tail -n 1 "$WORK/page.om")"
fi
st=$(for m in GET HEAD POST PUT; do indp $PY "$ML" status "$URL" $m; done |
	tr '\n' ' ')
st404=$(indp $PY "$ML" status "http://127.0.0.1:$MPORT/nope" GET)
if [ "$st" = "200 200 405 405 " ] && [ "$st404" = 404 ]; then
	ok "HTTP: GET/HEAD 200, POST/PUT 405, unknown path 404"
else
	fail "HTTP statuses: GET HEAD POST PUT: $st; /nope: $st404"
fi

# ---- 2. Prometheus against tepctl ------------------------------------------
ip netns exec "$PEER" $PY "$ML" sink 7000 &
ip netns exec "$TEN" nice -n -5 $PY "$ML" send 198.18.0.2 7000 "$PPS" 55 \
	"$WORK/sent" >/dev/null &
SENDER=$!
cat >"$WORK/prometheus.yml" <<-EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: tepd
    static_configs:
      - targets: ['127.0.0.1:$MPORT']
EOF
indp taskset -c 0 prometheus --config.file="$WORK/prometheus.yml" \
	--storage.tsdb.path="$WORK/tsdb" --web.listen-address="127.0.0.1:$PPORT" \
	--log.level=warn >"$WORK/prometheus.log" 2>&1 &
PROM_PID=$!
up=nan
for _ in $(seq 60); do
	up=$(indp $PY "$ML" promq "$PROM" 'up{job="tepd"}' 2>/dev/null || echo nan)
	[ "$up" = 1 ] && break
	sleep 0.25
done
if [ "$up" != 1 ]; then
	fail "Prometheus never scraped tepd (up=$up)"
	tail -n 20 "$WORK/prometheus.log"
	finish
fi
sleep 2		# a couple of scrapes before the window opens, traffic flowing
# Each reading's time is taken just after it, the same way both times.
c1=$(encap); t1=$(now)
sleep 10
c2=$(encap); t2=$(now)
sleep 1.5	# the scrape after t2 is in
prate=$(indp $PY "$ML" promq "$PROM" "rate($ENC[10s])" "$t2")
crate=$(awk -v a="$c1" -v b="$c2" -v s="$t1" -v e="$t2" \
	'BEGIN { printf "%.1f", (b - a) / (e - s) }')
if awk -v p="$prate" -v c="$crate" 'BEGIN { d = p - c; if (d < 0) d = -d;
	exit !(p > 0 && c > 0 && d <= 0.05 * c) }'; then
	ok "Prometheus rate(tepd_tunnel_encap_packets_total[10s]) $prate/s, tepctl $crate/s (within 5 %; sent $PPS/s)"
else
	fail "Prometheus rate $prate/s vs tepctl $crate/s over the same 10 s (sent $PPS/s)"
fi
# Under traffic, and as Prometheus sees it: the same page passes promtool.
indp $PY "$ML" get "$URL" >"$WORK/page2.txt" 2>/dev/null
if promtool check metrics <"$WORK/page2.txt" >"$WORK/promtool" 2>&1 &&
   [ "$(indp $PY "$ML" promq "$PROM" 'scrape_samples_scraped{job="tepd"}')" -gt 100 ]; then
	ok "promtool check metrics under traffic; Prometheus stores $(indp $PY "$ML" promq "$PROM" 'scrape_samples_scraped{job="tepd"}') samples a scrape"
else
	fail "under traffic: $(cat "$WORK/promtool")"
fi
# The Grafana dashboard's queries: valid PromQL, and finding data.
if indp $PY "$ML" dashcheck "$PROM" "$HERE/../../config/grafana-tepd.json" \
	>"$WORK/dash" 2>&1; then
	read -r nq nd <"$WORK/dash"
	if [ "$nd" -ge $((nq * 2 / 3)) ]; then
		ok "config/grafana-tepd.json: $nq queries valid in Prometheus, $nd find data"
	else
		fail "config/grafana-tepd.json: only $nd of $nq queries find data"
	fi
else
	fail "config/grafana-tepd.json: $(cat "$WORK/dash")"
fi
# tepctl stats and the page: the same numbers (before any clear).
m=$(indp $PY "$ML" value "$URL" tepd_port_rx_packets_total 'port="net_af_packet0"')
c=$($CTL -j stats port net_af_packet0 | jget ports.0.rx)
if [ "$m" -le "$c" ] && [ "$c" -le $((m + PPS)) ]; then
	ok "port rx: /metrics $m, tepctl right after $c"
else
	fail "port rx: /metrics $m, tepctl right after $c"
fi

# ---- 3. stats clear ----------------------------------------------------------
m0=$(indp $PY "$ML" value "$URL" tepd_tunnel_encap_packets_total 'tunnel="vx1"')
$CTL stats clear
c1=$(encap)
m1=$(indp $PY "$ML" value "$URL" tepd_tunnel_encap_packets_total 'tunnel="vx1"')
sleep 1
c2=$(encap)
m2=$(indp $PY "$ML" value "$URL" tepd_tunnel_encap_packets_total 'tunnel="vx1"')
if [ "$c1" -lt "$PPS" ] && [ "$c2" -gt "$c1" ] && [ "$m1" -ge "$m0" ] &&
   [ "$m2" -gt "$m1" ] && [ "$m0" -gt "$PPS" ]; then
	ok "stats clear: tepctl $c1 then $c2; /metrics $m0 -> $m1 -> $m2 (never back)"
else
	fail "stats clear: tepctl $c1 then $c2; /metrics $m0 -> $m1 -> $m2"
fi

# ---- 4. the storm --------------------------------------------------------------
# Per second: packets encapsulated, packets the generator sent, worker
# poll loops; and control socket latencies, alongside.
phase() {	# phase NAME
	$PY "$ML" ctlprobe 5 "$WORK/tepd.sock" $CTL vrf list >"$WORK/lat-$1" &
	local probe=$!
	indp $PY "$ML" fwdrate 5 "$URL" "$WORK/sent" $CTL >"$WORK/rate-$1"
	wait $probe
}
phase quiet
read -r r0 o0 p0 <"$WORK/rate-quiet"
read -r n0 cm0 cx0 sm0 sx0 rm0 rx0 <"$WORK/lat-quiet"
tstorm=$(now)
indp taskset -c 0 nice -n 5 $PY "$ML" storm 127.0.0.1 "$MPORT" 8.5 >"$WORK/storm" &
STORM=$!
sleep 1.5
phase storm
read -r r1 o1 p1 <"$WORK/rate-storm"
read -r n1 cm1 cx1 sm1 sx1 rm1 rx1 <"$WORK/lat-storm"
wait $STORM || true
tend=$(now)
say "without the storm: $r0 packets/s encapsulated ($o0/s offered), worker $p0 polls/s"
say "    tepctl vrf list median $cm0 ms, max $cx0 ms; /bin/true $sm0, $sx0 ms; on an open control connection $rm0, $rx0 ms ($n0 runs)"
say "with 100 scrapers, 30 slow-loris, 5 silent, garbage: $r1 packets/s ($o1/s offered), worker $p1 polls/s"
say "    tepctl vrf list median $cm1 ms, max $cx1 ms; /bin/true $sm1, $sx1 ms; on an open control connection $rm1, $rx1 ms ($n1 runs)"
say "storm: $(cat "$WORK/storm")"
# tepd must forward what it is offered, storm or not. The generator runs
# on the same two cores: if the storm slows it, the rate offered falls and
# tepd's rate is compared with that instead of with the quiet phase.
if awk -v r0="$r0" -v o0="$o0" -v r1="$r1" -v o1="$o1" 'BEGIN {
	d = r1 - r0; if (d < 0) d = -d
	exit !(r0 >= 0.95 * o0 && r1 >= 0.95 * o1 &&
	       (d <= 0.05 * r0 || o1 < 0.95 * o0)) }'; then
	ok "forwarding under the storm: $r1/s of $o1/s offered; without: $r0/s of $o0/s"
else
	fail "forwarding under the storm: $r1/s of $o1/s offered; without: $r0/s of $o0/s"
fi
# The control socket shares CPU 0 with the storm, so it may be slower, but
# it must never wait for HTTP clients: a control thread held up by them
# would show as seconds on the open connection. tepctl's own time is
# mostly starting a process (compare /bin/true) on this shared machine.
if awk -v m="$rm1" -v x="$rx1" -v c="$cm1" 'BEGIN {
	exit !(m < 20 && x < 1000 && c < 100) }'; then
	ok "control socket under the storm: vrf list $rm1 ms median, $rx1 ms max; tepctl vrf list $cm1 ms median"
else
	fail "control socket slow under the storm: vrf list $rm1 ms median, $rx1 ms max; tepctl $cm1 ms median, $cx1 ms max"
fi
if $PY - "$WORK/storm" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	g = d["garbage"]
	bad = [k for k, v in g.items() if "200" in v or "timeout" in v]
	ok = (d["scrapes_ok"] >= 200 and d["scrapes_failed"] == 0 and
	      len(d["idle_close_s"]) == 5 and max(d["idle_close_s"]) <= 5 and
	      not bad and "405" in g.get("post", {"405": 1}) and
	      "404" in g.get("not_found", {"404": 1}))
	sys.exit(0 if ok else 1)
	PY
then
	ok "storm: every scrape served, silent clients closed, garbage refused"
else
	fail "storm: $(cat "$WORK/storm")"
fi
win=$(awk -v s="$tstorm" -v e="$tend" 'BEGIN { printf "%d", e - s }')
sleep 1.5
minup=$(indp $PY "$ML" promq "$PROM" "min_over_time(up{job=\"tepd\"}[${win}s])" "$tend")
resets=$(indp $PY "$ML" promq "$PROM" "resets($ENC[2m])")
if [ "$minup" = 1 ] && [ "$resets" = 0 ]; then
	ok "Prometheus: every scrape up during the storm, no counter reset seen (stats clear included)"
else
	fail "Prometheus: min up during the storm $minup, resets $resets"
fi
kill -0 "${TEPD_PIDS[0]}" 2>/dev/null || fail "tepd died"

kill "$SENDER" "$PROM_PID" 2>/dev/null || true
wait "$PROM_PID" 2>/dev/null || true
finish
