"""Every script and every ``evalscope-phys`` command answers ``--help`` with exit 0 and a usage text; the paths
the commands' help names exist in an installed package (no ``scripts/`` there)."""
import argparse
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from evalscope_phys.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p.name for p in (ROOT / 'scripts').iterdir() if p.suffix in ('.py', '.sh'))


def command_for(script: str) -> list:
    path = str(ROOT / 'scripts' / script)
    return ['bash', path] if script.endswith('.sh') else [sys.executable, path]


@pytest.mark.parametrize('script', SCRIPTS)
def test_every_script_answers_help(script):
    result = subprocess.run([*command_for(script), '--help'], capture_output=True, text=True, timeout=120, cwd='/')
    assert result.returncode == 0, result.stderr[-2000:]
    assert 'usage' in result.stdout.lower() or 'scripts/' in result.stdout, result.stdout[:500]


@pytest.mark.parametrize('command', sorted(COMMANDS))
def test_every_command_answers_help(command):
    result = subprocess.run([sys.executable, '-m', 'evalscope_phys', command, '--help'], capture_output=True, text=True,
                            timeout=120, cwd='/')
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip()


# --- every path a --help names exists where a wheel installs the package ----------------------------------

#: a token holding one of these is a placeholder or an example the user fills in, not a file of ours
PLACEHOLDER = ('<', '>', '{', '}', '$', '…', '...', '*', '://')
#: file types of the files we ship; a token ending in one (or starting with a top-level folder) names a file
SUFFIXES = ('.json', '.jsonl', '.txt', '.sh', '.yaml', '.yml', '.py', '.parquet', '.md', '.patch')
TOP_FOLDERS = ('evalscope_phys', 'scripts', 'yamls', 'patches', 'docs', 'tests', 'data')
PACKAGE = ROOT / 'evalscope_phys'


def named_paths(text: str) -> list:
    """Path-looking tokens of a help text that name a file of ours (placeholders and prose like 'train/test' skipped)."""
    found = []
    for token in re.findall(r"[\w.<>{}$…*:/-]*/[\w.<>{}$…*:/-]*", text):
        token = token.lstrip('(`\'"').rstrip('.,:;)`\'"')
        if '/' not in token or any(mark in token for mark in PLACEHOLDER):
            continue
        parts = [p for p in token.split('/') if p]
        if any(p.isupper() for p in parts):  # RUN_DIR/...
            continue
        if parts and (parts[0] in TOP_FOLDERS or token.endswith(SUFFIXES)  # (an absolute one without: a URL route)
                      or (token.startswith('/') and set(parts) & set(TOP_FOLDERS))):
            found.append(token)
    return found


def exists_when_installed(token: str) -> bool:
    """In site-packages only the package is there: ``evalscope_phys/...`` or a path inside the package; an
    absolute path (the help found the file) must exist."""
    if token.startswith('/'):
        return Path(token).exists()
    if token.startswith('evalscope_phys/'):
        return (ROOT / token).exists()
    return token.split('/', 1)[0] not in ('scripts', 'yamls', 'patches', 'docs', 'tests') and (PACKAGE / token).exists()


def help_texts() -> dict:
    """'evalscope-phys NAME [ACTION]' -> its --help, for every sub-command and every action of one."""
    from evalscope_phys.cli import COMMANDS

    texts = {}
    for name, (module_name, help_text) in COMMANDS.items():
        module = importlib.import_module(module_name)
        if getattr(module, 'PASSTHROUGH', False):  # its own parser: ask it
            result = subprocess.run([sys.executable, '-m', 'evalscope_phys', name, '--help'], capture_output=True,
                                    text=True, timeout=120, cwd='/')
            texts[f'evalscope-phys {name}'] = result.stdout
            continue
        parser = argparse.ArgumentParser(prog=f'evalscope-phys {name}', description=help_text)
        module.add_arguments(parser)
        texts[f'evalscope-phys {name}'] = parser.format_help()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub_name, sub in action.choices.items():
                    texts[f'evalscope-phys {name} {sub_name}'] = sub.format_help()
    return texts


def test_every_help_names_only_paths_an_install_has():
    texts = help_texts()
    assert 'evalscope-phys suite run' in texts and 'evalscope-phys score-reports' in texts
    missing = {command: [t for t in named_paths(text) if not exists_when_installed(t)] for command, text in texts.items()}
    assert not {command: tokens for command, tokens in missing.items() if tokens}, missing
    assert any(named_paths(text) for text in texts.values()), 'the check looked at some paths'


@pytest.mark.parametrize('text, named, ok', [
    ('see scripts/score_reports.sh', ['scripts/score_reports.sh'], False),
    ('default: evalscope_phys/audit/judge_prompt.txt', ['evalscope_phys/audit/judge_prompt.txt'], True),
    ('defaults to data/demo/phyx', ['data/demo/phyx'], True),
    ('against /no/such/report_schema.json', ['/no/such/report_schema.json'], False),
    (f'against {ROOT}/evalscope_phys/demo.py', [f'{ROOT}/evalscope_phys/demo.py'], True),
    ('reads yamls/suites/text.yaml', ['yamls/suites/text.yaml'], False),
    ('writes <out>/cache, RUN_DIR/error_analysis/, reports/<model>/<dataset>.json, train/test, …/v1', [], True),
])
def test_path_check_golden(text, named, ok):
    assert named_paths(text) == named
    assert all(exists_when_installed(t) for t in named) is ok
