/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The tepd authors
 */

/*
 * Transmit-time checksum decision and per-PMD Tx metadata (see
 * tep_txprep.h; the reasons behind every driver row are in docs/drivers.md
 * and the shared DPDK 22.11 brief).
 */

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "tep_csum.h"
#include "tep_csum_mbuf.h"
#include "tep_hdr_walk.h"
#include "tep_txprep.h"

#define TUN_VXLAN	(RTE_MBUF_F_TX_TUNNEL_VXLAN >> TEP_TXTUN_SHIFT)
#define TUN_GRE		(RTE_MBUF_F_TX_TUNNEL_GRE >> TEP_TXTUN_SHIFT)
#define TUN_IPIP	(RTE_MBUF_F_TX_TUNNEL_IPIP >> TEP_TXTUN_SHIFT)
#define TUN_GENEVE	(RTE_MBUF_F_TX_TUNNEL_GENEVE >> TEP_TXTUN_SHIFT)
#define TUN_IP		(RTE_MBUF_F_TX_TUNNEL_IP >> TEP_TXTUN_SHIFT)
#define TUN_UDP		(RTE_MBUF_F_TX_TUNNEL_UDP >> TEP_TXTUN_SHIFT)

#define VXLAN_PORT	4789
#define GENEVE_PORT	6081

#define IPPROTO_TCP_	6
#define IPPROTO_UDP_	17

/* Flags that describe the request; cleared once it is done in software. */
#define REQ_FLAGS (RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_IPV4 |		\
		   RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_OUTER_IPV4 |		\
		   RTE_MBUF_F_TX_OUTER_IPV6 | RTE_MBUF_F_TX_TUNNEL_MASK)
/* Requests tepd never makes (tep_txprep.h: refused). */
#define REFUSED_FLAGS (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_OUTER_IP_CKSUM | \
		       RTE_MBUF_F_TX_OUTER_UDP_CKSUM | RTE_MBUF_F_TX_TCP_SEG |  \
		       RTE_MBUF_F_TX_UDP_SEG)
/* Capabilities that say a port has some notion of tunnels. */
#define TNL_CAPA (RTE_ETH_TX_OFFLOAD_VXLAN_TNL_TSO |			\
		  RTE_ETH_TX_OFFLOAD_GRE_TNL_TSO |			\
		  RTE_ETH_TX_OFFLOAD_IPIP_TNL_TSO |			\
		  RTE_ETH_TX_OFFLOAD_GENEVE_TNL_TSO |			\
		  RTE_ETH_TX_OFFLOAD_UDP_TNL_TSO |			\
		  RTE_ETH_TX_OFFLOAD_IP_TNL_TSO |			\
		  RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM |			\
		  RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM)

/* ---- the driver table (docs/drivers.md is the long version) ----------- */

enum drv_kind {
	K_SOFT,		/* never trust the port with an L4 checksum */
	K_FLAT,		/* l2_len/l3_len only */
	K_I40E,		/* descriptor tunnel fields, VXLAN/GENEVE/GRE */
	K_ICE,		/* same, but must be kept off the vector path */
	K_MLX5,		/* HW parser; software parser for TUNNEL_UDP */
};

struct drv_row {
	const char *name;
	/* NULL, or the one PCI device (tep_txcaps_init_dev()'s dev_id) the
	 * row is for: a device that the driver's own row would misdescribe.
	 * Such rows come before their driver's. */
	const char *dev_id;
	uint8_t kind;
	uint8_t multiseg_bug;
	const char *why;
};

enum { ROW_UNKNOWN_FLAT, ROW_UNKNOWN_SOFT, ROW_FIRST_NAMED };

