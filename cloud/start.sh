#!/usr/bin/env bash
# Starts every service of the test cloud in the background (logs: $HOTPLATE_CLOUD_HOME/logs,
# pid files: $HOTPLATE_CLOUD_HOME/run), waits until each answers, registers keystone
# objects / flavors / image / external network (idempotent), and prints the
# clouds.yaml to use.  Run setup.sh once before.  CLOUD_HEAT=1 also starts real Heat
# (heat-api on $HEAT_PORT, heat-api-cfn on $HEAT_CFN_PORT, heat-engine) for side-by-side runs.
# $STATE/up exists while the cloud is up (stop.sh removes it).
set -euo pipefail
source "$(dirname "$0")/common.sh"
T0=$(date +%s.%N)
el() { python3 -c "import time; print('%.1f' % (time.time() - $T0))"; }
log() { echo "[start $(el)s] $*"; }
mkdir -p "$LOGS" "$RUN"
rm -f "$STATE/up"
# MariaDB forgets a SET GLOBAL when it restarts
mysql -h "$DB_HOST" -uroot -e "SET GLOBAL max_connections = GREATEST(@@max_connections, $DB_MAX_CONNECTIONS)"
B=$VENV/bin
export PATH=$B:$PATH

running() { [ -f "$RUN/$1.pid" ] && kill -0 "$(cat "$RUN/$1.pid")" 2>/dev/null; }
start_uwsgi() { # name
  running "$1" && { log "$1 already running"; return; }
  $B/uwsgi --ini "$ETC/uwsgi/$1.ini"
}
start_daemon() { # name cmd...
  local name=$1; shift
  running "$name" && { log "$name already running"; return; }
  setsid nohup "$@" > "$LOGS/$name.out" 2>&1 < /dev/null &
  echo $! > "$RUN/$name.pid"
}
wait_http() { # name url [timeout-seconds]
  local name=$1 url=$2 to=${3:-180} t1=$(( $(date +%s) + ${3:-180} ))
  until curl -s -o /dev/null -m 5 "$url"; do
    [ "$(date +%s)" -ge $t1 ] && { echo "TIMEOUT ($to s) waiting for $name ($url); see $LOGS" >&2; exit 1; }
    if ! running "$name"; then echo "$name died; see $LOGS/$name*" >&2; exit 1; fi
    sleep 1
  done
  log "$name answers at $url"
}
# an RPC service is up when it wrote its 'service' row / started consuming;
# we check the process is alive and, for nova/cinder, the service list later.

# ---- keystone first (everything else authenticates against it) ----
start_uwsgi keystone
wait_http keystone "$KEYSTONE_URL"
if [ ! -f "$STATE/bootstrap-keystone.done" ]; then
  $B/python "$CLOUD_DIR/bootstrap.py" keystone
  touch "$STATE/bootstrap-keystone.done"
  log "keystone objects registered"
fi

# ---- APIs (uwsgi) ----
for s in placement nova-api glance-api neutron-api cinder-api; do start_uwsgi $s; done
[ "${CLOUD_HEAT:-0}" = 1 ] && { start_uwsgi heat-api; start_uwsgi heat-api-cfn; }
# ---- RPC services ----
start_daemon nova-conductor  $B/nova-conductor  --config-file $ETC/nova/nova.conf
start_daemon nova-scheduler  $B/nova-scheduler  --config-file $ETC/nova/nova.conf
start_daemon nova-compute    $B/nova-compute    --config-file $ETC/nova/nova.conf
start_daemon cinder-scheduler $B/cinder-scheduler --config-file $ETC/cinder/cinder.conf
start_daemon cinder-volume   $B/cinder-volume   --config-file $ETC/cinder/cinder.conf
start_daemon cinder-backup   $B/cinder-backup   --config-file $ETC/cinder/cinder.conf
[ "${CLOUD_HEAT:-0}" = 1 ] && start_daemon heat-engine $B/heat-engine --config-file $ETC/heat/heat.conf

wait_http placement   "http://127.0.0.1:$PLACEMENT_PORT/"
wait_http nova-api    "http://127.0.0.1:$NOVA_PORT/"
wait_http glance-api  "http://127.0.0.1:$GLANCE_PORT/"
wait_http neutron-api "http://127.0.0.1:$NEUTRON_PORT/"
wait_http cinder-api  "http://127.0.0.1:$CINDER_PORT/"
if [ "${CLOUD_HEAT:-0}" = 1 ]; then
  wait_http heat-api     "http://127.0.0.1:$HEAT_PORT/"
  wait_http heat-api-cfn "http://127.0.0.1:$HEAT_CFN_PORT/"
fi

OSC="$B/openstack --os-cloud hotplate-admin"
# ---- wait for the RPC services to report up ----
wait_svc() { # label cmd-producing-list expected-substring count
  local label=$1 cmd=$2 n=$3 i=0
  until [ "$(eval "$cmd" 2>/dev/null | grep -c -i ' up ')" -ge "$n" ]; do
    i=$((i+1)); [ $i -ge 60 ] && { echo "TIMEOUT waiting for $label services" >&2; eval "$cmd" >&2 || true; exit 1; }
    sleep 2
  done
  log "$label services up"
}
wait_svc nova "$OSC compute service list -f value -c Binary -c Host -c State | sed 's/\$/ /'" 3
wait_svc cinder "$OSC volume service list -f value -c Binary -c Host -c State | sed 's/\$/ /'" 3

# ---- map the compute host into cell1 (the scheduler also does this every 10 s) ----
$B/nova-manage --config-file $ETC/nova/nova.conf cell_v2 discover_hosts >/dev/null
i=0
until $OSC hypervisor list -f value -c 'Hypervisor Hostname' 2>/dev/null | grep -q .; do
  i=$((i+1)); [ $i -ge 60 ] && { echo "TIMEOUT waiting for hypervisor" >&2; exit 1; }
  sleep 2
done
log "hypervisor registered"

if [ ! -f "$STATE/bootstrap-resources.done" ]; then
  $B/python "$CLOUD_DIR/bootstrap.py" resources
  touch "$STATE/bootstrap-resources.done"
fi
for pf in "$RUN"/*.pid; do
  running "$(basename "$pf" .pid)" || { echo "$(basename "$pf" .pid) is not running; see $LOGS" >&2; exit 1; }
done
log "all services up ($(ls "$RUN"/*.pid | wc -l) services)"
touch "$STATE/up"
echo "clouds.yaml: $CLOUDS_YAML"
echo "export OS_CLIENT_CONFIG_FILE=$CLOUDS_YAML OS_CLOUD=hotplate-demo   # or hotplate-admin, hotplate-demo-reader, hotplate-alt-demo"
