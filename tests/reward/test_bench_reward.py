"""The synthetic completions of ``scripts/bench_reward.py``: certain truths, GRPO groups, repeats."""
from __future__ import annotations

import collections
import importlib.util
import random
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# our own references in PHYBench's format
RECORDS = [
    {'id': 1, 'answer': '$$T = 2\\pi\\sqrt{\\frac{l}{g}}$$'},
    {'id': 2, 'answer': '$$\\gamma = \\frac{2}{5}$$'},
    {'id': 3, 'answer': '$$\n\\boxed{y^{2}=\\frac{\\omega^{2}}{g}(R^{2}-x^{2})}\n$$'},
    {'id': 4, 'answer': '$$v_0 - v_0$$'},  # identically zero: only X +/- 1 may serve as a wrong answer
]


@pytest.fixture(scope='module')
def bench():
    spec = importlib.util.spec_from_file_location('bench_reward', ROOT / 'scripts' / 'bench_reward.py')
    module = importlib.util.module_from_spec(spec)
    sys.modules['bench_reward'] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop('bench_reward', None)


def test_references_are_split_and_certified(bench):
    refs = {r['id']: r for r in bench.usable_references(RECORDS, random.Random(0))}
    assert (refs[1]['lhs'], refs[1]['value']) == ('T', '2\\pi\\sqrt{\\frac{l}{g}}')
    assert refs[3]['lhs'] == 'y^{2}' and refs[3]['inner'].startswith('y^{2}=')
    assert refs[1]['certified'] and refs[2]['certified'] and refs[3]['certified']
    assert not refs[4]['certified']
    assert bench.wrong_forms(refs[4]['value'], False) == ['v_0 - v_0 + 1', 'v_0 - v_0 - 1']
    assert '0.4' in bench.equivalent_forms('\\frac{2}{5}', True)


def test_an_equation_keeps_its_left_side_and_a_name_may_lose_it(bench):
    rng = random.Random(0)
    refs = {r['id']: r for r in bench.usable_references(RECORDS, rng)}
    assert {bench.with_left_side(refs[3], 'X', rng) for _ in range(20)} == {'y^{2} = X'}
    assert {bench.with_left_side(refs[1], 'X', rng) for _ in range(20)} == {'T = X', 'X'}


def test_completions_come_in_groups_with_repeats_and_every_kind(bench):
    items, refs = bench.build_completions(RECORDS, 256, 8, seed=1)
    assert len(items) == 256 and len(refs) == 4
    groups = [items[i:i + 8] for i in range(0, 256, 8)]
    assert all(len({c.prompt_id for c in g}) == 1 for g in groups)
    assert sum(len(g) - len({c.response for c in g}) for g in groups) > 0  # verbatim repeats
    assert set(collections.Counter(c.kind for c in items)) == set(bench.KIND_WEIGHTS)
    assert all(c.truth == bench.TRUTH[c.kind] for c in items)
    no_answer = [c for c in items if c.kind == 'no_answer']
    assert all('$$' not in c.response and '\\boxed' not in c.response for c in no_answer)
    boxed = [c for c in items if c.kind in ('correct', 'rewritten', 'wrong')]
    assert all('\\boxed{' in c.response for c in boxed)
    assert all('\\boxed' not in c.response for c in items if c.kind.startswith('unboxed'))


def test_help_exits_zero():
    done = subprocess.run([sys.executable, str(ROOT / 'scripts' / 'bench_reward.py'), '--help'],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and '--completions' in done.stdout
