#!/bin/bash
# bench/libaio-sync/run.sh: libaio's syncs against fio 3.33: for each
# iodepth in DEPTHS and each of fsync=1, fsync=4, fsync=16, fdatasync=1 and
# sync_file_range=write, fio and gofio run the same 1 MiB O_DIRECT
# randwrite job RUNS times, alternating, on a file in DIR. Per case and
# program it prints each run's syncs (sync.lat_ns.N: fio 3.33 counts
# fdatasync and sync_file_range past the end of its total_io_u array, so
# its sync.total_ios reads 0 for them), the IO depths, submit and complete
# maps (each distinct one), and the sync latency's p50, mean and max.
#
# GOFIO is the gofio binary (by default this tree is built into OUT).
#
#   bench/libaio-sync/run.sh       # DIR=/tmp/gofio-libaio-sync RUNS=3 DEPTHS="1 4 16 64"
set -euo pipefail
DIR=${DIR:-/tmp/gofio-libaio-sync}
RUNS=${RUNS:-3}
DEPTHS=${DEPTHS:-1 4 16 64}
OUT=${OUT:-/tmp/gofio-libaio-sync-out}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$DIR" "$OUT"
if [ -z "${GOFIO:-}" ]; then
	(cd "$root" && go build -o "$OUT/gofio" .)
	GOFIO=$OUT/gofio
fi

# one PROG ARGS...: one run; prints "syncs|level|submit|complete|p50 mean max".
one() {
	local prog=$1
	shift
	rm -f "$DIR/f"
	"$prog" --name=x --filename="$DIR/f" --output-format=json --ioengine=libaio --direct=1 \
		--rw=randwrite --bs=4k --size=1m "$@" |
		sed -n '/^{/,$p' |
		jq -r '.jobs[0] as $j | def m(k): [$j[k] | to_entries[] | select(.value > 0) | "\(.key):\(.value * 1000 | round / 1000)"] | join(" ");
			"\($j.sync.lat_ns.N)|\(m("iodepth_level"))|\(m("iodepth_submit"))|\(m("iodepth_complete"))|\($j.sync.lat_ns.percentile["50.000000"] / 1000 | round) \($j.sync.lat_ns.mean / 1000 | round) \($j.sync.lat_ns.max / 1000 | round)"'
}

for d in $DEPTHS; do
	for v in --fsync=1 --fsync=4 --fsync=16 --fdatasync=1 --sync_file_range=write; do
		echo "== iodepth=$d $v"
		rm -f "$OUT"/fio.* "$OUT"/gofio.*
		for _ in $(seq "$RUNS"); do
			one fio --iodepth="$d" "$v" >>"$OUT/fio.runs"
			one "$GOFIO" --iodepth="$d" "$v" >>"$OUT/gofio.runs"
		done
		for p in fio gofio; do
			printf '  %-5s syncs %s; sync p50 mean max (us): %s\n' "$p" \
				"$(cut -d'|' -f1 "$OUT/$p.runs" | paste -sd' ')" "$(cut -d'|' -f5 "$OUT/$p.runs" | paste -sd',')"
			for k in 2 3 4; do
				printf '        %s: %s\n' "$(sed -n "$((k - 1))p" <<<$'level\nsubmit\ncomplete')" \
					"$(cut -d'|' -f"$k" "$OUT/$p.runs" | sort -u | paste -sd'/' | sed 's|/| // |g')"
			done
		done
	done
done
