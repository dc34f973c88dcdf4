#!/bin/bash
# bench/klock-cost/run.sh: what --kernel-locks costs in IOPS and in CPU.
#
# It runs the seed's job (4 KiB random reads of a 256 MiB file on /dev/shm,
# O_DIRECT, every request forced through io-wq with four workers) with
# kernel lock tracing off and on in alternating pairs; the same job under
# the kernel's SQPOLL thread, whose io-wq workers contend most of all
# (io_wq_submit_work); and the job without force_async (few contentions:
# the cost of the programs' filter alone); then a few runs of each with
# --kernel-trace-cost (bench/onoff/lib.sh). It prints a Markdown section
# for bench/results.md: per case the median IOPS off and on, the median
# on/off ratio of the pairs with its 95% interval and range, the load,
# and from the cost runs the contentions per I/O, the BPF programs' CPU
# time per I/O and per contention, and the lost events; from the off runs
# the CPU time per I/O of the job's threads (its own, SQ thread, io-wq
# workers), and the on/off ratio the programs' CPU implies for it; and
# the median of the pairs' off/on ratio of those threads' CPU per I/O
# (bench/onoff/lib.sh): figures a loaded machine blurs less than IOPS,
# though the SQ thread's polling counts as work in them. Root only (BPF).
#
#   bench/klock-cost/run.sh      # PAIRS=5 COST_RUNS=3 RUNTIME=3s NICE=0 CASES=
#   CASES=seed NICE=-20 PAIRS=25 bench/klock-cost/run.sh
set -euo pipefail
# shellcheck source=bench/onoff/lib.sh
. "$(dirname "$0")/../onoff/lib.sh"
onoff_setup klock-cost
job=(--name=klock --filename="$work/x" --size=256m --ioengine=io_uring --direct=1 --rw=randread --bs=4k
	--iodepth=64 "--iowq_max_workers=4,4" --time_based --runtime="$RUNTIME")
threadcpu='sum(t["usr_usec"]+t["sys_usec"] for t in j["gofio"]["threads"])*1000/j["read"]["total_ios"]'
onoff_off_hook() { jobcpu+=("$(onoff_json "$1" "" "$threadcpu")"); }
onoff_on_hook() { jobcpuon+=("$(onoff_json "$1" "" "$threadcpu")"); }
onoff_cost_hook() {
	per+=("$(onoff_json "$1" kernel_locks 'k["contentions_per_io"]')")
	cost+=("$(onoff_json "$1" kernel_locks 'k["bpf_ns_per_io"]')")
	each+=("$(onoff_json "$1" kernel_locks 'k["bpf_run_ns"]/k["contentions"]')")
	lost+=("$(onoff_json "$1" kernel_locks 'k["lost_events"]')")
}

onoff_header "kernel locks: IOPS with --kernel-locks on against off (bench/klock-cost/run.sh)" \
	"\`gofio ${job[*]//$work/DIR}\` plus the case's option, DIR a directory on /dev/shm"
echo "| case | IOPS off (median) | IOPS on (median) | on/off (median) | on/off, 95% interval of the median | on/off (min-max) | load (1 min, min-max) | contentions per I/O (median) | BPF programs CPU per I/O (ns, median) | per contention (ns, median) | lost events (cost runs) | job threads' CPU per I/O, off (ns) | on/off implied | job threads' CPU per I/O, off/on (median of pairs) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for c in "force_async=1 (the seed's job)|--force_async=1" "force_async=1 sqthread_poll=1|--force_async=1 --sqthread_poll=1" \
	"no force_async|--force_async=0"; do
	read -r -a extra <<<"${c#*|}"
	per=() cost=() each=() lost=() jobcpu=() jobcpuon=()
	onoff_case "${c%%|*}" --kernel-locks=required "${job[@]}" "${extra[@]}" || continue
	b=$(onoff_med 1 "${cost[@]}") u=$(onoff_med 0 "${jobcpu[@]}")
	echo "| ${c%%|*} | $(onoff_ratio) | $(onoff_med 4 "${per[@]}") | $b | $(onoff_med 0 "${each[@]}") | $(onoff_sum "${lost[@]}") | $u | $(onoff_implied "$u" "$b") | $(onoff_pairs_ratio "${jobcpu[*]}" "${jobcpuon[*]}") |"
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
