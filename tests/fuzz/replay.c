/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * replay.c: a plain main() for the fuzz harnesses, so that the committed
 * corpus is replayed in every build (`make check`), with any compiler.
 *
 *   replay-NAME [FILE|DIR]...
 *
 * Without arguments it replays the corpus directory compiled in
 * (FUZZ_CORPUS, tests/fuzz/corpus/NAME). Each file is one input; a broken
 * invariant aborts and an input running over REPLAY_TIMEOUT_S is killed by
 * SIGALRM, either of which fails the test. It must not depend on libFuzzer.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#define REPLAY_INPUT_MAX	(1024 * 1024)
#define REPLAY_TIMEOUT_S	60	/* per input: a hang fails the test */

static int
replay_file(const char *path)
{
	static uint8_t	 buf[REPLAY_INPUT_MAX];
	FILE		*fp;
	size_t		 n;

	if ((fp = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	n = fread(buf, 1, sizeof(buf), fp);
	if (ferror(fp)) {
		fprintf(stderr, "%s: read error\n", path);
		fclose(fp);
		return -1;
	}
	fclose(fp);
	(void)alarm(REPLAY_TIMEOUT_S);	/* SIGALRM ends the run */
	(void)LLVMFuzzerTestOneInput(buf, n);
	(void)alarm(0);
	return 0;
}

static int
replay_filter(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Replays every file of dir in name order; returns how many, or -1. */
static int
replay_dir(const char *dir)
{
	struct dirent	**names;
	char		  path[4096];
	int		  i, n, count = 0;

	if ((n = scandir(dir, &names, replay_filter, alphasort)) == -1) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		(void)snprintf(path, sizeof(path), "%s/%s", dir,
		    names[i]->d_name);
		if (replay_file(path) == 0)
			count++;
		else
			count = -1 - n;
		free(names[i]);
	}
	free(names);
	return count < 0 ? -1 : count;
}

static int
replay_arg(const char *arg)
{
	struct stat	st;
	int		n;

	if (stat(arg, &st) == -1) {
		fprintf(stderr, "%s: %s\n", arg, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(arg) == 0 ? 1 : -1;
	if ((n = replay_dir(arg)) == 0) {
		fprintf(stderr, "%s: no corpus files\n", arg);
		return -1;
	}
	return n;
}

int
main(int argc, char *argv[])
{
	const char	*dflt[] = { FUZZ_CORPUS };
	char *const	*args = argv + 1;
	int		 i, n, total = 0, nargs = argc - 1;

	if (nargs == 0) {
		args = (char *const *)dflt;
		nargs = 1;
	}
	for (i = 0; i < nargs; i++) {
		if ((n = replay_arg(args[i])) < 0)
			return 1;
		total += n;
	}
	printf("replayed %d inputs without a failure\n", total);
	return 0;
}
