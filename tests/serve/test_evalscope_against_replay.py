"""The real ``evalscope eval`` CLI against the replay server, with a 500, a stall and bad JSON injected.

Uses the built-in ``general_qa`` benchmark on a small JSONL of our own, so nothing here depends on
our adapters. The flags are the ones that make a faulty server cost seconds:
``timeout`` 3 s per request, one attempt (``retries=1``, no SDK retries), no retry sleep.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from evalscope_phys.serve import build_records, replay_server, write_records

pytestmark = pytest.mark.e2e

EVALSCOPE = [str(Path(sys.executable).with_name('evalscope'))]
QUESTIONS = [(f'REPLAY-Q{i}: a cart moves at {i} m/s for 2 s. How far does it go, in metres?', f'{2 * i}')
             for i in range(1, 7)]
# Requests 2, 3 and 4 fail; with one worker they are samples 2, 3 and 4.
FAULTS = '2:500,3:slow,4:badjson'
FAST_FAILURE_FLAGS = [
    '--ignore-errors',
    '--eval-batch-size', '1',
    '--generation-config', json.dumps({'timeout': 3, 'retries': 1, 'retry_interval': 0, 'temperature': 0.0}),
    '--model-args', json.dumps({'max_retries': 0}),
]


def evalscope_eval(url: str, data_dir: Path, work_dir: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = EVALSCOPE + [
        'eval', '--model', 'replay-model', '--eval-type', 'openai_api', '--api-url', url, '--api-key', 'EMPTY',
        '--datasets', 'general_qa',
        '--dataset-args', json.dumps({'general_qa': {'local_path': str(data_dir), 'metric_list': ['Rouge']}}),
        '--work-dir', str(work_dir), *FAST_FAILURE_FLAGS, *extra,
    ]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def report(work_dir: Path) -> dict:
    return json.loads((work_dir / 'reports' / 'replay-model' / 'general_qa.json').read_text())


def predicted_ids(work_dir: Path) -> list:
    lines = (work_dir / 'predictions' / 'replay-model' / 'general_qa_default.jsonl').read_text().splitlines()
    return sorted(json.loads(line)['index'] for line in lines)


def test_faulty_run_accounts_for_every_sample_and_use_cache_completes_it(tmp_path):
    data_dir = tmp_path / 'data'
    data_dir.mkdir()
    write_records([{'query': q, 'response': a} for q, a in QUESTIONS], data_dir / 'default.jsonl')
    replay = build_records([(q.split(':')[0] + ':', f'It goes {a} m.') for q, a in QUESTIONS])
    work_dir = tmp_path / 'run'

    with replay_server(replay, faults=FAULTS, slow_seconds=60) as url:
        evalscope_eval(url, data_dir, work_dir, '--no-timestamp')
        first = report(work_dir)['execution_summary']
        assert first['requested'] == len(QUESTIONS)
        assert first['requested'] == first['succeeded'] + first['errored']
        assert first['errored'] == 3 and first['incomplete'] is True
        assert predicted_ids(work_dir) == [0, 4, 5], 'the faulted samples 1-3 leave no cached prediction'

        evalscope_eval(url, data_dir, work_dir, '--use-cache', str(work_dir))
        second = report(work_dir)
        stats = requests.get(url.removesuffix('/v1') + '/stats', timeout=5).json()

    assert second['execution_summary']['requested'] == len(QUESTIONS)
    assert second['execution_summary']['succeeded'] == len(QUESTIONS)
    assert second['execution_summary']['errored'] == 0
    assert predicted_ids(work_dir) == list(range(len(QUESTIONS)))
    assert stats['requests'] == len(QUESTIONS) + 3, 'the cached run asks only for the three failed samples'
    assert [f['kind'] for f in stats['faults_fired']] == ['500', 'slow', 'badjson']
    recall = next(m for m in second['metrics'] if m['identity'] == second['primary_metric_identity'])
    assert recall['num'] == len(QUESTIONS) and recall['score'] == pytest.approx(1.0)
