/*
 * privdrop.c: gives up root once the devices are open, as iked's
 * proc_run() does: supplementary groups, then group, then user, each set
 * for real, effective and saved ids, and checked afterwards.
 *
 * Keeping CAP_NET_ADMIN (needed later for conntrack) is not done here
 * yet: after this call the process has no capabilities at all. The open
 * device fds keep working without them.
 */
#include <sys/prctl.h>
#include <sys/types.h>

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include "daemon/privdrop.h"

int
privdrop_user(const char *user)
{
	struct passwd	*pw;
	uid_t		 ruid, euid, suid;
	gid_t		 rgid, egid, sgid;

	errno = 0;
	if ((pw = getpwnam(user)) == NULL) {
		if (errno == 0)
			errno = ENOENT;
		return -1;
	}
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
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return -1;
	return 0;
}
