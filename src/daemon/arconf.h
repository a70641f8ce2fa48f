/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * arconf.h: the autorate keys of caked.conf (see caked.conf(5)): read,
 * validated and printed beside config.c, which calls these hooks.
 */
#ifndef CAKED_DAEMON_ARCONF_H
#define CAKED_DAEMON_ARCONF_H

#include <stdbool.h>
#include <stdio.h>

#include <iniparser.h>

struct caked_config;
struct inifile;

/* Whether key is an autorate key of [general] (general) or a direction. */
bool	arconf_known_key(bool general, const char *key);
/*
 * Reads every autorate key of the file into cfg, reporting each problem
 * through inifile_error(). sections: the names of sections 0 (general),
 * 1 (upload) and 2 (download). With autorate on, a direction starts at
 * its base rate.
 */
void	arconf_load(struct inifile *f, dictionary *d,
	    const char *const sections[3], struct caked_config *cfg);
/* Prints the [general] autorate keys, then those of direction dir. */
void	arconf_print_general(const struct caked_config *cfg, FILE *fp);
void	arconf_print_dir(const struct caked_config *cfg, int dir, FILE *fp);

#endif /* CAKED_DAEMON_ARCONF_H */
