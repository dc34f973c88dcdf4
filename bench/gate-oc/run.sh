#!/bin/bash
# bench/gate-oc/run.sh: the operating characteristics of the --compare gate
# (--fail-if-slower) on this machine, as a CI runner sees them.
#
# It runs, on a scratch file in /dev/shm, the same sweep (io_uring 4k
# randread at the depths DEPTHS, RUNTIME a run) again and again:
#   1. AA A/A sweeps (--compare randrepeat=0,0: both sides the same job,
#      and no option whose rows could read "no result"), every other one beside an
#      intermittent CPU hog on every core (busy loops HOG_ON s on, 1 to
#      HOG_OFF s off): the share that exits 101 is the false-alarm rate;
#   2. SLOW sweeps for each slowdown in EFFECTS (percent), the new side
#      capped with rate_iops at (100 - E)% of the IOPS measured at the first
#      depth just before the batch, and judged on IOPS (--gate-metric
#      iops): the share that exits 101 is the gate's power, and the share
#      whose first-depth row reads slower is the power at that one depth
#      (the cap slows the deeper, faster depths by more; where the load
#      slows the uncapped side below the cap, the cap slows nothing).
# Every sweep is gated the way docs/ci.md does it, --repeat 5
# --fail-if-slower PCT --budget BUDGET, and its exit, verdicts, rounds,
# wall time and the load average before and after go to a TSV log
# ($OUT/sweeps.tsv); the script ends with a Markdown section for
# bench/results.md. The hog and the scratch file are removed on exit.
#
# RUNTIME=100ms and BUDGET=2m let an A/A sweep of depths 1, 64 and 1024
# decide in a minute or two at load 5-7 on this project's VM (two
# calibration sweeps: 3 rows the same in 73 s and 109 s; with 250 ms runs
# at load 10, none of 2 decided in 2 minutes).
#
#   bench/gate-oc/run.sh     # AA=50 SLOW=20 EFFECTS="10 25" DEPTHS=1,64,1024 RUNTIME=100ms BUDGET=2m PCT=5
set -euo pipefail
AA=${AA:-50}
SLOW=${SLOW:-20}
EFFECTS=${EFFECTS:-"10 25"}
DEPTHS=${DEPTHS:-1,64,1024}
RUNTIME=${RUNTIME:-100ms}
BUDGET=${BUDGET:-2m}
PCT=${PCT:-5}
HOG_ON=${HOG_ON:-2}
HOG_OFF=${HOG_OFF:-4}
OUT=${OUT:-$(mktemp -d /tmp/gofio-gate-oc-XXXXXX)}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /dev/shm/gofio-gate-oc-XXXXXX)
# shellcheck source=bench/hog.sh
. "$root/bench/hog.sh"
trap 'stop_hog; rm -rf "$work"' EXIT
mkdir -p "$OUT"
go build -o "$work/gofio" "$root"
g="$work/gofio"
job=(--name=oc --ioengine=io_uring --rw=randread --bs=4k --size=64m --filename="$work/data"
	--time_based --runtime="$RUNTIME" --randrepeat=0)
gate=(--sweep "iodepth=$DEPTHS" --repeat 5 --fail-if-slower "$PCT" --budget "$BUDGET" --output-format=json)
load() { cut -d' ' -f1 /proc/loadavg; }
# summary prints, from a sweep's JSON, its verdict, the first depth's row
# verdict, the rows' verdicts and rounds and the time the rounds took.
summary() {
	python3 - "$1" <<'PY'
import json, sys
try:
    c = json.load(open(sys.argv[1]))["gofio_compare"]
except Exception as e:
    print("none\tnone\t-\t-\t-"); sys.exit()
rows = c["rows"]
print("%s\t%s\t%s\t%s\t%.0f" % (c["verdict"], rows[0]["verdict"],
    ",".join(r["verdict"].replace(" ", "_") for r in rows),
    ",".join(str(len(r["new"]["per_repeat"]) if r["new"] else 0) for r in rows),
    c["design"]["elapsed_s"]))
PY
}
printf 'kind\tn\thog\trc\tverdict\tfirst_row\trows\trounds\telapsed_s\twall_s\tload_before\tload_after\n' > "$OUT/sweeps.tsv"
# sweep KIND N HOG ARGS...: one gated sweep, logged.
sweep() {
	local kind=$1 n=$2 hog=$3
	shift 3
	local lb t0 rc=0
	lb=$(load)
	[ "$hog" = 1 ] && start_hog
	t0=$(date +%s)
	"$g" "${job[@]}" "${gate[@]}" "$@" --output "$OUT/$kind-$n.json" >"$OUT/$kind-$n.out" 2>"$OUT/$kind-$n.err" || rc=$?
	local wall=$(($(date +%s) - t0))
	stop_hog
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$n" "$hog" "$rc" "$(summary "$OUT/$kind-$n.json")" "$wall" "$lb" "$(load)" >> "$OUT/sweeps.tsv"
	echo "$(date +%T) $kind $n hog=$hog exit $rc ($wall s, load $lb)" >&2
}

