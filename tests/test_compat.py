"""Private EvalScope API lives in compat.py only, and a moved name fails with a message naming it."""
import ast
import functools
import warnings
from pathlib import Path

import pytest

from evalscope_phys import compat

PACKAGE = Path(compat.__file__).resolve().parent
#: EvalScope modules (and the names from them) anyone in the package may import
PUBLIC = ('evalscope.api', 'evalscope.constants', 'evalscope.config', 'evalscope.run')
PUBLIC_NAMES = {'evalscope.utils': {'get_logger'}}


def our_modules():
    return sorted(p for p in PACKAGE.rglob('*.py') if p.name != 'compat.py')


@functools.lru_cache(maxsize=1)
def evalscope_private_names() -> frozenset:
    """Every ``_name`` EvalScope defines (functions, methods, attributes, module constants), dunders aside."""
    import evalscope

    names = set()
    for path in Path(evalscope.__file__).parent.rglob('*.py'):
        try:
            with warnings.catch_warnings():  # EvalScope's own invalid escapes in regex strings
                warnings.simplefilter('ignore')
                tree = ast.parse(path.read_text(encoding='utf-8'))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return frozenset(n for n in names if n.startswith('_') and not n.startswith('__'))


def own_names() -> set:
    """``_names`` our package defines itself (its own private helpers may share a spelling)."""
    names = set()
    for path in PACKAGE.rglob('*.py'):
        for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return names


def test_evalscope_internals_are_imported_only_by_compat():
    bad = []
    for path in our_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split('.')[0] == 'evalscope':
                names = {alias.name for alias in node.names}
                if not node.module.startswith(PUBLIC) and not names <= PUBLIC_NAMES.get(node.module, set()):
                    bad.append(f'{path.relative_to(PACKAGE)}: from {node.module} import {sorted(names)}')
            elif isinstance(node, ast.Import):
                bad += [f'{path.relative_to(PACKAGE)}: import {a.name}' for a in node.names
                        if a.name.split('.')[0] == 'evalscope' and not a.name.startswith(PUBLIC)]
    assert bad == []


def test_no_private_evalscope_attribute_is_touched_outside_compat():
    private = evalscope_private_names() - own_names()
    bad = []
    for path in our_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
            if isinstance(node, ast.Attribute) and node.attr in private:
                bad.append(f'{path.relative_to(PACKAGE)}:{node.lineno}: .{node.attr}')
    assert bad == []


def private_methods(paths) -> dict:
    """``{_name: [where]}`` for every private (non-dunder) method a class in ``paths`` defines."""
    out = {}
    for path in paths:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                tree = ast.parse(path.read_text(encoding='utf-8'))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for cls in ast.walk(tree):
            if isinstance(cls, ast.ClassDef):
                out.update({f.name: out.get(f.name, []) + [f'{path.name}:{cls.name}'] for f in cls.body
                            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                            and f.name.startswith('_') and not f.name.startswith('__')})
    return out


def test_no_private_evalscope_method_is_overridden_outside_compat():
    """An override is a private-API use too, though it defines the name (so the test above exempts it)."""
    import evalscope

    theirs = private_methods(Path(evalscope.__file__).parent.rglob('*.py'))
    ours = private_methods(our_modules())
    assert {name: ours[name] for name in set(ours) & set(theirs)} == {}


def test_the_override_test_sees_an_override(tmp_path):
    source = tmp_path / 'adapter.py'
    source.write_text('class A:\n    def _on_inference_start(self, model, sample):\n        pass\n')
    assert private_methods([source]) == {'_on_inference_start': ['adapter.py:A']}


def test_a_moved_name_is_named_in_the_error():
    class Registry:
        _resolve_one = _resolve_all = None

    with pytest.raises(compat.CompatError, match=r'evalscope\.api\.registry\.LazyRegistry\._indexed_module') as info:
        compat.registry_resolvers(Registry())
    assert f'written against EvalScope {compat.SUPPORTED_VERSION}' in str(info.value)
    with pytest.raises(compat.CompatError, match='the module evalscope.no_such_module'):
        compat.private_module('evalscope.no_such_module')


def test_the_phyx_fix_is_gated_by_the_evalscope_version(monkeypatch):
    from evalscope_phys.benchmarks.phyx_oe_fix import fix_phyx_oe

    monkeypatch.setattr(compat, 'installed_version', lambda: '1.15.0')
    reason = compat.phyx_oe_fix_wanted()
    assert reason == f'EvalScope 1.15.0 is not {compat.SUPPORTED_VERSION}'
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        assert fix_phyx_oe(object()) is False
    assert any('phyx_oe is scored as EvalScope does' in str(w.message) for w in caught)


def test_the_installed_version_is_read_from_metadata_without_importing_evalscope():
    import subprocess
    import sys

    code = 'import sys; from evalscope_phys import compat; print(compat.installed_version(), "evalscope" in sys.modules)'
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=60).stdout.split()
    assert out == [compat.SUPPORTED_VERSION, 'False']
