"""The commands written in README.md and docs/*.md, read from their fenced blocks (helpers for test_docs.py).

Conventions the pages follow: ```bash blocks hold commands (a trailing backslash continues a line, ``#``
starts a comment, ``&&`` chains, a trailing ``&`` runs in the background); ``[--flag VALUE]`` is an
optional part, checked both without and with it; ```python blocks are code, run as doctests when they
start with ``>>>``.
"""
from __future__ import annotations

import argparse
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / 'README.md', *sorted((ROOT / 'docs').rglob('*.md'))]
FENCE = re.compile(r'^```(\w*)[^\n]*\n(.*?)^```', re.S | re.M)


@dataclass(frozen=True)
class Command:
    page: str
    line: str  # as written (continuations joined, comment dropped)
    argv: tuple

    def __str__(self) -> str:
        return f'{self.page}: {self.line}'


def blocks(path: Path, language: str) -> List[str]:
    return [m.group(2) for m in FENCE.finditer(path.read_text()) if m.group(1) == language]


def logical_lines(block: str) -> Iterator[str]:
    """Backslash continuations joined; comment-only lines dropped."""
    pending = ''
    for raw in block.splitlines():
        if raw.rstrip().endswith('\\'):
            pending += raw.rstrip()[:-1] + ' '
            continue
        line = (pending + raw).strip()
        pending = ''
        if line and not line.startswith('#'):
            yield line


def variants(line: str) -> List[str]:
    """Without and with every ``[...]`` optional part (brackets inside quotes are JSON, not options)."""
    optional = re.compile(r"""\[(--?[^\]'"]*)\]""")
    if not optional.search(line):
        return [line]
    return [re.sub(r'\s+', ' ', optional.sub('', line)).strip(), optional.sub(r'\1', line)]


def commands(path: Path) -> List[Command]:
    found = []
    for block in blocks(path, 'bash'):
        for line in logical_lines(block):
            for variant in variants(line):
                tokens = shlex.split(variant, comments=True)
                parts, current = [], []
                for token in tokens + ['&&']:
                    if token == '&&':
                        parts.append(current[:-1] if current and current[-1] == '&' else current)
                        current = []
                    else:
                        current.append(token)
                found.extend(Command(str(path.relative_to(ROOT)), variant, tuple(argv)) for argv in parts if argv)
    return found


class Parsed(Exception):
    """Raised in place of running the command, carrying what its parser made of the arguments."""

    def __init__(self, namespace: argparse.Namespace):
        super().__init__(namespace)
        self.namespace = namespace


def parse_only(monkeypatch) -> None:
    """Every ``ArgumentParser.parse_args`` parses (exiting 2 on a bad flag, as it does) and then stops the command."""
    original = argparse.ArgumentParser.parse_args

    def parse_args(self, args=None, namespace=None):
        raise Parsed(original(self, args, namespace))

    monkeypatch.setattr(argparse.ArgumentParser, 'parse_args', parse_args)
