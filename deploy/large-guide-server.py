#!/usr/bin/env python3
"""A loopback HTTP server for the large-guide bench (docs/performance.md): serves an XMLTV
guide of COUNT programmes on one channel, each with a description of DESC_BYTES, generated as it
is sent (nothing held). Prints the port it listens on.

    python3 deploy/large-guide-server.py 2000 1000000    # about 2 GB
"""
import http.server, socketserver, sys

count, desc_bytes = int(sys.argv[1]), int(sys.argv[2])
words = b'lorem ipsum dolor sit amet consectetur '
chunk = (words * (desc_bytes // len(words) + 1))[:desc_bytes]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    def log_message(self, *a): pass
    def do_GET(self):
        self.send_response(200); self.end_headers()
        self.wfile.write(b'<?xml version="1.0" encoding="UTF-8"?>\n<tv>\n<channel id="far.example"><display-name>Far</display-name></channel>\n')
        for i in range(count):
            t = 20261123000000 + (i // 1440) * 1000000 + ((i // 60) % 24) * 10000 + (i % 60) * 100
            self.wfile.write(b'<programme channel="far.example" start="%d +0000"><title>Far %d</title><desc>' % (t, i) + chunk + b'</desc></programme>\n')
        self.wfile.write(b'</tv>\n')
class S(socketserver.ThreadingMixIn, http.server.HTTPServer): daemon_threads = True
srv = S(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
