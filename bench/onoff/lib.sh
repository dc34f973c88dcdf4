# shellcheck shell=bash
# bench/onoff/lib.sh is sourced by the scripts that measure what a kernel
# tracer costs (bench/kstage-cost/run.sh, bench/klock-cost/run.sh): a job
# run with the tracer off and on in alternating pairs (off-on, then on-off,
# ...), so that drift and other load on the machine fall on both sides
# alike, and apart from the pairs a few runs with --kernel-trace-cost,
# which measure the tracer's programs' CPU time per I/O (the kernel's BPF
# statistics, which slow every BPF program while they are on, so never in
# the pairs).
#
# Settings, from the environment: PAIRS (pairs a case), COST_RUNS
# (measurement runs a case), RUNTIME (of each run), NICE (every gofio runs
# at this nice value: on a machine others load, -20 gives the job most of
# the CPUs it competes for with their nice-0 work; its io-wq workers and SQ
# thread inherit it), CASES (only the cases whose name holds it) and GOFIO
# (a gofio binary to measure instead of building this tree: an earlier
# commit's, for a before and after; one without --kernel-trace-cost
# measured its programs' run time in every traced run).
#
# onoff_setup NAME builds gofio into a scratch directory on /dev/shm
# ($work, removed at exit with whatever onoff_cleanup_hook, if defined,
# undoes first); onoff_case runs one case; onoff_ratio, onoff_med and
# onoff_sum format what it gathered.
PAIRS=${PAIRS:-5}
COST_RUNS=${COST_RUNS:-3}
RUNTIME=${RUNTIME:-3s}
NICE=${NICE:-0}
CASES=${CASES:-}
GOFIO=${GOFIO:-}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=

onoff_setup() {
	work=$(mktemp -d "/dev/shm/gofio-$1-XXXXXX")
	trap onoff_cleanup EXIT
	if [ -n "$GOFIO" ]; then
		cp "$GOFIO" "$work/gofio"
	else
		go build -o "$work/gofio" "$root"
	fi
	costflag=(--kernel-trace-cost)
	"$work/gofio" --help 2>&1 | grep -q -- --kernel-trace-cost || costflag=()
}

onoff_cleanup() {
	if declare -F onoff_cleanup_hook >/dev/null; then onoff_cleanup_hook; fi
	rm -rf "$work"
}

# onoff_header TITLE JOB prints the section's heading and the run's
# circumstances: when, the kernel, the CPUs, the load and the settings.
onoff_header() {
	echo "## $1"
	echo
	echo "Run on $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start, with \`PAIRS=$PAIRS COST_RUNS=$COST_RUNS RUNTIME=$RUNTIME NICE=$NICE\`."
	echo "The job: $2; off and on alternate (off-on, on-off, ...); the cost runs add \`--kernel-trace-cost\`."
	echo
}

# onoff_json FILE KEY EXPR prints EXPR of the run's JSON FILE, in which j
# is the first job and k its gofio.KEY object (None without); nan when
# EXPR fails (the tracer unavailable, a figure missing).
onoff_json() {
	python3 -c 'import json,sys
j=json.load(open(sys.argv[1]))["jobs"][0]
k=j["gofio"].get(sys.argv[2])
try: print(eval(sys.argv[3]))
except Exception: print("nan")' "$1" "$2" "$3"
}

