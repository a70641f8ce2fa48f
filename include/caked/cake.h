/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * cake.h: the interface of the CAKE engine (src/engine, libcakeengine.a).
 *
 * One struct cake shapes one direction of a link. The engine is pure: it
 * makes no system calls, reads no clock (every call that needs the time
 * takes now_ns, nanoseconds of CLOCK_MONOTONIC), keeps no mutable globals
 * and allocates nothing after cake_create(). Packet buffers belong to the
 * caller: the engine links them into its queues while they are queued and
 * hands back every packet it drops on a list (cake_take_dropped()); it
 * never frees a buffer.
 *
 * Behaviour follows doc/cake.md; section numbers (§N) in the engine refer
 * to it.
 */
#ifndef CAKED_CAKED_CAKE_H
#define CAKED_CAKED_CAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CAKE_MAX_TINS		8	/* §4: diffserv8 and precedence */
#define CAKE_SET_WAYS		8	/* §3: set-associative ways */
/*
 * Flow queues per tin, and as many host slots (§3). The kernel has a fixed
 * 1024; caked's "queues N" keyword (an extension, not in sch_cake) may set
 * any power of two up to CAKE_QUEUES_MAX at creation, for sites where
 * thousands of bulk flows would otherwise collide. Never below 1024.
 */
#define CAKE_QUEUES_DEFAULT	1024
#define CAKE_QUEUES_MIN		1024
#define CAKE_QUEUES_MAX		65536
/* Whether n is a queue count caked accepts (a power of two in range). */
static inline bool
cake_queues_valid(uint64_t n)
{
	return n >= CAKE_QUEUES_MIN && n <= CAKE_QUEUES_MAX &&
	    (n & (n - 1)) == 0;
}
#define CAKE_TIME_NEVER		UINT64_MAX

/* Link layer of the frames given to the engine. */
enum cake_link {
	CAKE_LINK_ETHERNET = 0,		/* TAP: frames start at the MAC header */
	CAKE_LINK_IP,			/* TUN: packets start at the IP header */
};

/* DiffServ modes, numbered as the kernel's TCA_CAKE_DIFFSERV_MODE. */
enum cake_diffserv {
	CAKE_DIFFSERV3 = 0,
	CAKE_DIFFSERV4,
	CAKE_DIFFSERV8,
	CAKE_BESTEFFORT,
	CAKE_PRECEDENCE,
};

/* Isolation modes, numbered as the kernel's TCA_CAKE_FLOW_MODE. */
enum cake_flow_mode {
	CAKE_FLOW_BLIND = 0,
	CAKE_FLOW_SRCHOST,
	CAKE_FLOW_DSTHOST,
	CAKE_FLOW_HOSTS,
	CAKE_FLOW_FLOWS,
	CAKE_FLOW_DUAL_SRC,
	CAKE_FLOW_DUAL_DST,
	CAKE_FLOW_TRIPLE,
};
#define CAKE_FLOW_MASK_SRC	0x1
#define CAKE_FLOW_MASK_DST	0x2
#define CAKE_FLOW_MASK_FLOWS	0x4

enum cake_atm {
	CAKE_ATM_NONE = 0,
	CAKE_ATM_ATM,
	CAKE_ATM_PTM,
};

enum cake_ack_filter {
	CAKE_ACK_NONE = 0,
	CAKE_ACK_FILTER,
	CAKE_ACK_AGGRESSIVE,
};

/*
 * The parameters of one instance: exactly what the tc-cake keywords set
 * (see include/caked/keywords.h for the parser and printer).
 */
struct cake_config {
	uint64_t		rate_Bps;	/* bytes per second; 0 = unlimited */
	bool			autorate_ingress;
	enum cake_diffserv	diffserv;
	enum cake_flow_mode	flow_mode;
	bool			nat;
	bool			wash;
	bool			ingress;
	enum cake_ack_filter	ack_filter;
	bool			split_gso;
	uint32_t		rtt_us;		/* interval */
	uint32_t		target_us;
	bool			raw;		/* no compensation (§2) */
	int32_t			overhead;	/* bytes, -64..256 */
	uint32_t		mpu;		/* bytes, 0..256 */
	enum cake_atm		atm;
	uint64_t		memlimit_bytes;	/* 0 = automatic (§5) */
	uint32_t		fwmark_mask;	/* 0 = off */
	/*
	 * Flow queues and host slots per tin: a power of two from
	 * CAKE_QUEUES_MIN to CAKE_QUEUES_MAX (caked extension; fixed when
	 * the instance is created).
	 */
	uint32_t		queues;
};

