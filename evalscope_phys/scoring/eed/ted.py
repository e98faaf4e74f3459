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
  diagonal is one gather of its cells' six sources, three additions and one minimum, and every cell
  is the minimum of the same float sums as in the cell-by-cell loop: the distances are bit-equal,
  not merely close. The per-tree arrays it needs are cached beside the tables (``_side``).

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

NUMPY_MIN_CELLS = 3_000
"""Below this many DP cells the cell-by-cell loop is faster than numpy's per-diagonal overhead."""
NUMPY_MAX_CELLS = 1_500_000
"""Above this the all-tables arrays (about 64 bytes a cell at their peak) would cost ~100 MB; the loop
runs instead. The largest dev pair has 0.86 M cells."""
INDEX_CACHE_NODES = 200_000
"""Nodes of indexed trees kept in the cache (about 100 bytes a node: ~20 MB at most)."""
INDEX_CACHE_ENTRIES = 4096
"""Indexed trees kept, whatever their size: a table costs ~600 bytes before its nodes, so 200k nodes of
3-node answers (each answer is indexed once, then never seen again) would grow a worker by ~40 MB
over 50k pairs; 4096 covers both orientations of the 1,024 references a worker keeps."""
SIDE_CACHE_ENTRIES = 200_000
"""Entries of the numpy engine's per-tree arrays kept (about 50 bytes an entry: ~10 MB at most), so a
reference's arrays are built once for all its large answers."""

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
    node's subtree, ``boundary[e]`` the cost of the forest against the empty forest. Nothing here
    depends on the other tree, so it is cached per table (``_side``).
    """

    def __init__(self, t: Indexed):
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
        self.start = np.array(start, dtype=np.int32)
        self.boundary = np.array(boundary, dtype=np.float64)
        self.whole = np.array([whole[k] if k >= 0 else 0.0 for k in node], dtype=np.float64)
        self.is_tree = np.array(tree, dtype=bool)  # the node's subtree starts at the table's empty row
        self.entry_of_node = np.array(entry_of_node, dtype=np.int32)
        self.nested = self.entry_of_node[np.maximum(self.node, 0)]
        """Per entry, the entry where its node's subtree is a whole tree (where its treedist lives)."""

    def labels(self, labels: List[int]) -> np.ndarray:
        """Per entry, its node's label id in this pair's numbering (-1 for the empty forest)."""
        ids = np.array(labels, dtype=np.int64)[np.maximum(self.node, 0)]
        ids[self.node < 0] = -1
        return ids


_side_cache: 'OrderedDict[int, Tuple[Indexed, _Side]]' = OrderedDict()
_side_entries = 0


def _side(t: Indexed) -> _Side:
    """The numpy arrays of one table, cached beside it (keyed by identity: the table is kept alive)."""
    global _side_entries
    with _index_lock:
        hit = _side_cache.get(id(t))
        if hit is not None and hit[0] is t:
            _side_cache.move_to_end(id(t))
            return hit[1]
    side = _Side(t)
    with _index_lock:
        if id(t) not in _side_cache and side.size <= SIDE_CACHE_ENTRIES:
            _side_cache[id(t)] = (t, side)
            _side_entries += side.size
        while _side_entries > SIDE_CACHE_ENTRIES and _side_cache:
            _side_entries -= _side_cache.popitem(last=False)[1][1].size
    return side


def _numpy_distance(ta: Indexed, tb: Indexed, laba: List[int], labb: List[int]) -> float:
    sa, sb = _side(ta), _side(tb)
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
    # The inner cells in anti-diagonal order, as (row entry, column entry) pairs: every per-cell
    # quantity is (a row's part) + (a column's part), two gathers from small per-side arrays.
    diagonal = sa.local[rows].astype(np.int16)[:, None] + sb.local[cols].astype(np.int16)[None, :]
    counts = np.bincount(diagonal.ravel())
    order = np.argsort(diagonal, axis=None, kind='stable')
    del diagonal
    r, c = np.divmod(order, len(cols))
    del order
    r, c = rows[r], cols[c]

    def ordered(row_part: np.ndarray, col_part: np.ndarray) -> np.ndarray:
        return row_part.astype(np.int32)[r] + col_part.astype(np.int32)[c]

    entry_a = np.arange(sa.size, dtype=np.int32) * width
    entry_b = np.arange(width, dtype=np.int32)
    cell = ordered(entry_a, entry_b)
    # Row k of ``sources``: the cell whose value option k adds to; a diagonal's options are one gather.
    sources = np.empty((6, len(cell)), dtype=np.int32)
    np.subtract(cell, width, out=sources[0])                  # delete ai
    np.subtract(cell, 1, out=sources[1])                      # insert bj
    sources[2] = ordered(sa.start * width, entry_b)           # delete ai's whole subtree
    sources[3] = ordered(entry_a, sb.start)                   # insert bj's whole subtree
    # The diagonal move: both rightmost trees whole -> relabel from (i-1, j-1); else treedist of the
    # two subtrees (a cell of a nested table) after the forests left of them.
    tree = sa.is_tree[r] & sb.is_tree[c]
    same = sa.labels(laba)[r] == sb.labels(labb)[c]
    sources[4] = np.where(tree, cell - (width + 1), ordered(sa.start * width, sb.start))
    nested = ordered(sa.nested * width, sb.nested)
    sources[5] = np.where(tree, np.where(same, zero, one), nested)
    prices = np.empty((2, len(cell)), dtype=np.float64)
    np.take(sa.whole, r, out=prices[0])
    np.take(sb.whole, c, out=prices[1])
    del tree, same, nested, r, c

    take, minimum = table.take, np.minimum.reduce
    begin = 0
    for count in counts.tolist():
        if not count:
            continue
        end = begin + count
        options = take(sources[:, begin:end])
        options[:2] += 1.0
        options[2:4] += prices[:, begin:end]
        options[4] += options[5]
        table[cell[begin:end]] = minimum(options[:5], axis=0)
        begin = end
    root = sa.entry_of_node[len(ta.leftmost) - 1] * width + sb.entry_of_node[len(tb.leftmost) - 1]
    return float(table[root])
