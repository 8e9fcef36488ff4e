#!/usr/bin/env bash
# Writes every config file of the test cloud under $HOTPLATE_CLOUD_HOME/etc (re-run safe).
set -euo pipefail
source "$(dirname "$0")/common.sh"
mkdir -p $ETC/{keystone,placement,nova,glance,neutron/plugins/ml2,cinder,heat,uwsgi}
mkdir -p $STATE/{keystone,nova/instances,glance/images,glance/staging,glance/tasks,neutron,cinder,heat,locks}
KS=http://127.0.0.1:$KEYSTONE_PORT
VETC=$VENV/etc

# [section] with password auth as a service user (keystoneauth options).
ksauth() { # section user
  cat <<EOF
[$1]
auth_url = $KS
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = $2
password = $SERVICE_PASS
region_name = $REGION
EOF
}
authtoken() { # user
  ksauth keystone_authtoken "$1"
  echo "www_authenticate_uri = $KS"
  echo "service_token_roles_required = true"
  echo
}
common_default() { # service
  cat <<EOF
debug = ${AIO_DEBUG:-false}
log_dir = $LOGS
use_stderr = false
transport_url = $TRANSPORT_URL
EOF
}
notif_noop() {
  printf '[oslo_messaging_notifications]\ndriver = noop\n\n'
}

# ------------------------------------------------------------ keystone ---
cat > $ETC/keystone/keystone.conf <<EOF
[DEFAULT]
debug = ${AIO_DEBUG:-false}
log_file = $LOGS/keystone.log
use_stderr = false

[database]
connection = $(dburl keystone)

[token]
provider = fernet

[fernet_tokens]
key_repository = $STATE/keystone/fernet-keys

[fernet_receipts]
key_repository = $STATE/keystone/fernet-keys

[credential]
key_repository = $STATE/keystone/credential-keys

$(notif_noop)
EOF

# ----------------------------------------------------------- placement ---
cat > $ETC/placement/placement.conf <<EOF
[DEFAULT]
debug = ${AIO_DEBUG:-false}
log_file = $LOGS/placement.log
use_stderr = false

[placement_database]
connection = $(dburl placement)

[api]
auth_strategy = keystone

$(authtoken placement)
EOF

# ---------------------------------------------------------------- nova ---
cp -f $VETC/nova/api-paste.ini $ETC/nova/api-paste.ini
cat > $ETC/nova/nova.conf <<EOF
[DEFAULT]
$(common_default)
host = $COMPUTE_HOST
my_ip = 127.0.0.1
state_path = $STATE/nova
instances_path = $STATE/nova/instances
# FakeDriver with a stable node uuid (state_path/compute_id), so nova-compute can restart
compute_driver = fake.FakeDriverWithoutFakeNodes
# no L2 agent: do not wait for network-vif-plugged events
vif_plugging_is_fatal = false
vif_plugging_timeout = 0
# fake driver: no real image needed; small images ok
allow_resize_to_same_host = true

[api]
auth_strategy = keystone

[wsgi]
api_paste_config = $ETC/nova/api-paste.ini

[api_database]
connection = $(dburl nova_api)

[database]
connection = $(dburl nova)

$(authtoken nova)
$(ksauth service_user nova)
send_service_user_token = true

$(ksauth placement placement)

$(ksauth neutron neutron)

$(ksauth cinder nova)
os_region_name = $REGION

[glance]
region_name = $REGION

[scheduler]
discover_hosts_in_cells_interval = 10
workers = 1

[conductor]
workers = 1

[oslo_concurrency]
lock_path = $STATE/locks

[vnc]
enabled = false

[quota]
# room for benchmarks of hundreds of servers
instances = 2000
cores = 8000
ram = 8192000
key_pairs = 1000
server_groups = 1000
server_group_members = 2000

[spice]
enabled = false

$(notif_noop)
EOF