static const struct drv_row drv_table[] = {
	[ROW_UNKNOWN_FLAT] = { "", NULL, K_FLAT, 0,
		"unknown driver with UDP+TCP checksum and no tunnel offload: "
		"assumed to read l2_len/l3_len only" },
	[ROW_UNKNOWN_SOFT] = { "", NULL, K_SOFT, 0,
		"unknown driver without UDP+TCP checksum, or with tunnel "
		"offloads of unknown semantics: software" },
	/* QEMU's emulated 82574L (-device e1000e; subsystem 8086:0000 is
	 * QEMU's default, boards carry their maker's): its Tx path finds
	 * the L4 header by parsing the frame itself, ignoring the context
	 * descriptor's TUCSS/TUCSO, so for a tunnelled packet it computes
	 * the outer UDP checksum, never the inner one (QEMU 7.2,
	 * hw/net/e1000e_core.c, net_tx_pkt; tests/integration/
	 * test_pci_nic.sh). */
	{ "net_e1000_em", "8086:10d3 8086:0000", K_SOFT, 0,
		"QEMU's emulated 82574L (e1000e) checksums the first L4 header "
		"it parses, the outer UDP, whatever TUCSS says" },
	/* 8254x/8257x/82583: TUCSS/TUCSO of a context descriptor, from
	 * l2_len/l3_len (em_rxtx.c em_set_xmit_ctx); no tunnel offload. */
	{ "net_e1000_em", NULL, K_FLAT, 0,
		"TUCSS/TUCSO of the context descriptor from l2_len/l3_len; no "
		"tunnel offload: flat metadata is a plain checksum request" },
	{ "net_tap", NULL, K_FLAT, 1,
		"reads only l2_len/l3_len; 22.11 miscomputes chains with "
		"odd-length pieces and sums to the frame end" },
	{ "net_tun", NULL, K_FLAT, 1,
		"net_tap's Tx code: l2_len/l3_len only, chain bug" },
	{ "net_virtio", NULL, K_FLAT, 0,
		"csum_start = l2_len + l3_len (outer lengths only with a "
		"TUNNEL flag): flat metadata is plain checksum-partial" },
	{ "net_virtio_user", NULL, K_FLAT, 0,
		"same Tx code as net_virtio" },
	{ "net_ixgbe", NULL, K_FLAT, 0,
		"prepare refuses every TUNNEL flag (ENOTSUP); MACLEN/IPLEN "
		"come from l2_len/l3_len" },
	{ "net_ixgbe_vf", NULL, K_FLAT, 0,
		"same Tx and prepare code as net_ixgbe" },
	{ "net_i40e", NULL, K_I40E, 0,
		"context descriptor takes the outer lengths; L4TUNT only for "
		"VXLAN/GENEVE/GRE, so FOU/GUE are tagged VXLAN" },
	{ "net_ice", NULL, K_ICE, 0,
		"as i40e; MULTI_SEGS (or OUTER_IPV4_CKSUM) keeps it off the "
		"vector offload path, which ignores tunnel flags" },
	{ "mlx5_pci", NULL, K_MLX5, 0,
		"HW parser finds headers itself (flat would sum the outer "
		"UDP); TUNNEL_UDP goes through the software parser" },
	{ "mlx5_auxiliary", NULL, K_MLX5, 0,
		"same Tx code as mlx5_pci" },
	{ "net_vhost", NULL, K_FLAT, 1,
		"NEEDS_CSUM to the guest at l2_len+l3_len; without guest csum "
		"the PMD sums with rte_raw_cksum_mbuf (odd-chain bug): chains "
		"are done here" },
	{ "net_af_packet", NULL, K_SOFT, 0,
		"no checksum offload (Tx capa MULTI_SEGS|VLAN_INSERT)" },
	{ "net_null", NULL, K_SOFT, 0, "no checksum offload" },
	{ "net_ring", NULL, K_SOFT, 0, "no checksum offload" },
	{ "net_pcap", NULL, K_SOFT, 0, "no checksum offload" },
};

#define DRV_ROWS (sizeof(drv_table) / sizeof(drv_table[0]))

static unsigned int
drv_lookup(const char *name, const char *dev_id, uint64_t capa)
{
	unsigned int i;

	if (name != NULL)
		for (i = ROW_FIRST_NAMED; i < DRV_ROWS; i++)
			if (strcmp(name, drv_table[i].name) == 0 &&
			    (drv_table[i].dev_id == NULL ||
			     (dev_id != NULL &&
			      strcmp(dev_id, drv_table[i].dev_id) == 0)))
				return i;
	if ((capa & RTE_ETH_TX_OFFLOAD_UDP_CKSUM) &&
	    (capa & RTE_ETH_TX_OFFLOAD_TCP_CKSUM) && !(capa & TNL_CAPA))
		return ROW_UNKNOWN_FLAT;
	return ROW_UNKNOWN_SOFT;
}

