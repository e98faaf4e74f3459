"""The one list of benchmarks this package adds to EvalScope.

The ``.pth`` hook (:mod:`evalscope_phys._autoload`) and the patched EvalScope (entry points in
``pyproject.toml``) both read names from here; ``tests/test_registration.py`` keeps the two in step.
"""
from typing import Dict

#: benchmark name -> module whose import registers it
BENCHMARK_MODULES: Dict[str, str] = {
    'phybench': 'evalscope_phys.benchmarks.phybench',
    'physolym': 'evalscope_phys.benchmarks.physolym',
    'physreason': 'evalscope_phys.benchmarks.physreason',
    'olympiadbench_physics': 'evalscope_phys.benchmarks.olympiadbench_physics',
    'ugphysics': 'evalscope_phys.benchmarks.ugphysics',
    'phyx_oe_rules': 'evalscope_phys.benchmarks.phyx_oe_rules',
    'physunibench': 'evalscope_phys.benchmarks.physunibench',
    'seephys': 'evalscope_phys.benchmarks.seephys',
    'omniphys': 'evalscope_phys.benchmarks.omniphys',
    'physics_yale': 'evalscope_phys.benchmarks.physics_yale',
    'cmphysbench': 'evalscope_phys.benchmarks.cmphysbench',
}

#: the entry-point group the discovery patch in ``patches/`` reads
ENTRY_POINT_GROUP = 'evalscope.benchmarks'
