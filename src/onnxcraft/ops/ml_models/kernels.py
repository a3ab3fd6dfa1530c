"""Kernels of the ai.onnx.ml models: tree ensembles, linear and SVM classifiers and regressors.

Every model computes in float64 and writes float32 scores (TreeEnsemble-5: the input's element
type); thresholds compare exactly with the input values, double ones (``*_as_tensor``) included.
X is ``[N, F]``; a 1-D X is one sample. Tree ensembles are walked for all rows of all trees at
once with numpy index arrays, one step per tree level.

The standard leaves several details open. onnxruntime's conventions are followed, except where
onnxruntime contradicts the standard's text or its own outputs:

- A NaN feature takes the true branch exactly when the node's
  ``nodes_missing_value_tracks_true`` is 1, whatever the mode (onnxruntime sends NaN down the
  true branch of BRANCH_NEQ regardless, since NaN != threshold). BRANCH_MEMBER tests values
  exactly (onnxruntime truncates them to integers).
- ``post_transform`` applies to every score row, a single score included (onnxruntime skips
  LOGISTIC and the softmaxes on a single regression score, and SVMRegressor ignores it); for
  TreeEnsemble-5, 1 is SOFTMAX and 2 LOGISTIC, as the standard numbers them (onnxruntime swaps
  them). PROBIT is the exact standard normal quantile (onnxruntime's approximation is off by
  ~1e-3). SOFTMAX_ZERO is a softmax over the non-zero scores of a row; zero scores stay 0
  (onnxruntime also treats scores within 1e-7 of 0 as zeros, and gives NaN for a row of zeros).
- Every weight of a leaf counts, several for one target included (onnxruntime's one-target path
  keeps the first). A target that no reached leaf votes for scores 0, under MIN and MAX too,
  before its base value is added (onnxruntime leaves it at 0).
- Labels are the class of the highest raw score (before ``post_transform``), the first on ties;
  kernel SVMs choose by one-vs-one votes. An SVM without support vectors has one offset, ``rho``.
- Binary models with one score ``s`` for two labels report two columns: ``(1 - s, s)`` when ``s``
  is a probability, ``(-s, s)`` when it is a margin, then ``post_transform`` applies to both
  (onnxruntime leaves them untransformed under SOFTMAX, SOFTMAX_ZERO and PROBIT). For tree
  classifiers ``s`` is a probability under PROBIT, or NONE with no negative class weight (the
  second label wins when ``s > 0.5``; as a margin, when ``s > 0``), whichever class id the
  weights name; for LinearClassifier under NONE and PROBIT, and its second label wins when
  ``s > 0``; an SVM's pairwise score is a margin favouring the first class.
- Two labels with two score columns are an ordinary two-class model (onnxruntime's tree
  classifier reports 0/1 by the sign of the second column and mixes the columns with the base
  values; its linear-mode SVM picks the second label whenever a score is positive).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import repeat
from statistics import NormalDist
from typing import Any

import numpy as np

from onnxcraft.ops.kernel_api import KernelRegistry
from onnxcraft.ops.kernel_common import fail, is_lowp
from onnxcraft.ops.versions import versions

__all__ = ["register"]

_ML = "ai.onnx.ml"

# -- inputs and attributes -----------------------------------------------------------------------


def _samples(op: str, x: Any) -> np.ndarray:
    """X as a float64 matrix ``[N, F]`` (exact for every allowed element type)."""
    array = np.asarray(x)
    if is_lowp(array) or array.dtype.kind not in "fiu":
        fail(op, f"X must be a float, double or integer tensor, got element type {array.dtype}")
    if array.ndim == 1:
        array = array.reshape(1, -1)
    elif array.ndim != 2:
        fail(op, f"X must be 2-D [N, F] (or 1-D [F]: one sample), got shape {list(array.shape)}")
    return array.astype(np.float64, copy=False)


def _flat(value: Any, dtype: type[np.generic]) -> np.ndarray:
    """A list attribute (or tensor) as a 1-D array; lists convert fastest through fromiter."""
    if value is None:
        return np.zeros(0, dtype)
    if isinstance(value, (list, tuple)):
        return np.fromiter(value, dtype, len(value))
    return np.asarray(value, dtype=dtype).reshape(-1)


def _ints(value: Any) -> np.ndarray:
    return _flat(value, np.int64)


def _floats(value: Any) -> np.ndarray:
    return _flat(value, np.float64)


def _given(value: Any) -> bool:
    return value is not None and np.asarray(value).size > 0


def _floats_or_tensor(op: str, name: str, attrs: dict[str, Any]) -> np.ndarray:
    """A FLOATS attribute or its double-precision ``<name>_as_tensor`` twin, as float64."""
    floats, tensor = attrs.get(name), attrs.get(f"{name}_as_tensor")
    if _given(floats) and _given(tensor):
        fail(op, f"give {name} or {name}_as_tensor, not both")
    return _floats(tensor if _given(tensor) else floats)


def _class_labels(op: str, ints: Any, strings: Any, ints_name: str) -> np.ndarray:
    """The class labels, int64 or an object array of str; exactly one kind must be given."""
    if _given(ints) == _given(strings):
        which = "both" if _given(ints) else "neither"
        fail(op, f"exactly one of {ints_name} and classlabels_strings must be given, got {which}")
    if _given(strings):
        labels = np.empty(len(strings), dtype=object)
        labels[:] = [str(s) for s in strings]
        return labels
    return _ints(ints)


def _count(op: str, name: str, value: Any, *, minimum: int) -> int:
    if value is None:
        fail(op, f"attribute {name} is required")
    if int(value) < minimum:
        fail(op, f"{name} must be at least {minimum}, got {value}")
    return int(value)


def _same_length(op: str, reference: str, size: int, arrays: dict[str, np.ndarray]) -> None:
    for name, array in arrays.items():
        if array.size != size:
            fail(
                op,
                f"{name} has {array.size} entries but {reference} has {size}; "
                f"they must have one entry each",
            )


# -- post transforms -----------------------------------------------------------------------------

# In TreeEnsemble-5's numbering: post_transform=k means _POST_TRANSFORMS[k].
_POST_TRANSFORMS = ("NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT")
_normal_quantile = np.frompyfunc(NormalDist().inv_cdf, 1, 1)


def _transform_name(op: str, name: Any) -> str:
    if name not in _POST_TRANSFORMS:
        fail(op, f"post_transform must be one of {', '.join(_POST_TRANSFORMS)}, got {name!r}")
    return str(name)


def _logistic(z: np.ndarray) -> np.ndarray:
    return np.asarray(np.exp(-np.logaddexp(0.0, -z)))  # 1 / (1 + exp(-z)) without overflow


def _softmax(z: np.ndarray) -> np.ndarray:
    if z.shape[1] == 0:
        return z
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True))


def _softmax_zero(z: np.ndarray) -> np.ndarray:
    """Softmax over the non-zero scores of each row; zero scores (and all-zero rows) give 0."""
    nonzero = z != 0
    top = np.where(nonzero, z, -np.inf).max(axis=1, keepdims=True, initial=-np.inf)
    e = np.where(nonzero, np.exp(z - np.where(np.isfinite(top), top, 0.0)), 0.0)
    total = e.sum(axis=1, keepdims=True)
    return np.asarray(np.divide(e, total, out=np.zeros_like(e), where=total > 0))


def _probit(p: np.ndarray) -> np.ndarray:
    """The standard normal quantile: -inf at 0, +inf at 1, NaN outside [0, 1]."""
    out = np.full(p.shape, np.nan)
    out[p == 0] = -np.inf
    out[p == 1] = np.inf
    inside = (p > 0) & (p < 1)
    if inside.any():  # the standard library's quantile, one call per score
        out[inside] = _normal_quantile(p[inside]).astype(np.float64)
    return out


def _post_transform(name: str, scores: np.ndarray) -> np.ndarray:
    """Apply a validated post_transform to float64 scores ``[N, K]``."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if name == "LOGISTIC":
            return _logistic(scores)
        if name == "SOFTMAX":
            return _softmax(scores)
        if name == "SOFTMAX_ZERO":
            return _softmax_zero(scores)
        if name == "PROBIT":
            return _probit(scores)
    return scores


