/* kwrite: one write(2) of a string to a kernel file, reporting the outcome machine-readably.
 *
 *   kwrite FILE STRING       prints "rc=0 bytes=N" or "rc=-1 errno=EINVAL errno_num=22
 *                            strerror=Invalid argument" and "elapsed_ms=..." on one line
 *
 * Exit code 0 when the write succeeded, 1 when it failed, 2 on usage/open errors. Shell
 * redirections cannot tell EINVAL from EEXIST or ERANGE; scenarios use this instead. */
#include "wl-common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *errno_name(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case EEXIST: return "EEXIST";
	case ERANGE: return "ERANGE";
	case EAGAIN: return "EAGAIN";
	case ENOENT: return "ENOENT";
	case ENODEV: return "ENODEV";
	case EINTR: return "EINTR";
	case EBUSY: return "EBUSY";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOMEM: return "ENOMEM";
	case E2BIG: return "E2BIG";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EBADF: return "EBADF";
	default: return "E?";
	}
}

int main(int argc, char **argv)
{
	int fd;
	ssize_t n;
	uint64_t a;

	if (argc != 3) {
		fprintf(stderr, "usage: kwrite FILE STRING\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open(argv[1], O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		printf("rc=-1 open_errno=%s errno_num=%d strerror=%s\n", errno_name(e), e, strerror(e));
		return 2;
	}
	a = wl_now_ns();
	n = write(fd, argv[2], strlen(argv[2]));
	if (n < 0) {
		int e = errno;
		printf("rc=-1 errno=%s errno_num=%d elapsed_ms=%.1f strerror=%s\n", errno_name(e), e,
		       (double)(wl_now_ns() - a) / 1e6, strerror(e));
		return 1;
	}
	printf("rc=0 bytes=%zd elapsed_ms=%.1f\n", n, (double)(wl_now_ns() - a) / 1e6);
	return 0;
}
