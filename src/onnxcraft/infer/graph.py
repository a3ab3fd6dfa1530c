"""The rule table applied to a whole graph: the walk behind ``oc.infer_shapes``.

Types flow from the graph inputs and initializers through every node in order; subgraphs and
model-local functions are inferred recursively (a function at each call, with the call's input
types, values and attributes). A declared type (value_info, graph output) and an inferred one
are merged: what either knows is kept; a contradiction is an InferenceError with
``strict=True`` and a warning naming the node otherwise (the value then keeps what the
declaration says).

Loop and Scan bodies are inferred until their carried values stop changing: a carried value
whose type changes from one iteration to the next is widened (differing dims become unknown),
so what is written for the body holds for every iteration.

Operators without a rule that the standard defines by a function body are inferred through
that body (:func:`infer_through_body`, which the ``onnxcraft.infer`` package gives the node
engine).
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterable
from collections.abc import Sequence as Seq
from itertools import islice
from operator import attrgetter
from typing import Any

import numpy as np

from onnxcraft import ir, specs
from onnxcraft.core.opinfo import VARIADIC, OpInfo, custom_op_info, op_info
from onnxcraft.core.refine import refine
from onnxcraft.dtypes import ElementType
from onnxcraft.errors import InferenceError, OnnxcraftError
from onnxcraft.evaluate.spec_functions import function_from_spec
from onnxcraft.infer.direct import (
    DIRECT,
    DIRECT_FIRST,
    VALUED_DIRECT,
    Direct,
    ValuedDirect,
    direct_context,
)
from onnxcraft.infer.engine import infer_node, rule_of
from onnxcraft.infer.rules import has_user_rule
from onnxcraft.ops.control.rules import merge_types
from onnxcraft.ops.infer_api import VALUE_LIMIT, InferenceContext
from onnxcraft.ops.infer_common import tensor as _tensor
from onnxcraft.ops.math_unary.rules import same_type
from onnxcraft.types import Sequence, SparseTensor, Tensor, ValueType

__all__ = ["GraphInference", "InferenceWarning", "infer_through_body"]

# Presence flags of nodes naming every input, shared rather than rebuilt for each node.
_ALL_PRESENT = [(True,) * n for n in range(8)]

# What a rule raises when a corrupted model gives it what it did not expect; reported as an
# InferenceError at the node (a recursion too deep for Python included).
_RULE_FAILURES = (
    ValueError,
    TypeError,
    IndexError,
    KeyError,
    ArithmeticError,
    AttributeError,
    RecursionError,
)

_INT64_MAX = 2**63 - 1  # a dim past it cannot be written in a TensorShapeProto
_UNBOUNDED = 2**31  # the most inputs or outputs of a variadic operator: no limit

# An initializer as the walk reads it: name, element type, dims and, for a small one, the tensor
# (its value); the inference reader (proto/inference.py) gives the main graph's as such.
Initializer = tuple[str, ElementType, tuple[int, ...], ir.TensorData | None]
# The main graph's initializers as the inference reader types them when it can: each one's
# type by name, the small ones' tensors by name, and the number of distinct types.
TypedInitializers = tuple[dict[str, ValueType], dict[str, ir.TensorData], int]

# Carried Loop/Scan values are widened at most this many times before their shape is dropped.
_MAX_WIDENING_PASSES = 4

# Attribute kinds whose values can be part of a node's memo key (plain, hashable values).
_KEYED_ATTRIBUTES = frozenset({"INT", "INTS", "FLOAT", "FLOATS", "STRING", "STRINGS"})
_ATTRIBUTE_TYPE = attrgetter("type")
# Nodes with more inputs are inferred every time: their key costs about what their rule does
# (a hash per input type), and DenseNet's concats of up to 32 inputs never repeat.
_KEYED_INPUTS = 8
# Conv is answered before its key in a walk whose initializers number at most this many per
# distinct type (SqueezeNet 2.0, BN-Inception 4.3; ResNet-50 9.5, ShuffleNet v2 14.5).
_CONV_FIRST_SHARING = 6
# The operators answered before their key in such a walk: its windows seldom repeat either.
_WINDOWED = frozenset({"Conv", "MaxPool", "AveragePool", "LpPool"})
_NO_VALUES: dict[int, Any] = {}  # the output values of a remembered node (never written to)
_NO_ATTRIBUTES: dict[str, Any] = {}  # the attributes of a node without any (rules only read)


class InferenceWarning(UserWarning):
    """A declared type contradicts the inferred one (or a rule failed) in non-strict mode."""


class GraphInference:
    """Inference over the graphs of one model (its opsets and local functions)."""

    def __init__(
        self, functions: dict[tuple[str, str], ir.Function], opsets: dict[str, int], strict: bool
    ) -> None:
        self.functions = functions
        self.opsets = opsets
        self.strict = strict
        self._ops: dict[tuple[str, str, int | None], OpInfo] = {}  # resolved operator versions
        self._calling: list[tuple[str, str]] = []  # the local functions being inferred
        self._arity: dict[OpInfo, tuple[int, int, int]] = {}  # inputs (least, most), outputs
        # Output types of the nodes inferred so far, by everything a rule reads (see node);
        # None: every node is inferred anew (for comparing against the remembered answers).
        # Each answer in a cell: its first item (None: not known yet), then, once a node of
        # the key read what its known input values hold, the answers by those values.
        self.memo: dict[tuple[Any, ...], list[Any]] | None = {}
        # The operator versions whose answers may be remembered: standard ones, with the
        # library's rules (a user's rule may keep state).
        self._remembered: set[OpInfo] = set()
        # Those whose rule gives the input's type (Relu, Abs, Sigmoid ...): a node of one
        # input of unknown value, one output and no attributes is answered without its rule
        # or a key (the rule's answer costs less than a look-up; no value to fold).
        self._passing: set[OpInfo] = set()
        # Those a node of which, inferred anew, is answered directly in the common case
        # (infer/direct.py: Conv, BatchNormalization, Concat, the windowed pools).
        self._direct: dict[OpInfo, Direct] = {}
        self._direct_first: set[OpInfo] = set()  # those answered so before their key is made
        self._valued_direct: dict[OpInfo, ValuedDirect] = {}  # those answered from values
        # What a direct answer needs, by operator version and attribute list (its id; 0: no
        # attributes), once a node of them was checked: (the list, the answer, the group's
        # context, the least and most inputs and the most outputs of the version).
        self._ready: dict[
            tuple[OpInfo, int],
            tuple[list[ir.Attribute] | None, Direct, InferenceContext, int, int, int],
        ] = {}
        # Whether every type the walk starts from holds dims within int64 (read from a
        # protobuf's int64 fields): then so does an input's type passed through, and a direct
        # answer (it copies its inputs' dims and checks the dims it works out), which are
        # not checked again. Not for an IR model: its initializers' dims are not bounded.
        self._bounded = False
        # Whether Conv is answered before its key too, chosen per walk from the model's own
        # initializers (see _typed_initializers): off unless the reader typed them.
        self._conv_first = False
        # An attribute list's part of the key, by list: a number per distinct key (cheaper to
        # hash at each node than the attributes' names and values).
        self._attribute_keys: dict[int, tuple[list[ir.Attribute], int | None]] = {}
        self._attribute_numbers: dict[tuple[Any, ...], int] = {}
        self._attribute_dicts: dict[
            tuple[OpInfo, int], tuple[list[ir.Attribute], dict[str, Any], dict[Any, Any]]
        ] = {}
        # What rules derive from an operator version and its attributes, for nodes without
        # attributes (InferenceContext.derived; alike lists keep theirs in _attribute_dicts).
        self._bare_derived: dict[OpInfo, dict[Any, Any]] = {}
        # The direct answers' context of each group of alike nodes, by the id of its derived
        # facts (those dicts live in _attribute_dicts and _bare_derived as long as this).
        self._contexts: dict[int, InferenceContext] = {}
        # How the node loop (nodes) answers the nodes of each key of _ops: the operator
        # version and True (their input's type passed on), False (answered directly before
        # their key) or None (by _node: any other operator, a local function's call, a
        # strict walk, the plain path); see _fast_op.
        self._fast: dict[tuple[str, str, int | None], tuple[Any, bool | None]] = {}

    def problem(self, exc: OnnxcraftError) -> None:
        if self.strict:
            raise exc
        warnings.warn(str(exc), InferenceWarning, stacklevel=5)

    # -- graphs -----------------------------------------------------------------------------------

    def graph(
        self,
        graph: ir.Graph,
        outer: dict[str, ValueType | None],
        outer_values: dict[str, Any],
        opsets: dict[str, int],
        implied_inputs: Seq[ValueType | None] = (),
        input_values: Seq[Any] = (),
        *,
        commit: bool = True,
        initializers: Seq[Initializer] | None = None,
        added: list[tuple[str, ValueType]] | None = None,
        typed_initializers: TypedInitializers | None = None,
    ) -> tuple[list[ValueType | None], dict[str, Any]]:
        """Infer every node of ``graph``; returns the output types and the known values.

        ``implied_inputs`` are input types the enclosing operator implies (for bodies),
        ``input_values`` the inputs' known values (for function calls). With ``commit`` the
        results are written into the graph: input, output and value_info types.
        ``initializers`` replace the graph's own (the inference reader gives them apart);
        ``added`` receives the types of the values value_info lacks, as (name, type), instead
        of new value_info entries (the inference writer encodes them straight away).
        ``typed_initializers`` replace both, already typed (the inference reader's).
        """
        types: dict[str, ValueType | None] = dict(outer)
        values: dict[str, Any] = dict(outer_values)
        declared = {v.name: v.type for v in graph.value_info}
        declared.update({v.name: v.type for v in graph.outputs})
        input_types = self._input_types(graph, implied_inputs)
        for i, (info, t) in enumerate(zip(graph.inputs, input_types)):
            types[info.name] = t
            value = input_values[i] if i < len(input_values) else None
            if value is None:
                values.pop(info.name, None)  # an input hides an outer value of the same name
            else:
                values[info.name] = value
        if typed_initializers is not None:  # (the inference reader's: a protobuf's model)
            self._bounded = True
            initializer_names = self._typed_initializers(typed_initializers, types, values)
        else:
            initializer_names = self._initializers(graph, initializers, types, values)
        for sparse in graph.sparse_initializers:
            types[sparse.values.name] = SparseTensor(sparse.values.elem_type, sparse.dims)
        first_output = len(types)  # (the nodes' outputs are recorded from here on, in order)
        self.nodes(graph.nodes, types, values, declared, opsets, commit)
        outputs = [types.get(o.name, o.type) for o in graph.outputs]
        if commit:
            if added is not None and not outer and not graph.sparse_initializers:
                _write_main_types(graph, types, input_types, declared, first_output, added)
            else:
                _write_types(graph, types, input_types, initializer_names, added)
        return outputs, values

    def _typed_initializers(
        self,
        initializers: TypedInitializers,
        types: dict[str, ValueType | None],
        values: dict[str, Any],
    ) -> Iterable[str]:
        """Record initializers typed by the reader (distinct names, valid types); returns
        their names."""
        typed, small, kinds = initializers
        # A remembered convolution costs less than its direct answer, a key that misses more:
        # answered before its key when the weights seldom share a type (few initializers per
        # distinct element type and dims: few convolutions can repeat), as in SqueezeNet or
        # BN-Inception, not in ResNet's or ShuffleNet's repeated blocks. Decided once per walk.
        self._conv_first = len(typed) <= _CONV_FIRST_SHARING * kinds
        if types.keys().isdisjoint(typed):  # (the common case: no input of the same name)
            types.update(typed)
        else:
            for name, t in typed.items():
                known = types.get(name)
                types[name] = t if known is None else self._refined(known, t, name)
        values.update(small)  # small: decoded only if a rule asks for the value
        return typed.keys()

    def _initializers(
        self,
        graph: ir.Graph,
        initializers: Seq[Initializer] | None,
        types: dict[str, ValueType | None],
        values: dict[str, Any],
    ) -> list[str]:
        """Record the initializers' types (the graph's own unless ``initializers`` are
        given) and the small ones' values; returns their names."""
        if initializers is None:
            initializers = [
                (t.name, t.elem_type, t.dims, t if _small(t.dims) else None)
                for t in graph.initializers
            ]
        made: dict[tuple[ElementType, tuple[int, ...]], ValueType] = {}  # (weights share types)
        for name, elem, dims, tensor in initializers:
            t = made.get((elem, dims))
            if t is None:
                # Read dims are ints and a read element type an ElementType: valid ones (dims
                # >= 0, a defined type) need no re-checking by Tensor().
                if elem is not ElementType.UNDEFINED and min(dims, default=0) >= 0:
                    t = made[elem, dims] = _tensor(elem, dims)
                else:
                    t = Tensor(elem, dims)
            known = types.get(name)
            types[name] = t if known is None else self._refined(known, t, name)
            if tensor is not None:
                values[name] = tensor  # small: decoded only if a rule asks for the value
        return [entry[0] for entry in initializers]

    def untyped_inputs(self, graph: ir.Graph) -> None:
        """A model's graph inputs must be typed (the IR requires it): strict inference
        refuses one that is not rather than let rules guess around it."""
        for info in graph.inputs:
            if info.type is None:
                self.problem(InferenceError(f"graph input {info.name!r} has no type"))

    def _input_types(
        self, graph: ir.Graph, implied: Seq[ValueType | None]
    ) -> list[ValueType | None]:
        result = []
        for i, info in enumerate(graph.inputs):
            given = implied[i] if i < len(implied) else None
            result.append(self._refined(info.type, given, f"input {info.name!r}"))
        return result

    def _refined(
        self, declared: ValueType | None, inferred: ValueType | None, where: str
    ) -> ValueType | None:
        try:
            return refine(declared, inferred, where)
        except InferenceError as exc:
            self.problem(exc)
            return declared

    # -- nodes ------------------------------------------------------------------------------------

    def node(
        self,
        node: ir.Node,
        types: dict[str, ValueType | None],
        values: dict[str, Any],
        declared: dict[str, ValueType | None],
        opsets: dict[str, int],
        commit: bool,
    ) -> None:
        """Infer one node, recording its output types (and values) in ``types``
        (``values``), merged with ``declared`` ones."""
        self.nodes((node,), types, values, declared, opsets, commit)

    def nodes(
        self,
        nodes: Iterable[ir.Node],
        types: dict[str, ValueType | None],
        values: dict[str, Any],
        declared: dict[str, ValueType | None],
        opsets: dict[str, int],
        commit: bool,
    ) -> None:
        """Infer these nodes in turn, as :meth:`node` does each."""
        fast_ops = self._fast
        ready_of = self._ready
        bounded = self._bounded
        # _fast's entries of the default domain's operators by op_type alone (this call's
        # opsets fix the version): one look-up a node, without making its key
        standard: dict[str, tuple[Any, bool | None]] = {}
        for node in nodes:
            fast = None if node.domain else standard.get(node.op_type)
            if fast is None:
                domain = node.domain
                key = (domain, node.op_type, opsets.get(domain))
                fast = fast_ops.get(key)
                if fast is None:
                    fast = self._fast_op(node, key, opsets)
                if not domain:
                    standard[node.op_type] = fast
            if (
                (passes := fast[1]) is not None
                and bounded
                and (names := node.inputs)
                and len(node.outputs) == 1
            ):
                # The commonest nodes of a CNN: their input's type passed on or a direct
                # answer, written to an output nothing declares otherwise, as _node's paths
                # answer them, with fewer steps (any other case goes on to _node).
                first = names[0]
                if values.get(first) is not None:
                    found: Any = None  # (a known value: the engine may fold the node)
                elif passes:
                    found = (
                        [types.get(first)]
                        if len(names) == 1 and first and not node.attributes
                        else None
                    )
                elif "" not in names:
                    op = fast[0]
                    attrs = node.attributes
                    ready = ready_of.get((op, id(attrs) if attrs else 0))
                    try:
                        if ready is None:
                            found = self._first_answer(node, op, list(map(types.get, names)))
                        elif (
                            (ready[0] is attrs or not attrs)
                            and ready[3] <= len(names) <= ready[4]
                            and ready[5] >= 1
                        ):
                            found = ready[1](ready[2], list(map(types.get, names)), 1)
                        else:
                            found = None
                    except _RULE_FAILURES:
                        found = None  # (_node says what failed, as it does)
                else:
                    found = None
                if found is not None and len(found) == 1:
                    name = node.outputs[0]
                    if name and name not in values:
                        given = declared.get(name)
                        inferred = found[0]
                        if given is None or given is inferred:
                            types[name] = inferred
                            continue
                        if inferred is not None and given == inferred:
                            types[name] = given  # (as _node merges them)
                            continue
                        if (
                            type(given) is Tensor
                            and given.shape is None
                            and type(inferred) is Tensor
                            and (given.elem_type is None or given.elem_type == inferred.elem_type)
                        ):
                            # A declared type without a shape (a graph output as exporters
                            # write it): _node's merge keeps the inferred type.
                            types[name] = inferred
                            continue
            self._node(node, types, values, declared, opsets, commit)

    def _fast_op(
        self, node: ir.Node, key: tuple[str, str, int | None], opsets: dict[str, int]
    ) -> tuple[Any, bool | None]:
        """The entry of :attr:`_fast` for nodes of ``key`` (their domain, op_type and the
        domain's opset): the operator version and whether its nodes pass their input's type
        on (True) or are answered directly before their key (False); None for any other
        (a local function's call, another operator, a strict walk, the plain path)."""
        if self.memo is None or self.strict or (self.functions and key[:2] in self.functions):
            fast: tuple[Any, bool | None] = (None, None)
        else:
            try:
                op = self._ops.get(key)
                if op is None:
                    op = self._op(node, opsets)
            except (OnnxcraftError, *_RULE_FAILURES):
                return (None, None)  # (_node meets it again, and says what is wrong)
            if op in self._passing:
                fast = (op, True)
            elif op in self._direct_first:
                fast = (op, False)
            else:
                fast = (op, None)
        self._fast[key] = fast
        return fast

    def _first_answer(
        self, node: ir.Node, op: OpInfo, input_types: list[ValueType | None]
    ) -> list[ValueType | None] | None:
        """The direct answer for the first node of an operator version answered directly
        before its key and of its attribute list, with what later alike nodes are answered
        from (as :meth:`_infer_node` makes it); None when it declines or when the node is
        not as such an answer needs, keeping nothing of the attribute list (_node then does
        what it does). Every input named and the first one's value unknown."""
        least, most, most_out = self._arity[op]
        if not least <= len(node.inputs) <= most or most_out < 1:
            return None
        attrs = node.attributes
        if not attrs:
            attributes = _NO_ATTRIBUTES
            derived = self._bare_derived.get(op)
            if derived is None:
                derived = self._bare_derived[op] = {}
            kept = True
        else:
            known = self._attribute_dicts.get((op, id(attrs)))
            if known is not None and known[0] is attrs:
                attributes, derived = known[1], known[2]
                kept = True
            else:
                # _check_attributes and _attributes for plain attributes, without a word:
                # anything else (a graph, a reference, a name or type the version lacks)
                # is left to them.
                spec = op.attributes
                attributes = {}
                for attr in attrs:
                    info = spec.get(attr.name)
                    if (
                        info is None
                        or info.type != attr.type
                        or attr.ref
                        or attr.type not in _KEYED_ATTRIBUTES
                    ):
                        return None
                    attributes[attr.name] = attr.value
                derived = {}
                kept = False
        ctx = self._contexts.get(id(derived)) if kept else None
        if ctx is None:
            ctx = InferenceContext(op, [], [], attributes, 1, 0, derived=derived)
        direct = self._direct[op]
        found = direct(ctx, input_types, len(node.outputs))
        if found is None:
            return None
        if not kept:
            self._attribute_dicts[(op, id(attrs))] = (attrs, attributes, derived)
        self._contexts[id(derived)] = ctx
        self._ready[(op, id(attrs) if attrs else 0)] = (
            attrs or None,
            direct,
            ctx,
            least,
            most,
            most_out,
        )
        return found

    def _node(
        self,
        node: ir.Node,
        types: dict[str, ValueType | None],
        values: dict[str, Any],
        declared: dict[str, ValueType | None],
        opsets: dict[str, int],
        commit: bool,
    ) -> None:
        names = node.inputs
        if self.strict:
            self._check_defined(node, types)
        gaps = "" in names
        input_values: list[Any] | None
        if gaps:  # an optional input left out: its type and value are unknown
            input_types = [types.get(n) if n else None for n in names]
            input_values = [values.get(n) if n else None for n in names] if values else []
            first_value = input_values[0] if input_values else None
        else:  # (the common case, looked up without a Python loop)
            input_types = list(map(types.get, names))
            # The input values are listed only where they are read: a node answered directly
            # or passing its input's type on reads its first one only.
            input_values = None
            first_value = values.get(names[0]) if values and names else None
        memo = self.memo
        in_range = False  # whether the output types are known to hold no dim past int64
        try:
            function = self.functions.get((node.domain, node.op_type)) if self.functions else None
            if function is not None:
                if input_values is None:
                    input_values = list(map(values.get, names)) if values else []
                out_types, out_values = self._call(
                    node, function, input_types, input_values, opsets
                )
            else:
                domain = node.domain
                op = self._ops.get((domain, node.op_type, opsets.get(domain)))
                if op is None:  # (resolved once per version, the look-up inline)
                    op = self._op(node, opsets)
                direct_types = None
                unkeyed = False  # whether the node is inferred without a key
                if (
                    op in self._direct_first
                    and memo is not None
                    and not gaps
                    and first_value is None
                ):
                    attrs = node.attributes
                    ready = self._ready.get((op, id(attrs) if attrs else 0))
                    if ready is None:
                        # The first node of its attribute list (alike nodes share the
                        # reader's): later ones are answered directly, so a key would only
                        # be made to miss.
                        unkeyed = self._bounded
                    elif (
                        (ready[0] is attrs or not attrs)  # (the list itself, not a namesake)
                        and ready[3] <= len(names) <= ready[4]
                        and len(node.outputs) <= ready[5]
                    ):
                        # Answered directly: cheaper than the node's key (infer/direct.py),
                        # once an alike node checked the attribute list (see _infer_node).
                        direct_types = ready[1](ready[2], input_types, len(node.outputs))
                if (
                    op in self._passing
                    and memo is not None  # (the plain path runs the rule, for comparison)
                    and len(names) == 1
                    and names[0]
                    and len(node.outputs) == 1
                    and not node.attributes
                    and first_value is None
                ):
                    # (in range when the walk's types are: the input's, unchanged)
                    out_types, out_values, in_range = [input_types[0]], _NO_VALUES, self._bounded
                elif direct_types is not None:
                    # (in range when the input types are: a direct answer copies their dims
                    # and checks those it works out)
                    out_types, out_values, in_range = direct_types, _NO_VALUES, self._bounded
                else:
                    if input_values is None:
                        input_values = list(map(values.get, names)) if values else []
                    key = None
                    if (
                        memo is not None
                        and not unkeyed
                        and op in self._remembered
                        and len(names) <= _KEYED_INPUTS
                    ):
                        # The node's memo key: what its output types depend on, unless they
                        # depend on what its known input values hold: its operator version (a
                        # standard one, whose rule is the library's), the domain's opset, its
                        # attributes (plain values only, numbered per distinct list), the input
                        # types, which inputs have a known value and which of those are
                        # symbolic (told by the values' classes, a finer split than needed),
                        # which inputs it gives and how many outputs it names. A node inferred
                        # successfully, without reading what its known values hold and giving
                        # no values, answers every later node of the same key: real models
                        # repeat blocks (each with weights of its own). (Inline: this runs for
                        # every node.)
                        attributes = node.attributes
                        attribute_key: int | None = 0
                        if attributes:
                            known = self._attribute_keys.get(id(attributes))
                            if known is not None and known[0] is attributes:
                                attribute_key = known[1]
                            else:
                                attribute_key = self._attribute_key_of(attributes)
                        if attribute_key is not None:
                            key = (
                                op,
                                opsets.get(domain, 0),
                                attribute_key,
                                tuple(input_types),
                                tuple(map(type, input_values)) if input_values else None,
                                tuple([bool(n) for n in names]) if gaps else None,
                                len(node.outputs),
                            )
                    # The key's cell is found or made in one look-up (hashing a key costs more
                    # than making a cell); a miss fills it once its answer may be remembered.
                    cell = None
                    if key is not None:
                        try:
                            cell = memo.setdefault(key, [None])  # type: ignore[union-attr]
                        except TypeError:  # a value no key can hold: inferred every time
                            key = None
                    found = None if cell is None else cell[0]
                    if found is None and cell is not None and len(cell) > 1:
                        # An answer that read known values is remembered with the values
                        # themselves, in the key's cell (a read tensor by identity: shared
                        # constants, such as the shapes of Reshapes, answer alike; arrays are
                        # not keys), found without hashing the key again.
                        try:
                            found = cell[1].get(tuple(input_values))
                        except TypeError:
                            found = None
                    if found is not None:
                        out_types, out_values, in_range = found, _NO_VALUES, True
                    else:
                        out_types, out_values, valued = self._infer_node(
                            node, op, input_types, input_values, types, values, opsets, commit
                        )
                        # (a direct answer, valued None, is in range when the input types
                        # are: it copies their dims and checks those it works out)
                        in_range = (valued is None and self._bounded) or _in_range(out_types)
                        if in_range and cell is not None and not out_values:
                            if not valued:
                                cell[0] = out_types
                            else:
                                with contextlib.suppress(TypeError):  # (an array is no key)
                                    if len(cell) == 1:
                                        cell.append({})
                                    cell[1][tuple(input_values)] = out_types
        except OnnxcraftError as exc:
            self.problem(InferenceError(f"{_label(node)}: {exc}"))
            out_types, out_values = [None] * len(node.outputs), {}
        except _RULE_FAILURES as exc:
            # A rule that trips over input it did not foresee (a corrupted model) must still
            # fail as onnxcraft's error at this node, never as a bare Python one.
            self.problem(
                InferenceError(
                    f"{_label(node)}: cannot infer this node's outputs: its inputs or "
                    f"attributes are inconsistent ({type(exc).__name__}: {exc})"
                )
            )
            out_types, out_values = [None] * len(node.outputs), {}
        outputs = node.outputs
        if in_range and len(outputs) == 1 and len(out_types) == 1 and not out_values:
            # (the common case: one output, nothing to check, merge or forget; a declared
            # type read back is mostly the very object inferred, both interned)
            name = outputs[0]
            if name and name not in values:
                given = declared.get(name)
                if given is None or given is out_types[0]:
                    types[name] = out_types[0]
                    return
        for i, name in enumerate(outputs):
            if not name:
                continue
            inferred = out_types[i] if i < len(out_types) else None
            if not in_range and type(inferred) is Tensor and inferred.shape:
                for d in inferred.shape:  # inline: this runs for every output
                    if type(d) is int and d > _INT64_MAX:
                        inferred = self._dim_overflow(node, name, inferred)
                        break
            given = declared.get(name) if declared else None
            if given is None:
                types[name] = inferred
            elif inferred is None or given == inferred:
                types[name] = given  # (refine's answer, without wording where for nothing)
            elif (
                type(given) is Tensor
                and given.shape is None
                and type(inferred) is Tensor
                and (given.elem_type is None or given.elem_type == inferred.elem_type)
            ):
                # A declared type without a shape (a graph output as exporters write it):
                # refine's answer is equal to the inferred type, kept as it is (interned).
                types[name] = inferred
            else:
                try:
                    types[name] = refine(given, inferred, "")
                except InferenceError:
                    # (worded only now: the node's label costs more than most merges)
                    try:
                        refine(given, inferred, f"{_label(node)} output {name!r}")
                    except InferenceError as exc:
                        self.problem(exc)
                    types[name] = given
            if i in out_values:
                values[name] = out_values[i]
            elif name in values:
                del values[name]  # a name redefined here hides an outer value

    def _attribute_key_of(self, attributes: list[ir.Attribute]) -> int | None:
        """An attribute list's part of the memo key, remembered with the list."""
        number = self._attribute_number(attributes)
        self._attribute_keys[id(attributes)] = (attributes, number)
        return number

    def _attribute_number(self, attributes: list[ir.Attribute]) -> int | None:
        """The number of an attribute list's key, equal for equal keys (None: the list
        cannot be part of a key)."""
        key = _attribute_key(attributes)
        if key is None:
            return None
        try:
            number = self._attribute_numbers.get(key)
        except TypeError:  # (a value no key can hold)
            return None
        if number is None:
            number = self._attribute_numbers[key] = len(self._attribute_numbers) + 1
        return number

    def _dim_overflow(self, node: ir.Node, name: str, inferred: Tensor) -> Tensor:
        self.problem(
            InferenceError(
                f"{_label(node)}: output {name!r} would have shape "
                f"{list(inferred.shape or ())}, a dim beyond the int64 range of ONNX dims"
            )
        )
        return Tensor(inferred.elem_type, None)

    def _check_defined(self, node: ir.Node, types: dict[str, ValueType | None]) -> None:
        """Strict mode: every input a node names is defined before it (an input, an
        initializer, an earlier node's output or an outer scope's value)."""
        for name in node.inputs:
            if name and name not in types:
                raise InferenceError(
                    f"{_label(node)}: input {name!r} is not defined: no graph input, "
                    f"initializer or earlier node output has that name"
                )

    def _call(
        self,
        node: ir.Node,
        function: ir.Function,
        input_types: list[ValueType | None],
        input_values: list[Any],
        opsets: dict[str, int],
    ) -> tuple[list[ValueType | None], dict[int, Any]]:
        """Output types and values of a call of a local function."""
        if len(node.outputs) > len(function.outputs):
            raise InferenceError(
                f"function {function.domain}.{function.name} has "
                f"{len(function.outputs)} outputs, the call asks for {len(node.outputs)}"
            )
        attrs = {a.name: a for a in node.attributes}
        return self.function(function, input_types, input_values, attrs, opsets)

    def _infer_node(
        self,
        node: ir.Node,
        op: OpInfo,
        input_types: list[ValueType | None],
        input_values: list[Any],
        types: dict[str, ValueType | None],
        values: dict[str, Any],
        opsets: dict[str, int],
        commit: bool,
    ) -> tuple[list[ValueType | None], dict[int, Any], bool | None]:
        """Output types and values of a node of operator ``op``, and whether they may depend
        on what its known input values hold (None: they do not, a direct answer's)."""
        bodies: dict[str, list[ValueType | None]] | None = None
        if op.spec is not None:
            arity = self._arity.get(op)
            count = len(node.inputs)
            # The common case inline: a count within the version's range (this runs per node).
            if arity is None or not arity[0] <= count <= arity[1] or len(node.outputs) > arity[2]:
                self._check_arity(op, node)
        attrs = node.attributes
        derived: dict[Any, Any] | None = None
        if not attrs:
            attributes = _NO_ATTRIBUTES
            derived = self._bare_derived.get(op)
            if derived is None:
                derived = self._bare_derived[op] = {}
        else:
            # Alike nodes share their attribute list (the inference reader's): checked and
            # made a dict once per operator and list (kept with it, so its id stays its own).
            known = self._attribute_dicts.get((op, id(attrs)))
            if known is not None and known[0] is attrs:
                attributes, derived = known[1], known[2]
            else:
                bodies = {}
                attributes = self._attributes(
                    node, op, input_types, input_values, types, values, opsets, commit, bodies
                )
                if _KEYED_ATTRIBUTES.issuperset(map(_ATTRIBUTE_TYPE, attrs)):  # plain values only
                    derived = {}
                    self._attribute_dicts[(op, id(attrs))] = (attrs, attributes, derived)
        direct = self._direct.get(op)
        if (
            direct is not None
            and derived is not None  # (plain attributes, checked)
            and self.memo is not None  # (the plain path runs the rule, for comparison)
        ):
            ctx = direct_context(op, attributes, derived, self._contexts)
            ready_key = (op, id(attrs) if attrs else 0)
            if ready_key not in self._ready:
                # Later alike nodes are answered directly from the node step (see node).
                least, most, most_out = self._arity[op]
                self._ready[ready_key] = (attrs or None, direct, ctx, least, most, most_out)
            if (not input_values or input_values[0] is None) and all(node.inputs):
                found = direct(ctx, input_types, len(node.outputs))  # (nothing to fold)
                if found is not None:
                    return found, _NO_VALUES, None  # (None: a direct answer)
        elif (
            input_values  # (some input has a known value)
            and input_values[0] is None  # (nothing to fold)
            and derived is not None
            and self.memo is not None
            and (valued := self._valued_direct.get(op)) is not None
            and all(node.inputs)
        ):
            ctx = direct_context(op, attributes, derived, self._contexts)
            found = valued(ctx, input_types, input_values, len(node.outputs))
            if found is not None:
                return found, _NO_VALUES, True  # (remembered by the values it read)
        opset = opsets.get(node.domain, 0)
        count = len(node.inputs)
        present = (
            _ALL_PRESENT[count]
            if all(node.inputs) and count < 8
            else [bool(n) for n in node.inputs]
        )
        return infer_node(
            op,
            input_types,
            input_values,
            attributes,
            len(node.outputs),
            opset,
            bodies,
            present,
            derived,
        )

    def _attributes(
        self,
        node: ir.Node,
        op: OpInfo,
        input_types: list[ValueType | None],
        input_values: list[Any],
        types: dict[str, ValueType | None],
        values: dict[str, Any],
        opsets: dict[str, int],
        commit: bool,
        bodies: dict[str, list[ValueType | None]],
    ) -> dict[str, Any]:
        """The node's attributes as rules read them, checked against the operator version's;
        graph attributes are inferred (their output types go into ``bodies``)."""
        if op.spec is not None:
            _check_attributes(op, node)
        attributes: dict[str, Any] = {}
        skipped = _untaken_branch(op, input_values) if op.op_type == "If" else None
        for attr in node.attributes:
            if attr.ref:
                raise InferenceError(
                    f"attribute {attr.name!r} refers to function attribute {attr.ref!r} "
                    f"outside of a function body"
                )
            if attr.name == skipped:
                continue  # a branch that never runs: its contents cannot affect the outputs
            if attr.type == "GRAPH":
                bodies[attr.name] = self._body(
                    node, op, attr.value, input_types, types, values, opsets, commit
                )
            elif attr.type == "TENSOR":
                attributes[attr.name] = _tensor_attribute(node, attr.value)
            else:
                attributes[attr.name] = attr.value
        return attributes

    def _check_arity(self, op: OpInfo, node: ir.Node) -> None:
        """As many inputs and outputs as the operator version allows (rules index them)."""
        arity = self._arity.get(op)
        if arity is None:
            variadic_out = bool(op.outputs) and op.outputs[-1].option == VARIADIC
            most_in = op.max_inputs
            arity = self._arity[op] = (
                op.min_inputs,
                _UNBOUNDED if most_in is None else most_in,
                _UNBOUNDED if variadic_out else len(op.outputs),
            )
        least, most, most_out = arity
        count = len(node.inputs)
        if not least <= count <= most:
            expected = f"at least {least}" if most == _UNBOUNDED else f"{least} to {most}"
            raise InferenceError(
                f"{op.op_type}-{op.since_version} takes {expected} inputs, the node gives {count}"
            )
        if len(node.outputs) > most_out:
            raise InferenceError(
                f"{op.op_type}-{op.since_version} has {most_out} outputs, the node names "
                f"{len(node.outputs)}"
            )

    def _op(self, node: ir.Node, opsets: dict[str, int]) -> OpInfo:
        opset = opsets.get(node.domain)
        key = (node.domain, node.op_type, opset)
        found = self._ops.get(key)
        if found is None:
            resolved = _OPERATORS.get(key)
            if (
                resolved is None
                or has_user_rule(node.domain, node.op_type)
                or rule_of(resolved[0]) is not resolved[5]  # (a rule replaced since)
            ):
                resolved = _resolve(node.domain, node.op_type, opset)
            if resolved is None:  # not a standard operator: its arity is the node's own
                return custom_op_info(
                    node.domain, node.op_type, len(node.inputs), len(node.outputs)
                )
            found, arity, remembered, passing, direct, _ = resolved
            self._ops[key] = found
            self._arity[found] = arity
            if remembered:
                self._remembered.add(found)
            if passing:
                self._passing.add(found)
            if remembered and not found.domain and found.op_type in VALUED_DIRECT:
                self._valued_direct[found] = VALUED_DIRECT[found.op_type]
            if direct is not None:
                self._direct[found] = direct
                if found.op_type in DIRECT_FIRST or (
                    self._conv_first and found.op_type in _WINDOWED
                ):
                    self._direct_first.add(found)
        return found

    # -- bodies -----------------------------------------------------------------------------------

    def _body(
        self,
        node: ir.Node,
        op: OpInfo,
        graph: ir.Graph,
        input_types: list[ValueType | None],
        types: dict[str, ValueType | None],
        values: dict[str, Any],
        opsets: dict[str, int],
        commit: bool,
    ) -> list[ValueType | None]:
        scan_8 = op.op_type == "Scan" and op.since_version == 8
        implied = _implied_body_inputs(node, input_types, scan_8)
        carried = _carried(node, input_types, scan_8)
        if carried is not None:
            implied = self._stable_carried(graph, implied, carried, types, values, opsets)
        outputs, _ = self.graph(graph, types, values, opsets, implied, commit=commit)
        return outputs

    def _stable_carried(
        self,
        graph: ir.Graph,
        implied: list[ValueType | None],
        carried: tuple[int, int, int],
        types: dict[str, ValueType | None],
        values: dict[str, Any],
        opsets: dict[str, int],
    ) -> list[ValueType | None]:
        """Body input types that hold for every iteration: the carried values widened until
        the body gives back what it receives."""
        first, count, output_shift = carried
        for attempt in range(_MAX_WIDENING_PASSES + 1):
            outputs, _ = self.graph(graph, types, values, opsets, implied, commit=False)
            widened = list(implied)
            for j in range(first, min(first + count, len(implied))):
                k = j - output_shift
                merged = merge_types(implied[j], outputs[k] if 0 <= k < len(outputs) else None)
                widened[j] = merged if attempt < _MAX_WIDENING_PASSES else _drop_shape(merged)
            if widened == implied:
                break
            implied = widened
        return implied

    # -- functions --------------------------------------------------------------------------------

    def function(
        self,
        function: ir.Function,
        input_types: list[ValueType | None],
        input_values: list[Any],
        attributes: dict[str, ir.Attribute],
        opsets: dict[str, int],
    ) -> tuple[list[ValueType | None], dict[int, Any]]:
        """Output types and values of one call of ``function``, inferred through its body."""
        key = (function.domain, function.name)
        if key in self._calling:
            chain = " -> ".join(f"{d}.{n}" for d, n in [*self._calling, key])
            raise InferenceError(f"function {key[0]}.{key[1]} calls itself ({chain})")
        self._calling.append(key)
        try:
            return self._function_body(function, input_types, input_values, attributes, opsets)
        finally:
            self._calling.pop()

    def _function_body(
        self,
        function: ir.Function,
        input_types: list[ValueType | None],
        input_values: list[Any],
        attributes: dict[str, ir.Attribute],
        opsets: dict[str, int],
    ) -> tuple[list[ValueType | None], dict[int, Any]]:
        defaults = {a.name: a for a in function.attribute_defaults}
        graph = ir.Graph(
            nodes=[_substitute(n, attributes, defaults) for n in function.nodes],
            inputs=[ir.ValueInfo(n) for n in function.inputs],
            outputs=[ir.ValueInfo(n) for n in function.outputs],
        )
        inner_opsets = dict(opsets)
        inner_opsets.update(function.opset_imports)
        # A function body sees only its own inputs, never the caller's other values.
        outputs, values = self.graph(
            graph, {}, {}, inner_opsets, input_types, input_values, commit=False
        )
        out_values = {i: values[n] for i, n in enumerate(function.outputs) if n in values}
        return outputs, out_values


