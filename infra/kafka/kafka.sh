#!/usr/bin/env bash
# A single-node Apache Kafka (KRaft combined broker+controller) on 127.0.0.1, without Docker.
# The jars come from Maven Central (pom.xml next to this script).
#
#   infra/kafka/kafka.sh fetch    # mvn dependency:copy-dependencies into lib/ (only when missing)
#   infra/kafka/kafka.sh start    # fetch if needed, start on the data kept in run/data (formatted
#                                 # only when there is none yet), wait until ready
#   infra/kafka/kafka.sh start --fresh  # the same on an empty data dir (deletes the broker's data)
#   infra/kafka/kafka.sh wipe     # delete the broker's data (refused while it runs)
#   infra/kafka/kafka.sh stop     # clean shutdown (SIGTERM), SIGKILL after a grace period
#   infra/kafka/kafka.sh kill     # SIGKILL, no clean shutdown (for crash tests)
#   infra/kafka/kafka.sh status   # exit 0 and print details when running, 3 when stopped
#   infra/kafka/kafka.sh acquire <pid>  # for test runners: start unless running, lease it to <pid>,
#                                       # print host:port on stdout (free ports if 9092 is taken)
#   infra/kafka/kafka.sh release <pid>  # drop the lease; stop the broker when a test runner
#                                       # started it and no live lease remains
#
# Concurrent test runs in one checkout share one broker: each `acquire` leaves a lease
# (run/leases/<pid>); the last `release` stops it. A broker started by `start` (by hand or by
# .ci/run) is never stopped by `release`.
# The broker's data is deleted only when asked by name (`wipe`, `start --fresh`): topics and
# consumer positions survive `start`, `restart` and `acquire`.
# Environment:
#   KAFKA_RUN_DIR=infra/kafka/run  run dir (config, data, logs, pid, lock): a private instance for
#                                 tests gets its own, with its own KAFKA_PORT
#   KAFKA_PORT=9092               client listener (PLAINTEXT://127.0.0.1:$KAFKA_PORT)
#   KAFKA_CONTROLLER_PORT=$((KAFKA_PORT+1))  controller listener
#   KAFKA_HEAP_OPTS="-Xmx512m -Xms256m"
#   KAFKA_READY_TIMEOUT=90        seconds to wait for describeCluster to answer
#
# Everything the JVM writes (server log, GC-free stdout, format output) goes to run/*.log;
# this script prints one line per command to stderr.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LIB="$HERE/lib"
RUN="${KAFKA_RUN_DIR:-$HERE/run}"
DATA="$RUN/data"
PIDFILE="$RUN/kafka.pid"
PROPS="$RUN/server.properties"
LOG4J="$RUN/log4j2.xml"
OUT="$RUN/kafka.out.log"
PORTFILE="$RUN/kafka.ports"
OWNED="$RUN/test-owned"
LEASES="$RUN/leases"
PORT="${KAFKA_PORT:-9092}"
CPORT="${KAFKA_CONTROLLER_PORT:-$((PORT + 1))}"
HOST=127.0.0.1
READY_TIMEOUT="${KAFKA_READY_TIMEOUT:-90}"
# The cluster id is random per format (22 chars, base64url of 16 bytes) unless KAFKA_CLUSTER_ID
# is set; readiness checks compare it, so another broker answering on our port is never taken
# for ours.

say() { echo "kafka: $*" >&2; }
die() { say "$*"; exit 1; }

pom_stamp() { sha256sum "$HERE/pom.xml" | cut -c1-16; }

kafka_version() {
  local jar
  jar="$(ls "$LIB"/kafka_2.13-*.jar 2>/dev/null | head -n1 || true)"
  [[ -n "$jar" ]] || { echo unknown; return; }
  jar="${jar##*/kafka_2.13-}"
  echo "${jar%.jar}"
}

running_pid() {
  [[ -f "$PIDFILE" ]] || return 1
  local pid
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  # Guard against pid reuse: the process must be our broker.
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka' || return 1
  echo "$pid"
}

port_busy() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# One lock for every state change; fd 9 is opened once per script run (re-opening would
# deadlock against ourselves) and closed for the broker so it never holds the lock.
lock() {
  [[ -n "${LOCKED:-}" ]] && return 0
  mkdir -p "$RUN"
  exec 9>"$RUN/.lock"
  flock -w 180 9 || die "another kafka.sh holds $RUN/.lock for more than 180 s"
  LOCKED=1
}

