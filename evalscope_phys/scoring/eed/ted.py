"""The extended Zhang–Shasha tree edit distance behind EED, in two engines that give the same floats.

The recurrence (see :mod:`.eed`): for every pair of key roots ``(x, y)`` a forest-distance table
``fd[i][j]`` over post-order prefixes, with the classic moves plus "remove the rightmost whole tree at
its cluster price". Two ways to fill the same tables:

* ``_python_distance``: table by table, cell by cell -- cheapest for small trees;
* ``_numpy_distance``: every table of every key-root pair at once, one anti-diagonal ``i + j = d``
  at a time. Each cell reads only cells of lower anti-diagonals: its own table's ``(i-1, j)``,
  ``(i, j-1)``, ``(i-1, j-1)``, the row/column left of the current subtrees, and a ``treedist`` value
  that is itself a cell of a table of nested key roots at a strictly lower anti-diagonal (its local
  row/column index is smaller by the distance between the two tables' leftmost leaves). So a
  diagonal is a handful of vectorised gathers and minimums, and every cell is the minimum of the
  same float sums as in the cell-by-cell loop: the distances are bit-equal, not merely close.

Both run on the orientation (tree or mirror image) that needs fewer cells, chosen the same way.
The per-tree tables are cached (``indexed``): a reference scored against many answers, or the same
answer under several references, is indexed once.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Dict, List, Tuple

import numpy as np

from evalscope_phys.scoring.eed.tree import ExprNode

NUMPY_MIN_CELLS = 6_000
"""Below this many DP cells the cell-by-cell loop is faster than numpy's per-diagonal overhead."""
NUMPY_MAX_CELLS = 3_000_000
"""Above this the all-tables arrays (36 bytes a cell) would cost >100 MB; the loop runs instead."""
INDEX_CACHE_NODES = 200_000
"""Nodes of indexed trees kept in the cache (about 100 bytes a node: ~20 MB at most)."""
INDEX_CACHE_ENTRIES = 4096
"""Indexed trees kept, whatever their size: a table costs ~600 bytes before its nodes, so 200k nodes of
3-node answers (each answer is indexed once, then never seen again) would grow a worker by ~40 MB
over 50k pairs; 4096 covers both orientations of the 1,024 references a worker keeps."""

Label = Tuple[str, str]


def _full(size: int) -> float:
    return float(size)


class Indexed:
    """One orientation of a tree as Zhang–Shasha needs it: post-order labels, leftmost leaves, key roots.

    ``mirror`` reverses every child list; the distance between two trees equals the distance
    between their mirror images, but the DP's cost depends on the shape (it is cheap when big
    subtrees sit on the leftmost path), so the distance runs the cheaper orientation.
    """

    __slots__ = ('labels', 'leftmost', 'keyroots', 'whole_cost', 'work')

    def __init__(self, root: ExprNode, whole_cost, mirror: bool = False):
        labels: List[Label] = []
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
            labels.append((node.kind, node.name))
            leftmost.append(lmd)
            finished_lmds.append(lmd)
        self.labels = labels
        self.leftmost = leftmost
        last_with_lmd: Dict[int, int] = {}
        for index, lmd in enumerate(leftmost):
            last_with_lmd[lmd] = index
        self.keyroots = sorted(last_with_lmd.values())
        self.whole_cost = [whole_cost(i - lmd + 1) for i, lmd in enumerate(leftmost)]
        # The DP fills one (size(x)+1) x (size(y)+1) table per pair of key roots.
        self.work = sum(k - leftmost[k] + 1 for k in self.keyroots)


_index_cache: 'OrderedDict[Tuple[int, object, bool], Tuple[ExprNode, Indexed]]' = OrderedDict()
_index_lock = threading.Lock()
_index_nodes = 0


