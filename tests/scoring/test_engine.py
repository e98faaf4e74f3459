"""score_answer as a service: unscored vs wrong, caching, threads, the hard deadline."""
from __future__ import annotations

import threading
import time

import pytest

from evalscope_phys.scoring import Verdict, score_answer
from evalscope_phys.scoring.engine import clear_cache

PAIRS = [
    (r'2 m g + 4\frac{mv_0^2}{l}', r'2 m g+2\frac{mv_0^2}{l}'),  # the PHYBench README's EED example (peer case)
    (r'\frac{q}{4\pi\varepsilon_0 r^2}', r'\frac{q}{4\pi\epsilon_0 r^2}'),
    (r'46300\,\text{N}', r'46.3\,\text{kN}'),
    (r'\sqrt{2gh}', r'\boxed{\sqrt{2gh}\text{ m/s}}'),
    (r'\frac{1}{3}', '0.3333'),
    (r'(a+b)^2', r'a^2+2ab+b^2'),
    (r'\sin 2\theta', r'2\sin\theta\cos\theta'),
    (r'e^{-\frac{t}{RC}}', r'\exp(-t/(RC))'),
    (r'\frac{mg}{k}', r'\frac{mg}{k'),
    (r'\frac{mg}{k}', ''),
    (r'x = y = \frac{1}{2}', '0.5'),
    (r'\gamma m_0 c^2', r'\frac{m_0c^2}{\sqrt{1-v^2/c^2}}'),
]


def slow_pair():
    """Passes every size pre-check but takes seconds of EED work (two 600-node trees)."""
    ref = '+'.join('%dx^{%d}' % (k % 7 + 2, k) for k in range(1, 200))
    ans = '+'.join('%dy^{%d}' % (k % 5 + 2, k) for k in range(1, 200))
    return ref, ans


def test_verdict_shape():
    verdict = score_answer(*PAIRS[0])
    assert isinstance(verdict, Verdict)
    data = verdict.to_dict()
    assert set(data) >= {'eed', 'strict', 'lenient', 'reason', 'extracted', 'seconds', 'scored'}
    assert verdict.scored and data['scored']


def test_no_answer_is_wrong_but_scored():
    verdict = score_answer('x', 'I do not know.')
    assert verdict.scored and verdict.strict is False
    assert score_answer('x', '').reason == 'no_answer'


def test_unreadable_reference_is_unscored_not_zero():
    verdict = score_answer(r'\frac{a}{', 'a')
    assert verdict.reason == 'unparseable_reference'
    assert not verdict.scored and verdict.eed is None and verdict.strict is None


def test_eed_can_be_skipped():
    assert score_answer('x', 'y', eed=False).eed is None


def test_repeated_answers_are_cached():
    clear_cache()
    first = score_answer(*PAIRS[5])
    again = score_answer(*PAIRS[5])  # a GRPO group repeating a completion costs nothing
    assert (again.strict, again.eed) == (first.strict, first.eed)
    assert again.seconds < first.seconds and again.seconds < 0.01
    reworded = score_answer(PAIRS[5][0], r'Thus \boxed{a^2+2ab+b^2}.')  # the same final answer
    assert (reworded.strict, reworded.eed, reworded.reason) == (first.strict, first.eed, first.reason)


def test_identical_results_from_eight_threads():
    clear_cache()
    expected = [(v.eed, v.strict, v.lenient, v.reason) for v in (score_answer(*p) for p in PAIRS)]
    clear_cache()
    results, errors = {}, []

    def work(index):
        try:
            order = PAIRS[index % len(PAIRS):] + PAIRS[:index % len(PAIRS)]
            out = {p: score_answer(*p) for p in order}
            results[index] = [(out[p].eed, out[p].strict, out[p].lenient, out[p].reason) for p in PAIRS]
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors
    assert len(results) == 8
    for got in results.values():
        assert got == expected


def test_the_deadline_fires_and_the_pool_recovers():
    ref, ans = slow_pair()
    started = time.perf_counter()
    verdict = score_answer(ref, ans + '+1', timeout=0.5)
    assert verdict.reason == 'timeout' and not verdict.scored
    assert verdict.eed is None and verdict.strict is None  # unscored, never a silent 0
    assert time.perf_counter() - started < 3.0
    assert score_answer('x', 'x').strict is True  # a fresh worker serves the next call


