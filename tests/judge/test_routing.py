"""Which answers go to a judge, and why: one decision for adapters, the judge path and `evalscope-phys score`."""
import pytest

from evalscope_phys.scoring import score_answer
from evalscope_phys.judge.routing import (
    JUDGE_SCOPES,
    check_scope,
    needs_judge,
    rule_decision,
    undecided_reason,
)
from evalscope_phys.scoring.verdict import Verdict


def verdict(reason, strict=False, lenient=False, extracted='x', parts=0):
    part = Verdict(eed=None, strict=False, lenient=False, reason='not_equivalent', extracted='x', seconds=0.0)
    return Verdict(eed=0.0, strict=strict, lenient=lenient, reason=reason, extracted=extracted, seconds=0.0,
                   parts=(part,) * parts)


# (reason, strict, lenient, reference, extracted answer, reference parts, why the rules cannot decide or None)
UNDECIDED_CASES = [
    ('equivalent', True, True, '9.8', '9.8', 0, None),
    ('within_tolerance', False, True, '9.8', '9.85', 0, None),
    ('not_equivalent', False, False, '9.8', '12', 0, None),
    ('dimension_mismatch', False, False, '9.8 m/s', '9.8 kg', 0, None),
    ('hedged', False, False, '3', '3 \\text{ or } 4', 0, None),
    ('count_mismatch', False, False, '1, 2', '1', 2, None),  # a missing part: decided wrong
    ('count_mismatch', False, False, '1, 2', '1 ; 2 ; 3', 2, None),  # an extra part: decided wrong
    ('count_mismatch', False, False, '2', 'x = 2 ; y = 3', 0, 'multi_part_answer'),  # which one answers it?
    ('no_answer', False, False, 'counterclockwise', None, 0, None),
    ('timeout', None, None, '\\frac{a}{b}', 'x', 0, 'unscored'),
    ('unparseable_reference', None, None, '\\frac{', 'x', 0, 'unscored'),
    ('input_too_large', None, None, '1', 'x', 0, 'unscored'),
    ('unparseable_answer', False, False, '9.8', '\\frac{', 0, 'unparseable_answer'),
    ('undecided', False, False, '\\frac{dv}{dt}', 'a', 0, 'undecided'),
    ('unknown_unit', False, False, '3 \\text{ furlong}', '3 \\text{ smoot}', 0, 'unknown_unit'),
    ('not_equivalent', False, False, 'counterclockwise', 'anticlockwise', 0, 'text_answer'),
    ('not_equivalent', False, False, '2 m', 'the block stops after two metres', 0, 'text_answer'),
    ('count_mismatch', False, False, '2', 'v = 2 ; \\text{the block stops}', 0, 'text_answer'),
    ('not_equivalent', False, False, 'True', 'False', 0, 'text_answer'),
    ('equivalent', True, True, 'True', 'True', 0, None),
    ('some_new_reason', False, False, '1', '2', 0, 'unknown_reason:some_new_reason'),
]


@pytest.mark.parametrize('reason,strict,lenient,reference,answer,parts,expected', UNDECIDED_CASES)
def test_what_the_rules_cannot_decide(reason, strict, lenient, reference, answer, parts, expected):
    case = verdict(reason, strict, lenient, answer, parts)
    assert undecided_reason(case, reference) == expected
    assert undecided_reason(case.to_dict(), reference) == expected  # as stored in Score.metadata


# what is words and what is a formula: the one detector's table, tests/scoring/word_answers.json (test_words.py)


# (verdict, scope, needs_judge, judge_reason)
SCOPE_CASES = [
    (verdict('equivalent', True, True), 'undecided', False, 'rule_accepted'),
    (verdict('equivalent', True, True), 'rejected', False, 'rule_accepted'),
    (verdict('equivalent', True, True), 'all', True, 'rule_accepted'),
    (verdict('within_tolerance', False, True), 'rejected', False, 'rule_accepted'),
    (verdict('not_equivalent'), 'undecided', False, 'rule_rejected'),
    (verdict('not_equivalent'), 'rejected', True, 'rule_rejected'),
    (verdict('not_equivalent'), 'all', True, 'rule_rejected'),
    (verdict('no_answer', extracted=None), 'undecided', False, 'no_answer'),
    (verdict('no_answer', extracted=None), 'rejected', False, 'no_answer'),
    (verdict('no_answer', extracted=None), 'all', True, 'no_answer'),
    (verdict('undecided'), 'undecided', True, 'undecided'),
    (verdict('undecided'), 'rejected', True, 'undecided'),
    (verdict('timeout', None, None), 'all', True, 'unscored'),
]


@pytest.mark.parametrize('case,scope,routed,why', SCOPE_CASES)
def test_scope_decides_what_the_rules_decided_goes_too(case, scope, routed, why):
    assert needs_judge(case, '9.8', scope) == (routed, why)


def test_real_verdicts_route_as_their_truth_says():
    assert needs_judge(score_answer('2', '\\boxed{2}'), '2') == (False, 'rule_accepted')
    assert needs_judge(score_answer('2', '\\boxed{3}'), '2') == (False, 'rule_rejected')
    assert needs_judge(score_answer('2', '\\boxed{3}'), '2', 'rejected') == (True, 'rule_rejected')


def test_rule_decision_is_known_only_for_what_the_rules_decided():
    assert rule_decision('rule_accepted') is True
    assert rule_decision('rule_rejected') is False and rule_decision('no_answer') is False
    assert all(rule_decision(why) is None for why in ('undecided', 'text_answer', 'unscored', 'multi_part_answer'))


def test_unknown_scope_is_a_clear_error():
    assert check_scope(None) == 'undecided' and all(check_scope(s) == s for s in JUDGE_SCOPES)
    with pytest.raises(ValueError, match='undecided, rejected, all'):
        needs_judge(verdict('equivalent', True, True), '1', 'everything')
