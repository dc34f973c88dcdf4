#!/bin/bash
# bench/runner-check/run.sh: do diffs and the history of an unchanged
# job's saved runs stay quiet, and does a run made beside a CPU hog read
# as a changed runner rather than as slower code?
#
# It saves RUNS runs of one unchanged job (an io_uring randread sweep of
# iodepth 1, 64 and 1024 on a /dev/shm file, --repeat 5), GAP seconds
# apart, as a CI pipeline makes them; run HOG (1-based) is made beside a
# steady CPU hog on every CPU (one busy loop per CPU, started before the
# run and stopped after it). Then:
#   1. gofio drift over the first five runs (the allowance it proposes, or
#      that the runner is too noisy);
#   2. RUNS-1 diffs of consecutive runs, gated at PCT: without a drift
#      allowance (refused, or runner changed when the canaries moved
#      apart), with --drift 0 (a runner assumed not to drift), and with
#      step 1's allowance when it proposed one; none may exit 101 except
#      where the history shows the runner moved;
#   3. gofio history --fail-if-slower PCT of every run from the sixth on
#      against the runs before it;
#   4. each run's canary: its cost and its items' medians, and in step 2
#      the change of each item's median from one run to the next.
# It prints a Markdown section for bench/results.md.
#
#   bench/runner-check/run.sh          # RUNS=11 GAP=20 HOG=6 RUNTIME=1s PCT=5
set -euo pipefail
RUNS=${RUNS:-11}
GAP=${GAP:-20}
HOG=${HOG:-6}
RUNTIME=${RUNTIME:-1s}
PCT=${PCT:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /dev/shm/gofio-runner-check-XXXXXX)
hogs=()
stop_hogs() {
	for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${hogs[@]}"; do wait "$p" 2>/dev/null || true; done
	hogs=()
}
trap 'stop_hogs; rm -rf "$work"' EXIT
go build -o "$work/gofio" "$root"
g="$work/gofio"
mkdir "$work/runs"
job=(--name=rc --ioengine=io_uring --rw=randread --bs=4k --size=64m --filename="$work/data"
	--time_based --runtime="$RUNTIME" --randrepeat=0 --sweep iodepth=1,64,1024 --repeat 5)
load() { cut -d' ' -f1 /proc/loadavg; }

echo "## Saved runs of an unchanged job, one beside a CPU hog (bench/runner-check/run.sh)"
echo
echo "Run on $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs, with \`RUNS=$RUNS GAP=$GAP HOG=$HOG RUNTIME=$RUNTIME PCT=$PCT\`."
echo "The job: \`gofio ${job[*]} --output-format=json\` (data file on /dev/shm); run $HOG beside $(nproc) busy loops, one per CPU."
echo
echo "| run | load avg before | canary cost before + after (ms) | cpu ns/round | mem ns/load | null ns/io | hog |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
for i in $(seq 1 "$RUNS"); do
	[ "$i" -gt 1 ] && sleep "$GAP"
	before=$(load)
	hog=""
	if [ "$i" -eq "$HOG" ]; then
		for _ in $(seq 1 "$(nproc)"); do
			sh -c 'while :; do :; done' &
			hogs+=($!)
		done
		hog="beside the hog"
		sleep 2
	fi
	out="$work/runs/run$(printf %02d "$i").json"
	"$g" "${job[@]}" --output-format=json --output "$out" >/dev/null 2>&1
	stop_hogs
	python3 - "$out" "$i" "$before" "$hog" <<'EOF'
import json, statistics, sys
c = json.load(open(sys.argv[1]))["gofio_run"]["canary"]
med = lambda k: statistics.median(c["before"]["figures"][k] + c["after"]["figures"][k])
print("| %s | %s | %.0f + %.0f | %.2f | %.1f | %.0f | %s |" % (sys.argv[2], sys.argv[3], c["before"]["cost_ms"], c["after"]["cost_ms"],
      med("cpu"), med("mem"), med("null"), sys.argv[4]))
EOF
done
runs=("$work"/runs/run*.json)
echo
echo "### 1. gofio drift over runs 1-5"
echo
echo '```'
"$g" drift --fail-if-slower "$PCT" "${runs[@]:0:5}" | sed "s#$work/runs/##g" | tee "$work/drift.txt" || true
echo '```'
D=$(sed -n 's/^--drift //p' "$work/drift.txt")
echo
echo "### 2. Diffs of consecutive runs, --fail-if-slower $PCT"
echo
hdr="| diff | canary Δ cpu / mem / null | no --drift: exit | verdict | --drift 0: exit | verdict |"
sep="| --- | --- | ---: | --- | ---: | --- |"
if [ -n "$D" ]; then
	hdr="$hdr --drift $D: exit | verdict |"
	sep="$sep ---: | --- |"
fi
echo "$hdr"
echo "$sep"
verdict() { { grep -o 'gofio verdict [^:]*: [A-Za-z ]*' "$1" || true; } | sed 's/.*: //' | head -1; }
n101=0
for i in $(seq 1 $((RUNS - 1))); do
	a=${runs[$((i - 1))]}
	b=${runs[$i]}
	delta=$(python3 - "$a" "$b" <<'EOF'
import json, statistics, sys
def med(path, k):
    c = json.load(open(path))["gofio_run"]["canary"]
    return statistics.median(c["before"]["figures"][k] + c["after"]["figures"][k])
print(" / ".join("%+.0f%%" % ((med(sys.argv[2], k) / med(sys.argv[1], k) - 1) * 100) for k in ("cpu", "mem", "null")))
EOF
)
	line="| run$i -> run$((i + 1)) | $delta |"
	for d in none 0 ${D:+$D}; do
		set +e
		if [ "$d" = none ]; then
			"$g" diff --fail-if-slower "$PCT" --output-format=compare "$a" "$b" >"$work/diff.txt" 2>&1
		else
			"$g" diff --fail-if-slower "$PCT" --drift "$d" --output-format=compare "$a" "$b" >"$work/diff.txt" 2>&1
		fi
		rc=$?
		set -e
		v=$(verdict "$work/diff.txt")
		[ -z "$v" ] && v="refused: $(grep -o -m1 "needs the drift between runs\|different runners" "$work/diff.txt" || true)"
		[ "$rc" -eq 101 ] && n101=$((n101 + 1))
		line="$line $rc | $v |"
	done
	echo "$line"
done
echo
echo "Diffs that exited 101: $n101."
echo
echo "### 3. gofio history --fail-if-slower $PCT, each run from the sixth against the runs before it"
echo
echo "| run | exit | verdict line |"
echo "| --- | ---: | --- |"
mkdir "$work/hist"
for i in $(seq 1 "$RUNS"); do
	cp "${runs[$((i - 1))]}" "$work/hist/"
	[ "$i" -lt 6 ] && continue
	set +e
	"$g" history --fail-if-slower "$PCT" "$work/hist" >"$work/hist.txt" 2>&1
	rc=$?
	set -e
	echo "| run$i | $rc | $( { grep "gofio verdict" "$work/hist.txt" || true; } | sed "s#$work/##g") |"
done
echo
echo "The last history in full:"
echo
echo '```'
sed "s#$work/##g" "$work/hist.txt"
echo '```'
echo
echo "Load average (1 min) at the end: $(load) on $(nproc) CPUs."
