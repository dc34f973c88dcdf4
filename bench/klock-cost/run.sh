#!/bin/bash
# bench/klock-cost/run.sh: what --kernel-locks costs in IOPS.
#
# It runs the seed's job (4 KiB random reads of a 256 MiB file on /dev/shm,
# O_DIRECT, every request forced through io-wq with four workers) with
# kernel lock tracing off and on, in alternating pairs (off-on, then
# on-off, ...) so that drift and other load on the machine fall on both
# sides alike; the same job under the kernel's SQPOLL thread, whose io-wq
# workers contend most of all (io_wq_submit_work); and the job without
# force_async (few contentions: the cost of the programs' filter alone). It prints a Markdown section for
# bench/results.md: per case the median IOPS off and on, the median and
# range of the per-pair on/off ratios, and from the traced runs' JSON the
# contentions per I/O, the BPF programs' CPU time per I/O and the lost
# events. Root only (BPF).
#
# On a machine others load, NICE=-20 runs every gofio at nice -20, so that
# the job gets most of the CPUs it competes for with their nice-0 work
# (its io-wq workers and SQ thread inherit the job thread's nice value).
#
# CASES=WORD keeps the cases whose name holds WORD (e.g. CASES=seed).
#
#   bench/klock-cost/run.sh            # PAIRS=7 RUNTIME=3s NICE=0
set -euo pipefail
PAIRS=${PAIRS:-7}
RUNTIME=${RUNTIME:-3s}
NICE=${NICE:-0}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /dev/shm/gofio-klock-cost-XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/gofio" "$root"
job=(--name=klock --filename="$work/x" --size=256m --ioengine=io_uring --direct=1 --rw=randread --bs=4k
	--iodepth=64 --iowq_max_workers=4,4 --time_based --runtime="$RUNTIME")
cases=("force_async=1 (the seed's job)|--force_async=1" "force_async=1 sqthread_poll=1|--force_async=1 --sqthread_poll=1"
	"no force_async|--force_async=0")
field() { python3 -c 'import json,sys
j=json.load(open(sys.argv[1]))["jobs"][0]
k=j["gofio"].get("kernel_locks")
f=sys.argv[2]
if f=="iops": print(j["read"]["iops"])
elif not k or not k["available"]: print("nan")
elif f=="cost": print(k["bpf_ns_per_io"])
else: print(k[f])' "$1" "$2"; }
# stats prints the medians, the median on/off ratio of the pairs with its
# distribution-free 95% interval (the order statistics a sign test
# gives; "-" with fewer than 6 pairs) and the ratios' range.
stats() { python3 -c 'import sys,math,statistics as s
off=[float(x) for x in sys.argv[1].split()]; on=[float(x) for x in sys.argv[2].split()]
r=sorted(b/a for a,b in zip(off,on)); n=len(r)
k=0
while k+1 <= n and sum(math.comb(n,i) for i in range(k+1))/2**n <= 0.025: k+=1
ci="%.3f-%.3f" % (r[k-1], r[n-k]) if k>0 else "-"
print("%.0f | %.0f | %.3f | %s | %.3f-%.3f" % (s.median(off), s.median(on), s.median(r), ci, r[0], r[-1]))' "$1" "$2"; }
med() { python3 -c 'import sys,statistics as s; print(("%."+sys.argv[1]+"f") % s.median(float(x) for x in sys.argv[2:]))' "$@"; }
sum() { python3 -c 'import sys; print("%d" % sum(float(x) for x in sys.argv[1:]))' "$@"; }

echo "## kernel locks: IOPS with --kernel-locks on against off (bench/klock-cost/run.sh)"
echo
echo "Run on $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start, with \`PAIRS=$PAIRS RUNTIME=$RUNTIME NICE=$NICE\`."
echo "The job: \`gofio ${job[*]//$work/DIR}\` plus the case's option, DIR a directory on /dev/shm; off and on alternate (off-on, on-off, ...)."
echo
echo "| case | IOPS off (median) | IOPS on (median) | on/off (median) | on/off, 95% interval of the median | on/off (min-max) | contentions per I/O (median) | BPF programs CPU per I/O (ns, median) | lost events (all runs) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for c in "${cases[@]}"; do
	name=${c%%|*}
	[[ "$name" == *"${CASES:-}"* ]] || continue
	read -r -a extra <<<"${c#*|}"
	off=() on=() per=() cost=() lost=()
	for i in $(seq 1 "$PAIRS"); do
		order=(off on)
		[ $((i % 2)) -eq 0 ] && order=(on off)
		for side in "${order[@]}"; do
			flag=()
			[ "$side" = on ] && flag=(--kernel-locks=required)
			out="$work/$side.json"
			nice -n "$NICE" "$work/gofio" "${flag[@]}" "${job[@]}" "${extra[@]}" --output-format=json --output "$out" 2>/dev/null
			if [ "$side" = on ]; then
				on+=("$(field "$out" iops)")
				per+=("$(field "$out" contentions_per_io)")
				cost+=("$(field "$out" cost)")
				lost+=("$(field "$out" lost_events)")
			else
				off+=("$(field "$out" iops)")
			fi
		done
	done
	echo "| $name | $(stats "${off[*]}" "${on[*]}") | $(med 4 "${per[@]}") | $(med 1 "${cost[@]}") | $(sum "${lost[@]}") |"
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
