"""Our hostile corpus through the batch CLI: every line answered, exit 0, the same verdicts every run.

``hostile_corpus.jsonl`` (259 lines: gt, gen, why) and ``hostile_corpus_bytes.jsonl`` (20 raw-byte
lines JSON cannot hold; ``hostile_corpus_bytes.why.txt`` says what each is) are written by
``scripts/make_hostile_corpus.py``. Verdicts are compared as (strict, lenient, reason), never
seconds, between a run with 8 workers and one with 1: the run and the worker count must not
change a verdict.
"""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CORPUS = HERE / 'hostile_corpus.jsonl'
CORPUS_BYTES = HERE / 'hostile_corpus_bytes.jsonl'
CORPUS_RUN_SECONDS = 60
"""One CLI run over the corpus may take this long: a bound, not a speed target (that is
``scripts/bench_hostile.py``); it keeps a stalling engine from costing CI many minutes."""

def corpus_bytes() -> bytes:
    return CORPUS.read_bytes() + CORPUS_BYTES.read_bytes()


def run_corpus(tmp_path: Path, workers: int, name: str) -> List[dict]:
    pairs, out = tmp_path / 'in.jsonl', tmp_path / f'{name}.jsonl'
    if not pairs.exists():
        pairs.write_bytes(corpus_bytes())
    cmd = [sys.executable, '-m', 'evalscope_phys', 'score', '--pairs', str(pairs), '--out', str(out),
           '--workers', str(workers), '--quiet']
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=CORPUS_RUN_SECONDS)
    except subprocess.TimeoutExpired:
        pytest.fail(f'scoring the hostile corpus with {workers} workers took over {CORPUS_RUN_SECONDS} s')
    assert done.returncode == 0, done.stderr[-3000:]
    # split on '\n' only: str.splitlines() would also break at U+2028 inside JSON strings
    return [json.loads(line) for line in out.read_bytes().decode('utf-8').split('\n') if line]


def input_lines() -> List[bytes]:
    return [line for line in corpus_bytes().split(b'\n') if line.strip()]


def test_the_corpus_is_what_the_script_writes(tmp_path):
    spec = importlib.util.spec_from_file_location('make_hostile_corpus', ROOT / 'scripts' / 'make_hostile_corpus.py')
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    rows = [json.loads(line) for line in CORPUS.read_bytes().split(b'\n') if line]
    assert rows == script.corpus()
    assert CORPUS_BYTES.read_bytes() == b''.join(raw + b'\n' for raw, _ in script.raw_lines())
    assert len(rows) + len(script.raw_lines()) >= 250
    assert all(set(row) >= {'gt', 'gen', 'why'} for row in rows)


def test_every_line_is_answered_and_verdicts_do_not_depend_on_run_or_worker_count(tmp_path):
    lines = input_lines()
    many = run_corpus(tmp_path, 8, 'workers8')
    assert len(many) == len(lines)
    for number, (raw, out) in enumerate(zip(lines, many), 1):
        if out['reason'] == 'unreadable_input':
            assert out['scored'] is False and out['detail'] and out['line'] == number, out
        else:
            source = json.loads(raw, strict=False)
            assert json.dumps([out['gt'], out['gen']]) == json.dumps([source['gt'], source['gen']]), number
    one = run_corpus(tmp_path, 1, 'workers1')
    verdict = [(o['strict'], o['lenient'], o['reason']) for o in many]
    differ = [(o.get('why'), v, (p['strict'], p['lenient'], p['reason']))
              for o, v, p in zip(many, verdict, one) if v != (p['strict'], p['lenient'], p['reason'])]
    assert not differ, differ