/* Fills cfg with CAKE's defaults (§1): unlimited diffserv3 triple-isolate ... */
void	cake_config_default(struct cake_config *cfg);
/* Addresses and ports as used for hashing. IPv4 is kept v4-mapped. */
struct cake_tuple {
	uint8_t		src[16];
	uint8_t		dst[16];
	uint16_t	sport;		/* host byte order */
	uint16_t	dport;
	uint8_t		proto;
	uint8_t		family;		/* 0 (none), 4 or 6 */
};

/* Network-layer kinds found by the parser. */
enum cake_l3 {
	CAKE_L3_NONE = 0,		/* non-IP, truncated or malformed */
	CAKE_L3_ARP,
	CAKE_L3_IPV4,
	CAKE_L3_IPV6,
};

#define CAKE_META_FRAG		0x01	/* a fragment: no ports (unless first) */
#define CAKE_META_6IN4		0x02	/* IPv6 inside IPv4: inner used for keys */
#define CAKE_META_MALFORMED	0x04	/* claimed IP but failed validation */
#define CAKE_META_TRUNCATED	0x08	/* ended before a header it announced */

/*
 * What one parse of a frame yields (§2, §3, §4, §6). Offsets count from
 * the first byte of the frame. A frame that is not valid IP has l3 =
 * CAKE_L3_NONE (or ARP) and is treated as best-effort non-IP.
 */
struct cake_pkt_meta {
	uint16_t		net_off;	/* outer network header */
	uint16_t		ip_off;		/* IP header giving the keys (inner for 6in4) */
	uint16_t		l4_off;		/* TCP/UDP/ICMP header; 0 if none */
	uint16_t		l4_len;		/* bytes from l4_off to the IP payload end */
	uint16_t		ip_end;		/* end of the outer IP packet (trims padding) */
	uint8_t			l3;		/* enum cake_l3 of the outer header */
	uint8_t			inner_l3;	/* enum cake_l3 of the key header */
	uint8_t			dsfield;	/* outer TOS / traffic class: DSCP << 2 | ECN */
	uint8_t			flags;		/* CAKE_META_* */
	uint8_t			tcp_flags;	/* if proto is TCP */
	uint8_t			tcp_hdr_len;	/* bytes, if proto is TCP */
	struct cake_tuple	tuple;		/* as on the wire */
};

/* Parses a frame once (§2): never reads outside data[0..len). */
void	cake_parse(const uint8_t *data, uint32_t len, enum cake_link link,
	    struct cake_pkt_meta *meta);

/* virtio-net GSO types, as in <linux/virtio_net.h>. */
#define CAKE_GSO_NONE		0
#define CAKE_GSO_TCPV4		1
#define CAKE_GSO_UDP		3
#define CAKE_GSO_TCPV6		4
#define CAKE_GSO_UDP_L4		5
#define CAKE_GSO_ECN		0x80

/*
 * A packet as the engine sees it. The caller owns the buffer; it fills the
 * fields marked "caller" before cake_enqueue() and may embed the struct in
 * a larger one of its own.
 */
struct cake_pkt {
	struct cake_pkt		*next;		/* engine: queue or dropped-list link */
	uint8_t			*data;		/* caller: first byte of the frame */
	uint32_t		len;		/* caller: frame length in bytes */
	uint32_t		cap;		/* caller: bytes usable at data */
	uint32_t		truesize;	/* caller: bytes charged to memlimit,
						 * cake_truesize(len) */
	uint32_t		mark;		/* caller: firewall/conntrack mark */
	bool			meta_valid;	/* caller: meta already parsed */
	bool			hash_valid;	/* caller: hash_tuple replaces meta.tuple */
	uint8_t			gso_type;	/* caller: CAKE_GSO_*, from a vnet header */
	bool			csum_partial;	/* caller: L4 checksum left to the device */
	uint16_t		gso_size;	/* caller: segment payload size */
	uint16_t		csum_start;	/* caller: as in the vnet header */
	uint16_t		csum_offset;
	struct cake_pkt_meta	meta;		/* parse result (see cake_parse()) */
	struct cake_tuple	hash_tuple;	/* caller: pre-NAT keys, if hash_valid */
	/* Owned by the engine while queued. */
	uint64_t		enqueue_ns;
	uint32_t		adj_len;	/* overhead-adjusted length (§2) */
	uint16_t		segs;		/* segments charged (GSO kept whole) */
	uint8_t			tin;
	uint8_t			drop_reason;	/* enum cake_drop_reason, on the dropped list */
};

