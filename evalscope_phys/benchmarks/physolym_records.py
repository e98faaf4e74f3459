"""One PhysOlym record -> one normalised problem, from either of the two layouts it comes in.

**Our schema** (documented in docs/benchmarks/physolym.md): ``id``, ``problem``, ``answer`` (a short LaTeX answer or a
list), ``unit``, ``tolerance``, ``answer_type``, ``difficulty``, ``language``, ``pair_id``, ``source``,
``images``.

**The PhysOlym-A release** (hub ``shanyangmie/physolym-a``, ``physolym-a.jsonl``; Physics-R1's
Croissant file and judge script): ``source`` (source family, e.g. ``estonian_olympiad``),
``messages`` (a list of ``{role, content}`` chat messages, or that list JSON-serialised; the first
user message is the problem), ``solution`` (the reference solution, possibly multi-part) and
``metadata`` (a dict or JSON string: difficulty, native difficulty, language ``en``/``et``/``en-et``,
topic, license, ...). Physics-R1's evaluation records carry the solution as ``gold`` instead. A
record with ``problem``/``question`` instead of ``messages`` reads the same way.

A release reference is a worked solution: the engine scores against the **last** final answer it
states (:func:`evalscope_phys.benchmarks.solutions.reference_final_answer`), as PhysUniBench does (a
gold of one short line without an answer marker, "2.5 m/s", is taken whole); a
solution given as a JSON object or list of parts gives one answer per part, scored in order. When a
solution states no answer the engine can read, ``reference`` is None and the sample goes to the
judge with the whole solution (or stays unscored). ``gold`` keeps the reference as the record gives
it, for Physics-R1's substring check.
"""
from __future__ import annotations

import json
from numbers import Number
from typing import Any, Dict, List, Optional, Union

from evalscope_phys.scoring.read.words import is_prose
from evalscope_phys.benchmarks.solutions import reference_final_answer
from evalscope_phys.scoring import extract_final_answer

SCHEMA, RELEASE = 'schema', 'release'
#: where the release may keep its per-record labels, first found wins
DIFFICULTY_KEYS = ('difficulty', 'native_difficulty', 'native-difficulty')
NATIVE_DIFFICULTY_KEYS = ('native_difficulty', 'native-difficulty')
TOPIC_KEYS = ('topic', 'concept', 'subject')
ID_KEYS = ('id', 'uid')
IMAGE_MARK = '<image>'
#: a gold this short, on one line, with no answer marker, is itself the answer ("2.5 m/s", "v = 3 m/s")
SHORT_GOLD_CHARS = 120

Reference = Union[str, List[str], None]


def _json_or_value(value: Any) -> Any:
    """A JSON-serialised list/object parsed; anything else (plain text included) as it is."""
    if isinstance(value, str) and value.strip()[:1] in ('[', '{'):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _scalar(value: Any) -> Optional[str]:
    if value is None or isinstance(value, bool) or (isinstance(value, str) and not value.strip()):
        return None
    return str(value).strip() if isinstance(value, (str, Number)) else None


def _first(sources: List[Dict[str, Any]], keys: tuple) -> Optional[str]:
    for source in sources:
        for key in keys:
            value = _scalar(source.get(key))
            if value is not None:
                return value
    return None


def message_text(content: Any) -> str:
    """The text of a chat message's content: a string, or the text parts of a content list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return '\n'.join(str(part.get('text') or '') for part in content
                         if isinstance(part, dict) and part.get('type', 'text') == 'text')
    return ''


def problem_text(record: Dict[str, Any]) -> str:
    """``problem``, else ``question``, else the first user message of ``messages``."""
    for key in ('problem', 'question'):
        if isinstance(record.get(key), str) and record[key].strip():
            return record[key]
    messages = _json_or_value(record.get('messages'))
    if isinstance(messages, list):
        for message in messages:
            if isinstance(message, dict) and message.get('role', 'user') == 'user':
                return message_text(message.get('content'))
    return ''


def schema_reference(answer: Any) -> Reference:
    """Our schema's ``answer``: a string, or a list of strings."""
    if isinstance(answer, list):
        return [str(a) for a in answer]
    return _scalar(answer) if not isinstance(answer, str) else answer


def final_answer(solution: str) -> Optional[str]:
    """The last final answer a worked solution states; a short one-line gold is its own answer."""
    found = reference_final_answer(solution)
    if found is not None:
        return found
    text = solution.strip()
    if len(text) <= SHORT_GOLD_CHARS and '\n' not in text:
        whole = extract_final_answer(text)
        if not whole.empty and not is_prose(whole.text):
            return whole.text
    return None


def solution_reference(solution: Any) -> Reference:
    """The final answer(s) a release solution states; None when one part states none the engine reads."""
    parts = solution if isinstance(solution, list) else list(solution.values()) if isinstance(solution, dict) else None
    if parts is None:
        return final_answer(str(solution))
    answers = [final_answer(str(part)) for part in parts]
    return None if not answers or any(a is None for a in answers) else answers


def _solution_text(solution: Any) -> str:
    if isinstance(solution, dict):
        return '\n\n'.join(f'({key}) {value}' for key, value in solution.items())
    if isinstance(solution, list):
        return '\n\n'.join(map(str, solution))
    return str(solution)


def _has_images(record: Dict[str, Any], metadata: Dict[str, Any], problem: str) -> bool:
    return bool(record.get('images') or metadata.get('images') or metadata.get('image_urls')) or IMAGE_MARK in problem


def normalise_record(record: Dict[str, Any], row: int) -> Dict[str, Any]:
    """The problem in one shape whatever its layout; ``row`` (1-based) names release records without an id."""
    metadata = _json_or_value(record.get('metadata'))
    metadata = metadata if isinstance(metadata, dict) else {}
    split_tags = metadata.get('_split_tags') if isinstance(metadata.get('_split_tags'), dict) else {}
    sources = [record, metadata, split_tags]
    problem = problem_text(record)
    solution = _json_or_value(record['gold'] if record.get('gold') not in (None, '') else record.get('solution'))
    if record.get('answer') not in (None, '', []) or solution in (None, '', [], {}):
        layout, reference, gold, full = SCHEMA, schema_reference(record.get('answer')), record.get('answer'), None
        gold = [str(g) for g in gold] if isinstance(gold, list) else _scalar(gold)
    else:
        layout, reference, full = RELEASE, solution_reference(solution), _solution_text(solution)
        raw = record.get('gold') or record.get('solution')
        gold = raw if isinstance(raw, str) else full  # the gold string Physics-R1's script compares with
    source = _first(sources, ('source', 'source_family', 'source_bucket'))
    rid = _first(sources, ID_KEYS)
    if rid is None and layout == RELEASE:
        rid = f'{source or "physolym"}#{row}'
    language_tag = (_first(sources, ('language', 'lang')) or ('en' if layout == RELEASE else '')).lower()
    return {
        'id': rid, 'problem': problem, 'layout': layout, 'reference': reference, 'gold': gold, 'solution': full,
        'language': language_tag.replace('_', '-').split('-')[0], 'language_tag': language_tag,
        'pair_id': _first(sources, ('pair_id',)), 'difficulty': _first(sources, DIFFICULTY_KEYS),
        'native_difficulty': _first(sources[1:], NATIVE_DIFFICULTY_KEYS), 'topic': _first(sources, TOPIC_KEYS),
        'source': source, 'unit': _scalar(record.get('unit')), 'tolerance': record.get('tolerance'),
        'answer_type': _scalar(record.get('answer_type')),
        'has_images': _has_images(record, metadata, problem),
    }
