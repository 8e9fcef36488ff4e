#!/usr/bin/env bash
# Installs and configures the project's test cloud: a small real OpenStack 2026.2
# control plane (keystone, placement, nova, glance, neutron, cinder, and heat for
# side-by-side runs) under $HOTPLATE_CLOUD_HOME (default $TMPDIR/hotplate-cloud).
# Idempotent: re-running it re-writes the config files, skips installed packages
# and already-synced databases.  It starts nothing (start.sh does).
set -euo pipefail
source "$(dirname "$0")/common.sh"
T0=$(date +%s)
mkdir -p "$HOTPLATE_CLOUD_HOME" "$ETC" "$LOGS" "$RUN" "$STATE"
log() { echo "[setup $(( $(date +%s) - T0 ))s] $*"; }

# ---------------------------------------------------------------- apt ----
# On this kind of machine MariaDB, RabbitMQ, gcc and a Python 3.11 with
# headers are already there; install only what is missing (recorded in
# $HOTPLATE_CLOUD_HOME/apt-installed.txt).
APT_NEED=""
command -v gcc >/dev/null || APT_NEED="$APT_NEED gcc"
command -v mysql >/dev/null || APT_NEED="$APT_NEED mariadb-client"
mysql -h "$DB_HOST" -uroot -e 'select 1' >/dev/null 2>&1 || \
  { command -v mariadbd >/dev/null || APT_NEED="$APT_NEED mariadb-server"; }
command -v rabbitmqctl >/dev/null || APT_NEED="$APT_NEED rabbitmq-server"
$PY -c 'import sysconfig,os,sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"],"Python.h")))' \
  || APT_NEED="$APT_NEED python3-dev"
$PY -c 'import venv, ensurepip' 2>/dev/null || APT_NEED="$APT_NEED python3-venv"
if [ -n "$APT_NEED" ]; then
  log "apt-get install:$APT_NEED"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $APT_NEED
  echo "$APT_NEED" >> "$HOTPLATE_CLOUD_HOME/apt-installed.txt"
fi
if ! mysql -h "$DB_HOST" -uroot -e 'select 1' >/dev/null 2>&1; then
  log "starting mariadb"; (service mariadb start || service mysql start) >/dev/null 2>&1 || true
fi
if ! rabbitmqctl -q status >/dev/null 2>&1; then
  log "starting rabbitmq"; service rabbitmq-server start >/dev/null 2>&1 || true
fi

# ---------------------------------------------------------------- venv ---
if [ ! -x "$VENV/bin/python" ]; then
  log "creating venv $VENV"
  $PY -m venv "$VENV"
  "$VENV/bin/pip" install -q -U pip setuptools wheel
fi
if ! (cd / && "$VENV/bin/python" -c 'import importlib.metadata as m; import nova, neutron, cinder, glance, keystone, placement, heat; m.version("hotplate-cloud-drivers")') 2>/dev/null \
   || [ "${FORCE_PIP:-0}" = 1 ]; then
  log "pip install (one venv for all services)"
  # shellcheck disable=SC2086
  # constraints.txt = the pip freeze of the validated install (2026-12-05)
  # built from a copy: the source tree stays free of setuptools' leftovers
  rm -rf "$HOTPLATE_CLOUD_HOME/drivers-src" && cp -r "$CLOUD_DIR/drivers" "$HOTPLATE_CLOUD_HOME/drivers-src"
  "$VENV/bin/pip" install -q -c "$CLOUD_DIR/constraints.txt" $OS_PKGS "$HOTPLATE_CLOUD_HOME/drivers-src"
  "$VENV/bin/pip" freeze > "$HOTPLATE_CLOUD_HOME/pip-freeze.txt"
fi
"$VENV/bin/pip" check >/dev/null || { "$VENV/bin/pip" check; exit 1; }
log "venv ok"

