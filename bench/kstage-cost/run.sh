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
# the programs leave) and the join rate; from the off runs the CPU time per
# I/O of the job's busiest thread (the kernel's SQ thread under SQPOLL, the
# job's own without), its bottleneck, and the on/off ratio the programs'
# CPU implies for it, a figure a loaded machine blurs less; and the median
# of the pairs' off/on ratio of that thread's CPU per I/O, which counts
# what the programs' run time leaves out (the kernel's call of each
# program, the job's reading of the records). Both read the time a
# thread spins as work: under SQPOLL the SQ thread polls while idle, so
# there they lean towards 1. Root only (loop device, BPF).
#
# SAMPLE sets kernel_stages_sample (1 in SAMPLE I/Os traced; its default,
# 8, when empty).
#
#   bench/kstage-cost/run.sh     # PAIRS=5 COST_RUNS=3 RUNTIME=3s NICE=0 CASES= SAMPLE=
set -euo pipefail
# shellcheck source=bench/onoff/lib.sh
. "$(dirname "$0")/../onoff/lib.sh"
loop=
onoff_cleanup_hook() { if [ -n "$loop" ]; then losetup -d "$loop"; fi; }
onoff_setup kstage-cost
truncate -s 1G "$work/backing"
loop=$(losetup -f --show "$work/backing")
busiest='max(t["usr_usec"]+t["sys_usec"] for t in j["gofio"]["threads"])/j["read"]["total_ios"]'
onoff_off_hook() { busy+=("$(onoff_json "$1" "" "$busiest")"); }
onoff_on_hook() { busyon+=("$(onoff_json "$1" "" "$busiest")"); }
onoff_cost_hook() {
	cost+=("$(onoff_json "$1" kernel_stages 'k["bpf_ns_per_io"]/1000')")
	runs+=("$(onoff_json "$1" kernel_stages 'k["bpf_runs"]/(k["traced"]*k.get("sampled_one_in", 1))')")
	join+=("$(onoff_json "$1" kernel_stages '100*k["join_rate"]')")
}

onoff_header "kernel stages: IOPS with --kernel-stages on against off (bench/kstage-cost/run.sh)" \
	"\`gofio examples/randread.fio --set filename=$loop --set runtime=$RUNTIME\` plus the case's options${SAMPLE:+ and kernel_stages_sample=$SAMPLE}, on a 1 GiB loop device backed by /dev/shm"
echo "| case | IOPS off (median) | IOPS on (median) | on/off (median) | on/off, 95% interval of the median | on/off (min-max) | load (1 min, min-max) | BPF programs CPU per I/O (us) | program runs per I/O | joined (%) | busiest thread CPU per I/O, off (us) | on/off implied | busiest thread CPU per I/O, off/on (median of pairs) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for c in "sqpoll qd1|--set iodepth=1" "sqpoll qd32|--set iodepth=32" "no sqpoll qd32|--set iodepth=32 --set sqpoll=0"; do
	read -r -a extra <<<"${c#*|}"
	if [ -n "${SAMPLE:-}" ]; then extra+=(--set "kernel_stages_sample=$SAMPLE"); fi
	cost=() runs=() join=() busy=() busyon=()
	onoff_case "${c%%|*}" --kernel-stages=required "$root/examples/randread.fio" --set filename="$loop" \
		--set runtime="$RUNTIME" "${extra[@]}" || continue
	b=$(onoff_med 2 "${cost[@]}") u=$(onoff_med 2 "${busy[@]}")
	echo "| ${c%%|*} | $(onoff_ratio) | $b | $(onoff_med 1 "${runs[@]}") | $(onoff_med 2 "${join[@]}") | $u | $(onoff_implied "$u" "$b") | $(onoff_pairs_ratio "${busy[*]}" "${busyon[*]}") |"
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
