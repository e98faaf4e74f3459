"""PHYBench-style error analysis: where a wrong solution first goes wrong (PP, RR-semantic, RR-symbolic).

``reviews`` reads a run's wrong samples, ``steps`` numbers a solution, ``contract`` holds the judge's
prompt and reply format, ``classify`` asks the judge through a cache, ``tables`` and ``plot`` report.
"""
