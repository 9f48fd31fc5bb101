#!/usr/bin/env python3
"""A webhook receiver for benches/replicas.sh: checks each POST's Standard Webhooks signature
(HMAC-SHA256 over "{webhook-id}.{webhook-timestamp}.{body}" with the whsec_ secret) and appends
one line per delivery to LOG: "id document_id response_id created_at_ms received_at_ms ok|forged".

    webhook-receiver.py SECRET LOG

Prints "listening on PORT" once it listens on 127.0.0.1 (a port the kernel picks).

One process, one thread, asyncio: connections are kept alive (HTTP/1.1), requests on each are
read as they come, pipelined ones included, and the log is flushed every 50 ms, so that the
receiver costs little beside the server it measures."""

import asyncio
import base64
import calendar
import hashlib
import hmac
import json
import sys
import time

SECRET, LOG = sys.argv[1], sys.argv[2]
KEY = base64.b64decode(SECRET.removeprefix("whsec_"))
out = open(LOG, "a")
NO_CONTENT = b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n"
BAD = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n"


def millis(rfc3339):
    """Unix milliseconds of 2026-12-06T23:01:59.123Z (the server's form)."""
    stamp, _, frac = rfc3339.rstrip("Z").partition(".")
    secs = calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%S"))
    return secs * 1000 + int((frac + "000")[:3])


def receipt(headers, body, received):
    """The log line of one delivery, and whether its signature verified."""
    wid = headers.get("webhook-id", "")
    stamp = headers.get("webhook-timestamp", "")
    signed = f"{wid}.{stamp}.".encode() + body
    expected = base64.b64encode(hmac.new(KEY, signed, hashlib.sha256).digest()).decode()
    given = [s.partition(",")[2] for s in headers.get("webhook-signature", "").split()]
    ok = any(hmac.compare_digest(expected, g) for g in given)
    try:
        event = json.loads(body)
        line = "%s %s %s %d %d %s" % (
            wid,
            event.get("document_id", "-"),
            event.get("response_id", "-"),
            millis(event["created_at"]),
            received,
            "ok" if ok else "forged",
        )
    except (ValueError, KeyError):
        line = "%s - - 0 %d forged" % (wid or "-", received)
    return line, ok


class Connection(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport
        self.buffer = b""

    def data_received(self, data):
        received = time.time_ns() // 1_000_000
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].decode("latin-1").split("\r\n")
            headers = {}
            for field in head[1:]:
                name, _, value = field.partition(":")
                headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length", "0"))
            if len(self.buffer) < end + 4 + length:
                return
            body = self.buffer[end + 4 : end + 4 + length]
            self.buffer = self.buffer[end + 4 + length :]
            line, ok = receipt(headers, body, received)
            out.write(line + "\n")
            self.transport.write(NO_CONTENT if ok else BAD)


async def main():
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Connection, "127.0.0.1", 0, backlog=1024)
    print("listening on %d" % server.sockets[0].getsockname()[1], flush=True)
    while True:
        await asyncio.sleep(0.05)
        out.flush()


asyncio.run(main())