def indexed(root: ExprNode, whole_cost, mirror: bool) -> Indexed:
    """The cached table of one orientation of ``root`` under one whole-subtree price.

    Keyed by the node's identity: trees come from ``expression_tree``'s cache, so a reference's tree
    is the same object for every answer, and identity needs no (recursive) hash of a deep tree.
    """
    key = (id(root), whole_cost, mirror)
    with _index_lock:
        hit = _index_cache.get(key)
        if hit is not None and hit[0] is root:
            _index_cache.move_to_end(key)
            return hit[1]
    global _index_nodes
    table = Indexed(root, whole_cost, mirror)
    with _index_lock:
        if key not in _index_cache:
            _index_cache[key] = (root, table)  # the node is kept alive, so its id is not reused
            _index_nodes += len(table.labels)
        while (_index_nodes > INDEX_CACHE_NODES or len(_index_cache) > INDEX_CACHE_ENTRIES) and _index_cache:
            _index_nodes -= len(_index_cache.popitem(last=False)[1][1].labels)
    return table


def tree_distance(a: ExprNode, b: ExprNode, whole_cost=_full) -> float:
    """Extended Zhang–Shasha distance from ``a`` to ``b``; ``whole_cost(size)`` prices a whole subtree."""
    ta, tb, laba, labb = oriented(a, b, whole_cost)
    cells = (ta.work + len(ta.keyroots)) * (tb.work + len(tb.keyroots))
    if NUMPY_MIN_CELLS <= cells <= NUMPY_MAX_CELLS:
        return _numpy_distance(ta, tb, laba, labb)
    return _python_distance(ta, tb, laba, labb)


def oriented(a: ExprNode, b: ExprNode, whole_cost) -> Tuple[Indexed, Indexed, List[int], List[int]]:
    """The two tables in the cheaper orientation, with integer labels shared by both.

    The orientation is part of the result's identity: mirrored tables sum the same costs in another
    order, which can differ in the last bit (48.8 vs 48.800000000000004).
    """
    ta, tb = indexed(a, whole_cost, False), indexed(b, whole_cost, False)
    ma, mb = indexed(a, whole_cost, True), indexed(b, whole_cost, True)
    if ma.work * mb.work < ta.work * tb.work:
        ta, tb = ma, mb
    ids: Dict[Label, int] = {}
    laba = [ids.setdefault(label, len(ids)) for label in ta.labels]
    labb = [ids.setdefault(label, len(ids)) for label in tb.labels]
    return ta, tb, laba, labb


def _python_distance(ta: Indexed, tb: Indexed, laba: List[int], labb: List[int]) -> float:
    la, lb = ta.leftmost, tb.leftmost
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


class _Side:
    """One tree's rows (or columns) of every key-root table, laid end to end.

    Entry ``e`` is local index ``local[e]`` (0 = the empty forest) of key root ``x``'s table; for
    ``local > 0`` it stands for node ``node[e]``. ``start[e]`` is the entry of the forest left of that
    node's subtree, ``boundary[e]`` the cost of the forest against the empty forest.
    """

    def __init__(self, t: Indexed, labels: List[int]):
        local: List[int] = []
        node: List[int] = []
        start: List[int] = []
        boundary: List[float] = []
        tree: List[bool] = []
        entry_of_node = [0] * len(t.leftmost)  # the entry where the node's subtree is a whole tree
        lm, whole = t.leftmost, t.whole_cost
        for x in t.keyroots:
            lx = lm[x]
            base = len(local)
            local.append(0)
            node.append(-1)
            start.append(base)
            boundary.append(0.0)
            tree.append(False)
            for k in range(lx, x + 1):
                first = base + lm[k] - lx
                local.append(k - lx + 1)
                node.append(k)
                start.append(first)
                boundary.append(boundary[first] + whole[k])
                tree.append(lm[k] == lx)
                if lm[k] == lx:
                    entry_of_node[k] = len(local) - 1
        self.size = len(local)
        self.local = np.array(local, dtype=np.int64)
        self.node = np.array(node, dtype=np.int64)
        self.start = np.array(start, dtype=np.int64)
        self.boundary = np.array(boundary, dtype=np.float64)
        self.whole = np.array([whole[k] if k >= 0 else 0.0 for k in node], dtype=np.float64)
        self.label = np.array([labels[k] if k >= 0 else -1 for k in node], dtype=np.int64)
        self.is_tree = np.array(tree, dtype=bool)  # the node's subtree starts at the table's empty row
        self.entry_of_node = np.array(entry_of_node, dtype=np.int64)


