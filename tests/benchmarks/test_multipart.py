"""Which piece of a response answers which reference part: labelled, in order, item by item."""
import pytest

from evalscope_phys.benchmarks.multipart import labelled_answers, score_parts

# (response, references, how they are matched, the strict verdict of each part)
CASES = [
    (r'\boxed{(a)\ x = 1} \boxed{(b)\ y = 2}', ['x = 1', 'y = 2'], 'labelled', [True, True]),
    (r'\boxed{(b)\ y = 2} \boxed{(a)\ x = 1}', ['x = 1', 'y = 2'], 'ordered', [False, False]),  # labels must run from (a)
    (r'\boxed{(a)\ x = 1, \quad (b)\ y = 3}', ['x = 1', 'y = 2'], 'labelled', [True, False]),
    (r'so \boxed{1} and then \boxed{2}', ['1', '2'], 'ordered', [True, True]),
    (r'\boxed{2, 1}', ['1', '2'], 'ordered', [False, False]),  # in order, never any order
    (r'only \boxed{1}', ['1', '2', '3'], 'ordered', [True, False, False]),
    (r'\boxed{1}', ['1'], 'single', [True]),
]


@pytest.mark.parametrize('response, references, matched_by, strict', CASES)
def test_pieces_are_matched_to_reference_parts(response, references, matched_by, strict):
    result = score_parts(references, response)
    assert result.matched_by == matched_by
    assert [p.strict for p in result.parts] == strict


def test_a_missing_part_is_no_answer_not_unscored():
    result = score_parts(['1', '2', '3'], r'only \boxed{1}')
    assert [p.reason for p in result.parts][1:] == ['no_answer', 'no_answer']
    assert all(p.scored for p in result.parts)


def test_one_unreadable_reference_part_leaves_the_others_scored():
    result = score_parts(['1', r'\frac{', '3'], r'\boxed{1, 2, 3}')
    assert [p.scored for p in result.parts] == [True, False, True]
    assert [p.strict for p in result.parts] == [True, None, True]


def test_labels_count_only_when_there_are_as_many_as_parts():
    assert labelled_answers(r'\boxed{(a)\ 1 \quad (b)\ 2}', 2) == ['1', '2']
    assert labelled_answers(r'\boxed{(a)\ 1 \quad (b)\ 2}', 3) == []
    assert labelled_answers(r'\boxed{(a)\ 1 \quad (b)\ 2}', 1) == []


@pytest.mark.parametrize('response', ['', None, 12, '\x00\xff' * 10])
def test_any_response_gets_a_verdict_per_part(response):
    result = score_parts(['1', '2'], response)
    assert len(result.parts) == 2 and all(p.strict is not True for p in result.parts)