# reference prints the IOPS at the first depth, the median of 5 runs: the
# rate caps' reference.
first=${DEPTHS%%,*}
reference() {
	"$g" "${job[@]}" --iodepth="$first" --repeat 5 --output-format=json --output "$OUT/iops.json" >/dev/null 2>&1
	python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["gofio_compare"]["rows"][0]["new"]["iops_median"]))' "$OUT/iops.json"
}

for i in $(seq 1 "$AA"); do
	sweep aa "$i" $((i % 2 == 0 ? 1 : 0)) --compare randrepeat=0,0
done
refs=""
for e in $EFFECTS; do
	iops=$(reference)
	refs="$refs $e%:$iops"
	echo "$(date +%T) iodepth=$first: $iops IOPS" >&2
	cap=$((iops * (100 - e) / 100))
	for i in $(seq 1 "$SLOW"); do
		sweep "slow$e" "$i" 0 --compare "rate_iops=$cap,0" --gate-metric iops
	done
done

python3 - "$OUT/sweeps.tsv" "$AA" "$SLOW" "$EFFECTS" "$DEPTHS" "$RUNTIME" "$BUDGET" "$PCT" "$refs" <<'PY'
import csv, sys, statistics
from math import comb
path, aa, slow, effects, depths, runtime, budget, pct, iops = sys.argv[1:]
rows = list(csv.DictReader(open(path), delimiter="\t"))
def upper95(k, n):
    # Clopper-Pearson one-sided 95% upper bound on a rate seen k times in n.
    if k == n:
        return 1.0
    lo, hi = k / n, 1.0
    for _ in range(60):
        p = (lo + hi) / 2
        cdf = sum(comb(n, j) * p**j * (1 - p)**(n - j) for j in range(k + 1))
        lo, hi = (p, hi) if cdf > 0.05 else (lo, p)
    return hi
def line(group, label):
    n = len(group)
    if n == 0:
        return
    codes = {}
    for r in group:
        codes[r["rc"]] = codes.get(r["rc"], 0) + 1
    fails = codes.get("101", 0)
    walls = [int(r["wall_s"]) for r in group]
    loads = [float(r["load_before"]) for r in group] + [float(r["load_after"]) for r in group]
    first = sum(r["first_row"] == "slower" for r in group)
    inc = codes.get("103", 0)
    print("| %s | %d | %s | %d (%.0f%%, 95%% upper bound %.1f%%) | %d (%.0f%%) | %d (%.0f%%) | %d / %d s | %.1f-%.1f |" % (
        label, n, ", ".join("%s: %d" % kv for kv in sorted(codes.items())), fails, 100 * fails / n,
        100 * upper95(fails, n), first, 100 * first / n, inc, 100 * inc / n, statistics.median(walls), max(walls), min(loads), max(loads)))
print("| sweeps | n | exit codes | exit 101 | first depth slower | inconclusive (103) | wall median / max | load |")
print("|---|---|---|---|---|---|---|---|")
aa_rows = [r for r in rows if r["kind"] == "aa"]
line([r for r in aa_rows if r["hog"] == "0"], "A/A")
line([r for r in aa_rows if r["hog"] == "1"], "A/A beside the hog")
line(aa_rows, "A/A, all")
for e in effects.split():
    line([r for r in rows if r["kind"] == "slow" + e], "%s%% slower (rate_iops)" % e)
print()
print("| sweeps | rows by depth: verdicts (rounds median) |")
print("|---|---|")
def depths_line(group, label):
    if not group:
        return
    cols = []
    for d, name in enumerate(depths.split(",")):
        vs, rs = {}, []
        for r in group:
            v, n = r["rows"].split(",")[d], r["rounds"].split(",")[d]
            vs[v] = vs.get(v, 0) + 1
            rs.append(int(n))
        cols.append("%s: %s (%d)" % (name, ", ".join("%s %d" % kv for kv in sorted(vs.items())), statistics.median(rs)))
    print("| %s | %s |" % (label, "; ".join(cols)))
depths_line([r for r in aa_rows if r["hog"] == "0"], "A/A")
depths_line([r for r in aa_rows if r["hog"] == "1"], "A/A beside the hog")
for e in effects.split():
    depths_line([r for r in rows if r["kind"] == "slow" + e], "%s%% slower" % e)
print()
print("Depths %s, runtime %s a run, --repeat 5 --fail-if-slower %s --budget %s; the rate caps are (100 - E)%% of the first depth's median IOPS measured before each batch (E%%:IOPS =%s)." % (depths, runtime, pct, budget, iops))
PY
echo "log: $OUT/sweeps.tsv" >&2
