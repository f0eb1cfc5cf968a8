"""The downstream service of the fleet bench: an HTTP server that records one
line per request — arrival time, Idempotency-Key, X-Router — and answers 200.
Usage: counter.py PORT FILE"""
import http.server
import sys
import time

port, path = int(sys.argv[1]), sys.argv[2]
out = open(path, "a", buffering=1)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else keep-alive requests wait ~40 ms each

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        out.write(f"{time.monotonic():.6f} {self.headers.get('Idempotency-Key', '-')} {self.headers.get('X-Router', '-')}\n")
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a router killed mid-request resets its connection: expected here


Server(("127.0.0.1", port), Handler).serve_forever()
