/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * loop_nat.c: the NAT glue of the event loop. Conntrack runs on main;
 * with threads = 2 each packet thread keeps a cache of its own, fed by
 * main through an inbox (what conntrack learnt) and asking main through
 * another (its misses). Also the NAT counters of stats and SIGUSR1.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <event2/event.h>

#include "daemon/config.h"
#include "daemon/conntrack.h"
#include "daemon/datapath.h"
#include "daemon/inbox.h"
#include "daemon/log.h"
#include "daemon/natcache.h"
#include "daemon/timer.h"
#include "daemon/loop_int.h"

#define LOOP_NAT_IN_SLOTS	8192	/* conntrack's news for a thread */
#define LOOP_NAT_ASK_SLOTS	1024	/* a thread's misses for main */

/* What loop_nat_fn() gives a packet loop's directions. */
struct loop_natset {
	struct conntrack	*ct;
	bool			 nat[CONFIG_DIRS];
	bool			 mark[CONFIG_DIRS];
	uint32_t		 size;
	uint64_t		 expiry_ns;
	int			 rc;
};

/* The packet thread's side: what main's conntrack learnt, into its cache. */
static void
loop_on_nat_in(evutil_socket_t fd, short what, void *arg)
{
	struct loop_pkt		*p = arg;
	struct natcache_msg	 m;

	(void)fd;
	(void)what;
	inbox_ack(p->nat_in);
	while (inbox_take(p->nat_in, &m))
		(void)natcache_apply(p->nat_cache, &m);
}

/* Main's side: a packet thread's misses become conntrack queries. */
static void
loop_on_nat_ask(evutil_socket_t fd, short what, void *arg)
{
	struct loop_pkt		*p = arg;
	struct cake_tuple	 t;
	uint64_t		 now_ns = timer_now_ns();

	(void)fd;
	(void)what;
	inbox_ack(p->nat_ask);
	while (inbox_take(p->nat_ask, &t))
		if (p->loop->nat != NULL)
			conntrack_ask(p->loop->nat, &t, now_ns);
}

/*
 * conntrack's sink with threads = 2: each thread gets every connection
 * (its cache then answers the lookups of its own direction). A full
 * inbox loses the news, counted; the thread's next miss asks again.
 */
static void
loop_nat_sink(void *arg, const struct natcache_msg *m)
{
	struct loop	*l = arg;
	unsigned int	 i;

	for (i = 0; i < l->npkt; i++)
		if (l->pkt[i].nat_in != NULL)
			(void)inbox_post(l->pkt[i].nat_in, m);
}

/*
 * On p's thread (or before it starts): its cache, made on first use by
 * the thread that owns it, with the event that fills it on p's base.
 */
static int
loop_nat_cache(struct loop_pkt *p, const struct loop_natset *s)
{
	uint64_t	seed = timer_now_ns() ^ (uint64_t)(uintptr_t)p;
	unsigned int	i;

	if (p->nat_cache != NULL) {
		natcache_set_expiry(p->nat_cache, s->expiry_ns);
		return 0;
	}
	if ((p->ev_nat_in = event_new(p->base, inbox_fd(p->nat_in),
	    EV_READ | EV_PERSIST, loop_on_nat_in, p)) == NULL)
		return -1;
	if ((p->nat_cache = natcache_create(s->size, s->expiry_ns, seed)) ==
	    NULL || event_add(p->ev_nat_in, NULL) == -1) {
		natcache_destroy(p->nat_cache);
		p->nat_cache = NULL;
		loop_event_free(&p->ev_nat_in);
		return -1;
	}
	for (i = 0; i < p->ndirs; i++)
		datapath_set_natcache(&p->dir[i]->dp, p->nat_cache, p->nat_ask,
		    p->dir[i]->index == CONFIG_DOWNLOAD);
	return 0;
}

/* Where p's packets move: their lookups and what they take from them. */
static void
loop_nat_fn(struct loop_pkt *p, void *arg)
{
	struct loop_natset	*s = arg;
	struct loop_dir		*d;
	unsigned int		 i;
	int			 dir;

	if (p->threaded && (s->rc = loop_nat_cache(p, s)) == -1)
		return;
	for (i = 0; i < p->ndirs; i++) {
		d = p->dir[i];
		dir = d->index;
		if (!p->threaded)
			datapath_set_conntrack(&d->dp, s->ct,
			    dir == CONFIG_DOWNLOAD);
		datapath_set_nat(&d->dp, s->nat[dir], s->mark[dir]);
	}
}

/* threads = 2, on main: p's inboxes to and from its cache. */
static int
loop_nat_inboxes(struct loop *l, struct loop_pkt *p)
{
	if (p->nat_in != NULL)
		return 0;
	if ((p->nat_in = inbox_create(LOOP_NAT_IN_SLOTS,
	    sizeof(struct natcache_msg))) == NULL ||
	    (p->nat_ask = inbox_create(LOOP_NAT_ASK_SLOTS,
	    sizeof(struct cake_tuple))) == NULL ||
	    (p->ev_nat_ask = event_new(l->base, inbox_fd(p->nat_ask),
	    EV_READ | EV_PERSIST, loop_on_nat_ask, p)) == NULL ||
	    event_add(p->ev_nat_ask, NULL) == -1)
		return -1;
	return 0;
}