# onoff_case NAME FLAG ARGS... runs case NAME (unless CASES leaves it out):
# PAIRS alternating pairs of gofio ARGS without and with the tracer's FLAG,
# their IOPS in OFF and ON and the 1-minute load before each pair in LOAD,
# then COST_RUNS runs with FLAG --kernel-trace-cost. After each run of a
# pair it calls onoff_off_hook FILE or onoff_on_hook FILE, after each cost
# run onoff_cost_hook FILE, where they are defined. It returns 1 for a case
# left out.
onoff_case() {
	local name=$1 flag=$2 i side out
	shift 2
	[[ "$name" == *"$CASES"* ]] || return 1
	OFF=() ON=() LOAD=()
	for i in $(seq 1 "$PAIRS"); do
		LOAD+=("$(cut -d' ' -f1 /proc/loadavg)")
		local order=(off on)
		[ $((i % 2)) -eq 0 ] && order=(on off)
		for side in "${order[@]}"; do
			local f=()
			[ "$side" = on ] && f=("$flag")
			out="$work/$side.json"
			nice -n "$NICE" "$work/gofio" "${f[@]}" "$@" --output-format=json --output "$out" 2>/dev/null
			if [ "$side" = on ]; then
				ON+=("$(onoff_json "$out" "" 'j["read"]["iops"]')")
				if declare -F onoff_on_hook >/dev/null; then onoff_on_hook "$out"; fi
			else
				OFF+=("$(onoff_json "$out" "" 'j["read"]["iops"]')")
				if declare -F onoff_off_hook >/dev/null; then onoff_off_hook "$out"; fi
			fi
		done
	done
	for i in $(seq 1 "$COST_RUNS"); do
		out="$work/cost.json"
		nice -n "$NICE" "$work/gofio" "$flag" "${costflag[@]}" "$@" --output-format=json --output "$out" 2>/dev/null
		if declare -F onoff_cost_hook >/dev/null; then onoff_cost_hook "$out"; fi
	done
}

# onoff_ratio prints, for the last case, the median IOPS off and on, the
# median of the pairs' on/off ratios with its distribution-free 95%
# interval (the order statistics a sign test gives; "-" with fewer than 6
# pairs), the ratios' range and the load's range.
onoff_ratio() {
	python3 -c 'import sys,math,statistics as s
off=[float(x) for x in sys.argv[1].split()]; on=[float(x) for x in sys.argv[2].split()]
load=[float(x) for x in sys.argv[3].split()]
r=sorted(b/a for a,b in zip(off,on)); n=len(r)
k=0
while k+1 <= n and sum(math.comb(n,i) for i in range(k+1))/2**n <= 0.025: k+=1
ci="%.3f-%.3f" % (r[k-1], r[n-k]) if k>0 else "-"
print("%.0f | %.0f | %.3f | %s | %.3f-%.3f | %.1f-%.1f" % (s.median(off), s.median(on), s.median(r), ci, r[0], r[-1], min(load), max(load)))' \
		"${OFF[*]}" "${ON[*]}" "${LOAD[*]}"
}

# onoff_implied CPU COST prints the on/off ratio that COST (CPU per I/O the
# tracer adds) implies for a job whose bottleneck thread takes CPU per I/O
# (the same unit): CPU / (CPU + COST), an estimate that needs no quiet
# machine, low where part of COST runs on other threads.
onoff_implied() {
	python3 -c 'import sys
try: c,b=float(sys.argv[1]),float(sys.argv[2]); print("%.3f" % (c/(c+b)))
except (ValueError, ZeroDivisionError): print("-")' "$1" "$2"
}

# onoff_pairs_ratio "A..." "B..." prints the median over the pairs of
# A/B, A and B a figure of each pair's two runs in pair order (e.g. the
# CPU time per I/O of a thread with the tracer off and on: a cost figure
# a loaded machine blurs less than IOPS, since it needs no share of the
# CPUs), "-" without any.
onoff_pairs_ratio() {
	python3 -c 'import sys,math,statistics as s
r=[float(a)/float(b) for a,b in zip(sys.argv[1].split(),sys.argv[2].split())
   if not math.isnan(float(a)) and not math.isnan(float(b)) and float(b)>0]
print("%.3f" % s.median(r) if r else "-")' "$1" "$2"
}

# onoff_med DIGITS VALUES... prints the median of VALUES (nan left out).
onoff_med() {
	python3 -c 'import sys,math,statistics as s
v=[float(x) for x in sys.argv[2:] if not math.isnan(float(x))]
print(("%."+sys.argv[1]+"f") % s.median(v) if v else "-")' "$@"
}

# onoff_sum VALUES... prints the sum of VALUES (nan left out).
onoff_sum() {
	python3 -c 'import sys,math; print("%d" % sum(float(x) for x in sys.argv[1:] if not math.isnan(float(x))))' "$@"
}
