#!/usr/bin/env python
"""What the plugin costs: the .pth hook at interpreter start, and resolving `phybench` by name.

Prints the median over repeated fresh interpreters. Targets: hook < 5 ms; resolve < 200 ms after
evalscope is imported, with no built-in adapter module loaded.
"""
import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

HOOK = '''
import sys, time
sys.path.insert(0, %r)
t = time.perf_counter()
import evalscope_phys._autoload as a
a.install()
print((time.perf_counter() - t) * 1000)
'''
RESOLVE = '''
import sys, time
import evalscope, evalscope.benchmarks
from evalscope.api.registry import BENCHMARK_REGISTRY
t = time.perf_counter()
assert 'phybench' in BENCHMARK_REGISTRY
ms = (time.perf_counter() - t) * 1000
print(ms, sum(m.startswith('evalscope.benchmarks.') and m.endswith('_adapter') for m in sys.modules))
'''


def measure(code: str, runs: int, flags=()) -> list:
    """Fresh interpreters with bytecode caching on, as an installed package has; one warm-up run."""
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONDONTWRITEBYTECODE'}
    out = []
    for _ in range(runs + 1):
        line = subprocess.run([sys.executable, *flags, '-c', code], capture_output=True, text=True, check=True,
                              env=env).stdout
        out.append([float(x) for x in line.split()])
    return out[1:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('runs', nargs='?', type=int, default=15, help='fresh interpreters per measurement (default 15)')
    runs = parser.parse_args().runs
    import evalscope_phys

    package_parent = str(Path(evalscope_phys.__file__).resolve().parents[1])
    hook = statistics.median(r[0] for r in measure(HOOK % package_parent, runs, flags=('-S',)))
    resolve = measure(RESOLVE, max(3, runs // 5))
    print(f'hook import+install (fresh interpreter, no site): median {hook:.2f} ms   target < 5 ms')
    print(f'resolve phybench after evalscope import:         median {statistics.median(r[0] for r in resolve):.1f} ms'
          f'   target < 200 ms; built-in adapters loaded: {int(max(r[1] for r in resolve))}')


if __name__ == '__main__':
    main()
