/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * main.c: the caked-sim command line. Runs one scenario (or, with --check
 * and no --scenario, all of them) and prints either the assertions'
 * figures (--check, exit 1 on a failure) or a CSV report (--csv).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"
#include "scenarios.h"
#include "sim.h"

static void
usage(void)
{
	fprintf(stderr, "usage: caked-sim [--check] [--csv] [--list] "
	    "[--scenario name] [--seed n]\n");
	exit(2);
}

static double
wall_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
run(const struct scenario *sc, uint64_t seed, bool check, bool csv)
{
	struct sim	s;
	char		err[160];
	double		t0 = wall_s();
	int		rc = 0;

	if (sim_init(&s, sc->keywords, sc->workers ? sc->workers : 1, seed,
	    err, sizeof(err)) != 0) {
		fprintf(stderr, "caked-sim: %s: %s\n", sc->name, err);
		return 1;
	}
	s.check = check;
	sc->setup(&s);
	s.measure_from_ns = sc->warmup_ns;
	if (sc->run != NULL)
		sc->run(&s, sc);
	else
		sim_run(&s, sc->warmup_ns + sc->duration_ns);
	if (csv)
		report_csv(&s, stdout, sc->duration_ns);
	if (check) {
		rc = sc->check(&s, sc);
		printf("%s: %s (seed %llu, %.1f s simulated, %llu pkts, "
		    "%.2f s wall)\n", sc->name, rc ? "FAIL" : "PASS",
		    (unsigned long long)seed,
		    (double)(sc->warmup_ns + sc->duration_ns) / 1e9,
		    (unsigned long long)s.link_pkts, wall_s() - t0);
	}
	sim_done(&s);
	return rc;
}

int
main(int argc, char *argv[])
{
	static const struct option	opts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ "csv", no_argument, NULL, 'C' },
		{ "list", no_argument, NULL, 'l' },
		{ "scenario", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	const struct scenario	*sc = NULL;
	uint64_t		 seed = 1;
	bool			 check = false, csv = false;
	unsigned int		 i;
	int			 ch, rc = 0;
	char			*end;

	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			check = true;
			break;
		case 'C':
			csv = true;
			break;
		case 'l':
			for (i = 0; (sc = scenarios_get(i)) != NULL; i++)
				printf("%-14s %s\n", sc->name, sc->desc);
			return 0;
		case 's':
			if ((sc = scenarios_find(optarg)) == NULL) {
				fprintf(stderr, "caked-sim: unknown scenario "
				    "'%s' (see --list)\n", optarg);
				return 2;
			}
			break;
		case 'S':
			seed = strtoull(optarg, &end, 0);
			if (*optarg == '\0' || *end != '\0')
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc || (!check && !csv) || (sc == NULL && csv))
		usage();
	if (sc != NULL)
		return run(sc, seed, check, csv);
	for (i = 0; (sc = scenarios_get(i)) != NULL; i++)
		rc |= run(sc, seed, check, false);
	return rc;
}
