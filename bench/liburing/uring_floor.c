/*
 * uring_floor: the C liburing floor for internal/uring's benchmarks.
 * It runs the same two loops as BenchmarkNop and BenchmarkRead4KDirect
 * and prints Go-benchmark-style lines (name, iterations, ns/op).
 *
 * Build: gcc -O2 -o uring_floor uring_floor.c -luring
 * Usage: uring_floor SECONDS TMPFS_FILE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define FILE_SIZE (16u << 20)

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "uring_floor: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static void bench_nop(unsigned batch, double secs)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	unsigned long ops = 0;
	int ret = io_uring_queue_init(batch, &ring, 0);
	if (ret < 0)
		die("queue_init", ret);
	double start = now_ns(), end = start + secs * 1e9, t;
	do {
		for (int k = 0; k < 1024; k++) {
			for (unsigned i = 0; i < batch; i++)
				io_uring_prep_nop(io_uring_get_sqe(&ring));
			ret = io_uring_submit_and_wait(&ring, batch);
			if (ret < 0)
				die("submit_and_wait", ret);
			unsigned head, n = 0;
			io_uring_for_each_cqe(&ring, head, cqe) n++;
			io_uring_cq_advance(&ring, n);
			ops += batch;
		}
		t = now_ns();
	} while (t < end);
	printf("BenchmarkNop/batch=%u\t%lu\t%.2f ns/op\n", batch, ops, (t - start) / ops);
	io_uring_queue_exit(&ring);
}

static void bench_read(const char *path, double secs)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	unsigned long ops = 0;
	void *buf;
	int fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0)
		die(path, errno);
	if (posix_memalign(&buf, 4096, 4096))
		die("posix_memalign", ENOMEM);
	int ret = io_uring_queue_init(1, &ring, 0);
	if (ret < 0)
		die("queue_init", ret);
	double start = now_ns(), end = start + secs * 1e9, t;
	do {
		for (int k = 0; k < 1024; k++) {
			io_uring_prep_read(io_uring_get_sqe(&ring), fd, buf, 4096,
					   (ops * 4096) % FILE_SIZE);
			ret = io_uring_submit_and_wait(&ring, 1);
			if (ret < 0)
				die("submit_and_wait", ret);
			ret = io_uring_wait_cqe(&ring, &cqe);
			if (ret < 0 || cqe->res != 4096)
				die("read", ret < 0 ? ret : cqe->res);
			io_uring_cqe_seen(&ring, cqe);
			ops++;
		}
		t = now_ns();
	} while (t < end);
	printf("BenchmarkRead4KDirect\t%lu\t%.2f ns/op\n", ops, (t - start) / ops);
	io_uring_queue_exit(&ring);
	close(fd);
	free(buf);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: uring_floor SECONDS TMPFS_FILE\n");
		return 2;
	}
	double secs = atof(argv[1]);
	unsigned batches[] = {1, 8, 32, 128};
	for (int i = 0; i < 4; i++)
		bench_nop(batches[i], secs);
	bench_read(argv[2], secs);
	return 0;
}
