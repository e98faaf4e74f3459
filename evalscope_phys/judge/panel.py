"""Ask a judge (or a panel of judges) about (question, reference, answer) pairs outside an evaluation run.

Why: the judge self-test and the judge benchmark must measure the judge the adapters use, not a
look-alike. So every pair goes through the adapters' own judge definition
(:func:`~evalscope_phys.judge.rules_first.rules_first_judge`: the same prompt and output contract)
and EvalScope's own :class:`~evalscope.api.judge.JudgeExecutor` with ``LLMJudge`` models built from an
EvalScope ``judge`` config -- several models, ``repeats``, ``aggregation`` and ``min_valid_judges``
work as in a run.
"""
from __future__ import annotations

import queue
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence

from evalscope.api.dataset import Sample
from evalscope.api.evaluator import TaskState
from evalscope.api.judge import JudgeContext, JudgeExecutor, JudgeExecutorConfig
from evalscope.api.metric import Score
from evalscope.config import JudgeConfig

from evalscope_phys import compat
from evalscope_phys.judge.cost import (JUDGE_CALLS, JUDGE_COMPLETION_TOKENS, JUDGE_FAILED_CALLS,
                                                  JUDGE_PROMPT_TOKENS, judge_usage)
from evalscope_phys.judge.rules_first import CANNOT_JUDGE, JUDGE_FAILED, rules_first_judge
from evalscope_phys.scoring.metrics import LENIENT, STRICT

#: concurrent pairs; each pair's judges and repeats run one after another, as in a run
DEFAULT_WORKERS = 4


@dataclass(frozen=True)
class JudgePair:
    """One answer to judge against its reference."""

    key: str
    question: str
    reference: str
    answer: str


@dataclass(frozen=True)
class PairJudgement:
    """What the panel decided about one pair, and what it cost."""

    key: str
    decision: Optional[bool]
    """True equivalent, False not, None when the panel could not judge or failed."""
    failed: bool
    """No usable judge verdict (transport errors, unparseable replies, too few valid judges)."""
    labels: Dict[str, str] = field(default_factory=dict)
    """``judge_id#repeat`` -> the label that observation gave."""
    usage: Dict[str, float] = field(default_factory=dict)
    """``judge_calls``, ``judge_failed_calls``, ``judge_prompt_tokens``, ``judge_completion_tokens``."""
    error: str = ''


def judge_config(model: str, api_url: Optional[str], api_key: Optional[str] = None,
                 generation_config: Optional[Mapping[str, Any]] = None, **panel: Any) -> Dict[str, Any]:
    """The EvalScope ``judge`` config of one judge model (``panel`` adds repeats, aggregation, ...)."""
    entry: Dict[str, Any] = {'model_id': model, 'api_url': api_url, 'api_key': api_key or 'EMPTY'}
    if generation_config:
        entry['generation_config'] = dict(generation_config)
    return {'strategy': 'llm', 'models': [entry], **panel}


def build_panel(config: Mapping[str, Any]) -> JudgeExecutor:
    """EvalScope's executor over the ``LLMJudge`` models of a ``judge`` config, as a run builds them."""
    parsed = config if isinstance(config, JudgeConfig) else JudgeConfig.model_validate(dict(config))
    if not parsed.models:
        raise ValueError('the judge config names no models')
    contract = parsed.contract.model_dump(exclude_none=True)
    judges = []
    for spec in parsed.models:
        judge = compat.llm_judge(**{**spec.model_dump(exclude={'judge_id'}, exclude_none=True), **contract})
        judge.judge_id = spec.judge_id
        judges.append(judge)
    return JudgeExecutor(judges, JudgeExecutorConfig(repeats=parsed.repeats, aggregation=parsed.aggregation,
                                                     min_valid_judges=parsed.min_valid_judges))


def _decision(value: Mapping[str, float]) -> Optional[bool]:
    """The panel's decision from its aggregated values; a tie or a majority of cannot_judge is no decision."""
    if value.get(CANNOT_JUDGE, 0.0) >= 0.5 or STRICT not in value:
        return None
    strict = value[STRICT]
    return True if strict > 0.5 else False if strict < 0.5 else None


