#!/bin/bash
# bench/kstage-cost/run.sh: what --kernel-stages costs in IOPS.
#
# It runs the patch's job (examples/randread.fio: 4 KiB random reads,
# O_DIRECT, kernel SQPOLL) on a loop device it makes (backing file on
# /dev/shm), with kernel stages off and on, in alternating pairs (off-on,
# then on-off, ...) so that drift and other load on the machine fall on both
# sides alike, for each case: the job as it is at iodepth 1 and 32, and
# without SQPOLL (the kernel's default task-run flags) at iodepth 32. It
# prints a Markdown section for bench/results.md: per case the median IOPS
# off and on, the median and range of the per-pair on/off ratios, the CPU
# time of the BPF programs per I/O from the run's JSON (they join the I/Os
# in the kernel; the job reads each one's record) and the join rate. Root
# only (loop device, BPF).
#
#   bench/kstage-cost/run.sh            # PAIRS=5 RUNTIME=3s
set -euo pipefail
PAIRS=${PAIRS:-5}
RUNTIME=${RUNTIME:-3s}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /dev/shm/gofio-kstage-cost-XXXXXX)
loop=
cleanup() { [ -n "$loop" ] && losetup -d "$loop"; rm -rf "$work"; }
trap cleanup EXIT
go build -o "$work/gofio" "$root"
truncate -s 1G "$work/backing"
loop=$(losetup -f --show "$work/backing")
cases=("sqpoll qd1|--set iodepth=1" "sqpoll qd32|--set iodepth=32" "no sqpoll qd32|--set iodepth=32 --set sqpoll=0")
field() { python3 -c 'import json,sys
j=json.load(open(sys.argv[1]))["jobs"][0]
k=j["gofio"].get("kernel_stages")
if sys.argv[2]=="iops": print(j["read"]["iops"])
elif sys.argv[2]=="cost": print(k["bpf_ns_per_io"]/1000 if k and k["available"] else "")
elif sys.argv[2]=="join": print(100*k["join_rate"] if k and k["available"] else "")' "$1" "$2"; }
stats() { python3 -c 'import sys,statistics as s
off=[float(x) for x in sys.argv[1].split()]; on=[float(x) for x in sys.argv[2].split()]
r=[b/a for a,b in zip(off,on)]
print("%.0f | %.0f | %.3f | %.3f-%.3f" % (s.median(off), s.median(on), s.median(r), min(r), max(r)))' "$1" "$2"; }
med() { python3 -c 'import sys,statistics as s; print("%.2f" % s.median(float(x) for x in sys.argv[1:]))' "$@"; }

echo "## kernel stages: IOPS with --kernel-stages on against off (bench/kstage-cost/run.sh)"
echo
echo "Run on $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start, with \`PAIRS=$PAIRS RUNTIME=$RUNTIME\`."
echo "The job: \`gofio examples/randread.fio --set filename=$loop --set runtime=$RUNTIME\` plus the case's options, on a 1 GiB loop device backed by /dev/shm; off and on alternate (off-on, on-off, ...)."
echo
echo "| case | IOPS off (median) | IOPS on (median) | on/off (median) | on/off (min-max) | BPF programs CPU per I/O (us) | joined (%) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for c in "${cases[@]}"; do
	name=${c%%|*}
	read -r -a extra <<<"${c#*|}"
	off=() on=() cost=() join=()
	for i in $(seq 1 "$PAIRS"); do
		order=(off on)
		[ $((i % 2)) -eq 0 ] && order=(on off)
		for side in "${order[@]}"; do
			flag=()
			[ "$side" = on ] && flag=(--kernel-stages=required)
			out="$work/$side.json"
			"$work/gofio" "${flag[@]}" "$root/examples/randread.fio" --set filename="$loop" --set runtime="$RUNTIME" \
				"${extra[@]}" --output-format=json --output "$out" 2>/dev/null
			if [ "$side" = on ]; then
				on+=("$(field "$out" iops)")
				cost+=("$(field "$out" cost)")
				join+=("$(field "$out" join)")
			else
				off+=("$(field "$out" iops)")
			fi
		done
	done
	echo "| $name | $(stats "${off[*]}" "${on[*]}") | $(med "${cost[@]}") | $(med "${join[@]}") |"
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
