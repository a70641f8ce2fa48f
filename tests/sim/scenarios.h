/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * scenarios.h: the simulator's named scenarios. Each one configures an
 * engine with a keyword line, adds its traffic sources and, in --check
 * mode, asserts what CAKE promises, printing the measured figures.
 */
#ifndef CAKED_SIM_SCENARIOS_H
#define CAKED_SIM_SCENARIOS_H

#include <stdint.h>

struct sim;

struct scenario {
	const char	*name;
	const char	*desc;
	const char	*keywords;	/* engine configuration */
	uint64_t	 warmup_ns;	/* not measured */
	uint64_t	 duration_ns;	/* measured after the warm-up */
	void		(*setup)(struct sim *);
	/* Prints "name: figure=... (>= ...) PASS" lines; 0 if all pass. */
	int		(*check)(struct sim *, const struct scenario *);
};

/* The scenario called name, or NULL. */
const struct scenario	*scenarios_find(const char *name);
/* The i-th scenario, or NULL past the end. */
const struct scenario	*scenarios_get(unsigned int i);

#endif /* CAKED_SIM_SCENARIOS_H */
