#!/bin/bash
# bench/gate-drift/run.sh: does the --baseline gate hold across runs?
#
# It runs one unchanged short job the way a CI pipeline does, a run at a
# time with a pause between runs (GAP), and checks:
#   1. calibration: CAL runs of the job, then gofio drift -> the --drift D;
#   2. ten A-then-A baseline diffs, GAP apart, gated with --fail-if-slower
#      PCT --drift D, each run diffed against the last run that passed (as CI
#      keeps only a passing run as the next baseline): every one must exit 0;
#   3. a real 20% slowdown: the job capped with rate_iops at 80% of RATE (or,
#      without RATE, of the last run's median IOPS), diffed against it: must
#      exit 101.
# RATE=N caps the unchanged job itself at N IOPS (rate_iops=N), so that CPU
# contention from other work on the machine, which moves an uncapped
# tmpfs job's IOPS several-fold, does not decide its throughput.
# The calibration runs are not reused in step 2, so D is not fitted to the
# runs it is tested on. A diff that exits 101 is confirmed as docs/ci.md's
# recipe does: the same command once more after GAP, whose exit decides
# (CONFIRM=0 turns that off). It prints a Markdown section for
# bench/results.md.
#
#   bench/gate-drift/run.sh            # GAP=45 RUNTIME=1s PCT=5 CAL=5 RATE=
set -euo pipefail
GAP=${GAP:-45}
RUNTIME=${RUNTIME:-1s}
PCT=${PCT:-5}
CAL=${CAL:-5}
PAIRS=${PAIRS:-10}
RATE=${RATE:-}
CONFIRM=${CONFIRM:-1}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /dev/shm/gofio-gate-drift-XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/gofio" "$root"
g="$work/gofio"
job=(--name=gate --ioengine=io_uring --rw=randread --bs=4k --size=64m --filename="$work/data"
	--time_based --runtime="$RUNTIME" --iodepth=16 --randrepeat=0)
slowjob=("${job[@]}")
if [ -n "$RATE" ]; then
	job+=(--rate_iops="$RATE")
fi
common=(--repeat 5 --gate-metric iops --output-format=json)
median_iops() { python3 -c 'import json,sys,statistics
d=json.load(open(sys.argv[1]))["gofio_compare"]["rows"][0]["new"]
print(round(d["iops_median"]))' "$1"; }
baseline_field() { python3 -c 'import json,sys
b=json.load(open(sys.argv[1]))["gofio_baseline"]; r=b["comparison"]["rows"][0]; s=r["stats"]
print("%s | %+.1f%% | [%+.1f%%, %+.1f%%] | %.3f | %s" % (b["verdict"], s["delta_pct"], s["ci_lo_pct"] or 0, s["ci_hi_pct"] or 0, s["p_value"], s["verdict"]))' "$1"; }

echo "## --baseline gate across runs (bench/gate-drift/run.sh)"
echo
echo "Run on $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs, with \`GAP=$GAP RUNTIME=$RUNTIME PCT=$PCT CAL=$CAL RATE=$RATE\`."
echo "The job: \`${job[*]}\` with \`${common[*]}\` (data file on /dev/shm)."
echo
echo "### 1. Calibration: $CAL runs, $GAP s apart, then gofio drift"
echo
cal=()
for i in $(seq 1 "$CAL"); do
	[ "$i" -gt 1 ] && sleep "$GAP"
	"$g" "${job[@]}" "${common[@]}" --output "$work/cal$i.json" 2>/dev/null
	cal+=("$work/cal$i.json")
done
echo "Load average (1 min) at the end of the calibration: $(cut -d' ' -f1 /proc/loadavg) on $(nproc) CPUs."
echo
echo '```'
"$g" drift --gate-metric iops "${cal[@]}" | tee "$work/drift.txt" | sed "s#$work/##g" || true
echo '```'
D=$(sed -n 's/^--drift //p' "$work/drift.txt")
if [ -z "$D" ]; then
	echo
	echo "gofio drift proposed no allowance (the runner is too noisy to gate a baseline diff on): nothing to check."
	exit 0
fi
echo
echo "### 2. $PAIRS A-then-A baseline diffs, $GAP s apart, --fail-if-slower $PCT --drift $D"
echo
echo "| diff | exit | baseline verdict | Δ% IOPS | CI | p | row verdict | load avg after |"
echo "| --- | ---: | --- | ---: | --- | ---: | --- | ---: |"
sleep "$GAP"
"$g" "${job[@]}" "${common[@]}" --drift "$D" --output "$work/run0.json" 2>/dev/null
# diff_run runs diff i against run$base after GAP seconds, sets rc to its
# exit code and prints its table row, named $1.
diff_run() {
	sleep "$GAP"
	set +e
	"$g" "${job[@]}" "${common[@]}" --baseline "$work/run$base.json" --fail-if-slower "$PCT" \
		--output "$work/run$i.json" >"$work/out$i.txt" 2>&1
	rc=$?
	set -e
	echo "| $1 vs run$base | $rc | $(baseline_field "$work/run$i.json") | $(cut -d' ' -f1 /proc/loadavg) |"
}
fails=0
base=0
for i in $(seq 1 "$PAIRS"); do
	diff_run "run$i"
	if [ "$rc" -eq 101 ] && [ "$CONFIRM" = 1 ]; then
		diff_run "run$i (confirming)"
	fi
	if [ "$rc" -ne 0 ]; then
		fails=$((fails + 1))
	else
		base=$i
	fi
done
echo
echo "A-then-A diffs that exited non-zero: $fails of $PAIRS (want 0)."
echo
last="$work/run$base.json"
if [ -n "$RATE" ]; then
	cap=$((RATE * 8 / 10))
	echo "### 3. A 20% slowdown: rate_iops=$cap (80% of RATE)"
else
	cap=$(($(median_iops "$last") * 8 / 10))
	echo "### 3. A 20% slowdown: rate_iops=$cap (80% of the last run's median IOPS)"
fi
echo
sleep "$GAP"
set +e
slow() {
	"$g" "${slowjob[@]}" --rate_iops="$cap" "${common[@]}" --baseline "$last" --fail-if-slower "$PCT" --allow-different-jobs \
		--output "$work/slow.json" >"$work/slow.txt" 2>&1
}
slow
rc=$?
set -e
echo "| diff | exit | baseline verdict | Δ% IOPS | CI | p | row verdict | load avg after |"
echo "| --- | ---: | --- | ---: | --- | ---: | --- | ---: |"
echo "| slow vs run$base | $rc | $(baseline_field "$work/slow.json") | $(cut -d' ' -f1 /proc/loadavg) |"
if [ "$rc" -eq 101 ] && [ "$CONFIRM" = 1 ]; then
	sleep "$GAP"
	set +e
	slow
	rc=$?
	set -e
	echo "| slow (confirming) vs run$base | $rc | $(baseline_field "$work/slow.json") | $(cut -d' ' -f1 /proc/loadavg) |"
fi
echo
echo "Exit $rc (want 101)."
