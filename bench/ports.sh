# Loopback ports for the benchmark scripts that start their own servers. Source it.

# A port the kernel says is free now; the moment before a server binds it is harmless on a
# machine that is not handing out ports in a loop.
free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until something accepts connections on 127.0.0.1:$1, or $2 (a PID) has exited; gives up
# after $3 seconds (default 30).
wait_for_port() {
  local tries=$(( ${3:-30} * 10 ))
  for _ in $(seq 1 "$tries"); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
