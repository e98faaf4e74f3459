"""End to end: `evalscope-phys suite run yamls/suites/baselines.yaml` (upstream phyx_oe, olympiad_bench,
hipho, hle next to phyx_oe_rules and olympiadbench_physics) against the replay server and a stub judge,
then `score_reports.sh --compare-upstream --ci` on its output.

The data are our own problems written in each upstream layout (tests/suite/fixtures/baselines): the
PhyX folder of the demo, the OlympiadBench hub layout (README configs + <subset>/*.parquet, which
both OlympiadBench adapters read), HLE's `data/test-*.parquet` and HiPhO's `data/<exam>.json`.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalscope_phys.serve import replay_server

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(shutil.which('jq') is None, reason='score_reports.sh needs jq')]

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
FIXTURES = HERE / 'fixtures' / 'baselines'
DEMO = REPO / 'evalscope_phys' / 'data' / 'demo'


def write_parquet(path: Path, rows):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)


def olympiadbench_hub_layout(root: Path) -> Path:
    """README.md naming each subset's files, and <subset>/<subset>.parquet (a name with 'physics' in it)."""
    subsets = json.loads((FIXTURES / 'olympiadbench_rows.json').read_text())
    configs = ''.join(f'- config_name: {name}\n  data_files:\n  - split: train\n    path: {name}/*.parquet\n'
                      for name in subsets)
    root.mkdir(parents=True)
    (root / 'README.md').write_text(f'---\nconfigs:\n{configs}---\n')
    for name, rows in subsets.items():
        write_parquet(root / name / f'{name}.parquet', rows)
    return root


@pytest.fixture
def data(tmp_path):
    shutil.copytree(DEMO / 'phyx', tmp_path / 'PhyX' / 'test')  # the layout both PhyX adapters read
    write_parquet(tmp_path / 'hle' / 'data' / 'test-00000-of-00001.parquet',
                  json.loads((FIXTURES / 'hle_rows.json').read_text()))
    shutil.copytree(FIXTURES / 'hipho', tmp_path / 'HiPhO')
    return {
        'phyx_oe_rules': {'local_path': str(tmp_path / 'PhyX')},
        'phyx_oe': {'local_path': str(tmp_path / 'PhyX')},
        'olympiadbench_physics': {'local_path': str(olympiadbench_hub_layout(tmp_path / 'OlympiadBench')),
                                  'subset_list': ['text_only'], 'extra_params': {'languages': ['en']}},
        'olympiad_bench': {'local_path': str(tmp_path / 'OlympiadBench'), 'subset_list': ['OE_TO_physics_en_COMP']},
        'hipho': {'local_path': str(tmp_path / 'HiPhO'), 'subset_list': ['IPhO_2025']},
        'hle': {'local_path': str(tmp_path / 'hle')},
    }


def replay_records():
    lines = (FIXTURES / 'replay_baselines.jsonl').read_text().splitlines()
    lines += (DEMO / 'phyx_replay.jsonl').read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def report_mean(work: Path, dataset: str, metric: str) -> float:
    [path] = work.glob(f'seed_*/reports/*/{dataset}.json')
    report = json.loads(path.read_text())
    return next(m['score'] for m in report['metrics'] if m['identity'] == {'name': metric, 'aggregation': 'mean',
                                                                            'dimensions': {}})


def test_baselines_suite_then_compare_upstream(tmp_path, data):
    work = tmp_path / 'out'
    # `datasets` caches a local folder's splits by folder name and config, not by content: a private cache
    # keeps another copy named OlympiadBench (an earlier run of this test) from being served instead
    env = {**os.environ, 'HF_HUB_OFFLINE': '1', 'PYTHON': sys.executable, 'HF_DATASETS_CACHE': str(tmp_path / 'hf')}
    # upstream phyx_oe as EvalScope scores it: with the runtime fix on, --compare-upstream would refuse the pair
    env['EVALSCOPE_PHYS_NO_PHYX_OE_FIX'] = '1'
    with replay_server(replay_records()) as url:
        run = subprocess.run(
            [sys.executable, '-m', 'evalscope_phys.cli', 'suite', 'run', str(REPO / 'yamls' / 'suites' / 'baselines.yaml'),
             '--model', 'replay', '--api-url', url, '--judge-model', 'stub-judge', '--judge-api-url', url,
             '--seeds', '1', '--dataset-args', json.dumps(data), '--work-dir', str(work)],
            capture_output=True, text=True, timeout=1500, env=env)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]
    assert '--compare-upstream' in run.stdout

    table = subprocess.run(['bash', str(REPO / 'scripts' / 'score_reports.sh'), '--compare-upstream', '--ci', str(work)],
                           capture_output=True, text=True, timeout=300, env=env)
    assert table.returncode == 0, table.stderr
    print(table.stdout)  # the README's measured figures come from this table
    header, *lines = table.stdout.splitlines()
    assert header.split('\t') == ['model', 'ours', 'metric', 'mean', 'upstream', 'metric', 'mean', 'diff', 'n_ours',
                                  'n_upstream', 'ci_ours', 'ci_upstream']
    rows = {(cells[1], cells[2], cells[4]): cells for cells in (line.split('\t') for line in lines)}
    assert set(rows) == {('phyx_oe_rules', 'lenient_acc', 'phyx_oe'), ('phyx_oe_rules', 'strict_acc', 'phyx_oe'),
                         ('olympiadbench_physics', 'lenient_acc', 'olympiad_bench'),
                         ('olympiadbench_physics', 'strict_acc', 'olympiad_bench'), ('-', '-', 'hipho'), ('-', '-', 'hle')}
    # ours on our OlympiadBench problems, by construction: 2 s right; 72 km/h is 20 m/s (units); 1.45e-3 C is
    # within the record's absolute error 1e-4 of 1.5e-3 (lenient only); 0.75 for 0.5 is wrong
    ob = rows[('olympiadbench_physics', 'lenient_acc', 'olympiad_bench')]
    assert (ob[3], ob[8]) == ('0.7500', '4')
    assert rows[('olympiadbench_physics', 'strict_acc', 'olympiad_bench')][3] == '0.5000'
    # hle: the stub judge grades the photon answer C and the wrong node count I
    assert rows[('-', '-', 'hle')][6:10] == ['0.5000', '-', '-', '2']
    for (ours, metric, upstream), cells in rows.items():
        up = report_mean(work, upstream, 'accuracy')
        assert cells[6] == f'{up:.4f}'
        if ours != '-':
            assert cells[7] == f'{report_mean(work, ours, metric) - up:+.4f}'
            low, high = map(float, cells[10].strip('[]').split(', '))
            assert low <= report_mean(work, ours, metric) <= high
