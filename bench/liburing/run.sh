#!/usr/bin/env bash
# run.sh: internal/uring's benchmarks side by side with the C liburing floor.
#
# It builds uring_floor.c (gcc -O2 -luring), then alternates PAIRS times:
# the Go benchmarks (go test -bench), then the C loops, and prints for each
# case the median ns/op of both and the ratio go/C (1.00 = as fast as C,
# 1.15 = 15% slower). Usage: bench/liburing/run.sh [PAIRS] [SECONDS]
set -euo pipefail
pairs=${1:-5}
secs=${2:-1}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
file=$(mktemp /dev/shm/gofio-floor-XXXXXX)
trap 'rm -rf "$work" "$file"' EXIT
truncate -s 16M "$file"
gcc -O2 -o "$work/uring_floor" "$here/uring_floor.c" -luring
(cd "$root" && go test -c -o "$work/uring.test" ./internal/uring)
for i in $(seq "$pairs"); do
	(cd "$root/internal/uring" && "$work/uring.test" -test.run='^$' \
		-test.bench='^(BenchmarkNop|BenchmarkRead4KDirect)$' -test.benchtime="${secs}s") |
		awk '/^Benchmark/ { sub(/-[0-9]+$/, "", $1); print "go", $1, $3 }' >>"$work/results"
	"$work/uring_floor" "$secs" "$file" | awk '{ print "c", $1, $3 }' >>"$work/results"
done
awk '
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ v[$1 " " $2] = v[$1 " " $2] " " $3; names[$2] = 1 }
END {
	for (n in names) {
		g = median(v["go " n]); c = median(v["c " n])
		printf "%-28s %12.1f %12.1f %8.2f\n", n, g, c, g / c
	}
}' "$work/results" | sort >"$work/table"
printf '%-28s %12s %12s %8s\n' case 'go ns/op' 'C ns/op' go/C
cat "$work/table"
echo "($pairs pairs of ${secs}s runs, alternating go then C; medians; $(uname -r), $(nproc) CPUs)"
