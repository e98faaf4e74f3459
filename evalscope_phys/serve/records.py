"""Replay records: load them, validate them, and pick the one that answers a chat request.

The schema is documented in :mod:`evalscope_phys.serve.replay`. This module knows nothing about
HTTP; it turns a parsed request body into the text to reply with, or raises :class:`NoMatch` /
:class:`AmbiguousMatch` with a message a person can act on.
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from evalscope_phys.jsonl import JsonlError, parse_numbered
from evalscope_phys.llm.case_id import stated_case

#: How much of an unmatched prompt an error message quotes: enough to recognise the problem.
PROMPT_QUOTE_CHARS = 160
#: in a judge rule's reply, replaced by the case id the prompt states (:func:`echo_case`)
CASE_PLACEHOLDER = '{case}'

# 'note' is free text for people reading the file (what kind of answer this is); the server ignores it.
_KNOWN_KEYS = {'match', 'response', 'responses', 'model', 'judge', 'finish_reason', 'note'}


class ReplayError(ValueError):
    """A replay file or a request that the replay cannot answer; the message says why."""


class NoMatch(ReplayError):
    """No record's ``match`` occurs in the prompt."""


class AmbiguousMatch(ReplayError):
    """Two different records tie for the longest match."""


@dataclass(frozen=True)
class ReplayRecord:
    """One recorded answer (or judge rule) and the prompt phrase(s) that select it."""

    match: Tuple[str, ...]
    """Every phrase must occur in the prompt text; their total length ranks candidates."""
    responses: Tuple[str, ...]
    """One or more replies; several are picked by seed or cycled per prompt."""
    model: Optional[str] = None
    """If set, only requests for this model name can use the record."""
    judge: bool = False
    """Judge rules match the whole conversation and win over ordinary records."""
    finish_reason: str = 'stop'
    """Reported finish reason, e.g. ``length`` to replay a truncated answer."""

    @property
    def weight(self) -> int:
        return sum(len(m) for m in self.match)

    def matches(self, text: str) -> bool:
        return all(m in text for m in self.match)


def record_from_dict(raw: Mapping[str, Any], where: str = 'record') -> ReplayRecord:
    """Validate one JSON object into a record; ``where`` names it in error messages."""
    if not isinstance(raw, Mapping):
        raise ReplayError(f'{where}: expected a JSON object, got {type(raw).__name__}')
    unknown = set(raw) - _KNOWN_KEYS
    if unknown:
        raise ReplayError(f'{where}: unknown keys {sorted(unknown)}; allowed: {sorted(_KNOWN_KEYS)}')
    match = raw.get('match')
    phrases = (match,) if isinstance(match, str) else tuple(match) if isinstance(match, list) else None
    if not phrases or not all(isinstance(p, str) and p for p in phrases):
        raise ReplayError(f'{where}: "match" must be a non-empty string or a list of non-empty strings')
    if ('response' in raw) == ('responses' in raw):
        raise ReplayError(f'{where}: give exactly one of "response" (string) or "responses" (list)')
    responses = (raw['response'],) if 'response' in raw else raw['responses']
    if not isinstance(responses, (list, tuple)) or not responses or not all(isinstance(r, str) for r in responses):
        raise ReplayError(f'{where}: "response" must be a string / "responses" a non-empty list of strings')
    model = raw.get('model')
    if model is not None and not isinstance(model, str):
        raise ReplayError(f'{where}: "model" must be a string')
    finish_reason = raw.get('finish_reason', 'stop')
    if finish_reason not in ('stop', 'length', 'content_filter'):
        raise ReplayError(f'{where}: "finish_reason" must be stop, length or content_filter')
    return ReplayRecord(
        match=phrases, responses=tuple(responses), model=model, judge=bool(raw.get('judge', False)),
        finish_reason=finish_reason,
    )


def load_records(source: Union[str, Path, Iterable[Mapping[str, Any]]]) -> List[ReplayRecord]:
    """Read records from a JSONL path or an iterable of dicts, rejecting duplicates up front."""
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.is_file():
            raise ReplayError(f'replay file not found: {path}')
        try:
            raw_items = [(f'{path}:{lineno}', raw) for lineno, raw in parse_numbered(path.read_text(encoding='utf-8'))]
        except JsonlError as exc:
            raise ReplayError(f'{path}:{exc.line}: not valid JSON: {exc.error}') from None
    else:
        raw_items = [(f'record {i}', raw) for i, raw in enumerate(source)]
    records = [record_from_dict(raw, where) for where, raw in raw_items]
    seen: Dict[Tuple, str] = {}
    for (where, _), rec in zip(raw_items, records):
        key = (frozenset(rec.match), rec.model, rec.judge)
        if key in seen:
            raise ReplayError(f'{where}: same match {list(rec.match)!r} as {seen[key]}; it could never be chosen')
        seen[key] = where
    return records


