"""Lets an unpatched EvalScope see our benchmarks and fixes, at no cost to interpreter start-up.

The ``.pth`` file runs :func:`install` at every start: it only puts a finder on ``sys.meta_path``
(no EvalScope import, ~0.1 ms). The finder waits for six EvalScope modules and runs one hook right
after each has executed, before anything else can use it:

- ``evalscope.benchmarks``: wrap its lazy registry's resolvers so that our names resolve by importing
  just our module, and a full listing (``benchmark-info``) includes ours. If EvalScope was patched to
  read entry points itself (``evalscope-phys patches apply``), this hook steps aside.
- ``evalscope.utils.argument_utils`` and ``evalscope.config``: mask every credential-looking header
  (model and judge) in configs, logs and reports.
- ``evalscope.benchmarks.phyx.phyx_adapter``: score upstream ``phyx_oe`` by our rules when the installed
  EvalScope lacks the fix.
- ``evalscope.run``: start booting the scoring workers as a native run of one of our benchmarks begins,
  before EvalScope's own set-up (:mod:`evalscope_phys.benchmarks.scoring_start`).

The private EvalScope names these hooks touch are all in :mod:`evalscope_phys.compat`.
"""
import importlib
import sys

# No typing/importlib.abc/warnings at module level: they cost ~10 ms at every interpreter start.
TARGET = 'evalscope.benchmarks'
# Set by the discovery patch in patches/: EvalScope then resolves our entry points itself.
PATCH_MARKER = 'PLUGIN_ENTRY_POINT_GROUP'


def _warn(message):
    import warnings

    warnings.warn(message, stacklevel=3)


def _hook_discovery(module):
    from evalscope_phys.errors import install_excepthook

    install_excepthook()
    plug_into(module)


def _hook_headers(module):
    from evalscope_phys import compat

    compat.mask_secret_headers(module)


def _hook_config(module):
    from evalscope_phys import compat

    compat.mask_secret_judge_headers(module)


def _hook_io(module):
    from evalscope_phys import compat

    compat.escape_invalid_unicode_in_jsonl(module)


def _hook_run(module):
    from evalscope_phys import compat
    from evalscope_phys.benchmarks.scoring_start import start_for_run

    compat.before_each_run(module, start_for_run)


def _hook_phyx(module):
    from evalscope_phys.benchmarks.phyx_oe_fix import fix_phyx_oe

    fix_phyx_oe(module)


#: module -> (what the hook does, the hook); each runs once, right after the module executes
HOOKS = {
    TARGET: ('register physics benchmarks', _hook_discovery),
    'evalscope.utils.argument_utils': ('mask credential headers', _hook_headers),
    'evalscope.config': ('mask credential headers of judge models', _hook_config),
    'evalscope.utils.io_utils': ('write replies with lone surrogates as JSON escapes', _hook_io),
    'evalscope.benchmarks.phyx.phyx_adapter': ('fix phyx_oe rule scoring', _hook_phyx),
    'evalscope.run': ('start the scoring workers as a run of our benchmarks begins', _hook_run),
}


def _run_hook(name, module):
    what, hook = HOOKS[name]
    try:
        hook(module)
    except Exception as exc:  # a broken plugin must never break EvalScope itself
        _warn(f'evalscope-phys: could not {what}: {exc}')


class _EvalScopeFinder:
    """Meta path finder: wraps the loaders of the hooked modules; removes itself when all have run."""

    def __init__(self):
        self.pending = set(HOOKS)

    def find_spec(self, fullname, path, target=None):
        if fullname not in self.pending:
            return None
        self.pending.discard(fullname)
        if not self.pending:
            _remove_finder()
        spec = None
        for finder in list(sys.meta_path):
            if finder is self or not hasattr(finder, 'find_spec'):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _HookedLoader(spec.loader, fullname)
        return spec


class _HookedLoader:
    """Runs the real loader, then the module's hook."""

    def __init__(self, loader, name) -> None:
        self._loader = loader
        self._name = name

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        _run_hook(self._name, module)

    def __getattr__(self, name):
        return getattr(self._loader, name)


def _remove_finder() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _EvalScopeFinder)]


def install() -> None:
    """Called from the ``.pth`` file; cheap and idempotent. Modules already imported are hooked now."""
    if any(isinstance(f, _EvalScopeFinder) for f in sys.meta_path):
        return
    finder = _EvalScopeFinder()
    for name in HOOKS:
        if name in sys.modules:
            finder.pending.discard(name)
            _run_hook(name, sys.modules[name])
    if finder.pending:
        sys.meta_path.insert(0, finder)


def plug_into(benchmarks_module) -> bool:
    """Wrap the registry resolvers of an imported ``evalscope.benchmarks``; True if we did."""
    if hasattr(benchmarks_module, PATCH_MARKER):
        return False
    from evalscope.api.registry import BENCHMARK_REGISTRY

    from evalscope_phys import compat
    from evalscope_phys.registration import BENCHMARK_MODULES

    if getattr(BENCHMARK_REGISTRY, '_evalscope_phys_plugged', False):
        return False
    resolve_one, resolve_all, indexed_module = compat.registry_resolvers(BENCHMARK_REGISTRY)
    ours = {name: module for name, module in BENCHMARK_MODULES.items() if not indexed_module(name)}
    for name in set(BENCHMARK_MODULES) - set(ours):
        _warn(f'evalscope-phys: {name!r} is a built-in EvalScope benchmark; ours is not registered.')

    def resolve_one_with_ours(name: str) -> bool:
        module = ours.get(name)
        if module is None:
            return resolve_one(name)
        importlib.import_module(module)
        return BENCHMARK_REGISTRY.is_materialized(name)

    def resolve_all_with_ours() -> None:
        resolve_all()
        for name, module in ours.items():
            if BENCHMARK_REGISTRY.is_materialized(name):
                continue
            try:
                importlib.import_module(module)
            except Exception as exc:
                _warn(f'evalscope-phys: benchmark {name!r} failed to load: {exc!r}')

    BENCHMARK_REGISTRY.set_resolvers(resolve_one_with_ours, resolve_all_with_ours, indexed_module)
    BENCHMARK_REGISTRY._evalscope_phys_plugged = True
    return True