/* Why a packet came back on the dropped list. */
enum cake_drop_reason {
	CAKE_DROP_NONE = 0,
	CAKE_DROP_AQM,			/* COBALT: CoDel or BLUE */
	CAKE_DROP_OVERLIMIT,		/* memory limit, from the fattest queue */
	CAKE_DROP_ACK_FILTER,		/* redundant pure ACK (§6) */
	CAKE_DROP_GSO_FAIL,		/* GSO packet could not be segmented */
	CAKE_DROP_TIN_GONE,		/* its tin disappeared in cake_change() */
	CAKE_DROP_FLUSH,		/* cake_flush() */
	CAKE_DROP_SPLIT,		/* not a loss: a GSO super-packet (or a
					 * spare segment buffer) released after
					 * segmentation; free it, count nothing */
};

/* Supplied by the caller at creation. */
struct cake_env {
	enum cake_link	link;
	uint32_t	mtu;		/* device MTU (network layer), e.g. 1500 */
	uint64_t	seed;		/* random: hash key and dither PRNG seed */
	/* Gives an empty buffer of at least cap bytes for a GSO segment, or NULL. */
	struct cake_pkt	*(*alloc)(void *arg, uint32_t cap);
	void		*alloc_arg;
	/*
	 * The egress device completes partial checksums (a vnet header):
	 * segments of a super-packet whose L4 checksum was left partial
	 * keep it partial instead of having it computed over their bytes.
	 */
	bool		keep_partial_csum;
	/*
	 * Packets the caller can keep queued (its buffers, less what it
	 * needs to read and split more); 0 = no bound. Beyond it the
	 * engine drops from the fattest flow, as for memlimit (§5).
	 */
	uint32_t	max_pkts;
};

/*
 * What a queued packet of len bytes is charged against memlimit: the
 * bytes it occupies, in whole 64-byte cache lines. sch_cake charges
 * skb->truesize, the memory the packet really holds; caked's frames sit
 * in buffers allocated once, so what one really holds of them is its
 * bytes, and a 64-byte frame no longer costs a whole buffer. The kernel
 * adds its per-packet metadata (struct sk_buff) on top: see doc/cake.md.
 */
#define CAKE_TRUESIZE_ALIGN	64U
static inline uint32_t
cake_truesize(uint32_t len)
{
	if (len > UINT32_MAX - (CAKE_TRUESIZE_ALIGN - 1))
		return len;
	return (len + CAKE_TRUESIZE_ALIGN - 1) & ~(CAKE_TRUESIZE_ALIGN - 1);
}

/* Engine error codes (never errno). */
enum cake_err {
	CAKE_OK = 0,
	CAKE_ERR_INVAL = -1,		/* a parameter out of range */
	CAKE_ERR_NOMEM = -2,		/* cake_create() could not allocate */
	CAKE_ERR_QUEUES = -3,		/* cake_change(): queues differs from
					 * the instance's (sized at creation) */
};

/* Results of cake_enqueue(). */
enum cake_enq {
	CAKE_ENQ_QUEUED = 0,		/* queued (dropped-list may hold others) */
	CAKE_ENQ_DROPPED = 1,		/* this packet (or part) is on the dropped list */
};

/* Per-tin statistics, one per tin in display order (§8). */
struct cake_tin_stats {
	char		name[16];
	uint64_t	threshold_Bps;
	uint32_t	target_us;
	uint32_t	interval_us;
	uint32_t	peak_delay_us;
	uint32_t	avg_delay_us;
	uint32_t	base_delay_us;
	uint64_t	backlog_bytes;
	uint64_t	pkts;		/* at enqueue, dropped ones included */
	uint64_t	bytes;
	uint64_t	way_inds;
	uint64_t	way_miss;
	uint64_t	way_cols;
	uint64_t	drops;		/* AQM + overflow */
	uint64_t	ecn_marks;
	uint64_t	ack_drops;
	uint32_t	sparse_flows;	/* sparse + decaying */
	uint32_t	bulk_flows;
	uint32_t	unresponsive_flows;
	uint32_t	max_pkt_len;
	uint32_t	flow_quantum;
};

/* A snapshot of one instance's statistics (§8). */
struct cake_stats {
	uint64_t		sent_bytes;	/* at dequeue */
	uint64_t		sent_pkts;
	uint64_t		dropped_pkts;	/* AQM + overflow + ACK filter */
	uint64_t		overlimits;
	uint64_t		backlog_bytes;
	uint64_t		backlog_pkts;
	uint64_t		memory_used;	/* peak bytes */
	uint64_t		memory_limit;
	uint64_t		memory_now;	/* current bytes (not in tc) */
	uint64_t		capacity_estimate_Bps;
	uint32_t		min_netlen;
	uint32_t		max_netlen;
	uint32_t		min_adjlen;
	uint32_t		max_adjlen;
	uint32_t		avg_netoff;
	uint64_t		non_ip_pkts;	/* parsed as non-IP or malformed */
	uint64_t		gso_splits;	/* super-packets cut into segments */
	uint64_t		gso_whole;	/* split-gso, kept whole: left at once */
	uint32_t		tin_count;
	struct cake_tin_stats	tins[CAKE_MAX_TINS];
};

