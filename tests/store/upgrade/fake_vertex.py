#!/usr/bin/env python3
"""A stand-in for Vertex AI's generateContent, for make_state.sh only: every request gets a
reply a planner, a task, a diagnosis and a post-mortem of any MACE version can read, with
token counts, so the state an earlier MACE writes holds LLM calls. Prints its port."""
import http.server
import json
import sys

REPLY = ("TASK: plain | deps= | kind=config | build the defaults\n"
         "DIAGNOSIS: workload_failed\nFIX: none needed\n"
         "LESSON: the fixture's verdict decides\n")


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = json.dumps({
            "candidates": [{"content": {"role": "model", "parts": [{"text": REPLY}]},
                            "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 1200, "candidatesTokenCount": 80,
                              "thoughtsTokenCount": 20, "totalTokenCount": 1300},
            "modelVersion": "gemini-2.5-flash",
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
