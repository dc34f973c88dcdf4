#!/bin/bash
# bench/kstage-cost/sample.sh: what --kernel-stages costs at each
# kernel_stages_sample, in runs interleaved with runs without it.
#
# It runs the patch's job (examples/randread.fio: 4 KiB random reads,
# O_DIRECT) at iodepth 32 on a 1 GiB loop device it makes (backing file on
# /dev/shm), with and without SQPOLL, REPS times in turn: stages off, on
# with kernel_stages_sample=N for each N in SAMPLES, back to back, so that
# every "on" run has an "off" run beside it. It prints a Markdown table:
# per case and N the median of the IOPS ratios on/off of the runs side by
# side, their range, and the median of the job's busiest thread's CPU per
# I/O off/on (what a loaded machine blurs less). Root only (loop device,
# BPF).
#
#   bench/kstage-cost/sample.sh    # REPS=10 SAMPLES="8 1" RUNTIME=2s NICE=-20 GOFIO=
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
REPS=${REPS:-10}
SAMPLES=${SAMPLES:-8 1}
RUNTIME=${RUNTIME:-2s}
NICE=${NICE:--20}
work=$(mktemp -d /tmp/gofio-kstage-sample-XXXXXX)
loop=
cleanup() {
	if [ -n "$loop" ]; then losetup -d "$loop"; fi
	rm -rf "$work"
}
trap cleanup EXIT
if [ -n "${GOFIO:-}" ]; then cp "$GOFIO" "$work/gofio"; else (cd "$root" && go build -o "$work/gofio" .); fi
truncate -s 1G "$work/backing"
loop=$(losetup -f --show "$work/backing")
# one RUN: prints "IOPS busiest-thread-CPU-us-per-IO"
one() {
	nice -n "$NICE" "$work/gofio" "$root/examples/randread.fio" --set filename="$loop" --set runtime="$RUNTIME" \
		--set iodepth=32 "$@" --output-format=json 2>/dev/null | python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]
n = j["read"]["total_ios"]
print(j["read"]["iops"], max(t["usr_usec"] + t["sys_usec"] for t in j["gofio"]["threads"]) / n)'
}
echo "## kernel stages at each kernel_stages_sample, runs side by side with stages off (bench/kstage-cost/sample.sh)"
echo
echo "Run on $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start, \`REPS=$REPS SAMPLES=\"$SAMPLES\" RUNTIME=$RUNTIME NICE=$NICE\`: \`gofio examples/randread.fio --set filename=LOOP --set iodepth=32\` on a 1 GiB loop device backed by /dev/shm."
echo
echo "| case | kernel_stages_sample | IOPS off (median) | IOPS on (median) | on/off, runs side by side (median) | on/off (min-max) | busiest thread CPU per I/O, off/on (median) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for c in "sqpoll|--set sqpoll=1" "no sqpoll|--set sqpoll=0"; do
	read -r -a extra <<<"${c#*|}"
	: >"$work/runs"
	for _ in $(seq "$REPS"); do
		echo "off $(one "${extra[@]}")" >>"$work/runs"
		for s in $SAMPLES; do
			echo "$s $(one "${extra[@]}" --kernel-stages=required --set kernel_stages_sample="$s")" >>"$work/runs"
		done
	done
	python3 - "$work/runs" "${c%%|*}" "$SAMPLES" <<'PY'
import statistics as st, sys
runs, case, samples = sys.argv[1], sys.argv[2], sys.argv[3].split()
d = {}
for line in open(runs):
    k, iops, cpu = line.split()
    d.setdefault(k, []).append((float(iops), float(cpu)))
off = d["off"]
for s in samples:
    on = d[s]
    r = sorted(a[0] / b[0] for a, b in zip(on, off))
    c = st.median(b[1] / a[1] for a, b in zip(on, off))
    print(f"| {case} | {s} | {st.median(x[0] for x in off):.0f} | {st.median(x[0] for x in on):.0f} | {st.median(r):.3f} | {r[0]:.3f}-{r[-1]:.3f} | {c:.3f} |")
PY
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
