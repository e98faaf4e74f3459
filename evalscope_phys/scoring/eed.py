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
off it reduces to the classic Zhang–Shasha distance (tested against ``zss``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Tuple

from evalscope_phys.scoring.tree import ExprNode, expression_tree

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


class _Indexed:
    """A tree in the arrays Zhang–Shasha needs: post-order labels, leftmost leaves, key roots.

    ``mirror`` reverses every child list; the distance between two trees equals the distance
    between their mirror images, but the DP's cost depends on the shape (it is cheap when big
    subtrees sit on the leftmost path), so ``tree_edit_distance`` runs the cheaper orientation.
    """

    __slots__ = ('labels', 'leftmost', 'keyroots', 'whole_cost', 'work')

    def __init__(self, root: ExprNode, label_ids: Dict[Tuple[str, str], int], discount: bool,
                 mirror: bool = False):
        labels: List[int] = []
        leftmost: List[int] = []
        # Iterative post-order; a node's leftmost leaf is its first child's leftmost leaf.
        stack: List[Tuple[ExprNode, bool]] = [(root, False)]
        finished_lmds: List[int] = []  # leftmost leaves of finished subtrees, a stack
        open_marks: List[int] = []
        while stack:
            node, expanded = stack.pop()
            if not expanded and node.children:
                open_marks.append(len(finished_lmds))
                stack.append((node, True))
                kids = node.children if mirror else reversed(node.children)
                stack.extend((child, False) for child in kids)
                continue
            index = len(labels)
            if node.children:
                mark = open_marks.pop()
                lmd = finished_lmds[mark]
                del finished_lmds[mark:]
            else:
                lmd = index
            labels.append(label_ids.setdefault((node.kind, node.name), len(label_ids)))
            leftmost.append(lmd)
            finished_lmds.append(lmd)
        self.labels = labels
        self.leftmost = leftmost
        last_with_lmd: Dict[int, int] = {}
        for index, lmd in enumerate(leftmost):
            last_with_lmd[lmd] = index
        self.keyroots = sorted(last_with_lmd.values())
        self.whole_cost = [
            cluster_cost(i - lmd + 1) if discount else float(i - lmd + 1)
            for i, lmd in enumerate(leftmost)
        ]
        # The DP fills one (size(x)+1) x (size(y)+1) table per pair of key roots.
        self.work = sum(k - leftmost[k] + 1 for k in self.keyroots)


def tree_edit_distance(a: ExprNode, b: ExprNode, cluster_discount: bool = True) -> float:
    """Extended Zhang–Shasha distance between two trees (see the module docstring)."""
    label_ids: Dict[Tuple[str, str], int] = {}
    ta = _Indexed(a, label_ids, cluster_discount)
    tb = _Indexed(b, label_ids, cluster_discount)
    ma = _Indexed(a, label_ids, cluster_discount, mirror=True)
    mb = _Indexed(b, label_ids, cluster_discount, mirror=True)
    if ma.work * mb.work < ta.work * tb.work:
        ta, tb = ma, mb
    return _zhang_shasha(ta, tb)


def _zhang_shasha(ta: _Indexed, tb: _Indexed) -> float:
    la, lb = ta.leftmost, tb.leftmost
    laba, labb = ta.labels, tb.labels
    wa, wb = ta.whole_cost, tb.whole_cost
    treedist = [[0.0] * len(lb) for _ in la]

    for y in tb.keyroots:
        ly = lb[y]
        cols = y - ly + 2
        # Per column j (node bj = ly + j - 1): start of bj's subtree, its whole cost, its label.
        b_nodes = range(ly, y + 1)
        b_cols = list(zip(range(1, cols), [lb[k] - ly for k in b_nodes], [wb[k] for k in b_nodes],
                          [labb[k] for k in b_nodes], b_nodes))
        for x in ta.keyroots:
            lx = la[x]
            rows = x - lx + 2
            # fd[i][j]: distance between A[lx .. lx+i-1] and B[ly .. ly+j-1].
            fd = [[0.0] * cols for _ in range(rows)]
            first_row = fd[0]
            for j, bj_start, bj_whole, _, _ in b_cols:
                first_row[j] = first_row[bj_start] + bj_whole
            for i in range(1, rows):
                ai = lx + i - 1
                row = fd[i]
                prev = fd[i - 1]
                ai_start = la[ai] - lx  # row of the forest left of ai's subtree
                left_of_ai = fd[ai_start]
                ai_whole = wa[ai]
                row[0] = left_of_ai[0] + ai_whole
                ai_label = laba[ai]
                ai_is_tree = ai_start == 0
                td_row = treedist[ai]
                for j, bj_start, bj_whole, bj_label, bj in b_cols:
                    best = prev[j] + 1.0
                    option = row[j - 1] + 1.0
                    if option < best:
                        best = option
                    option = left_of_ai[j] + ai_whole
                    if option < best:
                        best = option
                    option = row[bj_start] + bj_whole
                    if option < best:
                        best = option
                    if bj_start == 0 and ai_is_tree:
                        option = prev[j - 1] + (0.0 if ai_label == bj_label else 1.0)
                        if option < best:
                            best = option
                        td_row[bj] = best
                    else:
                        option = left_of_ai[bj_start] + td_row[bj]
                        if option < best:
                            best = option
                    row[j] = best
    return treedist[-1][-1]


def eed_score(reference: object, answer: object) -> EedResult:
    """EED of ``answer`` against ``reference``; both are simplified SymPy expressions."""
    ref_tree = expression_tree(reference)
    ans_tree = expression_tree(answer)
    distance = tree_edit_distance(ans_tree, ref_tree)
    size = ref_tree.size()
    return EedResult(score=eed_from_distance(distance, size), distance=distance, reference_size=size)
