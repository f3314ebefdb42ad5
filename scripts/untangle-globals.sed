# tepd.h's struct tepd gave up the objects' tables to their own headers
# (issue 32): run on any C file written against the old layout, e.g.
#   sed -i -E -f scripts/untangle-globals.sed FILE.c
s/\btep\.port\b/tep_ports/g
s/\btep\.nb_ports\b/tep_nb_ports/g
s/\btep\.tunnel_free_lock\b/tep_tunnel_free_lock/g
s/\btep\.tunnel\b/tep_tunnels/g
s/\btep\.tun_hash\b/tep_tun_hash/g
s/\btep\.udp_tun_type\b/tep_udp_tun_type/g
s/\btep\.neigh_hash\b/tep_neigh_hash/g
s/\btep\.neigh\b/tep_neighs/g
s/\btep\.rib\b/tep_rib/g
s/\btep\.vrf_host_port\b/tep_vrf_host_port/g
s/\btep\.cnt\b/tep_counters/g
