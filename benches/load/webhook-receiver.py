#!/usr/bin/env python3
"""A webhook receiver for benches/replicas.sh: checks each POST's Standard Webhooks signature
(HMAC-SHA256 over "{webhook-id}.{webhook-timestamp}.{body}" with the whsec_ secret) and appends
one line per delivery to LOG: "id document_id response_id created_at_ms received_at_ms ok|forged".

    webhook-receiver.py SECRET LOG

Prints "listening on PORT" once it listens on 127.0.0.1 (a port the kernel picks)."""

import base64
import calendar
import hashlib
import hmac
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET, LOG = sys.argv[1], sys.argv[2]
KEY = base64.b64decode(SECRET.removeprefix("whsec_"))
lock = threading.Lock()
out = open(LOG, "a", buffering=1)


def millis(rfc3339):
    """Unix milliseconds of 2026-12-06T23:01:59.123Z (the server's form)."""
    stamp, _, frac = rfc3339.rstrip("Z").partition(".")
    secs = calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%S"))
    return secs * 1000 + int((frac + "000")[:3])


class Receiver(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        received = time.time_ns() // 1_000_000
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        wid = self.headers.get("webhook-id", "")
        stamp = self.headers.get("webhook-timestamp", "")
        signed = f"{wid}.{stamp}.".encode() + body
        expected = base64.b64encode(hmac.new(KEY, signed, hashlib.sha256).digest()).decode()
        given = [s.partition(",")[2] for s in self.headers.get("webhook-signature", "").split()]
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
        with lock:
            out.write(line + "\n")
        self.send_response(204 if ok else 400)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
server.daemon_threads = True
print("listening on %d" % server.server_address[1], flush=True)
server.serve_forever()
