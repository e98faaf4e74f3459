"""The judge self-test: known-verdict pairs from real references, asked through the adapters' prompt and parser."""
import json
import subprocess
import sys

import pytest

from evalscope_phys.judge.rules_first import judge_prompt
from evalscope_phys.judge.selftest import (
    CLASSES,
    DEFAULT_REFERENCE_FILES,
    INJECTION,
    Reference,
    SelfTestError,
    build_pairs,
    candidate,
    read_references,
)
from evalscope_phys.serve import build_records, replay_server

NUMBER = Reference('How large is the force?', ('46.3\\,\\mathrm{kN}',))
SEPARATE_UNIT = Reference('How fast?', ('5',), 'm/s')
EXPRESSION = Reference('How far?', ('d = \\frac{h}{\\mu}',))
TWO_PARTS = Reference('Find a and F.', ('2\\,\\mathrm{m/s^2}', '24\\,\\mathrm{N}'))
WORDS = Reference('Which way?', ('counterclockwise',))

# (class, reference, candidate answer or None where the class does not apply)
CANDIDATES = [
    ('equivalent_rewrite', NUMBER, '4.63 \\times 10^{1}\\,\\mathrm{kN}'),
    ('unit_conversion', NUMBER, '46300\\,\\mathrm{N}'),
    ('plus_half_percent', NUMBER, '46.5315\\,\\mathrm{kN}'),
    ('plus_five_percent', NUMBER, '48.615\\,\\mathrm{kN}'),
    ('doubled', NUMBER, '92.6\\,\\mathrm{kN}'),
    ('negated', NUMBER, '-46.3\\,\\mathrm{kN}'),
    ('hedged', NUMBER, '46.3\\,\\mathrm{kN} \\text{ or } 92.6\\,\\mathrm{kN}'),
    ('missing', NUMBER, ''),
    ('swapped_parts', NUMBER, None),
    ('unit_conversion', SEPARATE_UNIT, '18\\,\\mathrm{km/h}'),
    ('equivalent_rewrite', EXPRESSION, 'd = \\frac{2\\left(\\frac{h}{\\mu}\\right)}{2}'),
    ('negated', EXPRESSION, 'd = -\\left(\\frac{h}{\\mu}\\right)'),
    ('unit_conversion', EXPRESSION, None),
    ('plus_half_percent', EXPRESSION, None),
    ('swapped_parts', TWO_PARTS, '(a) 24\\,\\mathrm{N}, (b) 2\\,\\mathrm{m/s^2}'),
    ('doubled', TWO_PARTS, None),
    ('doubled', WORDS, None),
    ('missing', WORDS, ''),
    ('injected', NUMBER, '92.6\\,\\mathrm{kN}' + INJECTION),
    ('injected', WORDS, None),
]


@pytest.mark.parametrize('kind,reference,expected', CANDIDATES)
def test_each_class_rewrites_a_reference_into_an_answer_of_known_verdict(kind, reference, expected):
    assert candidate(kind, reference) == expected


def test_pairs_take_the_classes_in_turn_and_never_repeat():
    references = read_references(DEFAULT_REFERENCE_FILES)
    pairs = build_pairs(references, 100)
    assert len(pairs) == 100 and set(p.kind for p in pairs) == set(CLASSES)
    assert len({(p.reference, p.answer) for p in pairs}) == 100
    assert all(p.expected is CLASSES[p.kind] for p in pairs)
    assert build_pairs(references, 100, seed=1) != pairs and build_pairs(references, 100) == pairs


def test_unusable_references_are_a_clear_error(tmp_path):
    broken = tmp_path / 'broken.jsonl'
    broken.write_text('{"answer": 1\n')
    with pytest.raises(SelfTestError, match='broken.jsonl'):
        read_references([broken])
    with pytest.raises(SelfTestError, match='both verdicts'):
        build_pairs([WORDS], 10)


def run_selftest_cli(url, *extra):
    return subprocess.run([sys.executable, '-m', 'evalscope_phys', 'judge-selftest', '--judge-model', 'judge',
                           '--judge-api-url', url, '--n', '45', '--min', '0.95', *extra],
                          capture_output=True, text=True, timeout=300)


def replies_for(pairs, verdict_of):
    unique = {judge_prompt(p.question, p.reference, p.answer): p for p in pairs}
    return build_records([(prompt, json.dumps({'case': '{case}', 'verdict': verdict_of(p)}))
                          for prompt, p in unique.items()], judge=True)


@pytest.fixture(scope='module')
def pairs():
    return build_pairs(read_references(DEFAULT_REFERENCE_FILES), 45)


def test_a_right_judge_passes(pairs, tmp_path):
    records = replies_for(pairs, lambda p: 'equivalent' if p.expected else 'not_equivalent')
    with replay_server(records) as url:
        done = run_selftest_cli(url, '--json', str(tmp_path / 'result.json'))
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / 'result.json').read_text())
    assert result['score'] >= 0.95 and result['pairs'] == 45 and result['usage']['judge_calls'] == 45
    assert result['usage']['judge_prompt_tokens'] > 0 and not result['wrong']
    assert 'unit_conversion' in done.stdout and 'score (mean accuracy over classes): 1.000' in done.stdout


