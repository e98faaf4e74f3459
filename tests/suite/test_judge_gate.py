"""`suite run` with `judge.selftest_min`: the judge is asked about known-verdict pairs before anything is spent."""
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
import yaml

from evalscope_phys.judge.rules_first import judge_prompt
from evalscope_phys.judge.selftest import DEFAULT_REFERENCE_FILES, build_pairs, read_references
from evalscope_phys.serve import build_records, replay_server

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / 'evalscope_phys' / 'data' / 'demo'


def suite_file(tmp_path: Path, bar: float) -> Path:
    datasets = tmp_path / 'yamls' / 'datasets'
    datasets.mkdir(parents=True)
    (datasets / 'physolym.yaml').write_text(yaml.safe_dump({'physolym': {
        'local_path': str(DEMO / 'physolym_sample.jsonl'), 'subset_list': ['en']}}))
    suite = tmp_path / 'yamls' / 'suites' / 'gate.yaml'
    suite.parent.mkdir()
    suite.write_text(yaml.safe_dump({
        'name': 'gate', 'datasets': ['physolym'], 'seeds': [0],
        'judge': {'strategy': 'auto', **({} if bar is None else {'selftest_min': bar})},
        'generation': {'max_tokens': 256, 'timeout': 10, 'retries': 0}, 'model_args': {'max_retries': 0}}))
    return suite


def requests(url):
    with urllib.request.urlopen(url.rsplit('/v1', 1)[0] + '/stats', timeout=10) as response:
        return json.load(response)['requests']


def suite_run(suite, model_url, judge_url, work):
    return subprocess.run([sys.executable, '-m', 'evalscope_phys.cli', 'suite', 'run', str(suite), '--model', 'replay',
                           '--api-url', model_url, '--judge-model', 'judge', '--judge-api-url', judge_url,
                           '--work-dir', str(work)], capture_output=True, text=True, timeout=600,
                          env={**os.environ, 'HF_HUB_OFFLINE': '1'})


def model_records():
    return [json.loads(line) for line in (DEMO / 'physolym_replay.jsonl').read_text().splitlines() if line.strip()]


def test_a_judge_that_fails_the_selftest_stops_the_suite_before_any_model_request(tmp_path):
    always_yes = build_records([('You are grading a physics answer', '{"case": "{case}", "verdict": "equivalent"}')],
                               judge=True)
    with replay_server(model_records()) as model_url, replay_server(always_yes) as judge_url:
        done = suite_run(suite_file(tmp_path, 0.95), model_url, judge_url, tmp_path / 'out')
        assert requests(model_url) == 0 and requests(judge_url) == 100
    assert done.returncode == 1 and 'below judge.selftest_min 0.95' in done.stderr, done.stderr[-2000:]
    assert not (tmp_path / 'out' / 'seed_0').exists()


def test_a_judge_that_passes_the_selftest_lets_the_suite_run(tmp_path):
    pairs = build_pairs(read_references(DEFAULT_REFERENCE_FILES))
    right = build_records([(judge_prompt(p.question, p.reference, p.answer),
                            json.dumps({'case': '{case}',
                                        'verdict': 'equivalent' if p.expected else 'not_equivalent'})) for p in
                           {judge_prompt(p.question, p.reference, p.answer): p for p in pairs}.values()], judge=True)
    words = build_records([(['You are grading', 'anticlockwise (seen from above)'],
                            '{"case": "{case}", "verdict": "equivalent"}')],
                          judge=True)
    with replay_server(model_records()) as model_url, replay_server(right + words) as judge_url:
        done = suite_run(suite_file(tmp_path, 0.95), model_url, judge_url, tmp_path / 'out')
        assert requests(model_url) > 0
    assert done.returncode == 0, done.stderr[-3000:]
    assert 'judge self-test passed: 1.000' in done.stderr


def test_judge_calls_that_fail_during_the_run_fail_the_suite_naming_seed_benchmark_count_and_endpoint(tmp_path):
    garbage = build_records([('You are grading a physics answer', 'they look the same to me')], judge=True)
    with replay_server(model_records()) as model_url, replay_server(garbage) as judge_url:
        done = suite_run(suite_file(tmp_path, None), model_url, judge_url, tmp_path / 'out')
    assert done.returncode == 1, done.stderr[-3000:]
    assert 'evalscope-phys suite: suite run seed 0 physolym: ' in done.stderr
    assert f'judge call(s) failed at {judge_url}' in done.stderr
    assert list((tmp_path / 'out' / 'seed_0' / 'reports').glob('*/physolym.json'))  # results kept