def test_timeouts_are_not_cached():
    ref, ans = slow_pair()
    assert score_answer(ref, ans + '+2', timeout=0.3).reason == 'timeout'
    assert score_answer(ref, ans + '+2', timeout=0.3).reason == 'timeout'


@pytest.mark.parametrize('reference, response, reason, scored', [
    (None, '2', 'unparseable_reference', False),
    ('', '2', 'unparseable_reference', False),
    (2, '2', 'equivalent', True),                 # a number as the reference is read as its text
    (2.5, '2.5', 'equivalent', True),
    ('2', None, 'no_answer', True),
    ('2', 2, 'equivalent', True),
    ('2', b'\\boxed{2}', 'equivalent', True),
    ('2', b'\xff\xfe2', 'unparseable_answer', True),  # invalid UTF-8 is replaced, and the answer is garbage
    (['1', None], '1, 2', 'unparseable_reference', False),
    ({'not': 'text'}, '2', 'unparseable_reference', False),
])
def test_any_input_gets_a_verdict_with_a_reason(reference, response, reason, scored):
    verdict = score_answer(reference, response)
    assert (verdict.reason, verdict.scored) == (reason, scored), verdict


@pytest.mark.parametrize('options', [{'multiple': 'sometimes'}, {'tolerance': 'wide'}, {'tolerance': -1},
                                     {'answer_type': 'XX'}, {'unit': object()}])
def test_bad_options_are_an_unscored_error_not_an_exception(options):
    verdict = score_answer('1', '1', **options)
    assert verdict.reason == 'error' and not verdict.scored and verdict.detail


@pytest.mark.parametrize('timeout', [float('inf'), 1e12, 10**9])
def test_an_unbounded_timeout_means_the_hard_cap_not_a_crash(timeout):
    verdict = score_answer('5\\,\\mathrm{m}', '\\boxed{5\\,\\mathrm{m}}', timeout=timeout)
    assert verdict.reason == 'equivalent' and verdict.strict is True


@pytest.mark.parametrize('timeout', [0, -1, float('nan'), '5'])
def test_a_timeout_that_is_no_duration_is_an_error_verdict(timeout):
    verdict = score_answer('5', '5', timeout=timeout)
    assert verdict.reason == 'error' and verdict.strict is None and 'timeout must be' in verdict.detail


@pytest.mark.parametrize('reference, answer', [
    ('\\sin x', '\\sin x + \\sin^{40}(x^{40})'),  # differs only where it cannot be evaluated in doubles
])
def test_points_that_cannot_be_evaluated_never_make_an_accidental_match(reference, answer):
    verdict = score_answer(reference, answer, timeout=60)
    assert verdict.strict is not True and verdict.reason in ('undecided', 'not_equivalent'), verdict


@pytest.mark.parametrize('reference, answer', [('e^{2x}', '(e^{x})^2'), ('\\frac{1}{1+e^{-x}}', '\\frac{e^x}{e^x+1}'),
                                               ('\\sqrt{x^2}', 'x'), ('\\sin^2 x + \\cos^2 x', '1')])
def test_equivalent_forms_are_still_accepted(reference, answer):
    assert score_answer(reference, answer, timeout=60).strict is True


def test_the_question_is_part_of_the_cached_key():
    """The same answer under two questions: the question's definition decides, not the cache."""
    clear_cache()
    reference, answer = r'k_D = (6\pi^2 n)^{1/3}', r'k_D = \left(\frac{6\pi^2 Ns}{V}\right)^{1/3}'
    defined = score_answer(reference, answer, question=r'in terms of the density $n \equiv Ns/V$')
    plain = score_answer(reference, answer, question='A solid of $N$ atoms.')
    assert defined.strict is True and plain.strict is False
    assert score_answer(reference, answer).strict is False


def test_a_question_that_is_no_text_is_an_unscored_error():
    verdict = score_answer('x', 'x', question=object())
    assert verdict.reason == 'error' and not verdict.scored and 'question' in verdict.detail
