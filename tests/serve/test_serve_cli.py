"""``evalscope-phys serve`` as a real subprocess: port file, answers, clean exit on SIGTERM."""
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests

from evalscope_phys.serve import build_records, write_records

SERVE = [sys.executable, '-m', 'evalscope_phys', 'serve']


def wait_for(path: Path, proc: subprocess.Popen, seconds: float = 20) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists():
            return path.read_text().strip()
        assert proc.poll() is None, f'server exited early: {proc.communicate()}'
        time.sleep(0.05)
    raise AssertionError('server did not write its port file')


def test_serve_answers_and_stops_cleanly_on_sigterm(tmp_path):
    replay = write_records(build_records([('pendulum of length 1 m', r'T = \boxed{2.0\,\mathrm{s}}')]),
                           tmp_path / 'replay.jsonl')
    port_file = tmp_path / 'port'
    proc = subprocess.Popen(SERVE + ['--replay', str(replay), '--port', '0', '--port-file', str(port_file),
                                     '--faults', '2:500'],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = int(wait_for(port_file, proc))
        url = f'http://127.0.0.1:{port}/v1'
        assert proc.stdout.readline().strip() == url, 'the URL is printed on stdout'
        body = {'model': 'm', 'messages': [{'role': 'user', 'content': 'A pendulum of length 1 m swings.'}]}
        first = requests.post(url + '/chat/completions', json=body, timeout=5)
        assert first.json()['choices'][0]['message']['content'] == r'T = \boxed{2.0\,\mathrm{s}}'
        assert requests.post(url + '/chat/completions', json=body, timeout=5).status_code == 500
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert 'stopped after 2 chat requests (1 faults, 0 unmatched)' in err
    assert 'Traceback' not in err


def test_serve_rejects_a_bad_replay_file_or_fault_spec(tmp_path):
    bad = tmp_path / 'bad.jsonl'
    bad.write_text(json.dumps({'match': 'q'}) + '\n')
    result = subprocess.run(SERVE + ['--replay', str(bad)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and 'bad.jsonl:1' in result.stderr and 'Traceback' not in result.stderr
    good = write_records(build_records([('q', 'a')]), tmp_path / 'good.jsonl')
    result = subprocess.run(SERVE + ['--replay', str(good), '--faults', '3:teapot'], capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 2 and "'3:teapot'" in result.stderr
    result = subprocess.run(SERVE + ['--replay', str(tmp_path / 'absent.jsonl')], capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 2 and 'replay file not found' in result.stderr


def test_serve_demo_plays_the_demo_answers(tmp_path):
    """`serve --demo` is the model stand-in of the README's real-model example."""
    from evalscope_phys.demo import DEMO_DIR

    port_file = tmp_path / 'port'
    proc = subprocess.Popen(SERVE + ['--demo', '--port', '0', '--port-file', str(port_file)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = f'http://127.0.0.1:{int(wait_for(port_file, proc))}/v1'
        first = json.loads((DEMO_DIR / 'phyx_replay.jsonl').read_text().splitlines()[0])
        body = {'model': 'M', 'messages': [{'role': 'user', 'content': f'... {first["match"]} ...'}]}
        reply = requests.post(url + '/chat/completions', json=body, timeout=5).json()
        assert reply['choices'][0]['message']['content'] == first['response']
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
    assert proc.returncode == 0


def test_a_non_loopback_host_is_refused_without_allow_remote(tmp_path):
    replay = write_records(build_records([('x', 'y')]), tmp_path / 'replay.jsonl')
    done = subprocess.run(SERVE + ['--replay', str(replay), '--host', '0.0.0.0'], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and '--allow-remote' in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_is_loopback():
    from evalscope_phys.serve.replay import is_loopback
    assert [is_loopback(h) for h in ('127.0.0.1', 'localhost', '::1', '127.0.0.2', '0.0.0.0', '10.0.0.1', '::')] == \
        [True, True, True, True, False, False, False]
