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
#      clients: forwarding rate and tepctl latency with and without it
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
	>"$WORK/sent" &
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
# encap_rate SECONDS: packets encapsulated per second; polls per second
polls() {
	indp $PY "$ML" get "$URL" 2>/dev/null |
		awk '/^tepd_worker_polls_total/ { s += $2 } END { printf "%d", s }'
}
encap_rate() {
	local a b p q s e
	a=$(encap); s=$(now); p=$(polls)
	sleep "$1"
	q=$(polls); b=$(encap); e=$(now)
	awk -v a="$a" -v b="$b" -v p="$p" -v q="$q" -v s="$s" -v e="$e" \
		'BEGIN { printf "%.0f %.0f\n", (b - a) / (e - s), (q - p) / (e - s) }'
}
$PY "$ML" ctlprobe 4 $CTL vrf list >"$WORK/lat0" &
probe=$!
read -r r0 p0 < <(encap_rate 4)
wait $probe
read -r n0 med0 max0 <"$WORK/lat0"
tstorm=$(now)
indp taskset -c 0 nice -n 5 $PY "$ML" storm 127.0.0.1 "$MPORT" 8 >"$WORK/storm" &
STORM=$!
sleep 2
$PY "$ML" ctlprobe 4 $CTL vrf list >"$WORK/lat1" &
probe=$!
read -r r1 p1 < <(encap_rate 4)
wait $probe
read -r n1 med1 max1 <"$WORK/lat1"
wait $STORM || true
tend=$(now)
say "without the storm: $r0 packets/s encapsulated, worker $p0 polls/s; tepctl vrf list median $med0 ms, max $max0 ms ($n0 runs)"
say "with 100 scrapers, 30 slow-loris, 5 silent, garbage: $r1 packets/s, worker $p1 polls/s; tepctl vrf list median $med1 ms, max $max1 ms ($n1 runs)"
say "storm: $(cat "$WORK/storm")"
if awk -v a="$r0" -v b="$r1" 'BEGIN { exit !(a > 0 && b >= 0.95 * a) }'; then
	ok "forwarding rate under the storm $r1/s, without $r0/s (within 5 %)"
else
	fail "forwarding rate fell under the storm: $r1/s, without $r0/s"
fi
# The control socket shares CPU 0 with the storm, so it is slower, but it
# must never wait for HTTP clients: a stalled control thread would show
# as seconds. (One run on this shared machine is noisy: the median is
# checked, the maximum only bounded.)
if awk -v m="$med1" -v x="$max1" 'BEGIN { exit !(m < 100 && x < 1000) }'; then
	ok "tepctl vrf list under the storm: median $med1 ms, max $max1 ms (without: $med0, $max0 ms)"
else
	fail "tepctl vrf list slow under the storm: median $med1 ms, max $max1 ms (without: $med0, $max0 ms)"
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
