"""The append-only judge cache: answers survive a crash, a torn last line costs only its own call."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from evalscope_phys.llm import JsonlCache, JudgeEndpoint, call_key


def test_rows_persist_and_later_lines_win(tmp_path: Path) -> None:
    cache = JsonlCache(tmp_path / 'sub' / 'c.jsonl')
    cache.put({'key': 'a', 'v': 1})
    cache.put({'key': 'b', 'v': 2})
    cache.put({'key': 'a', 'v': 3})
    again = JsonlCache(tmp_path / 'sub' / 'c.jsonl')
    assert len(again) == 2 and again.get('a') == {'key': 'a', 'v': 3} and 'b' in again and again.dropped == 0


def test_a_torn_last_line_is_cut_so_the_next_answer_is_not_glued_to_it(tmp_path: Path) -> None:
    path = tmp_path / 'c.jsonl'
    JsonlCache(path).put({'key': 'a', 'v': 1})
    with path.open('a', encoding='utf-8') as handle:
        handle.write('{"key": "b", "v": 2, "text": "a crash mid-wri')
    cache = JsonlCache(path)
    assert cache.dropped == 1 and 'b' not in cache and cache.get('a')['v'] == 1
    cache.put({'key': 'b', 'v': 2})
    lines = path.read_text(encoding='utf-8').split('\n')
    assert [json.loads(line)['key'] for line in lines if line] == ['a', 'b']
    assert JsonlCache(path).get('b') == {'key': 'b', 'v': 2}


def test_a_line_separator_inside_a_string_does_not_split_the_row(tmp_path: Path) -> None:
    path = tmp_path / 'c.jsonl'
    JsonlCache(path).put({'key': 'a', 'text': 'one\u2028two'})
    assert JsonlCache(path).get('a')['text'] == 'one\u2028two'


def test_a_garbled_middle_line_is_skipped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / 'c.jsonl'
    path.write_text('{"key": "a"}\nnot json\n{"no_key": 1}\n{"key": "b"}\n', encoding='utf-8')
    cache = JsonlCache(path)
    assert sorted(r['key'] for r in cache) == ['a', 'b'] and cache.dropped == 2


def test_call_keys_are_those_of_existing_caches_and_tell_the_parts_apart() -> None:
    """audit stage 3 and error analysis wrote these keys before they shared call_key: old caches still hit."""
    assert call_key('judge-m', 'tmpl', 'a', 'b') == hashlib.sha256(b'judge-m\x00tmpl\x00a\x00b\x00').hexdigest()
    assert call_key('m', 'ab', 'c') != call_key('m', 'a', 'bc')
    assert call_key('m', 'lone \ud800 surrogate') == call_key('m', 'lone ? surrogate')  # encoded, never raises


def test_an_endpoint_builds_its_client_with_its_retry_policy_and_reply_budget() -> None:
    client = JudgeEndpoint('http://127.0.0.1:9/v1', 'm', 'k', max_retries=1, backoff=0.5, timeout=7.0,
                           max_tokens=33).client()
    assert (client.url, client.model, client.api_key, client.max_retries, client.backoff, client.timeout,
            client.max_tokens) == ('http://127.0.0.1:9/v1/chat/completions', 'm', 'k', 1, 0.5, 7.0, 33)

