"""Ask the judge where each wrong solution first goes wrong; every answer is cached before it counts.

Per sample: the solution is split into numbered steps, the prompt is rendered, and the cache is
looked up by (judge model, prompt). A miss costs one call, plus one corrective follow-up when the
reply breaks the contract; a second invalid reply is recorded ``unparseable`` (with both replies).
Answers, ``unparseable`` included, go to the append-only cache at once; a call that fails after
the client's retries is an ``error``: reported, never cached, so the next run asks again.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple

from evalscope_phys.llm import ChatClient, ChatError, JsonlCache, JudgeEndpoint, call_key, conversation
from evalscope_phys.llm.untrusted import addresses_grader

from .contract import (ERROR, PROMPT_PATH, UNCLEAR, UNPARSEABLE, ContractError, Judgement, correction, load_prompt,
                       parse_judgement, quote_in_step, render_prompt, sample_case)
from .reviews import WrongSample
from .steps import solution_steps


@dataclass(frozen=True)
class JudgeSettings(JudgeEndpoint):
    """Where the error-analysis judge is and how hard to try (its prompt is ours)."""

    prompt_path: Path = PROMPT_PATH


@dataclass(frozen=True)
class Diagnosis:
    """What the analysis concluded for one sample: a class, ``unparseable`` or ``error``."""

    sample: WrongSample
    label: str
    step: Optional[int] = None
    quote: str = ''
    reason: str = ''
    steps: Tuple[str, ...] = ()
    quote_in_step: Optional[bool] = None
    cached: bool = False

    @property
    def step_text(self) -> str:
        return self.steps[self.step - 1] if self.step and self.step <= len(self.steps) else ''


@dataclass(frozen=True)
class ClassifyStats:
    samples: int
    calls: int
    """HTTP requests sent, retries and follow-ups included; 0 when everything came from the cache."""
    cached: int
    errors: int
    unparseable: int


def classify(samples: Sequence[WrongSample], settings: JudgeSettings, cache: JsonlCache,
             progress: Optional[Callable[[Diagnosis], None]] = None) -> Tuple[List[Diagnosis], ClassifyStats]:
    """An outcome per sample, in order; cached answers cost no call."""
    template = load_prompt(settings.prompt_path)
    client = settings.client()

    def one(sample: WrongSample) -> Diagnosis:
        steps = tuple(solution_steps(sample.solution))
        prompt = render_prompt(template, problem=sample.problem, reference_solution=sample.reference_solution,
                               reference_answer=sample.reference_answer, steps=steps,
                               scorer_note=sample.scorer_note())
        injected = addresses_grader(sample.solution)
        if injected:  # a solution that instructs its grader is not sent: the judge could be steered
            return Diagnosis(sample, UNCLEAR, reason=f'the solution addresses its grader ({injected[:80]!r}); '
                           'not sent to the judge', steps=steps)
        key = call_key(settings.model, prompt)
        row = cache.get(key)
        if row is not None:
            return _outcome(sample, row, steps, cached=True)
        try:
            replies, judgement, why = _ask(client, prompt, len(steps),
                                           sample_case(sample.problem, sample.reference_answer, steps))
        except ChatError as exc:
            return Diagnosis(sample, ERROR, reason=str(exc), steps=steps)
        row = _row(key, sample, settings.model, judgement, why, replies, steps)
        cache.put(row)
        return _outcome(sample, row, steps, cached=False)

    outcomes: List[Diagnosis] = []
    with ThreadPoolExecutor(max_workers=max(1, settings.concurrency)) as pool:
        for outcome in pool.map(one, samples):
            outcomes.append(outcome)
            if progress:
                progress(outcome)
    stats = ClassifyStats(samples=len(outcomes), calls=client.calls, cached=sum(o.cached for o in outcomes),
                          errors=sum(o.label == ERROR for o in outcomes),
                          unparseable=sum(o.label == UNPARSEABLE for o in outcomes))
    return outcomes, stats


def _ask(client: ChatClient, prompt: str, step_count: int, case: str) -> Tuple[List[str], Optional[Judgement], str]:
    """(replies, judgement or None, why the replies broke the contract); one corrective retry.

    A reply must name ``case``, the id the prompt states (a reply for another sample breaks the contract).
    """
    first = client.complete(prompt)
    try:
        return [first], parse_judgement(first, step_count, case), ''
    except ContractError as exc:
        why_first = str(exc)
    second = client.complete(conversation(prompt, first, correction(why_first)))
    try:
        return [first, second], parse_judgement(second, step_count, case), ''
    except ContractError as exc:
        return [first, second], None, f'first reply: {why_first}; after the retry: {exc}'


def _row(key: str, sample: WrongSample, judge_model: str, judgement: Optional[Judgement], why: str,
         replies: List[str], steps: Tuple[str, ...]) -> dict:
    base = {'key': key, 'sample': sample.key, 'model': sample.model, 'dataset': sample.dataset,
            'subset': sample.subset, 'index': sample.index, 'generation': sample.generation, 'id': sample.sample_id,
            'domain': sample.domain, 'difficulty': sample.difficulty, 'judge_model': judge_model,
            'scorer': sample.scorer, 'steps': len(steps)}
    if judgement is None:
        verdict = {'class': UNPARSEABLE, 'step': None, 'quote': '', 'quote_in_step': None, 'reason': why}
    else:
        verdict = {'class': judgement.label, 'step': judgement.step, 'quote': judgement.quote,
                   'quote_in_step': quote_in_step(judgement.quote, list(steps), judgement.step),
                   'reason': judgement.reason}
    return {**base, **verdict, 'replies': replies, 'time': time.time()}


def _outcome(sample: WrongSample, row: dict, steps: Tuple[str, ...], cached: bool) -> Diagnosis:
    return Diagnosis(sample, str(row.get('class')), step=row.get('step'), quote=row.get('quote') or '',
                   reason=row.get('reason') or '', steps=steps, quote_in_step=row.get('quote_in_step'),
                   cached=cached)
