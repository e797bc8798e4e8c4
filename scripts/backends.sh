#!/usr/bin/env bash
# Starts PostgreSQL, Redis and RabbitMQ on their standard local ports if they are not already
# answering (the development machines and CI have them installed; this only starts them).
set -euo pipefail

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() { # name port seconds
  for _ in $(seq 1 "$3"); do port_open "$2" && return 0; sleep 1; done
  echo "error: $1 is not answering on 127.0.0.1:$2" >&2
  return 1
}

if ! port_open 5432; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start
  wait_port PostgreSQL 5432 30
fi
if ! port_open 6379; then
  echo "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_port Redis 6379 30
fi
if ! port_open 5672; then
  echo "starting RabbitMQ"
  rabbitmq-server -detached
  wait_port RabbitMQ 5672 90
fi
echo "backends: PostgreSQL :5432, Redis :6379, RabbitMQ :5672 are up"
