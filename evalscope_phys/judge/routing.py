"""Which answers go to an LLM judge: one decision, used by the adapters, their judge path and ``evalscope-phys score``.

Why one function: the claim "rules first, a judge only where the rules cannot decide" is only
checkable if every place that routes answers makes the same decision and says why
(``needs_judge``, ``judge_reason`` in score output lines and in every review's verdict metadata).

**What the rules cannot decide** (:func:`undecided_reason`). The rules decide an answer when the
engine found it correct (strict or lenient), found no answer at all (nothing to judge), or read both
sides and found them different (``not_equivalent``, ``dimension_mismatch``, ``hedged``,
``undefined_value``, ``answer_too_large``, and ``count_mismatch`` when the reference has several parts
and the answer gives another number of them). They cannot decide when

- ``unscored``: the engine gave no verdict (timeout, crashed worker, input over the size limits, an
  unreadable reference; :data:`~evalscope_phys.scoring.verdict.UNSCORED_REASONS`);
- ``unparseable_answer``: the answer is not a number or expression the engine can read;
- ``undecided`` / ``unknown_unit``: the engine read both sides but cannot represent what one of
  them means (a derivative, words, a unit it does not know);
- ``multi_part_answer``: the answer gives several results for a reference that has one
  (``count_mismatch`` with no reference parts), and none of them is named like the reference's
  quantity: the rules cannot tell which result answers the question;
- ``text_answer``: the reference or the answer is words ("counterclockwise", "the ball moves left")
  (:func:`~evalscope_phys.scoring.read.words.is_prose`, the extractor's one text detector) and the engine
  still found them "different": words differ in ways rules cannot weigh (synonyms, paraphrases), so
  the judge decides.

**Scopes** (:data:`JUDGE_SCOPES`): ``undecided`` (default) routes only the above; ``rejected`` also
routes the rules' rejections (``judge_reason`` ``rule_rejected``), for users who fear false
negatives more than they value cost; ``all`` routes everything (``rule_accepted`` too), to compare a
judge with the rules. ``judge_reason`` is set for answers that are not routed too (``rule_accepted``,
``rule_rejected``, ``no_answer``), so every verdict says why it was or was not judged.

This module knows nothing of EvalScope; it reads a :class:`~evalscope_phys.scoring.verdict.Verdict`
or its ``to_dict()`` form.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional, Tuple, Union

from evalscope_phys.llm.untrusted import addresses_grader
from evalscope_phys.scoring.verdict import UNDECIDED_REASONS, UNSCORED_REASONS, Verdict
from evalscope_phys.scoring.read.words import is_prose

JUDGE_SCOPES = ('undecided', 'rejected', 'all')
"""What is sent to a judge: what the rules cannot decide; that and their rejections; everything."""
DEFAULT_SCOPE = 'undecided'

RULE_ACCEPTED = 'rule_accepted'
RULE_REJECTED = 'rule_rejected'
NO_ANSWER = 'no_answer'
#: the reason of an answer that instructs its grader: refused by rule, never judged (:func:`refuse_grader_address`)
ADDRESSES_GRADER = 'addresses_grader'
#: engine reasons meaning "both sides were read and differ": the rules decided "wrong"
DECIDED_WRONG_REASONS = frozenset({'not_equivalent', 'dimension_mismatch', 'count_mismatch', 'hedged',
                                   'undefined_value', 'answer_too_large'})
#: decided-wrong reasons a judge should still see when one side is words (the "difference" may be spelling)
TEXT_SENSITIVE_REASONS = frozenset({'not_equivalent', 'dimension_mismatch', 'count_mismatch'})
VerdictLike = Union[Verdict, Mapping[str, Any]]


def _getter(verdict: VerdictLike):
    return verdict.get if isinstance(verdict, Mapping) else lambda key: getattr(verdict, key, None)


def undecided_reason(verdict: VerdictLike, reference: str) -> Optional[str]:
    """Why the rules cannot decide this answer (see the module docstring), or None when they did."""
    get = _getter(verdict)
    reason = str(get('reason') or '')
    if reason in UNSCORED_REASONS:
        return 'unscored'
    if get('strict') or get('lenient') or reason == NO_ANSWER:
        return None
    if reason == 'unparseable_answer':
        return 'unparseable_answer'
    if reason in UNDECIDED_REASONS:
        return reason  # the engine could not represent what one side means
    if reason in TEXT_SENSITIVE_REASONS and (is_prose(reference) or is_prose(str(get('extracted') or ''))):
        return 'text_answer'
    if reason == 'count_mismatch' and not get('parts'):
        return 'multi_part_answer'  # several results for a one-part reference: which one answers it?
    if reason in DECIDED_WRONG_REASONS:
        return None
    return f'unknown_reason:{reason}'  # a reason this module does not know: let the judge look


def check_scope(scope: Optional[str]) -> str:
    """``scope`` if it is one of :data:`JUDGE_SCOPES` (None: the default); otherwise a ValueError saying the choices."""
    if scope is None:
        return DEFAULT_SCOPE
    if scope not in JUDGE_SCOPES:
        raise ValueError(f'judge scope {scope!r} is not one of {", ".join(JUDGE_SCOPES)}')
    return scope


def needs_judge(verdict: VerdictLike, reference: str, scope: str = DEFAULT_SCOPE,
                answer: Optional[str] = None) -> Tuple[bool, str]:
    """``(needs_judge, judge_reason)`` for one answer's verdict under ``scope``.

    ``judge_reason`` is the :func:`undecided_reason` of a routed answer, or ``rule_accepted`` /
    ``rule_rejected`` / ``no_answer`` (routed or not, depending on the scope). ``answer`` is the text a
    judge would see (:func:`judged_answer`): one that instructs its grader is kept from the judge
    (:func:`refuse_grader_address`).
    """
    scope = check_scope(scope)
    cannot = undecided_reason(verdict, reference)
    if cannot is not None:
        return refuse_grader_address(True, cannot, answer)
    get = _getter(verdict)
    if get('strict') or get('lenient'):
        return refuse_grader_address(scope == 'all', RULE_ACCEPTED, answer)
    if str(get('reason') or '') == NO_ANSWER:
        return scope == 'all', NO_ANSWER
    return refuse_grader_address(scope in ('rejected', 'all'), RULE_REJECTED, answer)


def refuse_grader_address(flag: bool, why: str, answer: Optional[str]) -> Tuple[bool, str]:
    """A routing decision, with an answer that instructs its grader kept from the judge: ``(False, addresses_grader)``.

    Why one home: the adapters' judge path and ``evalscope-phys score`` must refuse the same answers.
    The rules' verdict stands (an undecided answer stays not correct); it is never sent to be accepted.
    """
    if flag and addresses_grader(answer):
        return False, ADDRESSES_GRADER
    return flag, why


def judged_answer(verdict: VerdictLike, response: Optional[str]) -> str:
    """The text a judge sees for one answer: the engine's extracted answer, else the located one, never the prose.

    (An unscored answer -- a timeout, a size limit -- has no extracted text; its located answer is used.)
    """
    extracted = _getter(verdict)('extracted')
    if extracted is not None:
        return str(extracted)
    from evalscope_phys.scoring.read.extract import extract_answer
    return extract_answer(response or '').text


def rule_decision(judge_reason: str) -> Optional[bool]:
    """What the rules decided for an answer with this ``judge_reason``: True right, False wrong, None undecided.

    Why: under scopes ``rejected`` and ``all`` the judge also sees answers the rules decided, and a
    report shows how often the two agree.
    """
    if judge_reason == RULE_ACCEPTED:
        return True
    if judge_reason in (RULE_REJECTED, NO_ANSWER):
        return False
    return None
