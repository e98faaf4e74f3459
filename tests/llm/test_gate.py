"""The one rule for failed judge calls: a count or a share tolerated, anything beyond fails the command."""
import pytest

from evalscope_phys.llm.gate import JudgeCallsFailed, allowed_failures, check, failure


@pytest.mark.parametrize('max_failures, total, allowed', [
    (0, 280, 0), (3, 280, 3), (0.05, 280, 14), (0.05, 10, 0), (0.5, 3, 1), (1, 280, 1)])
def test_a_count_or_a_share_of_the_calls(max_failures, total, allowed):
    assert allowed_failures(max_failures, total) == allowed


def test_beyond_the_threshold_names_the_step_the_count_and_the_endpoint():
    assert failure('audit stage 3', 0, 280, 'http://j/v1') is None
    assert failure('audit stage 3', 14, 280, 'http://j/v1', 0.05) is None
    with pytest.raises(JudgeCallsFailed, match=r'^audit stage 3: 280 of 280 judge call\(s\) failed at http://j/v1 '
                                               r'\(allowed: 0; --max-judge-failures\)'):
        check('audit stage 3', 280, 280, 'http://j/v1')
    with pytest.raises(ValueError, match='>= 0'):
        allowed_failures(-1, 10)
