"""An AST scan of the suite: test functions whose every assertion sits inside a loop, with none
outside it, pass when the loop runs zero times. Each must check that the loop ran."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

LOOPS = (ast.For, ast.AsyncFor, ast.While)


CDK_ASSERTIONS = ("resource_count_is", "has_resource", "all_resources", "has_output", "has_mapping", "has_condition")


def surely_runs(loop: ast.AST) -> bool:
    """A loop over a non-empty literal (tuple/list/set/dict display, with ``.items()`` and the like,
    or with a starred part next to a plain element) or over ``range(k)`` with a constant k > 0."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    it = loop.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr in {"items", "values", "keys"}:
        it = it.func.value
    if isinstance(it, (ast.Tuple, ast.List, ast.Set)):
        return any(not isinstance(e, ast.Starred) for e in it.elts)
    if isinstance(it, ast.Dict):
        return bool(it.keys)
    if isinstance(it, ast.Call) and ast.unparse(it.func) == "range" and len(it.args) == 1:
        arg = it.args[0]
        return isinstance(arg, ast.Constant) and isinstance(arg.value, int) and arg.value > 0
    return False


HELPERS: set[str] = set()  # the current file's module-level functions that assert


def _is_check(node: ast.AST) -> bool:
    """An assert, a pytest.raises/fail block, a CDK assertion, or a call to a helper of the file that asserts."""
    if isinstance(node, ast.Assert):
        return True
    if isinstance(node, ast.Call):
        name = ast.unparse(node.func)
        return (name in HELPERS or name.startswith(("pytest.raises", "pytest.fail", "_assert", "assert")) or ".assert_" in name
                or name.rpartition(".")[2].startswith(CDK_ASSERTIONS))
    return False


def _checks(node: ast.AST, in_loop: bool = False) -> Iterator[bool]:
    """For each check under ``node``: whether it runs only if some loop that may run zero times does."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue  # a nested helper's checks run only if it is called
        if _is_check(child):
            yield in_loop
        if isinstance(child, LOOPS):
            inside = in_loop or not surely_runs(child)
            for stmt in child.body:
                yield from _checks(ast.Module(body=[stmt], type_ignores=[]), inside)
            yield from _checks(ast.Module(body=child.orelse, type_ignores=[]), in_loop)
            head = child.iter if isinstance(child, (ast.For, ast.AsyncFor)) else child.test
            yield from _checks(ast.Module(body=[ast.Expr(head)], type_ignores=[]), in_loop)
        else:
            yield from _checks(child, in_loop)


def loop_only_tests(root: Path) -> list[str]:
    """``path:line name`` of every test whose checks are all inside loops."""
    out: list[str] = []
    for path in sorted(root.rglob("test_*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        HELPERS.clear()
        HELPERS.update(
            f.name for f in tree.body
            if isinstance(f, ast.FunctionDef) and not f.name.startswith("test") and any(isinstance(n, ast.Assert) for n in ast.walk(f))
        )
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                where = list(_checks(node))
                if where and all(where):
                    out.append(f"{path.relative_to(root.parent)}:{node.lineno} {node.name}")
    return out


if __name__ == "__main__":
    for line in loop_only_tests(Path(__file__).resolve().parents[1]):
        print(line)
