"""A scripted OpenAI-compatible server on 127.0.0.1 for the judge and embedding tests."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, List, Tuple

# reply(path, request body) -> (HTTP status, response body as a dict, raw str or raw bytes)
Script = Callable[[str, dict], Tuple[int, object]]


class StubServer:
    """Counts every request it receives; ``script`` decides each answer."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: List[dict] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server API
                body = json.loads(self.rfile.read(int(self.headers.get('Content-Length', 0))) or b'{}')
                with stub._lock:
                    stub.requests.append({'path': self.path, 'body': body})
                status, payload = stub.script(self.path, body)
                data = payload if isinstance(payload, bytes) else payload.encode() if isinstance(payload, str) \
                    else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.url = f'http://127.0.0.1:{self.httpd.server_address[1]}/v1'
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> 'StubServer':
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def chat_reply(content: str) -> dict:
    return {'choices': [{'index': 0, 'message': {'role': 'assistant', 'content': content}}]}


def prompt_of(body: dict) -> str:
    return body['messages'][-1]['content']
