#!/usr/bin/env bash
# `make test`'s pytest, in two processes side by side: the cloud suites (tests/cloud), which
# mostly wait on the project's cloud, and everything else, which mostly computes. The
# whole takes about the longer of the two rather than their sum. Their outputs come one
# after the other; the exit status is the first failure's. Arguments go to both runs.
set -uo pipefail
BIN=${BIN:-.venv/bin}
mkdir -p var
cloud_log=var/cloud-suites.log

"$BIN/pytest" -q -p no:cacheprovider --durations=20 tests/cloud "$@" > "$cloud_log" 2>&1 &
cloud=$!
trap 'kill "$cloud" 2> /dev/null' EXIT INT TERM

"$BIN/pytest" -q -p no:cacheprovider --durations=30 --ignore=tests/cloud "$@"
rest=$?
wait "$cloud"
cloud_status=$?
trap - EXIT INT TERM

echo
echo "======== the cloud suites (tests/cloud; also in $cloud_log) ========"
cat "$cloud_log"
echo
echo "tests outside tests/cloud: exit $rest; tests/cloud: exit $cloud_status"
[ "$rest" -ne 0 ] && exit "$rest"
exit "$cloud_status"
