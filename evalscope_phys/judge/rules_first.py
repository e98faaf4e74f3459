"""Rules decide first; an LLM judge only sees the answers the rules cannot decide.

Why: a judge call costs money and adds noise, and our engine already decides most physics
answers exactly (units, tolerance, symbolic equivalence). Upstream judge modes send every answer
that is not an exact string match to the judge; here only the undecidable rest goes.

**What goes to the judge** is decided by :func:`evalscope_phys.judge.routing.needs_judge` (the one
routing function, also behind ``evalscope-phys score``): by default (scope ``undecided``) only what
the rules cannot decide -- unscored answers, unreadable answers, the engine's ``undecided`` /
``unknown_unit``, several results for a one-part reference, and words. Scope ``rejected`` also sends
the rules' rejections, ``all`` everything; set it per benchmark with
``dataset_args.<name>.judge.scope`` (EvalScope's ``JudgeConfig`` forbids extra keys, so it lives
beside the benchmark's other arguments). Every review's ``Score.metadata`` carries ``needs_judge``
and ``judge_reason`` (and ``judge_routes`` per answer; single verdicts carry both fields too).

**Metrics** (only when a judge is configured): ``judged`` is 1 for an answer sent to the judge and 0
for a rule-decided one, so its mean is the share judged; ``cannot_judge`` is the share of a sample's
judged answers for which the judge replied ``cannot_judge`` (0 for rule-decided samples), so its mean
is the share of all answers the judge could not judge. A judged answer gets the judge's decision as
``strict_acc`` and ``lenient_acc``; a ``cannot_judge`` answer keeps its rule score (not correct by
rule) and is counted in ``cannot_judge``. ``eed`` and ``scored`` stay the engine's (a failed call aside,
below); a decision also sets ``strict_acc_all``/``lenient_acc_all``. ``judge_rule_agreement``
(scopes ``rejected``/``all``) is the share of judged answers the rules had decided on which the judge
agreed with them (failed calls left out). With a judge configured every sample also carries
``judge_calls``, ``judge_failed_calls``, ``judge_prompt_tokens`` and ``judge_completion_tokens``
(:mod:`evalscope_phys.judge.cost`).

**A failed judge call is never a silent rule score.** When the call for an answer fails (dead
endpoint, HTTP error, a reply that is not JSON, holds no valid verdict, or does not name the case asked:
:class:`CaseContract`), the answer is counted in
``judged`` (it was routed to the judge) and in ``judge_failed`` (the share of the sample's judged
answers whose call failed, so its mean is the share of all answers), and it is *not scored*:
``scored`` is 0 for it, and its ``strict_acc``/``lenient_acc`` are the ``_all`` view, in which it
counts as not correct (:func:`failed_calls_not_correct`): a dead judge never raises a primary metric.
(An answer the engine alone could not score still drops out of the accuracy means.) Its rule verdict is not used: the rules had already said
they could not decide it. The score's metadata ``judge_failed`` maps each failed case to the
failure (``transport_error: ...``, ``parse_error: ...``); the sample's status is ``degraded`` and the
report's ``judge_summary`` counts ``failures`` with ``valid_observations`` below
``total_observations``, which ``scripts/score_reports.sh`` refuses. How: every judge case declares a
rule *fallback* (EvalScope's ``JudgeDefinition.fallback``), which the executor uses for a case whose
call failed; our ``reduce`` sees that verdict's ``fallback`` status and records the failure.

**Use**: subclass :class:`RulesFirstJudgeMixin` before EvalScope's adapter class and keep the
engine's verdict in ``Score.metadata['verdict']`` (as :func:`~evalscope_phys.scoring.metrics.verdict_score`
does). A judge is used when ``--judge`` names models (strategy ``auto`` or ``llm``); ``rule`` never
judges. Adapters with several answers per sample override :meth:`RulesFirstJudgeMixin.judge_pending`
and :meth:`RulesFirstJudgeMixin.judge_resolve`. The prompt is ``judge_prompt.txt`` beside this file.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Tuple, Union

from evalscope.api.judge import CaseVerdict, JudgeCase, JudgeDefinition, JudgeRequest, ReducedVerdict
from evalscope.api.judge.contracts import OutputContract, ParseResult
from evalscope.api.messages import ChatMessageUser
from evalscope.api.metric import Score
from evalscope.constants import JudgeStrategy, ScoreStatus, ScoringPolicy
from pydantic import BaseModel, Field

from evalscope_phys import compat
from evalscope_phys.judge.cost import judge_usage
from evalscope_phys.llm.case_id import CASE_KEY, case_id, case_problem
from evalscope_phys.llm.untrusted import PREAMBLE, data_block
from evalscope_phys.scoring.metrics import LENIENT, LENIENT_ALL, SCORED, STRICT, STRICT_ALL
from evalscope_phys.judge.routing import (  # noqa: F401 (adapters import ADDRESSES_GRADER, undecided_reason here)
    ADDRESSES_GRADER, DEFAULT_SCOPE, check_scope, judged_answer, needs_judge, rule_decision, undecided_reason)

JUDGED = 'judged'
CANNOT_JUDGE = 'cannot_judge'
JUDGE_FAILED = 'judge_failed'
JUDGE_RULE_AGREEMENT = 'judge_rule_agreement'
#: the decision of a case whose judge call failed (see the module docstring)
FAILED = 'failed'
JUDGE_PROMPT_FILE = Path(__file__).with_name('judge_prompt.txt')
#: the judge sees at most this much of an answer (its end, where the result is); only the extracted answer goes
MAX_JUDGED_ANSWER_CHARS = 2000
#: and at most this much of the problem and of the reference
MAX_JUDGED_QUESTION_CHARS = 8000
MAX_JUDGED_REFERENCE_CHARS = 2000
Decision = Union[bool, None, str]
"""The judge's decision on one answer: True equivalent, False not, None cannot judge, FAILED no reply."""
Pending = Mapping[str, Tuple[str, str]]
"""Answers the rules could not decide: case key -> (reference, answer)."""
Resolver = Callable[[Score, Dict[str, Decision]], Dict[str, float]]
"""(rule score, judge decisions by case key) -> final metric values."""
Answers = Mapping[str, Tuple[Mapping[str, Any], str, str]]
"""Answers to route: case key -> (engine verdict as a dict, reference, answer text)."""


