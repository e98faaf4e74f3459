"""Rules first, judge only for the undecidable: what goes to the judge and what comes back."""
import pytest
from evalscope.api.judge import CaseVerdict
from evalscope.api.metric import Score
from evalscope.constants import ScoreStatus

from evalscope_phys.benchmarks.judging import (
    CANNOT_JUDGE,
    EQUIVALENCE_CONTRACT,
    JUDGE_FAILED,
    JUDGED,
    EquivalenceVerdict,
    is_text_answer,
    judge_prompt,
    rules_first_judge,
    undecided_reason,
)
from evalscope_phys.scoring.verdict import Verdict


def verdict(reason, strict=False, lenient=False, extracted='x'):
    return Verdict(eed=0.0, strict=strict, lenient=lenient, reason=reason, extracted=extracted, seconds=0.0)


# (reason, strict, lenient, reference, extracted answer, expected undecided reason or None)
UNDECIDED_CASES = [
    ('equivalent', True, True, '9.8', '9.8', None),
    ('within_tolerance', False, True, '9.8', '9.85', None),
    ('not_equivalent', False, False, '9.8', '12', None),
    ('dimension_mismatch', False, False, '9.8 m/s', '9.8 kg', None),
    ('count_mismatch', False, False, '1, 2', '1', None),
    ('no_answer', False, False, 'counterclockwise', None, None),
    ('timeout', None, None, '\\frac{a}{b}', 'x', 'unscored'),
    ('unparseable_reference', None, None, '\\frac{', 'x', 'unscored'),
    ('input_too_large', None, None, '1', 'x', 'unscored'),
    ('unparseable_answer', False, False, '9.8', '\\frac{', 'unparseable_answer'),
    ('not_equivalent', False, False, 'counterclockwise', 'anticlockwise', 'text_answer'),
    ('not_equivalent', False, False, '2 m', 'the block stops after two metres', 'text_answer'),
    ('not_equivalent', False, False, 'True', 'False', 'text_answer'),
    ('equivalent', True, True, 'True', 'True', None),
    ('some_new_reason', False, False, '1', '2', 'unknown_reason:some_new_reason'),
]


@pytest.mark.parametrize('reason,strict,lenient,reference,answer,expected', UNDECIDED_CASES)
def test_what_the_rules_cannot_decide(reason, strict, lenient, reference, answer, expected):
    assert undecided_reason(verdict(reason, strict, lenient, answer), reference) == expected
    as_dict = verdict(reason, strict, lenient, answer).to_dict()  # as stored in Score.metadata
    assert undecided_reason(as_dict, reference) == expected


# (text, is words rather than a number/expression)
TEXT_CASES = [
    ('counterclockwise', True), ('\\text{to the left}', True), ('yes', True), ('False', True),
    ('46.3\\,\\mathrm{kN}', False), ('9.8 meters', False), ('2.5 \\text{ seconds}', False),
    ('\\frac{m g L}{2}', False), ('m g \\sin\\theta - \\mu m g \\cos\\theta', False),
    ('v_{max}', False), ('3 \\times 10^{8} m/s', False), ('\\sqrt{\\frac{2gh}{3}}', False),
    ('逆时针', True), ('\\text{vastupäeva}', True),
]


@pytest.mark.parametrize('text,expected', TEXT_CASES)
def test_text_answers_are_told_from_expressions(text, expected):
    assert is_text_answer(text) is expected


def test_prompt_fills_each_placeholder_once_so_answer_braces_are_safe():
    prompt = judge_prompt('Find {x}.', 'v^{2}/(2g)', 'oops {question} {reference}')
    assert 'Find {x}.' in prompt and 'v^{2}/(2g)' in prompt and 'oops {question} {reference}' in prompt
    assert prompt.count('Find {x}.') == 1
    assert '(no answer)' in judge_prompt('q', 'r', '')


def rule_score(strict=0.0):
    score = Score(value={'eed': 20.0, 'strict_acc': strict, 'lenient_acc': strict, 'scored': 1.0},
                  prediction='p', extracted_prediction='e', main_score_name='strict_acc', explanation='rule')
    score.metadata = {'verdict': {'reason': 'not_equivalent'}}
    return score


