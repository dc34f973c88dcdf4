#!/bin/bash
# bench/klock-sweep/run.sh: the io-wq locking seed's experiment on storage.
#
# The seed measured io-wq's lock contention with perf on an echo server
# with max_unbound_worker=4. This sweeps io-wq's pool size
# (iowq_max_workers) and iodepth for 4 KiB random O_DIRECT reads that
# force_async=1 sends through io-wq, with --kernel-locks, on two targets: a
# 256 MiB file on /dev/shm (tmpfs: no device time, io-wq's locks at their
# busiest) and a 256 MiB scratch file on the file system of /var/tmp (the
# virtio disk here), which the script makes and removes. One gofio command
# per target (--sweep twice, --repeat), read back from its JSON: per point
# the median IOPS, the contentions and lock wait per I/O over every
# repeat, the spinning wait's share of the threads' CPU, io-wq's sites'
# share of the wait and the site waited on most. Prints a Markdown section
# for bench/results.md. Root only (BPF).
#
#   bench/klock-sweep/run.sh     # WORKERS=1,4,16 DEPTHS=16,64,256 REPEAT=3 RUNTIME=2s
set -euo pipefail
WORKERS=${WORKERS:-1,4,16}
DEPTHS=${DEPTHS:-16,64,256}
REPEAT=${REPEAT:-3}
RUNTIME=${RUNTIME:-2s}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(mktemp -d /dev/shm/gofio-klock-sweep-XXXXXX)
disk=$(mktemp -d /var/tmp/gofio-klock-sweep-XXXXXX)
trap 'rm -rf "$bin" "$disk"' EXIT
go build -o "$bin/gofio" "$root"

table() { python3 -c 'import json,sys
c=json.load(open(sys.argv[1]))["gofio_compare"]
for r in c["rows"]:
    s=r["new"]; k=s.get("kernel_locks") or {}
    w,d=r["values"]
    if not k.get("available"):
        print("| %s | %s | %.0f | unavailable: %s | | | | |" % (w, d, s["iops_median"], k.get("reason","not traced"))); continue
    top=k["sites"][0] if k["sites"] else None
    print("| %s | %s | %.0f | %.4f | %.1f | %.2f | %.0f | %s |" % (w, d, s["iops_median"], k["contentions_per_io"],
        k["wait_ns_per_io"], 100*k["wait_share"], 100*k["iowq_wait_share"],
        "%s (%d)" % (top["site"], top["count"]) if top else "-"))' "$1"; }

echo "## kernel locks: io-wq's lock contention over iowq_max_workers and iodepth (bench/klock-sweep/run.sh)"
echo
echo "Run on $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start, with \`WORKERS=$WORKERS DEPTHS=$DEPTHS REPEAT=$REPEAT RUNTIME=$RUNTIME\`."
for target in "/dev/shm (tmpfs)|$bin/x" "/var/tmp ($(df --output=source,fstype /var/tmp | tail -1 | tr -s ' ' | sed 's/ /, /'))|$disk/x"; do
	name=${target%%|*}
	file=${target#*|}
	out="$bin/sweep.json"
	"$bin/gofio" --kernel-locks=required --sweep iowq_max_workers="$WORKERS" --sweep iodepth="$DEPTHS" --repeat "$REPEAT" \
		--name=klock --filename="$file" --size=256m --ioengine=io_uring --direct=1 --rw=randread --bs=4k --force_async=1 \
		--time_based --runtime="$RUNTIME" --output-format=json --output "$out" >/dev/null 2>"$bin/err" || { cat "$bin/err" >&2; exit 1; }
	echo
	echo "### $name"
	echo
	echo "\`gofio --kernel-locks --sweep iowq_max_workers=$WORKERS --sweep iodepth=$DEPTHS --repeat $REPEAT --name=klock --filename=FILE --size=256m --ioengine=io_uring --direct=1 --rw=randread --bs=4k --force_async=1 --time_based --runtime=$RUNTIME\`"
	echo
	echo "| iowq_max_workers | iodepth | IOPS (median) | contentions per I/O | lock wait per I/O (ns) | spinning wait, % of CPU | io-wq's share of the wait (%) | top site (contentions) |"
	echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
	table "$out"
	rm -f "$file"
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
