"""Rules decide first; an LLM judge only sees the answers the rules cannot decide.

Why: a judge call costs money and adds noise, and our engine already decides most physics
answers exactly (units, tolerance, symbolic equivalence). Upstream judge modes send every answer
that is not an exact string match to the judge; here only the undecidable rest goes.

**What "the rules cannot decide" means** (:func:`undecided_reason`). The rules decide an answer when
the engine found it correct (strict or lenient), or read both sides and found them different
(``not_equivalent``, ``dimension_mismatch``, ``count_mismatch``), or found no answer at all
(``no_answer``: there is nothing to judge). They cannot decide when

- ``unscored``: the engine gave no verdict (timeout, crashed worker, input over the size limits,
  an unreadable reference; see :data:`evalscope_phys.scoring.verdict.UNSCORED_REASONS`);
- ``unparseable_answer``: the answer is not a number or expression the engine can read;
- ``undecided``: the engine read both sides but cannot represent what one of them means (a
  derivative, a cross product, an unknown unit, words; reasons ``undecided``/``unknown_unit``);
- ``text_answer``: the reference or the answer is words, not a number/expression ("counterclockwise",
  "the ball moves left"): the engine may still read letters as symbols, so its "different" is not
  trusted and the judge decides.

**Metrics** (only when a judge is configured): ``judged`` is 1 for an answer sent to the judge and 0
for a rule-decided one, so its mean is the share judged; ``cannot_judge`` is the share of a sample's
judged answers for which the judge replied ``cannot_judge`` (0 for rule-decided samples), so its mean
is the share of all answers the judge could not judge. A judged answer gets the judge's decision as
``strict_acc`` and ``lenient_acc``; a ``cannot_judge`` answer keeps its rule score (not correct by
rule) and is counted in ``cannot_judge``. ``eed`` stays the engine's.

**A failed judge call is never a silent rule score.** When the call for an answer fails (dead
endpoint, HTTP error, a reply that is not JSON or holds no valid verdict), the answer is counted in
``judged`` (it was routed to the judge) and in ``judge_failed`` (the share of the sample's judged
answers whose call failed, so its mean is the share of all answers), and it is *not scored*: it
keeps no ``strict_acc``/``lenient_acc`` (they drop out of the accuracy means, as an engine timeout
does) and ``scored`` is 0 for it, the same representation as an answer the engine could not score
(:mod:`evalscope_phys.scoring.metrics`). Its rule verdict is not used: the rules had already said
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
from evalscope.api.judge.contracts import OutputContract
from evalscope.api.messages import ChatMessageUser
from evalscope.api.metric import Score
from evalscope.constants import JudgeStrategy, ScoreStatus, ScoringPolicy
from pydantic import BaseModel

from evalscope_phys import compat
from evalscope_phys.scoring.metrics import LENIENT, SCORED, STRICT
from evalscope_phys.scoring.units import parse_unit
from evalscope_phys.scoring.verdict import UNDECIDED_REASONS, UNSCORED_REASONS, Verdict

JUDGED = 'judged'
CANNOT_JUDGE = 'cannot_judge'
JUDGE_FAILED = 'judge_failed'
#: the decision of a case whose judge call failed (see the module docstring)
FAILED = 'failed'
JUDGE_PROMPT_FILE = Path(__file__).with_name('judge_prompt.txt')
#: the judge sees at most this much of an answer (its end, where the result is)
MAX_JUDGED_ANSWER_CHARS = 4000
#: engine reasons meaning "both sides were read and differ": the rules decided "wrong"
DECIDED_WRONG_REASONS = frozenset({'not_equivalent', 'dimension_mismatch', 'count_mismatch', 'no_answer', 'hedged',
                                   'undefined_value', 'answer_too_large'})
#: words that are mathematics, not prose, when they appear outside a LaTeX command
MATH_WORDS = frozenset({'sin', 'cos', 'tan', 'cot', 'sec', 'csc', 'arcsin', 'arccos', 'arctan', 'sinh', 'cosh',
                        'tanh', 'exp', 'log', 'sqrt', 'max', 'min', 'det', 'const'})
#: one-word text answers too short for the length rule in :func:`is_text_answer`
ANSWER_WORDS = frozenset({'yes', 'no', 'true', 'false', 'none', 'zero'})
_COMMAND_RE = re.compile(r'\\[A-Za-z]+')
_WORD_RE = re.compile(r'[A-Za-z]+')
#: Chinese/Japanese characters: an answer written in them is prose (``逆时针``), never an expression
_CJK_RE = re.compile(r'[\u3040-\u30ff\u4e00-\u9fff]')

Decision = Union[bool, None, str]
"""The judge's decision on one answer: True equivalent, False not, None cannot judge, FAILED no reply."""
Pending = Mapping[str, Tuple[str, str]]
"""Answers the rules could not decide: case key -> (reference, answer)."""
Resolver = Callable[[Score, Dict[str, Decision]], Dict[str, float]]
"""(rule score, judge decisions by case key) -> final metric values."""


