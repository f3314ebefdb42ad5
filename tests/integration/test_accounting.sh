#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# Every packet received is accounted for, once: per port,
#   rx (+ fragments/segments made) = fwd + encap + decap + punt + drops
# (drops counted at TX on a port belong to another port's packets and are
# left out). Traffic of every fate: encapsulated to the kernel's VXLAN,
# decapsulated from it, answered (ping tepd, ARP), dropped (no route,
# blackhole), and sent to neighbours that never answer, both from the
# tenant (a gateway that does not exist) and out of the tunnel (a host
# that does not exist on the tenant's link): those packets are held while
# tepd resolves, then dropped after its 3 probes, and must end under
# drop_no_neigh, exactly once. Checked exactly after the traffic stops,
# before and after `stats clear`.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SITE_EXTRA_CONF="route add 198.19.1.0/24 vrf red via 192.0.2.99
route add 198.19.2.0/24 vrf red blackhole" vxlan_site_setup af_packet 4

check() {	# LABEL [acct_check args]
	local label=$1
	shift
	$CTL -j stats >"$WORK/st.json"
	if $PY "$HERE/acct_check.py" "$@" <"$WORK/st.json"; then
		ok "accounting exact: $label"
	else
		fail "accounting: $label"
	fi
}

traffic() {
	# encapsulated and decapsulated (replies), both families
	ip netns exec "$TEN" ping -c 20 -i 0.05 -W 1 198.18.0.2 >/dev/null || true
	ip netns exec "$TEN" ping -6 -c 20 -i 0.05 -W 1 2001:db8:20::2 >/dev/null || true
	ip netns exec "$PEER" $PY "$HERE/xfer.py" udp-server 5002 200 >"$WORK/usrv" &
	local spid=$!
	sleep 0.5
	ip netns exec "$TEN" $PY "$HERE/xfer.py" udp-client 198.18.0.2 5002 200 1000 >/dev/null
	wait $spid || true
	# punted: echo to tepd's own address
	ip netns exec "$TEN" ping -c 5 -i 0.05 -W 1 192.0.2.1 >/dev/null || true
	# dropped: no route, blackhole
	ip netns exec "$TEN" ping -c 5 -i 0.05 -W 1 10.77.0.1 >/dev/null 2>&1 || true
	ip netns exec "$TEN" ping -c 5 -i 0.05 -W 1 198.19.2.1 >/dev/null 2>&1 || true
	# held, never resolved: via a gateway that is not there (from the
	# tenant) and to a host that is not there (out of the tunnel)
	ip netns exec "$TEN" ping -c 10 -i 0.05 -W 1 198.19.1.1 >/dev/null 2>&1 || true
	ip netns exec "$PEER" ping -c 10 -i 0.05 -W 1 192.0.2.77 >/dev/null 2>&1 || true
}

# After the traffic: wait out the neighbour probes (3 x 1 s), then the
# equation must hold exactly on every port.
settle() { sleep 4.5; }

traffic
settle
check "after traffic" --expect no_neigh=net_af_packet0 --expect no_neigh=net_af_packet1 \
	--expect no_route=net_af_packet0 --expect blackhole=net_af_packet0
fates=$($CTL -j stats | $PY -c 'import json,sys
d=json.load(sys.stdin)
print(" ".join("%s=%d" % (k, sum(p[k] for p in d["ports"])) for k in ("fwd", "encap", "decap", "punt")))')
say "fates: $fates"
for k in encap decap punt; do
	case " $fates " in
	*" $k=0 "*) fail "no packet counted $k" ;;
	esac
done

# the neighbour that never answered is gone: its held packets counted once
if $CTL neigh show 2>/dev/null | grep -q "192.0.2.99\|192.0.2.77"; then
	say "neighbour entries left: $($CTL neigh show | grep '192.0.2.9\|192.0.2.77')"
fi

# `stats clear` in the middle of traffic: the since-clear view adds up too
# once the traffic has stopped.
traffic &
tpid=$!
sleep 1
$CTL stats clear >/dev/null
wait $tpid || true
settle
check "after stats clear under traffic"

# held packets dropped by an operator's neigh del, not by expiry
ip netns exec "$TEN" ping -c 4 -i 0.05 -W 1 198.19.1.1 >/dev/null 2>&1 || true
$CTL neigh del 192.0.2.99 dev net_af_packet0 >/dev/null 2>&1 || true
settle
check "after neigh del of a neighbour holding packets"

# /metrics-style raw counters are what tepctl shows since the clear plus
# the baseline: the text output carries the same gap
$CTL stats | grep -q "accounting_gap 0" && ok "text output shows accounting_gap" ||
	fail "text output has no accounting_gap 0"

finish
