"""Import cycles between modules: an import-linter contract, and a command that lists them.

A cycle is a group of modules that reach one another through imports (a strongly connected
group of the import graph), counting imports under ``TYPE_CHECKING`` and inside functions.
``lint-imports`` keeps the contract ``no_module_cycles`` (see ``[tool.importlinter]`` in
``pyproject.toml``); ``.venv/bin/python scripts/import_cycles.py band band_server`` prints the
cycles of those packages, one line each, and exits 1 when there is any.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Mapping

import grimp
from importlinter.application import output
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck


def cycles(imports: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The groups of two or more modules that import one another (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(imports):
        if root in index:
            continue
        work = [(root, iter(sorted(imports[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in imports:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(imports[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
    return sorted(found)


def graph_cycles(graph: grimp.ImportGraph, packages: Iterable[str]) -> list[list[str]]:
    """The cycles among the modules of ``packages`` (imports leaving them do not count)."""
    roots = tuple(packages)
    inside = {m for m in graph.modules if m in roots or m.startswith(tuple(r + "." for r in roots))}
    return cycles({m: graph.find_modules_directly_imported_by(m) & inside for m in inside})


class NoModuleCycles(Contract):
    """``type = no_module_cycles``: no module of ``packages`` imports itself back."""

    type_name = "no_module_cycles"
    packages = fields.ListField(subfield=fields.StringField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        found = graph_cycles(graph, self.packages)  # type: ignore[arg-type]
        return ContractCheck(kept=not found, metadata={"cycles": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        found = check.metadata["cycles"]
        output.print_error(f"{len(found)} import cycles (modules that import one another):")
        output.new_line()
        for group in found:
            output.print_error(f"- {', '.join(group)}", bold=False)
        output.new_line()
        output.print("Break each with a small module of the shared types or a Protocol.")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="+", help="top-level packages, e.g. band band_server")
    args = parser.parse_args()
    graph = grimp.build_graph(*args.packages, exclude_type_checking_imports=False, cache_dir=None)
    found = graph_cycles(graph, args.packages)
    print(f"{len(found)} import cycles in {', '.join(args.packages)}")
    for group in found:
        print(f"  {len(group)} modules: {', '.join(group)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
