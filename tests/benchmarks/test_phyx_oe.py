"""Upstream ``phyx_oe``: the runtime fix on an unpatched EvalScope, upstream as it is, and the patched route.

- fixed (the plugin installed, EvalScope 1.14.1 unpatched): no judge needed, numeric unit-aware rules;
  with judge models, rules first and the judge for the rest; both PhyX folder layouts.
- upstream (``EVALSCOPE_PHYS_NO_PHYX_OE_FIX=1``): rule mode as 1.14.1 ships it, substring matching.
- patched (a temp copy of the installed package with ``patches/`` applied; the venv's copy is untouched):
  the upstream-ready fix, which runs without a judge too.

All runs read our PhyX-layout sample and the recorded replies in ``phyx_replay.jsonl``.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import benchmark_adapter, load_subsets, run_evalscope_eval
from evalscope_phys import compat, patches
from evalscope_phys.demo import DEMO_DIR, demo_config, demo_records
from evalscope_phys.serve.replay import replay_server

FOLDER = DEMO_DIR / 'phyx'
REPLAY = DEMO_DIR / 'phyx_replay.jsonl'
ROOT = Path(__file__).resolve().parents[2]


def readme_mission_command() -> str:
    """The ``evalscope eval`` command of the README's first real-model example, as written."""
    readme = (ROOT / 'README.md').read_text()
    section = readme[readme.index('## Using it on a real model'):]
    block = section[section.index('```bash') + 7:section.index('```', section.index('```bash') + 7)]
    assert 'evalscope-phys serve --demo --port 8000' in block, 'the example runs against the demo replay server'
    command = re.search(r'^evalscope eval .*?(?<!\\)$', block, re.S | re.M).group(0)
    return command.replace('\\\n', ' ')

#: problem index -> (fixed, upstream rule mode, patched) verdict for the replies in phyx_replay.jsonl
VERDICTS = {
    0: (1.0, 0.0, 1.0),  # 4.9\,\text{m/s}^2 for '4.9 m/s^2': a spelling upstream's substring test misses
    1: (1.0, 0.0, 0.0),  # 2000 mA for '2 A': units converted by our rules; the patch leaves it to a judge
    2: (1.0, 0.0, 0.0),  # 3458 J for '3.46 kJ': the same
    3: (0.0, 1.0, 0.0),  # 120 m/s for '20 m/s': upstream accepts the substring
    4: (1.0, 1.0, 1.0),  # 'Final answer: 15 cm'
    5: (1.0, 0.0, 1.0),  # 2.5 eV for '2.48 eV': within relative 1e-2
    6: (0.0, 0.0, 0.0),  # anticlockwise vs counterclockwise: text is the judge's job
}
#: a reply cut off mid-sentence: wrong everywhere (or unscored by our rules if the engine's deadline fires
#: on the prose: then only ``scored = 0``, never a silent 0)
TRUNCATED = 7

#: one wrong reply per sample problem (ground truth -> reply), each one upstream's substring test accepts
WRONG_REPLIES = {
    '4.9 m/s^2': 'so a = \\boxed{14.9 m/s^2}',
    '2 A': 'I = \\boxed{12 A}',
    '3.46 kJ': 'W = \\boxed{13.46 kJ}',
    '20 m/s': 'v = \\boxed{120 m/s}',
    '15 cm': 'Final answer: 115 cm',
    '2.48 eV': '\\boxed{12.48 eV}',
    'counterclockwise': 'it turns \\boxed{\\text{not counterclockwise}}',
    '2.84 s': 'T = \\boxed{12.84 s}',
}


def test_installed_phyx_oe_is_the_fixed_adapter():
    assert compat.phyx_oe_fix_wanted() is None
    adapter = benchmark_adapter('phyx_oe')
    assert getattr(type(adapter), 'evalscope_phys_fix', False)
    assert adapter._benchmark_meta.primary_metric.name == 'accuracy'  # EvalScope's name for acc


@pytest.mark.parametrize('layout', ['ours', 'hub'])
def test_local_path_takes_both_phyx_layouts(tmp_path, layout):
    if layout == 'ours':
        root = FOLDER
    else:
        root = tmp_path / 'PhyX'
        shutil.copytree(FOLDER, root / 'test')
    data = load_subsets('phyx_oe', root)
    samples = [s for rows in data.values() for s in rows]
    assert len(samples) == 8
    # upstream's official prompt, not phyx_oe_rules' request for a box
    assert samples[0].input[0].content[1].text.endswith('Please answer the question with step by step reasoning.')


