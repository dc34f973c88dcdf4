#!/bin/bash
# bench/kstage-cost/run.sh: what --kernel-stages costs in IOPS and in CPU.
#
# It runs the patch's job (examples/randread.fio: 4 KiB random reads,
# O_DIRECT, kernel SQPOLL) on a loop device it makes (backing file on
# /dev/shm), with kernel stages off and on in alternating pairs, for each
# case: the job as it is at iodepth 1 and 32, and without SQPOLL (the
# kernel's default task-run flags) at iodepth 32; then a few runs with
# --kernel-trace-cost (bench/onoff/lib.sh). It prints a Markdown section
# for bench/results.md: per case the median IOPS off and on, the median
# on/off ratio of the pairs with its 95% interval and range, the load,
# and from the cost runs the CPU time of the BPF programs per I/O, their
# runs per I/O (5 are the I/O's own; the rest are other processes' events
# the programs leave) and the join rate. Root only (loop device, BPF).
#
#   bench/kstage-cost/run.sh     # PAIRS=5 COST_RUNS=3 RUNTIME=3s NICE=0 CASES=
set -euo pipefail
# shellcheck source=bench/onoff/lib.sh
. "$(dirname "$0")/../onoff/lib.sh"
loop=
onoff_cleanup_hook() { if [ -n "$loop" ]; then losetup -d "$loop"; fi; }
onoff_setup kstage-cost
truncate -s 1G "$work/backing"
loop=$(losetup -f --show "$work/backing")
onoff_cost_hook() {
	cost+=("$(onoff_json "$1" kernel_stages 'k["bpf_ns_per_io"]/1000')")
	runs+=("$(onoff_json "$1" kernel_stages 'k["bpf_runs"]/k["traced"]')")
	join+=("$(onoff_json "$1" kernel_stages '100*k["join_rate"]')")
}

onoff_header "kernel stages: IOPS with --kernel-stages on against off (bench/kstage-cost/run.sh)" \
	"\`gofio examples/randread.fio --set filename=$loop --set runtime=$RUNTIME\` plus the case's options, on a 1 GiB loop device backed by /dev/shm"
echo "| case | IOPS off (median) | IOPS on (median) | on/off (median) | on/off, 95% interval of the median | on/off (min-max) | load (1 min, min-max) | BPF programs CPU per I/O (us) | program runs per I/O | joined (%) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for c in "sqpoll qd1|--set iodepth=1" "sqpoll qd32|--set iodepth=32" "no sqpoll qd32|--set iodepth=32 --set sqpoll=0"; do
	read -r -a extra <<<"${c#*|}"
	cost=() runs=() join=()
	onoff_case "${c%%|*}" --kernel-stages=required "$root/examples/randread.fio" --set filename="$loop" \
		--set runtime="$RUNTIME" "${extra[@]}" || continue
	echo "| ${c%%|*} | $(onoff_ratio) | $(onoff_med 2 "${cost[@]}") | $(onoff_med 1 "${runs[@]}") | $(onoff_med 2 "${join[@]}") |"
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
