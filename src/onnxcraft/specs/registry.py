"""The spec registry: every operator version, found lazily, and version resolution.

The standard specs are read from the spec root on first use of each operator. User spec folders
(``oc.load_opset``) are added with :meth:`SpecRegistry.add_folder`. Version resolution — the
latest since_version at or below an opset — is :meth:`SpecRegistry.resolve`, used everywhere.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Iterator
from pathlib import Path

from onnxcraft.errors import SpecError
from onnxcraft.specs.loader import default_spec_root, load_file
from onnxcraft.specs.model import OpSpec

__all__ = ["SpecRegistry", "default_registry", "normalize_domain"]


def normalize_domain(domain: str) -> str:
    return "" if domain in ("", "ai.onnx") else domain


class SpecRegistry:
    def __init__(self) -> None:
        self._files: dict[tuple[str, str], tuple[Path, Path]] = {}  # (domain, op) -> (file, root)
        self._loaded: dict[tuple[str, str], tuple[OpSpec, ...]] = {}
        self._max_opset: dict[str, int] = {}
        self._standard: set[str] = set()

    def add_folder(self, root: str | os.PathLike[str], *, standard: bool = False) -> list[str]:
        """Register every spec file under ``root`` (one sub-folder per domain)."""
        root = Path(root).resolve()
        if not root.is_dir():
            raise SpecError(f"spec folder {root} does not exist")
        domains_file = root / "domains.json"
        declared: dict[str, int] = {}
        if domains_file.is_file():
            declared = {
                normalize_domain(k): int(v) for k, v in json.loads(domains_file.read_text()).items()
            }
        found = []
        for folder in sorted(p for p in root.iterdir() if p.is_dir()):
            domain = normalize_domain(folder.name)
            files = sorted(folder.glob("*.json"))
            if not files:
                continue
            if not standard and domain in self._standard:
                raise SpecError(
                    f"spec folder {root}: {folder.name!r} is a standard domain shipped with "
                    f"onnxcraft; give your operators a domain of your own (e.g. 'com.example')"
                )
            found.append(domain)
            for path in files:
                self._files[(domain, path.stem)] = (path, root)
                self._loaded.pop((domain, path.stem), None)
            if domain in declared:
                self._max_opset[domain] = declared[domain]
            if standard:
                self._standard.add(domain)
        return found

    def user_folders(self) -> list[Path]:
        """The folders registered besides the standard specs (``oc.load_opset``, add_folder)."""
        return sorted(
            {root for (d, _), (_, root) in self._files.items() if d not in self._standard}
        )

    def remove_folder(self, root: str | os.PathLike[str]) -> list[str]:
        """Forget the operators registered from ``root`` (a user folder); returns their domains."""
        root = Path(root).resolve()
        keys = [key for key, (_, source) in self._files.items() if source == root]
        domains = sorted({domain for domain, _ in keys})
        for key in keys:
            del self._files[key]
            self._loaded.pop(key, None)
        for domain in domains:
            if not any(d == domain for d, _ in self._files):
                self._max_opset.pop(domain, None)
        return domains

    # -- lookups ----------------------------------------------------------------------------------

    def versions_of(self, domain: str, op_type: str) -> tuple[OpSpec, ...]:
        key = (normalize_domain(domain), op_type)
        loaded = self._loaded.get(key)
        if loaded is None:
            entry = self._files.get(key)
            if entry is None:
                raise self._unknown(key[0], op_type)
            loaded = load_file(*entry)
            self._loaded[key] = loaded
        return loaded

    def _unknown(self, domain: str, op_type: str) -> SpecError:
        if not any(d == domain for d, _ in self._files):
            known = sorted({d or "ai.onnx" for d, _ in self._files})
            return SpecError(f"unknown domain {domain!r}; known domains: {', '.join(known)}")
        names = [n for d, n in self._files if d == domain]
        close = difflib.get_close_matches(op_type, names, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        return SpecError(f"no operator {op_type!r} in domain {domain or 'ai.onnx'!r}{hint}")

    def resolve(self, domain: str, op_type: str, opset: int) -> OpSpec | None:
        """The version in force at ``opset``: the latest since_version <= opset."""
        best = None
        for spec in self.versions_of(domain, op_type):
            if spec.since_version <= opset:
                best = spec
            else:
                break
        return best

    def get(self, op_type: str, domain: str = "", opset: int | None = None) -> OpSpec:
        versions = self.versions_of(domain, op_type)
        if opset is None:
            return versions[-1]
        spec = self.resolve(domain, op_type, opset)
        if spec is None:
            raise SpecError(
                f"{op_type} does not exist at {normalize_domain(domain) or 'ai.onnx'} opset "
                f"{opset}: its first version is {versions[0].since_version}"
            )
        return spec

    def has(self, domain: str, op_type: str) -> bool:
        return (normalize_domain(domain), op_type) in self._files

    def op_names(self, domain: str) -> list[str]:
        domain = normalize_domain(domain)
        return sorted(n for d, n in self._files if d == domain)

    def ops_at(self, domain: str, opset: int) -> list[str]:
        """Names of the operators valid at ``opset``: existing there and not deprecated."""
        result = []
        for name in self.op_names(domain):
            spec = self.resolve(domain, name, opset)
            if spec is not None and not spec.deprecated:
                result.append(name)
        return result

    def domains(self) -> list[str]:
        return sorted({d for d, _ in self._files})

    def is_standard_domain(self, domain: str) -> bool:
        """True for a domain whose specs are known (shipped, or added from a user folder)."""
        return normalize_domain(domain) in self.domains()

    def max_opset(self, domain: str) -> int:
        domain = normalize_domain(domain)
        if domain not in self._max_opset:
            newest = [self.versions_of(domain, n)[-1].since_version for n in self.op_names(domain)]
            if not newest:
                raise SpecError(f"unknown domain {domain!r}")
            self._max_opset[domain] = max(newest)
        return self._max_opset[domain]

    def is_standard(self, domain: str) -> bool:
        return normalize_domain(domain) in self._standard

    def schemas(self) -> Iterator[OpSpec]:
        for domain, name in sorted(self._files):
            yield from self.versions_of(domain, name)


_default: SpecRegistry | None = None


def default_registry() -> SpecRegistry:
    """The registry of the standard specs (created on first use)."""
    global _default
    if _default is None:
        registry = SpecRegistry()
        registry.add_folder(default_spec_root(), standard=True)
        _default = registry
    return _default
