"""PHYBench: loading the release format, excluding unanswered rows, scoring through the engine, end to end."""
import json
import logging

from functools import partial

import pytest

from conftest import BenchmarkSetup
from evalscope_phys.benchmarks.phybench import SUBSET_LIST
from evalscope_phys.serve.replay import replay_server

BENCH = BenchmarkSetup('phybench')
SAMPLE, REPLAY, adapter, loaded = BENCH.sample, BENCH.replay, BENCH.adapter, BENCH.load


def test_sample_file_loads_by_domain_and_excludes_the_unanswered_row(caplog):
    with caplog.at_level(logging.WARNING):
        data = loaded(SAMPLE)
    assert list(data) == SUBSET_LIST
    assert sum(len(v) for v in data.values()) == 14
    assert {s.metadata['id'] for s in data['mechanics']} == {'d01', 'd02', 'd03'}
    assert 'excluded 1 record(s): no reference answer (ids: d15)' in caplog.text


def test_the_worked_solution_rides_in_the_metadata_never_in_the_prompt():
    """`evalscope-phys error-analysis` shows it to its judge; the model must not see it."""
    rows = {r['id']: r for r in json.loads(SAMPLE.read_text())}
    sample = next(s for s in loaded(SAMPLE)['electricity'] if s.metadata['id'] == 'd04')
    assert sample.metadata['solution'] == rows['d04']['solution'] and sample.metadata['solution']
    assert rows['d04']['solution'] not in adapter().format_prompt_template(sample)


def test_folder_with_the_release_file_name_loads(tmp_path):
    release = tmp_path / 'PHYBench' / 'PHYBench-questions_v1.json'
    release.parent.mkdir()
    release.write_text(SAMPLE.read_text())
    assert sum(len(v) for v in loaded(tmp_path / 'PHYBench').values()) == 14


def test_broken_rows_are_counted_not_fatal(tmp_path, caplog):
    rows = json.loads(SAMPLE.read_text())[:3]
    rows += [{'id': 'x1', 'tag': 'ASTRO', 'content': 'q', 'answer': 'a'}, {'id': 'x2', 'tag': 'OPTICS', 'answer': 'a'}]
    path = tmp_path / 'p.json'
    path.write_text(json.dumps(rows))
    with caplog.at_level(logging.WARNING):
        assert sum(len(v) for v in loaded(path).values()) == 3
    assert 'unknown tag (ids: x1)' in caplog.text and 'no problem text (ids: x2)' in caplog.text


# (problem id, the replayed answer's kind, expected strict verdict)
DEMO_VERDICTS = [
    ('d01', 'correct', True),
    ('d02', 'equivalent', True),
    ('d03', r'equivalent with \left(\right)^{1/2}', True),
    ('d04', 'off by a factor 2', False),
    ('d05', 'wrong exponent', False),
    ('d07', 'expanded logarithm', True),
    ('d08', 'wrong', False),
    ('d09', 'truncated before the answer', False),
    ('d10', 'correct', True),
    ('d11', r'\dfrac', True),
    ('d12', 'non-relativistic limit', False),
    ('d13', r'\sqrt{k/m}', True),
    ('d14', 'E_1 = ... inside the box', True),
]


@pytest.fixture(scope='module')
def demo_run(tmp_path_factory, request):
    from conftest import run_evalscope_eval

    work = tmp_path_factory.mktemp('phybench') / 'run'
    with replay_server(REPLAY) as url:
        return run_evalscope_eval(url, ['phybench'], {'phybench': {'local_path': str(SAMPLE)}}, work)


@pytest.mark.e2e
def test_evalscope_cli_scores_the_demo_answers(demo_run):
    assert demo_run.process.returncode == 0, demo_run.process.stderr[-3000:]
    report = demo_run.reports['phybench']
    assert report['primary_metric_identity']['name'] == 'eed'
    assert report['execution_summary']['requested'] == 14 and report['execution_summary']['errored'] == 0
    reviews = {r['sample_score']['sample_metadata']['id']: r['sample_score']['score'] for r in demo_run.reviews('phybench')}
    for problem, kind, strict in DEMO_VERDICTS:
        assert reviews[problem]['value']['strict_acc'] == float(strict), (problem, kind, reviews[problem])
        assert (reviews[problem]['value']['eed'] == 100.0) == strict, (problem, kind)
    assert 0 < reviews['d04']['value']['eed'] < 100, 'a partly right expression earns partial EED credit'
    strict_metric = demo_run.metric('phybench', 'strict_acc')
    assert strict_metric['num'] == 14


@pytest.mark.integration
def test_replayed_reference_answers_are_strictly_correct(shared_data, tmp_path, evalscope_eval):
    """The engine must recognise PHYBench's own answers, written as the release writes them."""
    release = shared_data / 'phybench' / 'PHYBench-fullques_v1.json'
    rows = json.loads(release.read_text())
    records = [{'match': row['content'], 'response': f"Final answer: {row['answer']}"} for row in rows]
    with replay_server(records) as url:
        run = evalscope_eval(url, ['phybench'], {'phybench': {'local_path': str(release)}}, tmp_path / 'run')
    assert run.process.returncode == 0, run.process.stderr[-3000:]
    strict = run.metric('phybench', 'strict_acc')
    failures = [(r['sample_score']['sample_metadata']['id'], r['sample_score']['score']['explanation'])
                for r in run.reviews('phybench') if r['sample_score']['score']['value'].get('strict_acc') != 1.0]
    assert strict['num'] == len(rows) == 100
    assert strict['score'] >= 0.97, failures


@pytest.mark.e2e
def test_faulty_server_every_sample_accounted_for_then_use_cache_completes(tmp_path, evalscope_eval):
    args = {'phybench': {'local_path': str(SAMPLE)}}
    work = tmp_path / 'run'
    with replay_server(REPLAY, faults='2:500,5:badjson,9:slow', slow_seconds=6) as url:
        first = evalscope_eval(url, ['phybench'], args, work, generation={'timeout': 3})
        summary = first.reports['phybench']['execution_summary']
        assert summary['requested'] == 14 == summary['succeeded'] + summary['errored']
        assert summary['errored'] == 3, summary
        second = evalscope_eval(url, ['phybench'], args, work, extra=['--use-cache', str(work)])
    summary = second.reports['phybench']['execution_summary']
    assert (summary['succeeded'], summary['errored']) == (14, 0), second.process.stderr[-2000:]
