"""Class shares per model, domain and difficulty; `none` answers listed; the PNG is drawn headless."""
from __future__ import annotations

from pathlib import Path

import pytest

from evalscope_phys.analysis.classify import Diagnosis
from evalscope_phys.analysis.plot import plot_domains
from evalscope_phys.analysis.reviews import ReviewScan, WrongSample
from evalscope_phys.analysis.tables import markdown_report, markdown_table, share_rows, tsv

# (model, id, domain, difficulty, outcome label)
OUTCOMES = [
    ('m1', 'a', 'mechanics', '1', 'PP'),
    ('m1', 'b', 'mechanics', '2', 'RR-semantic'),
    ('m1', 'c', 'mechanics', '2', 'RR-semantic'),
    ('m1', 'd', 'optics', '10', 'RR-symbolic'),
    ('m1', 'e', 'optics', '1', 'none'),
    ('m1', 'f', 'optics', '1', 'unparseable'),
    ('m1', 'g', 'optics', '1', 'error'),
    ('m2', 'a', 'mechanics', None, 'unclear'),
    ('m2', 'b', 'mechanics', None, 'PP'),
]


def _outcome(model, sid, domain, difficulty, label) -> Diagnosis:
    sample = WrongSample(model=model, dataset='phybench', subset=domain, index=0, generation=0, sample_id=sid,
                         problem='P', solution='S', reference_answer=f'ref-{sid}', reference_solution=None,
                         domain=domain, difficulty=difficulty,
                         scorer={'strict': 0.0, 'eed': 10.0, 'reason': 'not_equivalent', 'extracted': f'ans|{sid}'})
    return Diagnosis(sample, label, step=1 if label in ('PP', 'RR-semantic', 'RR-symbolic') else None,
                   quote='q', reason=f'because {sid}', steps=('q',), quote_in_step=sid != 'b')


@pytest.fixture()
def outcomes():
    return [_outcome(*row) for row in OUTCOMES]


def test_shares_by_hand(outcomes) -> None:
    rows = {(r.model, r.group): r for r in share_rows(outcomes)}
    assert list(rows) == [('m1', 'all'), ('m1', 'domain=mechanics'), ('m1', 'domain=optics'), ('m1', 'difficulty=1'),
                          ('m1', 'difficulty=2'), ('m1', 'difficulty=10'), ('m2', 'all'), ('m2', 'domain=mechanics')]
    every = rows['m1', 'all']
    # 7 samples, 1 error (no answer yet): 6 judged
    assert (every.judged, every.errors) == (6, 1)
    assert {k: every.share(k) for k in ('PP', 'RR-semantic', 'RR-symbolic', 'none', 'unclear', 'unparseable')} == {
        'PP': 1 / 6, 'RR-semantic': 2 / 6, 'RR-symbolic': 1 / 6, 'none': 1 / 6, 'unclear': 0.0, 'unparseable': 1 / 6}
    assert rows['m1', 'domain=optics'].judged == 3 and rows['m1', 'domain=optics'].share('none') == pytest.approx(1 / 3)
    assert rows['m1', 'difficulty=2'].share('RR-semantic') == 1.0
    assert rows['m2', 'all'].share('PP') == 0.5 and rows['m2', 'all'].share('unclear') == 0.5


def test_tsv_and_markdown_say_the_same(outcomes) -> None:
    rows = share_rows(outcomes)
    lines = tsv(rows).splitlines()
    head = lines[0].split('\t')
    assert head[:5] == ['model', 'dataset', 'group', 'judged', 'errors'] and 'RR-semantic_share' in head
    first = dict(zip(head, lines[1].split('\t')))
    assert (first['group'], first['judged'], first['errors'], first['RR-semantic'], first['RR-semantic_share']) == (
        'all', '6', '1', '2', '0.3333')
    table = markdown_table(rows)
    assert '| m1 | all | 6 | 1 (17%) | 2 (33%) | 1 (17%) | 1 (17%) | 0 (0%) | 1 (17%) | 1 |' in table


def test_report_lists_none_answers_unparseable_errors_and_stray_quotes(outcomes) -> None:
    scan = ReviewScan(dataset='phybench', models=['m1', 'm2'], wrong=[o.sample for o in outcomes], right=4, unscored=2)
    text = markdown_report(scan, outcomes, share_rows(outcomes), 'judge-x', limit=None)
    assert 'Judge: `judge-x`. Reviews: 15 samples, 9 wrong' in text and '4 right, 2 unscored' in text
    assert '## `none`: the judge found the solution right (1)' in text
    assert '| m1 | e | optics | ref-e | ans\\|e | not_equivalent | because e |' in text  # '|' escaped in a cell
    assert '## unparseable: two replies broke the contract (1)' in text and '- m1 f (optics): because f' in text
    assert '## errors: the judge call failed (not cached; a rerun asks again) (1)' in text
    assert '## Quotes not found in the step they cite (2)' in text  # m1 b and m2 b


def test_no_wrong_samples_is_a_report_not_a_crash(tmp_path: Path) -> None:
    scan = ReviewScan(dataset='phybench', models=['m1'], right=3)
    assert '(no wrong samples)' in markdown_report(scan, [], [], 'judge')
    assert plot_domains([], tmp_path / 'empty.png', 'phybench').stat().st_size > 0


def test_png_has_a_panel_per_model(outcomes, tmp_path: Path) -> None:
    from PIL import Image

    path = plot_domains(share_rows(outcomes), tmp_path / 'out' / 'phybench.png', 'phybench')
    one = plot_domains([r for r in share_rows(outcomes) if r.model == 'm1'], tmp_path / 'one.png', 'phybench')
    with Image.open(path) as two_panels, Image.open(one) as one_panel:
        assert two_panels.format == 'PNG' and two_panels.height > one_panel.height
