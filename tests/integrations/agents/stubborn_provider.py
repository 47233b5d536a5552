"""A provider that serves ``GET /ping`` on ``$BAND_RUNTIME_PORT`` and ignores SIGTERM."""

import json
import os
import signal
from http.server import BaseHTTPRequestHandler, HTTPServer


class Ping(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps({"status": "Healthy"}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


signal.signal(signal.SIGTERM, signal.SIG_IGN)
HTTPServer(("127.0.0.1", int(os.environ["BAND_RUNTIME_PORT"])), Ping).serve_forever()
