"""The three stages end to end through scripts/audit_three_stage.py: fixtures, MiniLM, a stub judge."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from evalscope_phys.audit.corpus import read_corpus_rows
from evalscope_phys.llm.case_id import stated_case

from .conftest import FIXTURES
from .stub_server import StubServer, chat_reply, prompt_of

SCRIPT = Path(__file__).resolve().parents[2] / 'scripts' / 'audit_three_stage.py'
POOL, EVAL = FIXTURES / 'pool.jsonl', FIXTURES / 'eval.json'

# (start of the eval text, start of the pool text) that are the same problem
DUPLICATES = [('A BLOCK of mass', 'A block of mass'), ('Determine the orbital radius', 'A particle of charge'),
              ('One mole', 'One mole')]


def _section(prompt: str, name: str) -> str:
    tag = {'EVAL': 'eval_problem', 'POOL': 'pool_problem'}[name]
    return prompt.split(f'<untrusted_{tag}>\n', 1)[1].split(f'\n</untrusted_{tag}>', 1)[0]


def fixture_judge(path: str, body: dict):
    prompt = prompt_of(body)
    ev, po = _section(prompt, 'EVAL'), _section(prompt, 'POOL')
    if ev.startswith('A charged particle moves through crossed'):
        return 200, chat_reply('I would need to see the figures first.')
    dup = any(ev.startswith(a) and po.startswith(b) for a, b in DUPLICATES)
    label = 'near_duplicate' if dup else 'same_topic_neighbour'
    return 200, chat_reply(json.dumps({'case': stated_case(prompt), 'label': label, 'reason': f'stub says {label}'}))


def _main():
    spec = importlib.util.spec_from_file_location('audit_three_stage', SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main


def _pairs(out: Path) -> dict:
    rows = [json.loads(line) for line in (out / 'pool__eval.pairs.jsonl').read_text().splitlines()]
    return {(r['eval_id'], r['pool_id']): r for r in rows}


def test_three_stages_on_fixtures_then_a_rerun_repeats_nothing(minilm, tmp_path: Path, capsys) -> None:
    main = _main()
    out = tmp_path / 'out'
    with StubServer(fixture_judge) as judge:
        argv = ['--pool', str(POOL), '--eval', str(EVAL), '--out', str(out), '--cos-threshold', '0.45',
                '--top-k', '2', '--judge-api-url', judge.url, '--judge-model', 'stub', '--write-clean']
        assert main(argv) == 0
        first_calls = len(judge.requests)
        err = capsys.readouterr().err
        assert 'note: the cosine threshold 0.45 was set for mxbai-embed-large-v1' in err
        assert 'top-1 cosine per eval item: median' in err

        pairs = _pairs(out)
        assert {k for k, r in pairs.items() if r['stage1_hit']} == {
            ('1', 'p-block-incline'), ('1', 'p-block-incline-copy'), ('6', 'p-gas')}
        labels = {k: r['label'] for k, r in pairs.items() if r['stage2_candidate']}
        assert labels == {('1', 'p-block-incline'): 'near_duplicate', ('1', 'p-block-incline-copy'): 'near_duplicate',
                          ('2', 'p-magnet'): 'near_duplicate', ('2', 'p-satellite'): 'same_topic_neighbour',
                          ('3', 'p-magnet'): 'unparseable', ('6', 'p-gas'): 'near_duplicate'}
        assert first_calls == 6
        assert pairs[('2', 'p-magnet')]['jaccard'] == 0.0 and pairs[('2', 'p-magnet')]['cosine'] > 0.8

        summary = json.loads((out / 'summary.json').read_text())[0]
        assert (summary['stage1_hits'], summary['stage2_candidates'], summary['stage3_near_duplicates']) == (3, 6, 4)
        assert summary['stage3_near_duplicates_not_stage1'] == 1 and summary['stage3_unparseable'] == 1
        assert sum(b['candidates'] for b in summary['bins']) == 6
        assert (out / 'summary.md').read_text().startswith('# Contamination audit')
        assert (out / 'pool__eval.cosine.png').read_bytes()[:4] == b'\x89PNG'
        clean = read_corpus_rows(out / 'clean' / 'pool.clean.jsonl')
        assert [r['uid'] for r in clean] == ['p-capacitor', 'p-pendulum', 'p-lens', 'p-rocket', 'p-spring',
                                             'p-satellite']

        assert main(argv) == 0
        err = capsys.readouterr().err
        assert len(judge.requests) == first_calls  # zero judge calls on the re-run
        assert 'pool: 0 embedded, 10 from cache' in err and 'eval: 0 embedded, 6 from cache' in err
        assert _pairs(out) == pairs


def test_in_pool_deduplication_without_judge(minilm, tmp_path: Path) -> None:
    out = tmp_path / 'dedup'
    assert _main()(['--pool', str(POOL), '--in-pool', '--out', str(out), '--write-clean']) == 0
    rows = [json.loads(x) for x in (out / 'pool__pool.pairs.jsonl').read_text().splitlines()]
    assert [(r['eval_id'], r['pool_id'], r['stage1_hit'], r['stage2_candidate']) for r in rows] == [
        ('p-block-incline', 'p-block-incline-copy', True, True)]
    clean = read_corpus_rows(out / 'clean' / 'pool.clean.jsonl')
    assert len(clean) == 9 and 'p-block-incline' in [r['uid'] for r in clean]


def test_stage_one_only(tmp_path: Path) -> None:
    out = tmp_path / 's1'
    assert _main()(['--pool', str(POOL), '--eval', str(EVAL), '--out', str(out), '--no-embed']) == 0
    s = json.loads((out / 'summary.json').read_text())[0]
    assert s['stage1_hits'] == 3 and s['stage2_candidates'] is None and s['bins'] == []
    assert not (out / 'pool__eval.cosine.png').exists()


def _dead_judge(path: str, body: dict):
    return 404, {'error': 'no such model'}


def test_a_dead_judge_fails_the_audit_writes_no_clean_pool_and_a_rerun_resumes(minilm, tmp_path: Path,
                                                                               capsys) -> None:
    main = _main()
    out = tmp_path / 'out'
    base = ['--pool', str(POOL), '--eval', str(EVAL), '--out', str(out), '--cos-threshold', '0.45', '--top-k', '2',
            '--judge-model', 'stub', '--write-clean', '--judge-retries', '0']
    with StubServer(_dead_judge) as dead:
        assert main(base + ['--judge-api-url', dead.url]) == 1
    err = capsys.readouterr().err
    assert f'audit stage 3 (pool x eval): 6 of 6 judge call(s) failed at {dead.url}' in err
    assert 'clean pool: not written' in err
    assert not (out / 'clean').exists()
    assert (out / 'pool__eval.pairs.jsonl').exists() and 'judge_failed' in json.loads(
        (out / 'summary.json').read_text())[0]
    with StubServer(_dead_judge) as dead:  # a threshold the user set lets the same failures through
        assert main(base + ['--judge-api-url', dead.url, '--max-judge-failures', '6']) == 0
    assert capsys.readouterr() and (out / 'clean' / 'pool.clean.jsonl').exists()
    (out / 'clean' / 'pool.clean.jsonl').unlink()
    with StubServer(fixture_judge) as judge:  # the judge is back: the same command finishes the run
        assert main(base + ['--judge-url', judge.url]) == 0
        assert len(judge.requests) == 6
    err = capsys.readouterr().err
    assert '--judge-url is now --judge-api-url' in err
    assert len(read_corpus_rows(out / 'clean' / 'pool.clean.jsonl')) == 6


@pytest.mark.parametrize('extra, message', [
    (['--judge-api-url', 'http://127.0.0.1:9/v1'], '--judge-api-url needs --judge-model'),
    (['--in-pool'], 'drop --eval or --in-pool'),
    (['--eval-fields', 'no_such_field'], "appear in no record"),
])
def test_bad_arguments_exit_2_with_a_message(tmp_path: Path, capsys, extra, message) -> None:
    argv = ['--pool', str(POOL), '--eval', str(EVAL), '--out', str(tmp_path), '--no-embed'] + extra
    assert _main()(argv) == 2
    assert message in capsys.readouterr().err


def test_help_documents_every_stage(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        _main()(['--help'])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for option in ('--pool-fields', '--in-pool', '--jaccard-threshold', '--embed-model', '--embed-url',
                   '--cos-threshold', '--block-elements', '--judge-api-url', '--judge-concurrency', '--write-clean',
                   '--max-judge-failures',
                   '--engine', '--ray-address', '--ray-workers', '--ray-block-rows', 'hashed-'):
        assert option in text