/* Whether the port may be asked for `bit`: the reason if not. */
static uint8_t
capa_reason(uint64_t capa, uint64_t disabled, uint64_t bit)
{
	if (!(capa & bit))
		return TEP_TXSW_NOCAP;
	if (disabled & bit)
		return TEP_TXSW_DISABLED;
	return TEP_TXSW_HW;
}

static void
set_rule(struct tep_txtun_rule *r, uint8_t tag, uint16_t std_port,
	 uint8_t alt_tag, uint8_t sw_reason)
{
	r->tag = tag;
	r->std_port = std_port;
	r->alt_tag = alt_tag;
	r->sw_reason = sw_reason;
}

/* i40e/ice: the descriptor's L4TUNT knows UDP (VXLAN/GENEVE tag) and GRE;
 * the UDP port does not matter on Tx. The operator's *_TNL_TSO bits
 * switch a type off. */
static void
rules_intel(struct tep_txcaps *c, uint64_t disabled)
{
	bool vx = !(disabled & RTE_ETH_TX_OFFLOAD_VXLAN_TNL_TSO);
	bool gn = !(disabled & RTE_ETH_TX_OFFLOAD_GENEVE_TNL_TSO);
	bool gr = !(disabled & RTE_ETH_TX_OFFLOAD_GRE_TNL_TSO);
	bool ud = vx && !(disabled & RTE_ETH_TX_OFFLOAD_UDP_TNL_TSO);

	set_rule(&c->tun[TUN_VXLAN], vx ? TUN_VXLAN : 0, 0, 0,
		 TEP_TXSW_DISABLED);
	set_rule(&c->tun[TUN_GENEVE], gn ? TUN_GENEVE : 0, 0, 0,
		 TEP_TXSW_DISABLED);
	set_rule(&c->tun[TUN_GRE], gr ? TUN_GRE : 0, 0, 0, TEP_TXSW_DISABLED);
	/* FOU/GUE: any UDP tunnel type programs the same descriptor. */
	set_rule(&c->tun[TUN_UDP], ud ? TUN_VXLAN : 0, 0, 0,
		 TEP_TXSW_DISABLED);
}

/* mlx5: a VXLAN/GENEVE/GRE tag needs the HW parser to know the tunnel
 * (advertised as *_TNL_TSO) and, for UDP ones, the standard port; the
 * software parser (advertised as UDP_TNL_TSO, engaged only when that
 * offload is configured) takes TUNNEL_UDP with explicit offsets. */
static uint64_t
rules_mlx5(struct tep_txcaps *c, uint64_t capa, uint64_t disabled)
{
	uint8_t swp_r = capa_reason(capa, disabled,
				    RTE_ETH_TX_OFFLOAD_UDP_TNL_TSO);
	uint8_t swp = swp_r == TEP_TXSW_HW ? TUN_UDP : 0;
	static const struct {
		uint8_t type;
		uint16_t port;
		uint64_t bit;
	} hw[] = {
		{ TUN_VXLAN, VXLAN_PORT, RTE_ETH_TX_OFFLOAD_VXLAN_TNL_TSO },
		{ TUN_GENEVE, GENEVE_PORT, RTE_ETH_TX_OFFLOAD_GENEVE_TNL_TSO },
		{ TUN_GRE, 0, RTE_ETH_TX_OFFLOAD_GRE_TNL_TSO },
	};
	unsigned int i;

	if (swp_r == TEP_TXSW_NOCAP)
		swp_r = TEP_TXSW_TUNNEL;
	for (i = 0; i < sizeof(hw) / sizeof(hw[0]); i++) {
		uint8_t r = capa_reason(capa, disabled, hw[i].bit);
		uint8_t alt = hw[i].type == TUN_GRE ? 0 : swp;

		if (r == TEP_TXSW_HW)
			set_rule(&c->tun[hw[i].type], hw[i].type, hw[i].port,
				 alt, swp_r);
		else
			set_rule(&c->tun[hw[i].type], alt, 0, 0,
				 r == TEP_TXSW_DISABLED ? r :
				 hw[i].type == TUN_GRE ? TEP_TXSW_TUNNEL :
				 swp_r);
	}
	set_rule(&c->tun[TUN_UDP], swp, 0, 0, swp_r);
	return swp ? RTE_ETH_TX_OFFLOAD_UDP_TNL_TSO : 0;
}

