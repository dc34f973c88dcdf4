#!/bin/sh
# fleet-entrypoint.sh: one client of a gofio fleet run in Kubernetes.
# Environment (set by the Job or DaemonSet manifest):
#   START_AT   RFC 3339 start time shared by every pod (derived from the
#              Job's creation time by the launcher, see docs/fleet.md)
#   RUN_ID     the fleet run's id, shared by every pod
#   NODE_NAME  the node's name (downward API), recorded as the host
#   JOB_FILE   the job file, mounted from the ConfigMap
#   TARGET     the file or device each pod tests
#   RESULTS    the shared results directory (PVC), or empty for stdout
set -eu
out="${RESULTS:-}"
args="--output-format=json+ --run-id=${RUN_ID} --hostname=${NODE_NAME} --start-at=${START_AT} --set filename=${TARGET}"
if [ -n "${out}" ]; then
	mkdir -p "${out}/${RUN_ID}"
	# shellcheck disable=SC2086 # args holds several words on purpose
	exec gofio ${args} --output="${out}/${RUN_ID}/${NODE_NAME}.json" "${JOB_FILE}"
fi
# shellcheck disable=SC2086
exec gofio ${args} "${JOB_FILE}"
