# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# Shared by the benchmark scripts that compare a dataplane with
# dpdk-testpmd io forwarding on the same vdevs (bench_pipeline.sh,
# bench_ovs.sh); sourced, not run. The caller sets EAL (EAL options),
# DUR (seconds per sample) and SAMPLES; NO_REF=1 skips testpmd;
# PCAP_PKTS: packets in the capture (net_pcap keeps them all in mbufs).

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# testpmd io forwarding between the same vdevs: the I/O ceiling.
# Frames over 2 KB: net_pcap's infinite_rx needs each in one mbuf, so
# both testpmd and tepd get 9 KB buffers (tepd -B) for those sizes.
JUMBO_DATA=9216
big() { [ "$1" != imix ] && [ "$1" -gt 2000 ]; }

testpmd_mpps() {	# PCAP SIZE
	local out mb=""
	# NO_REF=1: tepd alone, for comparing builds (no ratio is printed)
	[ -z "${NO_REF:-}" ] || { echo 0; return; }
	big "$2" && mb="--mbuf-size=$((JUMBO_DATA + 128))"
	# testpmd forwards from start-up until SIGINT and prints Tx-pps
	# every period; start-up time varies, so allow for it.
	out=$( (sleep $((DUR * (SAMPLES + 2) + 30))) |
		timeout -s INT $((DUR * (SAMPLES + 2) + 15)) \
		dpdk-testpmd $EAL --file-prefix "tpb$$" \
		--vdev "net_pcap0,rx_pcap=$1,infinite_rx=1" \
		--vdev net_null0,no-rx=1 -- --forward-mode=io \
		--total-num-mbufs=$((16384 + ${PCAP_PKTS:-0})) $mb --stats-period "$DUR" 2>&1 || true)
	# Tx-pps of port 1 (net_null), skipping the first (warm-up) period.
	echo "$out" | awk '/NIC statistics for port 1/ { p = 1; next }
		/NIC statistics for port/ { p = 0 }
		p && /Tx-pps/ && $2 > 0 { print $2 }' | tail -n +2 | median |
		awk '{ printf "%.2f", $1 / 1e6 }'
}
