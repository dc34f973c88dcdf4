#!/bin/bash
# bench/ratewait/run.sh: how closely a closed-loop job keeps its timetable
# (rate_iops=, thinktime=), gofio side by side with fio 3.33 in one run.
#
# Each job reads 4 KiB blocks of a 16 MiB file on /dev/shm (a read takes
# a few us, so the time between I/Os is the wait): psync at rate_iops=1000
# and 5000, io_uring at iodepth=8 and rate_iops=20000, and psync with
# thinktime=1000 after every block. Every tool runs every job REPEATS
# times, the tools alternating, RUNTIME seconds a run, under
# `perf record -e syscalls:sys_enter_pread64` for the psync jobs. Per job
# and tool it prints the median over the repeats of: IOPS, lat mean and
# p99 (lat_percentiles=1), the CPU time (user+sys) the run took, and the
# wake-up lateness of the job's thread, from the time stamps of its
# preads: for a rate job how late each I/O went out against fio's
# schedule (the k-th I/O due k gaps after the start, the start placed
# where the most punctual I/O is on time; the first 0.2 s left out), for
# the think job the time between I/Os less thinktime (a read's few us
# included); median and p99 over the run.
#
# GOFIO lists the gofio builds to compare as NAME=PATH words (e.g.
# GOFIO="before=/tmp/gofio-main after=/tmp/gofio-new"); by default this
# tree is built as "gofio". ANALYZE=1 prints the table of the runs already
# in OUT again, running nothing. Root only (perf's syscall tracepoints).
#
#   bench/ratewait/run.sh            # REPEATS=3 RUNTIME=5 OUT=/tmp/gofio-ratewait
set -euo pipefail
REPEATS=${REPEATS:-3}
RUNTIME=${RUNTIME:-5}
OUT=${OUT:-/tmp/gofio-ratewait}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$OUT"
file=/dev/shm/gofio-ratewait-$$
trap 'rm -f "$file"' EXIT
if [ -z "${GOFIO:-}" ]; then
	go build -o "$OUT/gofio" "$root"
	GOFIO="gofio=$OUT/gofio"
fi
tools=("fio=fio")
for g in $GOFIO; do tools+=("$g"); done
common=(--name=rw --filename="$file" --rw=randread --bs=4k --size=16m --time_based --runtime="$RUNTIME"
	--lat_percentiles=1 --output-format=json)
declare -A jobs=(
	[rate1k]="--ioengine=psync --rate_iops=1000"
	[rate5k]="--ioengine=psync --rate_iops=5000"
	[uring20k]="--ioengine=io_uring --iodepth=8 --rate_iops=20000"
	[think1ms]="--ioengine=psync --thinktime=1000 --thinktime_blocks=1"
)
order=(rate1k rate5k uring20k think1ms)
runs() {
	dd if=/dev/urandom of="$file" bs=1M count=16 status=none
	echo "== bench/ratewait: load $(cut -d' ' -f1-3 /proc/loadavg) at the start, $(date -u '+%Y-%m-%d %H:%M UTC')"
	for r in $(seq "$REPEATS"); do
		for job in "${order[@]}"; do
			for t in "${tools[@]}"; do
				name=${t%%=*} bin=${t#*=} base="$OUT/$job-$name-$r"
				# shellcheck disable=SC2206 # the job's options are words
				cmd=("$bin" "${common[@]}" ${jobs[$job]} --output="$base.json")
				if [[ $job == uring* ]]; then
					/usr/bin/time -f '%U %S' -o "$base.cpu" "${cmd[@]}" >/dev/null
				else
					perf record -q -e syscalls:sys_enter_pread64 -o "$base.perf" -- /usr/bin/time -f '%U %S' -o "$base.cpu" "${cmd[@]}" >/dev/null 2>&1
					perf script -i "$base.perf" -F tid,time --ns 2>/dev/null >"$base.times"
					rm -f "$base.perf"
				fi
			done
		done
	done
	echo "== load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
}
[ -n "${ANALYZE:-}" ] || runs
python3 - "$OUT" "$REPEATS" "${order[*]}" "${tools[*]}" <<'EOF'
import json, os, statistics, sys
out, reps, order, tools = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), [t.split("=")[0] for t in sys.argv[4].split()]
gap = {"rate1k": 1000000, "rate5k": 200000}
def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]
def lateness(path, job):
    if not os.path.exists(path):
        return None
    by = {}
    for line in open(path):
        f = line.split()
        if len(f) == 2:
            by.setdefault(f[0], []).append(int(round(float(f[1].rstrip(":")) * 1e9)))
    ts = max(by.values(), key=len)  # the job's thread: the one that read most
    if job in gap:
        # The schedule's origin is the job's start, which the trace does
        # not show: the I/O that went out earliest against it is taken as
        # on time. The first 0.2 s are left out: fio starts its schedule at
        # its epoch, some ms before its first I/O, and catches up at once.
        due = [t - k * gap[job] for k, t in enumerate(ts)]
        origin = min(due)
        late = [d - origin for d, t in zip(due, ts) if t - ts[0] >= 200000000]
    else:
        late = [b - a - 1000000 for a, b in zip(ts, ts[1:])]
    return statistics.median(late) / 1e3, pct(late, 0.99) / 1e3
print("| job | tool | IOPS | lat mean (us) | lat p99 (us) | CPU (s) | lateness median (us) | lateness p99 (us) |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for job in order:
    for tool in tools:
        rows = []
        for r in range(1, reps + 1):
            base = os.path.join(out, "%s-%s-%d" % (job, tool, r))
            d = json.load(open(base + ".json"))["jobs"][0]["read"]
            cpu = sum(float(x) for x in open(base + ".cpu").read().split()[-2:])
            rows.append((d["iops"], d["lat_ns"]["mean"] / 1e3, d["lat_ns"]["percentile"]["99.000000"] / 1e3, cpu, lateness(base + ".times", job)))
        med = lambda i: statistics.median(x[i] for x in rows)
        late = [x[4] for x in rows if x[4]]
        ls = ("%.1f | %.1f" % (statistics.median(l[0] for l in late), statistics.median(l[1] for l in late))) if late else "- | -"
        print("| %s | %s | %.0f | %.1f | %.1f | %.2f | %s |" % (job, tool, med(0), med(1), med(2), med(3), ls))
EOF
