"""A judge that fails never passes silently: dead, garbage, non-JSON and stale judges through the real CLI.

A stale judge answers "equivalent" for another case (the previous question's verdict, naming that case)
or names no case at all: before, its verdict was taken (phyx_oe_rules 0.750 -> 0.875, ``failures: {}``).

One ``evalscope eval`` per kind of failure, on ``physolym`` and ``phyx_oe_rules`` at once (our own
samples, answers replayed): the run completes, the answers routed to the judge are counted in
``judged`` and ``judge_failed``, left unscored (``scored`` 0, never a rule 0) and counted as not
correct in the accuracies (their ``_all`` view: a dead judge never raises a primary metric),
and ``scripts/score_reports.sh`` exits non-zero naming the benchmark and the judge.
"""
from __future__ import annotations

import json
import shutil
import socket
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from conftest import run_evalscope_eval
from evalscope_phys.demo import DEMO_DIR
from evalscope_phys.judge.rules_first import equivalence_case
from evalscope_phys.serve.replay import replay_server

ROOT = Path(__file__).resolve().parents[2]
SCORE_REPORTS = ROOT / 'scripts' / 'score_reports.sh'
DATASETS = ('physolym', 'phyx_oe_rules')
REPLAYS = [DEMO_DIR / 'physolym_replay.jsonl', DEMO_DIR / 'phyx_replay.jsonl']
#: two problems of each demo sample: one the rules decide, one text answer ("anticlockwise") they cannot
PHYSOLYM_IDS = ('po-01-en', 'po-05-en')
PHYX_INDICES = (0, 6)
#: fail fast: one attempt, no SDK retries, a short timeout (see docs/replay-server.md)
FAIL_FAST = {'model_args': {'max_retries': 0},
             'generation_config': {'temperature': 0.0, 'timeout': 5, 'retries': 1, 'retry_interval': 0}}
JUDGE_PROMPT_START = 'You are grading a physics answer'


def small_samples(root: Path) -> dict:
    """dataset_args for two-problem copies of the demo samples (the judge path is what is tested)."""
    physolym = root / 'physolym.jsonl'
    lines = (DEMO_DIR / 'physolym_sample.jsonl').read_text(encoding='utf-8').splitlines()
    physolym.write_text(''.join(line + '\n' for line in lines if json.loads(line)['id'] in PHYSOLYM_IDS),
                        encoding='utf-8')
    phyx = root / 'phyx'
    (phyx / 'test_image').mkdir(parents=True)
    rows = [json.loads(line) for line in (DEMO_DIR / 'phyx' / 'PhyX_test.jsonl').read_text().splitlines()]
    rows = [row for row in rows if row['index'] in PHYX_INDICES]
    (phyx / 'PhyX_test.jsonl').write_text(''.join(json.dumps(row) + '\n' for row in rows))
    for row in rows:
        shutil.copy(DEMO_DIR / 'phyx' / 'test_image' / row['image'], phyx / 'test_image' / row['image'])
    return {'physolym': {'local_path': str(physolym)}, 'phyx_oe_rules': {'local_path': str(phyx)}}


def model_records() -> list:
    return [json.loads(line) for path in REPLAYS for line in path.read_text(encoding='utf-8').splitlines()
            if line.strip() and not json.loads(line).get('judge')]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]  # closed when the block ends: nothing listens there


@contextmanager
def failing_judge(kind: str) -> Iterator[str]:
    if kind == 'dead':
        yield f'http://127.0.0.1:{closed_port()}/v1'
        return
    replies = {'garbage': 'They look the same to me, more or less.', 'non_json': 'unused',
               # a verdict for the previous question (it names that case), and one that names no case
               'stale': json.dumps({'case': STALE_CASE, 'verdict': 'equivalent'}),
               'no_case': json.dumps({'verdict': 'equivalent'})}
    garbage = [{'match': JUDGE_PROMPT_START, 'judge': True, 'response': replies[kind]}]
    with replay_server(garbage, faults='every=1:badjson' if kind == 'non_json' else None) as url:
        yield url