# What the walk knows of an operator version before meeting a node of it: the OpInfo, its
# arity (inputs least and most, outputs most), whether its answers may be remembered, whether
# its rule gives the input's type, its direct answer (infer/direct.py), and the rule these
# were worked out with (a rule replaced since, as the testing harness does, is resolved anew).
_Resolved = tuple[OpInfo, tuple[int, int, int], bool, bool, Direct | None, Any]
# Those of the standard domains' operators, by (domain, op_type, opset), for the process: they
# depend only on the library (as onnx's schema registry, built once), not on any model. A user
# rule registered later makes its operator resolved anew (has_user_rule, asked at each walk).
_OPERATORS: dict[tuple[str, str, int | None], _Resolved] = {}
_OPERATORS_KEPT = 4096


def _resolve(domain: str, op_type: str, opset: int | None) -> _Resolved | None:
    """What the walk knows of the operator version of ``op_type`` at ``opset`` (None: not a
    standard operator)."""
    since = None if opset is None else specs.resolve_since_version(domain, op_type, opset)
    if since is None:
        return None
    op = op_info(domain, op_type, since)
    variadic_out = bool(op.outputs) and op.outputs[-1].option == VARIADIC
    most_in = op.max_inputs
    arity = (
        op.min_inputs,
        _UNBOUNDED if most_in is None else most_in,
        _UNBOUNDED if variadic_out else len(op.outputs),
    )
    user_ruled = has_user_rule(domain, op_type)
    remembered = op.spec is not None and not user_ruled
    rule = rule_of(op)
    passing = (
        remembered
        and rule is same_type
        and op.min_inputs <= 1
        and (op.max_inputs is None or op.max_inputs >= 1)
        and bool(op.outputs)
    )
    direct = DIRECT.get(op_type) if remembered and not domain else None
    resolved = (op, arity, remembered, passing, direct, rule)
    if not user_ruled and specs.default_registry().is_standard(domain):
        # (a user folder's operators may be removed or replaced: resolved at each walk)
        if len(_OPERATORS) >= _OPERATORS_KEPT:
            _OPERATORS.clear()
        _OPERATORS[(domain, op_type, opset)] = resolved
    return resolved


