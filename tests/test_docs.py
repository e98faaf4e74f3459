"""Every command written in README.md and docs/ is exercised: parsed by the real parser of the tool it calls.

``evalscope-phys``, ``scripts/*.py`` and ``evalscope eval`` commands go through their own argparse
parser (which stops the command right after parsing, see ``docs_commands.parse_only``); an ``evalscope
eval`` command is then turned into EvalScope's TaskConfig and each of its datasets into its adapter, so
a renamed benchmark or a flag that no longer exists fails here (EvalScope does not check ``dataset_args``
keys when it builds an adapter, so neither does this). ``score-reports`` options are checked against the bash scorer's own option list. Commands that
run for real elsewhere say where (``ELSEWHERE``). ```python blocks starting with ``>>>`` run as doctests;
other python blocks import what they name and bind every call to its signature.
"""
import ast
import doctest
import inspect
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from docs_commands import PAGES, ROOT, Command, Parsed, blocks, commands, parse_only

ALL = [command for page in PAGES for command in commands(page)]
#: first words of commands that run for real in another test, and that test
ELSEWHERE = {
    ('scripts/dev.sh', 'demo'): 'tests/test_demo.py (the demo), .ci/run',
    ('scripts/dev.sh', 'test'): '.ci/run runs it (tests/test_shared_data_gate.py checks that)',
    ('scripts/dev.sh', 'setup'): 'the first step of demo and test',
    ('pip', 'install'): "tests/test_install.py ('dir' and 'wheel' modes)",
    ('pip', 'wheel'): "tests/test_install.py ('wheel' mode)",
    ('kill', '%1'): 'shell',
    ('source', '.venv/bin/activate'): 'shell',
    ('python3', '-m'): 'verl (not installed here): test_verl_command_names_our_reward_functions',
}
PYTHONS = {'python', 'python3', '.venv/bin/python'}


def ids(command: Command) -> str:
    return f'{command.page}:{" ".join(command.argv)[:60]}'


def test_the_pages_hold_commands():
    assert len(ALL) > 20, [str(c) for c in ALL]
    assert {Path(c.page).name for c in ALL} >= {'README.md', 'audit.md', 'suites.md', 'judge.md', 'phyx_oe.md'}


@pytest.mark.parametrize('command', ALL, ids=ids)
def test_every_command_is_exercised(command, monkeypatch):
    argv = list(command.argv)
    if argv[0] == 'export':
        assert re.fullmatch(r'[A-Z_]+=.*', argv[1]), command
        return
    if tuple(argv[:2]) in ELSEWHERE or (argv[0] == 'python3' and argv[1:3] == ['-m', 'verl.trainer.main_ppo']):
        return
    assert '...' not in argv, f'{command}: a bare "..." cannot be run; write the command out'
    parse_only(monkeypatch)
    if argv[0] == 'evalscope-phys':
        check_ours(command, argv[1:], monkeypatch)
    elif argv[:2] == ['evalscope', 'eval']:
        check_evalscope_eval(command, argv[2:], monkeypatch)
    elif argv[0] in PYTHONS and argv[1].startswith('scripts/'):
        monkeypatch.setattr(sys, 'argv', [argv[1], *argv[2:]])
        parses(argv, lambda: runpy.run_path(str(ROOT / argv[1]), run_name='__main__'))
    else:
        pytest.fail(f'{command}: no test exercises this command; teach test_docs.py how, or name the test in ELSEWHERE')


def parses(argv: list, run) -> None:
    """``run`` gets as far as its parser's verdict (``--help``: the help text and exit 0)."""
    if '--help' in argv:
        with pytest.raises(SystemExit) as stop:
            run()
        assert stop.value.code == 0
        return
    with pytest.raises(Parsed):
        run()


