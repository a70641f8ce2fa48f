/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * harness.c: test-only helpers to build packets and drive the engine with
 * a fake clock (see harness.h).
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "caked/keywords.h"
#include "engine/csum.h"

static struct cake_pkt *
seg_alloc(void *arg, uint32_t cap)
{
	(void)arg;
	return h_alloc(cap);
}

struct cake *
h_create(const char *keywords, enum cake_link link)
{
	struct cake_config	cfg;
	struct cake_env		env;
	char			err[KEYWORDS_ERR_MAX];
	int			e;

	cake_config_default(&cfg);
	if (keywords != NULL &&
	    keywords_parse_line(&cfg, keywords, err, sizeof(err)) != 0)
		return NULL;
	memset(&env, 0, sizeof(env));
	env.link = link;
	env.mtu = 1500;
	env.seed = 12345;
	env.alloc = seg_alloc;
	return cake_create(&cfg, &env, &e);
}

struct cake_pkt *
h_alloc(uint32_t len)
{
	struct h_pkt	*h;

	if (len > sizeof(h->buf) || (h = calloc(1, sizeof(*h))) == NULL)
		return NULL;
	h->flow = -1;
	h->pkt.data = h->buf;
	h->pkt.cap = sizeof(h->buf);
	h->pkt.len = len;
	h->pkt.truesize = sizeof(h->buf);
	return &h->pkt;
}

void
h_free(struct cake_pkt *pkt)
{
	free(pkt);
}

unsigned int
h_free_dropped(struct cake *c)
{
	struct cake_pkt	*p, *next;
	unsigned int	 n = 0;

	for (p = cake_take_dropped(c); p != NULL; p = next) {
		next = p->next;
		if (p->drop_reason != CAKE_DROP_SPLIT)
			n++;
		h_free(p);
	}
	return n;
}

int
h_destroy(struct cake *c)
{
	int	rv;

	cake_flush(c);
	h_free_dropped(c);
	rv = cake_check_invariants(c);
	cake_destroy(c);
	return rv;
}