int
tep_txcaps_init(struct tep_txcaps *c, const char *driver_name,
		uint64_t tx_offload_capa, uint64_t disabled,
		uint64_t *offloads_to_enable)
{
	return tep_txcaps_init_dev(c, driver_name, NULL, tx_offload_capa,
				   disabled, offloads_to_enable);
}

int
tep_txcaps_init_dev(struct tep_txcaps *c, const char *driver_name,
		    const char *dev_id, uint64_t tx_offload_capa,
		    uint64_t disabled, uint64_t *offloads_to_enable)
{
	const struct drv_row *row;
	uint64_t capa = tx_offload_capa, off = 0;
	unsigned int i;

	if (c == NULL)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	snprintf(c->driver, sizeof(c->driver), "%s",
		 driver_name != NULL ? driver_name : "");
	c->capa = capa;
	c->disabled = disabled;
	c->drv = (uint8_t)drv_lookup(driver_name, dev_id, capa);
	row = &drv_table[c->drv];
	c->multiseg_bug = row->multiseg_bug;
	for (i = 0; i < TEP_TXTUN_TYPES; i++)
		set_rule(&c->tun[i], 0, 0, 0, TEP_TXSW_TUNNEL);

	/* Chains are needed whatever happens to checksums (jumbo frames). */
	if (capa_reason(capa, disabled, RTE_ETH_TX_OFFLOAD_MULTI_SEGS) ==
	    TEP_TXSW_HW)
		off |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;

	if (row->kind == K_SOFT) {
		c->l4_sw[0] = c->l4_sw[1] = TEP_TXSW_NOCAP;
	} else {
		c->l4_sw[0] = capa_reason(capa, disabled,
					  RTE_ETH_TX_OFFLOAD_TCP_CKSUM);
		c->l4_sw[1] = capa_reason(capa, disabled,
					  RTE_ETH_TX_OFFLOAD_UDP_CKSUM);
	}
	if (c->l4_sw[0] != TEP_TXSW_HW && c->l4_sw[1] != TEP_TXSW_HW) {
		c->mode = TEP_TXMODE_NONE;
		c->mode_reason = (c->l4_sw[0] == TEP_TXSW_DISABLED ||
				  c->l4_sw[1] == TEP_TXSW_DISABLED) ?
				 TEP_TXSW_DISABLED : TEP_TXSW_NOCAP;
	} else {
		if (c->l4_sw[0] == TEP_TXSW_HW)
			off |= RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
		if (c->l4_sw[1] == TEP_TXSW_HW)
			off |= RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
		c->mode_reason = TEP_TXSW_HW;
		switch (row->kind) {
		case K_FLAT:
			c->mode = TEP_TXMODE_FLAT;
			break;
		case K_I40E:
			c->mode = TEP_TXMODE_TUNNEL;
			rules_intel(c, disabled);
			break;
		case K_ICE:
			c->mode = TEP_TXMODE_TUNNEL;
			/* Any of ICE_TX_NO_VECTOR_FLAGS forces the full Tx
			 * path; the vector offload path reads only
			 * l2_len/l3_len and would checksum the wrong bytes
			 * of a tunnel-tagged packet. */
			if (!(off & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) &&
			    capa_reason(capa, disabled,
					RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM) ==
			    TEP_TXSW_HW)
				off |= RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM;
			if (off & (RTE_ETH_TX_OFFLOAD_MULTI_SEGS |
				   RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM))
				rules_intel(c, disabled);
			else	/* only if the operator disabled both */
				for (i = 0; i < TEP_TXTUN_TYPES; i++)
					c->tun[i].sw_reason =
						TEP_TXSW_DISABLED;
			break;
		case K_MLX5:
			c->mode = TEP_TXMODE_TUNNEL;
			off |= rules_mlx5(c, capa, disabled);
			break;
		default:
			c->mode = TEP_TXMODE_NONE;
			c->mode_reason = TEP_TXSW_NOCAP;
			break;
		}
	}
	c->multiseg_hw = (off & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) &&
			 !c->multiseg_bug;
	/* A guest takes a partial checksum as verified (CHECKSUM_PARTIAL):
	 * worth handing it one it would otherwise sum itself. */
	c->partial_rx = c->mode == TEP_TXMODE_FLAT &&
			strcmp(row->name, "net_vhost") == 0;
	c->offloads = off & capa;
	if (offloads_to_enable != NULL)
		*offloads_to_enable = c->offloads;
	return 0;
}