class EquivalenceVerdict(BaseModel):
    """The judge's reply for one answer."""

    case: str = Field('', description='the case id given above, copied exactly')
    reasoning: str = ''
    verdict: Literal['equivalent', 'not_equivalent', 'cannot_judge']


class CaseContract(OutputContract):
    """A judge case's contract: the reply must name this case (:mod:`evalscope_phys.llm.case_id`).

    A reply without the id, or with another case's id, is a failed call, never a verdict: a judge
    that answers the previous question would otherwise pass unnoticed. Works for any schema with a
    ``case`` field (the equivalence verdict, the OmniPhys process grade).
    """

    case_id: str

    def parse(self, response: str) -> ParseResult:
        result = super().parse(response)
        if result.ok:
            problem = case_problem(getattr(result.value, CASE_KEY, None), self.case_id)
            if problem is not None:
                return ParseResult.failure(problem)
        return result


def equivalence_contract(case: str) -> CaseContract:
    """The equivalence contract for the case whose id is ``case``."""
    return CaseContract(schema_model=EquivalenceVerdict, case_id=case)


def equivalence_case(question: str, reference: str, answer: str) -> str:
    """The id of one equivalence case (problem, reference, answer), echoed back by the judge."""
    return case_id(question, reference, answer)


@lru_cache(maxsize=1)
def _prompt_template() -> str:
    return JUDGE_PROMPT_FILE.read_text(encoding='utf-8')


