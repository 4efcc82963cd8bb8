/* A measured try of io_uring for small files (issue 26 item 4): writes COUNT files of SIZE bytes
 * into DIR the way assetsync's writer lanes commit small files (create a partial with O_DIRECT,
 * write it in one call, close, rename it to its name), then one syncfs and a directory fsync;
 * either with plain system calls on LANES threads, or from one thread through io_uring, each
 * file a linked chain openat -> write -> close -> renameat on registered descriptors, DEPTH
 * chains in flight (a registered descriptor takes no O_CLOEXEC). Prints the wall seconds. See bench/probes/README.md.
 *
 *   small-writes syscalls|uring DIR COUNT SIZE [LANES|DEPTH]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int dirfd_, count, lanes;
static size_t size;
static void *data;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void fail(const char *what, int error) {
    fprintf(stderr, "small-writes: %s: %s\n", what, strerror(error));
    exit(1);
}

static void names(int i, char *part, char *final) {
    sprintf(part, ".part-%d", i);
    sprintf(final, "file-%d", i);
}

static void *lane(void *arg) {
    char part[32], final[32];
    for (int i = (int)(long)arg; i < count; i += lanes) {
        names(i, part, final);
        int fd = openat(dirfd_, part, O_CREAT | O_EXCL | O_WRONLY | O_DIRECT | O_CLOEXEC, 0644);
        if (fd < 0) fail("openat", errno);
        if (pwrite(fd, data, size, 0) != (ssize_t)size) fail("pwrite", errno);
        if (close(fd) != 0) fail("close", errno);
        if (renameat(dirfd_, part, dirfd_, final) != 0) fail("renameat", errno);
    }
    return NULL;
}

static void with_syscalls(void) {
    pthread_t threads[64];
    for (long t = 0; t < lanes; t++) pthread_create(&threads[t], NULL, lane, (void *)t);
    for (int t = 0; t < lanes; t++) pthread_join(threads[t], NULL);
}

/* Each chain's four operations; user_data = chain slot * 4 + step. */
static void with_uring(int depth) {
    struct io_uring ring;
    int error = io_uring_queue_init((unsigned)depth * 4, &ring, 0);
    if (error < 0) fail("io_uring_queue_init", -error);
    if ((error = io_uring_register_files_sparse(&ring, (unsigned)depth)) < 0) fail("io_uring_register_files_sparse", -error);
    char (*parts)[32] = calloc((size_t)depth, 32), (*finals)[32] = calloc((size_t)depth, 32);
    int *pending = calloc((size_t)depth, sizeof(int));  /* operations of the slot's chain not yet completed */
    int next = 0, running = 0;
    while (next < count || running > 0) {
        for (int slot = 0; slot < depth && next < count; slot++) {
            if (pending[slot]) continue;
            names(next++, parts[slot], finals[slot]);
            struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
            io_uring_prep_openat_direct(sqe, dirfd_, parts[slot], O_CREAT | O_EXCL | O_WRONLY | O_DIRECT, 0644, (unsigned)slot);
            sqe->flags |= IOSQE_IO_LINK;
            sqe->user_data = (unsigned long)slot * 4;
            sqe = io_uring_get_sqe(&ring);
            io_uring_prep_write(sqe, slot, data, (unsigned)size, 0);
            sqe->flags |= IOSQE_IO_LINK | IOSQE_FIXED_FILE;
            sqe->user_data = (unsigned long)slot * 4 + 1;
            sqe = io_uring_get_sqe(&ring);
            io_uring_prep_close_direct(sqe, (unsigned)slot);
            sqe->flags |= IOSQE_IO_LINK;
            sqe->user_data = (unsigned long)slot * 4 + 2;
            sqe = io_uring_get_sqe(&ring);
            io_uring_prep_renameat(sqe, dirfd_, parts[slot], dirfd_, finals[slot], 0);
            sqe->user_data = (unsigned long)slot * 4 + 3;
            pending[slot] = 4;
            running++;
        }
        if ((error = io_uring_submit_and_wait(&ring, 1)) < 0) fail("io_uring_submit_and_wait", -error);
        struct io_uring_cqe *cqe;
        unsigned head, seen = 0;
        io_uring_for_each_cqe(&ring, head, cqe) {
            int slot = (int)(cqe->user_data / 4), step = (int)(cqe->user_data % 4);
            if (cqe->res < 0) fail(step == 0 ? "openat" : step == 1 ? "write" : step == 2 ? "close" : "renameat", -cqe->res);
            if (step == 1 && cqe->res != (int)size) fail("write", EIO);
            if (--pending[slot] == 0) running--;
            seen++;
        }
        io_uring_cq_advance(&ring, seen);
    }
    io_uring_queue_exit(&ring);
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: small-writes syscalls|uring DIR COUNT SIZE [LANES|DEPTH]\n");
        return 2;
    }
    count = atoi(argv[3]);
    size = (size_t)atol(argv[4]);
    int width = argc > 5 ? atoi(argv[5]) : (strcmp(argv[1], "uring") == 0 ? 32 : 4);
    if (mkdir(argv[2], 0755) != 0) fail(argv[2], errno);
    if ((dirfd_ = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) fail(argv[2], errno);
    if (posix_memalign(&data, 4096, size + 4096) != 0) fail("posix_memalign", ENOMEM);
    memset(data, 0x5a, size);
    double start = now();
    if (strcmp(argv[1], "uring") == 0) {
        with_uring(width);
    } else {
        lanes = width > 64 ? 64 : width;
        with_syscalls();
    }
    if (syncfs(dirfd_) != 0) fail("syncfs", errno);
    if (fsync(dirfd_) != 0) fail("fsync", errno);
    printf("%s %d x %zu: %.3f s\n", argv[1], count, size, now() - start);
    return 0;
}
