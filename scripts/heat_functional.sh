#!/usr/bin/env bash
# Heat's own functional tests against a fresh `hotplate serve`.
#
#   HEAT_MIRROR=<bare git dir of github.com/openstack/heat> make heat-functional
#   TEST_FILTER=test_resource_group make heat-functional     # a subset
#   TEST_LIST=../shared/heat-functional/beyond_heat_tests.txt make heat-functional
#
# The server runs with abandon and adopt switched on (as Heat's gate does), no auth, on a free
# port and a data directory of its own, and is stopped afterwards. The tests run with this
# checkout's `heat-manage` first on PATH and HOTPLATE_DATA_DIR naming the server's data
# directory, so a test that runs `heat-manage purge_deleted` reaches the server's database.
# Without TEST_LIST the selection is the runner's standalone list plus the tests that need
# heat-manage (scripts/heat_functional_manage_tests.txt).
# The last line printed is the runner's `N passed, M failed`. Exit status: the runner's
# (0 all passed, 1 some failed, 2 setup).
set -euo pipefail
cd "$(dirname "$0")/.."

SUITE_DIR=${HEAT_FUNCTIONAL_DIR:-../shared/heat-functional}
if [[ -z ${HEAT_MIRROR:-} ]]; then
    cat >&2 <<'MSG'
heat-functional: HEAT_MIRROR is not set.
It must name a bare git mirror of Heat's repository, for example:
    git clone --mirror https://opendev.org/openstack/heat /var/tmp/heat.git
    HEAT_MIRROR=/var/tmp/heat.git make heat-functional
MSG
    exit 2
fi
if [[ ! -x $SUITE_DIR/run_functional.sh ]]; then
    echo "heat-functional: no runner at $SUITE_DIR/run_functional.sh (set HEAT_FUNCTIONAL_DIR)" >&2
    exit 2
fi

BIN=${BIN:-.venv/bin}
PORT=${HEAT_FUNCTIONAL_PORT:-$("$BIN/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
DATA_DIR=$(mktemp -d "${TMPDIR:-/tmp}/hotplate-hf.XXXXXX")
LOG=$DATA_DIR/serve.log

HOTPLATE_ENABLE_STACK_ABANDON=1 HOTPLATE_ENABLE_STACK_ADOPT=1 \
    "$BIN/hotplate" serve --noauth --port "$PORT" --data-dir "$DATA_DIR" > "$LOG" 2>&1 &
SERVER=$!
stop_server() {
    kill "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
    echo "heat-functional: server log kept in $LOG" >&2
}
trap stop_server EXIT

if [[ -z ${TEST_LIST:-} ]]; then
    TEST_LIST=$DATA_DIR/tests.txt
    { cat "$SUITE_DIR/standalone_tests.txt"; echo; cat scripts/heat_functional_manage_tests.txt; } \
        > "$TEST_LIST"
fi
# heat-manage alone (the runner builds its venv with whatever python3 is first on PATH)
mkdir "$DATA_DIR/bin"
ln -s "$(cd "$BIN" && pwd)/heat-manage" "$DATA_DIR/bin/heat-manage"
export TEST_LIST HOTPLATE_DATA_DIR=$DATA_DIR PATH="$DATA_DIR/bin:$PATH"

set +e
HEAT_URL=http://127.0.0.1:$PORT/v1/admin HEAT_MIRROR=$HEAT_MIRROR \
    "$SUITE_DIR/run_functional.sh"
status=$?
set -e
exit $status