def judge_pair(panel: JudgeExecutor, pair: JudgePair) -> PairJudgement:
    """One pair through the adapters' judge definition and EvalScope's executor."""
    rule = Score(value={STRICT: 0.0, LENIENT: 0.0}, main_score_name=STRICT, prediction=pair.answer)
    definition = rules_first_judge(rule, question=pair.question, pending={'answer': (pair.reference, pair.answer)})
    state = TaskState(model='judge-panel', sample=Sample(input=pair.question, target=pair.reference), completed=True)
    context = JudgeContext(task_state=state, original_prediction=pair.answer, filtered_prediction=pair.answer,
                           reference=pair.reference)
    review = panel.execute(definition, context)
    labels = {f'{obs.judge_id}#{obs.repeat_id}': str(getattr(verdict.value, 'verdict', verdict.value))
              for obs in review.observations for verdict in obs.case_verdicts}
    # a failed call reaches reduce as the rule fallback: no accuracy, judge_failed > 0 (see rules_first.py)
    no_reply = STRICT not in (review.value or {}) and (review.value or {}).get(JUDGE_FAILED, 0.0) > 0
    usable = review.status.is_usable and bool(review.value) and not no_reply
    errors = '; '.join(a.error for a in review.attempts if a.error)
    return PairJudgement(key=pair.key, decision=_decision(review.value) if usable else None, failed=not usable,
                         labels=labels, usage=judge_usage(review.attempts), error=review.error or errors)


def judge_pairs(panel: JudgeExecutor, pairs: Sequence[JudgePair], workers: int = DEFAULT_WORKERS,
                progress: bool = True, deadline: Optional[float] = None) -> List[PairJudgement]:
    """Judge every pair (``workers`` at a time), in input order, with a progress bar on stderr.

    ``deadline`` (seconds) bounds the whole run: pairs not judged by then are failed calls
    (``overall deadline``), so a hanging judge costs at most that long, not a request timeout per pair.
    Workers are daemon threads, so a call still hanging at the deadline does not hold the process.
    """
    bar = None
    if progress and pairs:
        from tqdm import tqdm
        bar = tqdm(total=len(pairs), unit='pair', desc='judge', file=sys.stderr, dynamic_ncols=True)
    results: List[Optional[PairJudgement]] = [None] * len(pairs)
    todo: 'queue.Queue[int]' = queue.Queue()
    for index in range(len(pairs)):
        todo.put(index)
    done = threading.Semaphore(0)
    lock = threading.Lock()

    def work() -> None:
        while True:
            try:
                index = todo.get_nowait()
            except queue.Empty:
                return
            try:
                result = judge_pair(panel, pairs[index])
            except Exception as exc:  # one pair's crash is that pair's failed call
                result = PairJudgement(key=pairs[index].key, decision=None, failed=True,
                                       error=f'{type(exc).__name__}: {exc}')
            with lock:
                results[index] = result
            if bar is not None:
                bar.update(1)
            done.release()

    threads = [threading.Thread(target=work, daemon=True, name=f'judge-pair-{k}')
               for k in range(min(max(1, workers), max(1, len(pairs))))]
    for thread in threads:
        thread.start()
    end = None if deadline is None else time.monotonic() + max(0.0, deadline)
    try:
        for _ in pairs:
            remaining = None if end is None else max(0.0, end - time.monotonic())
            if not done.acquire(timeout=remaining):
                break
    finally:
        if bar is not None:
            bar.close()
    with lock:
        return [result if result is not None else
                PairJudgement(key=pair.key, decision=None, failed=True,
                              error=f'overall deadline of {deadline:g}s reached before this pair was judged')
                for pair, result in zip(pairs, results)]


def total_usage(judgements: Sequence[PairJudgement]) -> Dict[str, int]:
    """Calls, failed calls and tokens summed over judgements."""
    keys = (JUDGE_CALLS, JUDGE_FAILED_CALLS, JUDGE_PROMPT_TOKENS, JUDGE_COMPLETION_TOKENS)
    return {key: int(sum(j.usage.get(key, 0) for j in judgements)) for key in keys}