# -------------------------------------------------------------- glance ---
cp -f $VETC/glance/glance-api-paste.ini $ETC/glance/glance-api-paste.ini
cat > $ETC/glance/glance-api.conf <<EOF
[DEFAULT]
$(common_default)
log_file = $LOGS/glance-api.log
enabled_backends = fs:file
# web-download (on by default) imports from a URL: OS::Glance::WebImage's tests serve one
# on loopback, which [import_filtering_opts] allows
# behind uwsgi: image import tasks call back into the API
worker_self_reference_url = http://127.0.0.1:$GLANCE_PORT

[database]
connection = $(dburl glance)

[glance_store]
default_backend = fs

[fs]
filesystem_store_datadir = $STATE/glance/images/

[import_filtering_opts]
# loopback is refused unless its host is allowed by name; any port
allowed_schemes = [http,https]
allowed_hosts = [127.0.0.1,localhost]
allowed_ports = []

[os_glance_staging_store]
filesystem_store_datadir = $STATE/glance/staging/

[os_glance_tasks_store]
filesystem_store_datadir = $STATE/glance/tasks/

[paste_deploy]
flavor = keystone
config_file = $ETC/glance/glance-api-paste.ini

$(authtoken glance)
[oslo_concurrency]
lock_path = $STATE/locks

$(notif_noop)
EOF

# ------------------------------------------------------------- neutron ---
cp -f $VETC/neutron/api-paste.ini $ETC/neutron/api-paste.ini
cat > $ETC/neutron/neutron.conf <<EOF
[DEFAULT]
$(common_default)
log_file = $LOGS/neutron-api.log
host = $COMPUTE_HOST
state_path = $STATE/neutron
api_paste_config = $ETC/neutron/api-paste.ini
auth_strategy = keystone
core_plugin = ml2
service_plugins = ${NEUTRON_SERVICE_PLUGINS:-router,qos,trunk}
dns_domain = cloud.test.
allow_overlapping_ips = true
# no DHCP / L3 agents exist
dhcp_agent_notification = false
notify_nova_on_port_status_changes = true
notify_nova_on_port_data_changes = true

[database]
connection = $(dburl neutron)

[quotas]
quota_network = 1000
quota_subnet = 1000
quota_port = 10000
quota_router = 200
quota_floatingip = 2000
quota_security_group = 1000
quota_security_group_rule = 10000

$(authtoken neutron)
$(ksauth nova nova)

[oslo_concurrency]
lock_path = $STATE/locks

$(notif_noop)
EOF
cat > $ETC/neutron/plugins/ml2/ml2_conf.ini <<EOF
[ml2]
type_drivers = flat,vlan,vxlan
tenant_network_types = vxlan
# cloud/drivers (hotplate-cloud-drivers): binds every port, no L2 agent, no dataplane
mechanism_drivers = bindall
extension_drivers = port_security,qos,dns,tag_ports_during_bulk_creation

[ml2_type_flat]
flat_networks = public

[ml2_type_vlan]
network_vlan_ranges = public

[ml2_type_vxlan]
vni_ranges = 1:1000

[securitygroup]
enable_security_group = true
EOF

# -------------------------------------------------------------- cinder ---
cp -f $VETC/cinder/api-paste.ini $ETC/cinder/api-paste.ini
cp -f $VETC/cinder/resource_filters.json $ETC/cinder/resource_filters.json
cat > $ETC/cinder/cinder.conf <<EOF
[DEFAULT]
$(common_default)
host = $COMPUTE_HOST
my_ip = 127.0.0.1
state_path = $STATE/cinder
api_paste_config = $ETC/cinder/api-paste.ini
resource_query_filters_file = $ETC/cinder/resource_filters.json
auth_strategy = keystone
enabled_backends = fake
default_volume_type = __DEFAULT__
quota_volumes = 2000
quota_snapshots = 2000
quota_gigabytes = 20000
quota_backups = 2000
quota_backup_gigabytes = 20000

backup_driver = cinder.backup.drivers.posix.PosixBackupDriver
backup_posix_path = $STATE/cinder/backups