def _check_attributes(op: OpInfo, node: ir.Node) -> None:
    """The node's attributes against its operator version's: each one declared, of the
    declared type (INTS given for an INT would reach the rule as a list)."""
    for attr in node.attributes:
        info = op.attributes.get(attr.name)
        if info is None:
            raise InferenceError(
                f"{op.op_type}-{op.since_version} has no attribute {attr.name!r} "
                f"(it has {sorted(op.attributes) or 'none'})"
            )
        if info.type != attr.type and not attr.ref:
            raise InferenceError(
                f"attribute {attr.name!r} must be of type {info.type}, got {attr.type}"
            )


def _attribute_key(attributes: list[ir.Attribute]) -> tuple[Any, ...] | None:
    """A node's attributes as part of its memo key (None: they cannot be part of one)."""
    parts = []
    for attr in attributes:
        kind = attr.type
        if kind not in _KEYED_ATTRIBUTES or attr.ref:
            return None
        value = attr.value
        if type(value) is list:  # read from the IR: lists; the inference reader: tuples
            value = tuple(value)
        if kind in ("FLOAT", "FLOATS"):
            value = _signed_zeros(value)
        parts.append((attr.name, kind, value))
    return tuple(parts)


def _in_range(types: list[ValueType | None]) -> bool:
    """No tensor dim past int64 (an answer that has one warns at each node, so is not kept)."""
    for t in types:
        if type(t) is Tensor and t.shape:
            for d in t.shape:
                if type(d) is int and d > _INT64_MAX:
                    return False
    return True


