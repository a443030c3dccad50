"""The package's layers: each part imports only from the parts below it, and no module imports itself
back through others. Every import counts, lazy ones inside functions and type-checking ones too."""
import ast
from pathlib import Path
from typing import Dict, Set

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "mcts_bot"

# What each part may import from (besides itself). `core` and `knowledge` stand side by side: the
# search reaches Blood Bowl knowledge only through a preset's fields, and knowledge knows no trees.
ALLOWED: Dict[str, Set[str]] = {
    "logs": set(),
    "adapter": {"logs"},
    "core": {"logs", "adapter"},
    "knowledge": {"logs", "adapter"},
    "parallel": {"logs", "adapter", "core"},
    "views": {"logs", "adapter", "core"},
    "presets": {"logs", "adapter", "core", "knowledge"},
    "agent": {"logs", "adapter", "core", "knowledge", "parallel", "presets"},
    "harness": {"logs", "adapter", "core", "knowledge", "parallel", "views", "presets", "agent"},
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> Dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str, path: Path, known: Dict[str, Path]) -> Set[str]:
    """The package's modules that `name` imports, anywhere in its source."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's own package
                package = name.split(".")[:-node.level + (1 if path.name == "__init__.py" else 0) or None]
                base = ".".join(package + ([base] if base else []))
            # `from package import module` imports the module; `from module import name` the module
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        found.update(target for target in targets if target in known and target != name)
    return found


def part_of(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def graph() -> Dict[str, Set[str]]:
    known = modules()
    return {name: imports_of(name, path, known) for name, path in known.items()}


def test_the_package_is_split_into_the_parts_the_layers_name():
    parts = {part_of(name) for name in modules()} - {"__init__"}
    assert parts == set(ALLOWED), "a new part of the package needs its place in ALLOWED (and in the README)"


@pytest.mark.parametrize("name", sorted(modules()))
def test_each_module_imports_only_from_the_layers_below(name):
    if name == "mcts_bot":
        return  # the package's front door re-exports from every layer
    part = part_of(name)
    wrong = sorted(target for target in graph()[name]
                   if part_of(target) != part and part_of(target) not in ALLOWED[part])
    assert not wrong, f"{name} ({part}) imports {wrong}: {part} may import only from {sorted(ALLOWED[part])}"


def test_no_import_cycles():
    imports = {name: targets - {"mcts_bot"} for name, targets in graph().items() if name != "mcts_bot"}
    state: Dict[str, int] = {}  # 1: being visited, 2: done
    cycles = []

    def visit(name: str, path: list) -> None:
        state[name] = 1
        for target in sorted(imports[name]):
            if state.get(target) == 1:
                cycles.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target, path + [target])
        state[name] = 2

    for name in sorted(imports):
        if name not in state:
            visit(name, [name])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(cycle) for cycle in cycles)


def test_the_checker_sees_lazy_and_type_checking_imports(tmp_path):
    # The checks above are only as good as the import finder: it must see imports inside functions
    # and under `if TYPE_CHECKING:`, absolute and relative.
    source = tmp_path / "mcts_bot" / "core" / "probe.py"
    source.parent.mkdir(parents=True)
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mcts_bot.agent import MCTSBot\n"
                      "def f():\n    from ..knowledge import scripted\n    import mcts_bot.logs\n")
    known = {"mcts_bot.agent": Path(), "mcts_bot.knowledge": Path(), "mcts_bot.knowledge.scripted": Path(),
             "mcts_bot.logs": Path(), "mcts_bot.core.probe": source}
    assert imports_of("mcts_bot.core.probe", source, known) == {
        "mcts_bot.agent", "mcts_bot.knowledge.scripted", "mcts_bot.logs"}
