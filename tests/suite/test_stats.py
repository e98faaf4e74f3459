"""Paired statistics: golden values, including Physics-R1's translation-drift case."""
import pytest

from evalscope_phys.suite.stats import (
    bootstrap_mean_ci, compare_paired, mcnemar_exact, paired_bootstrap_ci, paired_counts, sign_test,
)


def paper_case():
    """59 paired problems; A right on 18, B on 8; discordant 13 (A only) / 3 (B only)."""
    a = [1] * 5 + [1] * 13 + [0] * 3 + [0] * 38
    b = [1] * 5 + [0] * 13 + [1] * 3 + [0] * 38
    return a, b


def test_paper_case_matches_reported_p_values():
    a, b = paper_case()
    result = compare_paired(a, b, seed=0)
    assert result.counts.n == 59 and result.counts.discordant == 16
    assert (result.counts.a_only, result.counts.b_only) == (13, 3)
    assert sum(a) == 18 and sum(b) == 8
    assert round(result.sign_test_p_greater, 3) == 0.011
    assert round(result.mcnemar_exact_p, 3) == 0.021
    # exact binomial tails: P(X >= 13 | 16, 1/2) = 697 / 65536
    assert result.sign_test_p_greater == pytest.approx(697 / 65536, rel=1e-12)
    assert result.mcnemar_exact_p == pytest.approx(2 * 697 / 65536, rel=1e-12)
    assert result.diff == pytest.approx(10 / 59)


@pytest.mark.parametrize('a_only, b_only, greater, two_sided', [
    (0, 0, 1.0, 1.0),  # no discordant pairs: no evidence either way
    (1, 0, 0.5, 1.0),
    (3, 0, 0.125, 0.25),
    (5, 5, 0.623046875, 1.0),  # P(X >= 5 | 10) = 638 / 1024
    (0, 4, 1.0, 0.125),
])
def test_sign_and_mcnemar_hand_values(a_only, b_only, greater, two_sided):
    assert sign_test(a_only, b_only, 'greater') == pytest.approx(greater)
    assert mcnemar_exact(a_only, b_only) == pytest.approx(two_sided)


def test_counts_reject_bad_input():
    with pytest.raises(ValueError, match='length'):
        paired_counts([1, 0], [1])
    with pytest.raises(ValueError, match='0 or 1'):
        paired_counts([1, 2], [1, 0])


def test_bootstrap_is_reproducible_with_a_seed_and_brackets_the_difference():
    a, b = paper_case()
    first = paired_bootstrap_ci(a, b, seed=7, resamples=2000)
    again = paired_bootstrap_ci(a, b, seed=7, resamples=2000)
    other = paired_bootstrap_ci(a, b, seed=8, resamples=2000)
    assert first == again
    assert first != other
    low, high = first
    assert low < 10 / 59 < high
    assert 0.0 < low  # 13 vs 3 discordant: the difference is clearly positive
    assert high < 0.35


def test_bootstrap_without_spread_is_a_point():
    assert paired_bootstrap_ci([1, 0, 1], [1, 0, 1], seed=0) == (0.0, 0.0)


# bootstrap_mean_ci: the resampled mean of n 0/1 problems with share p right is Binomial(n, p) / n, so the
# 2.5% and 97.5% quantiles can be worked out by hand where no cumulative probability is near 0.025 / 0.975.
BOOTSTRAP_CASES = [
    # [0, 1]: means 0, 1/2, 1 with P 1/4, 1/2, 1/4 -> the 2.5% point is 0, the 97.5% point 1
    ([0, 1], (0.0, 1.0)),
    # [0, 1, 1, 1]: P(mean 0) = 1/256 = 0.004, P(<= 1/4) = 13/256 = 0.051 -> low 1/4; P(mean 1) = 81/256 -> high 1
    ([0, 1, 1, 1], (0.25, 1.0)),
    # 100 problems, 50 right: Binomial(100, 1/2) has 2.5% / 97.5% quantiles 40 and 60
    ([0, 1] * 50, (0.40, 0.60)),
    # no spread: every resample has the same mean
    ([1, 1, 1], (1.0, 1.0)),
    ([0.5, 0.5], (0.5, 0.5)),
]


@pytest.mark.parametrize('values, expected', BOOTSTRAP_CASES)
def test_bootstrap_mean_ci_hand_values(values, expected):
    assert bootstrap_mean_ci(values, seed=0) == pytest.approx(expected, abs=0.011)


def test_bootstrap_mean_ci_is_seeded_and_chunked_draws_add_up():
    values = [1] * 18 + [0] * 41  # Physics-R1's 18 of 59
    first = bootstrap_mean_ci(values, seed=3)
    assert first == bootstrap_mean_ci(values, seed=3)
    assert bootstrap_mean_ci(values, seed=3, resamples=2500) == pytest.approx(first, abs=0.035)  # 3 chunks
    low, high = first
    assert low < 18 / 59 < high
    # normal approximation: 18/59 +- 1.96 * sqrt(p (1 - p) / 59) = [0.188, 0.423]
    assert low == pytest.approx(0.188, abs=0.02) and high == pytest.approx(0.423, abs=0.02)


def test_bootstrap_mean_ci_rejects_empty_input_and_bad_levels():
    with pytest.raises(ValueError, match='at least one'):
        bootstrap_mean_ci([])
    with pytest.raises(ValueError, match='level'):
        bootstrap_mean_ci([0, 1], level=1.5)


def test_the_binomial_shortcut_for_0_1_values_matches_resampling_problems():
    values = [1] * 30 + [0] * 70
    low, high = bootstrap_mean_ci(values, seed=1)  # 0/1: binomial draws
    # the same problems as 0.25 / 0.75 take the general path; the mean maps back by (m - 0.25) * 2
    low2, high2 = bootstrap_mean_ci([0.25 + v / 2 for v in values], seed=1)
    assert (low, high) == pytest.approx(((low2 - 0.25) * 2, (high2 - 0.25) * 2), abs=0.011)
    assert (low, high) == pytest.approx((0.21, 0.39), abs=0.011)  # Binomial(100, 0.3) 2.5% / 97.5%: 21, 39
