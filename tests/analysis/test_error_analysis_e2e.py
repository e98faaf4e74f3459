"""`evalscope-phys error-analysis` end to end: a real `evalscope eval` run of the demo samples, then the
real CLI against replay judges (valid, garbage, failing) on 127.0.0.1.

The demo's wrong PHYBench answers and the classes the recorded judge gives them
(evalscope_phys/data/demo/error_analysis_judge_replay.jsonl; every other demo answer is right, so the
judge's fallback record answers `none` for any the scorer might reject):

| id  | answer                               | class       | domain          |
|-----|--------------------------------------|-------------|-----------------|
| d04 | heat C V_0^2 (factor 2 lost)          | RR-semantic | electricity     |
| d05 | ring field, x/(R^2+x^2) factor        | RR-symbolic | electricity     |
| d08 | efficiency T_c/T_h                    | PP          | thermodynamics  |
| d09 | truncated (garbage reply, then fixed) | unclear     | optics          |
| d12 | non-relativistic kinetic energy      | PP          | modern          |

By hand: 5 judged, PP 2/5 = 0.4, RR-semantic 1/5 = 0.2, RR-symbolic 1/5 = 0.2, unclear 1/5 = 0.2,
none 0; electricity RR-semantic 0.5 and RR-symbolic 0.5; 6 judge requests (d09's retry included).
"""
from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Dict, List

import pytest

from evalscope_phys.analysis.reviews import scan_reviews
from evalscope_phys.demo import DEMO_DIR, demo_config
from evalscope_phys.serve import build_records, replay_server

JUDGE_REPLAY = DEMO_DIR / 'error_analysis_judge_replay.jsonl'
DATASETS = ['phybench', 'physreason', 'physunibench']
EXPECTED = {'d04': 'RR-semantic', 'd05': 'RR-symbolic', 'd08': 'PP', 'd09': 'unclear', 'd12': 'PP'}
MODEL = 'replay'  # the model name run_evalscope_eval gives EvalScope
pytestmark = pytest.mark.e2e


@pytest.fixture(scope='module')
def demo_run(tmp_path_factory) -> Path:
    from conftest import run_evalscope_eval

    config = demo_config(DATASETS)['benchmarks']
    records = []
    for spec in config.values():
        text = (DEMO_DIR / spec['replay']).read_text(encoding='utf-8')
        records += [json.loads(line) for line in text.split('\n') if line.strip()]
    work = tmp_path_factory.mktemp('error_analysis') / 'run'
    with replay_server(records) as url:
        run = run_evalscope_eval(url, DATASETS, {n: {'local_path': str(DEMO_DIR / s['local_path'])}
                                                 for n, s in config.items()}, work)
    assert run.process.returncode == 0, run.process.stderr[-3000:]
    return work


@pytest.fixture()
def run_dir(demo_run: Path, tmp_path: Path) -> Path:
    """A fresh copy of the demo run per test, so caches never leak between tests."""
    copy = tmp_path / 'run'
    shutil.copytree(demo_run, copy, ignore=shutil.ignore_patterns('error_analysis'))
    return copy


