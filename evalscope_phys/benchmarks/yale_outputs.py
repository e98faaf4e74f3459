"""Yale's published PHYSICS runs (``outputs/<model>_output/<domain>_dataset_textonly/``) beside ours.

Their ``response.jsonl`` holds, per problem, the model's solution, the boxed answers their script
extracted, one ``equivalency_results`` entry per comparison and the problem's ``accuracy``;
``accuracy.csv`` the domain's mean. Their accuracy is *not* all-parts: their evaluation script
(``api_evaluation/evaluate_o3.py`` in yale-nlp/Physics) compares each boxed model answer with the
reference answers in turn, stops at the first one judged equivalent (SymPy, then an LLM), and scores
the problem by the share of boxed answers that matched some reference answer. A problem with one
box that matches one of its three reference answers scores 1.

This module turns such a run into a replay file for our CLI, and explains, problem by problem, why
our all-parts ``strict_acc`` differs from their accuracy (:func:`explain`).
"""
from __future__ import annotations

import csv
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from evalscope_phys.jsonl import parse_lines

RESPONSE_FILE = 'response.jsonl'
ACCURACY_FILE = 'accuracy.csv'
#: engine reasons, in the words the comparison table uses
REASON_WORDS = {
    'within_tolerance': 'a number right within 1% only (rounded reference)',
    'missing_unit': 'a number right without its unit',
    'extra_unit': 'a unit the reference does not state',
    'undecided': 'prose or a form the rules cannot decide (a judge would)',
    'unknown_unit': 'a unit the engine does not know',
    'count_mismatch': 'several values offered for one answer',
    'no_answer': 'no answer found for that part',
    'not_equivalent': 'a different value or expression',
    'unparseable_answer': 'an answer the engine cannot read',
    'dimension_mismatch': 'a unit of other dimensions',
    'hedged': 'alternatives offered for one answer',
}


@dataclass(frozen=True)
class YaleRecord:
    """One problem of their run."""

    id: str
    domain: str
    solution: str
    accuracy: float
    accepted_part: Optional[int]
    """Index of the reference answer their first accepted comparison matched (None: none accepted)."""
    boxed: int
    """How many boxed answers their script extracted (0: the problem scored 0 unread)."""


def read_run(directory: Path, references: Mapping[str, Sequence[str]]) -> Tuple[Dict[str, YaleRecord], Dict[str, float]]:
    """Their records by id, and the published ``Overall Accuracy`` of each domain folder."""
    records: Dict[str, YaleRecord] = {}
    published: Dict[str, float] = {}
    for folder in sorted(p for p in Path(directory).iterdir() if p.is_dir()):
        domain = folder.name.split('_')[0]
        summary = folder / ACCURACY_FILE
        if summary.is_file():
            with summary.open(encoding='utf-8') as handle:
                row = next(csv.DictReader(handle), None)
            if row and row.get('Overall Accuracy'):
                published[domain] = float(row['Overall Accuracy'])
        path = folder / RESPONSE_FILE
        if not path.is_file():
            continue
        for raw in parse_lines(path.read_text(encoding='utf-8'))[0]:
            rid = str(raw['id'])
            records[rid] = YaleRecord(rid, domain, raw.get('solution') or '', float(raw.get('accuracy') or 0.0),
                                      _accepted_part(raw, references.get(rid, ())), len(raw.get('final_answers') or []))
    return records, published


def _accepted_part(raw: Dict[str, Any], references: Sequence[str]) -> Optional[int]:
    for result in raw.get('equivalency_results') or []:
        if result.get('final_result'):
            expr = (result.get('input_expressions') or {}).get('expr2')
            return list(references).index(expr) if expr in references else None
    return None


def replay_records(questions: Mapping[str, str], records: Mapping[str, YaleRecord]) -> Tuple[List[dict], List[str]]:
    """Replay-file records serving each problem its recorded solution, keyed by the question text.

    A question that occurs twice (the text-only release has one, under two ids) can have one
    record only: the first id's solution is served for both; their ids are returned.
    """
    by_question: Dict[str, List[str]] = defaultdict(list)
    for rid in sorted(questions):
        if rid in records:
            by_question[questions[rid]].append(rid)
    out, shared = [], []
    for question, ids in by_question.items():
        out.append({'match': question, 'response': records[ids[0]].solution or ' ', 'note': ids[0]})
        if len(ids) > 1:
            shared.extend(ids)
    return out, shared