def judge_prompt(question: str, reference: str, answer: str, case: Optional[str] = None) -> str:
    """The judge prompt for one answer: every field an untrusted data block (:mod:`evalscope_phys.llm.untrusted`).

    Placeholders are filled once, so braces in answers are safe.
    """
    values = {'preamble': PREAMBLE, 'case': case or equivalence_case(question, reference, answer),
              'question': data_block('problem', question, MAX_JUDGED_QUESTION_CHARS),
              'reference': data_block('reference', reference, MAX_JUDGED_REFERENCE_CHARS),
              'answer': data_block('candidate_answer', answer, MAX_JUDGED_ANSWER_CHARS, empty='(no answer)')}
    return re.sub(r'\{(preamble|case|question|reference|answer)\}', lambda m: values[m.group(1)], _prompt_template())


def resolve_single(rule_score: Score, decisions: Dict[str, Decision]) -> Dict[str, float]:
    """One answer per sample: the judge's decision becomes strict and lenient accuracy.

    A decision counts over all answers too (``strict_acc_all``/``lenient_acc_all``); ``scored`` stays
    the engine's. A failed call leaves the answer unscored: no accuracy values, ``scored`` 0, not
    correct over all answers.
    """
    out = dict(rule_score.value)
    for decision in decisions.values():
        if decision == FAILED:
            out.pop(STRICT, None)
            out.pop(LENIENT, None)
            out[SCORED] = out[STRICT_ALL] = out[LENIENT_ALL] = 0.0
        elif decision is not None:
            out[STRICT] = out[LENIENT] = out[STRICT_ALL] = out[LENIENT_ALL] = float(decision)
    return out


def failed_calls_not_correct(value: Dict[str, float]) -> Dict[str, float]:
    """While ``judge_failed > 0``, strict and lenient accuracy are their ``_all`` view: a failed call is not correct.

    Why: left out of the mean, a failed call raised the headline (OmniPhys ``lenient_acc`` 0.429 with a
    working judge, 0.750 with a dead one). ``scored`` stays 0 and ``judge_failed`` counts it, so the
    report shows the run is degraded; the engine's own unscored answers still drop out when no call failed.
    """
    if value.get(JUDGE_FAILED, 0.0) > 0:
        for metric, all_view in ((STRICT, STRICT_ALL), (LENIENT, LENIENT_ALL)):
            if all_view in value:
                value[metric] = value[all_view]
    return value


def judge_call_failed(case: JudgeCase, context: Any) -> CaseVerdict:
    """The fallback EvalScope's executor takes for a case whose judge call failed: a marker, no verdict."""
    return CaseVerdict(case_id=case.case_id, value=None, metadata={**case.metadata, JUDGE_FAILED: True})


def is_failed(verdict: CaseVerdict) -> bool:
    """True for the marker :func:`judge_call_failed` left (the executor gives it the ``fallback`` status)."""
    return verdict.status is ScoreStatus.FALLBACK or bool((verdict.metadata or {}).get(JUDGE_FAILED))


def failed_calls(review: Any) -> Dict[str, str]:
    """case id -> why its judge call failed, from the executor's attempts (empty when none failed)."""
    failed: Dict[str, List[str]] = {}
    for attempt in getattr(review, 'attempts', None) or []:
        if not attempt.status.is_usable:
            failed.setdefault(attempt.case_id, []).append(
                f'{attempt.status.value} ({attempt.judge_id}): {str(attempt.error or "")[:300]}')
    return {case: '; '.join(reasons) for case, reasons in failed.items()}
def record_routes(rule_score: Score, routes: Mapping[str, Tuple[bool, str]]) -> None:
    """Write the routing of a sample's answers (case key -> (needs_judge, judge_reason)) into its metadata.

    ``judge_routes`` keeps every answer's decision; ``needs_judge`` is true when any answer goes to the
    judge, and ``judge_reason`` is the one answer's reason or ``key=reason`` pairs for several.
    """
    metadata = rule_score.metadata = dict(rule_score.metadata or {})
    metadata['judge_routes'] = {key: {'needs_judge': flag, 'judge_reason': why} for key, (flag, why) in routes.items()}
    metadata['needs_judge'] = any(flag for flag, _ in routes.values())
    reasons = [why for _, why in routes.values()]
    metadata['judge_reason'] = reasons[0] if len(routes) == 1 else ', '.join(f'{k}={why}' for k, (_, why) in
                                                                            routes.items())


