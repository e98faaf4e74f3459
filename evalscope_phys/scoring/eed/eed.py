"""Expression Edit Distance (EED): PHYBench's partial-credit score for a symbolic answer.

``eed_score`` compares two *already simplified* SymPy expressions (the caller decides equivalence
first: an equivalent answer scores 100 without reaching this module). Both are turned into trees
(``tree.expression_tree``) and compared with an extended Zhang–Shasha tree edit distance:

* insert, delete and relabel of one node cost 1 (relabel costs 0 when kind and name match);
* the *cluster discount*: inserting or deleting a whole subtree of ``s`` nodes at once costs
  ``min(s, 0.6 * (s - 5) + 5)`` -- full price up to 5 nodes, 0.6 per node beyond, so a missing term
  costs less than its node count suggests.

``r = distance / size(reference tree)``; score 100 if ``r == 0``, ``60 - 100 r`` if ``0 < r < 0.6``,
else 0.

How the discount enters the DP. Zhang–Shasha fills, for every pair of key roots, a forest-distance
table ``fd[i][j]`` between the post-order prefixes ``A[l(x)..i]`` and ``B[l(y)..j]``. Next to the
classic moves (delete node ``i``: ``fd[i-1][j] + 1``; insert node ``j``: ``fd[i][j-1] + 1``; match
the rightmost trees: ``fd[l(i)-1][l(j)-1] + treedist(i, j)``) we add two moves that remove the
rightmost *whole tree* in one step: ``fd[l(i)-1][j] + cluster(size(i))`` and
``fd[i][l(j)-1] + cluster(size(j))``. The rightmost tree of a post-order prefix ending at ``i`` is
exactly the subtree rooted at ``i`` (nodes ``l(i)..i``), so this is a plain extra option in the
minimum, and the boundary rows (a forest against the empty forest) are filled with the same whole-
subtree cost. This is the extension the released PHYBench scorer uses; with the discount switched
off it reduces to the classic Zhang–Shasha distance (tested against ``zss``). The tables are filled
by :mod:`.ted` (cell by cell for small trees, one anti-diagonal at a time with numpy for large ones).
"""
from __future__ import annotations

from dataclasses import dataclass
from evalscope_phys.scoring.eed.ted import tree_distance
from evalscope_phys.scoring.eed.tree import ExprNode, expression_tree

CLUSTER_BAR = 5
"""Subtrees up to this many nodes pay full price when inserted or deleted whole."""
CLUSTER_SLOPE = 0.6
"""Price per node beyond ``CLUSTER_BAR`` for a whole-subtree insert/delete."""
INITIAL_SCORE = 60.0
"""Score of an answer at relative distance just above 0 (the scale is 100 / 60 - 100 r / 0)."""
SCORE_SLOPE = 100.0
"""Points lost per unit of relative distance."""


@dataclass(frozen=True)
class EedResult:
    """EED of one (reference, answer) pair."""

    score: float
    """0-100; 100 only when the trees are identical."""
    distance: float
    """Extended tree edit distance (answer tree -> reference tree)."""
    reference_size: int
    """Number of nodes in the reference tree (the denominator of ``r``)."""

    @property
    def relative_distance(self) -> float:
        return self.distance / self.reference_size


def cluster_cost(size: int) -> float:
    """Cost of inserting or deleting a whole subtree of ``size`` nodes in one step."""
    return min(float(size), CLUSTER_SLOPE * (size - CLUSTER_BAR) + CLUSTER_BAR)


def eed_from_distance(distance: float, reference_size: int) -> float:
    """The PHYBench score for a distance: 100 at 0, ``60 - 100 r`` below ``r = 0.6``, else 0."""
    if reference_size <= 0:
        raise ValueError(f'reference_size must be positive, got {reference_size}')
    if distance < 0:
        raise ValueError(f'distance must be non-negative, got {distance}')
    if distance == 0:
        return 100.0
    ratio = distance / reference_size
    if ratio < INITIAL_SCORE / SCORE_SLOPE:
        return INITIAL_SCORE - SCORE_SLOPE * ratio
    return 0.0


def _full_price(size: int) -> float:
    return float(size)


def tree_edit_distance(a: ExprNode, b: ExprNode, cluster_discount: bool = True) -> float:
    """Extended Zhang–Shasha distance between two trees (see the module docstring and :mod:`.ted`)."""
    return tree_distance(a, b, cluster_cost if cluster_discount else _full_price)


def eed_score(reference: object, answer: object) -> EedResult:
    """EED of ``answer`` against ``reference``; both are simplified SymPy expressions."""
    ref_tree = expression_tree(reference)
    ans_tree = expression_tree(answer)
    distance = tree_edit_distance(ans_tree, ref_tree)
    size = ref_tree.size()
    return EedResult(score=eed_from_distance(distance, size), distance=distance, reference_size=size)
