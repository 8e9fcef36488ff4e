#!/usr/bin/env bash
# Heat's own functional tests in Keystone mode: hotplate as the cloud's orchestration service.
#
#   make cloud                                   # once: the project's cloud (cloud/README.md)
#   HEAT_MIRROR=<bare git dir of openstack/heat> make heat-functional-cloud
#   TEST_LIST=../shared/heat-functional/standalone_tests.txt make heat-functional-cloud
#   TEST_FILTER=test_autoscaling make heat-functional-cloud
#
# A fresh `hotplate serve --auth keystone` listens where the catalog's orchestration and
# cloudformation endpoints point (127.0.0.1:8004 and :8000), validates tokens as the cloud's
# `heat` service user, with abandon and adopt on as Heat's gate has them, and is stopped
# afterwards. As the cloud's real Heat, it acts for stacks through trusts to that same user
# ([trustee]) and keeps stack users in the `heat` domain (heat_domain_admin). The tests log in as OS_CLOUD (default hotplate-demo) and OS_ADMIN_CLOUD (default
# hotplate-admin) and find hotplate in the catalog. TEST_LIST defaults to the cloud list.
# The last line printed is the runner's `N passed, M failed`; its exit status is the script's.
set -euo pipefail
cd "$(dirname "$0")/.."

SUITE_DIR=${HEAT_FUNCTIONAL_DIR:-../shared/heat-functional}
CLOUD_HOME=${HOTPLATE_CLOUD_HOME:-${TMPDIR:-/tmp}/hotplate-cloud}
[[ -n ${HEAT_MIRROR:-} ]] || { echo "heat-functional-cloud: HEAT_MIRROR is not set (see make heat-functional)" >&2; exit 2; }
[[ -x $SUITE_DIR/run_functional.sh ]] || { echo "heat-functional-cloud: no runner at $SUITE_DIR/run_functional.sh (set HEAT_FUNCTIONAL_DIR)" >&2; exit 2; }
if [[ -z ${OS_CLIENT_CONFIG_FILE:-} ]]; then
    [[ -f $CLOUD_HOME/state/up ]] || { echo "heat-functional-cloud: the project's cloud is not up (make cloud), and OS_CLIENT_CONFIG_FILE is not set" >&2; exit 2; }
    export OS_CLIENT_CONFIG_FILE=$CLOUD_HOME/etc/clouds.yaml
fi
for port in 8004 8000; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "heat-functional-cloud: something already listens on 127.0.0.1:$port, where the catalog points" >&2; exit 2
    fi
done

BIN=${BIN:-.venv/bin}
DATA_DIR=$(mktemp -d "${TMPDIR:-/tmp}/hotplate-hfc.XXXXXX")
LOG=$DATA_DIR/serve.log
KEYSTONE=${KEYSTONE_URL:-http://127.0.0.1:5000}
cat > "$DATA_DIR/hotplate.conf" <<CONF
[DEFAULT]
enable_stack_abandon = true
enable_stack_adopt = true
stack_user_domain_name = ${HOTPLATE_STACK_DOMAIN:-heat}
stack_domain_admin = ${HOTPLATE_STACK_DOMAIN_ADMIN:-heat_domain_admin}
stack_domain_admin_password = ${HOTPLATE_STACK_DOMAIN_ADMIN_PASSWORD:-secret}

[clients_keystone]
auth_uri = $KEYSTONE

[trustee]
auth_url = $KEYSTONE
auth_type = password
user_domain_name = Default
username = ${HOTPLATE_SERVICE_USER:-heat}
password = ${HOTPLATE_SERVICE_PASSWORD:-secret}

[keystone_authtoken]
www_authenticate_uri = $KEYSTONE
auth_url = $KEYSTONE
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = ${HOTPLATE_SERVICE_USER:-heat}
password = ${HOTPLATE_SERVICE_PASSWORD:-secret}
service_token_roles_required = true
CONF
chmod 600 "$DATA_DIR/hotplate.conf"

"$BIN/hotplate" serve --auth keystone --port 8004 --cfn-port 8000 --data-dir "$DATA_DIR" \
    --config-file "$DATA_DIR/hotplate.conf" > "$LOG" 2>&1 &
SERVER=$!
stop_server() {
    kill "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
    echo "heat-functional-cloud: server log kept in $LOG" >&2
}
trap stop_server EXIT
for _ in $(seq 60); do
    curl -s -o /dev/null -m 2 http://127.0.0.1:8004/ && break
    kill -0 "$SERVER" 2>/dev/null || { echo "heat-functional-cloud: hotplate serve died; see $LOG" >&2; exit 2; }
    sleep 0.5
done

set +e
# RegionOne: the project's cloud also has real Heat's region, HeatRegion (cloud/README.md)
OS_REGION_NAME=${OS_REGION_NAME:-RegionOne} \
OS_CLOUD=${OS_CLOUD:-hotplate-demo} OS_ADMIN_CLOUD=${OS_ADMIN_CLOUD:-hotplate-admin} \
    AUTH_MODE=keystone TEST_LIST=${TEST_LIST:-$SUITE_DIR/cloud_tests.txt} \
    HEAT_MIRROR=$HEAT_MIRROR "$SUITE_DIR/run_functional.sh"
status=$?
set -e
exit $status