@dataclass
class Comparison:
    """Our all-parts strict accuracy next to theirs, with the difference split by reason."""

    problems: int = 0
    ours: float = 0.0
    theirs: float = 0.0
    unscored: int = 0
    """Problems with an answer the engine could not score: out of both means."""
    by_reason: Counter = field(default_factory=Counter)
    """reason -> summed (ours - theirs) over its problems, in problems (divide by ``problems``)."""
    counts: Counter = field(default_factory=Counter)

    @property
    def difference(self) -> float:
        return self.ours - self.theirs


def problem_reason(parts: Sequence[Mapping[str, Any]], theirs: YaleRecord) -> str:
    """Why our all-parts verdict (from the parts' strict/reason) and their accuracy differ."""
    ours = all(p.get('strict') for p in parts)
    if ours and theirs.accuracy >= 1.0:
        return 'agree'
    if not ours and theirs.accuracy == 0.0:
        return 'agree'
    if ours:
        return 'we accept every answer; their script found no boxed answer' if theirs.boxed == 0 \
            else 'we accept every answer; their SymPy/LLM check rejected it'
    accepted = theirs.accepted_part
    if accepted is not None and accepted < len(parts) and parts[accepted].get('strict'):
        failing = next(p for p in parts if not p.get('strict'))
        return f'one matching answer suffices for them; another answer: {_words(failing.get("reason"))}'
    if accepted is not None and accepted < len(parts):
        return f'we reject the answer they accept: {_words(parts[accepted].get("reason"))}'
    failing = next(p for p in parts if not p.get('strict'))
    return f'their match is no reference answer; ours: {_words(failing.get("reason"))}'


def _words(reason: Any) -> str:
    return REASON_WORDS.get(str(reason), str(reason))


def explain(ours: Mapping[str, Sequence[Mapping[str, Any]]], theirs: Mapping[str, YaleRecord],
            domain: Optional[str] = None) -> Comparison:
    """Problems in both runs (of ``domain``, or all); ``ours`` maps id -> the parts' verdict dicts."""
    comparison = Comparison()
    for rid, parts in ours.items():
        record = theirs.get(rid)
        if record is None or (domain and record.domain != domain) or not parts:
            continue
        if not all(p.get('scored') for p in parts):
            comparison.unscored += 1
            continue
        mine = float(all(p.get('strict') for p in parts))
        comparison.problems += 1
        comparison.ours += mine
        comparison.theirs += record.accuracy
        reason = problem_reason(parts, record)
        comparison.counts[reason] += 1
        comparison.by_reason[reason] += mine - record.accuracy
    if comparison.problems:
        comparison.ours /= comparison.problems
        comparison.theirs /= comparison.problems
    return comparison


@dataclass
class AcceptedParts:
    """The reference answers their run accepted, and whether our strict verdict accepts the same part."""

    rows: List[Dict[str, Any]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.rows)

    @property
    def accepted(self) -> int:
        return sum(1 for row in self.rows if row['strict'])


def accepted_parts(ours: Mapping[str, Sequence[Mapping[str, Any]]], theirs: Mapping[str, YaleRecord],
                   references: Mapping[str, Sequence[str]] = {}) -> AcceptedParts:
    """Per part their first accepted comparison matched: our verdict on that part (the issues' recall measure).

    Their accuracy mixes one-of-many matches with all-parts scores; the part they accepted is the unit
    on which our rules and theirs can be compared one to one.
    """
    out = AcceptedParts()
    for rid, parts in sorted(ours.items()):
        record = theirs.get(rid)
        if record is None or record.accepted_part is None or record.accepted_part >= len(parts):
            continue
        part = parts[record.accepted_part]
        out.rows.append({'id': rid, 'domain': record.domain, 'part': record.accepted_part,
                         'strict': bool(part.get('strict')), 'lenient': bool(part.get('lenient')),
                         'reason': part.get('reason'), 'detail': part.get('detail'), 'extracted': part.get('extracted'),
                         'reference': (list(references.get(rid, ())) or [None] * len(parts))[record.accepted_part]})
    return out
