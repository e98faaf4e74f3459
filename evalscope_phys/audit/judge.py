"""Stage 3: an LLM judge labels each stage-2 candidate pair via an OpenAI-compatible chat endpoint.

Judge calls cost money, so every answered call is appended to a JSONL cache (flushed per line)
before the next is counted done: an interrupted run resumes with no repeated call. A reply that is
not one of the two labels, or that does not name the pair's case id (:mod:`evalscope_phys.llm.case_id`:
a reply for another pair), is recorded as ``unparseable`` with the raw text, never guessed; a call
that still fails after its retries is recorded as ``error`` and not cached, so a re-run retries it.
"""
from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple

from evalscope_phys.llm.cache import call_key
from evalscope_phys.llm import ChatClient, ChatError, JsonlCache, JudgeEndpoint, json_objects
from evalscope_phys.llm.case_id import CASE_KEY, case_id, case_problem
from evalscope_phys.llm.untrusted import data_block


NEAR_DUPLICATE = 'near_duplicate'
SAME_TOPIC = 'same_topic_neighbour'
UNPARSEABLE = 'unparseable'
ERROR = 'error'
LABELS = (NEAR_DUPLICATE, SAME_TOPIC)
PROMPT_PATH = Path(__file__).with_name('judge_prompt.txt')
_MAX_TEXT_CHARS = 12_000  # per problem in the prompt: keeps one pathological record from blowing the context


@dataclass(frozen=True)
class JudgeConfig(JudgeEndpoint):
    """Where and how to call the stage-3 judge (a short label reply, our prompt)."""

    max_tokens: int = 200
    prompt_path: Path = PROMPT_PATH


@dataclass(frozen=True)
class PairLabel:
    """The judge's label for one pair and why; ``raw`` is the reply as received."""

    label: str
    reason: str
    raw: str = ''
    cached: bool = False


@dataclass(frozen=True)
class JudgeStats:
    pairs: int
    calls: int
    """HTTP requests sent, retries included (0 when everything came from the cache)."""
    cached: int
    errors: int
    unparseable: int


def load_prompt(path: Path = PROMPT_PATH) -> str:
    text = Path(path).read_text(encoding='utf-8')
    if '{eval_text}' not in text or '{pool_text}' not in text or '{case}' not in text:
        raise ValueError(f'{path}: the judge prompt must contain {{eval_text}}, {{pool_text}} and {{case}} '
                         '(the id the reply must name)')
    return text


def pair_case(eval_text: str, pool_text: str) -> str:
    """The id of one pair's case, which the judge's reply must name."""
    return case_id('audit', eval_text, pool_text)


def render_prompt(template: str, eval_text: str, pool_text: str) -> str:
    """The prompt for one pair: each problem an untrusted data block, placeholders filled in one pass.

    Not ``str.format``: problem texts are full of LaTeX braces; one pass, so a text holding
    ``{pool_text}`` is never substituted. Pool rows come from a crawl anyone could have written.
    """
    values = {'{eval_text}': data_block('eval_problem', eval_text, _MAX_TEXT_CHARS, keep='start'),
              '{pool_text}': data_block('pool_problem', pool_text, _MAX_TEXT_CHARS, keep='start'),
              '{case}': pair_case(eval_text, pool_text)}
    return re.sub(r'\{eval_text\}|\{pool_text\}|\{case\}', lambda m: values[m.group(0)], template)


_LABEL_LINE = re.compile(r'^\s*\**label\**\s*[:=]\s*\**\s*([a-z_ ]+?)\s*\**\s*$', re.IGNORECASE | re.MULTILINE)
_REASON_LINE = re.compile(r'^\s*\**reason\**\s*[:=]\s*(.+)$', re.IGNORECASE | re.MULTILINE)
_CASE_LINE = re.compile(r'^\s*\**case(?:\s+id)?\**\s*[:=]\s*\**\s*(\S+?)\s*\**\s*$', re.IGNORECASE | re.MULTILINE)


def parse_reply(reply: str, case: Optional[str] = None) -> Tuple[str, str]:
    """(label, reason) from a judge reply; ``(UNPARSEABLE, why)`` unless exactly one valid label is stated.

    Accepted: a JSON object ``{"case": ..., "label": ..., "reason": ...}`` (code fences allowed) or
    ``case: ...`` / ``label: ...`` / ``reason: ...`` lines. Nothing is inferred from free prose. With
    ``case`` (the pair's id), a reply that names no case or another one is unparseable too.
    """
    found: List[Tuple[str, str, str]] = []
    for obj in json_objects(reply or ''):
        if 'label' in obj:
            found.append((str(obj.get('label', '')).strip().lower(), str(obj.get('reason', '')).strip(),
                          str(obj.get(CASE_KEY) or '')))
    if not found:
        labels = _LABEL_LINE.findall(reply or '')
        reasons = _REASON_LINE.findall(reply or '')
        cases = _CASE_LINE.findall(reply or '')
        found = [(lab.strip().lower().replace(' ', '_'), reasons[0].strip() if reasons else '',
                  cases[0] if cases else '') for lab in labels]
    distinct = {label for label, _, _ in found}
    if len(distinct) != 1:
        why = 'no label found' if not distinct else f'conflicting labels {sorted(distinct)}'
        return UNPARSEABLE, why
    label, reason, stated = found[0]
    if label not in LABELS:
        return UNPARSEABLE, f'label {label!r} is not one of {list(LABELS)}'
    problem = None if case is None else case_problem(stated, case)
    if problem is not None:
        return UNPARSEABLE, problem
    return label, ' '.join(reason.split())


class JudgeCache(JsonlCache):
    """Append-only JSONL of answered calls (:class:`evalscope_phys.llm.JsonlCache`); a torn last line is dropped."""


def judge_pairs(pairs: Sequence[Tuple[str, str]], config: JudgeConfig, cache: JudgeCache,
                progress: Optional[Callable[[int], None]] = None) -> Tuple[List[PairLabel], JudgeStats]:
    """A verdict for each (eval text, pool text) pair, from the cache when it has one."""
    template = load_prompt(config.prompt_path)
    client: ChatClient = config.client()
    verdicts: List[Optional[PairLabel]] = [None] * len(pairs)
    todo = []
    for i, (eval_text, pool_text) in enumerate(pairs):
        key = call_key(config.model, template, eval_text, pool_text)
        hit = cache.get(key)
        if hit is not None:
            verdicts[i] = PairLabel(hit['label'], hit['reason'], hit.get('raw', ''), cached=True)
        else:
            todo.append((i, key))
    if progress and len(pairs) - len(todo):
        progress(len(pairs) - len(todo))

    def work(item: Tuple[int, str]) -> Tuple[int, PairLabel]:
        i, key = item
        try:
            reply = client.complete(render_prompt(template, *pairs[i]))
        except ChatError as exc:
            return i, PairLabel(ERROR, str(exc))
        label, reason = parse_reply(reply, pair_case(*pairs[i]))
        cache.put({'key': key, 'model': config.model, 'label': label, 'reason': reason, 'raw': reply,
                   'time': time.time()})
        return i, PairLabel(label, reason, reply)

    with ThreadPoolExecutor(max_workers=max(1, config.concurrency)) as pool:
        for i, verdict in pool.map(work, todo):
            verdicts[i] = verdict
            if progress:
                progress(1)
    done = [v for v in verdicts if v is not None]
    stats = JudgeStats(pairs=len(pairs), calls=client.calls, cached=len(pairs) - len(todo),
                       errors=sum(v.label == ERROR for v in done),
                       unparseable=sum(v.label == UNPARSEABLE for v in done))
    return done, stats