def route_answers(rule_score: Score, answers: Answers, scope: str = DEFAULT_SCOPE) -> Dict[str, Tuple[str, str]]:
    """Decide (:func:`~evalscope_phys.judge.routing.needs_judge`) and record which answers the judge sees.

    Each verdict dict gets ``needs_judge``/``judge_reason`` too; returns the pending answers.
    """
    routes, pending = {}, {}
    for key, (verdict, reference, answer) in answers.items():
        flag, why = needs_judge(verdict, reference, scope, answer)
        if isinstance(verdict, dict):
            verdict.update(needs_judge=flag, judge_reason=why)
        routes[key] = (flag, why)
        if flag:
            pending[key] = (reference, answer)
    record_routes(rule_score, routes)
    return pending


def _agreement(rule_score: Score, decisions: Dict[str, Decision]) -> Optional[float]:
    """Share of judged answers the rules had decided on which the judge agrees (None: no such answer).

    Failed calls and ``cannot_judge`` replies are no decision, so they are left out.
    """
    routes = (rule_score.metadata or {}).get('judge_routes') or {}
    pairs = [(rule_decision(routes.get(key, {}).get('judge_reason', '')), decision)
             for key, decision in decisions.items()]
    pairs = [(rule, judge) for rule, judge in pairs if rule is not None and judge in (True, False)]
    return sum(rule == judge for rule, judge in pairs) / len(pairs) if pairs else None


def rules_first_judge(rule_score: Score, *, question: str, pending: Pending,
                      resolve: Resolver = resolve_single) -> JudgeDefinition:
    """Skip the judge when nothing is pending; otherwise one equivalence case per pending answer."""
    if not pending:
        decided = rule_score.model_copy(deep=True)
        decided.value = {**decided.value, JUDGED: 0.0, CANNOT_JUDGE: 0.0, JUDGE_FAILED: 0.0}
        return JudgeDefinition.skip(decided, reason='rule_decided')

    cases = []
    for key, (ref, ans) in pending.items():
        tag = equivalence_case(question, ref, ans)
        cases.append(JudgeCase(case_id=key, output_contract=equivalence_contract(tag),
                               metadata={'reference': ref, 'answer': ans, 'case': tag}))

    def request(case, placement, completed, context) -> JudgeRequest:
        prompt = judge_prompt(question, case.metadata['reference'], case.metadata['answer'], case.metadata['case'])
        return JudgeRequest(messages=[ChatMessageUser(content=prompt + case.output_contract.instruction())])

    def reduce(verdicts, context) -> ReducedVerdict:
        labels = {v.case_id: FAILED if is_failed(v) else v.value.verdict for v in verdicts}
        decisions = {key: FAILED if label == FAILED else {'equivalent': True, 'not_equivalent': False}.get(label)
                     for key, label in labels.items()}
        value = resolve(rule_score, decisions)
        value[JUDGED] = 1.0
        value[CANNOT_JUDGE] = sum(d is None for d in decisions.values()) / len(decisions)
        value[JUDGE_FAILED] = sum(d == FAILED for d in decisions.values()) / len(decisions)
        failed_calls_not_correct(value)
        agreement = _agreement(rule_score, decisions)
        if agreement is not None:
            value[JUDGE_RULE_AGREEMENT] = agreement
        return ReducedVerdict(value=value, metadata={'judge_labels': labels})

    def finalize(score: Score, review, context) -> Score:
        score.main_score_name = rule_score.main_score_name
        failed = failed_calls(review)
        score.explanation = f'{rule_score.explanation or ""}; judged: {sorted(pending)}'
        if failed:
            score.explanation += (f'; judge call failed: {sorted(failed)} (unscored; counted as not correct in '
                                  'strict_acc/lenient_acc while judge_failed > 0)')
        score.metadata = {**(rule_score.metadata or {}), **(score.metadata or {}),
                          'judge_pending': {key: ref_ans[0] for key, ref_ans in pending.items()}}
        if failed:
            score.metadata[JUDGE_FAILED] = failed
        return score

    return JudgeDefinition(cases=cases, request=request, reduce=reduce, finalize=finalize,
                           fallback=judge_call_failed, main_score_name=rule_score.main_score_name)


