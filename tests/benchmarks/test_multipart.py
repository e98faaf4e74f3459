"""Which piece of a response answers which reference part: by label, then by content, one to one."""
import pytest

from evalscope_phys.benchmarks.multipart import labelled_answers, score_parts

# (response, references, how they are paired, the strict verdict of each part): pairs that must be found
FOUND = [
    (r'\boxed{(a)\ x = 1} \boxed{(b)\ y = 2}', ['x = 1', 'y = 2'], 'label', [True, True]),
    (r'\boxed{(b)\ y = 2} \boxed{(a)\ x = 1}', ['x = 1', 'y = 2'], 'label', [True, True]),  # a label is a label
    (r'\text{Part 1: } v = 3, \quad \text{Part 2: } t = 4', ['v = 3', 't = 4'], 'label', [True, True]),
    (r'\text{Stage 1: } d = 84\,\text{m} \\ \text{Stage 2: } d = 12\,\text{m}', ['84 m', '12 m'], 'label',
     [True, True]),
    (r'so \boxed{1} and then \boxed{2}', ['1', '2'], 'content', [True, True]),
    # an extra basis line before the answers shifts their places, not their pairing
    (r"\boxed{H_0 = \hbar\omega (n_x + n_y + 1); \quad E_1 = 3, \quad E_2 = 5}", ['E_1 = 3', 'E_2 = 5'],
     'content', [True, True]),
    # a merged line: two answers on the line of one label; the third part still finds its own
    (r'\begin{aligned}(a)\; & c_v = \frac{5R}{2}, \quad c_p = \frac{7R}{2} \\ (b)\; & \frac{U}{V} = \frac{5p}{2}'
     r'\end{aligned}', [r'c_v = \frac{5}{2}R', r'c_p = \frac{7}{2}R', r'\frac{U}{V} = \frac{5}{2}p'], 'content',
     [True, True, True]),
    # one boxed answer, to the last of three parts (the others answered in prose)
    (r'\boxed{U = \frac{3N\hbar\Omega}{e^{\hbar\Omega/\tau} - 1}}', ['S = 1', 'F = 2', r'U = \frac{3N\hbar\Omega}'
     r'{e^{\hbar\Omega/\tau} - 1}'], 'content', [False, False, True]),
    # table rows: each row's value pairs with its part
    (r'\begin{array}{c|c} T & C \\ \hline 25 & \frac{3}{2}R \\ 250 & \frac{5}{2}R \end{array}',
     [r'\frac{3}{2}R', r'\frac{5}{2}R'], 'content', [True, True]),
    # names pair across the written order
    (r'\boxed{y = 2, \quad x = 1}', ['x = 1', 'y = 2'], 'content', [True, True]),
    (r'\boxed{\phi(0) = \frac{\rho R^2}{6\epsilon_0}, \quad W = 3}', ['W = 3', r'\phi(0) = \frac{\rho R^2}'
     r'{6\epsilon_0}'], 'content', [True, True]),
    # a label left standing between the answers is no answer; an approximation restates its quantity
    (r'\boxed{\text{(a)}\ J = 2, \quad \text{(b)}\ \mu = 0, \quad \text{(d)}\ u \approx 6}', ['J = 2', r'\mu = 0', '6',
     r'\frac{1}{2}'], 'content', [True, True, True, False]),
    (r"\boxed{\lambda' = \lambda\sqrt{2}, \quad \lambda' \approx 1.41\lambda, \quad t = 3}", [r"\lambda' = \sqrt{2}\lambda",
     't = 3'], 'content', [True, True]),
    (r'\boxed{1}', ['1'], 'single', [True]),
]

# pairs that must NOT be accepted
REFUSED = [
    # swapped labels are wrong, never re-paired by value
    (r'\boxed{(a)\ v_A = 4 \quad (b)\ v_B = 2}', ['v_A = 2', 'v_B = 4'], 'label', [False, False]),
    (r'\boxed{(a)\ 4 \quad (b)\ 2}', ['2', '4'], 'label', [False, False]),
    (r'\boxed{(a)\ x = 1, \quad (b)\ y = 3}', ['x = 1', 'y = 2'], 'label', [True, False]),
    # unlabelled, unnamed values are identified by their place: 2, 1 is not 1, 2
    (r'\boxed{2, 1}', ['1', '2'], 'content', [False, False]),
    (r'\boxed{2}, \boxed{1}', ['1', '2'], 'content', [False, False]),
    # two pieces cannot both answer one "= 0" part, and another quantity's 0 is not this one's
    (r'\boxed{x = 0, \quad y = 0}', ['x = 0', 'z = 5'], 'content', [True, False]),
    (r'\boxed{y = 0}', ['x = 0', 'z = 0'], 'content', [False, False]),
    # a second candidate for a part is not dropped: the part offers two values
    (r'\boxed{1, 3, 2}', ['1', '2'], 'content', [False, True]),
    (r'\boxed{x = 1, \quad x = 3, \quad y = 2}', ['x = 1', 'y = 2'], 'content', [False, True]),
    (r'only \boxed{1}', ['1', '2', '3'], 'content', [True, False, False]),
]


@pytest.mark.parametrize('response, references, matched_by, strict', FOUND + REFUSED)
def test_pieces_are_paired_with_reference_parts(response, references, matched_by, strict):
    result = score_parts(references, response)
    assert result.matched_by == matched_by
    assert [p.strict for p in result.parts] == strict, [(p.reason, p.extracted) for p in result.parts]


def test_content_pairing_is_one_to_one_when_unordered():
    from evalscope_phys.scoring import score_answer
    verdict = score_answer(['1', '2'], r'\boxed{2}, \boxed{1}')  # unordered: any order, one to one
    assert [p.strict for p in verdict.parts] == [True, True] and verdict.matched_by == 'content'
    verdict = score_answer(['1', '1'], r'\boxed{1}')  # one piece answers one part only
    assert sorted(bool(p.strict) for p in verdict.parts) == [False, True]


def test_dataset_labels_pair_the_parts():
    result = score_parts(['x = 1', 'y = 2'], r'\boxed{(b)\ y = 2 \quad (a)\ x = 1}', labels=['(a)', '(b)'])
    assert result.matched_by == 'label' and [p.strict for p in result.parts] == [True, True]
    result = score_parts(['x = 1', 'y = 2'], r'\boxed{(a)\ y = 2 \quad (b)\ x = 1}', labels=['(a)', '(b)'])
    assert [p.strict for p in result.parts] == [False, False]


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