def analyse(run: Path, url: str, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, '-m', 'evalscope_phys', 'error-analysis', str(run), '--judge-model', 'judge',
           '--judge-api-url', url, '--judge-retries', '1', '--judge-backoff', '0.01', *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def requests_seen(url: str) -> int:
    with urllib.request.urlopen(url.removesuffix('/v1') + '/stats', timeout=5) as response:
        return json.loads(response.read())['requests']


def cache_rows(run: Path, dataset: str) -> List[dict]:
    path = run / 'error_analysis' / MODEL / f'{dataset}.jsonl'
    if not path.exists():
        return []
    text = (run / 'error_analysis' / MODEL / f'{dataset}.jsonl').read_text(encoding='utf-8')
    return [json.loads(line) for line in text.split('\n') if line]


def review_values(run: Path, dataset: str) -> Dict[str, dict]:
    out = {}
    for path in run.glob(f'reviews/{MODEL}/{dataset}_*.jsonl'):
        for line in path.read_text(encoding='utf-8').split('\n'):
            if line:
                score = json.loads(line)['sample_score']
                out[score['sample_metadata']['id']] = score['score']['value']
    return out


def tsv_rows(run: Path, dataset: str) -> Dict[str, dict]:
    with open(run / 'error_analysis' / f'{dataset}.tsv', encoding='utf-8') as handle:
        return {row['group']: row for row in csv.DictReader(handle, delimiter='\t')}


def test_every_wrong_phybench_sample_is_classified_shares_match_and_a_rerun_makes_no_call(run_dir: Path) -> None:
    scan = scan_reviews(run_dir, 'phybench')
    wrong = {s.sample_id for s in scan.wrong}
    # on a loaded machine the engine may time out on an answer (unscored: not analysed), but never call it right
    values = review_values(run_dir, 'phybench')
    assert all('strict_acc' not in values[i] for i in set(EXPECTED) - wrong), {i: values[i] for i in EXPECTED}
    expected = {i: EXPECTED.get(i, 'none') for i in wrong}  # `none`: right answers a stricter scorer rejects
    retries = int('d09' in wrong)
    with replay_server(JUDGE_REPLAY) as url:
        first = analyse(run_dir, url)
        assert first.returncode == 0, first.stderr[-3000:]
        assert requests_seen(url) == len(wrong) + retries
        assert {r['id']: r['class'] for r in cache_rows(run_dir, 'phybench')} == expected
        rows = tsv_rows(run_dir, 'phybench')
        n = len(wrong)
        assert (int(rows['all']['judged']), int(rows['all']['errors'])) == (n, 0)
        for label in ('PP', 'RR-semantic', 'RR-symbolic', 'none', 'unclear', 'unparseable'):
            count = sum(c == label for c in expected.values())
            assert int(rows['all'][label]) == count
            assert float(rows['all'][f'{label}_share']) == pytest.approx(count / n, abs=1e-4)
        if wrong == set(EXPECTED):  # the demo as scored on an idle machine: the shares by hand
            assert [rows['all'][f'{k}_share'] for k in ('PP', 'RR-semantic', 'RR-symbolic', 'unclear', 'none')] == [
                '0.4000', '0.2000', '0.2000', '0.2000', '0.0000']
            assert rows['domain=electricity']['RR-semantic_share'] == rows['domain=electricity']['RR-symbolic_share'] == '0.5000'
            assert rows['domain=modern']['PP_share'] == rows['domain=thermodynamics']['PP_share'] == '1.0000'
            assert requests_seen(url) == 6
        report = (run_dir / 'error_analysis' / 'phybench.md').read_text(encoding='utf-8')
        nones = sum(c == 'none' for c in expected.values())
        assert report in first.stdout and f'## `none`: the judge found the solution right ({nones})' in report
        assert (run_dir / 'error_analysis' / 'phybench.png').read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
        if retries:
            d09 = next(r for r in cache_rows(run_dir, 'phybench') if r['id'] == 'd09')
            assert len(d09['replies']) == 2 and d09['step'] is None  # the garbage reply, then the corrected one

        calls = requests_seen(url)
        again = analyse(run_dir, url)
        assert again.returncode == 0 and requests_seen(url) == calls  # zero new judge calls
        assert f'{n} sample(s), 0 judge request(s), {n} from the cache' in again.stderr
        assert len(cache_rows(run_dir, 'phybench')) == n  # append-only, one line per sample
        assert (run_dir / 'error_analysis' / 'phybench.md').read_text(encoding='utf-8') == report


def test_the_records_worked_solutions_reach_the_judge(run_dir: Path) -> None:
    by_id = {s.sample_id: s for d in DATASETS for s in scan_reviews(run_dir, d).wrong}
    sample = json.loads((DEMO_DIR / 'phybench_sample.json').read_text(encoding='utf-8'))
    assert by_id['d04'].reference_solution == next(r['solution'] for r in sample if r['id'] == 'd04')
    assert 'Sub-question 3:\nThe $10\\,\\Omega$ resistor carries the same current' in by_id['pr-02'].reference_solution
    assert by_id['11'].reference_solution == 'Resistors in series add: 3 + 6 = 9 ohm.'  # PhysUniBench MCQ `parsing`
    assert by_id['902'].reference_solution.startswith('Step 1\nThe range on level ground')


def test_physreason_scorer_disagreement_is_listed_as_none(run_dir: Path) -> None:
    with replay_server(JUDGE_REPLAY) as url:
        result = analyse(run_dir, url, '--dataset', 'physreason')
    assert result.returncode == 0, result.stderr[-3000:]
    rows = tsv_rows(run_dir, 'physreason')
    assert (rows['all']['judged'], rows['all']['none'], rows['all']['RR-symbolic']) == ('2', '1', '1')
    assert rows['difficulty=hard']['none_share'] == '1.0000'
    report = (run_dir / 'error_analysis' / 'physreason.md').read_text(encoding='utf-8')
    assert '## `none`: the judge found the solution right (1)' in report
    assert f'| {MODEL} | pr-04 | hard |' in report and 'No, the magnetic force does no work' in report


def test_failing_judge_exits_1_caches_nothing_and_the_next_run_asks_only_for_those(run_dir: Path) -> None:
    with replay_server(JUDGE_REPLAY, faults='every=1:500') as url:
        failed = analyse(run_dir, url, '--limit', '2')
        assert failed.returncode == 1 and 'run the same command again to retry the failed calls' in failed.stderr
        assert f'error analysis: 2 of 2 judge call(s) failed at {url}' in failed.stderr
        assert requests_seen(url) == 4  # 2 samples x (1 try + 1 retry)
    assert cache_rows(run_dir, 'phybench') == []
    rows = tsv_rows(run_dir, 'phybench')
    assert (rows['all']['judged'], rows['all']['errors']) == ('0', '2')
    assert '## errors: the judge call failed' in (run_dir / 'error_analysis' / 'phybench.md').read_text()
    with replay_server(JUDGE_REPLAY) as url:
        assert analyse(run_dir, url, '--limit', '2').returncode == 0
        done = {r['id'] for r in cache_rows(run_dir, 'phybench')}
        before = requests_seen(url)
        assert len(done) == 2 and analyse(run_dir, url).returncode == 0
        rest = {s.sample_id for s in scan_reviews(run_dir, 'phybench').wrong} - done
        assert requests_seen(url) - before == len(rest) + ('d09' in rest)  # d09 costs its corrective retry


@pytest.mark.parametrize('body', [b'{"choices": [{"message": {"content": "\xff\xfe PP"}}]}', b'\xc3\x28'])
def test_a_judge_reply_that_is_not_utf8_is_a_failed_call_not_an_abort(run_dir: Path, body: bytes) -> None:
    """Before: a UnicodeDecodeError traceback, and the datasets already analysed were not written."""
    from audit.stub_server import StubServer
    with StubServer(lambda path, request: (200, body)) as server:
        done = analyse(run_dir, server.url, '--limit', '2')
    assert done.returncode == 1 and 'Traceback' not in done.stderr, done.stderr[-3000:]
    assert f'error analysis: 2 of 2 judge call(s) failed at {server.url}' in done.stderr
    rows = tsv_rows(run_dir, 'phybench')
    assert (rows['all']['judged'], rows['all']['errors']) == ('0', '2')
    assert 'malformed response body' in (run_dir / 'error_analysis' / 'phybench.md').read_text(encoding='utf-8')


def test_garbage_judge_is_recorded_unparseable(run_dir: Path) -> None:
    garbage = build_records([('MODEL SOLUTION', 'Honestly, this looks wrong somewhere.')], judge=True)
    with replay_server(garbage) as url:
        result = analyse(run_dir, url, '--dataset', 'physunibench')
        assert result.returncode == 0 and requests_seen(url) == 4  # 2 samples, each retried once
    rows = tsv_rows(run_dir, 'physunibench')
    assert (rows['all']['judged'], rows['all']['unparseable'], rows['all']['unparseable_share']) == ('2', '2', '1.0000')
    report = (run_dir / 'error_analysis' / 'physunibench.md').read_text(encoding='utf-8')
    assert '## unparseable: two replies broke the contract (2)' in report and 'no JSON object' in report


def test_a_torn_last_cache_line_costs_one_call(run_dir: Path) -> None:
    with replay_server(JUDGE_REPLAY) as url:
        assert analyse(run_dir, url, '--dataset', 'physreason').returncode == 0
        path = run_dir / 'error_analysis' / MODEL / 'physreason.jsonl'
        text = path.read_text(encoding='utf-8')
        path.write_text(text[:len(text) - 60], encoding='utf-8')  # a crash while writing the last line
        before = requests_seen(url)
        result = analyse(run_dir, url, '--dataset', 'physreason')
        assert result.returncode == 0 and requests_seen(url) - before == 1 and 'dropped 1 unreadable line' in result.stderr
    assert len(cache_rows(run_dir, 'physreason')) == 2


def test_usage_errors_exit_2_with_a_message(run_dir: Path, tmp_path: Path) -> None:
    help_ = subprocess.run([sys.executable, '-m', 'evalscope_phys', 'error-analysis', '--help'],
                           capture_output=True, text=True, timeout=60)
    assert help_.returncode == 0 and '--judge-api-url' in help_.stdout
    bad = analyse(tmp_path / 'missing', 'http://127.0.0.1:9/v1')
    assert bad.returncode == 2 and 'not a directory' in bad.stderr
    unknown = analyse(run_dir, 'http://127.0.0.1:9/v1', '--dataset', 'seephys')
    assert unknown.returncode == 2 and "no dataset 'seephys'" in unknown.stderr


def test_a_symlinked_output_dir_or_cache_file_is_refused_and_nothing_is_written_outside(run_dir: Path,
                                                                                       tmp_path: Path) -> None:
    outside = tmp_path / 'outside'
    outside.mkdir()
    (run_dir / 'error_analysis').symlink_to(outside, target_is_directory=True)
    result = analyse(run_dir, 'http://127.0.0.1:9/v1', '--dataset', 'physreason')
    assert result.returncode == 2 and 'symbolic link' in result.stderr and 'Traceback' not in result.stderr
    assert list(outside.iterdir()) == []
    (run_dir / 'error_analysis').unlink()
    (run_dir / 'error_analysis' / MODEL).mkdir(parents=True)
    target = outside / 'victim.jsonl'
    target.write_bytes(b'{"keep": 1}\n{"torn')
    (run_dir / 'error_analysis' / MODEL / 'physreason.jsonl').symlink_to(target)
    result = analyse(run_dir, 'http://127.0.0.1:9/v1', '--dataset', 'physreason')
    assert result.returncode == 2 and 'symbolic link' in result.stderr
    assert target.read_bytes() == b'{"keep": 1}\n{"torn'
