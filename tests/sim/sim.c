/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * sim.c: the simulator's event core. It owns the fake clock, a min-heap of
 * source events, a pool of packet buffers and the link: the engine is the
 * bottleneck shaper, so the link simply takes every packet group_dequeue()
 * releases, at the instants group_next_ns() names. The clock jumps from one
 * instant to the next (the earlier of the next source event and the
 * engine's next release), so an idle or slow link costs nothing.
 *
 * The engine is a worker group (include/caked/group.h): with one worker,
 * exactly one instance; with more, the group lends the rate between them.
 * It knows nothing of traffic shapes (sources.c) or of what a scenario
 * asserts (scenarios.c), and uses only the public engine API.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caked/cake.h"
#include "caked/group.h"
#include "caked/keywords.h"
#include "sim.h"

#define SIM_POOL_CHUNK	1024		/* packets allocated at a time */

uint64_t
sim_rand(struct sim *s)
{
	uint64_t	z = (s->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t
sim_rand_below(struct sim *s, uint64_t n)
{
	return n == 0 ? 0 : sim_rand(s) % n;
}

static int
pool_grow(struct sim *s)
{
	struct sim_pkt	*chunk;
	void		**nc;
	uint32_t	  i;

	chunk = calloc(SIM_POOL_CHUNK, sizeof(*chunk));
	nc = realloc(s->chunks, (s->nchunks + 1) * sizeof(*nc));
	if (chunk == NULL || nc == NULL) {
		free(chunk);
		if (nc != NULL)
			s->chunks = nc;
		return -1;
	}
	s->chunks = nc;
	s->chunks[s->nchunks++] = chunk;
	for (i = 0; i < SIM_POOL_CHUNK; i++) {
		chunk[i].pkt.next = s->free_list;
		s->free_list = &chunk[i].pkt;
	}
	s->pool_pkts += SIM_POOL_CHUNK;
	return 0;
}

struct sim_pkt *
sim_pkt_get(struct sim *s)
{
	struct sim_pkt	*p;

	if (s->free_list == NULL && pool_grow(s) != 0)
		return NULL;
	p = (struct sim_pkt *)s->free_list;
	s->free_list = p->pkt.next;
	memset(&p->pkt, 0, sizeof(p->pkt));
	p->pkt.data = p->buf;
	p->pkt.cap = sizeof(p->buf);
	p->pkt.truesize = SIM_PKT_TRUESIZE;
	p->src = UINT32_MAX;
	p->enq_ns = 0;
	if (++s->pool_out > s->pool_out_max)
		s->pool_out_max = s->pool_out;
	return p;
}

void
sim_pkt_put(struct sim *s, struct cake_pkt *pkt)
{
	pkt->next = s->free_list;
	s->free_list = pkt;
	s->pool_out--;
}

static struct cake_pkt *
seg_alloc(void *arg, uint32_t cap)
{
	struct sim_pkt	*p;

	if (cap > SIM_PKT_CAP || (p = sim_pkt_get(arg)) == NULL)
		return NULL;
	return &p->pkt;
}

int
sim_init(struct sim *s, const char *keywords, unsigned int workers,
    uint64_t seed, char *err, size_t errlen)
{
	struct cake_config	cfg;
	struct cake_env		env;
	int			e = 0;

	memset(s, 0, sizeof(*s));
	s->seed = seed;
	s->rng = seed;
	cake_config_default(&cfg);
	if (keywords_parse_line(&cfg, keywords, err, errlen) != 0)
		return -1;
	memset(&env, 0, sizeof(env));
	env.link = CAKE_LINK_IP;
	env.mtu = 1500;
	env.seed = seed;
	env.alloc = seg_alloc;
	env.alloc_arg = s;
	if ((s->g = group_create(&cfg, &env, workers, GROUP_SIDE_SRC, &e)) ==
	    NULL) {
		snprintf(err, errlen, "group_create: %s", cake_strerror(e));
		return -1;
	}
	return 0;
}

void
sim_done(struct sim *s)
{
	uint32_t	i;

	if (s->g != NULL) {
		group_flush(s->g);
		(void)group_take_dropped(s->g);
		group_destroy(s->g);
	}
	for (i = 0; i < s->nchunks; i++)
		free(s->chunks[i]);
	free(s->chunks);
	free(s->srcs);
	free(s->heap);
	memset(s, 0, sizeof(*s));
}

int
sim_add(struct sim *s, const struct sim_src *tmpl)
{
	struct sim_src	*n;

	if (s->nsrcs == s->srcs_cap) {
		uint32_t cap = s->srcs_cap ? s->srcs_cap * 2 : 64;

		if ((n = realloc(s->srcs, cap * sizeof(*n))) == NULL)
			return -1;
		s->srcs = n;
		s->srcs_cap = cap;
	}
	s->srcs[s->nsrcs] = *tmpl;
	if (tmpl->host >= s->nhosts)
		s->nhosts = tmpl->host + 1;
	return (int)s->nsrcs++;
}

static bool
ev_before(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->t_ns < b->t_ns || (a->t_ns == b->t_ns && a->order < b->order);
}

void
sim_schedule(struct sim *s, uint64_t t_ns, uint32_t src,
    enum sim_ev_kind kind, uint8_t flag)
{
	struct sim_ev	ev, *n;
	uint32_t	i;

	if (s->nev == s->ev_cap) {
		uint32_t cap = s->ev_cap ? s->ev_cap * 2 : 1024;

		if ((n = realloc(s->heap, cap * sizeof(*n))) == NULL)
			abort();	/* test code: out of memory is fatal */
		s->heap = n;
		s->ev_cap = cap;
	}
	ev.t_ns = t_ns;
	ev.order = s->ev_order++;
	ev.src = src;
	ev.kind = (uint8_t)kind;
	ev.flag = flag;
	for (i = s->nev++; i > 0; i = (i - 1) / 2) {
		if (!ev_before(&ev, &s->heap[(i - 1) / 2]))
			break;
		s->heap[i] = s->heap[(i - 1) / 2];
	}
	s->heap[i] = ev;
}

static void
heap_pop(struct sim *s, struct sim_ev *out)
{
	struct sim_ev	last;
	uint32_t	i = 0, c;

	*out = s->heap[0];
	last = s->heap[--s->nev];
	while ((c = 2 * i + 1) < s->nev) {
		if (c + 1 < s->nev && ev_before(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!ev_before(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	s->heap[i] = last;
}

static void
settle_drops(struct sim *s)
{
	struct cake_pkt	*p, *next;

	for (p = group_take_dropped(s->g); p != NULL; p = next) {
		struct sim_pkt	*sp = (struct sim_pkt *)p;

		next = p->next;
		if (p->drop_reason != CAKE_DROP_SPLIT) {
			if (sp->src != UINT32_MAX)
				sources_dropped(s, sp);
			else
				s->other_drops++;
		}
		sim_pkt_put(s, p);
	}
}

void
sim_enqueue(struct sim *s, struct sim_pkt *p)
{
	p->enq_ns = s->now_ns;
	(void)group_enqueue(s->g, &p->pkt, s->now_ns);
	settle_drops(s);
}

static void
tick(struct sim *s)
{
	int	line;

	if (!s->check || ++s->events % SIM_INVARIANT_EVERY != 0)
		return;
	if ((line = group_check_invariants(s->g)) != 0 &&
	    s->invariant_line == 0) {
		s->invariant_line = line;
		fprintf(stderr, "caked-sim: invariant broken (line %d) at "
		    "t=%.6fs\n", line, (double)s->now_ns / 1e9);
	}
}

/* The link takes every packet the engine releases now. */
static void
link_drain(struct sim *s)
{
	struct cake_pkt	*p;

	while ((p = group_dequeue(s->g, s->now_ns)) != NULL) {
		struct sim_pkt	*sp = (struct sim_pkt *)p;

		settle_drops(s);
		if (s->now_ns >= s->measure_from_ns) {
			s->link_bytes += p->len;
			s->link_pkts++;
		}
		if (sp->src != UINT32_MAX)
			sources_delivered(s, sp);
		sim_pkt_put(s, p);
		tick(s);
	}
	settle_drops(s);
}

void
sim_run(struct sim *s, uint64_t until_ns)
{
	struct sim_ev	ev;
	uint64_t	t_link, t;

	if (s->now_ns == 0 && s->ev_order == 0)
		sources_start(s);
	while (s->now_ns < until_ns) {
		t_link = group_next_ns(s->g, s->now_ns);
		t = until_ns;
		if (t_link < t)
			t = t_link;
		if (s->nev > 0 && s->heap[0].t_ns < t)
			t = s->heap[0].t_ns;
		if (t > s->now_ns)
			s->now_ns = t;
		if (t_link <= s->now_ns) {
			link_drain(s);
			/* Nothing left to release now: let time move on. */
			if (group_next_ns(s->g, s->now_ns) <= s->now_ns &&
			    (s->nev == 0 || s->heap[0].t_ns > s->now_ns)) {
				s->idle_spins++;
				s->now_ns++;
			}
		}
		while (s->nev > 0 && s->heap[0].t_ns <= s->now_ns) {
			heap_pop(s, &ev);
			sources_event(s, &ev);
			tick(s);
		}
	}
}
