#!/usr/bin/env bash
# A local ClickHouse cluster for tests and for trying the cluster shape on one machine (no Docker needed):
# ZooKeeper from Debian's `zookeeper` package, and 2 shards x 2 replicas of ClickHouse 18.16, each node with its own
# ports and data directory under var/cluster/.
#   deploy/cluster.sh up              start ZooKeeper and the four nodes (installs zookeeper via apt if missing)
#   deploy/cluster.sh down            stop them
#   deploy/cluster.sh stop-node N     stop node N (1..4: shard 1 = nodes 1, 2; shard 2 = nodes 3, 4), for fault runs
#   deploy/cluster.sh kill-node N     SIGKILL it (a crash)
#   deploy/cluster.sh start-node N    start it again
#   deploy/cluster.sh env             print the settings that point the app at the cluster (source <(...))
#   deploy/cluster.sh hosts-up|hosts-down   two web+worker "hosts" (gunicorn + Celery) with their own var dirs
# Ports: TANKODROM_CLUSTER_PORT (default 29100): ZooKeeper on it, node N's native protocol on +10N and its interserver
# HTTP port (replicas fetch parts from each other there; with the app's password as credentials) on +10N+2, all on
# 127.0.0.1 only. No node has a (query) HTTP interface. The app's user has the password of the single server
# (deploy/lib.sh: CLICKHOUSE_PASSWORD, else the var dir's generated one).
source "$(dirname "$0")/lib.sh"

BASE_PORT="${TANKODROM_CLUSTER_PORT:-29100}"
CLUSTER_NAME="${TANKODROM_CLUSTER_NAME:-tankodrom}"
CVAR="$VAR/cluster"
ZK_PORT=$BASE_PORT
NODES=(1 2 3 4)
CLICKHOUSE_JEMALLOC_CONF="percpu_arena:percpu,oversize_threshold:0,muzzy_decay_ms:5000,dirty_decay_ms:5000"

tcp_port() { echo $((BASE_PORT + 10 * $1)); }
interserver_port() { echo $((BASE_PORT + 10 * $1 + 2)); }
shard_of() { echo $(( ($1 + 1) / 2 )); }
replica_of() { echo "r$(( ($1 + 1) % 2 + 1 ))"; }

# Serving, not only running: `ruok` says imok while ZooKeeper still loads its data and refuses sessions, and a
# ClickHouse node with Replicated tables that cannot open a session at start does not start.
zk_answers() { exec 3<>"/dev/tcp/127.0.0.1/$ZK_PORT" && printf stat >&3 && grep -q '^Mode: standalone' <&3; }
node_answers() { ch_client --host 127.0.0.1 --port "$(tcp_port "$1")" --query "SELECT 1"; }
# After a crash a node's old ZooKeeper session lives on until it times out: its Replicated tables stay read-only
# ("replica appears to be already active") meanwhile. A restarted node is ready when none is.
replicas_writable() {
  [[ "$(ch_client --host 127.0.0.1 --port "$(tcp_port "$1")" \
    --query "SELECT count() FROM system.replicas WHERE is_readonly OR is_session_expired")" == 0 ]]
}

start_zookeeper() {
  [[ -x /usr/share/zookeeper/bin/zkServer.sh ]] || apt_install zookeeper
  if zk_answers 2>/dev/null; then say "ZooKeeper answers on 127.0.0.1:$ZK_PORT"; return; fi
  mkdir -p "$CVAR/zookeeper/data" "$CVAR/zookeeper/log"
  sed -e "s|@DATA@|$CVAR/zookeeper/data|" -e "s|@ZK_PORT@|$ZK_PORT|" "$ROOT/deploy/cluster/zoo.cfg.in" >"$CVAR/zookeeper/zoo.cfg"
  say "starting ZooKeeper on 127.0.0.1:$ZK_PORT (data in $CVAR/zookeeper)"
  # start-foreground with a private zoo.cfg, detached here: Debian's service would use /etc/zookeeper.
  JVMFLAGS="-Xmx256m -Dzookeeper.log.dir=$CVAR/zookeeper/log -Dzookeeper.root.logger=WARN,CONSOLE" \
    setsid /usr/share/zookeeper/bin/zkServer.sh start-foreground "$CVAR/zookeeper/zoo.cfg" \
    >>"$CVAR/zookeeper/log/stdout.log" 2>&1 </dev/null &
  echo $! >"$RUN/cluster-zookeeper.pid"
  wait_for 60 "ZooKeeper" zk_answers
}

