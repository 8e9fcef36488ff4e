#!/usr/bin/env bash
# Stops the test cloud and removes its state: databases, DB user, RabbitMQ vhost
# and user, and $HOTPLATE_CLOUD_HOME/{etc,logs,run,state}.  --all also removes the venv
# (all of $HOTPLATE_CLOUD_HOME).  Run setup.sh again afterwards.
set -uo pipefail
source "$(dirname "$0")/common.sh"
bash "$CLOUD_DIR/stop.sh"
for d in $DBS; do mysql -h "$DB_HOST" -uroot -e "DROP DATABASE IF EXISTS cloud_$d"; done
mysql -h "$DB_HOST" -uroot -e "DROP USER IF EXISTS '$DB_USER'@'localhost'; DROP USER IF EXISTS '$DB_USER'@'127.0.0.1'"
rabbitmqctl -q delete_vhost "$RABBIT_VHOST" 2>/dev/null || true
rabbitmqctl -q delete_user "$RABBIT_USER" 2>/dev/null || true
if [ "${1:-}" = --all ]; then rm -rf "$HOTPLATE_CLOUD_HOME"; else rm -rf "$ETC" "$LOGS" "$RUN" "$STATE"; fi
echo "cleaned"
