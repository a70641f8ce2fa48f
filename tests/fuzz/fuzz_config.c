/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fuzz_config.c: the configuration loader (src/daemon/config.c with
 * inifile.c and iniparser) on hostile files.
 *
 * Input: the bytes of a caked.conf, written to a temporary file (iniparser
 * loads only by path). Invariants: every reported error is one line; a
 * file that loads prints (config_print), the printed file loads again to
 * a configuration that needs no restart against the first and prints the
 * same text. The temporary files are removed at exit.
 */
#include <sys/types.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/config.h"
#include "fuzz.h"

#define CONF_INPUT_MAX	(64 * 1024)

static char	conf_path[2][64];

static void
conf_cleanup(void)
{
	int	i;

	for (i = 0; i < 2; i++)
		if (conf_path[i][0] != '\0')
			(void)unlink(conf_path[i]);
}

/* Creates the two temporary files once. */
static int
conf_init(void)
{
	const char	*tmp = getenv("TMPDIR");
	int		 i, fd;

	if (conf_path[1][0] != '\0')
		return 0;
	for (i = 0; i < 2; i++) {
		(void)snprintf(conf_path[i], sizeof(conf_path[i]),
		    "%s/fuzzconf.XXXXXX", tmp != NULL && strlen(tmp) < 40 ?
		    tmp : "/tmp");
		if ((fd = mkstemp(conf_path[i])) == -1)
			return -1;
		close(fd);
	}
	atexit(conf_cleanup);
	return 0;
}

static int
conf_write(const char *path, const void *data, size_t size)
{
	int	fd, rv = 0;

	if ((fd = open(path, O_WRONLY | O_TRUNC)) == -1)
		return -1;
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		rv = -1;
	close(fd);
	return rv;
}

static void
conf_report(void *arg, const char *msg)
{
	unsigned int	*n = arg;

	FUZZ_ASSERT(strchr(msg, '\n') == NULL);
	(*n)++;
}

/* Prints cfg into a malloc'd string; NULL on failure. */
static char *
conf_print(const struct caked_config *cfg, size_t *len)
{
	FILE	*fp;
	char	*text = NULL;
	int	 rv;

	if ((fp = open_memstream(&text, len)) == NULL)
		return NULL;
	rv = config_print(cfg, fp);
	fclose(fp);
	FUZZ_ASSERT(rv == 0);
	return text;
}

static void
conf_round_trip(const struct caked_config *cfg)
{
	struct caked_config	 again;
	unsigned int		 errs = 0;
	char			*t1, *t2;
	size_t			 l1, l2;

	if ((t1 = conf_print(cfg, &l1)) == NULL)
		return;
	FUZZ_ASSERT(conf_write(conf_path[1], t1, l1) == 0);
	if (config_load(conf_path[1], &again, conf_report, &errs) != 0) {
		fprintf(stderr, "printed config does not load:\n%s", t1);
		FUZZ_ASSERT(!"the printed config loads");
	}
	FUZZ_ASSERT(config_restart_needed(cfg, &again) == NULL);
	t2 = conf_print(&again, &l2);
	FUZZ_ASSERT(t2 != NULL && l1 == l2 && memcmp(t1, t2, l1) == 0);
	free(t1);
	free(t2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct caked_config	cfg;
	unsigned int		errs = 0;

	if (size > CONF_INPUT_MAX || conf_init() == -1)
		return 0;
	FUZZ_ASSERT(conf_write(conf_path[0], data, size) == 0);
	if (config_load(conf_path[0], &cfg, conf_report, &errs) == 0)
		conf_round_trip(&cfg);
	else
		FUZZ_ASSERT(errs > 0);
	return 0;
}