# When the broker runs, the ports it was started with win over the environment.
load_ports() {
  if running_pid >/dev/null && [[ -f "$PORTFILE" ]]; then
    read -r PORT CPORT <"$PORTFILE" || true
  fi
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

cmd_fetch() {
  if [[ -f "$LIB/.complete" && "$(cat "$LIB/.complete")" == "$(pom_stamp)" ]]; then
    return 0
  fi
  command -v mvn >/dev/null || die "Maven (mvn) is required to fetch Kafka's jars"
  command -v java >/dev/null || die "Java 17+ is required to run Kafka"
  local t0=$SECONDS
  rm -rf "$LIB"
  (cd "$HERE" && mvn -q -B dependency:copy-dependencies -DoutputDirectory=lib >"$HERE/fetch.log" 2>&1) ||
    { cat "$HERE/fetch.log" >&2; die "maven fetch failed (see above)"; }
  rm -f "$HERE/fetch.log"
  pom_stamp >"$LIB/.complete"
  say "fetched Kafka $(kafka_version) jars into infra/kafka/lib in $((SECONDS - t0)) s"
}

write_config() {
  mkdir -p "$RUN"
  cat >"$PROPS" <<EOF
# Generated by infra/kafka/kafka.sh — single node, KRaft combined mode, development only.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$CPORT
listeners=PLAINTEXT://$HOST:$PORT,CONTROLLER://$HOST:$CPORT
advertised.listeners=PLAINTEXT://$HOST:$PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$DATA
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
auto.create.topics.enable=true
offsets.topic.num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
log.retention.hours=24
log.segment.bytes=16777216
delete.topic.enable=true
EOF
  cat >"$LOG4J" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by infra/kafka/kafka.sh: everything goes to run/server.log, nothing to stdout. -->
<Configuration status="WARN">
  <Appenders>
    <File name="file" fileName="$RUN/server.log" append="true">
      <PatternLayout pattern="[%d] %p %m (%c)%n"/>
    </File>
  </Appenders>
  <Loggers>
    <Logger name="kafka" level="INFO"/>
    <Logger name="org.apache.kafka" level="INFO"/>
    <Logger name="kafka.request.logger" level="WARN"/>
    <Logger name="state.change.logger" level="WARN"/>
    <Logger name="kafka.log.LogCleaner" level="WARN"/>
    <Root level="INFO"><AppenderRef ref="file"/></Root>
  </Loggers>
</Configuration>
EOF
}

java_opts() {
  # shellcheck disable=SC2206
  local heap=(${KAFKA_HEAP_OPTS:--Xmx512m -Xms256m})
  JAVA_OPTS=("${heap[@]}" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:+ExitOnOutOfMemoryError
    -Djava.awt.headless=true -Dlog4j2.configurationFile="$LOG4J" -Dkafka.logs.dir="$RUN"
    -cp "$LIB/*")
}

cluster_id() { sed -n 's/^cluster\.id=//p' "$DATA/meta.properties" 2>/dev/null | head -n1; }

wait_ready() {
  local pid="$1"
  WAIT_READY_PID="$pid" WAIT_READY_CLUSTER_ID="$(cluster_id)" \
    node "$HERE/wait-ready.js" "$HOST:$PORT" "$READY_TIMEOUT" || {
    say "last lines of $RUN/server.log:"
    tail -n 20 "$RUN/server.log" >&2 2>/dev/null || true
    tail -n 20 "$OUT" >&2 2>/dev/null || true
    return 1
  }
}

cmd_start() {
  lock
  load_ports
  local pid
  if pid="$(running_pid)"; then
    [[ "${1:-}" != --fresh ]] || die "the broker runs; stop it before starting it fresh"
    wait_ready "$pid" || die "broker (pid $pid) is running but not answering on $HOST:$PORT"
    # A manual start adopts a broker a test run started: no test teardown stops it now.
    [[ "${1:-}" == from-acquire ]] || rm -f "$OWNED"
    say "already running: Kafka $(kafka_version) on $HOST:$PORT (pid $pid)"
    return 0
  fi
  [[ "${1:-}" == --fresh ]] && wipe_data
  start_broker || die "Kafka did not start (see above)"
}

wipe_data() {
  rm -rf "$DATA" "$RUN/server.log" "$OUT"
  say "deleted the broker's data in $DATA"
}

cmd_wipe() {
  lock
  load_ports
  if running_pid >/dev/null; then die "the broker runs; stop it before wiping its data"; fi
  wipe_data
}

# Formats when there is no data yet, starts and waits; returns 1 on failure.
start_broker() {
  local pid
  rm -f "$PIDFILE"
  if port_busy "$PORT"; then say "port $HOST:$PORT is taken by another process (set KAFKA_PORT or KAFKA_BROKERS)"; return 1; fi
  if port_busy "$CPORT"; then say "controller port $HOST:$CPORT is taken by another process (set KAFKA_CONTROLLER_PORT)"; return 1; fi
  cmd_fetch
  command -v java >/dev/null || die "Java 17+ is required to run Kafka"
  local t0
  t0=$(date +%s%N)
  write_config
  java_opts
  if [[ ! -f "$DATA/meta.properties" ]]; then
    # An id that starts with '-' reads as an option to the storage tool (1 in 64 of random ids):
    # draw again, as Kafka's own Uuid.randomUuid does, and pass it joined to its flag as well.
    local id="${KAFKA_CLUSTER_ID:-$(node -e 'const c=require("crypto");let i;do i=c.randomBytes(16).toString("base64url");while(i.startsWith("-"));console.log(i)')}"
    java "${JAVA_OPTS[@]}" kafka.tools.StorageTool format --cluster-id="$id" -c "$PROPS" \
      >"$RUN/format.log" 2>&1 || { cat "$RUN/format.log" >&2; say "storage format failed"; return 1; }
  fi
  # setsid: the broker survives the caller's process group (jest, CI traps stop it explicitly).
  setsid java "${JAVA_OPTS[@]}" kafka.Kafka "$PROPS" >>"$OUT" 2>&1 </dev/null 9>&- &
  pid=$!
  echo "$pid" >"$PIDFILE"
  echo "$PORT $CPORT" >"$PORTFILE"
  rm -f "$OWNED"
  if ! wait_ready "$pid"; then
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$PIDFILE"
    return 1
  fi
  local ms=$((($(date +%s%N) - t0) / 1000000))
  say "Kafka $(kafka_version) ready on $HOST:$PORT (pid $pid) in $((ms / 1000)).$(printf '%03d' $((ms % 1000)) | cut -c1) s; logs in $RUN/"
}

cmd_kill() {
  lock
  local pid
  if pid="$(running_pid)"; then
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    say "killed (pid $pid)"
  fi
  rm -f "$PIDFILE"
}

cmd_stop() {
  lock
  rm -f "$OWNED"
  rm -rf "$LEASES"
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$PIDFILE"
    say "not running"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  local i
  for i in $(seq 1 100); do # 20 s grace for a controlled shutdown
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
    say "stopped (pid $pid killed after 20 s)"
  else
    say "stopped (pid $pid)"
  fi
  rm -f "$PIDFILE"
}

live_leases() {
  local f n=0
  mkdir -p "$LEASES"
  for f in "$LEASES"/*; do
    [[ -e "$f" ]] || continue
    if kill -0 "${f##*/}" 2>/dev/null; then n=$((n + 1)); else rm -f "$f"; fi
  done
  echo "$n"
}

