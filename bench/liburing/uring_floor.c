/*
 * uring_floor: the C liburing floor for internal/uring's benchmarks.
 * It runs the same loops as BenchmarkNop, BenchmarkNopRegRing,
 * BenchmarkNopSubmitThenWait, BenchmarkRead4KDirect and
 * BenchmarkRead4KDirectRegRing, and prints Go-benchmark-style lines
 * (name, iterations, ns/op, and the process's CPU time per op as cpu-ns/op). Each case takes the Go benchmark's name, so
 * bench/liburing/run.sh can run one case at a time in both languages.
 *
 * Rings are set up with io_uring_queue_init(entries, &ring, 0), as the Go
 * benchmarks do. The plain cases enter with the ring fd (liburing does not
 * register it by itself); the RegRing cases call io_uring_register_ring_fd
 * first, so liburing enters with IORING_ENTER_REGISTERED_RING, as the Go
 * RegRing cases do after RegisterRingFd. liburing 2.3 issues its syscalls
 * with inline asm, with no libc wrapper in between.
 *
 * The case randread/depth=N is the floor of compare-fio's tmpfs job
 * instead (see bench_randread): fio's default io_uring loop at iodepth N,
 * printed as one "randread depth=N iops=X ..." line.
 *
 * Build: gcc -O2 -o uring_floor uring_floor.c -luring
 * Usage: uring_floor SECONDS TMPFS_FILE [CASE...]   (no CASE: all of them
 * but randread/depth=N)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FILE_SIZE (16u << 20)

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* cpu_ns is the process's CPU time (all threads, io-wq workers included). */
static double cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* report prints one Go-benchmark-style line: ns/op and cpu-ns/op. */
static void report(const char *name, unsigned long ops, double wall, double cpu)
{
	printf("%s\t%lu\t%.2f ns/op\t%.2f cpu-ns/op\n", name, ops, wall / ops, cpu / ops);
}

static void die(const char *what, int err)
{
	fprintf(stderr, "uring_floor: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static void ring_init(struct io_uring *ring, unsigned entries, int regring)
{
	int ret = io_uring_queue_init(entries, ring, 0);
	if (ret < 0)
		die("queue_init", ret);
	if (regring) {
		ret = io_uring_register_ring_fd(ring);
		if (ret != 1)
			die("register_ring_fd", ret < 0 ? ret : EINVAL);
	}
}

/* nop: batch NOPs per io_uring_submit_and_wait (one enter), then reap. */
static void bench_nop(const char *name, unsigned batch, int regring, double secs)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	unsigned long ops = 0;
	int ret;
	ring_init(&ring, batch, regring);
	double cpu = cpu_ns(), start = now_ns(), end = start + secs * 1e9, t;
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
	report(name, ops, t - start, cpu_ns() - cpu);
	io_uring_queue_exit(&ring);
}

/*
 * nop_split: one NOP per io_uring_submit (no wait), then io_uring_wait_cqe,
 * which finds the CQE already posted: the shape of fio's io_uring engine,
 * which submits and reaps in separate calls.
 */
static void bench_nop_split(const char *name, double secs)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	unsigned long ops = 0;
	int ret;
	ring_init(&ring, 1, 0);
	double cpu = cpu_ns(), start = now_ns(), end = start + secs * 1e9, t;
	do {
		for (int k = 0; k < 1024; k++) {
			io_uring_prep_nop(io_uring_get_sqe(&ring));
			ret = io_uring_submit(&ring);
			if (ret != 1)
				die("submit", ret < 0 ? ret : EIO);
			ret = io_uring_wait_cqe(&ring, &cqe);
			if (ret < 0)
				die("wait_cqe", ret);
			io_uring_cqe_seen(&ring, cqe);
			ops++;
		}
		t = now_ns();
	} while (t < end);
	report(name, ops, t - start, cpu_ns() - cpu);
	io_uring_queue_exit(&ring);
}

