"""Upstream ``phyx_oe`` scored by our numeric, unit-aware rules: the runtime fix for an unpatched EvalScope.

Why: EvalScope 1.14.1's ``phyx_oe`` refuses to run without ``judge.models`` (a ``ValueError`` after the
model is set up), and its rule mode accepts any reply that merely *contains* the ground truth
(``12 A`` for ``2 A``, ``14.9 m/s^2`` for ``4.9 m/s^2``). With evalscope-phys installed,
:func:`fix_phyx_oe` (called by the import hook) registers :func:`fixed_adapter_class` for ``phyx_oe`` in memory:

- without judge models the engine decides every answer (``acc`` = equal within relative 1e-2 after
  unit conversion, as PhyX's ground truths are rounded), and one log line says a judge can be added;
- with judge models (``--judge '{"models": [...]}'``), rules first and the judge only for the answers
  they cannot decide (text answers such as "counterclockwise", unreadable expressions, timeouts);
- ``judge.strategy: rule`` never judges.

Everything else is upstream's: data, subsets, splits, the official prompt and the metric name ``acc``
(plus ``scored``, and ``judged``/``cannot_judge`` with a judge). ``local_path`` accepts both PhyX layouts
(:mod:`evalscope_phys.benchmarks.phyx_loading`). ``evalscope-phys patches apply`` installs the
upstream-ready fix instead (``patches/0002``), and this one then steps aside.
"""
from __future__ import annotations

import warnings
from types import ModuleType
from typing import Dict

from evalscope.api.evaluator import TaskState
from evalscope.api.metric import Score
from evalscope.constants import JudgeStrategy
from evalscope.utils import get_logger

from evalscope_phys.judge.rules_first import Decision, RulesFirstJudgeMixin
from evalscope_phys import compat
from evalscope_phys.benchmarks.phyx_loading import PhyXLocalLoading
from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.metrics import LENIENT, SCORED, verdict_score

logger = get_logger()

#: upstream phyx_oe's metric name, kept so reports compare with upstream's
ACC = 'acc'
NO_JUDGE_NOTICE = ("phyx_oe: no judge configured, so every answer is scored by evalscope-phys's numeric, "
                   "unit-aware rules; add --judge '{\"models\": [{\"model_id\": ..., \"api_url\": ..., "
                   "\"api_key\": ...}]}' to have a judge decide the answers the rules cannot (text answers).")


class RuleScoredPhyXOE(RulesFirstJudgeMixin, PhyXLocalLoading):
    """Placed before upstream's ``PhyXOEAdapter``: our loading, our rules, the judge only for the rest."""

    evalscope_phys_fix = True

    def validate_judge_strategy(self) -> None:
        super().validate_judge_strategy()
        if self.judge_strategy == JudgeStrategy.AUTO and not self.use_llm_judge:
            logger.warning(NO_JUDGE_NOTICE)

    def match_score(self, original_prediction: str, filtered_prediction: str, reference: str,
                    task_state: TaskState) -> Score:
        verdict = score_answer(reference.strip(), original_prediction, eed=False)
        score = verdict_score(verdict, original_prediction, metrics=(LENIENT, ), main=LENIENT)
        if LENIENT in score.value:
            score.value = {ACC: score.value[LENIENT], SCORED: score.value[SCORED]}
        score.main_score_name = ACC
        return score

    def judge_resolve(self, rule_score: Score, decisions: Dict[str, Decision]) -> Dict[str, float]:
        out = dict(rule_score.value)
        for decision in decisions.values():
            if decision is not None:
                out[ACC] = float(decision)
        return out


def fixed_adapter_class(upstream: type) -> type:
    """A subclass of upstream's ``PhyXOEAdapter`` with :class:`RuleScoredPhyXOE` first in its MRO.

    It keeps upstream's ``__module__``: EvalScope's ``benchmark-info --update-index`` records
    ``data_adapter.__module__`` as the module that registers ``phyx_oe``, and that must stay upstream's.
    """
    return type(upstream.__name__, (RuleScoredPhyXOE, upstream), {
        '__module__': upstream.__module__, '__qualname__': upstream.__qualname__,
        '__doc__': __doc__.splitlines()[0]})


FIXED_PHYX_NOTE = """
## evalscope-phys

With evalscope-phys installed, `phyx_oe` is scored by its numeric, unit-aware rules (`46300 N` is right for
`46.3 kN`, `15 m` is wrong for `5 m`): without `judge.models` the rules decide every answer (a notice says a
judge can be added); with judge models, rules first and the judge only for what they cannot decide (text
answers). `local_path` may hold `test/PhyX_test.jsonl` or `PhyX_test.jsonl` next to `test_image/`.
"""


def fix_phyx_oe(adapter_module: ModuleType) -> bool:
    """Called by the import hook right after ``phyx_adapter`` runs: rule-score upstream ``phyx_oe``.

    Replaces the adapter class of the registered ``phyx_oe`` entry with :func:`fixed_adapter_class`
    (upstream's own class is left untouched) and declares its metrics. Returns True when the fix is in place.
    """
    reason = compat.phyx_oe_fix_wanted()
    if reason is not None:
        if not compat.version_supported() and compat.NO_PHYX_FIX_ENV not in reason:
            warnings.warn(f'evalscope-phys: phyx_oe is scored as EvalScope does ({reason}); '
                          f'use phyx_oe_rules for units-aware rules.', stacklevel=2)
        return False
    meta = compat.replace_registered_adapter('phyx_oe', adapter_module, 'PhyXOEAdapter', fixed_adapter_class)
    if meta.metric_list != FIXED_METRICS:
        meta.metric_list = list(FIXED_METRICS)
        meta.primary_metric = ACC
        meta.description = (meta.description or '') + FIXED_PHYX_NOTE
    return True


#: the fixed adapter's metrics: upstream's ``acc``, then coverage (and judge use when a judge is set)
FIXED_METRICS = [ACC, SCORED, 'judged', 'cannot_judge']