def _signed_zeros(value: Any) -> Any:
    """A float attribute's value with each zero told apart from its negative (equal as
    floats, so equal keys, though 1 / -0.0 is not 1 / 0.0)."""
    if type(value) is float:
        return (value, math.copysign(1.0, value)) if value == 0.0 else value
    if type(value) is tuple and 0.0 in value:
        return tuple(_signed_zeros(v) for v in value)
    return value


def _label(node: ir.Node) -> str:
    """A node by its name, or (unnamed, as built by default) by its first output's name."""
    if node.name or not any(node.outputs):
        return f"node {node.name or node.op_type!r} ({node.op_type})"
    output = next(name for name in node.outputs if name)
    return f"node of output {output!r} ({node.op_type})"


def _untaken_branch(op: OpInfo, input_values: list[Any]) -> str | None:
    """The If branch a known condition rules out (None when the condition is unknown)."""
    if op.op_type != "If" or op.domain != "" or not input_values:
        return None
    cond = input_values[0]
    if isinstance(cond, ir.TensorData):
        cond = cond.array()
    if not isinstance(cond, np.ndarray) or cond.size != 1:
        return None
    return "else_branch" if bool(cond.reshape(-1)[0]) else "then_branch"


def _write_types(
    graph: ir.Graph,
    types: dict[str, ValueType | None],
    input_types: list[ValueType | None],
    initializer_names: Iterable[str],
    added: list[tuple[str, ValueType]] | None,
) -> None:
    """Record the inferred types in ``graph``: inputs, outputs and a value_info per value
    (those value_info lacks go to ``added`` instead, when given)."""
    for info, t in zip(graph.inputs, input_types):
        info.type = t
    recorded = set()
    for info in graph.value_info:
        info.type = types.get(info.name, info.type)
        recorded.add(info.name)
    for info in graph.outputs:
        info.type = types.get(info.name, info.type)
        recorded.add(info.name)
    recorded.update(v.name for v in graph.inputs)
    recorded.update(initializer_names)
    for node in graph.nodes:
        for name in node.outputs:
            if name and name not in recorded:
                t = types.get(name)
                if t is not None:
                    if added is None:
                        graph.value_info.append(ir.ValueInfo(name, t))
                    else:
                        added.append((name, t))
                    recorded.add(name)


