#!/usr/bin/python3
"""A TCP relay that delays every byte by a fixed time in each direction, for
network-limited.sh on kernels without tc's netem qdisc (its fallback adds latency here
and takes bandwidth from tbf).

    tcp_delay_relay.py LISTEN_HOST LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_MS

Each chunk read from one side is written to the other DELAY_MS after it arrived, in order; the
relay never reorders or merges chunks across connections. It prints "ready" once listening and
runs until killed.
"""

import asyncio
import socket
import sys


async def pump(reader, writer, delay_s):
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def read_side():
        while True:
            data = await reader.read(1 << 16)
            await queue.put((loop.time() + delay_s, data))
            if not data:
                return

    async def write_side():
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                if writer.can_write_eof():
                    writer.write_eof()
                return
            writer.write(data)
            await writer.drain()

    try:
        await asyncio.gather(read_side(), write_side())
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


async def main():
    listen_host, listen_port, target_host, target_port, delay_ms = sys.argv[1:6]
    delay_s = float(delay_ms) / 1000.0

    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(target_host,
                                                                         int(target_port))
        except OSError:
            client_writer.close()
            return
        for w in (client_writer, server_writer):
            w.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        await asyncio.gather(pump(client_reader, server_writer, delay_s),
                             pump(server_reader, client_writer, delay_s))

    server = await asyncio.start_server(handle, listen_host, int(listen_port))
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
