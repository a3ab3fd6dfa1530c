"""Generating the opset modules of the standard domains, and checking they are fresh."""

from __future__ import annotations

from pathlib import Path

from onnxcraft.codegen.generator import HEADER, ModuleSource, generate_module
from onnxcraft.specs.registry import SpecRegistry, default_registry

__all__ = ["STANDARD_DOMAINS", "generate_standard", "module_path", "write_modules", "stale_modules"]

# Domains generated into onnxcraft.opset, with the folder each lives in.
STANDARD_DOMAINS = ("", "ai.onnx.ml", "ai.onnx.preview.training", "ai.onnx.preview")

OPSET_PACKAGE_DIR = Path(__file__).resolve().parent.parent / "opset"


def module_path(domain: str) -> str:
    """Folder of a domain's modules, relative to the opset package ('' is ai.onnx)."""
    return (domain or "ai.onnx").replace(".", "/")


def generate_domain(
    domain: str, folder: str, registry: SpecRegistry | None = None
) -> list[ModuleSource]:
    """One self-contained module per opset of ``domain``."""
    registry = registry or default_registry()
    sources: list[ModuleSource] = []
    for opset in range(1, registry.max_opset(domain) + 1):
        names = registry.ops_at(domain, opset)
        here = [registry.get(name, domain, opset) for name in names]
        source = generate_module(
            domain=domain,
            opset=opset,
            specs_here=here,
            relative_path=f"{folder}/v{opset}.py",
        )
        sources.append(source)
    return sources


def _package_inits(sources: list[ModuleSource]) -> list[ModuleSource]:
    folders: dict[str, list[str]] = {}
    for source in sources:
        parts = source.relative_path.split("/")
        for depth in range(len(parts)):
            folder = "/".join(parts[:depth])
            folders.setdefault(folder, [])
        folders["/".join(parts[:-1])].append(parts[-1][:-3])
    inits = []
    for folder, modules in sorted(folders.items()):
        label = folder.replace("/", ".") or "onnxcraft.opset"
        if modules:
            versions = sorted(int(m[1:]) for m in modules)
            doc = (
                f'"""Opset modules of {label}: v{versions[0]} … v{versions[-1]}; import the '
                f"one you target, e.g. ``from onnxcraft.opset.{label} import v{versions[-1]} "
                f'as op``."""\n'
            )
        else:
            doc = f'"""Namespace package of the generated {label} opset modules."""\n'
        path = f"{folder}/__init__.py" if folder else "__init__.py"
        inits.append(ModuleSource(path, HEADER + doc, ()))
    return inits


def generate_standard() -> list[ModuleSource]:
    sources: list[ModuleSource] = []
    for domain in STANDARD_DOMAINS:
        sources.extend(generate_domain(domain, module_path(domain)))
    return sources + _package_inits(sources)


def write_modules(sources: list[ModuleSource], root: Path) -> list[Path]:
    """Write every module under ``root`` and delete generated files no longer produced."""
    written = []
    wanted = {root / s.relative_path for s in sources}
    for path in root.rglob("*.py"):
        if path not in wanted and path.read_text(encoding="utf-8").startswith(HEADER):
            path.unlink()
    for source in sources:
        path = root / source.relative_path
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != source.text:
            path.write_text(source.text, encoding="utf-8")
            written.append(path)
    return written


def stale_modules(sources: list[ModuleSource], root: Path) -> list[str]:
    """Relative paths whose file differs from what the generator produces (or is extra)."""
    stale = []
    wanted = {s.relative_path for s in sources}
    for source in sources:
        path = root / source.relative_path
        if not path.exists() or path.read_text(encoding="utf-8") != source.text:
            stale.append(source.relative_path)
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).as_posix()
        if rel not in wanted and path.read_text(encoding="utf-8").startswith(HEADER):
            stale.append(rel + " (no longer generated)")
    return stale