def _write_main_types(
    graph: ir.Graph,
    types: dict[str, ValueType | None],
    input_types: list[ValueType | None],
    declared: dict[str, ValueType | None],
    first_output: int,
    added: list[tuple[str, ValueType]],
) -> None:
    """:func:`_write_types` for a main graph whose new entries go to ``added`` (no outer
    values, no sparse initializers), from the order ``types`` keeps: its names from
    ``first_output`` on are the nodes' outputs, each where the walk first recorded it, as
    _write_types visits them; a node output named as an input or initializer kept its earlier
    place, and one declared (value_info, graph output) is in ``declared``. No loop over the
    nodes and their outputs, no set of the names recorded."""
    for info, t in zip(graph.inputs, input_types):
        info.type = t
    for info in graph.value_info:
        info.type = types.get(info.name, info.type)
    for info in graph.outputs:
        info.type = types.get(info.name, info.type)
    append = added.append
    for name, t in islice(types.items(), first_output, None):
        if t is not None and name not in declared:
            append((name, t))


def _tensor_attribute(node: ir.Node, value: Any) -> Any:
    """A TENSOR attribute for the rules: decoded, unless it is a large Constant's value."""
    if not isinstance(value, ir.TensorData):
        return value
    if node.op_type == "Constant" and not node.domain and not _small(value.dims):
        return value  # its rule needs dims and element type only: keep the data undecoded
    return value.array()


