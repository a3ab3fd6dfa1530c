"""A kernel table that runs one operator version through its function body."""

from __future__ import annotations

from onnxcraft.evaluate.kernels import default_registry
from onnxcraft.ops.kernel_api import KernelEntry, KernelRegistry


class BodyInstead(KernelRegistry):
    """The default kernels, less the one of the operator version ``key``: the evaluator then
    runs that version's function body."""

    def __init__(self, key: tuple[str, str, int]) -> None:
        super().__init__()
        self._key = key
        self._base = default_registry()

    def lookup(self, domain: str, op_type: str, since_version: int) -> KernelEntry | None:
        if (domain, op_type, since_version) == self._key:
            return None
        return self._base.lookup(domain, op_type, since_version)