class RulesFirstJudgeMixin:
    """Adapter mixin: rule score first, the judge for what ``judge.routing.needs_judge`` routes."""

    scoring_policy = ScoringPolicy.RULE_DEFAULT

    @property
    def judge_scope(self) -> str:
        """``dataset_args.<name>.judge.scope`` (``undecided`` by default); unknown keys or scopes raise."""
        args = (getattr(compat.task_config(self), 'dataset_args', None) or {}).get(self.name) or {}
        judge = args.get('judge') or {}
        if not isinstance(judge, Mapping) or set(judge) - {'scope'}:
            raise ValueError(f'dataset_args.{self.name}.judge may only set "scope" '
                             f'(undecided, rejected or all), got {judge!r}')
        return check_scope(judge.get('scope'))

    def validate_judge_strategy(self) -> None:
        """EvalScope's checks, plus the judge scope, before any model call."""
        super().validate_judge_strategy()
        if compat.task_config(self) is not None:
            self.judge_scope

    @property
    def use_llm_judge(self) -> bool:
        """``--judge`` with models turns the judge on under ``auto`` too; ``rule`` keeps it off."""
        strategy = self.judge_strategy
        if strategy == JudgeStrategy.RULE:
            return False
        if strategy in (JudgeStrategy.LLM, JudgeStrategy.LLM_RECALL):
            return True
        return bool(compat.judge_models(self))

    def judge_pending(self, rule_score: Score, context) -> Dict[str, Tuple[str, str]]:
        """The answers to judge: by default the one answer whose verdict is in ``rule_score.metadata``."""
        verdict = (rule_score.metadata or {}).get('verdict')
        if not isinstance(verdict, dict):
            record_routes(rule_score, {'answer': (False, 'no_verdict')})
            return {}
        answer = judged_answer(verdict, context.filtered_prediction or context.original_prediction)
        return route_answers(rule_score, {'answer': (verdict, context.reference, answer)}, self.judge_scope)

    def judge_resolve(self, rule_score: Score, decisions: Dict[str, Decision]) -> Dict[str, float]:
        """Final metric values from the rule score and the judge's decisions (default: one answer)."""
        return resolve_single(rule_score, decisions)

    def judge_definition(self, context) -> JudgeDefinition:
        rule_score = self.match_score(context.original_prediction, context.filtered_prediction,
                                      context.reference, context.task_state)
        return rules_first_judge(rule_score, question=context.task_state.input_text,
                                 pending=self.judge_pending(rule_score, context), resolve=self.judge_resolve)

    def calculate_metrics(self, task_state):
        """EvalScope's scoring, then what the judge cost and, when the judge never ran, the routing.

        Why here: the routing is recorded while the judge definition is built, but a run without a
        judge (or a judge that failed, whose rule score EvalScope recomputes) never builds one.
        """
        sample_score = super().calculate_metrics(task_state)
        score = sample_score.score
        if 'judge_routes' not in (score.metadata or {}):
            from evalscope.api.judge import JudgeContext
            prediction = task_state.output.completion if task_state.output is not None else ''
            context = JudgeContext(task_state=task_state, original_prediction=prediction,
                                   filtered_prediction=score.extracted_prediction or prediction,
                                   reference=task_state.target)
            self.judge_pending(score, context)
        if self.use_llm_judge:  # also for an excluded sample: a failed judge call costs too
            score.value = {**(score.value or {}), **judge_usage((score.metadata or {}).get('judge_attempts') or ())}
        return sample_score
