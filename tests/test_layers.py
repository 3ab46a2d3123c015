"""The house rules of docs/architecture.md, checked on the code's own imports: no circle, and nothing
imports against the pipeline (front ends never import back ends, back ends never import learners,
only ``__main__`` imports the CLI)."""
import ast
import os

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "treegen")
FORBIDDEN = [("treegen.learn", "treegen.emit"), ("treegen.emit", "treegen.learn"),
             ("treegen.verifier", "treegen.learn"), ("treegen.importers", "treegen.emit"),
             ("treegen.parse", "treegen.emit"), ("treegen.model", "treegen.")]
ONLY = {"treegen.cli": {"treegen.__main__"}}  # a module -> the only modules that may import it


def modules() -> dict[str, str]:
    """Module name -> file path, for every module of the package."""
    found = {}
    for folder, _, files in os.walk(ROOT):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                parts = os.path.relpath(path, os.path.dirname(ROOT))[:-3].split(os.sep)
                found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: str, known: set[str]) -> set[str]:
    """The package's modules that a module imports, at any depth in the file (lazy imports count)."""
    package = name if path.endswith("__init__.py") else name.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                out.add(candidate if candidate in known else base)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return {m for m in out if m in known and m != name}


def graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imports(name, path, set(found)) for name, path in found.items()}


def test_no_circles():
    edges = graph()
    state: dict[str, int] = {}
    for start in edges:  # iterative depth-first search; a grey node met again closes a circle
        stack = [(start, iter(sorted(edges[start])))]
        if state.get(start):
            continue
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                path = [n for n, _ in stack]
                raise AssertionError("import circle: " + " -> ".join(path[path.index(child):] + [child]))
            elif not state.get(child):
                state[child] = 1
                stack.append((child, iter(sorted(edges[child]))))


def test_imports_follow_the_pipeline():
    wrong = []
    for source, targets in graph().items():
        for target in targets:
            for lower, upper in FORBIDDEN:
                if (source == lower or source.startswith(lower + ".")) and target.startswith(upper):
                    # the model's own arithmetic, and the error a user's input raises (errors imports nothing)
                    if not (lower == "treegen.model" and target in ("treegen.arithmetic", "treegen.errors")):
                        wrong.append(f"{source} imports {target}")
            if target in ONLY and source not in ONLY[target]:
                wrong.append(f"{source} imports {target}")
    assert not wrong, wrong


def test_the_tables_name_modules_that_give_what_they_say():
    """The tables of targets, importers and learners name their modules (imported on first use, so
    the import graph above does not see these edges): every name resolves, to the layer it belongs to."""
    from treegen.importers import IMPORTERS
    from treegen.learn import ALGORITHMS, learner
    from treegen.targets import TARGETS
    for target in TARGETS.values():
        assert target.emit.__module__ == f"treegen.emit.{target.emitter}" and callable(target.emit)
        assert target.run is None or target.run.__module__ == f"treegen.run.{target.runner}"
        assert all(callable(make) for _, make in target.companions)
        assert target.computed is None or callable(target.computed)
        assert all(option.choice_names() for option in target.options if option.choices)
    for importer in IMPORTERS.values():
        assert all(f.__module__.startswith("treegen.importers.")
                   for f in (importer.recognises, importer.read, importer.convert, importer.oracle))
    assert all(learner(name).__module__ == f"treegen.learn.{name}" for name in ALGORITHMS)
