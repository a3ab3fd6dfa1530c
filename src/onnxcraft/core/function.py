"""``@oc.function(domain, name)``: a Python function as an ONNX FunctionProto.

Calling the decorated function emits one node of ``domain::name``; a model using it carries the
FunctionProto (traced from the Python body once, on the first call) and an opset import for the
domain. Keyword-only parameters become function attributes: inside the body they are
:class:`AttrRef` values, which operators record as references (``ref_attr_name``) while shape
inference sees the value of the call being traced.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from onnxcraft.core.emit import emit_node
from onnxcraft.core.emit_function import function_body_key, function_ir
from onnxcraft.core.function_ref import AttrRef
from onnxcraft.core.graphwalk import collect
from onnxcraft.core.opinfo import SINGLE, FormalInfo, OpInfo
from onnxcraft.core.scope import new_scope
from onnxcraft.core.var import ARG, Body, Var
from onnxcraft.errors import BuildError
from onnxcraft.types import ValueType

__all__ = ["AttrRef", "FunctionDef", "function"]


class FunctionDef:
    """A traced-on-first-call ONNX function; calling it emits a node."""

    def __init__(self, fn: Callable[..., Any], domain: str, name: str, version: int) -> None:
        self.fn = fn
        self.domain = domain
        self.name = name
        self.version = version
        signature = inspect.signature(fn)
        self.input_names: list[str] = []
        self.attribute_defaults: dict[str, Any] = {}
        for param in signature.parameters.values():
            if param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
                self.input_names.append(param.name)
            elif param.kind == param.KEYWORD_ONLY:
                self.attribute_defaults[param.name] = (
                    None if param.default is inspect.Parameter.empty else param.default
                )
            else:
                raise BuildError(
                    f"@function {name}: *args/**kwargs are not supported; inputs are positional "
                    f"parameters and attributes keyword-only ones"
                )
        self.body: Body | None = None
        self.attribute_names: list[str] = list(self.attribute_defaults)
        self.traced_types: list[ValueType | None] | None = None
        self.inputs = tuple(FormalInfo(n, SINGLE, None, ()) for n in self.input_names)
        functools.update_wrapper(self, fn)

    def _trace(self, types: list[ValueType | None], attrs: dict[str, Any]) -> Body:
        refs = {k: AttrRef(k, v) for k, v in attrs.items()}
        with new_scope(function=True) as scope:
            args = [Var(t, kind=ARG, scope=scope, name=n) for t, n in zip(types, self.input_names)]
            result = self.fn(*args, **refs)
            outputs = [result] if isinstance(result, Var) else list(result)
            for i, out in enumerate(outputs):
                if not isinstance(out, Var):
                    raise BuildError(
                        f"@function {self.name}: output {i} must be a Var, got {type(out).__name__}"
                    )
        body = Body(args, outputs, scope, self.name)
        captured = collect(body.outputs, body.scope).captures
        if captured:
            raise BuildError(
                f"function {self.name}: its body uses {captured[0]!r} from outside; a function "
                f"sees only its inputs (make the value an input)"
            )
        return body

    def __call__(self, *inputs: Any, **attributes: Any) -> Any:
        values = self._check_call(inputs, attributes)
        types = [v.type if isinstance(v, Var) else None for v in inputs]
        body = self._trace(types, values)
        if self.body is None:
            self.body = body
            self.traced_types = types
        elif types != self.traced_types:
            self._check_same_body(body, types)
        out_types = [v.type for v in body.outputs]
        # The operator of this call: typed by the body traced for it, written as a call of
        # this function's FunctionProto.
        op = OpInfo(
            self.domain,
            self.name,
            self.version,
            inputs=self.inputs,
            outputs=tuple(
                FormalInfo(f"output_{i}", SINGLE, None, ()) for i in range(len(body.outputs))
            ),
            attributes={},
            custom=True,
            custom_rule=lambda ctx: out_types,
            function=self,
        )
        # Every call site carries every attribute, defaults included: the FunctionProto
        # declares them without defaults (those would need IR 9), and a reference to an
        # attribute the call leaves out would leave its node without a value.
        outputs = emit_node(op, self.version, inputs, values)
        return outputs[0] if len(outputs) == 1 else outputs

    def _check_call(self, inputs: tuple[Any, ...], attributes: dict[str, Any]) -> dict[str, Any]:
        """The call's attribute values (defaults filled in), after checking its arguments."""
        if len(inputs) != len(self.input_names):
            raise BuildError(
                f"{self.name}: expected {len(self.input_names)} inputs "
                f"({', '.join(self.input_names)}), got {len(inputs)}"
            )
        unknown = [k for k in attributes if k not in self.attribute_defaults]
        if unknown:
            raise BuildError(
                f"{self.name}: unknown attribute(s) {unknown}; attributes: {self.attribute_names}"
            )
        values = {**self.attribute_defaults, **attributes}
        missing = [k for k, v in values.items() if v is None]
        if missing:
            raise BuildError(f"{self.name}: missing required attribute(s) {missing}")
        return values

    def _check_same_body(self, body: Body, types: list[ValueType | None]) -> None:
        """One FunctionProto serves every call: a call whose types change the body is an error."""
        assert self.body is not None
        if function_body_key(self, body) != function_body_key(self, self.body):
            first = ", ".join(str(t) for t in self.traced_types or [])
            now = ", ".join(str(t) for t in types)
            raise BuildError(
                f"{self.name}: called with input types ({now}), for which the body traces "
                f"differently than for the first call's ({first}); one FunctionProto serves "
                f"every call: make the body type-generic (e.g. op.CastLike for constants) or "
                f"define one function per type"
            )

    def to_ir(self) -> Any:
        if self.body is None:
            raise BuildError(f"function {self.name} was never called, so it has no body")
        return function_ir(self)


def function(
    domain: str, name: str | None = None, *, version: int = 1
) -> Callable[[Callable[..., Any]], FunctionDef]:
    """Decorator: turn a Python function into an ONNX function of ``domain``."""
    if not isinstance(domain, str) or not domain or domain in ("ai.onnx",):
        raise BuildError(f"function: domain must be a custom domain name, got {domain!r}")

    def decorate(fn: Callable[..., Any]) -> FunctionDef:
        return FunctionDef(fn, domain, name or fn.__name__, version)

    return decorate