[fake]
# cloud/drivers (hotplate-cloud-drivers): each volume a sparse file, so backups have bytes
volume_driver = hotplate_cloud_drivers.cinder.FileBackedVolumeDriver
volume_backend_name = fake

[database]
connection = $(dburl cinder)

$(authtoken cinder)
$(ksauth nova nova)

[oslo_concurrency]
lock_path = $STATE/locks

[coordination]
backend_url = file://$STATE/cinder

[privsep_osbrick]
# os-brick asks privsep for the host's connector properties; everything here already runs
# as root, with no sudo to go through
helper_command = $VENV/bin/privsep-helper --config-file $ETC/cinder/cinder.conf

$(notif_noop)
EOF

# ---------------------------------------------------------------- heat ---
cat > $ETC/heat/heat.conf <<EOF
[DEFAULT]
$(common_default)
host = $COMPUTE_HOST
num_engine_workers = ${HEAT_ENGINE_WORKERS:-4}
region_name_for_services = $HEAT_REGION
deferred_auth_method = trusts
stack_user_domain_name = heat
stack_domain_admin = heat_domain_admin
stack_domain_admin_password = $SERVICE_PASS
heat_metadata_server_url = http://127.0.0.1:$HEAT_CFN_PORT
heat_waitcondition_server_url = http://127.0.0.1:$HEAT_CFN_PORT/v1/waitcondition
auth_encryption_key = 0123456789abcdef0123456789abcdef
# A nested stack is made by an RPC call that parses and validates it before answering: a
# ResourceGroup of 100 nested members on 2 cores kept its calls waiting past the default 60 s
# (MessagingTimeout); operators of large stacks raise it.
rpc_response_timeout = ${HEAT_RPC_RESPONSE_TIMEOUT:-600}

[paste_deploy]
api_paste_config = $VETC/heat/api-paste.ini

[cache]
# As devstack sets it: Heat's finders (image, flavor, network by name) and constraint checks
# are memoised only with oslo.cache on; without it each member looks each of them up again.
enabled = true
backend = dogpile.cache.memory

[database]
connection = $(dburl heat)

$(authtoken heat)
[trustee]
# No project options here: Heat authenticates the trustee unscoped and scopes it to each trust;
# a project in this section makes keystoneauth refuse ("cannot be scoped to multiple targets").
auth_url = $KS
auth_type = password
user_domain_name = Default
username = heat
password = $SERVICE_PASS

[clients_keystone]
auth_uri = $KS

[clients_heat]
# real Heat is not in the catalog (hotplate is the orchestration service there)
url = http://127.0.0.1:$HEAT_PORT/v1/%(tenant_id)s

[ec2authtoken]
# heat-api-cfn checks signed requests with Keystone's ec2tokens, as a service user;
# Heat appends /v3/ec2tokens to this root
auth_url = $KS
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = heat
password = $SERVICE_PASS
endpoint_override = $KS

[oslo_concurrency]
lock_path = $STATE/locks

$(notif_noop)
EOF

