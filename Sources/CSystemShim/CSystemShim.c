#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include "CSystemShim.h"

int asc_syncfs(int fd) { return syncfs(fd); }

int asc_start_writeback(int fd, int64_t offset, int64_t count) {
    return sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE);
}

int asc_openat_direct(int dirfd, const char *name, int flags) {
    return openat(dirfd, name, flags | O_DIRECT);
}

int asc_fallocate(int fd, int64_t offset, int64_t count) { return fallocate(fd, 0, offset, count); }

int asc_rename_exchange(int olddirfd, const char *oldname, int newdirfd, const char *newname) {
    return renameat2(olddirfd, oldname, newdirfd, newname, RENAME_EXCHANGE);
}

int asc_clone_file(int destination, int source) { return ioctl(destination, FICLONE, source); }

int64_t asc_copy_file_range(int source, int64_t source_offset, int destination, int64_t destination_offset, int64_t count) {
    off_t in = source_offset, out = destination_offset;
    return copy_file_range(source, &in, destination, &out, (size_t)count, 0);
}

int asc_set_mtime(int fd, int64_t seconds, int64_t nanoseconds) {
    const struct timespec times[2] = {{.tv_sec = 0, .tv_nsec = UTIME_OMIT}, {.tv_sec = seconds, .tv_nsec = nanoseconds}};
    return futimens(fd, times);
}

int64_t asc_seek(int fd, int64_t offset, int hole) { return lseek(fd, offset, hole ? SEEK_HOLE : SEEK_DATA); }

int asc_memfd_create(const char *name) { return memfd_create(name, MFD_CLOEXEC); }