def check_ours(command: Command, argv: list, monkeypatch) -> None:
    from evalscope_phys.cli import COMMANDS, main

    assert argv[0] in COMMANDS, command
    if argv[0] == 'score-reports':  # passes through to the bash scorer, whose options are its case arms
        script = (ROOT / 'scripts' / 'score_reports.sh').read_text()
        known = set(re.findall(r'^\s+(--[a-z-]+)\)', script, re.M)) | {'-h', '--help'}
        flags = [a for a in argv[1:] if a.startswith('-')]
        assert set(flags) <= known, f'{command}: {sorted(set(flags) - known)} not options of score_reports.sh'
        return
    parses(argv, lambda: main(argv))


def check_evalscope_eval(command: Command, argv: list, monkeypatch) -> None:
    from evalscope.api.registry import get_benchmark
    from evalscope.cli.cli import run_cmd
    from evalscope.config import parse_task_config

    monkeypatch.setattr(sys, 'argv', ['evalscope', 'eval', *argv])
    with pytest.raises(Parsed) as parsed:
        run_cmd()
    config = parse_task_config(parsed.value.namespace)
    for name in config.datasets:
        get_benchmark(name, config)  # an unknown benchmark raises here


def test_a_command_with_a_wrong_flag_fails(monkeypatch):
    """The check is not vacuous: a flag no parser knows exits 2."""
    parse_only(monkeypatch)
    bad = Command('x', 'x', ('evalscope-phys', 'judge-selftest', '--no-such-flag'))
    with pytest.raises(SystemExit) as stop:
        test_every_command_is_exercised(bad, monkeypatch)
    assert stop.value.code == 2


def test_verl_command_names_our_reward_functions():
    block = next(b for b in blocks(ROOT / 'docs' / 'reward.md', 'bash') if 'verl.trainer' in b)
    inner = re.search(r"\$\(python -c '([^']*)'\)", block).group(1)
    path = subprocess.run([sys.executable, '-c', inner], capture_output=True, text=True, check=True).stdout.strip()
    assert Path(path).is_file(), path
    import evalscope_phys.reward.verl as verl

    for name in re.findall(r'custom_reward_function\.name=(\w+)', block):
        assert callable(getattr(verl, name)), name
    for key in re.findall(r'reward_kwargs\.(\w+)=', block):
        assert key in inspect.signature(verl.compute_score).parameters, key


PYTHON_BLOCKS = [(page, block) for page in PAGES for block in blocks(page, 'python')]


@pytest.mark.parametrize('page, block', PYTHON_BLOCKS, ids=[f'{p.relative_to(ROOT)}#{i}' for i, (p, _) in
                                                            enumerate(PYTHON_BLOCKS)])
def test_every_python_block_runs(page, block):
    if block.lstrip().startswith('>>>'):
        test = doctest.DocTestParser().get_doctest(block, {}, str(page), str(page), 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        runner.run(test)
        assert runner.failures == 0 and test.examples, f'{page}: doctest failed (output above)'
        return
    namespace: dict = {}
    tree = ast.parse(block)
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            exec(compile(ast.Module([node], []), str(page), 'exec'), namespace)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id in namespace]
    assert calls, block
    for call in calls:
        args = [None] * len(call.args)
        kwargs = {k.arg: None for k in call.keywords}
        inspect.signature(namespace[call.func.id]).bind(*args, **kwargs)
    # a call whose line ends with "# VALUE" gives that value (its arguments are literals)
    for line in block.splitlines():
        found = re.fullmatch(r'(\w+\(.*\))\s+#\s*([-0-9.]+)', line.strip())
        if found:
            assert eval(found.group(1), namespace) == float(found.group(2)), line


def test_every_relative_link_resolves():
    """Pages move and split; a link to a page or file that is not there fails here."""
    broken, seen = [], 0
    for page in PAGES:
        for target in re.findall(r'\]\(([^)\s#]+)(?:#[^)]*)?\)', page.read_text()):
            seen += 1
            if not re.match(r'[a-z]+://', target) and not (page.parent / target).exists():
                broken.append(f'{page.relative_to(ROOT)} -> {target}')
    assert seen > 30 and not broken, (seen, broken)