def _binary_columns(score: np.ndarray, probability: bool) -> np.ndarray:
    """The two class columns of one binary score: ``(1 - s, s)`` or, for a margin, ``(-s, s)``."""
    other = 1.0 - score if probability else -score
    return np.stack([other, score], axis=1)


def _top_labels(labels: np.ndarray, raw: np.ndarray) -> np.ndarray:
    """The label of each row's highest raw score (the first on ties)."""
    if raw.shape[0] == 0:
        return labels[:0]
    return np.asarray(labels[np.argmax(raw, axis=1)])


# -- tree ensembles: structure -------------------------------------------------------------------

# A feature value compared with a threshold gives one outcome code; 0 means unordered (NaN).
_LESS, _EQUAL, _GREATER = 1, 2, 4
# TreeEnsemble-5 numbers the branch modes 0..6 in this order; the older versions name them.
_BRANCH_MODES = (
    "BRANCH_LEQ",
    "BRANCH_LT",
    "BRANCH_GTE",
    "BRANCH_GT",
    "BRANCH_EQ",
    "BRANCH_NEQ",
    "BRANCH_MEMBER",
)
_MEMBER = 6
_LEAF = 7  # only the older versions list leaves as nodes, with mode "LEAF"
# The comparison of each branch mode, for forests whose branches all use one mode.
_COMPARISONS: tuple[Callable[..., np.ndarray], ...] = (
    np.less_equal,
    np.less,
    np.greater_equal,
    np.greater,
    np.equal,
    np.not_equal,
)
# The outcomes that send a row down the true branch, by mode (a member test gives _EQUAL).
_TRUE_OUTCOMES = (
    (_LESS, _EQUAL),
    (_LESS,),
    (_EQUAL, _GREATER),
    (_GREATER,),
    (_EQUAL,),
    (_LESS, _GREATER),
    (_EQUAL,),
    (),
)
_OLD_MODE_CODES = {name: code for code, name in enumerate(_BRANCH_MODES[:_MEMBER])}
_OLD_MODE_CODES["LEAF"] = _LEAF
_AGGREGATES = ("AVERAGE", "SUM", "MIN", "MAX")  # TreeEnsemble-5's numbering


@dataclass(frozen=True)
class _MemberSets:
    """The value sets of the BRANCH_MEMBER nodes, for vectorised membership tests."""

    values: np.ndarray  # sorted distinct member values
    keys: np.ndarray  # sorted node * len(values) + rank, one per (node, member value)

    @staticmethod
    def build(nodes: np.ndarray, sets: Sequence[np.ndarray]) -> _MemberSets:
        sizes = np.array([s.size for s in sets], dtype=np.int64)
        members = np.concatenate([np.zeros(0), *sets])
        values = np.unique(members)
        owners = np.repeat(nodes, sizes)
        keys = np.unique(owners * values.size + np.searchsorted(values, members))
        return _MemberSets(values, keys)

    def contains(self, nodes: np.ndarray, x: np.ndarray) -> np.ndarray:
        if self.values.size == 0:
            return np.zeros(x.shape, dtype=bool)
        rank = np.minimum(np.searchsorted(self.values, x), self.values.size - 1)
        key = nodes * self.values.size + rank
        pos = np.minimum(np.searchsorted(self.keys, key), self.keys.size - 1)
        return np.asarray((self.values[rank] == x) & (self.keys[pos] == key))


@dataclass(frozen=True)
class _Forest:
    """Every tree of an ensemble as flat node arrays; leaves are nodes too.

    ``goes_true[node * 8 + outcome]`` says where an outcome sends a row at a branch node, and
    ``children[node * 2 + went_true]`` is the next node. When every branch uses one mode,
    ``compare`` decides directly and ``missing_true`` routes NaN where ``check_nan`` says some
    node needs it. The weights sit in node order: node ``k`` owns entries
    ``weight_start[k] : weight_start[k] + weight_count[k]``.
    """

    feature: np.ndarray
    threshold: np.ndarray
    goes_true: np.ndarray
    compare: Callable[..., np.ndarray] | None
    missing_true: np.ndarray
    check_nan: bool
    children: np.ndarray
    is_leaf: np.ndarray
    is_member: np.ndarray
    members: _MemberSets | None
    roots: np.ndarray
    max_feature: int
    weight_start: np.ndarray
    weight_count: np.ndarray
    weight_target: np.ndarray
    weight_value: np.ndarray


def _check_reaches_leaves(
    op: str,
    false_child: np.ndarray,
    true_child: np.ndarray,
    is_leaf: np.ndarray,
    roots: np.ndarray,
) -> None:
    """Fail when some path from a root never reaches a leaf (a cycle).

    Walks the node links level by level; a path longer than the number of nodes has a cycle.
    """
    stamp = np.full(is_leaf.size, -1, dtype=np.int64)
    frontier = roots
    for _ in range(is_leaf.size + 1):
        branches = frontier[~is_leaf[frontier]]
        if branches.size == 0:
            return
        reached = np.concatenate([false_child[branches], true_child[branches]])
        order = np.arange(reached.size)
        stamp[reached] = order  # one write per node survives: keep that occurrence only
        frontier = reached[stamp[reached] == order]
    fail(op, "the node links contain a cycle: some path from a tree root never reaches a leaf")


def _outcome_table(modes: np.ndarray, missing_true: np.ndarray) -> np.ndarray:
    table = np.zeros((len(_TRUE_OUTCOMES), 8), dtype=bool)
    for mode, outcomes in enumerate(_TRUE_OUTCOMES):
        table[mode, list(outcomes)] = True
    per_node = table[modes]
    per_node[:, 0] = missing_true  # a NaN value goes where the node tracks missing values
    return np.asarray(per_node.reshape(-1))