/* ---- names and descriptions ------------------------------------------- */

const char *
tep_txmode_name(enum tep_txmode m)
{
	static const char *const names[TEP_TXMODE_MAX] = {
		[TEP_TXMODE_NONE] = "software",
		[TEP_TXMODE_FLAT] = "flat",
		[TEP_TXMODE_TUNNEL] = "tunnel",
	};

	return (unsigned int)m < TEP_TXMODE_MAX ? names[m] : "unknown";
}

const char *
tep_txsw_reason_name(enum tep_txsw_reason r)
{
	static const char *const names[TEP_TXSW_MAX] = {
		[TEP_TXSW_HW] = "hw",
		[TEP_TXSW_NOCAP] = "no_capability",
		[TEP_TXSW_DISABLED] = "disabled",
		[TEP_TXSW_TUNNEL] = "tunnel_type",
		[TEP_TXSW_MULTISEG] = "multiseg",
		[TEP_TXSW_L2_LEN] = "l2_len",
		[TEP_TXSW_TRAILER] = "trailer",
		[TEP_TXSW_IPV6_EXT] = "ipv6_ext",
	};

	return (unsigned int)r < TEP_TXSW_MAX ? names[r] : "unknown";
}

static const char *
tun_name(unsigned int t)
{
	switch (t) {
	case TUN_VXLAN: return "vxlan";
	case TUN_GRE: return "gre";
	case TUN_IPIP: return "ipip";
	case TUN_GENEVE: return "geneve";
	case TUN_IP: return "ip";
	case TUN_UDP: return "udp";
	default: return "other";
	}
}

