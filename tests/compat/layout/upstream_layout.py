"""Enumerates band-sdk's public module layout; run by the band-sdk 6.0.1 venv's interpreter.

``python upstream_layout.py OUT.json`` walks the installed ``band`` package and writes, for
every public module (no ``_``-prefixed part in its dotted path), the names it exports (its
``__all__``, else its public top-level classes and functions, read from the source) and, for
each name, what ``describe.py`` makes of it: its kind, call signature, enum members or
constant value.

Modules that need an optional extra are imported twice: first as they are, to record how they
fail without the extra (the missing module, the message), then with every missing third-party
module replaced by a permissive stand-in, so that band-sdk's own classes and functions load
and ``inspect.signature`` reads them. Nothing of band-sdk is copied: the output is facts.
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import sys
import types
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from describe import describe


def public_modules(root: Path) -> dict[str, Path]:
    """Dotted module path -> source file, for every public module of the package at root."""
    found: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not any(part.startswith("_") for part in parts):
            found[".".join(parts)] = path
    return found


def exported_names(source: Path) -> tuple[list[str], str]:
    """The module's ``__all__`` when it is a literal, else its public top-level defs."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            assert node.value is not None
            return list(ast.literal_eval(node.value)), "__all__"
    defs = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    names = [n.name for n in tree.body if isinstance(n, defs) and not n.name.startswith("_")]
    return names, "defs"


class _Stub(type):
    """A stand-in for anything a missing library would have provided.

    Stub classes can be subclassed, called, subscripted, decorated with and read from;
    their metaclass is ``type``'s subclass so that mixing them into other classes works.
    """

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _stub_class(f"{cls.__name__}.{name}")

    def __getitem__(cls, item: Any) -> Any:
        return cls

    def __or__(cls, other: Any) -> Any:
        return cls

    def __ror__(cls, other: Any) -> Any:
        return cls

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        # Used as a decorator: hand the decorated object back unchanged.
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return super().__call__()


class _StubInstance:
    """What calling a stand-in class returns: itself callable (a decorator factory's result)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return _StubInstance()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _StubInstance()


def _any_schema(cls: Any, source: Any, handler: Any) -> Any:
    from pydantic_core import core_schema

    return core_schema.any_schema()


def _stub_class(name: str) -> Any:
    namespace = {
        "__module__": "stub",
        "__qualname__": name,
        "__get_pydantic_core_schema__": classmethod(_any_schema),
    }
    return _Stub(name.rsplit(".", 1)[-1], (_StubInstance,), namespace)


class _StubModule(types.ModuleType):
    __path__: list[str] = []

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = _stub_class(f"{self.__name__}.{name}")
        setattr(self, name, value)
        return value


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds, last of all finders, every module nothing else can: a stub module."""

    def __init__(self) -> None:
        self.stubbed: set[str] = set()

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname.split(".")[0] == "band":
            return None
        self.stubbed.add(fullname.split(".")[0])
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: Any) -> types.ModuleType:
        module = _StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        return None


def _forget_band_modules(keep: set[str]) -> None:
    for name in list(sys.modules):
        if (name == "band" or name.startswith("band.")) and name not in keep:
            del sys.modules[name]


def main(out: str) -> int:
    spec = importlib.util.find_spec("band")
    assert spec is not None and spec.submodule_search_locations
    root = Path(next(iter(spec.submodule_search_locations)))
    modules = public_modules(root)
    failures: dict[str, dict[str, str]] = {}
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as exc:
            missing = getattr(exc, "name", None) if isinstance(exc, ImportError) else None
            failures[name] = {"error": type(exc).__name__, "message": str(exc)[:400]}
            if missing:
                failures[name]["missing"] = missing
    # Second pass: the modules that failed, with every missing library stubbed.
    finder = _StubFinder()
    sys.meta_path.append(finder)
    importable = {n for n in modules if n not in failures and n in sys.modules}
    _forget_band_modules(importable)
    loaded: dict[str, types.ModuleType] = {}
    for name in modules:
        try:
            loaded[name] = importlib.import_module(name)
        except Exception as exc:
            failures.setdefault(name, {})["stubbed_error"] = f"{type(exc).__name__}: {exc}"[:400]
    layout: dict[str, Any] = {}
    for name, source in modules.items():
        names, origin = exported_names(source)
        module = loaded.get(name)
        entry: dict[str, Any] = {"origin": origin, "names": {}}
        if name in failures:
            entry["without_extra"] = failures[name]
        for export in names:
            if module is None:
                entry["names"][export] = {"kind": "unknown"}
                continue
            try:
                value = getattr(module, export)
            except Exception as exc:
                entry["names"][export] = {"kind": "unresolved", "error": repr(exc)[:200]}
                continue
            entry["names"][export] = describe(value, stubbed=name in failures)
        layout[name] = entry
    Path(out).write_text(json.dumps(layout, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
