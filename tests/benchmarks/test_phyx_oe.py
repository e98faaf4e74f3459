"""Upstream ``phyx_oe`` in rule mode, end to end through the CLI, before and after patches/0002.

Both runs read our PhyX-layout sample and the same recorded replies; only the EvalScope copy differs
(a temp copy of the installed package, with or without our patches; the venv's own copy is untouched).
"""
import shutil

import pytest

from evalscope_phys import patches
from evalscope_phys.demo import DEMO_DIR
from evalscope_phys.serve.replay import replay_server

#: problem index -> (unpatched verdict, patched verdict) for the replies in phyx_replay.jsonl
VERDICTS = {
    0: (0.0, 1.0),  # 4.9\,\text{m/s}^2 for '4.9 m/s^2': a spelling upstream's substring test misses
    1: (0.0, 0.0),  # 2000 mA for '2 A': unit conversion is the judge's (or phyx_oe_rules') job
    3: (1.0, 0.0),  # 120 m/s for '20 m/s': upstream accepts the substring
    4: (1.0, 1.0),  # 'Final answer: 15 cm'
    5: (0.0, 1.0),  # 2.5 eV for '2.48 eV': within relative 1e-2
    6: (0.0, 0.0),  # anticlockwise vs counterclockwise: text is the judge's job
}


@pytest.fixture(scope='module')
def runs(tmp_path_factory):
    from conftest import run_evalscope_eval

    base = tmp_path_factory.mktemp('phyx_oe')
    shutil.copytree(DEMO_DIR / 'phyx', base / 'PhyX' / 'test')  # the hub snapshot layout upstream reads
    installed = patches.installed_site() / 'evalscope'
    results = {}
    with replay_server(DEMO_DIR / 'phyx_replay.jsonl') as url:
        for label in ('plain', 'patched'):
            site = base / label
            shutil.copytree(installed, site / 'evalscope', ignore=shutil.ignore_patterns('__pycache__'))
            if label == 'patched':
                assert all(patches.apply_patch(p, site) == 'applied' for p in patches.available_patches())
            with pytest.MonkeyPatch.context() as mp:
                mp.setenv('PYTHONPATH', str(site))
                results[label] = run_evalscope_eval(
                    url, ['phyx_oe'], {'phyx_oe': {'local_path': str(base / 'PhyX')}}, base / f'run_{label}',
                    judge={'strategy': 'rule'})
    return results


@pytest.mark.e2e
def test_patched_rule_mode_compares_numbers_as_numbers(runs):
    verdicts = {}
    for label, run in runs.items():
        assert run.process.returncode == 0, run.process.stderr[-3000:]
        verdicts[label] = {r['sample_score']['sample_metadata']['index']: r['sample_score']['score']['value']['acc']
                           for r in run.reviews('phyx_oe')}
        assert len(verdicts[label]) == 8
    for index, (plain, patched) in VERDICTS.items():
        assert (verdicts['plain'][index], verdicts['patched'][index]) == (plain, patched), index
