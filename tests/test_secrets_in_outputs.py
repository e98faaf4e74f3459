"""End to end: keys and credential headers given to a run reach the server, and no file or log line.

One ``evalscope eval`` and one ``evalscope-phys suite run`` against the replay server, each given an
API key, Azure's ``api-key`` header and other credential headers (model and judge); afterwards every
file under the work dir (``configs/task_config.yaml``, ``logs/eval_log.log``, ``suite.json``,
predictions, reports) and the process output is searched for the secret values.
"""
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml

from conftest import run_evalscope_eval
from evalscope_phys.serve import replay
from evalscope_phys.serve.replay import replay_server

pytestmark = pytest.mark.e2e

HERE = Path(__file__).resolve().parent
MINI = HERE / 'suite' / 'fixtures' / 'phybench_mini.json'
REPLAY = HERE / 'suite' / 'fixtures' / 'replay_mini.jsonl'
SECRET = 'SEKRET'
#: sent with every model request (the Authorization header carries the API key)
HEADERS = {'api-key': f'{SECRET}-azure', 'X-Custom-Token': f'{SECRET}-token', 'X-Trace': 'visible-trace',
           'Ocp-Apim-Subscription-Key': f'{SECRET}-apim', 'X-Custom-Auth': f'{SECRET}-auth',
           'X-Portkey-Virtual-Key': f'{SECRET}-portkey'}


@pytest.fixture()
def seen_headers(monkeypatch):
    """Headers of every chat request the replay server receives (the values must arrive unmasked)."""
    seen, lock = [], threading.Lock()
    original = replay.ReplayHandler.do_POST

    def do_post(handler):
        with lock:
            seen.append(dict(handler.headers))
        return original(handler)

    monkeypatch.setattr(replay.ReplayHandler, 'do_POST', do_post)
    return seen


def leaks(work_dir: Path, *outputs: str):
    """(where, line) for every occurrence of the secret marker in the files under ``work_dir`` and ``outputs``."""
    found = []
    for path in sorted(p for p in work_dir.rglob('*') if p.is_file()):
        text = path.read_bytes().decode('utf-8', 'replace')
        found += [(str(path.relative_to(work_dir)), line[:200]) for line in text.splitlines() if SECRET in line]
    for number, output in enumerate(outputs):
        found += [(f'output {number}', line[:200]) for line in output.splitlines() if SECRET in line]
    return found


def check_requests(seen):
    assert seen, 'the server saw no request'
    got = {k.lower(): v for k, v in seen[0].items()}
    assert got['api-key'] == HEADERS['api-key'] and got['x-custom-token'] == HEADERS['X-Custom-Token']
    assert got['authorization'] == f'Bearer {SECRET}-key', 'the API key is the bearer token sent'


def test_evalscope_eval_writes_and_logs_no_credential(tmp_path, seen_headers):
    judge = {'strategy': 'rule', 'models': [{'model_id': 'j', 'api_url': f'http://u:{SECRET}-pw@127.0.0.1:9/v1?key={SECRET}-q',
                                             'api_key': f'{SECRET}-judge',
                                             'generation_config': {'extra_headers': {'api-key': f'{SECRET}-j'}}}]}
    records = [json.loads(line) for line in REPLAY.read_text().splitlines() if line.strip()]
    with replay_server(records) as url:
        run = run_evalscope_eval(url, ['phybench'], {'phybench': {'local_path': str(MINI)}}, tmp_path / 'run',
                                 judge=judge, generation={'extra_headers': HEADERS},
                                 extra=['--api-key', f'{SECRET}-key'])
    assert run.process.returncode == 0, run.process.stderr[-3000:]
    assert run.reports['phybench']['execution_summary']['succeeded'] == 4
    check_requests(seen_headers)
    config = yaml.safe_load((tmp_path / 'run' / 'configs' / 'task_config.yaml').read_text())
    assert config['generation_config']['extra_headers']['X-Trace'] == 'visible-trace'
    assert leaks(tmp_path / 'run', run.process.stdout, run.process.stderr) == []


def test_suite_run_writes_and_logs_no_credential(tmp_path, seen_headers):
    datasets = tmp_path / 'datasets'
    datasets.mkdir()
    (datasets / 'phybench.yaml').write_text(yaml.safe_dump({'phybench': {'local_path': str(MINI)}}))
    suite = tmp_path / 'one.yaml'
    suite.write_text(yaml.safe_dump({
        'name': 'one', 'datasets': ['phybench'], 'seeds': [0], 'eval_batch_size': 2,
        'generation': {'max_tokens': 256, 'timeout': 10, 'retries': 1, 'retry_interval': 0,
                       'extra_headers': HEADERS},
        'model_args': {'max_retries': 0}}))
    work = tmp_path / 'out'
    env = {**os.environ, 'HF_HUB_OFFLINE': '1', 'EVALSCOPE_PHYS_API_KEY': f'{SECRET}-key'}
    records = [json.loads(line) for line in REPLAY.read_text().splitlines() if line.strip()]
    with replay_server(records) as url:
        run = subprocess.run([sys.executable, '-m', 'evalscope_phys', 'suite', 'run', str(suite), '--model', 'replay',
                              '--api-url', url, '--work-dir', str(work), '--verbose'],
                             capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    check_requests(seen_headers)
    manifest = json.loads((work / 'suite.json').read_text())
    headers = manifest['task_configs']['seed_0']['generation_config']['extra_headers']
    assert headers == {'api-key': '***', 'X-Custom-Token': '***', 'X-Trace': 'visible-trace',
                       'Ocp-Apim-Subscription-Key': '***', 'X-Custom-Auth': '***', 'X-Portkey-Virtual-Key': '***'}
    assert leaks(work, run.stdout, run.stderr) == []