def _substitute(
    node: ir.Node, actual: dict[str, ir.Attribute], defaults: dict[str, ir.Attribute]
) -> ir.Node:
    """A copy of a function-body node with attribute references replaced by the call's values."""
    attributes: list[ir.Attribute] = []
    for attr in node.attributes:
        if attr.ref:
            source = actual.get(attr.ref) or defaults.get(attr.ref)
            if source is not None:  # no value and no default: the attribute stays unset
                attributes.append(ir.Attribute(attr.name, source.type, source.value))
        else:
            attributes.append(attr)
    return ir.Node(node.op_type, node.inputs, node.outputs, node.domain, node.name, attributes)


def _carried(
    node: ir.Node, input_types: list[ValueType | None], scan_8: bool
) -> tuple[int, int, int] | None:
    """Where a Loop's or Scan's carried values sit: (first body input, how many, how many
    places earlier the body returns them)."""
    if node.domain != "":
        return None
    if node.op_type == "Loop":  # inputs (i, cond, carried...), outputs (cond, carried...)
        return (2, max(len(input_types) - 2, 0), 1)
    if node.op_type == "Scan":  # inputs (states..., scanned...), outputs (states..., ...)
        operands = input_types[1:] if scan_8 else input_types
        return (0, max(len(operands) - _scan_inputs_count(node), 0), 0)
    return None


