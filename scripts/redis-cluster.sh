#!/usr/bin/env bash
# A local Redis Cluster for holdfast: 3 masters and 3 replicas on loopback ports.
#
#   scripts/redis-cluster.sh start   # prints the REDIS_CLUSTER_NODES to export
#   scripts/redis-cluster.sh stop    # stops the nodes this script started, removes their data
#   scripts/redis-cluster.sh status
#
# REDIS_CLUSTER_BASE_PORT (default 7100): the nodes listen on BASE..BASE+5 (their
# cluster bus on +10000). REDIS_CLUSTER_DIR (default $TMPDIR/holdfast-redis-cluster-BASE)
# holds each node's nodes.conf, log and pid file. No persistence (as the tests
# expect): a node shut down comes back empty and resyncs from its shard's master.
set -euo pipefail

BASE=${REDIS_CLUSTER_BASE_PORT:-7100}
DIR=${REDIS_CLUSTER_DIR:-${TMPDIR:-/tmp}/holdfast-redis-cluster-$BASE}
PORTS=$(seq "$BASE" $((BASE + 5)))

seeds() { local s=""; for p in $PORTS; do s="$s${s:+,}127.0.0.1:$p"; done; echo "$s"; }

start() {
  for p in $PORTS; do
    if redis-cli -p "$p" ping >/dev/null 2>&1; then
      echo "port $p already answers; stop it first (or set REDIS_CLUSTER_BASE_PORT)" >&2
      exit 1
    fi
  done
  mkdir -p "$DIR"
  for p in $PORTS; do
    mkdir -p "$DIR/$p"
    # cluster-require-full-coverage no: while one shard has no master, the other
    # shards keep answering (their events keep selling).
    redis-server --port "$p" --bind 127.0.0.1 --dir "$DIR/$p" --daemonize yes \
      --pidfile "$DIR/$p/redis.pid" --logfile "$DIR/$p/redis.log" \
      --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000 \
      --cluster-require-full-coverage no --save '' --appendonly no --maxmemory-policy noeviction
  done
  for p in $PORTS; do
    for _ in $(seq 50); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.1; done
  done
  local hosts=()
  for p in $PORTS; do hosts+=("127.0.0.1:$p"); done
  redis-cli --cluster create "${hosts[@]}" --cluster-replicas 1 --cluster-yes >"$DIR/create.log"
  for _ in $(seq 300); do
    # Every slot served, and every replica attached to its master.
    if [ "$(redis-cli -p "$BASE" cluster info | tr -d '\r' | grep cluster_state)" = "cluster_state:ok" ] &&
       [ "$(redis-cli -p "$BASE" cluster nodes | grep -c ' slave ')" = "3" ]; then
      echo "Redis Cluster ready (3 masters, 3 replicas; data in $DIR)"
      echo "export REDIS_CLUSTER_NODES=$(seeds)"
      echo "unset REDIS_URL"
      return 0
    fi
    sleep 0.1
  done
  echo "the cluster did not reach cluster_state:ok; see $DIR" >&2
  exit 1
}

stop() {
  for p in $PORTS; do
    local pidfile="$DIR/$p/redis.pid"
    if [ -f "$pidfile" ]; then
      kill "$(cat "$pidfile")" 2>/dev/null || true
    fi
  done
  for p in $PORTS; do
    local pidfile="$DIR/$p/redis.pid"
    for _ in $(seq 50); do [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile" 2>/dev/null)" 2>/dev/null || break; sleep 0.1; done
  done
  rm -rf "$DIR"
  echo "stopped"
}

status() {
  redis-cli -p "$BASE" cluster info | tr -d '\r' | grep -E 'cluster_state|cluster_known_nodes|cluster_size'
  redis-cli -p "$BASE" cluster nodes
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