class EquivalenceVerdict(BaseModel):
    """The judge's reply for one answer."""

    reasoning: str = ''
    verdict: Literal['equivalent', 'not_equivalent', 'cannot_judge']


EQUIVALENCE_CONTRACT = OutputContract(schema_model=EquivalenceVerdict)


def is_text_answer(text: str) -> bool:
    """True when ``text`` is words rather than a number/expression (units and function names aside).

    Two or more prose words, one word of four letters or more, or a yes/no/true/false word make
    text; ``46.3 \\mathrm{kN}``, ``9.8 meters`` and ``\\frac{mgL}{2}`` do not.
    """
    stripped = _COMMAND_RE.sub(' ', text or '')
    if _CJK_RE.search(stripped):
        return True
    words = [w for w in _WORD_RE.findall(stripped)
             if len(w) >= 3 or w.lower() in ANSWER_WORDS]
    prose = [w for w in words if w.lower() not in MATH_WORDS and parse_unit(w) is None]
    if any(w.lower() in ANSWER_WORDS for w in prose):
        return True
    return len(prose) >= 2 or any(len(w) >= 4 for w in prose)


def undecided_reason(verdict: Union[Verdict, Mapping[str, Any]], reference: str) -> Optional[str]:
    """Why the rules cannot decide this answer (see the module docstring), or None when they did."""
    get = verdict.get if isinstance(verdict, Mapping) else lambda key: getattr(verdict, key, None)
    reason = str(get('reason') or '')
    if reason in UNSCORED_REASONS:
        return 'unscored'
    if get('strict') or get('lenient') or reason == 'no_answer':
        return None
    if reason == 'unparseable_answer':
        return 'unparseable_answer'
    if reason in UNDECIDED_REASONS:
        return 'undecided'  # the engine could not represent what one side means
    if is_text_answer(reference) or is_text_answer(str(get('extracted') or '')):
        return 'text_answer'
    if reason in DECIDED_WRONG_REASONS:
        return None
    return f'unknown_reason:{reason}'  # a reason this module does not know: let the judge look


@lru_cache(maxsize=1)
def _prompt_template() -> str:
    return JUDGE_PROMPT_FILE.read_text(encoding='utf-8')


def judge_prompt(question: str, reference: str, answer: str) -> str:
    """The judge prompt for one answer; placeholders are filled once, so braces in answers are safe."""
    values = {'question': question.strip(), 'reference': reference.strip(),
              'answer': (answer or '').strip()[-MAX_JUDGED_ANSWER_CHARS:] or '(no answer)'}
    return re.sub(r'\{(question|reference|answer)\}', lambda m: values[m.group(1)], _prompt_template())


