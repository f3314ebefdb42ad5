#!/usr/bin/env python3
"""Give each app/tepd file the include of every object header whose names
it uses (issue 32: no catch-all header). Idempotent; run after moving code."""
import re, sys, glob, os
MAP = {
    'port.h': r'\btep_ports\b|\btep_nb_ports\b|struct tep_port\b|struct tep_addr\b|\bTEP_ROLE_|\btep_port_\w+|\btep_ports_\w+|\btep_netns_home\b|\btep_vdevs_check\b',
    'tunnel.h': r'\btep_tunnels\b|\btep_tunnel_\w+|\btep_tun_hash\b|\btep_udp_tun_type\b|struct tep_tunnel\b|struct tep_tun_key\b|\btep_tunnels_init\b|\bTEP_TUN_OPT_',
    'neigh.h': r'\btep_neigh_\w+|\btep_neighs\b|struct tep_neigh\b|\bTEP_NEIGH_VRF\b|\bTEP_NEIGH_INCOMPLETE_VRF\b|\bTEP_HOLD_VRF\b',
    'adj.h': r'\btep_adj_\w+',
    'stats.h': r'\btep_cnt_\w+|\btep_counters\b|struct tep_lcore_cnt\b|\benum tep_stage\b|\bTEP_ST_\w+|\btep_burst_bucket\b|\btep_stage_name\b',
    'punt.h': r'\btep_priv\b|struct tep_mbuf_priv\b|\bTEP_PUNT_\w+|\btep_rate\w*|\btep_ctl_send\w*|\btep_punt_drain\b|enum tep_punt\b',
    'frames.h': r'\btep_addr_is_ours\b|\bnew_frame\b|\bsend_arp\b|\bsend_ns\b|\bsend_icmp6\b|\bctl_emit\b|\beth_hdr\(|\bsrc_addr_for\b|\bvrf_src_addr\b|\banswers_for\b',
    'vrfhost.h': r'\btep_vrfhost_\w+|\btep_vrf_host_port\b',
    'fpm.h': r'\btep_fpm_\w+',
    'metrics.h': r'\btep_metrics_\w+|\btep_telemetry_init\b',
    'args.h': r'\bparse_ip\b|\bparse_prefix\b|\bparse_u32\b|\bparse_mac\b|\bip_str\b|\bport_arg\b|\bvrf_arg\b|\brefuse_host_port\b|\btep_parse_listen\b',
    'cmds.h': r'\btep_cmds_table\b|\bcmd_\w+\(|\bERR\(',
    'datapath.h': r'\btep_worker_main\b|\btep_gso_segment\b|\bTEP_GSO_SEGS_MAX\b|\bdp_\w+\(',
}
def strip(s):
    s = re.sub(r'/\*.*?\*/', '', s, flags=re.S)
    s = re.sub(r'"(\\.|[^"\\])*"', '""', s)
    return s
for f in sys.argv[1:]:
    s = open(f).read()
    code = strip(s)
    base = os.path.basename(f)
    have = set(re.findall(r'#include "([^"]+)"', s))
    # private headers that already bring a public one
    want = []
    for h, rx in MAP.items():
        if h == base or h in have:
            continue
        if base.endswith('.c') and h == base[:-2] + '.h':
            pass
        if re.search(rx, code):
            want.append(h)
    if not want:
        continue
    last = list(re.finditer(r'^#include "[^"]+"\n', s, re.M))
    pos = last[-1].end() if last else s.index('\n\n', s.index('*/')) + 1
    s = s[:pos] + ''.join(f'#include "{h}"\n' for h in sorted(want)) + s[pos:]
    open(f, 'w').write(s)
    print(f, '+', ' '.join(sorted(want)))