render_node() {
  local n=$1 dir="$CVAR/ch$1"
  mkdir -p "$dir/config.d"
  # The node's own var dir: the single-server template's @VAR@/clickhouse/... paths land in $dir/var/clickhouse.
  local var="$dir/var"
  mkdir -p "$var/clickhouse"/{data,tmp,log,user_files,format_schemas}
  sed -e "s|@VAR@|$var|g" -e "s|@TCP_PORT@|$(tcp_port "$n")|g" \
    "$ROOT/deploy/clickhouse/config.xml.in" >"$dir/config.xml"
  # The app's password (deploy/lib.sh) on every node: as the users' hash, and in the clear in the node's
  # <remote_servers> (a Distributed query logs in to the other nodes) and interserver credentials (a replica
  # fetches parts from its twin over HTTP): both files readable by their owner only.
  (
    umask 077
    sed -e "s|@PASSWORD_SHA256_HEX@|$(password_sha256_hex)|" "$ROOT/deploy/cluster/users.xml" >"$var/clickhouse/users.xml"
    sed -e "s|@CLUSTER@|$CLUSTER_NAME|g" -e "s|@ZK_PORT@|$ZK_PORT|g" -e "s|@INTERSERVER_PORT@|$(interserver_port "$n")|g" \
      -e "s|@SHARD@|$(shard_of "$n")|g" -e "s|@REPLICA@|$(replica_of "$n")|g" \
      -e "s|@TCP_1@|$(tcp_port 1)|g" -e "s|@TCP_2@|$(tcp_port 2)|g" -e "s|@TCP_3@|$(tcp_port 3)|g" \
      -e "s|@TCP_4@|$(tcp_port 4)|g" -e "s|@PASSWORD@|$(sed_escape "$(xml_escape "$CLICKHOUSE_PASSWORD")")|g" \
      "$ROOT/deploy/cluster/cluster.xml.in" >"$dir/config.d/cluster.xml"
  )
}

start_node() {
  local n=$1 dir="$CVAR/ch$1"
  if node_answers "$n" >/dev/null 2>&1; then return; fi
  render_node "$n"
  say "starting ClickHouse node $n (shard $(shard_of "$n"), replica $(replica_of "$n")) on 127.0.0.1:$(tcp_port "$n")"
  MALLOC_CONF="$CLICKHOUSE_JEMALLOC_CONF" clickhouse-server --daemon --config-file="$dir/config.xml" \
    --pid-file="$RUN/cluster-ch$n.pid" >>"$dir/var/clickhouse/log/stdout.log" 2>&1 </dev/null
}

stop_node() { stop_pidfile "$RUN/cluster-ch$1.pid" "ClickHouse node $1"; }

kill_node() { # a crash, for fault runs: SIGKILL, no graceful end of what it was doing
  if pid_alive "$RUN/cluster-ch$1.pid"; then
    local pid; pid=$(cat "$RUN/cluster-ch$1.pid")
    kill -KILL "$pid"; for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$RUN/cluster-ch$1.pid"
}

up() {
  command -v clickhouse-server >/dev/null || apt_install clickhouse-server clickhouse-client
  start_zookeeper
  for n in "${NODES[@]}"; do start_node "$n"; done
  for n in "${NODES[@]}"; do wait_for 60 "ClickHouse node $n" node_answers "$n"; done
  say "cluster '$CLUSTER_NAME' up: 2 shards x 2 replicas; point the app at it with: source <(deploy/cluster.sh env)"
}

