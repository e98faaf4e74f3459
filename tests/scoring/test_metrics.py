"""The bridge to EvalScope: a verdict becomes a per-sample Score, and an unscored answer is never a 0."""
import pytest
from evalscope.constants import ScoreStatus
from evalscope.metrics.semantics.catalog import METRIC_DEFINITIONS

from evalscope_phys.scoring.metrics import METRIC_ENTRIES, register_metric_semantics, verdict_score
from evalscope_phys.scoring.verdict import Verdict


def verdict(**fields):
    base = dict(eed=47.0, strict=False, lenient=True, reason='within_tolerance', extracted='2.02', seconds=0.01)
    return Verdict(**{**base, **fields})


def test_a_scored_verdict_fills_every_requested_metric_and_marks_it_scored():
    score = verdict_score(verdict(), '... \\boxed{2.02}', main='eed')
    assert score.value == {'eed': 47.0, 'strict_acc': 0.0, 'lenient_acc': 1.0, 'scored': 1.0,
                           'strict_acc_all': 0.0, 'lenient_acc_all': 1.0}
    assert score.main_score_name == 'eed' and score.explanation == 'within_tolerance'
    assert score.status == ScoreStatus.SUCCESS and score.metadata['verdict']['reason'] == 'within_tolerance'


def test_metrics_without_a_value_are_left_out_not_zeroed():
    score = verdict_score(verdict(eed=None), 'x', metrics=('eed', 'strict_acc'))
    assert score.value == {'strict_acc': 0.0, 'scored': 1.0, 'strict_acc_all': 0.0, 'lenient_acc_all': 1.0}


@pytest.mark.parametrize('reason', ['timeout', 'worker_crashed', 'input_too_large'])
def test_an_unscored_verdict_drops_out_of_the_accuracy_and_counts_against_the_all_answers_one(reason):
    score = verdict_score(verdict(eed=None, strict=None, lenient=None, reason=reason), 'x')
    assert score.value == {'scored': 0.0, 'strict_acc_all': 0.0, 'lenient_acc_all': 0.0}
    assert score.status.is_usable and score.explanation == reason


def test_every_metric_name_we_emit_has_report_semantics():
    register_metric_semantics()
    for name, entry in METRIC_ENTRIES.items():
        assert METRIC_DEFINITIONS[name] == entry
        assert entry.resolve(name).metric_name == entry.metric_name
