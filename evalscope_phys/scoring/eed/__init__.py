"""PHYBench's Expression Edit Distance: expression trees (``tree``), their exact cluster-discounted
tree edit distance (``ted``) and the score from it (``eed``).

Why a package: the distance is its own algorithm with its own oracle test; comparison only asks
it for a score.
"""
