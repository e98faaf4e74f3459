"""Imports flow one way (cli -> suite, audit, analysis, serve -> benchmarks, reward -> judge -> llm, scoring -> base).

Read from the source with ``ast`` (imports inside functions count too): no import circle joins modules
of different folders (recursion inside one folder stays allowed) and no module imports one of a
higher layer. Layers follow docs/style.md; a ``cli.py`` anywhere is on the top layer.
"""
import ast
from pathlib import Path
from typing import Dict, List, Set

import pytest

import evalscope_phys

PACKAGE = Path(evalscope_phys.__file__).resolve().parent
ROOT = PACKAGE.name
#: folder (or top-level module) -> layer; higher layers may import lower ones only
LAYERS = {
    'cli': 5, '__main__': 5, '_autoload': 5, 'demo': 5, 'reporting': 5, 'score_reports': 5,
    'suite': 4, 'audit': 4, 'analysis': 4, 'serve': 4,
    'benchmarks': 3, 'reward': 3,
    'judge': 2,
    'llm': 1, 'scoring': 1,
}
BASE = 0  # every other top-level module: compat, errors, jsonl, redact, registration, resources, ...


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = list(path.relative_to(package.parent).with_suffix('').parts)
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


def import_graph(package: Path = PACKAGE) -> Dict[str, Set[str]]:
    """Module -> the package's modules it imports (``from pkg import name`` counts as ``pkg.name`` if a module)."""
    paths = {module_name(p, package): p for p in package.rglob('*.py')}
    graph = {}
    for name, path in paths.items():
        here = name if path.name == '__init__.py' else name.rpartition('.')[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ''
                if node.level:
                    parent = here.split('.')[:len(here.split('.')) - node.level + 1]
                    base = '.'.join(parent + ([node.module] if node.module else []))
                for alias in node.names:
                    targets.add(f'{base}.{alias.name}' if f'{base}.{alias.name}' in paths else base)
            elif isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
        graph[name] = {t for t in targets if t in paths and t != name}
    return graph


def folder(module: str) -> str:
    """The folder a module belongs to (a package's ``__init__`` belongs to its folder), or its own name at the top."""
    return module.split('.')[1] if '.' in module else module


def layer(module: str) -> int:
    if module.rpartition('.')[2] == 'cli':
        return LAYERS['cli']
    return LAYERS.get(folder(module), BASE)


def strongly_connected(graph: Dict[str, Set[str]]) -> List[Set[str]]:
    """Tarjan's components with more than one module (each is an import circle)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[Set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def cross_folder_circles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    return [sorted(c) for c in strongly_connected(graph) if len({folder(m) for m in c}) > 1]


def upward_arrows(graph: Dict[str, Set[str]]) -> List[str]:
    return sorted(f'{a} -> {b}' for a, targets in graph.items() for b in targets if layer(b) > layer(a))


def test_the_graph_is_read():
    graph = import_graph()
    assert f'{ROOT}.scoring.engine' in graph[f'{ROOT}.scoring']
    assert f'{ROOT}.judge.rules_first' in graph[f'{ROOT}.benchmarks.phyx_oe_fix']


def test_no_import_circle_crosses_a_folder():
    assert cross_folder_circles(import_graph()) == []


def test_no_import_runs_up_a_layer():
    assert upward_arrows(import_graph()) == []


@pytest.mark.parametrize('files, circles, upward', [
    ({'compat.py': 'from evalscope_phys.benchmarks import fix\n', 'benchmarks/__init__.py': '',
      'benchmarks/fix.py': 'from evalscope_phys import compat\n'},
     [['evalscope_phys.benchmarks.fix', 'evalscope_phys.compat']],
     ['evalscope_phys.compat -> evalscope_phys.benchmarks.fix']),
    ({'scoring/__init__.py': 'from .a import x\n', 'scoring/a.py': 'from evalscope_phys import scoring\n'},
     [], []),  # recursion inside one folder is allowed
    ({'judge/__init__.py': '', 'judge/panel.py': 'def f():\n    from evalscope_phys.suite import run\n',
      'suite/__init__.py': '', 'suite/run.py': ''},
     [], ['evalscope_phys.judge.panel -> evalscope_phys.suite.run']),
])
def test_the_checks_see_a_circle_and_an_upward_arrow(tmp_path, files, circles, upward):
    root = tmp_path / ROOT
    for name, text in {'__init__.py': '', **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    graph = import_graph(root)
    assert cross_folder_circles(graph) == circles
    assert upward_arrows(graph) == upward
