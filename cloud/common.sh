# Sourced by every script of the project's test cloud (setup, start, stop, clean).
# Everything the cloud creates lives under $HOTPLATE_CLOUD_HOME, in its own MariaDB
# databases (prefix cloud_) and its own RabbitMQ vhost.
HOTPLATE_CLOUD_HOME=${HOTPLATE_CLOUD_HOME:-${TMPDIR:-/tmp}/hotplate-cloud}
CLOUD_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VENV=$HOTPLATE_CLOUD_HOME/venv
ETC=$HOTPLATE_CLOUD_HOME/etc
LOGS=$HOTPLATE_CLOUD_HOME/logs
RUN=$HOTPLATE_CLOUD_HOME/run
STATE=$HOTPLATE_CLOUD_HOME/state
PY=${PYTHON:-python3}

# OpenStack 2026.2 releases from PyPI (Heat 27.0.1's series); constraints.txt pins the rest.
OS_PKGS="keystone==30.0.0 openstack-placement==16.0.0 nova==34.0.0 neutron==29.0.0
glance==33.0.0 cinder==29.0.0 openstack-heat==27.0.1 python-openstackclient==10.5.0
python-heatclient==5.3.0 openstacksdk==4.22.0 PyMySQL==1.2.4 uwsgi==2.0.31"

# Backing services: the machine's MariaDB and RabbitMQ.
DB_HOST=${DB_HOST:-127.0.0.1}
DB_USER=hotplate_cloud
DB_PASS=hotplate_cloud
RABBIT_USER=hotplate-cloud
RABBIT_PASS=hotplate-cloud
RABBIT_VHOST=hotplate-cloud
TRANSPORT_URL="rabbit://$RABBIT_USER:$RABBIT_PASS@127.0.0.1:5672/$RABBIT_VHOST"
dburl() { echo "mysql+pymysql://$DB_USER:$DB_PASS@$DB_HOST/cloud_$1?charset=utf8"; }
DBS="keystone placement nova_api nova nova_cell0 glance neutron cinder heat"
# The cloud's two dozen processes each keep a pool; the project's own suites use
# MariaDB beside them, so the server's default of 151 connections is too few.
DB_MAX_CONNECTIONS=${DB_MAX_CONNECTIONS:-1000}

# One password for every Keystone user of this loopback-only cloud.
ADMIN_PASS=${ADMIN_PASS:-secret}
SERVICE_PASS=${SERVICE_PASS:-secret}
REGION=RegionOne
# Real Heat's region, beside hotplate's (CLOUD_HEAT=1); its API ports are the cloud's plus the offset.
HEAT_REGION=HeatRegion
HEAT_REGION_PORT_OFFSET=10000

# API ports, 127.0.0.1 only. hotplate itself is the catalog's orchestration (8004) and
# cloudformation (8000) service; real Heat, when started (CLOUD_HEAT=1), listens on
# 8014 and 8010 and is reached by URL, not through the catalog.
KEYSTONE_PORT=5000
PLACEMENT_PORT=8778
NOVA_PORT=8774
GLANCE_PORT=9292
NEUTRON_PORT=9696
CINDER_PORT=8776
HOTPLATE_PORT=8004
HOTPLATE_CFN_PORT=8000
HEAT_PORT=8014
HEAT_CFN_PORT=8010
# A second hotplate, the orchestration service of region RegionTwo (the same Keystone and
# cloud): where OS::Heat::Stack's `context: {region_name: RegionTwo}` makes its stack.
# Only its suite (tests/cloud/test_remote_region_stack.py) serves it, for as long as it runs.
HOTPLATE_REGION2_PORT=8024
KEYSTONE_URL=http://127.0.0.1:$KEYSTONE_PORT/v3

COMPUTE_HOST=${COMPUTE_HOST:-cloud-compute}
CLOUDS_YAML=$ETC/clouds.yaml
export OS_CLIENT_CONFIG_FILE=$CLOUDS_YAML
export ADMIN_PASS SERVICE_PASS REGION HEAT_REGION HEAT_REGION_PORT_OFFSET KEYSTONE_PORT PLACEMENT_PORT NOVA_PORT GLANCE_PORT \
  NEUTRON_PORT CINDER_PORT HOTPLATE_PORT HOTPLATE_CFN_PORT HEAT_PORT HEAT_CFN_PORT \
  HOTPLATE_REGION2_PORT
