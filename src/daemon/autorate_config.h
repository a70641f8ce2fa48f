/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * autorate_config.h: the autorate keys of caked.conf (see caked.conf(5)): read,
 * validated and printed beside config.c, which calls these hooks.
 */
#ifndef CAKED_DAEMON_AUTORATE_CONFIG_H
#define CAKED_DAEMON_AUTORATE_CONFIG_H

#include <stdbool.h>
#include <stdio.h>

#include <iniparser.h>

struct caked_config;
struct inifile;

/* Whether key is an autorate key of [general] (general) or a direction. */
bool	autorate_config_known_key(bool general, const char *key);
/*
 * Reads every autorate key of the file into cfg, reporting each problem
 * through inifile_error(). sections: the names of sections 0 (general),
 * 1 (upload) and 2 (download). With autorate on, a direction starts at
 * its base rate.
 */
void	autorate_config_load(struct inifile *f, dictionary *d,
	    const char *const sections[3], struct caked_config *cfg);
/* Prints the [general] autorate keys, then those of direction dir. */
void	autorate_config_print_general(const struct caked_config *cfg, FILE *fp);
void	autorate_config_print_dir(const struct caked_config *cfg, int dir,
	    FILE *fp);

#endif /* CAKED_DAEMON_AUTORATE_CONFIG_H */