/* Append to a fixed buffer; truncates silently. */
static void __attribute__((format(printf, 3, 4)))
add(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

void
tep_txcaps_info(const struct tep_txcaps *c, struct tep_txcaps_info *out)
{
	static const unsigned int contract_types[] = {
		TUN_VXLAN, TUN_GENEVE, TUN_GRE, TUN_UDP
	};
	const char *l4[2] = { "tcp", "udp" };
	unsigned int i;
	bool any = false;

	memset(out, 0, sizeof(*out));
	out->driver = c->driver;
	out->mode = tep_txmode_name((enum tep_txmode)c->mode);
	out->why = drv_table[c->drv < DRV_ROWS ? c->drv : 0].why;
	out->offloads = c->offloads;

	if (c->mode == TEP_TXMODE_NONE) {
		snprintf(out->hw, sizeof(out->hw), "nothing");
		snprintf(out->sw, sizeof(out->sw), "every tcp/udp checksum (%s)",
			 tep_txsw_reason_name((enum tep_txsw_reason)
					      c->mode_reason));
		return;
	}

	for (i = 0; i < 2; i++) {
		if (c->l4_sw[i] != TEP_TXSW_HW)
			continue;
		add(out->hw, sizeof(out->hw), "%s%s", any ? " " : "", l4[i]);
		any = true;
	}
	if (c->mode == TEP_TXMODE_FLAT) {
		add(out->hw, sizeof(out->hw),
		    " via l2_len/l3_len; tunnels flattened");
	} else {
		add(out->hw, sizeof(out->hw), "; tunnels");
		any = false;
		for (i = 0; i < 4; i++) {
			const struct tep_txtun_rule *r =
				&c->tun[contract_types[i]];

			if (r->tag == 0 && r->alt_tag == 0)
				continue;
			any = true;
			add(out->hw, sizeof(out->hw), " %s",
			    tun_name(contract_types[i]));
			if (r->tag != 0 && r->tag != contract_types[i])
				add(out->hw, sizeof(out->hw), "->%s",
				    tun_name(r->tag));
			if (r->std_port)
				add(out->hw, sizeof(out->hw), "(:%u else %s)",
				    r->std_port, r->alt_tag ?
				    tun_name(r->alt_tag) : "sw");
			else if (r->tag == 0)
				add(out->hw, sizeof(out->hw), "->%s",
				    tun_name(r->alt_tag));
		}
		if (!any)
			add(out->hw, sizeof(out->hw), " none");
	}
	if (c->multiseg_hw)
		add(out->hw, sizeof(out->hw), "; chains");

	/* What stays in software, always or per packet. */
	for (i = 0; i < 2; i++)
		if (c->l4_sw[i] != TEP_TXSW_HW)
			add(out->sw, sizeof(out->sw), "%s (%s); ", l4[i],
			    tep_txsw_reason_name((enum tep_txsw_reason)
						 c->l4_sw[i]));
	if (c->mode == TEP_TXMODE_TUNNEL)
		for (i = 0; i < 4; i++) {
			const struct tep_txtun_rule *r =
				&c->tun[contract_types[i]];

			if (r->tag == 0 && r->alt_tag == 0)
				add(out->sw, sizeof(out->sw), "%s tunnels (%s); ",
				    tun_name(contract_types[i]),
				    tep_txsw_reason_name((enum tep_txsw_reason)
							 r->sw_reason));
		}
	if (!c->multiseg_hw)
		add(out->sw, sizeof(out->sw), "chains (%s); ",
		    c->multiseg_bug ? "pmd bug" : "no multi_segs");
	if (c->mode == TEP_TXMODE_FLAT)
		add(out->sw, sizeof(out->sw), "flattened l2_len > 127; ");
	add(out->sw, sizeof(out->sw),
	    "bytes after the ip datagram; inner ipv6 ext headers");
}

int
tep_txcaps_describe(const struct tep_txcaps *c, char *buf, size_t len)
{
	struct tep_txcaps_info info;

	tep_txcaps_info(c, &info);
	return snprintf(buf, len, "%s: %s (%s); hw: %s; sw: %s",
			info.driver[0] ? info.driver : "?", info.mode,
			info.why, info.hw, info.sw);
}

/* ---- per packet -------------------------------------------------------- */

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* What the checks found; all offsets from the start of the frame. */
struct txpkt {
	uint32_t ip_off;	/* the IP header the request is for */
	uint32_t l3_len;
	uint32_t l4_off;
	uint32_t l4_len;	/* L4 header + payload, from the IP header */
	uint32_t ip_end;	/* end of that IP datagram */
	uint32_t tun;		/* tunnel type index, 0 = plain */
	uint8_t v6;
	uint8_t udp;
	uint8_t proto;
};

/* Check the metadata against the bytes. 0 = well formed, -1 = refuse. */
static int
txpkt_parse(const struct rte_mbuf *m, struct txpkt *p)
{
	uint64_t fl = m->ol_flags;
	uint64_t l4req = fl & RTE_MBUF_F_TX_L4_MASK;
	uint64_t outer = fl & (RTE_MBUF_F_TX_OUTER_IPV4 |
			       RTE_MBUF_F_TX_OUTER_IPV6);
	uint64_t inner = fl & (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6);
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t seg = m->data_len, pkt = m->pkt_len, lim = pkt;
	uint32_t l4min, ver;
	struct tep_walk wk;
	const uint8_t *ip;

	if (fl & REFUSED_FLAGS)
		return -1;
	if (l4req == RTE_MBUF_F_TX_TCP_CKSUM)
		p->udp = 0;
	else if (l4req == RTE_MBUF_F_TX_UDP_CKSUM)
		p->udp = 1;
	else
		return -1;	/* SCTP: the dataplane does it */
	l4min = p->udp ? 8 : 20;
	if (seg > pkt)
		return -1;

	p->tun = (uint32_t)((fl & RTE_MBUF_F_TX_TUNNEL_MASK) >> TEP_TXTUN_SHIFT);
	if ((p->tun != 0) != (outer != 0) ||
	    outer == (RTE_MBUF_F_TX_OUTER_IPV4 | RTE_MBUF_F_TX_OUTER_IPV6))
		return -1;	/* virtio keys on one, Intel on the other */
	if (p->tun) {
		uint32_t oip = m->outer_l2_len, ol3 = m->outer_l3_len, oend;
		const uint8_t *o = d + oip;

		if (ol3 < 20 || oip + ol3 > seg)
			return -1;
		if (outer == RTE_MBUF_F_TX_OUTER_IPV4) {
			if (o[0] >> 4 != 4 || (uint32_t)(o[0] & 0xf) * 4 != ol3)
				return -1;
			oend = oip + rd16(o + 2);
		} else {
			if (o[0] >> 4 != 6 || ol3 < 40 || (ol3 - 40) % 8 ||
			    rd16(o + 4) == 0)
				return -1;
			oend = oip + 40 + rd16(o + 4);
		}
		if (oend > pkt || oend < oip + ol3)
			return -1;
		lim = oend;
		p->ip_off = oip + ol3 + m->l2_len;
	} else {
		p->ip_off = m->l2_len;
	}

	p->l3_len = m->l3_len;
	p->l4_off = p->ip_off + p->l3_len;
	if (p->l3_len < 20 || p->l4_off + l4min > seg)
		return -1;	/* headers not all in the first segment */
	if (p->l4_off + l4min > lim)
		return -1;	/* (the datagram cannot end in time) */
	ip = d + p->ip_off;
	ver = ip[0] >> 4;
	if (inner == RTE_MBUF_F_TX_IPV4 ? ver != 4 :
	    inner == RTE_MBUF_F_TX_IPV6 ? ver != 6 :
	    inner != 0 || (ver != 4 && ver != 6))
		return -1;	/* both flags, or not IP */
	/* The walk goes to L4: it must be where l3_len says. IPv6 extension
	 * headers only where they leave the pseudo-header as the fixed
	 * header says: not a fragment header, nor a routing header with
	 * segments left (RFC 8200 8.1). */
	if (tep_hdr_walk(ip, lim - p->ip_off, seg - p->ip_off, TEP_WALK_EXT,
			 &wk) != TEP_R_OK ||
	    wk.l3_len != p->l3_len || wk.ip_len < p->l3_len + l4min ||
	    wk.frag || (wk.ext & (TEP_WALK_X_RT_LEFT | TEP_WALK_X_LONG)))
		return -1;	/* fragments have no L4 checksum of their
				 * own */
	p->v6 = wk.family == 6;
	p->proto = wk.l4_proto;
	p->l4_len = wk.ip_len - p->l3_len;
	p->ip_end = p->ip_off + wk.ip_len;
	if (p->proto != (p->udp ? IPPROTO_UDP_ : IPPROTO_TCP_))
		return -1;
	return 0;
}

/* The port's verdict for a well-formed packet; *tag the tunnel type to
 * send with (TUNNEL mode). */
static uint8_t
txpkt_decide(const struct tep_txcaps *c, const struct rte_mbuf *m,
	     const struct txpkt *p, uint32_t *tag)
{
	uint8_t r = c->l4_sw[p->udp];

	if (r != TEP_TXSW_HW)
		return r;	/* also every packet on a NONE port */
	*tag = p->tun;
	if (p->tun && c->mode == TEP_TXMODE_TUNNEL) {
		const struct tep_txtun_rule *rule = &c->tun[p->tun];

		*tag = rule->tag;
		if (rule->std_port != 0) {
			/* outer UDP header: checked to be in segment 0 */
			uint32_t udp = m->outer_l2_len + m->outer_l3_len;

			if (m->l2_len < 8 ||
			    rd16(rte_pktmbuf_mtod_offset(m, const uint8_t *,
							 udp + 2)) !=
			    rule->std_port)
				*tag = rule->alt_tag;
		}
		if (*tag == 0)
			return rule->sw_reason;
	}
	if (m->next != NULL && !c->multiseg_hw)
		return TEP_TXSW_MULTISEG;
	if (p->tun && c->mode == TEP_TXMODE_FLAT && p->ip_off > 127)
		return TEP_TXSW_L2_LEN;
	if (p->ip_end != m->pkt_len)
		return TEP_TXSW_TRAILER;
	if (p->v6 && p->l3_len > 40)
		return TEP_TXSW_IPV6_EXT;
	return TEP_TXSW_HW;
}

static void
txpkt_hw(const struct tep_txcaps *c, struct rte_mbuf *m,
	 const struct txpkt *p, uint32_t tag)
{
	uint64_t fl = m->ol_flags & ~(RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6);
	uint32_t l4h = p->udp ? 8 : 20;

	fl |= p->v6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4;
	if (p->tun && c->mode == TEP_TXMODE_FLAT) {
		fl &= ~(RTE_MBUF_F_TX_OUTER_IPV4 | RTE_MBUF_F_TX_OUTER_IPV6 |
			RTE_MBUF_F_TX_TUNNEL_MASK);
		m->l2_len = p->ip_off;
		m->outer_l2_len = 0;
		m->outer_l3_len = 0;
	} else if (p->tun) {
		fl = (fl & ~RTE_MBUF_F_TX_TUNNEL_MASK) |
		     (uint64_t)tag << TEP_TXTUN_SHIFT;
	}
	m->ol_flags = fl;
	/* l4_len: net_tap before 22.11.4 sized its header copy with it, the
	 * Intel prepare checks it is in segment 0. The real TCP header
	 * length if it is sane and there, else the fixed part. */
	if (!p->udp) {
		uint32_t doff = (uint32_t)(rte_pktmbuf_mtod_offset(m,
				const uint8_t *, p->l4_off)[12] >> 4) * 4;

		if (doff > l4h && doff <= p->l4_len &&
		    p->l4_off + doff <= m->data_len)
			l4h = doff;
	}
	m->l4_len = l4h;
#ifdef TEP_TEST_BAD_L3_LEN
	/* meson -Dtest_bad_l3_len=true, for tests only: the request is
	 * misdescribed, so the NIC sums from 4 bytes before the L4 header
	 * and writes the result 4 bytes early. Shorter, not longer: the
	 * Intel prepare refuses headers that run past segment 0, which a
	 * longer l3_len does on a bare SYN. */
	m->l3_len -= 4;
#endif
}

/* skb_checksum_help(): the standard checksum, written in place. */
static int
txpkt_sw(struct rte_mbuf *m, const struct txpkt *p)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    p->ip_off);
	uint8_t *field = rte_pktmbuf_mtod_offset(m, uint8_t *,
						 p->l4_off + (p->udp ? 6 : 16));
	uint16_t seed, zero = 0, ck;
	uint32_t sum;

	sum = p->v6 ? tep_ipv6_phdr_sum(ip + 8, ip + 24, p->proto, p->l4_len) :
		      tep_ipv4_phdr_sum(ip + 12, ip + 16, p->proto,
					(uint16_t)p->l4_len);
	memcpy(&seed, field, sizeof(seed));
	memcpy(field, &zero, sizeof(zero));
	/* To the end of the IP datagram, never pkt_len: trailing bytes
	 * (Ethernet padding) are not part of it. */
	if (tep_csum_mbuf(m, p->l4_off, p->l4_len, &sum) < 0) {
		memcpy(field, &seed, sizeof(seed));	/* left unmodified */
		return -1;
	}
	ck = tep_csum_finish(sum);
	if (p->udp)
		ck = tep_udp_csum_mangle0(ck);
	memcpy(field, &ck, sizeof(ck));
	m->ol_flags &= ~REQ_FLAGS;
	return 0;
}

static int
txprep_one(const struct tep_txcaps *c, struct rte_mbuf *m,
	   struct tep_txprep_stats *st)
{
	struct txpkt p;
	uint32_t tag = 0;
	uint8_t r;

	if (txpkt_parse(m, &p) < 0)
		return -1;
	r = txpkt_decide(c, m, &p, &tag);
	if (r == TEP_TXSW_HW) {
		txpkt_hw(c, m, &p, tag);
		st->hw_inner_csum++;
		return 0;
	}
	if (txpkt_sw(m, &p) < 0)
		return -1;
	st->sw_inner_csum++;
	st->sw_reason[r]++;
	return 0;
}

uint16_t
tep_txprep_burst(const struct tep_txcaps *c, struct rte_mbuf **pkts,
		 uint16_t n, struct tep_txprep_stats *st)
{
	uint16_t i, ready = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (likely((m->ol_flags & TEP_TXPREP_REQ_MASK) == 0) ||
		    txprep_one(c, m, st) == 0) {
			/* Lomuto partition: ready packets keep their order,
			 * the refused ones collect behind them. */
			pkts[i] = pkts[ready];
			pkts[ready++] = m;
		} else {
			st->drop_bad_txmeta++;
		}
	}
	return ready;
}