#: the case id of another question, as a judge answering the previous question would copy it
STALE_CASE = equivalence_case('How far does the block slide?', r'2\,\mathrm{m}', r'2\,\mathrm{m}')
#: the judge failed by replying, but not with a verdict for the case asked
PARSE_FAILURES = ('garbage', 'stale', 'no_case')


@pytest.fixture(scope='module', params=['dead', 'garbage', 'non_json', 'stale', 'no_case'])
def failed_run(request, tmp_path_factory):
    kind = request.param
    judge_id = f'{kind}-judge'
    root = tmp_path_factory.mktemp(f'judge_{kind}')
    dataset_args = small_samples(root)
    with replay_server(model_records()) as model_url, failing_judge(kind) as judge_url:
        judge = {'strategy': 'auto', 'models': [{'model_id': judge_id, 'api_url': judge_url, 'api_key': 'EMPTY',
                                                 **FAIL_FAST}]}
        run = run_evalscope_eval(model_url, list(DATASETS), dataset_args, root / 'run', judge=judge)
    return kind, judge_id, run


@pytest.mark.e2e
def test_the_run_completes_and_the_report_counts_the_failure(failed_run):
    kind, judge_id, run = failed_run
    assert run.process.returncode == 0, run.process.stderr[-3000:]
    for dataset in DATASETS:
        report = run.reports[dataset]
        assert report['execution_summary'] == {**report['execution_summary'], 'requested': 2, 'errored': 0}
        scores = [r['sample_score']['score'] for r in run.reviews(dataset)]
        # the text answer always goes to the judge; an engine timeout on a loaded machine may add the other
        judged = [s for s in scores if s['value']['judged'] == 1.0]
        assert judged and any('anticlockwise' in json.dumps(s) for s in judged)
        assert run.metric(dataset, 'judged')['score'] == pytest.approx(len(judged) / 2)
        assert run.metric(dataset, 'judge_failed')['score'] == pytest.approx(len(judged) / 2)
        for score in judged:  # every judge call failed: counted, unscored, and not correct (the _all view)
            assert score['value']['judge_failed'] == 1.0 and score['value']['scored'] == 0.0, score['value']
            assert score['value']['strict_acc'] == score['value']['strict_acc_all'] == 0.0, score['value']
            assert score['value']['lenient_acc'] == score['value']['lenient_acc_all'] == 0.0, score['value']
            assert score['metadata']['judge_failed'], score['metadata']
            assert 'counted as not correct' in score['explanation']
            if kind in ('stale', 'no_case'):  # a verdict, but not for this case: the failure says so
                why = 'another case' if kind == 'stale' else 'names no case'
                assert why in json.dumps(score['metadata']['judge_failed']), score['metadata']['judge_failed']
        # a dead judge never raises the primary metric: failed calls stay in its denominator
        assert run.metric(dataset, 'lenient_acc')['score'] == pytest.approx(
            run.metric(dataset, 'lenient_acc_all')['score'])
        summary = report['judge_summary']
        assert summary['judge_models'] == [judge_id]
        assert sum(summary['failures'].values()) >= len(judged) and summary['valid_observations'] == 0
        kinds = set(summary['failures'])
        assert kinds == ({'parse_error'} if kind in PARSE_FAILURES else {'transport_error'}), summary['failures']


@pytest.mark.e2e
@pytest.mark.skipif(shutil.which('jq') is None, reason='score_reports.sh needs jq')
def test_score_reports_fails_naming_the_benchmark_and_the_judge(failed_run):
    kind, judge_id, run = failed_run
    result = subprocess.run(['bash', str(SCORE_REPORTS), str(run.work_dir)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert result.stdout == ''
    for dataset in DATASETS:
        assert f"judge_summary.failures: benchmark '{dataset}', judge '{judge_id}'" in result.stderr, result.stderr
