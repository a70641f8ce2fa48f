/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * report.h: figures computed from a finished simulation (Jain's fairness
 * index, per-host sums, delays) and the CSV report of --csv. Reads the
 * simulation's counters only; never touches the engine's state.
 */
#ifndef CAKED_SIM_REPORT_H
#define CAKED_SIM_REPORT_H

#include <stdint.h>
#include <stdio.h>

struct sim;

/* Jain's index (sum x)^2 / (n sum x^2) of x[0..n); 1 for n = 0. */
double	report_jain(const double *x, uint32_t n);
/* Jain's index over hosts' delivered bytes (hosts with no source skipped). */
double	report_jain_hosts(const struct sim *s);
/* Jain's index over sources of kind (-1: all) that delivered something. */
double	report_jain_srcs(const struct sim *s, int kind, uint32_t *served);
/* Bytes delivered by sources of a kind (-1: all). */
uint64_t report_bytes(const struct sim *s, int kind);
/* Packets of a kind (-1: all) the engine dropped. */
uint64_t report_drops(const struct sim *s, int kind);
/* Mean and max sojourn (ns) of the delivered packets of a kind (-1: all). */
double	report_mean_delay_ns(const struct sim *s, int kind);
uint64_t report_max_delay_ns(const struct sim *s, int kind);
/* Per-flow and per-host throughput and delay as CSV over window_ns. */
void	report_csv(const struct sim *s, FILE *f, uint64_t window_ns);

#endif /* CAKED_SIM_REPORT_H */
