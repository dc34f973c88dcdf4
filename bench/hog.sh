# bench/hog.sh: an intermittent CPU hog for the bench scripts that measure
# beside one (bench/gate-oc, bench/ci-repeat); source it, then
# start_hog and stop_hog. The caller's EXIT trap calls stop_hog.
# shellcheck shell=bash

hogpid=

# stop_hog stops the hog and every busy loop of its process group.
stop_hog() {
	if [ -n "$hogpid" ]; then
		kill -- -"$hogpid" 2>/dev/null || true
		wait "$hogpid" 2>/dev/null || true
		hogpid=
	fi
}

# start_hog runs, in a process group of its own, one busy loop per CPU for
# HOG_ON seconds, then sleeps 1 to HOG_OFF seconds, until stopped.
start_hog() {
	# shellcheck disable=SC2016 # $1, $2 and $n expand in the hog's own shell
	setsid bash -c '
		n=$(nproc)
		while :; do
			for _ in $(seq "$n"); do timeout "$1" bash -c "while :; do :; done" & done
			wait
			sleep $((RANDOM % $2 + 1))
		done' hog "$HOG_ON" "$HOG_OFF" &
	hogpid=$!
}
