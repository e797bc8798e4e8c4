#!/usr/bin/env python3
"""A TCP proxy to Redis that can go silent, like a network partition: connections stay open
and bytes sent to it vanish, so a client waits for its own timeouts (a stopped Redis that
refuses connections is the easy case). Used by bench/redis-outage.sh.

    python3 bench/blackhole_proxy.py LISTEN_PORT TARGET_HOST TARGET_PORT CONTROL_FILE

While CONTROL_FILE contains "down", nothing is forwarded in either direction and new
connections are accepted but never connected through.
"""
import asyncio
import sys

LISTEN, HOST, PORT, CONTROL = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]


def down() -> bool:
    try:
        with open(CONTROL) as f:
            return f.read().strip() == "down"
    except OSError:
        return False


async def pipe(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            while down():
                await asyncio.sleep(0.05)  # hold the bytes: the peer sees silence
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def handle(client_reader, client_writer):
    while down():
        await asyncio.sleep(0.05)
    try:
        upstream_reader, upstream_writer = await asyncio.open_connection(HOST, PORT)
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(
        pipe(client_reader, upstream_writer), pipe(upstream_reader, client_writer)
    )


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", LISTEN)
    async with server:
        await server.serve_forever()


asyncio.run(main())
