"""``oc.build`` and ``oc.build_ir``: from output Vars to a typed model.

The steps have modules of their own: :mod:`~onnxcraft.core.emit_graph` emits the graphs
(naming values with :mod:`~onnxcraft.core.naming`, storing constants once with
:mod:`~onnxcraft.core.constants`), :mod:`~onnxcraft.core.local_functions` collects the
functions called, :mod:`~onnxcraft.core.opsets` chooses the opset imports and
:mod:`~onnxcraft.core.ir_version` the IR version. This module checks the arguments and puts
the model together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from onnxcraft.core import hooks
from onnxcraft.core.emit_graph import GraphEmitter
from onnxcraft.core.ir_version import model_ir_version
from onnxcraft.core.local_functions import collect_functions
from onnxcraft.core.naming import check_name, check_text
from onnxcraft.core.opsets import merge_function_opsets, model_opsets
from onnxcraft.core.var import ARG, Var
from onnxcraft.errors import ArgumentError, BuildError
from onnxcraft.gcpause import gc_paused
from onnxcraft.ir import Model
from onnxcraft.version import __version__

if TYPE_CHECKING:
    # For the annotation only: at run time protobuf loads with the first ModelProto built.
    from onnxcraft.proto import ModelProto

__all__ = ["build", "build_ir"]

_INT64_MAX = 2**63 - 1


def build(
    inputs: Sequence[Var],
    outputs: Mapping[str, Var] | Sequence[Var] | Var,
    *,
    name: str = "main_graph",
    doc_string: str = "",
    opset: int | Mapping[str, int] | None = None,
    ir_version: int | None = None,
    metadata: Mapping[str, str] | None = None,
    producer_name: str = "onnxcraft",
    producer_version: str | None = None,
    model_version: int = 0,
    domain: str = "",
    keep: Sequence[Var] = (),
    value_info: bool = False,
    node_names: bool = False,
    graph_doc_string: str | None = None,
    target_opset: int | Mapping[str, int] | None = None,
) -> ModelProto:
    """Build a ModelProto computing ``outputs`` from ``inputs``.

    ``outputs`` maps graph output names to Vars (a list or a single Var uses the Vars' own
    names). ``opset`` overrides the ai.onnx opset (an int) or any domain's (a mapping).
    ``keep`` lists values whose nodes belong in the graph although no output depends on
    them (only the nodes the outputs need are built otherwise). ``doc_string`` documents the
    model and its graph, unless ``graph_doc_string`` gives the graph's own. ``value_info``
    declares the type of every intermediate value in the graphs (off by default: the file is
    then as small as onnx.helper's, and ``oc.infer_shapes`` recovers the types).
    ``node_names`` names every node (``MatMul0``); off by default, as a node is known by its
    outputs (values are named after their operator: ``matmul0``, constants ``c0``).
    ``target_opset`` (an ai.onnx opset, or a mapping domain -> opset) converts the model built
    to that opset (``oc.convert_version``): write against the newest opset module and ship to
    older runtimes; a node the target cannot express raises ``oc.VersionConversionError``.
    """
    with gc_paused():  # the model's objects all stay alive: collecting would find nothing
        model = build_ir(
            inputs,
            outputs,
            name=name,
            doc_string=doc_string,
            opset=opset,
            ir_version=ir_version,
            metadata=metadata,
            producer_name=producer_name,
            producer_version=producer_version,
            model_version=model_version,
            domain=domain,
            keep=keep,
            value_info=value_info,
            node_names=node_names,
            graph_doc_string=graph_doc_string,
            target_opset=target_opset,
        )
        # Lazy: protobuf is imported when a ModelProto is first made, not by `import onnxcraft`.
        from onnxcraft.proto.serde import model_to_proto  # noqa: PLC0415

        return model_to_proto(model)


def build_ir(
    inputs: Sequence[Var],
    outputs: Mapping[str, Var] | Sequence[Var] | Var,
    *,
    name: str = "main_graph",
    doc_string: str = "",
    opset: int | Mapping[str, int] | None = None,
    ir_version: int | None = None,
    metadata: Mapping[str, str] | None = None,
    producer_name: str = "onnxcraft",
    producer_version: str | None = None,
    model_version: int = 0,
    domain: str = "",
    keep: Sequence[Var] = (),
    value_info: bool = False,
    node_names: bool = False,
    graph_doc_string: str | None = None,
    target_opset: int | Mapping[str, int] | None = None,
) -> Model:
    """Like :func:`build`, returning an :class:`onnxcraft.ir.Model` instead of a ModelProto.

    The IR model holds the arrays given as constants by reference, not copied: saving it
    (``oc.save``) writes them straight from their memory, so a model with gigabytes of weights
    never needs a second copy of them. ``check``, ``infer_shapes``, ``evaluate``, ``inline``
    and ``save`` take it like a ModelProto; ``SerializeToString()`` gives its encoding.
    Arrays changed after the build are saved as they are then.
    """
    output_map = _output_map(outputs)
    input_list = _input_list(inputs)
    texts = {"doc_string": doc_string, "producer_name": producer_name, "domain": domain}
    if producer_version is not None:
        texts["producer_version"] = producer_version
    if graph_doc_string is not None:
        texts["graph_doc_string"] = graph_doc_string
    _check_options(name, metadata, opset, ir_version, texts, model_version)
    if not isinstance(value_info, bool):
        raise ArgumentError(f"build: value_info must be a bool, got {value_info!r}")
    if not isinstance(node_names, bool):
        raise ArgumentError(f"build: node_names must be a bool, got {node_names!r}")
    emitter = GraphEmitter(
        input_list, output_map, _keep_list(keep), value_info=value_info, node_names=node_names
    )
    with gc_paused():  # every object made here is part of the model: nothing to collect
        graph = emitter.top_graph(
            name, doc_string if graph_doc_string is None else graph_doc_string
        )
    opsets = model_opsets(emitter.calls, emitter.uses_constant_node, emitter.identity_types, opset)
    functions = collect_functions(emitter.function_defs)
    merge_function_opsets(opsets, functions)
    opsets = dict(sorted(opsets.items()))
    ir_version = model_ir_version(ir_version, opsets, emitter.feature_ir, functions)
    if producer_version is None:
        producer_version = __version__
    model = Model(
        graph=graph,
        opset_imports=opsets,
        ir_version=ir_version,
        producer_name=producer_name,
        producer_version=producer_version,
        domain=domain,
        model_version=model_version,
        doc_string=doc_string,
        metadata=dict(metadata or {}),
        functions=functions,
    )
    if target_opset is not None:
        model = hooks.convert_model.get()(model, target_opset)
    return model


def _check_options(
    name: object,
    metadata: object,
    opset: object,
    ir_version: object,
    texts: Mapping[str, object],
    model_version: object,
) -> None:
    """The keyword options of build: each of the type (and range) the model stores."""
    if not isinstance(name, str) or not name:
        raise ArgumentError(
            f"build: name must be a non-empty str (IR.md: every graph has a name), got {name!r}"
        )
    check_name("build: name", name)
    for option, text in texts.items():
        check_text(f"build: {option}", text)
    if metadata is not None and not isinstance(metadata, Mapping):
        raise ArgumentError(f"build: metadata must be a dict of str to str, got {metadata!r}")
    for key, value in (metadata or {}).items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise ArgumentError(
                f"build: metadata maps str to str, got {key!r}: {value!r} "
                f"({type(key).__name__}: {type(value).__name__})"
            )
        check_text("build: metadata key", key)
        check_text("build: metadata value", value)
    versions = opset.items() if isinstance(opset, Mapping) else [("", opset)]
    for domain, version in versions if opset is not None else []:
        if not isinstance(domain, str) or not _is_int(version, 1):
            raise ArgumentError(
                f"build: opset must be an int >= 1 (ai.onnx's) or a dict of domain (str) to "
                f"int >= 1, got {opset!r}"
            )
    if ir_version is not None and not _is_int(ir_version, 1):
        raise ArgumentError(f"build: ir_version must be an int >= 1, got {ir_version!r}")
    if not _is_int(model_version, 0):
        raise ArgumentError(f"build: model_version must be an int >= 0, got {model_version!r}")


def _is_int(value: object, minimum: int) -> bool:
    """An int (not a bool) from ``minimum`` up to int64's largest, as the model stores it."""
    return (
        isinstance(value, (int, np.integer))
        and not isinstance(value, (bool, np.bool_))
        and minimum <= int(value) <= _INT64_MAX
    )


def _output_map(outputs: Mapping[str, Var] | Sequence[Var] | Var) -> dict[str, Var]:
    if isinstance(outputs, Var):
        outputs = [outputs]
    if isinstance(outputs, Mapping):
        result = dict(outputs)
    elif isinstance(outputs, Sequence) and not isinstance(outputs, (str, bytes)):
        result = {}
        for i, var in enumerate(outputs):
            if not isinstance(var, Var):
                raise BuildError(f"build: output {i} must be a Var, got {type(var).__name__}")
            if var.name is None:
                raise BuildError(
                    f"build: output {i} has no name; pass outputs as a dict {{name: var}} "
                    f"or name it with var.named(...)"
                )
            result[var.name] = var
    else:
        raise ArgumentError(
            f"build: outputs must be a dict of name to Var, a list of named Vars or a Var, "
            f"got {type(outputs).__name__}"
        )
    if not result:
        raise BuildError("build: a model needs at least one output")
    for key, var in result.items():
        if not isinstance(key, str) or not key:
            raise BuildError(f"build: output names must be non-empty strings, got {key!r}")
        check_name("build: output name", key)
        if not isinstance(var, Var):
            raise BuildError(f"build: output {key!r} must be a Var, got {type(var).__name__}")
    return result


def _keep_list(keep: Sequence[Var]) -> list[Var]:
    if isinstance(keep, Var) or not isinstance(keep, Sequence) or isinstance(keep, (str, bytes)):
        raise ArgumentError(f"build: keep must be a list of Vars, got {type(keep).__name__}")
    result = list(keep)
    for i, var in enumerate(result):
        if not isinstance(var, Var) or var.scope != 0:
            raise BuildError(
                f"build: keep[{i}] must be a Var of the main graph (not of a subgraph body), "
                f"got {var!r}"
            )
    return result


def _input_list(inputs: Sequence[Var]) -> list[Var]:
    if isinstance(inputs, Var):
        inputs = [inputs]
    if not isinstance(inputs, Sequence) or isinstance(inputs, (str, bytes)):
        raise ArgumentError(
            f"build: inputs must be a list of Vars made with oc.arg, got {type(inputs).__name__}"
        )
    result = list(inputs)
    for i, var in enumerate(result):
        if not isinstance(var, Var) or var.kind != ARG or var.scope != 0:
            raise BuildError(
                f"build: input {i} must be a graph input made with oc.arg, got {var!r}"
            )
    seen: set[int] = set()
    for var in result:
        if id(var) in seen:
            raise BuildError(f"build: input {var.name!r} is listed twice")
        seen.add(id(var))
    return result
