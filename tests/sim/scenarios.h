/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * scenarios.h: the simulator's named scenarios. Each one configures an
 * engine with a keyword line, adds its traffic sources and, in --check
 * mode, asserts what CAKE promises, printing the measured figures.
 */
#ifndef CAKED_SIM_SCENARIOS_H
#define CAKED_SIM_SCENARIOS_H

#include <stdbool.h>
#include <stdint.h>

enum sim_kind;
struct sim;
struct sim_src;

struct scenario {
	const char	*name;
	const char	*desc;
	const char	*keywords;	/* engine configuration */
	uint64_t	 warmup_ns;	/* not measured */
	uint64_t	 duration_ns;	/* measured after the warm-up */
	void		(*setup)(struct sim *);
	/* Prints "name: figure=... (>= ...) PASS" lines; 0 if all pass. */
	int		(*check)(struct sim *, const struct scenario *);
	unsigned int	 workers;	/* engine workers; 0 = 1 */
	/* Runs the simulation to its end (NULL: sim_run() does). */
	void		(*run)(struct sim *, const struct scenario *);
};

/* A source of kind for host (address 10.x.y.2) sending to a server. */
void	scenarios_src_init(struct sim_src *src, enum sim_kind kind,
	    uint32_t host, uint16_t sport);
/* Adds a source; aborts when out of memory (test code). */
void	scenarios_add(struct sim *s, const struct sim_src *src);
/* Prints one figure against its threshold; returns 0 if it holds. */
int	scenarios_verdict(const struct scenario *sc, const char *fig,
	    double v, bool at_least, double thr);
/* The checks every scenario shares: invariants held, memory bounded. */
int	scenarios_common(struct sim *s, const struct scenario *sc);

/* The scenario called name, or NULL. */
const struct scenario	*scenarios_find(const char *name);
/* The i-th scenario, or NULL past the end. */
const struct scenario	*scenarios_get(unsigned int i);

#endif /* CAKED_SIM_SCENARIOS_H */
