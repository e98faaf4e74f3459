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
  and the engine still found them "different": it may have read letters as symbols, so the judge
  decides.

**Scopes** (:data:`JUDGE_SCOPES`): ``undecided`` (default) routes only the above; ``rejected`` also
routes the rules' rejections (``judge_reason`` ``rule_rejected``), for users who fear false
negatives more than they value cost; ``all`` routes everything (``rule_accepted`` too), to compare a
judge with the rules. ``judge_reason`` is set for answers that are not routed too (``rule_accepted``,
``rule_rejected``, ``no_answer``), so every verdict says why it was or was not judged.

This module knows nothing of EvalScope; it reads a :class:`~evalscope_phys.scoring.verdict.Verdict`
or its ``to_dict()`` form.
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Optional, Tuple, Union

from evalscope_phys.llm.untrusted import addresses_grader

from .scan import command_end, matching_brace
from .units import parse_unit
from .verdict import UNDECIDED_REASONS, UNSCORED_REASONS, Verdict
from .words import CJK_RE

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
#: words that are mathematics, not prose, when they appear outside a LaTeX command
MATH_WORDS = frozenset({'sin', 'cos', 'tan', 'cot', 'sec', 'csc', 'arcsin', 'arccos', 'arctan', 'sinh', 'cosh',
                        'tanh', 'exp', 'log', 'sqrt', 'max', 'min', 'det', 'const'})
#: one-word text answers too short for the length rule in :func:`is_text_answer`
ANSWER_WORDS = frozenset({'yes', 'no', 'true', 'false', 'none', 'zero'})
_ENVIRONMENT_COMMANDS = frozenset({'\\begin', '\\end'})
#: letters (any script), no digits or underscore
_WORD_RE = re.compile(r'[^\W\d_]+')

VerdictLike = Union[Verdict, Mapping[str, Any]]


def _without_names(text: str) -> str:
    """``text`` with LaTeX commands, sub/superscripts and environment names blanked out.

    Why: ``E_{\\text{th}}``, ``H_{\\mathrm{vap}}`` and ``\\begin{aligned}`` name things; their letters are
    labels, not prose. One pass; an unclosed brace ends the text.
    """
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in '_^':
            j = i + 1
            while j < n and text[j] == ' ':
                j += 1
            if j < n and text[j] == '{':
                close = matching_brace(text, j)
                i = close + 1 if close >= 0 else n
            elif j < n and text[j] == '\\':
                i = command_end(text, j)
            else:
                i = j + 1
            out.append(' ')
        elif c == '\\':
            end = command_end(text, i)
            if text[i:end] in _ENVIRONMENT_COMMANDS and end < n and text[end] == '{':
                close = matching_brace(text, end)
                end = close + 1 if close >= 0 else n
            out.append(' ')
            i = end
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def is_text_answer(text: str) -> bool:
    """True when ``text`` is words rather than a number/expression (units, names and function names aside).

    Two or more prose words, one word of four letters or more, or a yes/no/true/false word make
    text; ``46.3 \\mathrm{kN}``, ``9.8 meters``, ``\\frac{mgL}{2}``, ``H_{\\text{vap}} = 541`` and
    ``\\frac{2IkT}{\\hbar^2}`` (a product of symbols: a capital inside a letter run) do not.
    """
    stripped = _without_names(text or '')
    if CJK_RE.search(stripped):  # Chinese/Japanese: prose (``逆时针``), never an expression
        return True
    words = [w for w in _WORD_RE.findall(stripped)
             if (len(w) >= 3 or w.lower() in ANSWER_WORDS) and not any(ch.isupper() for ch in w[1:])]
    prose = [w for w in words if w.lower() not in MATH_WORDS and parse_unit(w) is None]
    if any(w.lower() in ANSWER_WORDS for w in prose):
        return True
    return len(prose) >= 2 or any(len(w) >= 4 for w in prose)


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
    if reason in TEXT_SENSITIVE_REASONS and (is_text_answer(reference) or is_text_answer(str(get('extracted') or ''))):
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
    from .extract import extract_answer
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
