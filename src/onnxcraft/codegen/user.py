"""Typed operator functions for users' own spec folders: at run time, or as package modules.

A user spec folder has the layout of ``opset_specs/``: one sub-folder per domain, one JSON file
per operator. Two ways to get functions from it:

- :func:`load_opset` registers the folder and returns a module object, built in memory from the
  same generated source as the standard opset modules (no files written, no static types).
- :func:`generate_user_package` produces the source files of a package — one module per domain
  and opset, plus a copy of the spec files that the package registers when it is imported — so
  that type checkers and IDEs see typed signatures (``python -m onnxcraft.codegen --specs``).
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

from onnxcraft.codegen.generator import HEADER, ModuleSource, generate_module
from onnxcraft.codegen.standard import generate_domain, stale_modules, write_modules
from onnxcraft.errors import SpecError
from onnxcraft.specs.registry import SpecRegistry, default_registry

__all__ = [
    "SPEC_COPY_FOLDER",
    "generate_user_package",
    "load_opset",
    "stale_user_files",
    "write_user_package",
]

# Where a generated user package keeps its copy of the spec files, relative to its root.
SPEC_COPY_FOLDER = "_specs"


def _user_domains(root: Path) -> list[str]:
    """Domains of a user spec folder, registering the folder with the default registry."""
    domains = default_registry().add_folder(root)
    if not domains:
        raise SpecError(f"spec folder {root} holds no spec files (expected <domain>/<Op>.json)")
    return domains


def _pick_domain(root: Path, domains: list[str], domain: str | None) -> str:
    if domain is None:
        if len(domains) > 1:
            raise SpecError(
                f"spec folder {root} defines several domains ({', '.join(domains)}): "
                f"pass domain= to say which one"
            )
        return domains[0]
    if domain not in domains:
        raise SpecError(
            f"spec folder {root} has no domain {domain!r}; it defines {', '.join(domains)}"
        )
    return domain


def load_opset(
    path: str | Path, *, domain: str | None = None, opset: int | None = None
) -> types.ModuleType:
    """Typed functions for the operators of a user spec folder, built at run time.

    ``domain`` selects one domain of the folder (needed only when it defines several);
    ``opset`` the version (default: the domain's highest). The result is a module whose
    functions behave exactly like those of ``onnxcraft.opset.ai.onnx.vN``: positional inputs,
    keyword-only typed attributes with the spec's defaults, and a docstring per operator.
    """
    root = Path(path)
    chosen = _pick_domain(root, _user_domains(root), domain)
    registry = default_registry()
    newest = registry.max_opset(chosen)
    version = newest if opset is None else int(opset)
    if not 1 <= version <= newest:
        raise SpecError(f"domain {chosen!r} has opsets 1 to {newest}, not {version}")
    here = [registry.get(name, chosen, version) for name in registry.ops_at(chosen, version)]
    name = f"onnxcraft.opset.user.{chosen.replace('.', '_')}.v{version}"
    source = generate_module(
        domain=chosen,
        opset=version,
        specs_here=here,
        relative_path=f"{name}.py",
    )
    module = types.ModuleType(name, f"{chosen} operators at opset {version}, from {root}")
    module.__file__ = f"<onnxcraft.load_opset {root}>"
    # Registered under its name so that NamedTuple results and pickling find the module.
    sys.modules[name] = module
    exec(compile(source.text, module.__file__, "exec"), module.__dict__)
    return module


def _package_init(package: str, label: str, versions: list[int] | None) -> str:
    if versions:
        doc = (
            f'"""Opset modules of {label}: v{versions[0]} … v{versions[-1]}; import the one '
            f'you target, e.g. ``from {package} import v{versions[-1]} as op``."""\n'
        )
    else:
        doc = f'"""Namespace package of the generated {label} opset modules."""\n'
    return HEADER + doc


def _root_init(package: str) -> str:
    return (
        HEADER
        + f'"""Generated opset modules of {package}; importing it registers the specs."""\n\n'
        + "from pathlib import Path as _Path\n\n"
        + "from onnxcraft import specs as _specs\n\n"
        + f'_specs.add_folder(_Path(__file__).resolve().parent / "{SPEC_COPY_FOLDER}")\n'
    )


def generate_user_package(spec_root: str | Path, package: str) -> list[ModuleSource]:
    """Every file of a generated package for the spec folder ``spec_root``.

    ``package`` is the dotted name the output folder is imported as (``mypkg.ops``). The
    result holds ``__init__.py`` (registers the copied specs on import), a copy of every spec
    file under ``_specs/``, and ``<domain as folders>/vN.py`` for every opset of every domain.
    """
    root = Path(spec_root)
    if not root.is_dir():
        raise SpecError(f"spec folder {root} does not exist")
    registry = SpecRegistry()
    domains = registry.add_folder(root)
    if not domains:
        raise SpecError(f"spec folder {root} holds no spec files (expected <domain>/<Op>.json)")
    # The generated functions resolve operators through the default registry at run time.
    default_registry().add_folder(root)
    files: list[ModuleSource] = [ModuleSource("__init__.py", _root_init(package), ())]
    for path in sorted(root.rglob("*.json")):
        rel = path.relative_to(root).as_posix()
        files.append(ModuleSource(f"{SPEC_COPY_FOLDER}/{rel}", path.read_text("utf-8"), ()))
    folders: dict[str, list[int]] = {}
    for domain in domains:
        folder = domain.replace(".", "/")
        modules = generate_domain(domain, folder, registry)
        files.extend(modules)
        parts = folder.split("/")
        for depth in range(1, len(parts)):
            folders.setdefault("/".join(parts[:depth]), [])
        folders[folder] = list(range(1, len(modules) + 1))
    for folder, versions in sorted(folders.items()):
        label = folder.replace("/", ".")
        init = _package_init(f"{package}.{label}", label, versions)
        files.append(ModuleSource(f"{folder}/__init__.py", init, ()))
    return files


def _copied_specs(out: Path) -> set[Path]:
    folder = out / SPEC_COPY_FOLDER
    return set(folder.rglob("*.json")) if folder.is_dir() else set()


def write_user_package(files: list[ModuleSource], out: Path) -> list[Path]:
    """Write a generated package; generated files no longer produced are removed."""
    wanted = {out / f.relative_path for f in files}
    for path in _copied_specs(out) - wanted:
        path.unlink()
    return write_modules(files, out)


def stale_user_files(files: list[ModuleSource], out: Path) -> list[str]:
    """Relative paths of a generated package that differ from what the generator produces."""
    wanted = {out / f.relative_path for f in files}
    extra = sorted(p.relative_to(out).as_posix() for p in _copied_specs(out) - wanted)
    return stale_modules(files, out) + [f"{rel} (no longer generated)" for rel in extra]
