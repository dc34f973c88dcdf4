#!/bin/bash
# bench/sqspin/run.sh: gofio before and after a change, and fio, side by
# side on sqthread_poll=1 jobs, to see how the job's thread waits for its
# completions (fio's getevents busy-polls the CQ ring there).
#
# For each pair it runs, in turn, gofio BEFORE, gofio AFTER and fio on:
# 4 KiB O_DIRECT random reads of a tmpfs file through io_uring with
# sqthread_poll=1 at iodepth 1 and 64, and the patch's job file
# (examples/randread.fio, depth 1, with fio's own spelling sqthread_poll=1
# in the copy fio reads). It prints one line per run (pair, job, tool,
# IOPS, mean clat and mean lat in us, the job thread's usr and sys CPU %,
# the 1-minute load average before the run) and then a Markdown table of
# the medians. fio 3.33's clat under sqthread_poll=1 counts from the job's
# start: compare mean lat.
#
#   bench/sqspin/run.sh BEFORE AFTER    # PAIRS=5 RUNTIME=3 FIO=/usr/bin/fio DIR=/dev/shm
set -euo pipefail
if [ $# -ne 2 ]; then
	echo "usage: $0 GOFIO_BEFORE GOFIO_AFTER" >&2
	exit 2
fi
before=$1 after=$2
pairs=${PAIRS:-5} rt=${RUNTIME:-3} fio=${FIO:-/usr/bin/fio}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${DIR:-/dev/shm}/gofio-sqspin-XXXXXX")
trap 'rm -rf "$work"' EXIT
file=$work/randread.dat
sed -e 's/^sqpoll=1/sqthread_poll=1/' -e "s#^filename=.*#filename=$file#" \
	-e "s/^runtime=600/runtime=$rt/" -e 's/^\[global\]/[global]\nsize=256m/' \
	"$root/examples/randread.fio" >"$work/randread-fio.fio"
raw=$work/raw.txt
for p in $(seq 1 "$pairs"); do
	for job in qd1 qd64 randread.fio; do
		for tool in before after fio; do
			case $tool in
			before) bin=$before ;;
			after) bin=$after ;;
			fio) bin=$fio ;;
			esac
			if [ "$job" = randread.fio ]; then
				if [ "$tool" = fio ]; then
					args=("$work/randread-fio.fio")
				else
					args=(--set "filename=$file" --set size=256m --set "runtime=${rt}s" "$root/examples/randread.fio")
				fi
			else
				args=(--name=j --ioengine=io_uring --sqthread_poll=1 --rw=randread --bs=4k --direct=1
					"--filename=$file" --size=256m --time_based "--runtime=$rt" "--iodepth=${job#qd}")
			fi
			load=$(cut -d' ' -f1 /proc/loadavg)
			"$bin" --output-format=json "${args[@]}" 2>/dev/null | python3 -c '
import json, sys
s = sys.stdin.read(); d = json.loads(s[s.find("{"):]); j = d["jobs"][0]; r = j["read"]
print(sys.argv[1], "%.0f %.2f %.2f %.1f %.1f" % (r["iops"], r["clat_ns"]["mean"] / 1e3,
      r["lat_ns"]["mean"] / 1e3, j["usr_cpu"], j["sys_cpu"]), sys.argv[2])' "$p $job $tool" "$load" | tee -a "$raw"
		done
	done
done
python3 - "$raw" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
print("| job | tool | IOPS median (min-max) | mean lat us | usr % | sys % |")
print("|---|---|---|---|---|---|")
for job in ("qd1", "qd64", "randread.fio"):
    for tool, name in (("before", "gofio before"), ("after", "gofio after"), ("fio", "fio")):
        r = [x for x in rows if x[1] == job and x[2] == tool]
        if not r:
            continue
        col = lambda i: [float(x[i]) for x in r]
        iops = col(3)
        print("| %s | %s | %.0f (%.0f-%.0f) | %.1f | %.1f | %.1f |" % (job, name, st.median(iops), min(iops),
              max(iops), st.median(col(5)), st.median(col(6)), st.median(col(7))))
loads = [float(x[8]) for x in rows]
print("\nload average (1 min) before each run: %.2f to %.2f" % (min(loads), max(loads)))
PY