def _scan_inputs_count(node: ir.Node) -> int:
    attr = node.attribute("num_scan_inputs")
    if attr is None or attr.value is None:
        return 0
    if type(attr.value) is not int:
        raise InferenceError(f"attribute 'num_scan_inputs' must be an INT, got {attr.type}")
    return attr.value


def _implied_body_inputs(
    node: ir.Node, input_types: list[ValueType | None], scan_8: bool
) -> list[ValueType | None]:
    """The body input types an operator's inputs imply (empty when it implies none)."""
    if node.domain != "":
        return []
    if node.op_type == "Loop":
        return [Tensor(ElementType.INT64, ()), Tensor(ElementType.BOOL, ()), *input_types[2:]]
    if node.op_type == "Scan":
        return _scan_body_inputs(node, input_types, scan_8)
    if node.op_type == "SequenceMap":
        return [t.elem if isinstance(t, Sequence) else t for t in input_types]
    return []


def _scan_body_inputs(
    node: ir.Node, input_types: list[ValueType | None], scan_8: bool
) -> list[ValueType | None]:
    operands = input_types[1:] if scan_8 else list(input_types)
    num_state = len(operands) - _scan_inputs_count(node)
    states, scanned = operands[:num_state], operands[num_state:]
    if scan_8:
        # Scan-8: every operand has a batch axis 0 the body does not see; it scans axis 1.
        return [
            *(_drop_axis(t, 0) for t in states),
            *(_drop_axis(_drop_axis(t, 1), 0) for t in scanned),
        ]
    axes_attr = node.attribute("scan_input_axes")
    axes = list(axes_attr.value) if axes_attr is not None else []
    sliced = [_drop_axis(t, int(axes[i]) if i < len(axes) else 0) for i, t in enumerate(scanned)]
    return [*states, *sliced]


