/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * sources.c: the simulator's traffic sources. Each source is one 5-tuple
 * sending real IPv4 packets (TUN framing, so the engine parses them):
 *  - backlog: keeps depth packets queued, refilling on each departure
 *    (and, after a drop, 1 ms later so a memory-limit drop cannot spin);
 *  - cbr: one packet every interval (an unresponsive UDP flow);
 *  - probe: the same with small packets and a long interval (a ping);
 *  - tcp: a window of packets; each departure comes back as an ack one
 *    base RTT later (the return path is a pure delay line). Slow start
 *    adds one packet per ack until the first congestion signal, then one
 *    per window (congestion avoidance); a drop (noticed one RTT after it
 *    happened) or a CE mark halves the window, at most once per RTT;
 *  - acks: pure TCP ACKs with a growing ack number (an upload's ACKs).
 *
 * Sources never look inside the engine; they only see what the link
 * delivers and what comes back on the dropped list.
 */
#include <string.h>

#include "caked/cake.h"
#include "engine/csum.h"
#include "sim.h"

#define TCP_MAX_CWND_PKTS	20000.0
#define TCP_MSS_BYTES		1448
#define BACKLOG_RETRY_NS	SIM_MS
#define ECN_MASK		0x03
#define ECN_CE			0x03

/* Writes the IPv4 + L4 headers of the next packet of src into p. */
void
sources_build(const struct sim_src *src, struct sim_pkt *p)
{
	uint8_t		*ip = p->buf;
	uint32_t	 len = src->len_bytes;
	unsigned int	 l4 = src->proto == 6 ? 20 : 8;

	if (len < 20 + l4)
		len = 20 + l4;
	if (len > SIM_PKT_CAP)
		len = SIM_PKT_CAP;
	memset(ip, 0, 20 + l4);
	ip[0] = 0x45;
	ip[1] = src->tos;
	csum_put16(ip + 2, (uint16_t)len);
	csum_put16(ip + 4, (uint16_t)src->seq);
	ip[8] = 64;
	ip[9] = src->proto;
	csum_put32(ip + 12, src->saddr);
	csum_put32(ip + 16, src->daddr);
	csum_put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
	csum_put16(ip + 20, src->sport);
	csum_put16(ip + 22, src->dport);
	if (src->proto == 6) {
		if (src->kind == SIM_SRC_ACKS) {
			csum_put32(ip + 24, 1);
			csum_put32(ip + 28, src->seq * 2 * TCP_MSS_BYTES);
		} else {
			csum_put32(ip + 24, src->seq * TCP_MSS_BYTES);
			csum_put32(ip + 28, 1);
		}
		ip[32] = 5 << 4;
		ip[33] = 0x10;			/* ACK */
		csum_put16(ip + 34, 65535);
	} else
		csum_put16(ip + 24, (uint16_t)(len - 20));
	p->pkt.len = len;
}

void
sources_send(struct sim *s, uint32_t i)
{
	struct sim_src	*src = &s->srcs[i];
	struct sim_pkt	*p;

	if (src->stop_ns != 0 && s->now_ns >= src->stop_ns)
		return;
	if ((p = sim_pkt_get(s)) == NULL)
		return;
	src->seq++;
	sources_build(src, p);
	p->src = i;
	src->queued_pkts++;
	if (src->kind == SIM_SRC_TCP)
		src->inflight_pkts++;
	if (s->now_ns >= s->measure_from_ns)
		src->offered_pkts++;
	sim_enqueue(s, p);
}

static void
backlog_fill(struct sim *s, uint32_t i)
{
	while (s->srcs[i].queued_pkts < s->srcs[i].depth_pkts)
		sources_send(s, i);
}

static void
tcp_fill(struct sim *s, uint32_t i)
{
	while ((double)s->srcs[i].inflight_pkts < s->srcs[i].cwnd_pkts)
		sources_send(s, i);
}

static void
tcp_cut(struct sim *s, struct sim_src *src)
{
	if (s->now_ns < src->recover_until_ns)
		return;
	src->ssthresh_pkts = src->cwnd_pkts / 2;
	if (src->ssthresh_pkts < 2)
		src->ssthresh_pkts = 2;
	src->cwnd_pkts = src->ssthresh_pkts;
	src->recover_until_ns = s->now_ns + src->rtt_ns;
	src->cuts++;
}

static void
tcp_ack(struct sim *s, uint32_t i, bool ce)
{
	struct sim_src	*src = &s->srcs[i];

	src->inflight_pkts--;
	if (ce)
		tcp_cut(s, src);
	else if (src->cwnd_pkts < src->ssthresh_pkts)
		src->cwnd_pkts += 1;
	else
		src->cwnd_pkts += 1 / src->cwnd_pkts;
	if (src->cwnd_pkts > TCP_MAX_CWND_PKTS)
		src->cwnd_pkts = TCP_MAX_CWND_PKTS;
	tcp_fill(s, i);
}

void
sources_start(struct sim *s)
{
	uint32_t	i;

	for (i = 0; i < s->nsrcs; i++) {
		struct sim_src *src = &s->srcs[i];

		if (src->kind == SIM_SRC_TCP) {
			if (src->cwnd_pkts < 1)
				src->cwnd_pkts = 2;
			if (src->ssthresh_pkts <= 0)
				src->ssthresh_pkts = TCP_MAX_CWND_PKTS;
		}
		src->pending = true;
		sim_schedule(s, src->start_ns, i, SIM_EV_SEND, 0);
	}
}

void
sources_event(struct sim *s, const struct sim_ev *ev)
{
	struct sim_src	*src = &s->srcs[ev->src];

	switch (ev->kind) {
	case SIM_EV_SEND:
		src->pending = false;
		switch (src->kind) {
		case SIM_SRC_BACKLOG:
			backlog_fill(s, ev->src);
			break;
		case SIM_SRC_TCP:
			tcp_fill(s, ev->src);
			break;
		case SIM_SRC_CBR:
		case SIM_SRC_PROBE:
		case SIM_SRC_ACKS:
			sources_send(s, ev->src);
			src->pending = true;
			sim_schedule(s, s->now_ns + src->interval_ns, ev->src,
			    SIM_EV_SEND, 0);
			break;
		}
		break;
	case SIM_EV_ACK:
		tcp_ack(s, ev->src, ev->flag != 0);
		break;
	case SIM_EV_LOSS:
		src->inflight_pkts--;
		tcp_cut(s, src);
		tcp_fill(s, ev->src);
		break;
	}
}

void
sources_delivered(struct sim *s, struct sim_pkt *p)
{
	struct sim_src	*src = &s->srcs[p->src];
	uint64_t	 d = s->now_ns - p->enq_ns;
	bool		 ce = (p->buf[1] & ECN_MASK) == ECN_CE &&
			     (src->tos & ECN_MASK) != ECN_CE;

	src->queued_pkts--;
	if (s->now_ns >= s->measure_from_ns) {
		src->sent_pkts++;
		src->sent_bytes += p->pkt.len;
		src->sum_delay_ns += d;
		if (d > src->max_delay_ns)
			src->max_delay_ns = d;
		if (ce)
			src->marks++;
	}
	if (src->kind == SIM_SRC_TCP)
		sim_schedule(s, s->now_ns + src->rtt_ns, p->src, SIM_EV_ACK,
		    ce);
	else if (src->kind == SIM_SRC_BACKLOG)
		sources_send(s, p->src);
}

void
sources_dropped(struct sim *s, struct sim_pkt *p)
{
	struct sim_src	*src = &s->srcs[p->src];

	src->queued_pkts--;
	if (s->now_ns >= s->measure_from_ns)
		src->drops++;
	if (src->kind == SIM_SRC_TCP)
		sim_schedule(s, s->now_ns + src->rtt_ns, p->src, SIM_EV_LOSS,
		    0);
	else if (src->kind == SIM_SRC_BACKLOG && !src->pending) {
		src->pending = true;
		sim_schedule(s, s->now_ns + BACKLOG_RETRY_NS, p->src,
		    SIM_EV_SEND, 0);
	}
}