def build_records(
    pairs: Iterable[Tuple[Union[str, Sequence[str]], Union[str, Sequence[str]]]],
    judge: bool = False,
    model: Optional[str] = None,
) -> List[Dict[str, Any]]:
    """Turn ``(match, response_or_responses)`` pairs into replay-file dicts (validated)."""
    out: List[Dict[str, Any]] = []
    for match, reply in pairs:
        raw: Dict[str, Any] = {'match': match if isinstance(match, str) else list(match)}
        raw.update({'response': reply} if isinstance(reply, str) else
                   {'responses': list(reply) if isinstance(reply, (list, tuple)) else reply})
        if judge:
            raw['judge'] = True
        if model is not None:
            raw['model'] = model
        record_from_dict(raw, f'pair {len(out)}')
        out.append(raw)
    return out


def write_records(records: Iterable[Mapping[str, Any]], path: Union[str, Path]) -> Path:
    """Write dict records as a JSONL replay file and return its path."""
    path = Path(path)
    path.write_text(''.join(json.dumps(dict(r), ensure_ascii=False) + '\n' for r in records), encoding='utf-8')
    return path


def message_text(message: Mapping[str, Any]) -> str:
    """The text of one chat message; images and other non-text parts are ignored."""
    content = message.get('content')
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return '\n'.join(
            str(part.get('text', '')) for part in content if isinstance(part, Mapping) and part.get('type') == 'text'
        )
    return ''


def prompt_texts(messages: Sequence[Mapping[str, Any]]) -> Tuple[str, str]:
    """(last user message text, whole conversation text) of a request's ``messages``."""
    if not isinstance(messages, list) or not all(isinstance(m, Mapping) for m in messages):
        raise ReplayError('"messages" must be a list of message objects')
    user = [m for m in messages if m.get('role') == 'user']
    last_user = message_text(user[-1]) if user else ''
    return last_user, '\n'.join(message_text(m) for m in messages)


def _quote(text: str) -> str:
    head = ' '.join(text.split())
    return head[:PROMPT_QUOTE_CHARS] + ('...' if len(head) > PROMPT_QUOTE_CHARS else '')


@dataclass
class ReplayBook:
    """The loaded records plus the per-prompt cycle counters; safe to share between threads."""

    records: List[ReplayRecord]
    _cycle: Dict[Tuple[int, str], int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def select(self, messages: Sequence[Mapping[str, Any]], model: Optional[str]) -> Tuple[int, ReplayRecord, str]:
        """(index, record, matched text) for a request; judge rules first, then ordinary records."""
        last_user, whole = prompt_texts(messages)
        for judge, text in ((True, whole), (False, last_user)):
            found = [
                (i, r) for i, r in enumerate(self.records)
                if r.judge == judge and (r.model is None or r.model == model) and r.matches(text)
            ]
            if not found:
                continue
            best = max(r.weight for _, r in found)
            top = [(i, r) for i, r in found if r.weight == best]
            if len(top) > 1:
                tied = '; '.join(repr(list(r.match)) for _, r in top)
                raise AmbiguousMatch(f'{len(top)} replay records tie for the longest match ({tied}) '
                                     f'in prompt "{_quote(text)}"')
            return top[0][0], top[0][1], text
        raise NoMatch(f'no recorded answer matched the prompt "{_quote(last_user or whole)}"')

    def replies(self, index: int, record: ReplayRecord, text: str, seed: Optional[int], n: int) -> List[str]:
        """``n`` replies: by ``seed`` when given, else the next in this prompt's cycle (judge rules echo the case)."""
        count = len(record.responses)
        if seed is not None:
            chosen = [record.responses[(seed + k) % count] for k in range(n)]
        else:
            with self._lock:
                start = self._cycle.get((index, text), 0)
                self._cycle[(index, text)] = start + n
            chosen = [record.responses[(start + k) % count] for k in range(n)]
        return [echo_case(reply, text) for reply in chosen] if record.judge else chosen


def echo_case(reply: str, conversation: str) -> str:
    """A judge rule's reply with ``{case}`` replaced by the case id the prompt states, as a judge copies it.

    Why: our judge prompts name their case and a reply must name it back (:mod:`evalscope_phys.llm.case_id`);
    one recorded verdict can then answer many cases. A prompt that states no case leaves ``{case}`` as is.
    """
    if CASE_PLACEHOLDER not in reply:
        return reply
    case = stated_case(conversation)
    return reply if case is None else reply.replace(CASE_PLACEHOLDER, case)