down() {
  hosts_down
  for n in "${NODES[@]}"; do stop_node "$n"; done
  stop_pidfile "$RUN/cluster-zookeeper.pid" "ZooKeeper"
}

print_env() {
  echo "export CLICKHOUSE_CLUSTER=$CLUSTER_NAME"
  echo "export CLICKHOUSE_HOST=127.0.0.1"
  echo "export CLICKHOUSE_PORT=$(tcp_port 1)"
  # The other nodes: the app connects to the next that answers when node 1 does not (clickhouse_driver's alt_hosts).
  echo "export CLICKHOUSE_ALT_HOSTS=$(for n in 2 3 4; do printf '127.0.0.1:%s,' "$(tcp_port "$n")"; done | sed 's/,$//')"
}

# Two web+worker "hosts" on this machine, each with its own var dir (its own uploads directory) and host name:
# an upload received by one is ingested by that host's worker (backend/core/host_queues.py). Host A also runs
# the one Celery beat.
hosts_up() {
  eval "$(print_env)"
  "$PY" "$ROOT/manage.py" ch_migrate   # the schema in its cluster shape (ON CLUSTER), idempotent
  local port=$((BASE_PORT + 80))
  for host in a b; do
    local hvar="$CVAR/host-$host"
    mkdir -p "$hvar/log" "$hvar/run"
    local beat=(); [[ $host == a ]] && beat=(-B --schedule "$hvar/run/celerybeat-schedule")
    say "host $host: http://127.0.0.1:$port (gunicorn) and a Celery worker, var dir $hvar"
    TANKODROM_VAR_DIR="$hvar" TANKODROM_HOST_NAME="host-$host" GUNICORN_WORKERS=1 \
      setsid nohup "$ROOT/.venv/bin/gunicorn" -c "$ROOT/deploy/gunicorn.conf.py" \
      --bind "127.0.0.1:$port" --pid "$hvar/run/gunicorn.pid" >>"$hvar/log/gunicorn.log" 2>&1 </dev/null &
    TANKODROM_VAR_DIR="$hvar" TANKODROM_HOST_NAME="host-$host" \
      setsid nohup "$ROOT/.venv/bin/celery" -A backend worker -Q default,ingest,uploads,analysis --concurrency 2 "${beat[@]}" \
      --pidfile "$hvar/run/celery.pid" --loglevel INFO >>"$hvar/log/celery.log" 2>&1 </dev/null &
    # Calls to the outside in a pool of their own (issue 29).
    TANKODROM_VAR_DIR="$hvar" TANKODROM_HOST_NAME="host-$host" \
      setsid nohup "$ROOT/.venv/bin/celery" -A backend worker -n "outbound-$host@%h" -Q outbound --pool threads \
      --concurrency 4 --pidfile "$hvar/run/celery-outbound.pid" --loglevel INFO >>"$hvar/log/celery-outbound.log" 2>&1 </dev/null &
    port=$((port + 1))
  done
}

hosts_down() {
  for host in a b; do
    stop_pidfile "$CVAR/host-$host/run/gunicorn.pid" "gunicorn of host $host"
    stop_pidfile "$CVAR/host-$host/run/celery.pid" "Celery of host $host"
    stop_pidfile "$CVAR/host-$host/run/celery-outbound.pid" "outbound Celery of host $host"
  done
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  stop-node) stop_node "${2:?node number}" ;;
  kill-node) kill_node "${2:?node number}" ;;
  start-node) start_node "${2:?node number}"; wait_for 60 "ClickHouse node $2" node_answers "$2"
    wait_for 60 "the replicas of node $2" replicas_writable "$2" ;;
  env) print_env ;;
  hosts-up) hosts_up ;;
  hosts-down) hosts_down ;;
  *) die "usage: deploy/cluster.sh up|down|stop-node N|kill-node N|start-node N|env|hosts-up|hosts-down" ;;
esac
