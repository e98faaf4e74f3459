"""The judge's contract for error analysis: the prompt it is given and the JSON reply it must return.

A reply is valid only when it names the sample's case id (:mod:`evalscope_phys.llm.case_id`: a reply
for another sample is not a diagnosis), states exactly one class from :data:`CLASSES`, a one-line
reason and, for an error class, the index of the first wrong step in the numbered solution plus a
quote of it.
Nothing is guessed from prose: an invalid reply gets one corrective follow-up
(:func:`correction`), then the sample is recorded ``unparseable`` with both replies.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional, Sequence

from evalscope_phys.llm import json_objects
from evalscope_phys.llm.case_id import CASE_KEY, case_id, case_problem
from evalscope_phys.llm.untrusted import data_block, neutralise

from .steps import numbered

PP, RR_SEMANTIC, RR_SYMBOLIC, NONE, UNCLEAR = 'PP', 'RR-semantic', 'RR-symbolic', 'none', 'unclear'
#: what a valid reply may say, in table order
CLASSES = (PP, RR_SEMANTIC, RR_SYMBOLIC, NONE, UNCLEAR)
#: classes that name a wrong step, so the reply must give its index and a quote
STEP_CLASSES = (PP, RR_SEMANTIC, RR_SYMBOLIC)
#: recorded by us, never by the judge: two invalid replies / a call that failed
UNPARSEABLE, ERROR = 'unparseable', 'error'
PROMPT_PATH = Path(__file__).with_name('error_prompt.txt')
PLACEHOLDERS = ('{problem}', '{reference_solution}', '{reference_answer}', '{steps}', '{scorer_note}', '{case}')
#: per text field in the prompt: one pathological record must not blow the judge's context
MAX_FIELD_CHARS = 12_000
#: a reason is one line; a judge that writes an essay is cut here
MAX_REASON_CHARS = 400
NO_REFERENCE_SOLUTION = '(the record has no reference solution)'

_CANONICAL = {c.lower(): c for c in CLASSES}


class ContractError(ValueError):
    """A reply that breaks the contract; the message says how, and is shown to the judge on the retry."""


@dataclass(frozen=True)
class Judgement:
    """One valid reply: the class, the first wrong step (1-based, None for none/unclear), its quote, why."""

    label: str
    step: Optional[int]
    quote: str
    reason: str


def load_prompt(path: Path = PROMPT_PATH) -> str:
    """The prompt template; a custom one must keep every placeholder, or the judge would miss an input."""
    text = Path(path).read_text(encoding='utf-8')
    missing = [p for p in PLACEHOLDERS if p not in text]
    if missing:
        raise ValueError(f'{path}: the error-analysis prompt must contain {", ".join(missing)}')
    return text


def sample_case(problem: str, reference_answer: str, steps: Sequence[str]) -> str:
    """The id of one sample's case (problem, reference answer, solution steps), which the reply must name."""
    return case_id('error_analysis', problem, reference_answer, *steps)


def render_prompt(template: str, *, problem: str, reference_solution: Optional[str], reference_answer: str,
                  steps: Sequence[str], scorer_note: str) -> str:
    """The prompt for one sample (``str.replace``, not ``format``: the texts are full of LaTeX braces).

    Every text is an untrusted data block (:mod:`evalscope_phys.llm.untrusted`): delimited, role markers
    and fences neutralised, capped (the steps at three times a field's cap).
    """
    values = {
        '{problem}': data_block('problem', problem, MAX_FIELD_CHARS),
        '{reference_solution}': data_block('reference_solution', reference_solution, MAX_FIELD_CHARS,
                                           empty=NO_REFERENCE_SOLUTION),
        '{reference_answer}': data_block('reference_answer', reference_answer, MAX_FIELD_CHARS),
        '{steps}': data_block('model_solution', numbered([neutralise(s) for s in steps]), MAX_FIELD_CHARS * 3,
                              empty='(the model gave no solution)'),
        '{scorer_note}': scorer_note,
        '{case}': sample_case(problem, reference_answer, steps),
    }
    # one pass over the template, so a placeholder-like string inside a text is never substituted
    pattern = re.compile('|'.join(re.escape(p) for p in PLACEHOLDERS))
    return pattern.sub(lambda m: values[m.group(0)], template)


