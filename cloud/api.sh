#!/usr/bin/env bash
# Stops or starts one API of the test cloud, for the outage tests:
#   cloud/api.sh stop  <name>   the uWSGI master gets SIGTERM; returns once it is gone and
#                               its port refuses connections
#   cloud/api.sh start <name>   started again from its ini; returns once it answers
# <name> is a uWSGI service of start.sh: nova-api, neutron-api, cinder-api, glance-api,
# placement (not nova-compute: its fake servers live in its memory). Hold the cloud's
# lock (/tmp/hotplate-cloud-ports.lock) from the stop to the start: other suites must
# not meet an API that is away.
set -euo pipefail
source "$(dirname "$0")/common.sh"
usage() { echo "usage: $0 stop|start <uwsgi service name>" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1 name=$2
ini=$ETC/uwsgi/$name.ini
[ -f "$ini" ] || { echo "$name: no uWSGI service of that name ($ini)" >&2; exit 2; }
port=$(sed -n 's/^http-socket = 127.0.0.1:\([0-9]*\)$/\1/p' "$ini" | head -1)
pidfile=$RUN/$name.pid
running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }
answers() { curl -s -o /dev/null -m 5 "http://127.0.0.1:$port/"; }

case $action in
  stop)
    running || { echo "$name is not running"; exit 0; }
    pid=$(cat "$pidfile")
    kill -TERM "$pid"
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    if kill -0 "$pid" 2>/dev/null; then
      pkill -KILL -P "$pid" || true
      kill -KILL "$pid" || true
    fi
    for _ in $(seq 1 10); do answers || break; sleep 1; done
    answers && { echo "$name still answers on $port" >&2; exit 1; }
    echo "$name stopped"
    ;;
  start)
    if running; then echo "$name already running"; else "$VENV/bin/uwsgi" --ini "$ini"; fi
    for _ in $(seq 1 120); do answers && { echo "$name answers on $port"; exit 0; }; sleep 1; done
    echo "TIMEOUT waiting for $name on $port; see $LOGS/$name-uwsgi.log" >&2
    exit 1
    ;;
  *) usage ;;
esac
