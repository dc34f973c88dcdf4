# shellcheck shell=bash
# scratch.sh is sourced by run.sh and counts.sh. scratch_setup FILE lays out
# the 256 MiB scratch file both scripts' job reads when FILE is missing, and
# remembers that it did; scratch_cleanup FILE removes it again only then.
# scratch_job NAME SECS DEPTH FILE prints that job, compare-fio's io_uring
# tmpfs job, as fio options: 4 KiB O_DIRECT random reads of FILE at DEPTH
# for SECS seconds, JSON output.
scratch_made=
scratch_setup() {
	if [ ! -e "$1" ]; then
		dd if=/dev/urandom of="$1" bs=1M count=256 status=none
		scratch_made=1
	fi
}
scratch_cleanup() {
	if [ -n "$scratch_made" ]; then rm -f "$1"; fi
}
scratch_job() {
	echo "--name=$1 --time_based --runtime=$2 --ioengine=io_uring --rw=randread --bs=4k --direct=1" \
		"--iodepth=$3 --filename=$4 --size=256m --output-format=json"
}