# ------------------------------------------------------- databases, mq ---
mysql -h "$DB_HOST" -uroot <<SQL
CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASS';
CREATE USER IF NOT EXISTS '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASS';
$(for d in $DBS; do echo "CREATE DATABASE IF NOT EXISTS cloud_$d CHARACTER SET utf8;
GRANT ALL PRIVILEGES ON cloud_$d.* TO '$DB_USER'@'localhost';
GRANT ALL PRIVILEGES ON cloud_$d.* TO '$DB_USER'@'127.0.0.1';"; done)
FLUSH PRIVILEGES;
SET GLOBAL max_connections = GREATEST(@@max_connections, $DB_MAX_CONNECTIONS);
SQL
rabbitmqctl -q list_vhosts | grep -qx "$RABBIT_VHOST" || rabbitmqctl -q add_vhost "$RABBIT_VHOST"
rabbitmqctl -q list_users | awk '{print $1}' | grep -qx "$RABBIT_USER" || \
  rabbitmqctl -q add_user "$RABBIT_USER" "$RABBIT_PASS"
rabbitmqctl -q set_permissions -p "$RABBIT_VHOST" "$RABBIT_USER" ".*" ".*" ".*"
log "databases and rabbitmq vhost ok"

# ------------------------------------------------------------- configs ---
bash "$CLOUD_DIR/write-configs.sh"
log "configs written under $ETC"

# ------------------------------------------------------------ db syncs ---
B=$VENV/bin
done_mark() { [ -f "$STATE/$1.done" ]; }
mark() { touch "$STATE/$1.done"; }
if ! done_mark keystone; then
  log "keystone db_sync + fernet + bootstrap"
  $B/keystone-manage --config-file $ETC/keystone/keystone.conf db_sync
  $B/keystone-manage --config-file $ETC/keystone/keystone.conf fernet_setup --keystone-user root --keystone-group root
  $B/keystone-manage --config-file $ETC/keystone/keystone.conf credential_setup --keystone-user root --keystone-group root
  $B/keystone-manage --config-file $ETC/keystone/keystone.conf bootstrap \
    --bootstrap-password "$ADMIN_PASS" --bootstrap-region-id "$REGION" \
    --bootstrap-admin-url "http://127.0.0.1:$KEYSTONE_PORT/v3/" \
    --bootstrap-internal-url "http://127.0.0.1:$KEYSTONE_PORT/v3/" \
    --bootstrap-public-url "http://127.0.0.1:$KEYSTONE_PORT/v3/"
  mark keystone
fi
if ! done_mark placement; then
  log "placement db sync"
  $B/placement-manage --config-file $ETC/placement/placement.conf db sync
  mark placement
fi
NM="$B/nova-manage --config-file $ETC/nova/nova.conf"
if ! done_mark nova; then
  log "nova api_db sync, cells v2, db sync"
  $NM api_db sync
  $NM cell_v2 map_cell0 --database_connection "$(dburl nova_cell0)"
  $NM cell_v2 list_cells | grep -q ' cell1 ' || \
    $NM cell_v2 create_cell --name cell1 --database_connection "$(dburl nova)" --transport-url "$TRANSPORT_URL"
  $NM db sync
  mark nova
fi
if ! done_mark glance; then
  log "glance db sync"
  $B/glance-manage --config-file $ETC/glance/glance-api.conf db_sync
  mark glance
fi
if ! done_mark neutron; then
  log "neutron db upgrade"
  $B/neutron-db-manage --config-file $ETC/neutron/neutron.conf \
    --config-file $ETC/neutron/plugins/ml2/ml2_conf.ini upgrade head
  mark neutron
fi
if ! done_mark cinder; then
  log "cinder db sync"
  $B/cinder-manage --config-file $ETC/cinder/cinder.conf db sync
  mark cinder
fi
if ! done_mark heat; then
  log "heat db sync"
  $B/heat-manage --config-file $ETC/heat/heat.conf db_sync
  mark heat
fi
log "setup done in $(( $(date +%s) - T0 ))s; next: $CLOUD_DIR/start.sh"