/* read: one 4 KiB O_DIRECT read per submit_and_wait, then wait_cqe. */
static void bench_read(const char *name, const char *path, int regring, double secs)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	unsigned long ops = 0;
	void *buf;
	int ret;
	int fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0)
		die(path, errno);
	if (posix_memalign(&buf, 4096, 4096))
		die("posix_memalign", ENOMEM);
	ring_init(&ring, 1, regring);
	double cpu = cpu_ns(), start = now_ns(), end = start + secs * 1e9, t;
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
	report(name, ops, t - start, cpu_ns() - cpu);
	io_uring_queue_exit(&ring);
	close(fd);
	free(buf);
}

/*
 * ring_init_fio sets up a ring the way fio 3.33's io_uring engine does by
 * default: SQ of depth entries, IORING_SETUP_CQSIZE with cq_entries =
 * depth, COOP_TASKRUN and SINGLE_ISSUER | DEFER_TASKRUN. On EINVAL it drops
 * DEFER_TASKRUN + SINGLE_ISSUER, then COOP_TASKRUN, then CQSIZE, retrying
 * after each, in fio's order. It returns the flags the kernel took.
 */
static unsigned ring_init_fio(struct io_uring *ring, unsigned depth)
{
	static const unsigned drop[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_COOP_TASKRUN,
		IORING_SETUP_CQSIZE,
	};
	unsigned flags = IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN |
			 IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	for (size_t i = 0;; i++) {
		struct io_uring_params p;
		memset(&p, 0, sizeof(p));
		p.flags = flags;
		p.cq_entries = depth;
		int ret = io_uring_queue_init_params(depth, ring, &p);
		if (ret == 0)
			return flags;
		if (ret != -EINVAL || i == sizeof(drop) / sizeof(drop[0]))
			die("queue_init_params", ret);
		flags &= ~drop[i];
	}
}

/* xorshift64 is the offset generator: cheap, and not fio's, which is fine
 * for a floor since every offset is a tmpfs page either way. */
static unsigned long long xorshift64(unsigned long long *s)
{
	unsigned long long x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* prep_randread queues one 4 KiB read of a random aligned block of fd. */
static void prep_randread(struct io_uring *ring, int fd, void *buf, unsigned long long blocks,
			  unsigned long long *seed)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	if (!sqe)
		die("get_sqe", EBUSY);
	io_uring_prep_read(sqe, fd, buf, 4096, (xorshift64(seed) % blocks) * 4096);
	io_uring_sqe_set_data(sqe, buf);
}

/*
 * randread: what gofio's and fio's job
 *   --ioengine=io_uring --rw=randread --bs=4k --direct=1 --iodepth=N
 * does on a tmpfs file, with fio's defaults iodepth_batch_submit=1 and
 * iodepth_batch_complete_min=max=1: fill the queue with one
 * io_uring_enter(1, 0, 0) per read, then in steady state reap one CQE
 * (entering with GETEVENTS and min_complete 1 only when the CQ is empty,
 * which with DEFER_TASKRUN is also what runs the completions) and submit
 * one read in its place. Each of the N reads has its own buffer. It runs
 * for secs and prints depth, IOPS, the setup flags taken and the process's
 * CPU time per I/O.
 */
