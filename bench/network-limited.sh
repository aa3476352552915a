#!/usr/bin/env bash
# Runs `quarry bench network` over a shaped link: two network namespaces joined by a veth pair,
# quarryd in one, the benchmark in the other, both directions limited to RATE with DELAY of
# one-way latency (tc netem). Shows how much faster compressed reads are when the network, not
# the CPU, is the limit. Needs root. Removes everything it made on exit, whatever happens.
#
#   bench/network-limited.sh [--build DIR] [--rate 50mbit] [--delay 10ms] [--megabytes 10]
#                            [--large-docs] [-- more flags for the benchmark, e.g. --json]
#
# --large-docs runs `quarry bench large-docs` (10 MB documents) instead, with Redis started in
# the server's namespace too, so that both cross the same link; the verdict compares a 10 MB
# put+get of Quarry with zstd against Redis with brotli-1 (target: faster).
#
# Kernels without the netem qdisc (sch_netem not built or loadable, as on some VMs): the rate
# then comes from tbf on the veth ends and the delay from bench/tcp_delay_relay.py, a relay in
# the client namespace that holds every chunk for DELAY in each direction. The run says which.
#
# The addresses (10.213.0.1, 10.213.0.2) exist only inside the two namespaces this script
# creates; nothing outside them is touched.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"
BUILD=""
RATE="50mbit"
DELAY="10ms"
MEGABYTES="10"
LARGE_DOCS=""
EXTRA=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift 2 ;;
    --rate) RATE="$2"; shift 2 ;;
    --delay) DELAY="$2"; shift 2 ;;
    --megabytes) MEGABYTES="$2"; shift 2 ;;
    --large-docs) LARGE_DOCS=1; shift ;;
    --) shift; EXTRA=("$@"); break ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "network-limited.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [[ $EUID -ne 0 ]]; then
  echo "network-limited.sh: needs root (network namespaces and tc)" >&2
  exit 2
fi
if [[ -z "$BUILD" ]]; then
  # The newest build directory that has both binaries.
  BUILD="$(ls -dt "$REPO"/build*/ 2>/dev/null | while read -r d; do
    [[ -x "$d/src/main/quarryd" && -x "$d/tools/quarry" ]] && { echo "${d%/}"; break; }
  done || true)"
fi
QUARRYD="$BUILD/src/main/quarryd"
QUARRY="$BUILD/tools/quarry"
for binary in "$QUARRYD" "$QUARRY"; do
  if [[ ! -x "$binary" ]]; then
    echo "network-limited.sh: no $binary (build targets quarryd and quarry, or pass --build)" >&2
    exit 2
  fi
