"""evalscope-phys score: JSONL in, JSONL out, resumable."""
from __future__ import annotations

import json
import subprocess
import sys


def run_cli(*args):
    return subprocess.run([sys.executable, '-m', 'evalscope_phys', 'score', *args],
                          capture_output=True, text=True, timeout=300)


def test_score_pairs_and_resume(tmp_path):
    pairs = tmp_path / 'in.jsonl'
    out = tmp_path / 'out.jsonl'
    rows = [{'gt': r'\frac{mg}{k}', 'gen': r'\dfrac{mg}{k}'},
            {'gt': r'46300\,\text{N}', 'gen': '46.3 kN'},
            {'gt': r'\pi', 'gen': '3.1', 'tolerance': 0.05},
            {'gt': '5', 'gen': '5', 'unit': 'N', 'id': 'keep-me'}]
    pairs.write_text(''.join(json.dumps(r) + '\n' for r in rows[:2]))
    done = run_cli('--pairs', str(pairs), '--out', str(out), '--workers', '2')
    assert done.returncode == 0, done.stderr
    pairs.write_text(''.join(json.dumps(r) + '\n' for r in rows))
    done = run_cli('--pairs', str(pairs), '--out', str(out), '--quiet')
    assert done.returncode == 0, done.stderr
    assert '2 already in' in done.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 4
    assert [line['strict'] for line in lines] == [True, True, False, True]
    assert lines[2]['lenient'] is True
    assert lines[3]['id'] == 'keep-me'
    for line in lines:
        assert {'eed', 'strict', 'lenient', 'reason', 'seconds'} <= set(line)


def test_mismatched_output_is_refused(tmp_path):
    pairs = tmp_path / 'in.jsonl'
    out = tmp_path / 'out.jsonl'
    pairs.write_text(json.dumps({'gt': 'x', 'gen': 'x'}) + '\n')
    out.write_text(json.dumps({'gt': 'y', 'gen': 'y'}) + '\n')
    done = run_cli('--pairs', str(pairs), '--out', str(out), '--quiet')
    assert done.returncode != 0


def test_each_line_says_whether_a_judge_would_see_it_under_the_scope(tmp_path):
    pairs = tmp_path / 'in.jsonl'
    rows = [{'gt': '2', 'gen': r'\boxed{2}'}, {'gt': '2', 'gen': r'\boxed{3}'},
            {'gt': 'counterclockwise', 'gen': r'\boxed{\text{the block does not move}}'}]
    pairs.write_text(''.join(json.dumps(r) + '\n' for r in rows))
    routed = {}
    for scope in ('undecided', 'rejected', 'all'):
        out = tmp_path / f'{scope}.jsonl'
        done = run_cli('--pairs', str(pairs), '--out', str(out), '--quiet', '--no-eed', '--judge-scope', scope)
        assert done.returncode == 0, done.stderr
        lines = [json.loads(line) for line in out.read_text().splitlines()]
        routed[scope] = [line['needs_judge'] for line in lines]
        assert [line['judge_reason'] for line in lines][:2] == ['rule_accepted', 'rule_rejected']
        assert lines[2]['judge_reason'] in ('undecided', 'text_answer')
    assert routed == {'undecided': [False, False, True], 'rejected': [False, True, True], 'all': [True, True, True]}
    assert run_cli('--pairs', str(pairs), '--out', str(tmp_path / 'x.jsonl'), '--judge-scope', 'most').returncode == 2
