"""End to end: `evalscope-phys suite run` (2 benchmarks x 2 seeds) against the replay server, then
`score_reports.sh`, `compare` (across seeds and EN/ET pairs) and a resume on its output.

`phybench` runs on four problems of our own (tests/suite/fixtures) whose replayed answers depend on
the request's seed, so the two seeds score differently and the table's std is known in advance;
`physolym` runs on the bundled demo sample (EN/ET pairs) with its recorded answers.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from evalscope_phys.serve import replay_server

pytestmark = pytest.mark.e2e

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DEMO = REPO / 'evalscope_phys' / 'data' / 'demo'
SCRIPT = REPO / 'scripts' / 'score_reports.sh'


def cli(*args, timeout=600):
    return subprocess.run([sys.executable, '-m', 'evalscope_phys.cli', *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, 'HF_HUB_OFFLINE': '1'})


@pytest.fixture
def suite_file(tmp_path):
    datasets = tmp_path / 'yamls' / 'datasets'
    datasets.mkdir(parents=True)
    (datasets / 'phybench.yaml').write_text(yaml.safe_dump({'phybench': {
        'local_path': str(HERE / 'fixtures' / 'phybench_mini.json'), 'subset_list': ['mechanics', 'optics']}}))
    (datasets / 'physolym.yaml').write_text(yaml.safe_dump({'physolym': {
        'local_path': str(DEMO / 'physolym_sample.jsonl'), 'subset_list': ['en', 'et']}}))
    suite = tmp_path / 'yamls' / 'suites' / 'two.yaml'
    suite.parent.mkdir()
    suite.write_text(yaml.safe_dump({
        'name': 'two', 'datasets': ['phybench', 'physolym'], 'seeds': [0, 1], 'eval_batch_size': 2,
        'generation': {'temperature': 0.6, 'max_tokens': 512, 'timeout': 10, 'retries': 1, 'retry_interval': 0},
        'model_args': {'max_retries': 0}}))  # fail fast: no SDK retries beneath EvalScope's one
    return suite


def replay_records():
    lines = (HERE / 'fixtures' / 'replay_mini.jsonl').read_text().splitlines()
    lines += (DEMO / 'physolym_replay.jsonl').read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.skipif(shutil.which('jq') is None, reason='score_reports.sh needs jq')
def test_suite_run_then_score_reports(tmp_path, suite_file):
    work = tmp_path / 'out'
    with replay_server(replay_records()) as url:
        run = cli('suite', 'run', suite_file, '--model', 'replay', '--api-url', url, '--work-dir', work)
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]
        assert sorted(p.name for p in work.iterdir()) == ['evalscope.log', 'seed_0', 'seed_1', 'suite.json']

        again = cli('suite', 'run', suite_file, '--model', 'replay', '--api-url', url, '--work-dir', work)
        assert again.returncode == 0 and again.stdout.count(': skipped ') == 2, again.stdout + again.stderr

    table = subprocess.run(['bash', str(SCRIPT), '--plots', str(tmp_path / 'plots'), str(work)],
                           capture_output=True, text=True, timeout=120, env={**os.environ, 'PYTHON': sys.executable})
    assert table.returncode == 0, table.stderr
    rows = {tuple(line.split('\t')[1:3]): line.split('\t')[3:] for line in table.stdout.splitlines()[1:]}
    # replay_mini.jsonl: seed 0 is right on problems 1, 2 and 4 of 4; seed 1 on 1 and 3
    assert rows[('phybench', 'strict_acc')] == ['0.6250', '0.1768', '2', '4']
    assert rows[('phybench', 'scored')] == ['1.0000', '0.0000', '2', '4']
    assert rows[('phybench', 'eed')][1:] != ['0.0000', '2', '4'] and rows[('phybench', 'eed')][2:] == ['2', '4']
    physolym = rows[('physolym', 'strict_acc')]
    assert physolym[1:] == ['0.0000', '2', physolym[3]]  # one recorded answer per prompt: seeds agree
    assert (tmp_path / 'plots' / 'eed_hist_phybench.png').is_file()
    assert (tmp_path / 'plots' / 'domain_strict_acc_phybench.png').is_file()

    seeds = cli('compare', work / 'seed_0', work / 'seed_1', '--dataset', 'phybench', '--resamples', '1000')
    assert seeds.returncode == 0, seeds.stderr
    assert 'paired problems 4 ' in seeds.stdout and 'discordant 3: A only 2, B only 1' in seeds.stdout

    pairs = cli('compare', work, '--seed', '0', '--by-pair', '--dataset', 'physolym', '--sides', 'en', 'et',
                '--json', '--resamples', '1000')
    assert pairs.returncode == 0, pairs.stderr
    result = json.loads(pairs.stdout)
    rows = [json.loads(line) for line in (DEMO / 'physolym_sample.jsonl').read_text().splitlines() if line.strip()]
    complete_pairs = {r['pair_id'] for r in rows if r['language'] == 'en' and r.get('pair_id')} & \
        {r['pair_id'] for r in rows if r['language'] == 'et' and r.get('pair_id')}
    assert (result['a'], result['b']) == ('lang=en', 'lang=et')
    assert sum(result['counts'].values()) == len(complete_pairs) == 3
    assert result['unmatched'] == 0 and result['unscored'] == 0
    assert result['ci_low'] <= result['diff'] <= result['ci_high']
    assert_missing_reports_fail(tmp_path, work)


def _score(*dirs):
    return subprocess.run(['bash', str(SCRIPT), *map(str, dirs)], capture_output=True, text=True, timeout=120)


def assert_missing_reports_fail(tmp_path, work):
    """Each way a report goes missing exits 1 naming it; before, the benchmark was averaged over fewer seeds."""
    [report] = (work / 'seed_1' / 'reports').glob('*/physolym.json')
    one = tmp_path / 'one_report_gone'
    shutil.copytree(work, one)
    (one / report.relative_to(work)).unlink()
    done = _score(one)
    assert done.returncode == 1 and done.stdout == ''
    assert f'{one}/seed_1/reports/<model>/physolym.json: missing (its configs/task_config.yaml lists physolym)' \
        in done.stderr, done.stderr
    assert '1 expected report(s) missing' in done.stderr

    seed_gone = tmp_path / 'seed_gone'
    shutil.copytree(work, seed_gone)
    shutil.rmtree(seed_gone / 'seed_0')
    done = _score(seed_gone)
    assert done.returncode == 1 and f'{seed_gone}/seed_0: missing (suite.json lists seed 0 with phybench physolym)' \
        in done.stderr, done.stderr

    single = tmp_path / 'single_run'  # one `evalscope eval` output dir, scored on its own
    shutil.copytree(work / 'seed_0', single)
    next((single / 'reports').glob('*/phybench.json')).unlink()
    done = _score(single)
    assert done.returncode == 1 and f'{single}/reports/<model>/phybench.json: missing' in done.stderr, done.stderr
    assert _score(work).returncode == 0


@pytest.mark.skipif(shutil.which('jq') is None, reason='score_reports.sh needs jq')
def test_repeats_give_pass_at_k_beside_the_mean(tmp_path, suite_file):
    """Two samples per problem: without a fixed seed the replay cycles through both recorded answers."""
    data = yaml.safe_load(suite_file.read_text())
    data.update(datasets=['phybench'], seeds=[0], repeats=2)
    suite_file.write_text(yaml.safe_dump(data))
    work = tmp_path / 'out'
    with replay_server(replay_records()) as url:
        run = cli('suite', 'run', suite_file, '--model', 'replay', '--api-url', url, '--work-dir', work)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]
    table = subprocess.run(['bash', str(SCRIPT), str(work)], capture_output=True, text=True, timeout=120)
    assert table.returncode == 0, table.stderr
    rows = {line.split('\t')[2]: line.split('\t')[3:] for line in table.stdout.splitlines()[1:]}
    # per problem (replay_mini.jsonl): both answers right, then three problems with one right of two
    assert rows['strict_acc'] == ['0.6250', '-', '1', '8']
    assert rows['strict_acc pass@1'] == ['0.6250', '-', '1', '4']
    assert rows['strict_acc pass@2'] == ['1.0000', '-', '1', '4']
    assert 'strict_acc maj@2' in rows and 'eed pass@2' not in rows


def replay_requests(url):
    import urllib.request
    with urllib.request.urlopen(url.rsplit('/v1', 1)[0] + '/stats', timeout=10) as response:
        return json.loads(response.read())['requests']


def test_a_torn_prediction_line_after_a_kill_is_asked_again_exactly_once(tmp_path, suite_file):
    data = yaml.safe_load(suite_file.read_text())
    data.update(datasets=['phybench'], seeds=[0])
    suite_file.write_text(yaml.safe_dump(data))
    work = tmp_path / 'out'
    with replay_server(replay_records()) as url:
        first = cli('suite', 'run', suite_file, '--model', 'replay', '--api-url', url, '--work-dir', work)
        assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-4000:]
        files = sorted((work / 'seed_0').glob('predictions/*/*.jsonl'))
        whole = {path: path.read_bytes() for path in files}
        records = sum(content.count(b'\n') for content in whole.values())
        # what SIGKILL during the last write leaves: a partial last line, and a run without its report
        target = files[-1]
        start = whole[target].rstrip(b'\n').rfind(b'\n') + 1
        target.write_bytes(whole[target][:start + 30])
        for report_file in (work / 'seed_0').glob('reports/*/*.json'):
            report_file.unlink()
        before = replay_requests(url)
        again = cli('suite', 'run', suite_file, '--model', 'replay', '--api-url', url, '--work-dir', work)
        asked = replay_requests(url) - before
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-4000:]
    assert asked == 1
    lines = [line for path in files for line in path.read_bytes().split(b'\n') if line]
    assert len(lines) == records and all(json.loads(line) for line in lines)  # whole lines, none glued or lost
    assert 'dropped a torn last line' in again.stderr
