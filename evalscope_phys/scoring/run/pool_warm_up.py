"""Imported last by the scoring forkserver: warms up every preloaded module there, once.

Why: a worker forked from a warmed forkserver inherits the warmed state (SymPy caches, the pint
unit registry, ...), so a replacement after a timeout is ready in milliseconds instead of paying
seconds of warm-up against the next answer's deadline. Importing this anywhere else only runs
the same idempotent warm-ups.
"""
from evalscope_phys.scoring.run import worker

worker.warm_up(list(worker.PRELOAD_MODULES))
