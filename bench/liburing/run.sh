#!/usr/bin/env bash
# run.sh: internal/uring's benchmarks side by side with the C liburing floor.
#
# It builds uring_floor.c (gcc -O2 -luring) and the package's test binary,
# then for each of PAIRS rounds and each case runs the Go benchmark and the
# C loop of the same name back to back, flipping which goes first every
# round so drift on a shared machine favours neither. It prints for each
# case the median ns/op of both, the ratio of the medians go/C (1.00 = as
# fast as C, 1.15 = 15% slower), the lowest and highest per-pair ratio, and
# the same ratio for cpu-ns/op, the process's CPU time per op (all threads),
# which leaves out time spent waiting for a CPU on a shared machine.
# Usage: bench/liburing/run.sh [PAIRS] [SECONDS] [CASE...]
# CASE is a benchmark name such as BenchmarkNop/batch=1; default: all.
# URING_TEST=FILE runs a test binary built earlier (go test -c) instead of
# building ./internal/uring, to measure an older version against the floor.
set -euo pipefail
pairs=${1:-5}
secs=${2:-1}
shift $(($# < 2 ? $# : 2))
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
	cases=(BenchmarkNop/batch=1 BenchmarkNop/batch=8 BenchmarkNop/batch=32
		BenchmarkNop/batch=128 BenchmarkNopRegRing/batch=1 BenchmarkNopSubmitThenWait
		BenchmarkRead4KDirect BenchmarkRead4KDirectRegRing)
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
file=$(mktemp /dev/shm/gofio-floor-XXXXXX)
trap 'rm -rf "$work" "$file"' EXIT
truncate -s 16M "$file"
gcc -O2 -o "$work/uring_floor" "$here/uring_floor.c" -luring
if [ -n "${URING_TEST:-}" ]; then
	cp "$URING_TEST" "$work/uring.test"
else
	(cd "$root" && go test -c -o "$work/uring.test" ./internal/uring)
fi

# gobench CASE: one Go benchmark, as "go NAME NS/OP CPU-NS/OP PAIR".
gobench() {
	local top=${1%%/*} sub=
	[ "$top" != "$1" ] && sub="/^${1#*/}\$"
	(cd "$root/internal/uring" && "$work/uring.test" -test.run='^$' \
		-test.bench="^$top\$$sub" -test.benchtime="${secs}s") |
		awk -v p="$pair" '/^Benchmark/ { sub(/-[0-9]+$/, "", $1); print "go", $1, $3, metric("cpu-ns/op"), p }
			function metric(unit,   i) { for (i = 4; i < NF; i++) if ($(i + 1) == unit) return $i; return "?" }'
}

# cbench CASE: the C loop of the same name, as "c NAME NS/OP CPU-NS/OP PAIR".
cbench() {
	"$work/uring_floor" "$secs" "$file" "$1" | awk -v p="$pair" '{ print "c", $1, $3, $5, p }'
}

for pair in $(seq "$pairs"); do
	for c in "${cases[@]}"; do
		if [ $((pair % 2)) -eq 1 ]; then
			gobench "$c" && cbench "$c"
		else
			cbench "$c" && gobench "$c"
		fi
	done >>"$work/results"
done
awk '
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# spread(name, col): "min max" of the per-pair go/C ratios of column col.
function spread(n, col,   p, r, lo, hi) {
	lo = 1e9; hi = 0
	for (p in np) if (("go " n " " p) in x && ("c " n " " p) in x) {
		split(x["go " n " " p], g); split(x["c " n " " p], c)
		r = g[col] / c[col]; if (r < lo) lo = r; if (r > hi) hi = r
	}
	return sprintf("%5.2f %5.2f", lo, hi)
}
{ w[$1 " " $2] = w[$1 " " $2] " " $3; u[$1 " " $2] = u[$1 " " $2] " " $4
  x[$1 " " $2 " " $5] = $3 " " $4; names[$2] = 1; np[$5] = 1 }
END {
	for (n in names) {
		gw = median(w["go " n]); cw = median(w["c " n]); gu = median(u["go " n]); cu = median(u["c " n])
		printf "%-30s %8.1f %8.1f %5.2f %s %8.1f %8.1f %5.2f %s\n", n, gw, cw, gw / cw, spread(n, 1), gu, cu, gu / cu, spread(n, 2)
	}
}' "$work/results" | sort >"$work/table"
printf '%-30s %8s %8s %5s %5s %5s %8s %8s %5s %5s %5s\n' case 'go ns' 'C ns' go/C min max 'go cpu' 'C cpu' go/C min max
cat "$work/table"
echo "(ns: ns/op wall time; cpu: process CPU ns/op; $pairs pairs of ${secs}s runs per case," \
	"order flipped every pair; medians, and min/max of the per-pair ratios;" \
	"liburing $(dpkg-query -W -f='${Version}' liburing-dev 2>/dev/null || echo '?'); $(uname -r), $(nproc) CPUs)"