def _numpy_distance(ta: Indexed, tb: Indexed, laba: List[int], labb: List[int]) -> float:
    sa, sb = _Side(ta, laba), _Side(tb, labb)
    width = sb.size
    # F holds every table; the two extra cells are the relabel costs 0.0 and 1.0.
    table = np.empty(sa.size * width + 2, dtype=np.float64)
    grid = table[:-2].reshape(sa.size, width)
    first_rows = sa.local == 0
    first_cols = sb.local == 0
    grid[:, first_cols] = sa.boundary[:, None]
    grid[first_rows, :] = sb.boundary[None, :]
    zero, one = sa.size * width, sa.size * width + 1
    table[zero], table[one] = 0.0, 1.0

    rows = np.flatnonzero(~first_rows)
    cols = np.flatnonzero(~first_cols)
    # Every per-cell quantity is (a row's part) + (a column's part): built by broadcasting, then put
    # in anti-diagonal order with one gather each.
    diagonal = sa.local[rows].astype(np.int16)[:, None] + sb.local[cols].astype(np.int16)[None, :]
    counts = np.bincount(diagonal.ravel())
    order = np.argsort(diagonal, axis=None, kind='stable').astype(np.int32)
    del diagonal

    def ordered(row_part: np.ndarray, col_part: np.ndarray) -> np.ndarray:
        return (row_part[rows].astype(np.int32)[:, None] + col_part[cols].astype(np.int32)[None, :]).ravel()[order]

    entry_a = np.arange(sa.size, dtype=np.int64) * width
    entry_b = np.arange(width, dtype=np.int64)
    start_a, start_b = sa.start * width, sb.start
    nested_a = sa.entry_of_node[np.maximum(sa.node, 0)] * width
    nested_b = sb.entry_of_node[np.maximum(sb.node, 0)]
    cell = ordered(entry_a, entry_b)
    up_left = ordered(start_a, entry_b)          # forest left of ai's subtree, same columns
    left_up = ordered(entry_a, start_b)          # same rows, forest left of bj's subtree
    # The diagonal move: both rightmost trees whole -> relabel from (i-1, j-1); else treedist of the
    # two subtrees (a cell of a nested table) after the forests left of them.
    tree = ((sa.is_tree[rows][:, None] & sb.is_tree[cols][None, :]).ravel()[order])
    corner = np.where(tree, cell - (width + 1), ordered(start_a, start_b))
    same = (sa.label[rows][:, None] == sb.label[cols][None, :]).ravel()[order]
    extra = np.where(tree, np.where(same, zero, one), ordered(nested_a, nested_b))
    a_whole = np.repeat(sa.whole[rows], len(cols))[order]
    b_whole = np.tile(sb.whole[cols], len(rows))[order]
    del order, tree, same

    take = table.take
    begin = 0
    for count in counts:
        if not count:
            continue
        end = begin + int(count)
        here = cell[begin:end]
        best = take(here - width) + 1.0
        np.minimum(best, take(here - 1) + 1.0, out=best)
        np.minimum(best, take(up_left[begin:end]) + a_whole[begin:end], out=best)
        np.minimum(best, take(left_up[begin:end]) + b_whole[begin:end], out=best)
        np.minimum(best, take(corner[begin:end]) + take(extra[begin:end]), out=best)
        table[here] = best
        begin = end
    root = sa.entry_of_node[len(ta.leftmost) - 1] * width + sb.entry_of_node[len(tb.leftmost) - 1]
    return float(table[root])
