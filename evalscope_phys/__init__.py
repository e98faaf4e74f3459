"""Physics benchmarks, a units-aware scoring engine and a contamination audit for EvalScope.

Kept import-free on purpose: the ``.pth`` hook imports this package at every interpreter start,
so nothing here may pull in EvalScope, SymPy or torch.
"""

__version__ = '0.1.0'
