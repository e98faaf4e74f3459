"""The engine's bridge to EvalScope: metric semantics and Verdict -> Score.

The only module in ``scoring`` that imports EvalScope. Report metric names:
``eed`` (0-100), ``strict_acc`` and ``lenient_acc`` (0/1 per answer, over the answers the engine
could score), ``scored`` (1 when the engine could reach a verdict), and ``strict_acc_all`` /
``lenient_acc_all`` (over every answer: an unscored one counts as not correct). An answer the engine
could not score (timeout, worker crash, unreadable reference) drops out of ``strict_acc`` instead of
counting as a silent 0, the ``scored`` rate shows how many did, and the ``_all`` accuracies show what
the run is worth if every unscored answer were wrong.
An answer routed to an LLM judge whose call failed is represented the same way (``scored = 0``, no
accuracy), plus ``judge_failed = 1`` (:mod:`evalscope_phys.judge.rules_first`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterable, Optional

from evalscope.api.metric import Score
from evalscope.constants import ScoreStatus

from evalscope_phys.compat import metric_catalog

if TYPE_CHECKING:
    from evalscope_phys.scoring.verdict import Verdict

#: EvalScope's metric semantics table and its entry type (internal; see :mod:`evalscope_phys.compat`)
METRIC_DEFINITIONS, MetricEntry = metric_catalog()

EED = 'eed'
STRICT = 'strict_acc'
LENIENT = 'lenient_acc'
SCORED = 'scored'
STRICT_ALL = 'strict_acc_all'
LENIENT_ALL = 'lenient_acc_all'
SUBSTRING_STRICT = 'substring_strict'
ANSWER = 'answer_acc'
PARTIAL = 'partial'
SEED = 'seed'

#: report semantics of every metric name our adapters emit
METRIC_ENTRIES: Dict[str, MetricEntry] = {
    # points out of 100, not a percentage: no '%' in EvalScope's tables
    EED: MetricEntry(baseline='quality.score.points_100', metric_name='EED Score', display_unit=''),
    STRICT: MetricEntry(baseline='quality.accuracy.ratio', metric_name='Strict Accuracy'),
    LENIENT: MetricEntry(baseline='quality.accuracy.ratio', metric_name='Lenient Accuracy'),
    SCORED: MetricEntry(baseline='quality.coverage.ratio', metric_name='Scored'),
    STRICT_ALL: MetricEntry(baseline='quality.accuracy.ratio', metric_name='Strict Accuracy (all answers)'),
    LENIENT_ALL: MetricEntry(baseline='quality.accuracy.ratio', metric_name='Lenient Accuracy (all answers)'),
    SUBSTRING_STRICT: MetricEntry(baseline='quality.accuracy.ratio', metric_name='Substring Strict (Physics-R1)'),
    # multi-part problems (physics_yale): answer-level accuracy and the mean share of correct answers
    ANSWER: MetricEntry(baseline='quality.accuracy.ratio', metric_name='Answer-level Accuracy'),
    PARTIAL: MetricEntry(baseline='quality.score.ratio', metric_name='Partial Credit'),
    # CMPhysBench's SEED, points out of 100 like EED
    SEED: MetricEntry(baseline='quality.score.points_100', metric_name='SEED Score', display_unit=''),
    'judged': MetricEntry(baseline='quality.coverage.ratio', metric_name='Judged'),
    'cannot_judge': MetricEntry(baseline='quality.error_rate.ratio', metric_name='Cannot Judge'),
    'judge_failed': MetricEntry(baseline='quality.error_rate.ratio', metric_name='Judge Failed'),
    # how often a judge agreed with the rules on answers both decided (judge scopes rejected/all)
    'judge_rule_agreement': MetricEntry(baseline='diagnostic.parse_status.ratio', metric_name='Judge-Rule Agreement'),
    # judge cost per answer (mean); times the report's num it is the run's total
    'judge_calls': MetricEntry(baseline='diagnostic.count.items', metric_name='Judge Calls', display_precision=3),
    'judge_failed_calls': MetricEntry(baseline='diagnostic.count.items', metric_name='Judge Failed Calls',
                                      display_precision=3),
    'judge_prompt_tokens': MetricEntry(baseline='diagnostic.count.items', metric_name='Judge Prompt Tokens',
                                       display_precision=1),
    'judge_completion_tokens': MetricEntry(baseline='diagnostic.count.items', metric_name='Judge Completion Tokens',
                                           display_precision=1),
    'all_correct': MetricEntry(baseline='quality.accuracy.ratio', metric_name='All Correct'),
    'process_obj': MetricEntry(baseline='quality.score.ratio', metric_name='Process (objective, S2)'),
    'process_open': MetricEntry(baseline='quality.score.ratio', metric_name='Process (open, S3)'),
    'mastery_obj': MetricEntry(baseline='quality.accuracy.ratio', metric_name='Strict Mastery (objective, P_obj)'),
    'mastery_open': MetricEntry(baseline='quality.accuracy.ratio', metric_name='Strict Mastery (open, P_open)'),
}


def register_metric_semantics(entries: Optional[Dict[str, MetricEntry]] = None) -> None:
    """Declare our metric names to EvalScope's report layer; resolving here fails at import, not after a run."""
    for name, entry in (entries or METRIC_ENTRIES).items():
        entry.resolve(name)
        existing = METRIC_DEFINITIONS.get(name)
        if existing is not None and existing != entry:
            continue  # never redefine a built-in name's meaning
        METRIC_DEFINITIONS[name] = entry


def verdict_score(
    verdict: 'Verdict',
    prediction: str,
    metrics: Iterable[str] = (EED, STRICT, LENIENT),
    main: str = STRICT,
) -> Score:
    """Turn one engine verdict into a per-sample EvalScope Score."""
    score = Score(prediction=prediction, extracted_prediction=verdict.extracted or '')
    score.main_score_name = main
    score.explanation = verdict.reason
    score.metadata = {'verdict': verdict.to_dict()}
    if not verdict.scored:
        score.value = {SCORED: 0.0, STRICT_ALL: 0.0, LENIENT_ALL: 0.0}
        score.status = ScoreStatus.DEGRADED
        return score
    values = {EED: verdict.eed, STRICT: verdict.strict, LENIENT: verdict.lenient}
    score.value = {name: float(values[name]) for name in metrics if values.get(name) is not None}
    score.value[SCORED] = 1.0
    score.value[STRICT_ALL] = float(bool(verdict.strict))
    score.value[LENIENT_ALL] = float(bool(verdict.lenient))
    return score