def _drop_axis(t: ValueType | None, axis: int) -> ValueType | None:
    if not isinstance(t, Tensor):
        return None
    if t.shape is None:
        return Tensor(t.elem_type, None)
    rank = len(t.shape)
    if not -rank <= axis < rank:
        return Tensor(t.elem_type, None)
    axis = axis + rank if axis < 0 else axis
    return Tensor(t.elem_type, t.shape[:axis] + t.shape[axis + 1 :])


def _drop_shape(t: ValueType | None) -> ValueType | None:
    return Tensor(t.elem_type, None) if isinstance(t, Tensor) else t


def _small(dims: tuple[int, ...]) -> bool:
    total = 1
    for d in dims:
        total *= d
    return total <= VALUE_LIMIT


def infer_through_body(
    op: OpInfo,
    input_types: Seq[ValueType | None],
    input_values: Seq[Any],
    attributes: dict[str, Any],
    num_outputs: int,
) -> tuple[list[ValueType | None], dict[int, Any]] | None:
    """Types and values of an operator the standard defines by a function body (else None)."""
    spec = op.spec
    if spec is None or not spec.functions or spec.context_dependent_function:
        return None
    function = function_from_spec(op.domain, op.op_type, op.since_version)
    if function is None:
        return None
    actual = {}
    for name, value in attributes.items():
        info = op.attributes.get(name)
        if info is not None and value is not None:
            actual[name] = ir.Attribute(name, info.type, value)
    runner = GraphInference({}, {}, strict=True)
    try:
        types, values = runner.function(function, list(input_types), list(input_values), actual, {})
    except OnnxcraftError:
        return None  # a body that does not fit these inputs tells nothing: use the constraints
    types = (types + [None] * num_outputs)[:num_outputs]
    return types, values