def test_every_wrong_sample_answer_is_rejected_though_upstream_accepts_it():
    from evalscope.benchmarks.phyx.utils import extract_oe_answer, match_oe_answer

    rows = [json.loads(line) for line in (FOLDER / 'PhyX_test.jsonl').read_text().splitlines() if line.strip()]
    from evalscope_phys.compat import phyx_upstream

    truths = {phyx_upstream().parse_options(r['options'])[r['answer']] for r in rows}
    assert truths == set(WRONG_REPLIES), 'one wrong reply per sample problem'
    adapter = benchmark_adapter('phyx_oe')
    for truth, reply in WRONG_REPLIES.items():
        assert match_oe_answer(extract_oe_answer(reply), reply, truth), f'not a substring trap: {reply}'
        score = adapter.match_score(reply, extract_oe_answer(reply), truth, None)
        assert score.value == {'acc': 0.0, 'scored': 1.0}, (truth, reply, score)


def test_right_answers_in_other_units_are_accepted():
    adapter = benchmark_adapter('phyx_oe')
    for truth, reply in [('46.3 kN', '\\boxed{46300 N}'), ('2 A', '\\boxed{2000\\,\\text{mA}}'), ('5 m', '5.00 m')]:
        assert adapter.match_score(reply, reply, truth, None).value['acc'] == 1.0, (truth, reply)


JUDGE_RULES = [
    {'match': ["Candidate's final answer", 'anticlockwise'], 'judge': True,
     'response': '{"case": "{case}", "reasoning": "anticlockwise is counterclockwise", "verdict": "equivalent"}'},
    {'match': ["Candidate's final answer", 'equation of motion of the bob'], 'judge': True,
     'response': '{"case": "{case}", "reasoning": "the reply stops before any result", "verdict": "cannot_judge"}'},
]


@pytest.fixture(scope='module')
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp('phyx_oe')
    installed = patches.installed_site() / 'evalscope'
    patched = base / 'patched'
    shutil.copytree(installed, patched / 'evalscope', ignore=shutil.ignore_patterns('__pycache__'))
    assert all(patches.apply_patch(p, patched) == 'applied' for p in patches.available_patches())
    hub_layout = base / 'PhyX'
    shutil.copytree(FOLDER, hub_layout / 'test')  # the only layout unpatched upstream reads
    records = [json.loads(line) for line in REPLAY.read_text().splitlines() if line.strip()] + JUDGE_RULES
    args = {'phyx_oe': {'local_path': str(FOLDER)}}
    results = {}
    with replay_server(demo_records(demo_config())) as url:
        results['fixed'] = run_readme_command(url, base / 'readme')
    with replay_server(records) as url:
        judge = {'models': [{'model_id': 'stub-judge', 'api_url': url, 'api_key': 'EMPTY',
                             'generation_config': {'temperature': 0.0, 'timeout': 20}}]}
        results['judged'] = run_evalscope_eval(url, ['phyx_oe'], args, base / 'judged', judge=judge)
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv(compat.NO_PHYX_FIX_ENV, '1')
            results['upstream'] = run_evalscope_eval(url, ['phyx_oe'], {'phyx_oe': {'local_path': str(hub_layout)}},
                                                     base / 'upstream',
                                                     judge={'strategy': 'rule'})
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv('PYTHONPATH', str(patched))
            results['patched'] = run_evalscope_eval(url, ['phyx_oe'], args, base / 'patched_run')
    return results


class ReadmeRun:
    """The README command run in a folder that holds the checkout's ``evalscope_phys/`` (its relative paths)."""

    def __init__(self, process, work_dir):
        self.process, self.work_dir = process, work_dir

    def reviews(self, dataset):
        return [json.loads(line) for path in sorted(self.work_dir.rglob(f'reviews/*/{dataset}_*.jsonl'))
                for line in path.read_text().split('\n') if line.strip()]

    @property
    def reports(self):
        return {p.stem: json.loads(p.read_text()) for p in self.work_dir.rglob('reports/*/*.json')}


def run_readme_command(url: str, where: Path) -> ReadmeRun:
    where.mkdir(parents=True)
    (where / 'evalscope_phys').symlink_to(ROOT / 'evalscope_phys')
    command = readme_mission_command().replace('http://127.0.0.1:8000/v1', url)
    argv = shlex.split(command)
    argv[0] = str(Path(sys.executable).parent / 'evalscope')
    env = {**os.environ, 'HF_HUB_OFFLINE': '1'}
    process = subprocess.run(argv, capture_output=True, text=True, timeout=900, cwd=str(where), env=env)
    return ReadmeRun(process, where / 'outputs')


