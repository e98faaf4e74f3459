"""The shared chat client against a real local HTTP server: retries what is worth retrying, counts every request."""
from __future__ import annotations

import json
import urllib.request

import pytest

from evalscope_phys.llm import ChatClient, ChatError, conversation
from evalscope_phys.serve import build_records, replay_server

RECORDS = build_records([('ping', 'pong'), (['first', 'second', 'third'], 'whole conversation')], judge=True)


def _client(url: str, **kw) -> ChatClient:
    return ChatClient(url, 'judge', backoff=0.001, **kw)


def _stats(url: str) -> dict:
    with urllib.request.urlopen(url.removesuffix('/v1') + '/stats', timeout=5) as response:
        return json.loads(response.read())


def test_a_reply_and_a_multi_turn_conversation() -> None:
    with replay_server(RECORDS) as url:
        client = _client(url)
        assert client.complete('ping') == 'pong'
        assert client.complete(conversation('first', 'second', 'third')) == 'whole conversation'
        assert client.calls == 2 == _stats(url)['requests']


@pytest.mark.parametrize('faults', ['1:500', '1:badjson'])
def test_server_errors_and_broken_bodies_are_retried(faults: str) -> None:
    with replay_server(RECORDS, faults=faults) as url:
        client = _client(url, max_retries=2)
        assert client.complete('ping') == 'pong'
        assert client.calls == 2 == _stats(url)['requests']


def test_retries_run_out_with_a_message_that_says_what_failed() -> None:
    with replay_server(RECORDS, faults='every=1:500') as url:
        client = _client(url, max_retries=2)
        with pytest.raises(ChatError, match=r'after 3 attempt\(s\): HTTP 500'):
            client.complete('ping')
        assert client.calls == 3


def test_a_client_error_is_not_retried() -> None:
    with replay_server(RECORDS) as url:
        client = _client(url, max_retries=3)
        with pytest.raises(ChatError, match='HTTP 404'):
            client.complete('a prompt no record matches')
        assert client.calls == 1


def test_a_dead_endpoint_fails_fast() -> None:
    with replay_server(RECORDS) as url:
        pass  # the server is stopped: its port now refuses connections
    with pytest.raises(ChatError, match='after 2 attempt'):
        _client(url, max_retries=1, timeout=5).complete('ping')
