#!/bin/bash
# bench/capacity/run.sh: the capacity curve of the patch's job
# (examples/randread.fio: 4 KiB random reads, O_DIRECT, kernel SQPOLL) on a
# scratch file on /dev/shm and on one on /var/tmp (this VM's virtio disk),
# and the run-to-run spread of the capacity that --fail-if-capacity-below
# gates on.
#
# Curves: each target runs --sweep iodepth=1,4,16,64,256,1024 under
# --slo 'p99<=2ms' (RUNTIME a point), writing the chart to
# docs/capacity-{shm,vda}.svg and the capacity lines and JSON under OUT.
# Spread: the /dev/shm sweep again, REPEATS times, and every ordered pair
# of those runs judged as baseline and new run by --fail-if-capacity-below
# 90%, 80% and 70%, as the gate would, and each run against the others as
# a --history (the share that would fail is the gate's false-alarm rate on
# this runner, the code unchanged).
# Scratch files are removed at the end.
#
#   bench/capacity/run.sh           # RUNTIME=1s REPEATS=8 OUT=/tmp/gofio-capacity
set -euo pipefail
RUNTIME=${RUNTIME:-1s}
REPEATS=${REPEATS:-8}
OUT=${OUT:-/tmp/gofio-capacity}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$OUT"
shm=/dev/shm/gofio-capacity-$$
vda=/var/tmp/gofio-capacity-$$
trap 'rm -f "$shm" "$vda"' EXIT
go build -o "$OUT/gofio" "$root"
sweep=(--sweep 'iodepth=1,4,16,64,256,1024' --slo 'p99<=2ms' --set runtime="$RUNTIME" --output-format=json)
curve() { # NAME FILE SIZE
	"$OUT/gofio" "${sweep[@]}" --set filename="$2" --set size="$3" --capacity-plot "$root/docs/capacity-$1.svg" \
		--output="$OUT/$1.json" "$root/examples/randread.fio" >"$OUT/$1.txt" 2>&1
	echo "== $1 (load $(cut -d' ' -f1-3 /proc/loadavg))"
	grep '^capacity' "$OUT/$1.txt"
	python3 -c 'import json,sys
c=json.load(open(sys.argv[1]))["gofio_capacity"]
print("| iodepth | IOPS | avg (us) | p50 (us) | p99 (us) | p99.9 (us) | p99 <= 2 ms |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for p in c["curve"]:
    print("| %d | %.0f | %.1f | %.1f | %.1f | %.1f | %s |" % (p["iodepth"], p["iops"], p["avg_us"], p["p50_us"], p["p99_us"], p["p99.9_us"], "yes" if p["met"] else "no"))' "$OUT/$1.json"
}
curve shm "$shm" 256m
curve vda "$vda" 1g
rm -f "$vda"
for i in $(seq "$REPEATS"); do
	"$OUT/gofio" "${sweep[@]}" --set filename="$shm" --set size=256m --output="$OUT/spread-$i.json" \
		"$root/examples/randread.fio" >/dev/null 2>&1
done
python3 -c 'import json,sys,itertools
caps=[json.load(open(f))["gofio_capacity"] for f in sys.argv[1:]]
iops=[c["iops"] if c["met"] else 0 for c in caps]
print("== spread: %d runs, capacity IOPS at depths %s" % (len(iops), ",".join(str(c["iodepth"]) for c in caps)))
print("   " + " ".join("%.0f" % v for v in iops))
pairs=list(itertools.permutations(range(len(iops)), 2))
for pct in (90, 80, 70):
    fails=sum(1 for b, n in pairs if iops[n] < pct/100*iops[b])
    print("   --fail-if-capacity-below %d%%: %d of %d ordered pairs fail (%.1f%%)" % (pct, fails, len(pairs), 100*fails/len(pairs)))
import statistics
for pct in (90, 80, 70):
    fails=0
    for n in range(len(iops)):
        rest=iops[:n]+iops[n+1:]
        fails+=iops[n] < pct/100*statistics.median(rest) and iops[n] < min(rest)
    print("   with the other %d runs as --history, %d%%: %d of %d runs fail" % (len(iops)-1, pct, fails, len(iops)))' "$OUT"/spread-*.json
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