done
DELAY_MS="${DELAY%ms}"
if ! [[ "$DELAY_MS" =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
  echo "network-limited.sh: --delay takes milliseconds, e.g. 10ms" >&2
  exit 2
fi

ID="$$"
NS_SERVER="quarry-bench-server-$ID"
NS_CLIENT="quarry-bench-client-$ID"
VETH_SERVER="qbs$ID"
VETH_CLIENT="qbc$ID"
SERVER_IP="10.213.0.1"
CLIENT_IP="10.213.0.2"
PORT=27017
WORK="$(mktemp -d /tmp/quarry-network-limited.XXXXXX)"
SERVER_PID=""
RELAY_PID=""
REDIS_PID=""
REDIS_RELAY_PID=""
REDIS_PORT=6379

cleanup() {
  local status=$?
  set +e  # every step below must run, whatever the one before it returned
  # Everything this script started runs inside its two namespaces: stop those processes by PID
  # (SIGTERM, then SIGKILL), then delete the namespaces, which takes the veth pair with them.
  local pids=""
  for ns in "$NS_CLIENT" "$NS_SERVER"; do
    pids+=" $(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')"
  done
  pids+=" $RELAY_PID $REDIS_RELAY_PID $REDIS_PID $SERVER_PID"
  for pid in $pids; do kill "$pid" 2>/dev/null; done
  for _ in $(seq 50); do
    local alive=""
    for pid in $pids; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [[ -z "$alive" ]] && break
    sleep 0.1
  done
  for pid in $pids; do kill -9 "$pid" 2>/dev/null; done
  wait 2>/dev/null
  ip netns del "$NS_SERVER" 2>/dev/null
  ip netns del "$NS_CLIENT" 2>/dev/null
  ip link del "$VETH_SERVER" 2>/dev/null
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

in_server() { ip netns exec "$NS_SERVER" "$@"; }
in_client() { ip netns exec "$NS_CLIENT" "$@"; }

ip netns add "$NS_SERVER"
ip netns add "$NS_CLIENT"
ip link add "$VETH_SERVER" type veth peer name "$VETH_CLIENT"
ip link set "$VETH_SERVER" netns "$NS_SERVER"
ip link set "$VETH_CLIENT" netns "$NS_CLIENT"
in_server ip addr add "$SERVER_IP/24" dev "$VETH_SERVER"
in_client ip addr add "$CLIENT_IP/24" dev "$VETH_CLIENT"
for ns in "$NS_SERVER" "$NS_CLIENT"; do ip netns exec "$ns" ip link set lo up; done
in_server ip link set "$VETH_SERVER" up
in_client ip link set "$VETH_CLIENT" up

# Shape both directions: each end's egress.
SHAPING=""
if in_server tc qdisc add dev "$VETH_SERVER" root netem rate "$RATE" delay "$DELAY" limit 100000 \
     2>/dev/null; then
  in_client tc qdisc add dev "$VETH_CLIENT" root netem rate "$RATE" delay "$DELAY" limit 100000
  SHAPING="tc netem rate $RATE delay $DELAY on both veth ends"
  URI_HOST="$SERVER_IP"
  URI_PORT="$PORT"
else
  # No netem in this kernel: tbf for the rate (a burst large enough for a GSO packet), the
  # relay for the delay.
  for pair in "$NS_SERVER $VETH_SERVER" "$NS_CLIENT $VETH_CLIENT"; do
    set -- $pair
    ip netns exec "$1" tc qdisc add dev "$2" root tbf rate "$RATE" burst 128kb latency 500ms
  done
  SHAPING="tbf rate $RATE on both veth ends + tcp_delay_relay.py adding ${DELAY_MS} ms each way (this kernel has no netem)"
  URI_HOST="127.0.0.1"
  URI_PORT=$((PORT + 1))
fi

# `ip netns exec` execs the command, so $! is quarryd's own PID (a shell function here would
# put a subshell in between).
ip netns exec "$NS_SERVER" "$QUARRYD" --port "$PORT" --bind_ip "$SERVER_IP" --dbpath "$WORK/db" \
  --advertise-host "$SERVER_IP" --quiet >"$WORK/quarryd.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 100); do
  if in_client bash -c "exec 3<>/dev/tcp/$SERVER_IP/$PORT" 2>/dev/null; then break; fi
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "network-limited.sh: quarryd exited; its log:" >&2
    cat "$WORK/quarryd.log" >&2
    exit 1
  fi
  sleep 0.1
done

if [[ "$URI_HOST" == "127.0.0.1" ]]; then
  ip netns exec "$NS_CLIENT" /usr/bin/python3 "$HERE/tcp_delay_relay.py" 127.0.0.1 "$URI_PORT" \
    "$SERVER_IP" "$PORT" "$DELAY_MS" >"$WORK/relay.log" 2>&1 &
  RELAY_PID=$!
  for _ in $(seq 50); do grep -q ready "$WORK/relay.log" 2>/dev/null && break; sleep 0.1; done
fi

REDIS_ADDRESS=""
if [[ -n "$LARGE_DOCS" ]]; then
  ip netns exec "$NS_SERVER" redis-server --bind "$SERVER_IP" --port "$REDIS_PORT" --save "" \
    --appendonly no --protected-mode no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
  REDIS_PID=$!
  for _ in $(seq 100); do
    if in_client bash -c "exec 3<>/dev/tcp/$SERVER_IP/$REDIS_PORT" 2>/dev/null; then break; fi
    sleep 0.1
  done
  REDIS_ADDRESS="$SERVER_IP:$REDIS_PORT"
  if [[ "$URI_HOST" == "127.0.0.1" ]]; then
    ip netns exec "$NS_CLIENT" /usr/bin/python3 "$HERE/tcp_delay_relay.py" 127.0.0.1 \
      "$((PORT + 2))" "$SERVER_IP" "$REDIS_PORT" "$DELAY_MS" >"$WORK/redis_relay.log" 2>&1 &
    REDIS_RELAY_PID=$!
    for _ in $(seq 50); do grep -q ready "$WORK/redis_relay.log" 2>/dev/null && break; sleep 0.1; done
    REDIS_ADDRESS="127.0.0.1:$((PORT + 2))"
  fi
fi

echo "link: $SHAPING"
echo "quarryd in namespace $NS_SERVER at $SERVER_IP:$PORT; quarry bench in $NS_CLIENT"
echo
# In the background and waited for, so that a signal runs the cleanup at once (bash defers
# traps until a foreground command ends). pipefail gives the benchmark's status, not tee's.
if [[ -n "$LARGE_DOCS" ]]; then
  BENCH=(bench large-docs --uri "mongodb://$URI_HOST:$URI_PORT/" --sizes 10 --redis "$REDIS_ADDRESS"
         --redis-pid "$REDIS_PID" --server-pid "$SERVER_PID")
else
  BENCH=(bench network --uri "mongodb://$URI_HOST:$URI_PORT/" --megabytes "$MEGABYTES")
fi
(ip netns exec "$NS_CLIENT" "$QUARRY" "${BENCH[@]}" "${EXTRA[@]}" | tee "$WORK/bench.out") &
BENCH_PID=$!
set +e
wait "$BENCH_PID"
BENCH_STATUS=$?
set -e
[[ $BENCH_STATUS -eq 0 ]] || exit "$BENCH_STATUS"

if [[ -n "$LARGE_DOCS" ]]; then
  # The verdict: a 10 MB put+get, Quarry with zstd against Redis with brotli-1 (target: faster).
  awk '$1 == 10 && $2 == "Redis" && $3 == "brotli-1" { redis = $6 }
       $1 == 10 && $2 == "Quarry" && $4 == "zstd" { quarry = $7 }
       END { if (redis > 0 && quarry > 0)
               printf "\n10 MB put+get over the link: Quarry zstd %.0f ms, Redis brotli-1 %.0f ms: %s\n",
                      quarry, redis, (quarry < redis ? "faster (target MET)" : "slower (target MISSED)") }' \
    "$WORK/bench.out"
  exit 0
fi

# The verdict: zstd's read speed over none's (the issue's target: at least 2x).
awk '$1 == "none" && $2 == "read" { none = $6 } $1 == "zstd" && $2 == "read" { zstd = $6 }
     END { if (none > 0 && zstd > 0)
             printf "\nzstd read %.1f MB/s vs none %.1f MB/s: %.2fx (target: at least 2x) %s\n",
                    zstd, none, zstd / none, (zstd / none >= 2 ? "MET" : "MISSED") }' \
  "$WORK/bench.out"
