"""A small OpenAI-compatible ``/chat/completions`` client: retries with backoff, counted calls.

Stdlib only (``urllib``), so a judge needs no SDK; the key is passed in by the caller, who reads it
from the environment, never from a file.
"""
from __future__ import annotations

import http.client
import json
import random
import threading
import time
import urllib.error
import urllib.request
from typing import Dict, List, Optional, Sequence, Union

#: statuses worth another attempt: rate limits, overload and gateway errors
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
#: the longest wait between two attempts, whatever the backoff has doubled to
MAX_BACKOFF_SECONDS = 60.0

Message = Dict[str, str]


class ChatError(RuntimeError):
    """Every attempt of one call failed; the message says how the last one failed."""


class ChatClient:
    """Sends chat requests to one model at one endpoint; ``calls`` counts HTTP requests, retries included."""

    def __init__(self, base_url: str, model: str, api_key: Optional[str] = None, *, max_retries: int = 4,
                 backoff: float = 1.0, timeout: float = 120.0, max_tokens: int = 200,
                 temperature: float = 0.0) -> None:
        self.url = base_url.rstrip('/') + '/chat/completions'
        self.model = model
        self.api_key = api_key
        self.max_retries = max(0, int(max_retries))
        self.backoff = backoff
        self.timeout = timeout
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.calls = 0
        self._lock = threading.Lock()

    def complete(self, messages: Union[str, Sequence[Message]]) -> str:
        """The reply text to ``messages`` (a string is one user message); raises :class:`ChatError`."""
        if isinstance(messages, str):
            messages = [{'role': 'user', 'content': messages}]
        body = json.dumps({'model': self.model, 'temperature': self.temperature, 'max_tokens': self.max_tokens,
                           'messages': list(messages)}).encode()
        headers = {'Content-Type': 'application/json'}
        if self.api_key:
            headers['Authorization'] = f'Bearer {self.api_key}'
        last = ''
        attempt = 0
        for attempt in range(self.max_retries + 1):
            if attempt:
                delay = min(MAX_BACKOFF_SECONDS, self.backoff * 2 ** (attempt - 1))
                time.sleep(delay * (0.5 + random.random() / 2))
            with self._lock:
                self.calls += 1
            request = urllib.request.Request(self.url, data=body, headers=headers, method='POST')
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    payload = json.loads(response.read())
                return str(payload['choices'][0]['message']['content'] or '')
            except urllib.error.HTTPError as exc:
                last = f'HTTP {exc.code} from {self.url}'
                if exc.code not in RETRY_STATUS:
                    break
            except (urllib.error.URLError, TimeoutError, OSError, http.client.HTTPException) as exc:
                last = f'{type(exc).__name__}: {exc}'
            except (ValueError, KeyError, IndexError, TypeError) as exc:  # incl. a body that is not UTF-8
                last = f'malformed response body ({type(exc).__name__})'
        raise ChatError(f'judge call failed after {attempt + 1} attempt(s): {last}')


def conversation(prompt: str, *turns: str) -> List[Message]:
    """``[user prompt, assistant turn, user turn, ...]``: a follow-up that shows the judge its own reply."""
    messages = [{'role': 'user', 'content': prompt}]
    for i, text in enumerate(turns):
        messages.append({'role': 'assistant' if i % 2 == 0 else 'user', 'content': text})
    return messages
