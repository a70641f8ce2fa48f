/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * golden.h: compare printed output with a golden file under
 * TEST_GOLDEN_DIR, or rewrite the file when CAKED_GOLDEN_REGEN=1 (run
 * `make golden-regen`, then review the diff).
 */
#ifndef CAKED_TESTS_GOLDEN_H
#define CAKED_TESTS_GOLDEN_H

#include <stddef.h>

/* Fails the current cmocka test if text differs from the file name. */
void	golden_check(const char *name, const char *text, size_t len);
/* Reads a golden file into a malloc'd NUL-terminated buffer. */
char	*golden_read(const char *name, size_t *len);

#endif /* CAKED_TESTS_GOLDEN_H */
