#!/usr/bin/env bash
# Stops every service start.sh started, by the pids in $HOTPLATE_CLOUD_HOME/run.
# uwsgi masters get SIGTERM (die-on-term: they stop their workers); the RPC
# daemons were started with setsid, so their whole process group is signalled.
source "$(dirname "$0")/common.sh"
shopt -s nullglob
rm -f "$STATE/up"
for pf in "$RUN"/*.pid; do
  name=$(basename "$pf" .pid); pid=$(cat "$pf")
  if kill -0 "$pid" 2>/dev/null; then
    if [ -f "$ETC/uwsgi/$name.ini" ]; then
      kill -TERM "$pid" 2>/dev/null          # uwsgi master (die-on-term)
    else
      kill -TERM -- "-$pid" 2>/dev/null      # own process group (setsid)
    fi
    echo "stopping $name ($pid)"
  fi
done
for i in $(seq 1 30); do
  alive=0
  for pf in "$RUN"/*.pid; do kill -0 "$(cat "$pf")" 2>/dev/null && alive=1; done
  [ $alive = 0 ] && break
  sleep 1
done
for pf in "$RUN"/*.pid; do
  pid=$(cat "$pf")
  if kill -0 "$pid" 2>/dev/null; then
    echo "killing $(basename "$pf" .pid) ($pid)"
    if [ -f "$ETC/uwsgi/$(basename "$pf" .pid).ini" ]; then
      pkill -KILL -P "$pid"; kill -KILL "$pid"
    else
      kill -KILL -- "-$pid"
    fi
  fi
  rm -f "$pf"
done
echo "stopped"