def normalise_label(value: Any) -> Optional[str]:
    """``'rr_semantic'``, ``'RR semantic'``, ``' pp '`` -> the canonical class; None when it is no class."""
    if not isinstance(value, str):
        return None
    key = re.sub(r'[\s_\u2010-\u2015-]+', '-', value.strip()).lower()
    return _CANONICAL.get(key)


def parse_judgement(reply: str, step_count: int, case: Optional[str] = None) -> Judgement:
    """The judgement in ``reply`` for a solution of ``step_count`` steps; raises :class:`ContractError`.

    With ``case`` (the id the prompt states), a reply that names no case or another one breaks the contract.
    """
    found = [obj for obj in json_objects(reply or '') if 'class' in obj]
    if not found:
        raise ContractError('no JSON object with a "class" key')
    if case is not None:
        problems = {case_problem(obj.get(CASE_KEY), case) for obj in found} - {None}
        if problems:
            raise ContractError(sorted(problems)[0])
    judgements = {_judgement(obj, step_count) for obj in found}
    if len(judgements) > 1:
        raise ContractError(f'{len(found)} JSON objects that disagree; give exactly one')
    return judgements.pop()


def _judgement(obj: dict, step_count: int) -> Judgement:
    label = normalise_label(obj.get('class'))
    if label is None:
        raise ContractError(f'"class" is {obj.get("class")!r}, not one of {", ".join(CLASSES)}')
    reason = obj.get('reason')
    if not isinstance(reason, str) or not reason.strip():
        raise ContractError('"reason" must be a non-empty one-sentence string')
    reason = ' '.join(reason.split())[:MAX_REASON_CHARS]
    step = _step(obj.get('step'))
    quote = obj.get('quote')
    quote = ' '.join(quote.split()) if isinstance(quote, str) else ''
    if label in STEP_CLASSES:
        if step is None or not 1 <= step <= step_count:
            raise ContractError(f'class {label} needs "step", the number of the first wrong step, '
                                f'between 1 and {step_count}; got {obj.get("step")!r}')
        if not quote:
            raise ContractError(f'class {label} needs "quote", the text of step {step}')
    elif label == NONE:
        if step not in (None, 0):
            raise ContractError(f'class none means no step is wrong, but "step" is {obj.get("step")!r}; use null')
        step, quote = None, ''
    elif step is not None and step != 0 and not 1 <= step <= step_count:
        raise ContractError(f'"step" must be null or between 1 and {step_count}; got {obj.get("step")!r}')
    return Judgement(label, step or None, quote, reason)


def _step(value: Any) -> Optional[int]:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ContractError('"step" must be a number, not true/false')
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r'\s*\[?\s*\d{1,6}\s*\]?\s*', value):
        return int(value.strip(' []'))
    raise ContractError(f'"step" must be a step number; got {value!r}')


def correction(why: str) -> str:
    """The follow-up that tells the judge what was wrong with its reply (the one retry)."""
    return (f'Your reply does not follow the required format: {why}. Reply again with exactly one JSON object '
            'and nothing else: {"case": "<the case id of the prompt>",'
            ' "step": <number or null>, "quote": "<text of that step>", "class": "PP" or '
            '"RR-semantic" or "RR-symbolic" or "none" or "unclear", "reason": "<one sentence>"}')


def quote_in_step(quote: str, steps: List[str], step: Optional[int]) -> Optional[bool]:
    """Whether the quote occurs in the step it cites (spacing and case ignored); None when no step is cited.

    Recorded, not enforced: judges shorten and re-space LaTeX, and a mismatch is worth a look, not a retry.
    """
    if step is None or not quote:
        return None
    squash = lambda s: re.sub(r'[\s$]+', '', s).lower()  # noqa: E731
    target = squash(steps[step - 1])
    parts = [squash(p) for p in re.split(r'\.\.\.|\u2026', quote)]
    return all(p in target for p in parts if p)