def resolve_single(rule_score: Score, decisions: Dict[str, Decision]) -> Dict[str, float]:
    """One answer per sample: the judge's decision becomes strict and lenient accuracy.

    A failed call leaves the answer unscored: no accuracy values, ``scored`` 0.
    """
    out = dict(rule_score.value)
    for decision in decisions.values():
        if decision == FAILED:
            out.pop(STRICT, None)
            out.pop(LENIENT, None)
            out[SCORED] = 0.0
        elif decision is not None:
            out[STRICT] = out[LENIENT] = float(decision)
    return out


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


def rules_first_judge(rule_score: Score, *, question: str, pending: Pending,
                      resolve: Resolver = resolve_single) -> JudgeDefinition:
    """Skip the judge when nothing is pending; otherwise one equivalence case per pending answer."""
    if not pending:
        decided = rule_score.model_copy(deep=True)
        decided.value = {**decided.value, JUDGED: 0.0, CANNOT_JUDGE: 0.0, JUDGE_FAILED: 0.0}
        return JudgeDefinition.skip(decided, reason='rule_decided')

    cases = [JudgeCase(case_id=key, output_contract=EQUIVALENCE_CONTRACT, metadata={'reference': ref, 'answer': ans})
             for key, (ref, ans) in pending.items()]

    def request(case, placement, completed, context) -> JudgeRequest:
        prompt = judge_prompt(question, case.metadata['reference'], case.metadata['answer'])
        return JudgeRequest(messages=[ChatMessageUser(content=prompt + case.output_contract.instruction())])

    def reduce(verdicts, context) -> ReducedVerdict:
        labels = {v.case_id: FAILED if is_failed(v) else v.value.verdict for v in verdicts}
        decisions = {key: FAILED if label == FAILED else {'equivalent': True, 'not_equivalent': False}.get(label)
                     for key, label in labels.items()}
        value = resolve(rule_score, decisions)
        value[JUDGED] = 1.0
        value[CANNOT_JUDGE] = sum(d is None for d in decisions.values()) / len(decisions)
        value[JUDGE_FAILED] = sum(d == FAILED for d in decisions.values()) / len(decisions)
        return ReducedVerdict(value=value, metadata={'judge_labels': labels})

    def finalize(score: Score, review, context) -> Score:
        score.main_score_name = rule_score.main_score_name
        failed = failed_calls(review)
        score.explanation = f'{rule_score.explanation or ""}; judged: {sorted(pending)}'
        if failed:
            score.explanation += f'; judge call failed: {sorted(failed)} (unscored)'
        score.metadata = {**(rule_score.metadata or {}), **(score.metadata or {}),
                          'judge_pending': {key: ref_ans[0] for key, ref_ans in pending.items()}}
        if failed:
            score.metadata[JUDGE_FAILED] = failed
        return score

    return JudgeDefinition(cases=cases, request=request, reduce=reduce, finalize=finalize,
                           fallback=judge_call_failed, main_score_name=rule_score.main_score_name)


class RulesFirstJudgeMixin:
    """Adapter mixin: rule score first, the judge for what :func:`undecided_reason` flags."""

    scoring_policy = ScoringPolicy.RULE_DEFAULT

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
        verdict = (rule_score.metadata or {}).get('verdict') or {}
        if undecided_reason(verdict, context.reference) is None:
            return {}
        answer = verdict.get('extracted') or context.filtered_prediction or context.original_prediction
        return {'answer': (context.reference, answer)}

    def judge_resolve(self, rule_score: Score, decisions: Dict[str, Decision]) -> Dict[str, float]:
        """Final metric values from the rule score and the judge's decisions (default: one answer)."""
        return resolve_single(rule_score, decisions)

    def judge_definition(self, context) -> JudgeDefinition:
        rule_score = self.match_score(context.original_prediction, context.filtered_prediction,
                                      context.reference, context.task_state)
        return rules_first_judge(rule_score, question=context.task_state.input_text,
                                 pending=self.judge_pending(rule_score, context), resolve=self.judge_resolve)