/* One flow queue's statistics (cake_get_flows()). */
struct cake_flow_stats {
	struct cake_tuple	keys;		/* as hashed: pre-NAT when supplied */
	uint8_t			tin;		/* display index */
	uint8_t			state;		/* CAKE_FLOW_STATE_* */
	uint32_t		qlen;		/* packets queued now */
	uint64_t		backlog_bytes;
	uint64_t		bytes;		/* at enqueue, since the queue was allocated */
	uint64_t		pkts;
	uint32_t		drops;		/* AQM + overflow */
	uint32_t		marks;		/* ECN CE */
};
#define CAKE_FLOW_STATE_IDLE		0
#define CAKE_FLOW_STATE_SPARSE		1
#define CAKE_FLOW_STATE_BULK		2
#define CAKE_FLOW_STATE_DECAYING	3

struct cake;

/*
 * Creates an instance, allocating its tables for cfg->queues queues per
 * tin; *err gets an enum cake_err on failure (NULL returned).
 */
struct cake	*cake_create(const struct cake_config *cfg,
		    const struct cake_env *env, int *err);
/* Frees an instance. Call cake_flush() and cake_take_dropped() first to get queued packets back. */
void		 cake_destroy(struct cake *c);
/*
 * Replaces env's alloc and alloc_arg: where GSO segments come from, e.g.
 * the pool of the thread that now owns the instance.
 */
void		 cake_set_alloc(struct cake *c,
		    struct cake_pkt *(*alloc)(void *arg, uint32_t cap),
		    void *alloc_arg);
/*
 * Applies new parameters live (like tc change); queued packets are kept.
 * Returns CAKE_OK, CAKE_ERR_INVAL, or CAKE_ERR_QUEUES (and changes
 * nothing) if cfg->queues is not the instance's: that needs a new one.
 */
int		 cake_change(struct cake *c, const struct cake_config *cfg,
		    uint64_t now_ns);
/* Returns the parameters in force (autorate may have changed the rate). */
void		 cake_get_config(const struct cake *c, struct cake_config *cfg);
/* Queues one packet (parsing it unless meta_valid). Returns enum cake_enq. */
int		 cake_enqueue(struct cake *c, struct cake_pkt *pkt,
		    uint64_t now_ns);
/* Returns the next packet that may leave at now_ns, or NULL. */
struct cake_pkt	*cake_dequeue(struct cake *c, uint64_t now_ns);
/*
 * As cake_dequeue(), also for a packet whose departure falls by now_ns +
 * ahead_ns: it leaves early, the shaper's clock is charged as if it had
 * left on time (the long-run rate stays exact; a burst spans at most
 * ahead_ns of the rate plus one packet).
 */
struct cake_pkt	*cake_dequeue_ahead(struct cake *c, uint64_t now_ns,
		    uint64_t ahead_ns);
/*
 * The instant (ns) at which cake_dequeue() may next return a packet or
 * needs to run (decaying flows); now_ns or earlier means "now";
 * CAKE_TIME_NEVER when nothing is queued.
 */
uint64_t	 cake_next_ns(const struct cake *c, uint64_t now_ns);
/* Takes the list (linked by ->next) of dropped packets; the caller frees them. */
struct cake_pkt	*cake_take_dropped(struct cake *c);
/* Moves every queued packet to the dropped list. */
void		 cake_flush(struct cake *c);
/* Fills a statistics snapshot. */
void		 cake_get_stats(const struct cake *c, struct cake_stats *st);
/*
 * Copies the statistics of up to max flow queues that have carried traffic
 * (in table order, unsorted) into out; returns how many were copied.
 */
unsigned int	 cake_get_flows(const struct cake *c,
		    struct cake_flow_stats *out, unsigned int max);
/* Recomputes all counters and lists from scratch: 0 if sound, else a line number. */
int		 cake_check_invariants(const struct cake *c);
/* A short lower-case description of an enum cake_err ("out of memory"). */
const char	*cake_strerror(int err);
/* Display name of tin i (display order) in a DiffServ mode. */
const char	*cake_tin_name(enum cake_diffserv mode, unsigned int i);
/* Number of tins of a DiffServ mode. */
unsigned int	 cake_tin_count(enum cake_diffserv mode);

#endif /* CAKED_CAKED_CAKE_H */
