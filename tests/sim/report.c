/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * report.c: what a simulation measured, as figures for the scenarios'
 * assertions and as CSV for plotting (one row per flow, then one per host;
 * the first column says which). It only reads struct sim.
 */
#include <stdio.h>
#include <stdlib.h>

#include "report.h"
#include "sim.h"

static const char *const kind_names[] = {
	[SIM_SRC_BACKLOG] = "backlog",
	[SIM_SRC_CBR] = "cbr",
	[SIM_SRC_PROBE] = "probe",
	[SIM_SRC_TCP] = "tcp",
	[SIM_SRC_ACKS] = "acks",
};

double
report_jain(const double *x, uint32_t n)
{
	double		sum = 0, sq = 0;
	uint32_t	i;

	for (i = 0; i < n; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	return sq > 0 ? sum * sum / ((double)n * sq) : 1.0;
}

struct host_sum {
	uint64_t	bytes;
	uint64_t	pkts;
	uint64_t	delay_ns;
	uint64_t	drops;
	uint32_t	flows;
};

static struct host_sum *
host_sums(const struct sim *s)
{
	struct host_sum	*h;
	uint32_t	 i;

	if ((h = calloc(s->nhosts + 1, sizeof(*h))) == NULL)
		abort();		/* test code: out of memory is fatal */
	for (i = 0; i < s->nsrcs; i++) {
		const struct sim_src *src = &s->srcs[i];

		h[src->host].bytes += src->sent_bytes;
		h[src->host].pkts += src->sent_pkts;
		h[src->host].delay_ns += src->sum_delay_ns;
		h[src->host].drops += src->drops;
		h[src->host].flows++;
	}
	return h;
}

double
report_jain_hosts(const struct sim *s)
{
	struct host_sum	*h = host_sums(s);
	double		*x, j;
	uint32_t	 i, n = 0;

	if ((x = calloc(s->nhosts + 1, sizeof(*x))) == NULL)
		abort();
	for (i = 0; i < s->nhosts; i++)
		if (h[i].flows > 0)
			x[n++] = (double)h[i].bytes;
	j = report_jain(x, n);
	free(x);
	free(h);
	return j;
}

double
report_jain_srcs(const struct sim *s, int kind, uint32_t *served)
{
	double		*x, j;
	uint32_t	 i, n = 0;

	if ((x = calloc(s->nsrcs + 1, sizeof(*x))) == NULL)
		abort();
	for (i = 0; i < s->nsrcs; i++)
		if ((kind < 0 || s->srcs[i].kind == (enum sim_kind)kind) &&
		    s->srcs[i].sent_bytes > 0)
			x[n++] = (double)s->srcs[i].sent_bytes;
	j = report_jain(x, n);
	if (served != NULL)
		*served = n;
	free(x);
	return j;
}

uint64_t
report_bytes(const struct sim *s, int kind)
{
	uint64_t	b = 0;
	uint32_t	i;

	for (i = 0; i < s->nsrcs; i++)
		if (kind < 0 || s->srcs[i].kind == (enum sim_kind)kind)
			b += s->srcs[i].sent_bytes;
	return b;
}

uint64_t
report_drops(const struct sim *s, int kind)
{
	uint64_t	n = 0;
	uint32_t	i;

	for (i = 0; i < s->nsrcs; i++)
		if (kind < 0 || s->srcs[i].kind == (enum sim_kind)kind)
			n += s->srcs[i].drops;
	return n;
}

double
report_mean_delay_ns(const struct sim *s, int kind)
{
	uint64_t	sum = 0, n = 0;
	uint32_t	i;

	for (i = 0; i < s->nsrcs; i++)
		if (kind < 0 || s->srcs[i].kind == (enum sim_kind)kind) {
			sum += s->srcs[i].sum_delay_ns;
			n += s->srcs[i].sent_pkts;
		}
	return n ? (double)sum / (double)n : 0.0;
}

uint64_t
report_max_delay_ns(const struct sim *s, int kind)
{
	uint64_t	m = 0;
	uint32_t	i;

	for (i = 0; i < s->nsrcs; i++)
		if ((kind < 0 || s->srcs[i].kind == (enum sim_kind)kind) &&
		    s->srcs[i].max_delay_ns > m)
			m = s->srcs[i].max_delay_ns;
	return m;
}

static double
mbps(uint64_t bytes, uint64_t window_ns)
{
	return window_ns ? 8e3 * (double)bytes / (double)window_ns : 0.0;
}

static double
mean_ms(uint64_t sum_ns, uint64_t n)
{
	return n ? (double)sum_ns / (double)n / 1e6 : 0.0;
}

void
report_csv(const struct sim *s, FILE *f, uint64_t window_ns)
{
	struct host_sum	*h = host_sums(s);
	uint32_t	 i;

	fprintf(f, "record,id,host,kind,pkts,bytes,mbit_s,mean_delay_ms,"
	    "max_delay_ms,drops,marks,flows\n");
	for (i = 0; i < s->nsrcs; i++) {
		const struct sim_src *src = &s->srcs[i];

		fprintf(f, "flow,%u,%u,%s,%llu,%llu,%.4f,%.3f,%.3f,%llu,"
		    "%llu,1\n", i, src->host, kind_names[src->kind],
		    (unsigned long long)src->sent_pkts,
		    (unsigned long long)src->sent_bytes,
		    mbps(src->sent_bytes, window_ns),
		    mean_ms(src->sum_delay_ns, src->sent_pkts),
		    (double)src->max_delay_ns / 1e6,
		    (unsigned long long)src->drops,
		    (unsigned long long)src->marks);
	}
	for (i = 0; i < s->nhosts; i++) {
		if (h[i].flows == 0)
			continue;
		fprintf(f, "host,%u,%u,,%llu,%llu,%.4f,%.3f,,%llu,,%u\n", i, i,
		    (unsigned long long)h[i].pkts,
		    (unsigned long long)h[i].bytes, mbps(h[i].bytes, window_ns),
		    mean_ms(h[i].delay_ns, h[i].pkts),
		    (unsigned long long)h[i].drops, h[i].flows);
	}
	free(h);
}
