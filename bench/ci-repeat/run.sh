#!/usr/bin/env bash
# bench/ci-repeat/run.sh: runs `bash .ci/run` N times, each on a fresh clone
# of one commit, every other run beside a CPU hog (one busy loop per CPU,
# on for HOG_ON s, off 1 to HOG_OFF s), and prints one line per run (exit
# code, wall time, load before and after, the steps' start times) and a
# Markdown table for bench/results.md. The clones and the hog are removed
# on exit.
#
#   bench/ci-repeat/run.sh [N] [COMMIT]     # N=10, COMMIT=HEAD of this repository
set -euo pipefail
n=${1:-10}
repo=$(cd "$(dirname "$0")/../.." && pwd)
commit=$(git -C "$repo" rev-parse "${2:-HEAD}")
HOG_ON=${HOG_ON:-3}
HOG_OFF=${HOG_OFF:-5}
OUT=${OUT:-$(mktemp -d /tmp/gofio-ci-repeat-XXXXXX)}
mkdir -p "$OUT"
work=$(mktemp -d /tmp/gofio-ci-clone-XXXXXX)
# shellcheck source=bench/hog.sh
. "$repo/bench/hog.sh"
trap 'stop_hog; rm -rf "$work"' EXIT
load() { cut -d' ' -f1 /proc/loadavg; }
echo "| run | hog | exit | wall | load before, after | step start times (s) |" >"$OUT/table.md"
echo "| ---: | --- | ---: | ---: | --- | --- |" >>"$OUT/table.md"
for i in $(seq "$n"); do
	hog=0
	if [ $((i % 2)) = 0 ]; then hog=1; fi
	rm -rf "$work/clone"
	git clone -q "$repo" "$work/clone"
	git -C "$work/clone" checkout -q "$commit"
	[ "$hog" = 1 ] && start_hog
	l0=$(load)
	t0=$SECONDS
	rc=0
	(cd "$work/clone" && bash .ci/run) >"$OUT/run-$i.log" 2>&1 || rc=$?
	wall=$((SECONDS - t0))
	stop_hog
	steps=$(sed -n 's/^== .* (at \([0-9]*\) s)$/\1/p' "$OUT/run-$i.log" | paste -sd, -)
	echo "run $i hog=$hog exit $rc ${wall}s load $l0 -> $(load) steps $steps"
	echo "| $i | $([ "$hog" = 1 ] && echo yes || echo no) | $rc | $((wall / 60)) min $((wall % 60)) s | $l0, $(load) | $steps |" >>"$OUT/table.md"
done
echo "commit $commit; logs in $OUT"
cat "$OUT/table.md"
