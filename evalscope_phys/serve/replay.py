"""A local OpenAI-compatible server that replays recorded answers, with scheduled faults.

Why: the demo, the end-to-end tests and other benchmarks' tests need a real HTTP endpoint that
EvalScope's ``openai_api`` client can talk to offline, answers deterministically, can act as a stub
LLM judge, and can misbehave on purpose so we can see what a run does when a server fails.

Endpoints (base URL ``http://127.0.0.1:PORT/v1``, which is what ``evalscope eval --api-url`` takes):

- ``POST /v1/chat/completions``: non-streaming, or SSE when ``"stream": true`` (with a usage chunk
  when ``stream_options.include_usage``). ``n`` > 1 returns n choices. Usage token counts are
  approximate (about 4 characters per token) but always present, so EvalScope's perf reports work.
- ``GET /v1/models``: the model names the records mention plus ``replay``.
- ``GET /health``: ``{"status": "ok"}``.
- ``GET /stats``: ``{"requests": N, "faults_fired": [...], "unmatched": M}`` for tests.

Replay file (JSONL, one object per line; blank lines are skipped)::

    {"match": "block of mass 2 kg slides", "response": "... \\boxed{4.9\\,\\mathrm{m/s^2}}"}
    {"match": "PHYS-0007", "responses": ["first sample", "second sample"], "model": "my-model"}
    {"match": ["Judge whether", "\\boxed{4.9"], "response": "{\\"case\\": \\"{case}\\", \\"verdict\\": \\"equivalent\\"}", "judge": true}
    {"match": "a long derivation", "response": "We start from Newton's second law and", "finish_reason": "length"}

- ``match``: a string (or a list of strings that must all occur) looked for in the text of the
  last user message; image parts of a content list are ignored, text parts are joined. The record
  whose match is longest (total length) wins; two different records tying is an error (HTTP 400,
  ``ambiguous_replay_match``), and duplicate matches are rejected when the file is loaded.
- ``response`` (string) or ``responses`` (list). With a list, the request's ``seed`` picks
  ``responses[seed % len]`` (choice k of an ``n`` request gets ``seed + k``); without a seed,
  successive answered requests for the same prompt cycle through the list (a ``500`` or
  ``badjson`` fault does not advance the cycle; a ``slow`` one does, as it answers in the end).
- ``model`` (optional): the record only answers requests for that model name.
- ``judge`` (optional, default false): a judge rule. Judge rules are matched against the whole
  conversation (system and all messages) and are tried before ordinary records, so a problem
  record whose text also appears inside a judge prompt does not answer the judge. Give the judge's
  phrase, plus e.g. the answer being judged, as a list ``match`` to return different verdicts.
  A judge rule's reply may contain ``{case}``: it is replaced by the case id the prompt states
  (``Case id: c...``), as a judge copies it -- our judge prompts require the reply to name its case.
- ``finish_reason`` (optional): ``stop`` (default), ``length`` or ``content_filter``.

An unknown prompt gets HTTP 404 with an OpenAI-style error whose message says no recorded answer
matched and quotes the start of the prompt; EvalScope treats a 404 as non-retryable, so it costs
no retries. Faults (see :mod:`evalscope_phys.serve.faults`) hit the Nth chat request overall.
"""
from __future__ import annotations

import ipaddress
import json
import sys
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Union

from evalscope_phys.jsonl import dumps_line

from .faults import FaultSchedule, RequestCounter, parse_faults
from .records import AmbiguousMatch, NoMatch, ReplayBook, ReplayError, load_records, prompt_texts

#: Default stall for a ``slow`` fault; longer than any timeout a test or demo should use.
DEFAULT_SLOW_SECONDS = 30.0
#: A malformed body: valid JSON's opening, then cut off mid-object.
BAD_JSON_BODY = b'{"id": "chatcmpl-replay-broken", "object": "chat.completion", "choices": [{"index": 0, "mess'
#: Rough characters per token, for usage counts.
CHARS_PER_TOKEN = 4

RecordSource = Union[str, Path, Iterable[Mapping[str, Any]]]


