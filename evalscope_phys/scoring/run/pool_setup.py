"""Imported first by the scoring forkserver (its preload), before SymPy and numpy: how it and its
workers run. Only there: importing it anywhere else does nothing.

Why a module: the forkserver runs nothing of ours before its preload imports, and numpy and SymPy read
their settings once, when imported (:func:`.worker.one_blas_thread`, :func:`.worker.larger_sympy_cache`).
"""
from evalscope_phys.scoring.run import worker

if worker.in_forkserver():
    worker.one_blas_thread()
    worker.larger_sympy_cache()
