"""Which samples of a run are wrong, and what the judge is told about each."""
from __future__ import annotations

from pathlib import Path

import pytest

from evalscope_phys.analysis.reviews import is_wrong, scan_reviews
from evalscope_phys.suite.results import RunDirError

from .runs import review, write_run


@pytest.mark.parametrize('values, wrong', [
    ({'strict_acc': 0.0, 'eed': 43.3, 'scored': 1.0}, True),
    ({'strict_acc': 1.0, 'eed': 100.0, 'scored': 1.0}, False),
    ({'strict_acc': 1.0, 'eed': 99.0}, True),             # EED < 100 is wrong even when strict
    ({'strict_acc': 0.6667, 'all_correct': 0.0}, True),   # PhysReason: one sub-answer wrong
    ({'lenient_acc': 0.0, 'strict_acc': 0.0}, True),
    ({'strict_acc': 1.0, 'lenient_acc': 1.0}, False),     # no EED (PhysUniBench): strict decides
    ({'scored': 0.0}, None),                              # the engine reached no verdict: not analysed
    ({}, None),
    ({'strict_acc': True}, None),                         # not a number
])
def test_what_counts_as_wrong(values, wrong) -> None:
    assert is_wrong(values) is wrong


def _run(tmp_path: Path) -> Path:
    return write_run(tmp_path / 'run', {
        'phybench_mechanics': [
            review(0, 'Solve: a block slides.', 'So $v = 2$.\n\n\\boxed{2}', {'strict_acc': 1.0, 'eed': 100.0},
                   {'id': 'p1', 'tag': 'MECHANICS', 'solution': 'Energy gives v = 2.'}, target='$$v = 2$$'),
            review(1, 'Solve: a ball falls.', 'Then $t = 3$.\n\n\\boxed{3}', {'strict_acc': 0.0, 'eed': 20.0},
                   {'id': 'p2', 'tag': 'MECHANICS', 'solution': 'Free fall: t = 2.'}, target='$$t = 2$$',
                   extracted='3'),
            review(2, 'Solve: too big.', '...', {'scored': 0.0}, {'id': 'p3', 'tag': 'MECHANICS', 'solution': ''}),
        ],
        'phybench_optics': [
            review(0, 'Solve: a lens.', 'f = 1', {'strict_acc': 0.0, 'eed': 0.0}, {'id': 'p4', 'tag': 'OPTICS'}),
        ],
        # a dataset whose name starts with ours: never mixed in
        'phybench_extra_optics': [
            review(0, 'Other.', 'x', {'strict_acc': 0.0}, {'id': 'q1'}),
        ],
    }, datasets=['phybench', 'phybench_extra'])


def test_scan_splits_wrong_right_unscored_and_keeps_what_the_judge_needs(tmp_path: Path) -> None:
    scan = scan_reviews(_run(tmp_path), 'phybench')
    assert (scan.total, len(scan.wrong), scan.right, scan.unscored) == (4, 2, 1, 1)
    first = scan.wrong[0]
    assert (first.sample_id, first.subset, first.domain, first.difficulty) == ('p2', 'mechanics', 'mechanics', None)
    assert first.problem == 'Solve: a ball falls.'  # text parts of the prompt; the figure is not passed on
    assert first.solution == 'Then $t = 3$.\n\n\\boxed{3}'
    assert first.reference_answer == '$$t = 2$$' and first.reference_solution == 'Free fall: t = 2.'
    assert first.scorer == {'strict': 0.0, 'eed': 20.0, 'reason': 'not_equivalent', 'extracted': '3'}
    assert first.scorer_note() == 'it read the final answer as `3`; reason: not_equivalent; EED 20.0 of 100.'
    assert first.key == 'model-a/phybench/mechanics/1/0'
    assert scan.wrong[1].reference_solution is None  # the record had none
    assert [s.sample_id for s in scan_reviews(tmp_path / 'run', 'phybench_extra').wrong] == ['q1']


def test_a_torn_review_line_is_skipped_and_named(tmp_path: Path) -> None:
    run = _run(tmp_path)
    with (run / 'reviews' / 'model-a' / 'phybench_optics.jsonl').open('a') as handle:
        handle.write('{"index": 1, "sample_sc')
    scan = scan_reviews(run, 'phybench')
    assert len(scan.wrong) == 2 and scan.unreadable == [f'{run}/reviews/model-a/phybench_optics.jsonl:2']


def test_several_models_and_one_model(tmp_path: Path) -> None:
    run = _run(tmp_path)
    write_run(run, {'phybench_optics': [review(0, 'Solve: a lens.', 'f = 2', {'strict_acc': 0.0}, {'id': 'p4'})]},
              datasets=['phybench', 'phybench_extra'], model='model-b')
    assert scan_reviews(run, 'phybench').models == ['model-a', 'model-b']
    only = scan_reviews(run, 'phybench', model='model-b')
    assert only.models == ['model-b'] and [s.model for s in only.wrong] == ['model-b']


@pytest.mark.parametrize('make, dataset, message', [
    (lambda p: p, 'phybench', 'not a directory'),
    (lambda p: p.mkdir() or p, 'phybench', 'no reviews/ folder'),
    (lambda p: (p / 'seed_0' / 'reviews').mkdir(parents=True) or p, 'phybench', 'suite dir, pass one of its runs'),
])
def test_not_a_run_dir_says_what_to_pass(tmp_path: Path, make, dataset, message) -> None:
    with pytest.raises(RunDirError, match=message):
        scan_reviews(make(tmp_path / 'x'), dataset)


def test_unknown_dataset_lists_the_run_datasets(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match='no dataset .physreason.; it has phybench, phybench_extra'):
        scan_reviews(_run(tmp_path), 'physreason')
    with pytest.raises(RunDirError, match='no reviews/nobody/'):
        scan_reviews(tmp_path / 'run', 'phybench', model='nobody')


def test_suite_and_error_analysis_read_one_review_file_alike(tmp_path: Path) -> None:
    """One iterator, two policies: the suite's statistics stop at a bad line, error analysis counts it."""
    from evalscope_phys.suite.results import read_reviews, review_records, sample_id

    good = review(3, 'p', 'a', {'strict_acc': 0.0}, {'id': 'P-7'})
    no_id = review(4, 'q', 'b', {'strict_acc': 1.0}, {})
    run = write_run(tmp_path / 'run', {'phybench_mechanics': [good, no_id]}, ['phybench'])
    path = next(run.glob('reviews/*/*.jsonl'))
    path.write_text(path.read_text(encoding='utf-8') + '{"sample_score": 1}\n', encoding='utf-8')
    assert [(n, r is None) for n, r in review_records(path, strict=False)] == [(1, False), (2, False), (3, True)]
    with pytest.raises(RunDirError, match=r'mechanics\.jsonl:3: not a review record'):
        list(read_reviews(run))
    assert [sample_id(good), sample_id(no_id)] == ['P-7', '#4']
    scan = scan_reviews(run, 'phybench')
    assert [w.sample_id for w in scan.wrong] == ['P-7'] and scan.unreadable == [f'{path}:3']