def _assemble_forest(
    op: str,
    *,
    feature: np.ndarray,
    threshold: np.ndarray,
    modes: np.ndarray,
    missing_true: np.ndarray,
    false_child: np.ndarray,
    true_child: np.ndarray,
    roots: np.ndarray,
    weights: tuple[np.ndarray, np.ndarray, np.ndarray],
    members: _MemberSets | None,
    splits_name: str,
) -> _Forest:
    """Validate the links of the nodes and pack them for the walk.

    ``weights`` are (node, target, value) triples; children of leaves are ignored.
    """
    is_leaf = modes == _LEAF
    own = np.arange(modes.size, dtype=np.int64)
    false_child = np.where(is_leaf, own, false_child)
    true_child = np.where(is_leaf, own, true_child)
    _check_reaches_leaves(op, false_child, true_child, is_leaf, roots)
    compared = ~is_leaf & (modes != _MEMBER)
    if np.isnan(threshold[compared]).any():
        bad = int(np.flatnonzero(compared & np.isnan(threshold))[0])
        fail(op, f"{splits_name}[{bad}] is NaN, but node {bad} compares against it")
    if (feature[~is_leaf] < 0).any():
        fail(op, f"nodes_featureids must be non-negative, got {int(feature[~is_leaf].min())}")
    node, target, value = weights
    order = np.argsort(node, kind="stable")
    count = np.bincount(node, minlength=modes.size).astype(np.int64)
    branch_modes = np.unique(modes[~is_leaf])
    uniform = branch_modes.size == 1 and int(branch_modes[0]) != _MEMBER
    return _Forest(
        feature=np.where(is_leaf, 0, feature),
        threshold=np.where(compared, threshold, 0.0),
        goes_true=_outcome_table(modes, missing_true),
        compare=_COMPARISONS[int(branch_modes[0])] if uniform else None,
        missing_true=missing_true,
        # NaN compares false, which is right only for untracked nodes of the ordered modes
        check_nan=bool(missing_true[~is_leaf].any()) or bool((branch_modes == 5).any()),
        children=np.stack([false_child, true_child], axis=1).reshape(-1),
        is_leaf=is_leaf,
        is_member=modes == _MEMBER,
        members=members,
        roots=roots,
        max_feature=int(feature[~is_leaf].max(initial=-1)),
        weight_start=np.cumsum(count) - count,
        weight_count=count,
        weight_target=target[order],
        weight_value=value[order],
    )


class _NodeIndex:
    """Maps (tree id, node id) pairs of the older versions to positions in the node lists."""

    def __init__(self, op: str, tree_ids: np.ndarray, node_ids: np.ndarray) -> None:
        self.trees, self.tree_of = np.unique(tree_ids, return_inverse=True)
        if node_ids.size and not 0 <= node_ids.min() <= node_ids.max() < 2**31:
            fail(
                op,
                f"nodes_nodeids must lie in [0, 2**31), got {int(node_ids.min())}.."
                f"{int(node_ids.max())}",
            )
        self.span = int(node_ids.max(initial=0)) + 1  # keys tree * span + node fit in int64
        keys = self.tree_of * self.span + node_ids
        self.order = np.argsort(keys, kind="stable")
        self.keys = keys[self.order]
        repeated = np.flatnonzero(self.keys[1:] == self.keys[:-1])
        if repeated.size:
            at = int(self.order[repeated[0] + 1])
            fail(
                op,
                f"node {int(node_ids[at])} of tree {int(tree_ids[at])} is listed twice "
                f"(nodes_treeids/nodes_nodeids entry {at})",
            )

    def first_nodes(self) -> np.ndarray:
        """The first listed node of every tree, in increasing tree id: the roots."""
        return np.unique(self.tree_of, return_index=True)[1].astype(np.int64)

    def find(self, tree_of: np.ndarray, node_ids: np.ndarray) -> np.ndarray:
        """Positions of the (dense tree, node id) pairs; -1 where there is no such node."""
        inside = (node_ids >= 0) & (node_ids < self.span)
        keys = tree_of * self.span + np.where(inside, node_ids, 0)
        pos = np.minimum(np.searchsorted(self.keys, keys), self.keys.size - 1)
        found = inside & (self.keys[pos] == keys)
        return np.where(found, self.order[pos], -1)

    def find_ids(self, tree_ids: np.ndarray, node_ids: np.ndarray) -> np.ndarray:
        """Like :meth:`find` for tree ids as written in the attributes."""
        dense = np.minimum(np.searchsorted(self.trees, tree_ids), self.trees.size - 1)
        known = self.trees[dense] == tree_ids
        return np.where(known, self.find(dense, node_ids), -1)


def _old_modes(op: str, modes: Sequence[str]) -> np.ndarray:
    codes = np.fromiter(map(_OLD_MODE_CODES.get, modes, repeat(-1)), np.int64, len(modes))
    if (codes < 0).any():
        bad = int(np.flatnonzero(codes < 0)[0])
        allowed = ", ".join(_OLD_MODE_CODES)
        fail(op, f"nodes_modes[{bad}] is {modes[bad]!r}; expected one of {allowed}")
    return codes


def _per_node(op: str, name: str, value: Any, n: int, needed: bool) -> np.ndarray:
    """An INTS attribute with one entry per node; when not ``needed`` it may be left out."""
    array = _ints(value)
    if array.size == 0 and not needed:
        return np.zeros(n, dtype=array.dtype)
    _same_length(op, "nodes_treeids", n, {name: array})
    return array


def _child_positions(
    op: str,
    index: _NodeIndex,
    name: str,
    child_ids: np.ndarray,
    branch: np.ndarray,
    tree_ids: np.ndarray,
    node_ids: np.ndarray,
) -> np.ndarray:
    found = index.find(index.tree_of, child_ids)
    missing = branch & (found < 0)
    if missing.any():
        at = int(np.flatnonzero(missing)[0])
        fail(
            op,
            f"{name}[{at}] = {int(child_ids[at])} names no node of tree {int(tree_ids[at])} "
            f"(the child of node {int(node_ids[at])})",
        )
    return found


