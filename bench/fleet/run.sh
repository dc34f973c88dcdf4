#!/usr/bin/env bash
# run.sh: a fleet run simulated on one machine. N gofio processes (default
# 4) share one --run-id and --start-at, each on its own file under
# /dev/shm, then gofio merge folds their JSON and bench/fleet checks it.
#   bash bench/fleet/run.sh [N] [runtime]
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-4}
runtime=${2:-5s}
out=$(mktemp -d /tmp/gofio-fleet.XXXXXX)
trap 'rm -rf "$out" /dev/shm/gofio-fleet-host*' EXIT
go build -o "$out/gofio" .
run_id="sim-$(date +%s)"
start_at=$(date -u -d "+3 seconds" +%Y-%m-%dT%H:%M:%S.%NZ)
echo "run id $run_id, start at $start_at, $n hosts, runtime $runtime"
pids=()
for i in $(seq 1 "$n"); do
	"$out/gofio" --output-format=json --run-id="$run_id" --start-at="$start_at" --hostname="host$i" \
		--name=rr --ioengine=io_uring --rw=randread --bs=4k --iodepth=8 --numjobs=1 --size=64m \
		--time_based --runtime="$runtime" --filename="/dev/shm/gofio-fleet-host$i" --output="$out/host$i.json" &
	pids+=($!)
done
for p in "${pids[@]}"; do
	wait "$p" # a host that failed fails the simulation
done
"$out/gofio" merge -o "$out/all.json" "$out"/host*.json | tail -n 22
go run ./bench/fleet "$out/all.json" "$out"/host*.json