static void bench_randread(const char *path, unsigned depth, double secs)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	unsigned long ops = 0;
	unsigned long long seed = 0x9e3779b97f4a7c15ull;
	char *bufs;
	struct stat st;
	int ret;
	int fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0)
		die(path, errno);
	if (fstat(fd, &st) < 0)
		die("fstat", errno);
	unsigned long long blocks = st.st_size / 4096;
	if (blocks == 0)
		die("file smaller than 4 KiB", EINVAL);
	if (posix_memalign((void **)&bufs, 4096, (size_t)depth * 4096))
		die("posix_memalign", ENOMEM);
	memset(bufs, 0, (size_t)depth * 4096);
	unsigned flags = ring_init_fio(&ring, depth);
	double cpu = cpu_ns(), start = now_ns(), end = start + secs * 1e9, t = start;
	for (unsigned i = 0; i < depth; i++) {
		prep_randread(&ring, fd, bufs + (size_t)i * 4096, blocks, &seed);
		ret = io_uring_submit(&ring);
		if (ret != 1)
			die("submit", ret < 0 ? ret : EIO);
	}
	for (;;) {
		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret < 0)
			die("wait_cqe", ret);
		if (cqe->res != 4096)
			die("read", cqe->res < 0 ? cqe->res : EIO);
		void *buf = io_uring_cqe_get_data(cqe);
		io_uring_cqe_seen(&ring, cqe);
		ops++;
		if ((ops & 63) == 0 && (t = now_ns()) >= end)
			break;
		prep_randread(&ring, fd, buf, blocks, &seed);
		ret = io_uring_submit(&ring);
		if (ret != 1)
			die("submit", ret < 0 ? ret : EIO);
	}
	double used = cpu_ns() - cpu;
	printf("randread depth=%u iops=%.0f ios=%lu secs=%.3f cpu-ns/io=%.1f setup=%s%s%s%s\n",
	       depth, ops / ((t - start) / 1e9), ops, (t - start) / 1e9, used / ops,
	       flags & IORING_SETUP_CQSIZE ? "CQSIZE" : "",
	       flags & IORING_SETUP_COOP_TASKRUN ? "|COOP_TASKRUN" : "",
	       flags & IORING_SETUP_SINGLE_ISSUER ? "|SINGLE_ISSUER" : "",
	       flags & IORING_SETUP_DEFER_TASKRUN ? "|DEFER_TASKRUN" : "");
	/* The reads still in flight finish before the ring goes. */
	io_uring_queue_exit(&ring);
	close(fd);
	free(bufs);
}

enum kind { NOP, NOP_SPLIT, READ };

static const struct bench_case {
	const char *name;
	enum kind kind;
	unsigned batch;
	int regring;
} cases[] = {
	{ "BenchmarkNop/batch=1", NOP, 1, 0 },
	{ "BenchmarkNop/batch=8", NOP, 8, 0 },
	{ "BenchmarkNop/batch=32", NOP, 32, 0 },
	{ "BenchmarkNop/batch=128", NOP, 128, 0 },
	{ "BenchmarkNopRegRing/batch=1", NOP, 1, 1 },
	{ "BenchmarkNopSubmitThenWait", NOP_SPLIT, 1, 0 },
	{ "BenchmarkRead4KDirect", READ, 1, 0 },
	{ "BenchmarkRead4KDirectRegRing", READ, 1, 1 },
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

static void run_case(const struct bench_case *c, const char *path, double secs)
{
	switch (c->kind) {
	case NOP:
		bench_nop(c->name, c->batch, c->regring, secs);
		break;
	case NOP_SPLIT:
		bench_nop_split(c->name, secs);
		break;
	case READ:
		bench_read(c->name, path, c->regring, secs);
		break;
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: uring_floor SECONDS TMPFS_FILE [CASE...]\n");
		return 2;
	}
	double secs = atof(argv[1]);
	if (argc == 3) {
		for (size_t i = 0; i < NCASES; i++)
			run_case(&cases[i], argv[2], secs);
		return 0;
	}
	for (int a = 3; a < argc; a++) {
		size_t i;
		unsigned depth;
		char end;
		if (sscanf(argv[a], "randread/depth=%u%c", &depth, &end) == 1 && depth > 0) {
			bench_randread(argv[2], depth, secs);
			continue;
		}
		for (i = 0; i < NCASES && strcmp(cases[i].name, argv[a]); i++)
			;
		if (i == NCASES) {
			fprintf(stderr, "uring_floor: unknown case %s\n", argv[a]);
			return 2;
		}
		run_case(&cases[i], argv[2], secs);
	}
	return 0;
}
