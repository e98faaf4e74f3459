"""The sampler: proportional equations, and its early stop that decides no verdict differently."""
import pytest
import sympy

from evalscope_phys.scoring.compare import numeric

x, y, z = sympy.symbols('x y z', positive=True)


@pytest.mark.parametrize('f,g,positive', [
    (x - 2 * y, 3 * x - 6 * y, False),          # proportional: spread ~0
    (x - 2 * y, x - 2 * y + 1e-3 * x, False),   # close: spread below a lenient tolerance
    (x - 2 * y, x - 3 * y, False),              # different
    (x * y - z, x - z, False),                   # different in one symbol
    (x - y, y - x, True),                        # an inequality with the sign reversed: inf
    (x - y, 2 * (x - y), True),
    (x, sympy.log(-x - 1), False),              # nowhere real on one side: too few points, None
])
@pytest.mark.parametrize('rtol', [numeric.EQUAL_RTOL, 1e-2, 0.5])
def test_stopping_early_decides_every_threshold_as_the_full_run(f, g, positive, rtol):
    full = numeric.proportional(f, g, positive)
    early = numeric.proportional(f, g, positive, rtol=rtol)
    assert (full is None) == (early is None)
    if full is None:
        return
    for threshold in {numeric.EQUAL_RTOL, rtol}:  # the thresholds a caller passing rtol may test
        assert (full.worst <= threshold) == (early.worst <= threshold)
    if full.worst <= rtol:  # never stopped: the very same figure
        assert early == full


def test_a_clear_difference_stops_after_the_fewest_points():
    early = numeric.proportional(x - 2 * y, x - 3 * y, False, rtol=numeric.EQUAL_RTOL)
    assert early.valid == numeric.MIN_VALID_POINTS
    assert numeric.proportional(x - 2 * y, x - 3 * y, False).valid > numeric.MIN_VALID_POINTS