/* Opens conntrack (and the threads' inboxes); warns once if it cannot. */
static void
loop_nat_open(struct loop *l, const struct caked_config *cfg)
{
	char		why[128] = "";
	unsigned int	i;

	l->nat = conntrack_open(l->base, cfg->nat_cache_size,
	    cfg->nat_cache_expiry_s * 1000000000ULL, why, sizeof(why));
	for (i = 0; l->nat != NULL && i < l->npkt && l->pkt[i].threaded; i++)
		if (loop_nat_inboxes(l, &l->pkt[i]) == -1) {
			(void)snprintf(why, sizeof(why), "packet thread "
			    "inbox: %s", strerror(errno));
			conntrack_close(l->nat);
			l->nat = NULL;
		}
	if (l->nat == NULL) {
		log_warnx("conntrack unavailable (%s): nat and fwmark marks "
		    "disabled, shaping continues", why);
		l->nat_warned = true;
		return;
	}
	if (l->npkt > 1)
		conntrack_set_sink(l->nat, loop_nat_sink, l);
	log_info("conntrack: NAT cache of %u entries%s, expiry %us",
	    cfg->nat_cache_size, l->npkt > 1 ? " per packet thread" : "",
	    cfg->nat_cache_expiry_s);
}

/*
 * Opens conntrack the first time a direction needs it (nat or fwmark),
 * then tells each packet loop what to look up; when conntrack cannot be
 * used, warns once and shapes on without it.
 */
void
loop_nat(struct loop *l, const struct caked_config *cfg)
{
	struct loop_natset	s = { .size = cfg->nat_cache_size,
				    .expiry_ns = cfg->nat_cache_expiry_s *
				    1000000000ULL };
	int			i, need = 0;

	for (i = 0; i < CONFIG_DIRS; i++) {
		s.nat[i] = cfg->cake[i].nat;
		s.mark[i] = cfg->cake[i].fwmark_mask != 0;
		need |= s.nat[i] || s.mark[i];
	}
	if (l->nat == NULL && need && !l->nat_warned)
		loop_nat_open(l, cfg);
	if ((s.ct = l->nat) == NULL)
		return;
	conntrack_set_expiry(l->nat, s.expiry_ns);
	for (i = 0; i < (int)l->npkt; i++)
		if (loop_call(&l->pkt[i], loop_nat_fn, &s) == -1 || s.rc == -1)
			log_warnx("%s: busy or out of memory, nat and fwmark "
			    "not applied", l->pkt[i].dir[0]->dp.name);
}

/*
 * threads = 2: messages lost to full NAT inboxes, summed over the packet
 * threads (each is asked or learnt again later, but many mean the inboxes
 * are too small). false when there are no such inboxes (threads = 1).
 */
bool
loop_nat_lost(const struct loop *l, uint64_t *news, uint64_t *asks)
{
	unsigned int	i;
	bool		any = false;

	*news = *asks = 0;
	for (i = 0; i < l->npkt; i++) {
		if (l->pkt[i].nat_in == NULL)
			continue;
		*news += inbox_refused(l->pkt[i].nat_in);
		*asks += inbox_refused(l->pkt[i].nat_ask);
		any = true;
	}
	return any;
}

/* SIGUSR1: the same sums as stats' inbox_lost_news and inbox_lost_asks. */
void
loop_nat_log_lost(const struct loop *l)
{
	uint64_t	news, asks;

	if (!loop_nat_lost(l, &news, &asks))
		return;
	log_info("nat: packet threads' inboxes full: %llu conntrack news "
	    "and %llu questions lost", (unsigned long long)news,
	    (unsigned long long)asks);
}

/* NAT counters: conntrack's, with the threads' caches summed. */
static void
loop_nat_stats_fn(struct loop_pkt *p, void *arg)
{
	struct natcache_stats	*sum = arg, c;

	if (p->nat_cache == NULL)
		return;
	natcache_get_stats(p->nat_cache, &c);
	sum->hits += c.hits;
	sum->neg_hits += c.neg_hits;
	sum->misses += c.misses;
	sum->inserts += c.inserts;
	sum->updates += c.updates;
	sum->evictions += c.evictions;
	sum->expiries += c.expiries;
	sum->removals += c.removals;
	sum->entries += c.entries;
	sum->size += c.size;
}

/* A busy thread's cache is left out of the sums (-1 then). */
int
loop_nat_stats(struct loop *l, struct conntrack_stats *st)
{
	unsigned int	i;
	int		rc = 0;

	conntrack_get_stats(l->nat, st);
	if (l->npkt < 2)
		return 0;
	memset(&st->cache, 0, sizeof(st->cache));
	for (i = 0; i < l->npkt; i++)
		if (loop_call(&l->pkt[i], loop_nat_stats_fn, &st->cache) ==
		    -1)
			rc = -1;
	return rc;
}