def approx_tokens(text: str) -> int:
    return max(1, -(-len(text) // CHARS_PER_TOKEN)) if text else 0


#: the largest request body read (bytes); a larger one gets 413 and the connection is closed
MAX_REQUEST_BYTES = 8 * 1024 * 1024
#: connections served at once; one more is refused (503) at once instead of queueing a thread
MAX_CONNECTIONS = 64


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host.strip().lower() == 'localhost':
        return True
    try:
        return ipaddress.ip_address(host.strip('[]')).is_loopback
    except ValueError:
        return False


class ReplayHTTPServer(ThreadingHTTPServer):
    """Holds the replay state the handler threads share; at most :data:`MAX_CONNECTIONS` at once."""

    daemon_threads = True

    def __init__(self, address, book: ReplayBook, faults: FaultSchedule, slow_seconds: float, log_requests: bool):
        super().__init__(address, ReplayHandler)
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.book = book
        self.counter = RequestCounter(schedule=faults)
        self.slow_seconds = slow_seconds
        self.log_requests = log_requests
        self.stopping = threading.Event()
        self.unmatched = 0
        self._lock = threading.Lock()

    def process_request(self, request, client_address) -> None:
        if not self.slots.acquire(blocking=False):  # full: refuse now rather than pile up threads
            try:
                request.sendall(b'HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def note_unmatched(self) -> None:
        with self._lock:
            self.unmatched += 1

    def stop(self) -> None:
        """Stop serving; wakes handlers that are stalling on a ``slow`` fault."""
        self.stopping.set()
        self.shutdown()
        self.server_close()

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f'http://{host}:{port}/v1'


class ReplayHandler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    server: ReplayHTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib signature)
        if self.server.log_requests:
            sys.stderr.write(f'[replay] {self.address_string()} {format % args}\n')

    # --- plumbing -------------------------------------------------------------------------
    def _send(self, status: int, body: bytes, content_type: str = 'application/json') -> None:
        try:
            self.send_response(status)
            self.send_header('Content-Type', content_type)
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (e.g. timed out on a slow fault)

    def _json(self, status: int, payload: Dict[str, Any]) -> None:
        self._send(status, dumps_line(payload).encode('utf-8'))  # a lone surrogate goes as a JSON escape

    def _error(self, status: int, message: str, code: str, kind: str = 'invalid_request_error') -> None:
        self._json(status, {'error': {'message': message, 'type': kind, 'code': code, 'param': None}})

    # --- routes ---------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 (stdlib name)
        path = self.path.split('?', 1)[0].rstrip('/')
        if path == '/health':
            self._json(200, {'status': 'ok'})
        elif path == '/v1/models':
            names = sorted({'replay'} | {r.model for r in self.server.book.records if r.model})
            self._json(200, {'object': 'list', 'data': [
                {'id': n, 'object': 'model', 'created': 0, 'owned_by': 'evalscope-phys-replay'} for n in names]})
        elif path == '/stats':
            self._json(200, {**self.server.counter.snapshot(), 'unmatched': self.server.unmatched})
        else:
            self._error(404, f'unknown path {self.path}', 'unknown_path')

    def do_POST(self) -> None:  # noqa: N802 (stdlib name)
        try:
            length = int(self.headers.get('Content-Length') or 0)
        except ValueError:
            self.close_connection = True
            self._error(400, 'bad request: Content-Length is not a number', 'invalid_request')
            return
        if length > MAX_REQUEST_BYTES:
            self.close_connection = True
            self._error(413, f'request body of {length} bytes is larger than {MAX_REQUEST_BYTES}', 'too_large')
            return
        raw = self.rfile.read(length) if length > 0 else b''
        if self.path.split('?', 1)[0].rstrip('/') not in ('/v1/chat/completions', '/chat/completions'):
            self._error(404, f'unknown path {self.path}; this server speaks POST /v1/chat/completions',
                        'unknown_path')
            return
        number, fault = self.server.counter.next()
        if fault is not None:
            sys.stderr.write(f'[replay] request {number}: injecting fault {fault}\n')
        try:
            body = json.loads(raw.decode('utf-8') or 'null')
        except ValueError:
            body = None
        streaming = isinstance(body, dict) and bool(body.get('stream'))
        if fault == '500':
            self._error(500, f'injected fault: HTTP 500 on request {number}', 'injected_fault', 'server_error')
            return
        if fault == 'badjson':  # before selecting, so a faulted request does not advance a cycle
            if streaming:
                self._send(200, b'data: ' + BAD_JSON_BODY + b'\n\ndata: [DONE]\n\n', 'text/event-stream')
            else:
                self._send(200, BAD_JSON_BODY)
            return
        if fault == 'slow' and self.server.stopping.wait(self.server.slow_seconds):
            self.close_connection = True  # shutting down: drop the stalled request
            return
        try:
            if not isinstance(body, dict):
                raise ReplayError('request body must be a JSON object')
            completion = self._complete(body, number)
        except NoMatch as exc:
            self.server.note_unmatched()
            self._error(404, str(exc), 'no_replay_match')
            return
        except AmbiguousMatch as exc:
            self._error(400, str(exc), 'ambiguous_replay_match')
            return
        except (ReplayError, ValueError, TypeError) as exc:
            self._error(400, f'bad request: {exc}', 'invalid_request')
            return
        if streaming:
            options = body.get('stream_options')
            self._stream(completion, isinstance(options, dict) and bool(options.get('include_usage')))
        else:
            self._json(200, completion)

    # --- completions ----------------------------------------------------------------------
    def _complete(self, body: Dict[str, Any], number: int) -> Dict[str, Any]:
        messages = body.get('messages')
        model = body.get('model') if isinstance(body.get('model'), str) else None
        seed, n = body.get('seed'), body.get('n') or 1
        if seed is not None and not isinstance(seed, int):
            raise ReplayError('"seed" must be an integer')
        if not isinstance(n, int) or n < 1:
            raise ReplayError('"n" must be a positive integer')
        index, record, text = self.server.book.select(messages, model)
        replies = self.server.book.replies(index, record, text, seed, n)
        prompt_tokens = approx_tokens(prompt_texts(messages)[1])  # text only: images would swamp it
        completion_tokens = sum(approx_tokens(r) for r in replies)
        return {
            'id': f'chatcmpl-replay-{number}',
            'object': 'chat.completion',
            'created': int(time.time()),
            'model': model or record.model or 'replay',
            'system_fingerprint': 'evalscope-phys-replay',
            'choices': [
                {'index': k, 'message': {'role': 'assistant', 'content': reply},
                 'finish_reason': record.finish_reason, 'logprobs': None}
                for k, reply in enumerate(replies)
            ],
            'usage': {'prompt_tokens': prompt_tokens, 'completion_tokens': completion_tokens,
                      'total_tokens': prompt_tokens + completion_tokens},
        }

    def _stream(self, completion: Dict[str, Any], include_usage: bool) -> None:
        """Send the completion as SSE chunks: role, content pieces, finish, optional usage, [DONE]."""
        head = {k: completion[k] for k in ('id', 'created', 'model', 'system_fingerprint')}
        head['object'] = 'chat.completion.chunk'
        events: List[Dict[str, Any]] = []
        for choice in completion['choices']:
            k, content = choice['index'], choice['message']['content']
            events.append({**head, 'choices': [{'index': k, 'delta': {'role': 'assistant', 'content': ''}}]})
            step = max(1, len(content) // 4)
            for start in range(0, len(content), step):
                piece = content[start:start + step]
                events.append({**head, 'choices': [{'index': k, 'delta': {'content': piece}}]})
            events.append({**head, 'choices': [{'index': k, 'delta': {}, 'finish_reason': choice['finish_reason']}]})
        if include_usage:
            events.append({**head, 'choices': [], 'usage': completion['usage']})
        data = ''.join(f'data: {dumps_line(e).rstrip()}\n\n' for e in events) + 'data: [DONE]\n\n'
        self._send(200, data.encode('utf-8'), 'text/event-stream')


def make_server(
    records: RecordSource,
    faults: Union[None, str, FaultSchedule] = None,
    host: str = '127.0.0.1',
    port: int = 0,
    slow_seconds: float = DEFAULT_SLOW_SECONDS,
    log_requests: bool = False,
) -> ReplayHTTPServer:
    """Bind (port 0 picks a free port) a server over ``records``; call ``serve_forever`` to run it."""
    schedule = faults if isinstance(faults, FaultSchedule) else parse_faults(faults)
    book = ReplayBook(load_records(records))
    return ReplayHTTPServer((host, port), book, schedule, slow_seconds, log_requests)


@contextmanager
def replay_server(
    records_or_path: RecordSource,
    faults: Union[None, str, FaultSchedule] = None,
    slow_seconds: float = DEFAULT_SLOW_SECONDS,
    host: str = '127.0.0.1',
) -> Iterator[str]:
    """Run a replay server in a background thread for the ``with`` block; yields its ``/v1`` base URL."""
    server = make_server(records_or_path, faults=faults, host=host, slow_seconds=slow_seconds)
    thread = threading.Thread(target=server.serve_forever, args=(0.1,), name='replay-server', daemon=True)
    thread.start()
    try:
        yield server.base_url
    finally:
        server.stop()
        thread.join(timeout=5)