def _forest_from_node_lists(op: str, attrs: dict[str, Any], prefix: str, n_outputs: int) -> _Forest:
    """The ensemble of TreeEnsembleRegressor/Classifier (versions 1, 3 and 5).

    ``prefix`` names the weight attributes: ``target`` (regressor) or ``class`` (classifier).
    """
    tree_ids = _ints(attrs.get("nodes_treeids"))
    n = tree_ids.size
    if n == 0:
        fail(op, "nodes_treeids is empty: the ensemble has no nodes")
    node_ids = _per_node(op, "nodes_nodeids", attrs.get("nodes_nodeids"), n, True)
    modes_list = list(attrs.get("nodes_modes") or [])
    if len(modes_list) != n:
        fail(op, f"nodes_modes has {len(modes_list)} entries but nodes_treeids has {n}")
    modes = _old_modes(op, modes_list)
    branch = modes != _LEAF
    needed = bool(branch.any())
    feature = _per_node(op, "nodes_featureids", attrs.get("nodes_featureids"), n, needed)
    threshold = _floats_or_tensor(op, "nodes_values", attrs)
    if threshold.size or needed:
        _same_length(op, "nodes_treeids", n, {"nodes_values(_as_tensor)": threshold})
    else:
        threshold = np.zeros(n)
    true_ids = _per_node(op, "nodes_truenodeids", attrs.get("nodes_truenodeids"), n, needed)
    false_ids = _per_node(op, "nodes_falsenodeids", attrs.get("nodes_falsenodeids"), n, needed)
    missing = _per_node(
        op,
        "nodes_missing_value_tracks_true",
        attrs.get("nodes_missing_value_tracks_true"),
        n,
        False,
    )
    index = _NodeIndex(op, tree_ids, node_ids)
    true_child = _child_positions(
        op, index, "nodes_truenodeids", true_ids, branch, tree_ids, node_ids
    )
    false_child = _child_positions(
        op, index, "nodes_falsenodeids", false_ids, branch, tree_ids, node_ids
    )
    roots = index.first_nodes()
    forest = _assemble_forest(
        op,
        feature=feature,
        threshold=threshold,
        modes=modes,
        missing_true=missing != 0,
        false_child=false_child,
        true_child=true_child,
        roots=roots,
        weights=_node_list_weights(op, attrs, prefix, index, n_outputs),
        members=None,
        splits_name="nodes_values",
    )
    # After the cycle check: a cycle through a root is reported as a cycle.
    _check_roots_listed_first(op, roots, (true_child, false_child), branch, tree_ids, node_ids)
    return forest


def _check_roots_listed_first(
    op: str,
    roots: np.ndarray,
    children: tuple[np.ndarray, np.ndarray],
    branch: np.ndarray,
    tree_ids: np.ndarray,
    node_ids: np.ndarray,
) -> None:
    """Fail when the first node listed for a tree is another node's child.

    Before version 5 no attribute names the roots: the first node listed for a tree is its
    root (onnxruntime reads the lists the same way). A first node that some node branches to
    means the tree was listed children-first: the walk would start inside the tree and give a
    silently wrong answer, so the model is refused instead.
    """
    parents = np.flatnonzero(branch)
    for child_positions in children:
        reached = child_positions[parents]
        hit = np.flatnonzero(np.isin(reached, roots))
        if hit.size:
            parent, child = int(parents[hit[0]]), int(reached[hit[0]])
            fail(
                op,
                f"node {int(node_ids[child])} of tree {int(tree_ids[child])} is listed first "
                f"for its tree, which makes it the tree's root, but node "
                f"{int(node_ids[parent])} branches to it: list each tree's root before its "
                "other nodes",
            )