def test_nothing_pending_skips_the_judge_with_zero_judged():
    definition = rules_first_judge(rule_score(1.0), question='q', pending={})
    assert definition.skip_reason == 'rule_decided' and not definition.cases
    assert definition.immediate_score.value == {'eed': 20.0, 'strict_acc': 1.0, 'lenient_acc': 1.0, 'scored': 1.0,
                                                JUDGED: 0.0, CANNOT_JUDGE: 0.0, JUDGE_FAILED: 0.0}


def reduce_with(labels, pending):
    definition = rules_first_judge(rule_score(), question='Find v.', pending=pending)
    verdicts = [CaseVerdict(case_id=key, value=EquivalenceVerdict(verdict=label)) for key, label in labels.items()]
    return definition, definition.reduce_verdicts(verdicts, None)


def test_one_case_per_pending_answer_carrying_question_reference_and_answer():
    definition = rules_first_judge(rule_score(), question='Find v.', pending={'answer': ('cw', 'clockwise')})
    assert [case.case_id for case in definition.cases] == ['answer']
    request = definition.build_request(definition.cases[0], None, [], None)
    text = request.messages[0].text
    assert 'Find v.' in text and 'cw' in text and 'clockwise' in text and '"verdict"' in text


@pytest.mark.parametrize('label,strict,cannot', [('equivalent', 1.0, 0.0), ('not_equivalent', 0.0, 0.0),
                                                 ('cannot_judge', 0.0, 1.0)])
def test_judge_decision_sets_accuracy_and_cannot_judge_keeps_the_rule_score(label, strict, cannot):
    _, reduced = reduce_with({'answer': label}, {'answer': ('cw', 'clockwise')})
    assert reduced.value == {'eed': 20.0, 'strict_acc': strict, 'lenient_acc': strict, 'scored': 1.0,
                             JUDGED: 1.0, CANNOT_JUDGE: cannot, JUDGE_FAILED: 0.0}
    assert reduced.metadata == {'judge_labels': {'answer': label}}


def test_garbled_judge_reply_is_a_parse_failure_not_a_verdict():
    assert not EQUIVALENCE_CONTRACT.parse('I think they match').ok
    assert not EQUIVALENCE_CONTRACT.parse('{"verdict": "maybe"}').ok
    assert EQUIVALENCE_CONTRACT.parse('<think>hm</think> {"verdict": "cannot_judge"}').value.verdict == 'cannot_judge'


def test_finalize_keeps_the_engine_verdict_beside_the_judge_metadata():
    definition, _ = reduce_with({'answer': 'equivalent'}, {'answer': ('cw', 'clockwise')})
    judged = Score(value={'strict_acc': 1.0}, prediction='p', metadata={'source': 'llm_judge'})
    final = definition.finalize(judged, None, None)
    assert final.metadata['verdict'] == {'reason': 'not_equivalent'} and final.metadata['source'] == 'llm_judge'
    assert final.main_score_name == 'strict_acc' and final.metadata['judge_pending'] == {'answer': 'cw'}


def test_a_failed_judge_call_is_counted_and_leaves_the_answer_unscored_not_a_rule_zero():
    definition = rules_first_judge(rule_score(), question='Find v.', pending={'answer': ('cw', 'clockwise')})
    marker = definition.fallback_verdict(definition.cases[0], None)  # what the executor takes on a failed call
    failed = marker.model_copy(update={'status': ScoreStatus.FALLBACK})
    reduced = definition.reduce_verdicts([failed], None)
    assert reduced.value == {'eed': 20.0, 'scored': 0.0, JUDGED: 1.0, CANNOT_JUDGE: 0.0, JUDGE_FAILED: 1.0}
    assert reduced.metadata == {'judge_labels': {'answer': 'failed'}}


def test_failed_calls_name_each_judge_and_why():
    from types import SimpleNamespace

    from evalscope_phys.benchmarks.judging import failed_calls

    def attempt(status, judge, error):
        return SimpleNamespace(status=status, case_id='answer', judge_id=judge, error=error)

    review = SimpleNamespace(attempts=[attempt(ScoreStatus.TRANSPORT_ERROR, 'a', 'APIConnectionError: refused'),
                                       attempt(ScoreStatus.SUCCESS, 'b', None),
                                       attempt(ScoreStatus.PARSE_ERROR, 'c', 'no JSON object')])
    assert failed_calls(review) == {'answer': 'transport_error (a): APIConnectionError: refused; '
                                              'parse_error (c): no JSON object'}
    assert failed_calls(SimpleNamespace(attempts=[])) == {}