# --------------------------------------------------------------- uwsgi ---
uwsgi_ini() { # name port module [pyargv] [env...]
  local name=$1 port=$2 module=$3 pyargv=${4:-}; shift 4 || shift $#
  {
    echo "[uwsgi]"
    echo "http-socket = 127.0.0.1:$port"
    # Real Heat's region (HeatRegion) reaches each API on a port of its own: the calls it
    # makes are told from the cloud's calls between its own services by the port they came to.
    case $name in heat-*) ;; *) echo "http-socket = 127.0.0.1:$((port + HEAT_REGION_PORT_OFFSET))";; esac
    echo "module = $module"
    echo "virtualenv = $VENV"
    echo "master = true"
    if [ "$name" = keystone ]; then
      # Keystone judged a request by a concurrent one's scope when it served several
      # requests on threads of one process (a trust refused: "requires a scope of
      # ['project'], request was made with domain scope"); devstack runs it so too.
      echo "processes = ${KEYSTONE_PROCESSES:-4}"
      echo "threads = 1"
    else
      echo "processes = ${UWSGI_PROCESSES:-1}"
      echo "threads = ${UWSGI_THREADS:-4}"
    fi
    echo "enable-threads = true"
    echo "lazy-apps = true"
    echo "thunder-lock = true"
    echo "need-app = true"
    echo "die-on-term = true"
    echo "exit-on-reload = false"
    echo "hook-master-start = unix_signal:15 gracefully_kill_them_all"
    echo "worker-reload-mercy = 5"
    echo "buffer-size = 65535"
    echo "add-header = Connection: close"
    echo "procname-prefix-spaced = hotplate-cloud-$name:"
    echo "pidfile = $RUN/$name.pid"
    echo "daemonize = $LOGS/$name-uwsgi.log"
    # One line a request, with its user agent, in a log of its own: how many calls
    # an orchestrator makes is counted here, at the cloud's side (benchmarks/cloud.py).
    echo "req-logger = file:$LOGS/$name-access.log"
    echo "logger = file:$LOGS/$name-uwsgi.log"
    echo 'log-format = %(epoch) %(var.SERVER_PORT) %(method) %(uri) %(status) %(msecs) "%(uagent)"'
    [ -n "$pyargv" ] && echo "pyargv = $pyargv"
    for e in "$@"; do echo "env = $e"; done
  } > $ETC/uwsgi/$name.ini
}
uwsgi_ini keystone  $KEYSTONE_PORT  keystone.wsgi.api:application "" \
  OS_KEYSTONE_CONFIG_DIR=$ETC/keystone
uwsgi_ini placement $PLACEMENT_PORT placement.wsgi.api:application "" \
  OS_PLACEMENT_CONFIG_DIR=$ETC/placement
printf '[DEFAULT]\nlog_file = %s\n' "$LOGS/nova-api.log" > $ETC/nova/nova-api.conf
uwsgi_ini nova-api  $NOVA_PORT      nova.wsgi.osapi_compute:application "" \
  OS_NOVA_CONFIG_DIR=$ETC/nova "OS_NOVA_CONFIG_FILES=api-paste.ini;nova.conf;nova-api.conf"
uwsgi_ini glance-api $GLANCE_PORT   glance.wsgi.api:application "" \
  OS_GLANCE_CONFIG_DIR=$ETC/glance
uwsgi_ini neutron-api $NEUTRON_PORT neutron.wsgi.api:application "" \
  OS_NEUTRON_CONFIG_DIR=$ETC/neutron
uwsgi_ini cinder-api $CINDER_PORT   cinder.wsgi.api:application \
  "--config-file $ETC/cinder/cinder.conf --log-file $LOGS/cinder-api.log"
uwsgi_ini heat-api  $HEAT_PORT      heat.wsgi.api:application \
  "--config-file $ETC/heat/heat.conf --log-file $LOGS/heat-api.log"
uwsgi_ini heat-api-cfn $HEAT_CFN_PORT heat.wsgi.cfn:application \
  "--config-file $ETC/heat/heat.conf --log-file $LOGS/heat-api-cfn.log"

# ---------------------------------------------------------- clouds.yaml ---
cat > $CLOUDS_YAML <<EOF
clouds:
$(for entry in {hotplate,heat}-{admin:admin:admin,demo:demo:demo,demo-reader:demo_reader:demo,alt-demo:alt_demo:alt_demo}; do
  IFS=: read -r cloud user project <<< "$entry"
  region=$REGION; [ "${cloud%%-*}" = heat ] && region=HeatRegion
  cat <<YAML
  $cloud:
    auth:
      auth_url: $KEYSTONE_URL
      username: $user
      password: $ADMIN_PASS
      project_name: $project
      user_domain_name: Default
      project_domain_name: Default
    region_name: $region
    identity_api_version: 3
    interface: public
YAML
done)
EOF