cmd_acquire() {
  local holder="${1:?usage: kafka.sh acquire <pid>}"
  lock
  load_ports
  if running_pid >/dev/null; then
    cmd_start from-acquire
  else
    local try
    for try in 1 2 3; do
      if [[ -z "${KAFKA_PORT:-}" ]] && { ((try > 1)) || port_busy "$PORT" || port_busy "$CPORT"; }; then
        PORT="$(free_port)"
        CPORT="$(free_port)"
        [[ "$PORT" != "$CPORT" ]] || CPORT="$(free_port)"
        say "using ports $PORT/$CPORT (the previous ones are taken)"
      fi
      start_broker && break
      [[ -z "${KAFKA_PORT:-}" && $try -lt 3 ]] || die "Kafka did not start (see above)"
    done
    touch "$OWNED"
  fi
  if [[ -f "$OWNED" ]]; then
    mkdir -p "$LEASES"
    touch "$LEASES/$holder"
  fi
  echo "$HOST:$PORT"
}

cmd_release() {
  local holder="${1:?usage: kafka.sh release <pid>}"
  lock
  rm -f "$LEASES/$holder"
  if [[ -f "$OWNED" ]] && [[ "$(live_leases)" == 0 ]]; then
    cmd_stop
  fi
}

cmd_status() {
  load_ports
  local pid
  if pid="$(running_pid)"; then
    echo "running: Kafka $(kafka_version) on $HOST:$PORT, controller $HOST:$CPORT, pid $pid, data $DATA"
    return 0
  fi
  echo "stopped"
  return 3
}

case "${1:-}" in
  fetch) cmd_fetch ;;
  start) cmd_start "${2:-}" ;;
  stop) cmd_stop ;;
  kill) cmd_kill ;;
  wipe) cmd_wipe ;;
  status) cmd_status ;;
  restart) cmd_stop; cmd_start ;;
  acquire) cmd_acquire "${2:-}" ;;
  release) cmd_release "${2:-}" ;;
  *) echo "usage: $0 fetch|start [--fresh]|stop|kill|wipe|status|restart|acquire <pid>|release <pid>" >&2; exit 2 ;;
esac