def _node_list_weights(
    op: str, attrs: dict[str, Any], prefix: str, index: _NodeIndex, n_outputs: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ids_name = f"{prefix}_ids"
    trees = _ints(attrs.get(f"{prefix}_treeids"))
    nodes = _ints(attrs.get(f"{prefix}_nodeids"))
    outputs = _ints(attrs.get(ids_name))
    values = _floats_or_tensor(op, f"{prefix}_weights", attrs)
    _same_length(
        op,
        f"{prefix}_treeids",
        trees.size,
        {f"{prefix}_nodeids": nodes, ids_name: outputs, f"{prefix}_weights": values},
    )
    owner = index.find_ids(trees, nodes)
    if (owner < 0).any():
        at = int(np.flatnonzero(owner < 0)[0])
        fail(
            op,
            f"{prefix}_treeids/{prefix}_nodeids entry {at} names node {int(nodes[at])} of tree "
            f"{int(trees[at])}, which is not in nodes_treeids/nodes_nodeids",
        )
    bad = (outputs < 0) | (outputs >= n_outputs)
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        what = "targets" if prefix == "target" else "classes"
        fail(op, f"{ids_name}[{at}] = {int(outputs[at])} but there are {n_outputs} {what}")
    return owner, outputs, values


def _tensor_attr(op: str, name: str, value: Any, dtype: np.dtype[Any]) -> np.ndarray:
    """A TENSOR attribute of TreeEnsemble-5, whose element type must be the input's."""
    if value is None:
        fail(op, f"attribute {name} is required")
    array = np.asarray(value).reshape(-1)
    if array.dtype != dtype:
        fail(op, f"{name} must have the element type of X ({dtype}), got {array.dtype}")
    return array.astype(np.float64)


def _member_sets(op: str, values: np.ndarray, nodes: np.ndarray) -> _MemberSets:
    """Split membership_values at its NaN separators, one set per BRANCH_MEMBER node."""
    ends = np.flatnonzero(np.isnan(values))
    if values.size and not np.isnan(values[-1]):
        ends = np.append(ends, values.size)  # the last set may omit its separator
    starts = np.concatenate([[0], ends[:-1] + 1]).astype(np.int64)
    if ends.size != nodes.size:
        fail(
            op,
            f"membership_values holds {ends.size} NaN-separated sets but {nodes.size} nodes "
            f"have mode BRANCH_MEMBER; expected one set per such node",
        )
    return _MemberSets.build(nodes, [values[s:e] for s, e in zip(starts, ends)])


def _v5_child(op: str, side: str, ids: Any, leafs: Any, n_nodes: int, n_leaves: int) -> np.ndarray:
    """Children of TreeEnsemble-5 in one numbering: nodes first, then leaves."""
    child, is_leaf = _ints(ids), _ints(leafs) != 0
    _same_length(
        op,
        "nodes_featureids",
        n_nodes,
        {f"nodes_{side}nodeids": child, f"nodes_{side}leafs": is_leaf},
    )
    limit = np.where(is_leaf, n_leaves, n_nodes)
    bad = (child < 0) | (child >= limit)
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        kind = "leaf_*" if is_leaf[at] else "nodes_*"
        fail(
            op,
            f"nodes_{side}nodeids[{at}] = {int(child[at])} is not a position in the {kind} "
            f"attributes (they have {int(limit[at])} entries)",
        )
    return np.where(is_leaf, child + n_nodes, child)


def _forest_from_v5(
    op: str, attrs: dict[str, Any], dtype: np.dtype[Any], n_targets: int
) -> _Forest:
    """The ensemble of TreeEnsemble-5: interior nodes and leaves in separate lists."""
    feature = _ints(attrs.get("nodes_featureids"))
    n = feature.size
    if n == 0:
        fail(op, "nodes_featureids is empty: the ensemble has no nodes")
    if attrs.get("nodes_modes") is None:
        fail(op, "attribute nodes_modes is required")
    modes = np.asarray(attrs["nodes_modes"]).reshape(-1)
    if modes.dtype != np.uint8:  # as onnx's checker and onnxruntime require
        fail(op, f"nodes_modes must be a uint8 tensor, got element type {modes.dtype}")
    splits = _tensor_attr(op, "nodes_splits", attrs.get("nodes_splits"), dtype)
    missing = _ints(attrs.get("nodes_missing_value_tracks_true"))
    per_node = {"nodes_modes": modes, "nodes_splits": splits}
    if missing.size:
        per_node["nodes_missing_value_tracks_true"] = missing
    _same_length(op, "nodes_featureids", n, per_node)
    bad = (modes < 0) | (modes > _MEMBER)
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        modes_text = ", ".join(_BRANCH_MODES)
        fail(op, f"nodes_modes[{at}] = {int(modes[at])}; expected 0..6 ({modes_text})")
    targets = _ints(attrs.get("leaf_targetids"))
    weights = _tensor_attr(op, "leaf_weights", attrs.get("leaf_weights"), dtype)
    m = targets.size
    _same_length(op, "leaf_targetids", m, {"leaf_weights": weights})
    outside = (targets < 0) | (targets >= n_targets)
    if outside.any():
        at = int(np.flatnonzero(outside)[0])
        fail(op, f"leaf_targetids[{at}] = {int(targets[at])} but n_targets is {n_targets}")
    roots = _ints(attrs.get("tree_roots"))
    if roots.size == 0:
        fail(op, "tree_roots is empty: the ensemble has no trees")
    if ((roots < 0) | (roots >= n)).any():
        fail(op, f"tree_roots must index nodes_* (0..{n - 1}), got {roots.tolist()}")
    member_nodes = np.flatnonzero(modes == _MEMBER)
    members = None
    if member_nodes.size:
        if attrs.get("membership_values") is None:
            fail(op, "membership_values is required when some nodes have mode BRANCH_MEMBER")
        values = _tensor_attr(op, "membership_values", attrs["membership_values"], dtype)
        members = _member_sets(op, values, member_nodes)
    false_child = _v5_child(
        op, "false", attrs.get("nodes_falsenodeids"), attrs.get("nodes_falseleafs"), n, m
    )
    true_child = _v5_child(
        op, "true", attrs.get("nodes_truenodeids"), attrs.get("nodes_trueleafs"), n, m
    )
    # Leaves follow the interior nodes; their comparison fields are placeholders.
    no_leaf_ints, no_leaf_floats = np.zeros(m, np.int64), np.zeros(m)
    return _assemble_forest(
        op,
        feature=np.concatenate([feature, no_leaf_ints]),
        threshold=np.concatenate([splits, no_leaf_floats]),
        modes=np.concatenate([modes.astype(np.int64), np.full(m, _LEAF)]),
        missing_true=np.concatenate(
            [missing != 0 if missing.size else np.zeros(n, bool), np.zeros(m, bool)]
        ),
        false_child=np.concatenate([false_child, no_leaf_ints]),
        true_child=np.concatenate([true_child, no_leaf_ints]),
        roots=roots,
        weights=(np.arange(n, n + m, dtype=np.int64), targets, weights),
        members=members,
        splits_name="nodes_splits",
    )


# -- tree ensembles: evaluation ------------------------------------------------------------------


def _branch(forest: _Forest, node: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Whether each walk at a branch node, seeing ``value``, takes the true branch."""
    threshold = forest.threshold[node]
    if forest.compare is not None:
        went_true = forest.compare(value, threshold)
        if forest.check_nan:
            missing = np.isnan(value)
            if missing.any():
                went_true = np.where(missing, forest.missing_true[node], went_true)
        return went_true
    outcome = (value < threshold) * _LESS
    outcome += (value == threshold) * _EQUAL
    outcome += (value > threshold) * _GREATER
    if forest.members is not None:
        tested = forest.is_member[node]
        inside = forest.members.contains(node[tested], value[tested])
        outcome[tested] = np.where(inside, _EQUAL, _LESS)
        outcome[tested & np.isnan(value)] = 0
    return np.asarray(forest.goes_true[node * 8 + outcome])


def _find_leaves(op: str, forest: _Forest, x: np.ndarray) -> np.ndarray:
    """The leaf each row reaches in each tree, ``[N, trees]``: one vectorised step per level."""
    n_rows, n_features = x.shape
    if forest.max_feature >= n_features:
        fail(
            op,
            f"nodes_featureids refers to feature {forest.max_feature} but X has "
            f"{n_features} features",
        )
    n_trees = forest.roots.size
    leaves = np.tile(forest.roots, n_rows)
    walking = np.flatnonzero(~forest.is_leaf[leaves])
    node = leaves[walking]
    row_start = (walking // n_trees) * n_features
    flat_x = x.reshape(-1)
    while walking.size:
        value = flat_x[row_start + forest.feature[node]]
        went_true = _branch(forest, node, value)
        node = forest.children[node * 2 + went_true]
        arrived = forest.is_leaf[node]
        if arrived.any():  # drop finished walks so deep trees do not drag shallow ones
            leaves[walking[arrived]] = node[arrived]
            keep = ~arrived
            walking, node, row_start = walking[keep], node[keep], row_start[keep]
    return leaves.reshape(n_rows, n_trees)


def _reached_weights(
    forest: _Forest, leaves: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, target, value) of every weight of every reached leaf."""
    n_rows, n_trees = leaves.shape
    flat = leaves.reshape(-1)
    count = forest.weight_count[flat]
    start = forest.weight_start[flat]
    row = np.repeat(np.arange(n_rows, dtype=np.int64), n_trees)
    if count.size and count.min() == count.max():  # the common case: as many weights per leaf
        per_leaf = int(count[0])
        entry = (start[:, None] + np.arange(per_leaf)).reshape(-1)
        row = np.repeat(row, per_leaf)
    else:
        ends = np.cumsum(count)
        row = np.repeat(row, count)
        entry = np.repeat(start, count) + np.arange(ends[-1] if ends.size else 0)
        entry -= np.repeat(ends - count, count)
    return row, forest.weight_target[entry], forest.weight_value[entry]


def _aggregate(forest: _Forest, leaves: np.ndarray, n_targets: int, how: str) -> np.ndarray:
    """Combine the reached leaves' weights per row and target: float64 ``[N, n_targets]``."""
    n_rows = leaves.shape[0]
    row, target, value = _reached_weights(forest, leaves)
    cell = row * n_targets + target
    size = n_rows * n_targets
    if how in ("SUM", "AVERAGE"):
        total = np.bincount(cell, weights=value, minlength=size).astype(np.float64)
        if how == "AVERAGE":
            total /= forest.roots.size
        return total.reshape(n_rows, n_targets)
    extreme = np.full(size, np.inf if how == "MIN" else -np.inf)
    (np.minimum if how == "MIN" else np.maximum).at(extreme, cell, value)
    extreme[np.bincount(cell, minlength=size) == 0] = 0.0  # no vote: 0
    return extreme.reshape(n_rows, n_targets)


def _with_base(op: str, scores: np.ndarray, base: np.ndarray, name: str) -> np.ndarray:
    if base.size == 0:
        return scores
    if base.size != scores.shape[1]:
        fail(op, f"{name} has {base.size} entries; expected 0 or {scores.shape[1]}")
    return np.asarray(scores + base)


@dataclass(frozen=True)
class _TreeRegressor:
    """A TreeEnsembleRegressor's attributes, decoded once."""

    forest: _Forest
    n_targets: int
    aggregate: str
    post: str
    base: np.ndarray


def prepare_tree_ensemble_regressor(**attrs: Any) -> _TreeRegressor:
    op = "TreeEnsembleRegressor"
    n_targets = _count(op, "n_targets", attrs.get("n_targets"), minimum=1)
    how = attrs.get("aggregate_function", "SUM")
    if how not in _AGGREGATES:
        fail(op, f"aggregate_function must be one of {', '.join(_AGGREGATES)}, got {how!r}")
    post = _transform_name(op, attrs.get("post_transform", "NONE"))
    forest = _forest_from_node_lists(op, attrs, "target", n_targets)
    base = _floats_or_tensor(op, "base_values", attrs)
    return _TreeRegressor(forest, n_targets, how, post, base)


def tree_ensemble_regressor(
    x: Any, *, prepared: _TreeRegressor | None = None, **attrs: Any
) -> np.ndarray:
    op = "TreeEnsembleRegressor"
    model = prepared or prepare_tree_ensemble_regressor(**attrs)
    samples = _samples(op, x)
    leaves = _find_leaves(op, model.forest, samples)
    scores = _aggregate(model.forest, leaves, model.n_targets, model.aggregate)
    scores = _with_base(op, scores, model.base, "base_values")
    return _post_transform(model.post, scores).astype(np.float32)


@dataclass(frozen=True)
class _TreeClassifier:
    """A TreeEnsembleClassifier's attributes, decoded once."""

    forest: _Forest
    labels: np.ndarray
    post: str
    base: np.ndarray


def prepare_tree_ensemble_classifier(**attrs: Any) -> _TreeClassifier:
    op = "TreeEnsembleClassifier"
    labels = _class_labels(
        op,
        attrs.get("classlabels_int64s"),
        attrs.get("classlabels_strings"),
        "classlabels_int64s",
    )
    post = _transform_name(op, attrs.get("post_transform", "NONE"))
    forest = _forest_from_node_lists(op, attrs, "class", labels.size)
    base = _floats_or_tensor(op, "base_values", attrs)
    columns = np.unique(forest.weight_target)
    if labels.size == 2 and columns.size == 1 and base.size > 1:
        fail(
            op,
            f"base_values has {base.size} entries but the weights fill one score column "
            f"(every class_ids is {int(columns[0])}); expected 0 or 1",
        )
    return _TreeClassifier(forest, labels, post, base)


def tree_ensemble_classifier(
    x: Any, *, prepared: _TreeClassifier | None = None, **attrs: Any
) -> tuple[np.ndarray, np.ndarray]:
    op = "TreeEnsembleClassifier"
    model = prepared or prepare_tree_ensemble_classifier(**attrs)
    forest, labels, post, base = model.forest, model.labels, model.post, model.base
    samples = _samples(op, x)
    scores = _aggregate(forest, _find_leaves(op, forest, samples), labels.size, "SUM")
    columns = np.unique(forest.weight_target)
    if labels.size == 2 and columns.size == 1:  # binary: one score column
        score = scores[:, int(columns[0])] + (base[0] if base.size else 0.0)
        probability = post == "PROBIT" or (
            post == "NONE" and bool((forest.weight_value >= 0).all())
        )
        raw = _binary_columns(score, probability)
    else:
        raw = _with_base(op, scores, base, "base_values")
    return _top_labels(labels, raw), _post_transform(post, raw).astype(np.float32)


@dataclass
class _TreeEnsemble5:
    """TreeEnsemble-5's attributes; the forest is decoded once per input element type,
    since thresholds compare in the input's type."""

    attrs: dict[str, Any]
    n_targets: int
    aggregate: str
    post: str
    forests: dict[np.dtype[Any], _Forest]

    def forest(self, dtype: np.dtype[Any]) -> _Forest:
        if dtype not in self.forests:
            self.forests[dtype] = _forest_from_v5("TreeEnsemble", self.attrs, dtype, self.n_targets)
        return self.forests[dtype]


def prepare_tree_ensemble(**attrs: Any) -> _TreeEnsemble5:
    op = "TreeEnsemble"
    n_targets = _count(op, "n_targets", attrs.get("n_targets"), minimum=1)
    how, post = int(attrs.get("aggregate_function", 1)), int(attrs.get("post_transform", 0))
    if not 0 <= how < len(_AGGREGATES):
        fail(op, f"aggregate_function must be 0..3 ({', '.join(_AGGREGATES)}), got {how}")
    if not 0 <= post < len(_POST_TRANSFORMS):
        fail(op, f"post_transform must be 0..4 ({', '.join(_POST_TRANSFORMS)}), got {post}")
    return _TreeEnsemble5(dict(attrs), n_targets, _AGGREGATES[how], _POST_TRANSFORMS[post], {})


def tree_ensemble(x: Any, *, prepared: _TreeEnsemble5 | None = None, **attrs: Any) -> np.ndarray:
    op = "TreeEnsemble"
    model = prepared or prepare_tree_ensemble(**attrs)
    array = np.asarray(x)
    if is_lowp(array) or array.dtype.kind != "f":
        fail(op, f"X must be a float16, float or double tensor, got element type {array.dtype}")
    samples = _samples(op, array)
    forest = model.forest(array.dtype)
    scores = _aggregate(forest, _find_leaves(op, forest, samples), model.n_targets, model.aggregate)
    return _post_transform(model.post, scores).astype(array.dtype)


# -- linear models -------------------------------------------------------------------------------


def linear_regressor(
    x: Any,
    *,
    coefficients: Sequence[float] | None = None,
    intercepts: Sequence[float] | None = None,
    post_transform: str = "NONE",
    targets: int = 1,
) -> np.ndarray:
    op = "LinearRegressor"
    samples = _samples(op, x)
    post = _transform_name(op, post_transform)
    n_targets = _count(op, "targets", targets, minimum=1)
    n_features = samples.shape[1]
    weights = _floats(coefficients)
    if weights.size != n_targets * n_features:
        fail(
            op,
            f"coefficients has {weights.size} entries; {n_targets} target(s) of "
            f"{n_features} features need {n_targets * n_features}",
        )
    scores = samples @ weights.reshape(n_targets, n_features).T
    scores = _with_base(op, scores, _floats(intercepts), "intercepts")
    return _post_transform(post, scores).astype(np.float32)


def _linear_rows(op: str, weights: np.ndarray, bias: np.ndarray, n_features: int) -> int:
    """The number of score rows the coefficients describe (one per intercept when given)."""
    if bias.size:
        rows = bias.size
    elif n_features and weights.size % n_features == 0:
        rows = weights.size // n_features
    else:
        fail(
            op,
            f"coefficients has {weights.size} entries, not a multiple of the {n_features} "
            f"features of X",
        )
    if weights.size != rows * n_features:
        fail(
            op,
            f"coefficients has {weights.size} entries; {rows} class row(s) of {n_features} "
            f"features need {rows * n_features}",
        )
    return rows


def linear_classifier(
    x: Any,
    *,
    coefficients: Sequence[float] | None = None,
    intercepts: Sequence[float] | None = None,
    classlabels_ints: Sequence[int] | None = None,
    classlabels_strings: Sequence[str] | None = None,
    multi_class: int = 0,  # how the model was trained; the scores are computed alike
    post_transform: str = "NONE",
) -> tuple[np.ndarray, np.ndarray]:
    op = "LinearClassifier"
    samples = _samples(op, x)
    labels = _class_labels(op, classlabels_ints, classlabels_strings, "classlabels_ints")
    post = _transform_name(op, post_transform)
    weights, bias = _floats(coefficients), _floats(intercepts)
    n_features = samples.shape[1]
    rows = _linear_rows(op, weights, bias, n_features)
    scores = samples @ weights.reshape(rows, n_features).T
    if bias.size:
        scores += bias
    if rows == labels.size:
        return _top_labels(labels, scores), _post_transform(post, scores).astype(np.float32)
    if rows == 1 and labels.size == 2:
        score = scores[:, 0]
        raw = _binary_columns(score, probability=post in ("NONE", "PROBIT"))
        chosen = np.where(score > 0, labels[1], labels[0]).astype(labels.dtype)
        return chosen, _post_transform(post, raw).astype(np.float32)
    fail(
        op,
        f"the coefficients describe {rows} score row(s) for {labels.size} class labels; "
        f"expected one row per label, or one row for two labels",
    )


# -- support vector machines ---------------------------------------------------------------------

_KERNELS = ("LINEAR", "POLY", "RBF", "SIGMOID")


@dataclass(frozen=True)
class _SvmKernel:
    """The kernel function of an SVM with its parameters (gamma, coef0, degree)."""

    name: str
    gamma: float
    coef0: float
    degree: float

    def __call__(self, x: np.ndarray, vectors: np.ndarray) -> np.ndarray:
        """``K(x_n, v_m)`` for every row and vector: ``[N, M]``."""
        if self.name == "RBF":
            squared = (
                (x * x).sum(axis=1)[:, None]
                + (vectors * vectors).sum(axis=1)[None, :]
                - 2.0 * (x @ vectors.T)
            )
            return np.asarray(np.exp(-self.gamma * np.maximum(squared, 0.0)))
        dot = x @ vectors.T
        if self.name == "POLY":
            with np.errstate(invalid="ignore", over="ignore"):
                return np.asarray(np.power(self.gamma * dot + self.coef0, self.degree))
        if self.name == "SIGMOID":
            return np.asarray(np.tanh(self.gamma * dot + self.coef0))
        return np.asarray(dot)


def _svm_kernel(op: str, kernel_type: str, kernel_params: Sequence[float] | None) -> _SvmKernel:
    if kernel_type not in _KERNELS:
        fail(op, f"kernel_type must be one of {', '.join(_KERNELS)}, got {kernel_type!r}")
    params = _floats(kernel_params)
    if params.size == 0:
        params = np.zeros(3)  # "zero if unused"
    elif params.size != 3:
        fail(op, f"kernel_params must hold gamma, coef0 and degree, got {params.size} values")
    return _SvmKernel(kernel_type, float(params[0]), float(params[1]), float(params[2]))


def _support_vectors(op: str, value: Any, count: int, n_features: int) -> np.ndarray:
    vectors = _floats(value)
    if vectors.size != count * n_features:
        fail(
            op,
            f"support_vectors has {vectors.size} entries; {count} vectors of {n_features} "
            f"features need {count * n_features}",
        )
    return vectors.reshape(count, n_features)


def _single_offset(op: str, rho: np.ndarray, mode: str) -> float:
    if rho.size != 1:
        fail(op, f"{mode}, rho holds the one offset of the scores; got {rho.size} entries")
    return float(rho[0])


def svm_regressor(
    x: Any,
    *,
    coefficients: Sequence[float] | None = None,
    kernel_params: Sequence[float] | None = None,
    kernel_type: str = "LINEAR",
    n_supports: int = 0,
    one_class: int = 0,
    post_transform: str = "NONE",
    rho: Sequence[float] | None = None,
    support_vectors: Sequence[float] | None = None,
) -> np.ndarray:
    op = "SVMRegressor"
    samples = _samples(op, x)
    post = _transform_name(op, post_transform)
    kernel = _svm_kernel(op, kernel_type, kernel_params)
    weights, n_features = _floats(coefficients), samples.shape[1]
    count = _count(op, "n_supports", n_supports, minimum=0)
    if count:
        vectors = _support_vectors(op, support_vectors, count, n_features)
        if weights.size != count:
            fail(
                op,
                f"coefficients has {weights.size} entries; expected one per support "
                f"vector ({count})",
            )
        score = kernel(samples, vectors) @ weights
    else:  # linear mode: the coefficients weigh the features, whatever kernel_type says
        if weights.size != n_features:
            fail(
                op,
                f"with n_supports = 0, coefficients holds one weight per feature: "
                f"expected {n_features}, got {weights.size}",
            )
        score = samples @ weights
    score = score + _single_offset(op, _floats(rho), "for a regression")
    if one_class:
        if post != "NONE":
            fail(op, f"a one-class SVM outputs +1/-1; post_transform must be NONE, got {post!r}")
        return np.where(score > 0, 1.0, -1.0).astype(np.float32).reshape(-1, 1)
    return _post_transform(post, score.reshape(-1, 1)).astype(np.float32)


def _pair_weights(
    counts: np.ndarray, coefficients: np.ndarray, n_classes: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One-vs-one classifiers of libsvm's layout: (first class, second class, weights).

    ``coefficients[c - 1]`` weighs class i's vectors in the classifier (i, c), c > i, and
    ``coefficients[i]`` weighs class c's vectors in (i, c).
    """
    starts = np.cumsum(counts) - counts
    first, second = np.triu_indices(n_classes, k=1)
    weights = np.zeros((first.size, coefficients.shape[1]))
    for pair, (i, j) in enumerate(zip(first, second)):
        own = slice(starts[i], starts[i] + counts[i])
        other = slice(starts[j], starts[j] + counts[j])
        weights[pair, own] = coefficients[j - 1, own]
        weights[pair, other] = coefficients[i, other]
    return first, second, weights


def _pairwise_probabilities(
    decisions: np.ndarray, prob_a: np.ndarray, prob_b: np.ndarray, n_classes: int
) -> np.ndarray:
    """Platt-scaled r[n, i, j] = P(class i | i or j), clipped away from 0 and 1 as libsvm does."""
    first, second = np.triu_indices(n_classes, k=1)
    p = np.clip(_logistic(-(decisions * prob_a + prob_b)), 1e-7, 1 - 1e-7)
    r = np.zeros((decisions.shape[0], n_classes, n_classes))
    r[:, first, second] = p
    r[:, second, first] = 1 - p
    return r


def _couple_probabilities(r: np.ndarray) -> np.ndarray:
    """Class probabilities from pairwise ones: libsvm's fixed-point iteration (Wu, Lin & Weng,
    2004, method 2), stopped per row when its residual falls below 0.005 / classes."""
    n_rows, k = r.shape[0], r.shape[1]
    rt = r.transpose(0, 2, 1)  # rt[n, t, j] = r[n, j, t]
    q = -rt * r
    diag = (rt * rt).sum(axis=2) - (rt * rt)[:, np.arange(k), np.arange(k)]
    q[:, np.arange(k), np.arange(k)] = diag
    p = np.full((n_rows, k), 1.0 / k)
    active = np.ones(n_rows, dtype=bool)
    for _ in range(max(100, k)):
        qp = np.einsum("nij,nj->ni", q, p)
        pqp = (p * qp).sum(axis=1)
        active &= np.abs(qp - pqp[:, None]).max(axis=1, initial=0.0) >= 0.005 / k
        rows = np.flatnonzero(active)
        if rows.size == 0:
            break
        pa, qpa, pqpa, qa = p[rows], qp[rows], pqp[rows], q[rows]
        for t in range(k):
            diff = (pqpa - qpa[:, t]) / qa[:, t, t]
            pa[:, t] += diff
            scale = 1.0 + diff
            pqpa = (pqpa + diff * (diff * qa[:, t, t] + 2 * qpa[:, t])) / (scale * scale)
            qpa = (qpa + diff[:, None] * qa[:, t, :]) / scale[:, None]
            pa /= scale[:, None]
        p[rows] = pa
    return p


def _svc_scores(
    op: str,
    samples: np.ndarray,
    kernel: _SvmKernel,
    counts: np.ndarray,
    attrs: dict[str, Any],
    n_classes: int,
) -> tuple[np.ndarray, np.ndarray]:
    """One-vs-one decisions ``[N, pairs]`` and votes ``[N, classes]`` of a kernel SVM."""
    if counts.size != n_classes or (counts < 0).any():
        fail(
            op,
            f"vectors_per_class must hold a non-negative count per class ({n_classes}), "
            f"got {counts.tolist()}",
        )
    if n_classes < 2:
        fail(op, "a support vector classifier needs at least two classes")
    total = int(counts.sum())
    vectors = _support_vectors(op, attrs["support_vectors"], total, samples.shape[1])
    weights = _floats(attrs["coefficients"])
    if weights.size != (n_classes - 1) * total:
        fail(
            op,
            f"coefficients has {weights.size} entries; {n_classes - 1} rows of {total} "
            f"support vectors need {(n_classes - 1) * total}",
        )
    first, second, pair_weights = _pair_weights(
        counts, weights.reshape(n_classes - 1, total), n_classes
    )
    rho = _floats(attrs["rho"])
    if rho.size != first.size:
        fail(op, f"rho has {rho.size} entries; expected one per pair of classes ({first.size})")
    decisions = kernel(samples, vectors) @ pair_weights.T + rho
    winner = np.where(decisions > 0, first, second)
    rows = np.repeat(np.arange(samples.shape[0]), first.size)
    votes = np.bincount(
        rows * n_classes + winner.reshape(-1), minlength=samples.shape[0] * n_classes
    )
    return decisions, votes.reshape(samples.shape[0], n_classes)


def svm_classifier(
    x: Any,
    *,
    classlabels_ints: Sequence[int] | None = None,
    classlabels_strings: Sequence[str] | None = None,
    coefficients: Sequence[float] | None = None,
    kernel_params: Sequence[float] | None = None,
    kernel_type: str = "LINEAR",
    post_transform: str = "NONE",
    prob_a: Sequence[float] | None = None,
    prob_b: Sequence[float] | None = None,
    rho: Sequence[float] | None = None,
    support_vectors: Sequence[float] | None = None,
    vectors_per_class: Sequence[int] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    op = "SVMClassifier"
    samples = _samples(op, x)
    labels = _class_labels(op, classlabels_ints, classlabels_strings, "classlabels_ints")
    post = _transform_name(op, post_transform)
    kernel = _svm_kernel(op, kernel_type, kernel_params)
    counts, n_classes = _ints(vectors_per_class), labels.size
    a, b = _floats(prob_a), _floats(prob_b)
    if a.size != b.size:
        fail(op, f"prob_a has {a.size} entries and prob_b {b.size}; they must match")
    if counts.sum() <= 0:  # linear mode: one coefficient row per class, no kernel
        weights, n_features = _floats(coefficients), samples.shape[1]
        if weights.size != n_classes * n_features:
            fail(
                op,
                f"without support vectors, coefficients holds one row of {n_features} "
                f"weights per class ({n_classes}); got {weights.size} entries",
            )
        offset = _single_offset(op, _floats(rho), "without support vectors")
        raw = samples @ weights.reshape(n_classes, n_features).T + offset
        return _top_labels(labels, raw), _post_transform(post, raw).astype(np.float32)
    attrs = {"support_vectors": support_vectors, "coefficients": coefficients, "rho": rho}
    decisions, votes = _svc_scores(op, samples, kernel, counts, attrs, n_classes)
    if a.size:
        if a.size != decisions.shape[1]:
            fail(
                op,
                f"prob_a has {a.size} entries; expected one per pair of classes "
                f"({decisions.shape[1]})",
            )
        raw = _couple_probabilities(_pairwise_probabilities(decisions, a, b, n_classes))
    elif n_classes == 2:  # the one pairwise score favours the first class when positive
        raw = _binary_columns(decisions[:, 0], probability=False)
    else:
        raw = decisions
    return _top_labels(labels, votes), _post_transform(post, raw).astype(np.float32)


def register(kernels: KernelRegistry) -> None:
    table: dict[str, Callable[..., Any]] = {
        "TreeEnsemble": tree_ensemble,
        "TreeEnsembleClassifier": tree_ensemble_classifier,
        "TreeEnsembleRegressor": tree_ensemble_regressor,
        "LinearClassifier": linear_classifier,
        "LinearRegressor": linear_regressor,
        "SVMClassifier": svm_classifier,
        "SVMRegressor": svm_regressor,
    }
    prepare: dict[str, Callable[..., Any]] = {
        "TreeEnsemble": prepare_tree_ensemble,
        "TreeEnsembleClassifier": prepare_tree_ensemble_classifier,
        "TreeEnsembleRegressor": prepare_tree_ensemble_regressor,
    }
    for name, fn in table.items():
        kernels.add(name, fn, since=versions(name, _ML), domain=_ML, prepare=prepare.get(name))
