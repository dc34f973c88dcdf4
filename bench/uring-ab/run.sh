#!/bin/bash
# bench/uring-ab/run.sh: alternate builds of gofio (and fio) on compare-fio's
# io_uring tmpfs job, 2 s per run, and print per command the medians of IOPS,
# the job thread's CPU per I/O (usr_cpu + sys_cpu over job_runtime, as
# compare-fio computes it), its user part and context switches per I/O.
#
#   bench/uring-ab/run.sh [-d DEPTH] [-r ROUNDS] [-f FILE] LABEL=COMMAND...
#   bench/uring-ab/run.sh -d 1 -r 5 old=/tmp/gofio-old new=./gofio fio=fio \
#       pin-new="taskset -c 1 ./gofio"
#
# FILE (default /dev/shm/gofio-uring-ab.dat, 256 MiB) is created if missing
# and removed at the end when this script created it. Each round runs every
# command once, in the order given. The load average at the start and the end
# is printed: quote it next to the figures (bench/results.md).
set -euo pipefail
depth=1 rounds=5 file=/dev/shm/gofio-uring-ab.dat
while getopts d:r:f: o; do
	case $o in
	d) depth=$OPTARG ;;
	r) rounds=$OPTARG ;;
	f) file=$OPTARG ;;
	*) sed -n '2,14p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then sed -n '2,14p' "$0"; exit 2; fi
# shellcheck source=bench/uring-ab/scratch.sh
. "$(dirname "$0")/scratch.sh"
scratch_setup "$file"
out=$(mktemp)
trap 'rm -f "$out"; scratch_cleanup "$file"' EXIT
job=$(scratch_job ab 2 "$depth" "$file")
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg); depth $depth, $rounds rounds"
for ((i = 0; i < rounds; i++)); do
	for lc in "$@"; do
		label=${lc%%=*} cmd=${lc#*=}
		# shellcheck disable=SC2086 # cmd and job are word lists
		$cmd $job 2>/dev/null | jq -r --arg l "$label" '.jobs[0] as $j | ($j.read.total_ios) as $n |
			"\($l) \($j.read.iops) \(($j.usr_cpu + $j.sys_cpu) / 100 * $j.job_runtime * 1e6 / $n) \($j.usr_cpu / 100 * $j.job_runtime * 1e6 / $n) \($j.ctx / $n)"' >>"$out"
	done
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
for lc in "$@"; do
	label=${lc%%=*}
	awk -v l="$label" '$1 == l' "$out" | sort -k2,2g | awk '{i[NR] = $2} END {print i[1], i[int((NR + 1) / 2)], i[NR]}' >"$out.i"
	for k in 3 4 5; do
		awk -v l="$label" '$1 == l' "$out" | sort -k$k,${k}g | awk -v k=$k '{v[NR] = $k} END {print v[int((NR + 1) / 2)]}'
	done >"$out.m"
	read -r imin imed imax <"$out.i"
	{ read -r cpu; read -r usr; read -r ctx; } <"$out.m"
	printf '%-16s IOPS %8.0f (%.0f-%.0f)  CPU/IO %6.0f ns  usr/IO %6.0f ns  ctx/IO %.2f\n' \
		"$label" "$imed" "$imin" "$imax" "$cpu" "$usr" "$ctx"
	rm -f "$out.i" "$out.m"
done