/* Not csum.c's sum: h_ipv4_csum_ok() checks the engine's rewrites. */
static uint16_t
ip_csum(const uint8_t *p, unsigned int len)
{
	uint32_t	sum = 0;
	unsigned int	i;

	for (i = 0; i < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

bool
h_ipv4_csum_ok(const uint8_t *ip)
{
	return ip_csum(ip, (unsigned int)(ip[0] & 0xf) * 4) == 0;
}

static void
ipv4_header(uint8_t *ip, uint32_t len, uint8_t tos, uint8_t proto,
    uint32_t src, uint32_t dst)
{
	ip[0] = 0x45;
	ip[1] = tos;
	csum_put16(ip + 2, (uint16_t)len);
	ip[8] = 64;
	ip[9] = proto;
	csum_put32(ip + 12, src);
	csum_put32(ip + 16, dst);
	csum_put16(ip + 10, ip_csum(ip, 20));
}

struct cake_pkt *
h_ipv4(const struct h_flow *f, bool eth)
{
	uint32_t	 off = eth ? 14 : 0;
	struct cake_pkt	*pkt = h_alloc(f->len + off);
	uint8_t		*ip;

	if (pkt == NULL)
		return NULL;
	if (eth) {
		pkt->data[5] = 2;
		pkt->data[11] = 1;
		csum_put16(pkt->data + 12, 0x0800);
	}
	ip = pkt->data + off;
	ipv4_header(ip, f->len, f->tos, f->proto, f->src, f->dst);
	csum_put16(ip + 20, f->sport);
	csum_put16(ip + 22, f->dport);
	if (f->proto == 17)
		csum_put16(ip + 24, (uint16_t)(f->len - 20));
	else if (f->proto == 6) {
		ip[32] = 5 << 4;
		ip[33] = 0x10;		/* ACK */
	}
	pkt->mark = f->mark;
	return pkt;
}

struct cake_pkt *
h_tcp_ack(uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport,
    uint32_t ack, uint8_t flags)
{
	struct cake_pkt	*pkt = h_alloc(40);
	uint8_t		*ip;

	if (pkt == NULL)
		return NULL;
	ip = pkt->data;
	ipv4_header(ip, 40, 0, 6, src, dst);
	csum_put16(ip + 20, sport);
	csum_put16(ip + 22, dport);
	csum_put32(ip + 28, ack);
	ip[32] = 5 << 4;
	ip[33] = flags;
	csum_put16(ip + 34, 65535);
	return pkt;
}

struct h_flow *
h_add_flow(struct h_sim *s, uint8_t proto, uint32_t src, uint32_t dst,
    uint16_t sport, uint32_t len)
{
	struct h_flow	*f;

	if (s->nflows >= H_MAX_FLOWS)
		return NULL;
	f = &s->flows[s->nflows++];
	memset(f, 0, sizeof(*f));
	f->proto = proto;
	f->src = src;
	f->dst = dst;
	f->sport = sport;
	f->dport = 5201;
	f->len = len;
	f->depth = 8;
	return f;
}

static void
account_drops(struct h_sim *s)
{
	struct cake_pkt	*p, *next;

	for (p = cake_take_dropped(s->c); p != NULL; p = next) {
		struct h_pkt	*h = (struct h_pkt *)p;

		next = p->next;
		if (h->flow >= 0 && p->drop_reason != CAKE_DROP_SPLIT) {
			s->flows[h->flow].queued--;
			s->flows[h->flow].dropped++;
		} else if (p->drop_reason != CAKE_DROP_SPLIT)
			s->other_drops++;
		h_free(p);
	}
}

static void
feed(struct h_sim *s)
{
	unsigned int	i;

	for (i = 0; i < s->nflows; i++) {
		struct h_flow	*f = &s->flows[i];

		for (;;) {
			struct cake_pkt	*p;

			if (f->every_ns != 0) {
				if (s->now_ns < f->next_send_ns)
					break;
				f->next_send_ns += f->every_ns;
			} else if (f->queued >= f->depth)
				break;
			if ((p = h_ipv4(f, false)) == NULL)
				return;
			((struct h_pkt *)p)->flow = (int)i;
			f->queued++;
			(void)cake_enqueue(s->c, p, s->now_ns);
			account_drops(s);
		}
	}
}

static void
drain(struct h_sim *s)
{
	struct cake_pkt	*p;
	unsigned int	 n = 0;

	while ((s->max_per_step == 0 || n++ < s->max_per_step) &&
	    (p = cake_dequeue(s->c, s->now_ns)) != NULL) {
		struct h_pkt	*h = (struct h_pkt *)p;
		uint64_t	 d = s->now_ns - p->enqueue_ns;

		if (h->flow >= 0) {
			struct h_flow *f = &s->flows[h->flow];

			f->queued--;
			f->sent_bytes += p->len;
			f->sent_pkts++;
			f->sum_delay_ns += d;
			if (d > f->max_delay_ns)
				f->max_delay_ns = d;
		}
		if ((p->data[1] & 3) == 3)
			s->marks++;
		h_free(p);
		account_drops(s);
	}
	account_drops(s);
}

void
h_run(struct h_sim *s, uint64_t dur_ns, uint64_t step_ns)
{
	uint64_t	end = s->now_ns + dur_ns;

	for (; s->now_ns < end; s->now_ns += step_ns) {
		feed(s);
		drain(s);
		if (s->check && cake_check_invariants(s->c) != 0)
			abort();
	}
}

double
h_share(const struct h_sim *s, unsigned int from, unsigned int to)
{
	uint64_t	all = 0, part = 0;
	unsigned int	i;

	for (i = 0; i < s->nflows; i++) {
		all += s->flows[i].sent_bytes;
		if (i >= from && i < to)
			part += s->flows[i].sent_bytes;
	}
	return all ? (double)part / (double)all : 0.0;
}