def verdicts(run) -> dict:
    """index -> score values; checks the truncated reply was not counted right."""
    assert run.process.returncode == 0, run.process.stderr[-3000:]
    found = {r['sample_score']['sample_metadata']['index']: r['sample_score']['score']['value']
             for r in run.reviews('phyx_oe')}
    assert len(found) == 8
    truncated = found.pop(TRUNCATED)
    assert truncated.get('acc', 0.0) == 0.0 and ('acc' in truncated or truncated['scored'] == 0.0), truncated
    return found


@pytest.mark.e2e
def test_the_readme_command_as_written_scores_phyx_oe_by_rules_with_a_notice(runs):
    """README target: the mission command on an unpatched EvalScope, against the demo's replay server."""
    got = verdicts(runs['fixed'])
    assert {i: v['acc'] for i, v in got.items()} == {i: v[0] for i, v in VERDICTS.items()}
    assert all(v['scored'] == 1.0 for v in got.values())  # the truncated reply aside
    log = runs['fixed'].process.stdout + runs['fixed'].process.stderr
    assert log.count('phyx_oe: no judge configured') == 1
    reports = runs['fixed'].reports
    assert reports['phyx_oe']['primary_metric_identity']['name'] == 'accuracy'
    assert reports['phybench']['execution_summary']['succeeded'] == 14
    assert [m['score'] for m in reports['phyx_oe']['metrics'] if m['identity']['name'] == 'accuracy'] == [0.625]


@pytest.mark.e2e
def test_fixed_with_a_judge_sends_only_what_the_rules_cannot_decide(runs):
    truncated = next(r['sample_score']['score']['value'] for r in runs['judged'].reviews('phyx_oe')
                     if r['sample_score']['sample_metadata']['index'] == TRUNCATED)
    got = verdicts(runs['judged'])
    assert {i for i, v in got.items() if v['judged'] == 1.0} == {6}
    assert got[6]['acc'] == 1.0, 'the stub judge says anticlockwise = counterclockwise'
    assert truncated['judged'] == 1.0 and truncated['cannot_judge'] == 1.0, 'judged, and the judge cannot tell'
    assert all(got[i]['acc'] == VERDICTS[i][0] for i in range(6))
    assert 'no judge configured' not in runs['judged'].process.stdout + runs['judged'].process.stderr


@pytest.mark.e2e
def test_upstream_rule_mode_matches_substrings(runs):
    got = verdicts(runs['upstream'])
    assert {i: v['acc'] for i, v in got.items()} == {i: v[1] for i, v in VERDICTS.items()}


@pytest.mark.e2e
def test_patched_evalscope_runs_without_a_judge_and_compares_numbers_as_numbers(runs):
    got = verdicts(runs['patched'])
    assert {i: v['acc'] for i, v in got.items()} == {i: v[2] for i, v in VERDICTS.items()}
    log = runs['patched'].process.stdout + runs['patched'].process.stderr
    assert 'no judge.models configured, so answers are scored by the number-aware rule match' in log
    assert 'no judge configured, so every answer' not in log, 'the runtime fix steps aside when patched'


def test_fix_steps_aside_when_asked(monkeypatch):
    monkeypatch.setenv(compat.NO_PHYX_FIX_ENV, '1')
    assert compat.phyx_oe_fix_wanted() == f'{compat.NO_PHYX_FIX_ENV} is set'
    monkeypatch.delenv(compat.NO_PHYX_FIX_ENV)
    assert compat.phyx_oe_fix_wanted() is None


def test_the_unfixed_upstream_adapter_on_the_bundled_sample_says_why_in_one_line(tmp_path, monkeypatch):
    """Before: a FileNotFoundError traceback. Upstream reads only the hub layout (test/PhyX_test.jsonl)."""
    monkeypatch.setenv(compat.NO_PHYX_FIX_ENV, '1')
    judge = {'strategy': 'llm', 'models': [{'model_id': 'j', 'api_url': 'http://127.0.0.1:9/v1', 'api_key': 'E'}]}
    run = run_evalscope_eval('http://127.0.0.1:9/v1', ['phyx_oe'], {'phyx_oe': {'local_path': str(FOLDER)}},
                             tmp_path / 'run', judge=judge, timeout=300)
    assert run.process.returncode == 1 and 'Traceback' not in run.process.stderr
    assert (f"evalscope-phys: {FOLDER}/test/PhyX_test.jsonl: not found. EvalScope's own phyx_oe adapter"
            in run.process.stderr)
    assert 'copy that folder to <dir>/test' in run.process.stderr
