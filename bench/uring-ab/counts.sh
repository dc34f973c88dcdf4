#!/bin/bash
# bench/uring-ab/counts.sh: what the kernel does per I/O for gofio, fio or
# the C liburing floor on compare-fio's io_uring tmpfs job: io_uring_enter
# calls, task-work runs, CQ waits, io-wq punts, wake-ups and context
# switches, counted with perf stat over the whole process tree (inherited
# tracepoints: unlike times, the counts hardly move with the machine's load).
#
#   bench/uring-ab/counts.sh [-d DEPTH] [-f FILE] [-s SECS] COMMAND...
#   bench/uring-ab/counts.sh -d 16 ./gofio fio floor:/tmp/uring_floor
#
# A COMMAND of the form floor:PATH runs bench/liburing/uring_floor.c's
# randread/depth=DEPTH case (built with gcc -O2 ... -luring) instead of the
# fio command line. Needs root (tracepoints) and perf.
set -euo pipefail
depth=1 secs=2 file=/dev/shm/gofio-uring-ab.dat
while getopts d:f:s: o; do
	case $o in
	d) depth=$OPTARG ;;
	f) file=$OPTARG ;;
	s) secs=$OPTARG ;;
	*) sed -n '2,13p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then sed -n '2,13p' "$0"; exit 2; fi
# shellcheck source=bench/uring-ab/scratch.sh
. "$(dirname "$0")/scratch.sh"
scratch_setup "$file"
out=$(mktemp) stat=$(mktemp)
trap 'rm -f "$out" "$stat"; scratch_cleanup "$file"' EXIT
events=syscalls:sys_enter_io_uring_enter,io_uring:io_uring_local_work_run,io_uring:io_uring_cqring_wait
events+=,io_uring:io_uring_queue_async_work,sched:sched_wakeup,sched:sched_switch,sched:sched_migrate_task,task-clock
job=$(scratch_job counts "$secs" "$depth" "$file")
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg); depth $depth; per I/O:"
for cmd in "$@"; do
	case $cmd in
	floor:*)
		perf stat -x, -e "$events" -o "$stat" "${cmd#floor:}" "$secs" "$file" "randread/depth=$depth" >"$out"
		ios=$(grep -o 'ios=[0-9]*' "$out" | cut -d= -f2)
		iops=$(grep -o 'iops=[0-9]*' "$out" | cut -d= -f2)
		;;
	*)
		# shellcheck disable=SC2086 # cmd and job are word lists
		perf stat -x, -e "$events" -o "$stat" $cmd $job >"$out"
		ios=$(jq '.jobs[0].read.total_ios' "$out")
		iops=$(jq '.jobs[0].read.iops | floor' "$out")
		;;
	esac
	printf '%-22s IOPS %7d ' "$(basename "${cmd%% *}")" "$iops"
	awk -F, -v ios="$ios" '/^[0-9]/ {
		n = $3; sub(/.*:/, "", n); sub(/^(sys_enter_|io_uring_|sched_)/, "", n)
		if ($3 == "task-clock") printf "cpu=%.0fns ", $1 * 1e6 / ios
		else printf "%s=%.2f ", n, $1 / ios
	}' "$stat"
	echo
done
