/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * privdrop.c: gives up root once the devices are open, the netlink
 * socket used and the control socket bound, as iked's proc_run() and
 * chrony's SYS_Linux_DropRoot() do.
 *
 * Order: empty the bounding set except CAP_NET_ADMIN (needs CAP_SETPCAP,
 * so while still root), keep the permitted set across the uid change
 * (PR_SET_KEEPCAPS), switch supplementary groups, group and user (real,
 * effective and saved ids), then make CAP_NET_ADMIN alone permitted and
 * effective with capset(2), clear the ambient set and set no_new_privs.
 * Everything is read back and checked; any mismatch is an error.
 *
 * CAP_NET_ADMIN is the only capability kept, because caked still needs
 * it after startup: conntrack queries over nfnetlink are checked against
 * the sender's capability at every send (netlink_net_capable()), and
 * rtnetlink link changes (MTU, up) need it too. The open TUN/TAP fds and
 * the bound control socket need none. capset(2) is called directly (no
 * libcap): the project's libraries are fixed.
 *
 * This module must not open devices or sockets, and must not log: the
 * caller reports errors.
 */
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <linux/capability.h>

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "daemon/privdrop.h"

#define PRIVDROP_KEEP_MASK	(UINT32_C(1) << CAP_NET_ADMIN)
#define PRIVDROP_CAP_SCAN_MAX	64	/* capability numbers probed */

/*
 * capset(2) or capget(2) (nr) on this thread, version 3: data[0] holds
 * capabilities 0..31, data[1] the rest.
 */
static int
privdrop_capcall(long nr, struct __user_cap_data_struct *data)
{
	struct __user_cap_header_struct	hdr;

	memset(&hdr, 0, sizeof(hdr));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	return (int)syscall(nr, &hdr, data);
}

/* Sets permitted = effective = mask (caps 0..31), inheritable = 0. */
static int
privdrop_capset(uint32_t mask)
{
	struct __user_cap_data_struct	data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	data[0].permitted = data[0].effective = mask;
	return privdrop_capcall(SYS_capset, data);
}

/* Checks that exactly mask is permitted and effective, nothing else. */
static int
privdrop_capcheck(uint32_t mask)
{
	struct __user_cap_data_struct	data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	if (privdrop_capcall(SYS_capget, data) == -1)
		return -1;
	if (data[0].permitted != mask || data[0].effective != mask ||
	    data[0].inheritable != 0 || data[1].permitted != 0 ||
	    data[1].effective != 0 || data[1].inheritable != 0) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* Removes every capability but CAP_NET_ADMIN from the bounding set. */
static int
privdrop_bounding(void)
{
	int	cap;

	for (cap = 0; cap < PRIVDROP_CAP_SCAN_MAX; cap++) {
		if (cap == CAP_NET_ADMIN)
			continue;
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == -1)
			break;	/* EINVAL: past the last capability */
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == -1)
			return -1;
	}
	return 0;
}

static int
privdrop_ids(const struct passwd *pw)
{
	uid_t	ruid, euid, suid;
	gid_t	rgid, egid, sgid;

	if (setgroups(1, &pw->pw_gid) == -1 ||
	    setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) == -1 ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) == -1)
		return -1;
	if (getresuid(&ruid, &euid, &suid) == -1 ||
	    getresgid(&rgid, &egid, &sgid) == -1)
		return -1;
	if (ruid != pw->pw_uid || euid != pw->pw_uid || suid != pw->pw_uid ||
	    rgid != pw->pw_gid || egid != pw->pw_gid || sgid != pw->pw_gid) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int
privdrop_user(const char *user)
{
	struct passwd	*pw;

	errno = 0;
	if ((pw = getpwnam(user)) == NULL) {
		if (errno == 0)
			errno = ENOENT;
		return -1;
	}
	if (privdrop_bounding() == -1 ||
	    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) == -1 ||
	    privdrop_ids(pw) == -1 ||
	    privdrop_capset(PRIVDROP_KEEP_MASK) == -1 ||
	    prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) == -1 ||
	    privdrop_restrict() == -1)
		return -1;
	return privdrop_capcheck(PRIVDROP_KEEP_MASK);
}

int
privdrop_restrict(void)
{
	/* Ambient capabilities (from systemd) must not pass to children. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1 &&
	    errno != EINVAL)
		return -1;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}