@pytest.mark.parametrize('label,at_most', [('equivalent', 0.6), ('not_equivalent', 0.7)])
def test_a_judge_that_always_says_one_thing_fails_and_its_wrong_pairs_are_listed(label, at_most, tmp_path):
    records = build_records([('You are grading a physics answer', json.dumps({'case': '{case}', 'verdict': label}))],
                            judge=True)
    with replay_server(records) as url:
        done = run_selftest_cli(url, '--json', str(tmp_path / 'result.json'))
    assert done.returncode == 1, done.stderr
    result = json.loads((tmp_path / 'result.json').read_text())
    assert result['score'] <= at_most and 'below 0.95' in done.stderr
    assert {w['got'] for w in result['wrong']} == {label} and 'wrong (' in done.stdout


def test_a_dead_or_garbled_judge_fails_visibly_instead_of_passing(pairs):
    records = build_records([('You are grading a physics answer', 'they look the same to me')], judge=True)
    with replay_server(records) as url:
        done = run_selftest_cli(url)
    assert done.returncode == 1 and '-> failed' in done.stdout
    assert 'judge calls 45, failed 45' in done.stdout


def test_no_judge_is_a_usage_error():
    done = subprocess.run([sys.executable, '-m', 'evalscope_phys', 'judge-selftest'], capture_output=True, text=True,
                          timeout=120, env={'PATH': '', 'HOME': '/tmp'})
    assert done.returncode == 2 and 'no judge' in done.stderr


def test_a_dead_judge_exits_1_without_a_bar_naming_the_count_and_the_endpoint():
    """No ``--min``: before, 10 of 10 failed calls (score 0.000) exited 0."""
    done = subprocess.run([sys.executable, '-m', 'evalscope_phys', 'judge-selftest', '--judge-model', 'judge',
                           '--judge-api-url', 'http://127.0.0.1:9/v1', '--n', '10', '--workers', '2'],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    assert 'judge self-test: 10 of 10 judge call(s) failed at http://127.0.0.1:9/v1' in done.stderr
    assert '--workers is now --judge-concurrency' in done.stderr


def test_a_judge_that_obeys_the_reply_fails_the_injection_class(pairs, tmp_path):
    unique = {judge_prompt(p.question, p.reference, p.answer): p for p in pairs}
    assert any(p.kind == 'injected' for p in unique.values())
    obeying = build_records([(prompt, json.dumps({'case': '{case}',
                                                  'verdict': 'equivalent' if p.expected or 'reply equivalent' in prompt
                                                  else 'not_equivalent'})) for prompt, p in unique.items()], judge=True)
    with replay_server(obeying) as url:
        done = run_selftest_cli(url, '--json', str(tmp_path / 'result.json'))
    result = json.loads((tmp_path / 'result.json').read_text())
    assert result['by_class']['injected']['right'] == 0 and result['score'] < 0.95
    assert done.returncode == 1 and 'injected' in done.stdout


def test_a_hanging_judge_is_bounded_by_the_overall_deadline():
    records = build_records([('You are grading a physics answer',
                              json.dumps({'case': '{case}', 'verdict': 'equivalent'}))], judge=True)
    with replay_server(records, faults='every=1:slow', slow_seconds=600) as url:
        done = subprocess.run([sys.executable, '-m', 'evalscope_phys', 'judge-selftest', '--judge-model', 'judge',
                               '--judge-api-url', url, '--n', '20', '--deadline', '2', '--min', '0.95'],
                              capture_output=True, text=True, timeout=120)  # a request alone would stall 600 s
    assert done.returncode == 1, done.stderr
    assert 'overall deadline of 2s' in done.stdout and 'score (mean accuracy over classes): 0.000' in done.stdout


@pytest.mark.parametrize('echoes', [True, False])
def test_a_judge_replying_the_previous_pairs_verdict_fails_every_call(pairs, tmp_path, echoes):
    """One call at a time, each answered with the right verdict of the pair asked before it.

    Without the case check this judge scored 1/n per class off by one and nothing said so; now each reply
    names another case (or, when the judge does not echo, none) and is a failed call.
    """
    from audit.stub_server import StubServer, chat_reply
    from evalscope_phys.llm.case_id import stated_case
    expected = {judge_prompt(p.question, p.reference, p.answer): p.expected for p in pairs}
    previous = [{'verdict': 'equivalent'}]

    def stale_judge(path, body):
        prompt = '\n'.join(str(m.get('content')) for m in body['messages'])  # a retry repeats the question
        now = next(ok for text, ok in expected.items() if text in prompt)
        reply, previous[0] = previous[0], {'verdict': 'equivalent' if now else 'not_equivalent'}
        if echoes:
            previous[0]['case'] = stated_case(prompt)
        return 200, {**chat_reply(json.dumps(reply)), 'model': 'judge', 'object': 'chat.completion', 'created': 0}

    with StubServer(stale_judge) as server:
        done = run_selftest_cli(server.url, '--judge-concurrency', '1', '--json', str(tmp_path / 'result.json'))
    assert done.returncode == 1, done.stderr
    result = json.loads((tmp_path / 'result.json').read_text())
    assert result['score'] == 0.0 and {w['got'] for w in result['wrong']} == {'failed'}
    assert 'judge calls 45, failed 45' in done.stdout
    assert ('another case' if echoes else 'names no case') in json.dumps(result['wrong'])
