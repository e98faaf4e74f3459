"""Lets an unpatched EvalScope see our benchmarks, at no cost to interpreter start-up.

The ``.pth`` file runs :func:`install` at every start: it only puts a finder on
``sys.meta_path`` (no EvalScope import, ~0.1 ms). When ``evalscope.benchmarks`` is first
imported, the finder wraps its lazy registry's resolvers so that our names resolve by importing
just our module, and a full listing (``benchmark-info``) includes ours. If EvalScope was patched
to read entry points itself (``evalscope-phys patches apply``), the hook steps aside.
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


class _BenchmarksFinder:
    """One-shot meta path finder: wraps the loader of ``evalscope.benchmarks``, then removes itself."""

    def find_spec(self, fullname, path, target=None):
        if fullname != TARGET:
            return None
        _remove_finder()
        from importlib.util import find_spec

        spec = find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _HookedLoader(spec.loader)
        return spec


class _HookedLoader:
    """Runs the real loader, then plugs our resolvers into the freshly built registry."""

    def __init__(self, loader) -> None:
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        try:
            plug_into(module)
        except Exception as exc:  # a broken plugin must never break EvalScope itself
            _warn(f'evalscope-phys: could not register physics benchmarks: {exc!r}')

    def __getattr__(self, name):
        return getattr(self._loader, name)


def _remove_finder() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _BenchmarksFinder)]


def install() -> None:
    """Called from the ``.pth`` file; cheap and idempotent."""
    if TARGET in sys.modules:
        plug_into(sys.modules[TARGET])
        return
    if not any(isinstance(f, _BenchmarksFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _BenchmarksFinder())


def plug_into(benchmarks_module) -> bool:
    """Wrap the registry resolvers of an imported ``evalscope.benchmarks``; True if we did."""
    if hasattr(benchmarks_module, PATCH_MARKER):
        return False
    from evalscope.api.registry import BENCHMARK_REGISTRY

    from evalscope_phys.registration import BENCHMARK_MODULES

    if getattr(BENCHMARK_REGISTRY, '_evalscope_phys_plugged', False):
        return False
    resolve_one = BENCHMARK_REGISTRY._resolve_one
    resolve_all = BENCHMARK_REGISTRY._resolve_all
    indexed_module = BENCHMARK_REGISTRY._indexed_module
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
