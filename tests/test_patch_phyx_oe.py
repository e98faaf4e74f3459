"""patches/0002: upstream ``phyx_oe`` rule mode compares numbers as numbers, not as substrings.

Each test runs on a copy of the installed evalscope package (never the venv's own copy): the golden
cases below must all hold once the patch is applied, and the substring cases must fail on plain 1.14.1.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalscope_phys import patches

PATCH_NAME = '0002-phyx-oe-numeric-rule-match.patch'

#: (reply, ground truth, should match, why) -- the reply is what the model wrote in full
GOLDEN_CASES = [
    ('The displacement is \\boxed{15 m}', '5 m', False, '15 is not 5: substring match upstream'),
    ('\\boxed{0.25}', '2', False, '0.25 is not 2: substring match upstream'),
    ('Final answer: 12\\sqrt{gh}', '2\\sqrt{gh}', False, 'coefficient 12 is not 2'),
    ('so v = \\boxed{-5 m/s}', '5 m/s', False, 'the sign is part of the number'),
    ('\\boxed{5 mm}', '5 m', False, 'a different unit, not a longer number'),
    ('\\boxed{5 m/s}', '5 m', False, 'the unit continues'),
    ('\\boxed{5.5 m}', '5 m', False, '10% off'),
    ('\\boxed{5 m}', '5 m', True, 'exact'),
    ('The answer is 5.00 m.', '5 m', True, 'trailing zeros'),
    ('\\boxed{5\\,\\text{m}}', '5 m', True, 'LaTeX spacing and \\text{} around the unit'),
    ('The tension is \\boxed{46.28 kN}', '46.3 kN', True, 'within relative 1e-2'),
    ('\\boxed{4.63 \\times 10^{4} N}', '46300 N', True, 'scientific notation'),
    ('\\boxed{2.5e-3 s}', '0.0025 s', True, 'e-notation'),
    ('Therefore v = 2\\sqrt{gh}', '2\\sqrt{gh}', True, 'formula with a coefficient'),
    ('\\boxed{\\frac{mg}{k}}', '\\frac{mg}{k}', True, 'no numbers: containment as upstream'),
    ('\\boxed{3.2 m} ', '3.2 m ', True, 'the ground truth has a trailing space'),
]
#: cases plain 1.14.1 gets wrong: 0-6 accepted by substring containment, 8-12 rejected as different
#: spellings of the same number
UPSTREAM_WRONG = {0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12}

CHECK = '''
import json, sys
from evalscope.benchmarks.phyx.utils import extract_oe_answer, match_oe_answer
cases = json.loads(sys.argv[1])
print(json.dumps([match_oe_answer(extract_oe_answer(reply), reply.strip(), ref) for reply, ref in cases]))
'''


def verdicts(site: Path) -> list:
    """match_oe_answer on every golden case, in a fresh interpreter that imports evalscope from ``site``."""
    cases = json.dumps([[reply, ref] for reply, ref, _, _ in GOLDEN_CASES])
    env = {**os.environ, 'PYTHONPATH': str(site)}
    result = subprocess.run([sys.executable, '-c', CHECK, cases], capture_output=True, text=True, env=env,
                            cwd=str(site), timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope='module')
def sites(tmp_path_factory):
    """Two copies of the installed evalscope: untouched 1.14.1 and with all our patches applied."""
    installed = patches.installed_site() / 'evalscope'
    plain, patched = tmp_path_factory.mktemp('plain'), tmp_path_factory.mktemp('patched')
    for site in (plain, patched):
        shutil.copytree(installed, site / 'evalscope', ignore=shutil.ignore_patterns('__pycache__'))
    phyx_patch = next(p for p in patches.available_patches() if p.name == PATCH_NAME)
    assert patches.patch_state(phyx_patch, plain) == 'applicable'
    for patch in patches.available_patches():
        assert patches.apply_patch(patch, patched) == 'applied', patch.name
    return plain, patched


def test_patched_phyx_oe_matches_every_golden_case(sites):
    _, patched = sites
    got = verdicts(patched)
    wrong = [(case[0], case[1], case[3]) for case, verdict in zip(GOLDEN_CASES, got) if verdict != case[2]]
    assert not wrong


def test_unpatched_1_14_1_fails_the_substring_cases(sites):
    plain, _ = sites
    got = verdicts(plain)
    wrong = {i for i, (case, verdict) in enumerate(zip(GOLDEN_CASES, got)) if verdict != case[2]}
    assert wrong == UPSTREAM_WRONG


def test_patch_is_idempotent_and_reports_applied(sites):
    _, patched = sites
    patch = next(p for p in patches.available_patches() if p.name == PATCH_NAME)
    target = patched / 'evalscope/benchmarks/phyx/utils.py'
    before = target.read_text()
    assert patches.apply_patch(patch, patched) == 'applied'
    assert target.read_text() == before


def test_patch_touches_only_upstream_evalscope_files():
    text = (Path(patches.available_patches()[0]).parent / PATCH_NAME).read_text()
    targets = [line[4:] for line in text.splitlines() if line.startswith(('--- ', '+++ '))]
    assert targets == ['a/evalscope/benchmarks/phyx/utils.py', 'b/evalscope/benchmarks/phyx/utils.py',
                       'a/evalscope/benchmarks/phyx/phyx_adapter.py', 'b/evalscope/benchmarks/phyx/phyx_adapter.py']
    assert 'evalscope_phys' not in text
