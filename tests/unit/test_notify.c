/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_notify.c: the service manager protocol (src/daemon/notify.c) as a
 * manager reads it from its socket, and the journal priority prefix of
 * src/daemon/log.c. tests/netns/test_notify.sh checks the same against
 * the running daemon.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/log.h"
#include "daemon/notify.h"

struct manager {
	char	dir[64];
	char	path[96];
	int	fd;
};

/* Binds a datagram socket in a fresh directory, as $NOTIFY_SOCKET. */
static int
manager_setup(void **state)
{
	struct manager		*m = calloc(1, sizeof(*m));
	struct sockaddr_un	 sun;

	assert_non_null(m);
	(void)snprintf(m->dir, sizeof(m->dir), "/tmp/caked-notify.XXXXXX");
	assert_non_null(mkdtemp(m->dir));
	(void)snprintf(m->path, sizeof(m->path), "%s/notify", m->dir);
	m->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	assert_true(m->fd >= 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	(void)snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", m->path);
	assert_int_equal(bind(m->fd, (struct sockaddr *)&sun, sizeof(sun)),
	    0);
	assert_int_equal(setenv("NOTIFY_SOCKET", m->path, 1), 0);
	*state = m;
	return 0;
}

static int
manager_teardown(void **state)
{
	struct manager	*m = *state;

	close(m->fd);
	unlink(m->path);
	rmdir(m->dir);
	unsetenv("NOTIFY_SOCKET");
	free(m);
	return 0;
}

/* The next datagram, NUL-terminated; "" when none is waiting. */
static void
manager_read(struct manager *m, char *buf, size_t len)
{
	ssize_t	n = recv(m->fd, buf, len - 1, 0);

	buf[n < 0 ? 0 : n] = '\0';
}

static void
reloading_carries_monotonic_usec_in_the_same_message(void **state)
{
	struct manager	*m = *state;
	char		 buf[256];

	assert_int_equal(notify_reloading(12345678901234ULL), 1);
	manager_read(m, buf, sizeof(buf));
	assert_string_equal(buf, "RELOADING=1\nMONOTONIC_USEC=12345678901");
	assert_int_equal(notify_send("READY=1"), 1);
	manager_read(m, buf, sizeof(buf));
	assert_string_equal(buf, "READY=1");
}

static void
status_is_one_field_and_too_long_a_line_is_refused(void **state)
{
	struct manager	*m = *state;
	char		 buf[NOTIFY_STATUS_MAX + 64], line[NOTIFY_STATUS_MAX + 2];

	assert_int_equal(notify_status("upload 20Mbit, download 100Mbit, "
	    "3 hosts"), 1);
	manager_read(m, buf, sizeof(buf));
	assert_string_equal(buf, "STATUS=upload 20Mbit, download 100Mbit, "
	    "3 hosts");
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	errno = 0;
	assert_int_equal(notify_status(line), -1);
	assert_int_equal(errno, EMSGSIZE);
	manager_read(m, buf, sizeof(buf));
	assert_string_equal(buf, "");		/* nothing was sent */
}

static void
no_manager_means_nothing_sent_and_no_error(void **state)
{
	(void)state;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(notify_send("READY=1"), 0);
	assert_int_equal(notify_reloading(1000), 0);
}

static void
watchdog_interval_is_ours_only_and_well_formed(void **state)
{
	char	pid[32];

	(void)state;
	unsetenv("WATCHDOG_PID");
	unsetenv("WATCHDOG_USEC");
	assert_int_equal(notify_watchdog_us(), 0);
	setenv("WATCHDOG_USEC", "10000000", 1);
	assert_int_equal(notify_watchdog_us(), 10000000);
	(void)snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("WATCHDOG_PID", pid, 1);
	assert_int_equal(notify_watchdog_us(), 10000000);
	(void)snprintf(pid, sizeof(pid), "%d", (int)getpid() + 1);
	setenv("WATCHDOG_PID", pid, 1);		/* meant for someone else */
	assert_int_equal(notify_watchdog_us(), 0);
	unsetenv("WATCHDOG_PID");
	setenv("WATCHDOG_USEC", "10s", 1);
	assert_int_equal(notify_watchdog_us(), 0);
	setenv("WATCHDOG_USEC", "-5", 1);
	assert_int_equal(notify_watchdog_us(), 0);
	unsetenv("WATCHDOG_USEC");
}

/* log_init() with JOURNAL_STREAM set to env (NULL: unset). */
static void
log_with_journal_stream(const char *env)
{
	if (env == NULL)
		unsetenv("JOURNAL_STREAM");
	else
		setenv("JOURNAL_STREAM", env, 1);
	log_init(0, LOG_INFO, "caked");
}

static void
journal_prefix_only_when_stderr_is_the_stream(void **state)
{
	struct stat	st;
	char		env[64];

	(void)state;
	assert_int_equal(fstat(STDERR_FILENO, &st), 0);
	(void)snprintf(env, sizeof(env), "%ju:%ju", (uintmax_t)st.st_dev,
	    (uintmax_t)st.st_ino);
	log_with_journal_stream(env);
	assert_string_equal(log_prefix(LOG_ERR), "<3>");
	assert_string_equal(log_prefix(LOG_WARNING), "<4>");
	assert_string_equal(log_prefix(LOG_INFO), "<6>");
	assert_string_equal(log_prefix(LOG_DEBUG), "<7>");
	(void)snprintf(env, sizeof(env), "%ju:%ju", (uintmax_t)st.st_dev,
	    (uintmax_t)st.st_ino + 1);
	log_with_journal_stream(env);		/* another file */
	assert_string_equal(log_prefix(LOG_WARNING), "");
	log_with_journal_stream("garbage");
	assert_string_equal(log_prefix(LOG_WARNING), "");
	log_with_journal_stream(NULL);
	assert_string_equal(log_prefix(LOG_WARNING), "");
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test_setup_teardown(
		    reloading_carries_monotonic_usec_in_the_same_message,
		    manager_setup, manager_teardown),
		cmocka_unit_test_setup_teardown(
		    status_is_one_field_and_too_long_a_line_is_refused,
		    manager_setup, manager_teardown),
		cmocka_unit_test_setup_teardown(
		    no_manager_means_nothing_sent_and_no_error,
		    manager_setup, manager_teardown),
		cmocka_unit_test(watchdog_interval_is_ours_only_and_well_formed),
		cmocka_unit_test(journal_prefix_only_when_stderr_is_the_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
