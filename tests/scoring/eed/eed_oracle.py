"""The extended Zhang–Shasha distance as it was before :mod:`evalscope_phys.scoring.eed.ted` (db9153c).

Kept verbatim as the oracle the fast engines must equal bit for bit; not used by the package.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from evalscope_phys.scoring.eed.eed import cluster_cost
from evalscope_phys.scoring.eed.tree import ExprNode


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


def oracle_distance(a: ExprNode, b: ExprNode, cluster_discount: bool = True) -> float:
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


