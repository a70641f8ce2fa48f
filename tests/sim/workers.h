/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * workers.h: the scenarios of a worker group (include/caked/group.h):
 * rate accuracy beside one instance, host fairness across workers, and
 * how fast an idle worker's share is lent to a busy one.
 */
#ifndef CAKED_SIM_WORKERS_H
#define CAKED_SIM_WORKERS_H

#include "sim.h"

struct scenario;

/* Every worker scenario's warm-up and measured window. */
#define WORKERS_WARMUP_NS	SIM_S
#define WORKERS_DURATION_NS	(4 * SIM_S)

/* Rate accuracy (mixed load, one worker going light half-way). */
void	workers_rate_setup(struct sim *s);
int	workers_rate_check(struct sim *s, const struct scenario *sc);
/* A light host beside bulk hosts: bulk hosts alike across workers. */
void	workers_sparse_setup(struct sim *s);
int	workers_sparse_check(struct sim *s, const struct scenario *sc);
/* One TCP-like flow on one worker, the other idle. */
void	workers_tcp_setup(struct sim *s);
int	workers_tcp_check(struct sim *s, const struct scenario *sc);
/* Host A (1 flow) and host B (4 flows) on different workers. */
void	workers_hosts_setup(struct sim *s);
int	workers_hosts_check(struct sim *s, const struct scenario *sc);
/* A and B on one worker, C on the other. */
void	workers_collide_setup(struct sim *s);
int	workers_collide_check(struct sim *s, const struct scenario *sc);
/* B's worker goes idle: the time until A's worker is lent 95 %. */
void	workers_idle_setup(struct sim *s);
void	workers_idle_run(struct sim *s, const struct scenario *sc);
int	workers_idle_check(struct sim *s, const struct scenario *sc);

#endif /* CAKED_SIM_WORKERS_H */
