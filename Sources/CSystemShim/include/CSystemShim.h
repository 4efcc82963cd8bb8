// Linux calls that glibc declares only under _GNU_SOURCE, which Swift's Glibc
// module does not define. One plain wrapper each, prefixed `asc_`; no logic.
#ifndef ASSETSYNC_CSYSTEMSHIM_H
#define ASSETSYNC_CSYSTEMSHIM_H

#include <stdint.h>

/// syncfs(2): flush the whole filesystem holding `fd`.
int asc_syncfs(int fd);

/// sync_file_range(2) with SYNC_FILE_RANGE_WRITE: start writeback of a range without waiting.
int asc_start_writeback(int fd, int64_t offset, int64_t count);

/// openat(2) with O_DIRECT added to `flags`.
int asc_openat_direct(int dirfd, const char *name, int flags);

/// fallocate(2) with mode 0: reserve blocks for `count` bytes from `offset` (EOPNOTSUPP where the file system cannot).
int asc_fallocate(int fd, int64_t offset, int64_t count);

/// renameat2(2) with RENAME_EXCHANGE: swap two names atomically (both must exist).
int asc_rename_exchange(int olddirfd, const char *oldname, int newdirfd, const char *newname);

/// ioctl(2) FICLONE: make `destination` share `source`'s blocks (a reflink); EOPNOTSUPP, EXDEV or EINVAL where it cannot.
int asc_clone_file(int destination, int source);

/// copy_file_range(2) of up to `count` bytes between the given offsets, leaving both file positions alone.
int64_t asc_copy_file_range(int source, int64_t source_offset, int destination, int64_t destination_offset, int64_t count);

/// futimens(2) setting only the mtime (the atime is left as it is, UTIME_OMIT, which Swift does not import).
int asc_set_mtime(int fd, int64_t seconds, int64_t nanoseconds);

/// lseek(2) with SEEK_HOLE (`hole` non-zero) or SEEK_DATA: the next hole or data at or after `offset`.
int64_t asc_seek(int fd, int64_t offset, int hole);

/// memfd_create(2) with MFD_CLOEXEC: an anonymous file in memory named `name` (for /proc only).
int asc_memfd_create(const char *name);

#endif
