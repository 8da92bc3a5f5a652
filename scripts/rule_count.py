"""How many hand-written rules the answer layer holds: regular expressions compiled and
words listed in literal sets, lists, tuples, dicts and ``"...".split()`` calls, per module
of ``retrieval/``, and the words of its data files (``*.toml``: word lists kept as facts),
and in all. Pruning should make both numbers go down, not up.

    .venv/bin/python scripts/rule_count.py [retrieval]
"""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _exports(node: ast.AST) -> set[int]:
    """The ids of the ``__all__`` lists: names a package exports, not words it reads."""
    return {
        id(sub.value)
        for sub in ast.walk(node)
        if isinstance(sub, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "__all__" for t in sub.targets)
    }


def _words(node: ast.AST) -> int:
    """Words in string literals that are members of a literal collection or split."""
    n = 0
    exports = _exports(node)
    for sub in ast.walk(node):
        if id(sub) in exports:
            continue
        if isinstance(sub, ast.Set | ast.List | ast.Tuple):
            n += sum(
                len(e.value.split())
                for e in sub.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            )
        elif isinstance(sub, ast.Dict):
            n += sum(
                len(v.value.split())
                for v in (*sub.keys, *sub.values)
                if isinstance(v, ast.Constant) and isinstance(v.value, str)
            )
        elif (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Attribute)
            and sub.func.attr == "split"
            and isinstance(sub.func.value, ast.Constant)
            and isinstance(sub.func.value.value, str)
        ):
            n += len(sub.func.value.value.split())
    return n


def _patterns(node: ast.AST) -> int:
    return sum(
        1
        for sub in ast.walk(node)
        if isinstance(sub, ast.Call)
        and isinstance(sub.func, ast.Attribute)
        and sub.func.attr == "compile"
        and isinstance(sub.func.value, ast.Name)
        and sub.func.value.id == "re"
    )


def count(folder: Path) -> list[tuple[str, int, int]]:
    """(module, patterns, listed words) for every module under ``folder``."""
    out = []
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        out.append((str(path.relative_to(ROOT)), _patterns(tree), _words(tree)))
    return out


def _data_words(value: object) -> int:
    if isinstance(value, str):
        return len(value.split())
    if isinstance(value, dict):
        return sum(len(str(k).split()) + _data_words(v) for k, v in value.items())
    if isinstance(value, list):
        return sum(_data_words(v) for v in value)
    return 0


def data(folder: Path) -> list[tuple[str, int, int]]:
    """(data file, 0, listed words) for every TOML file under ``folder``."""
    return [
        (str(p.relative_to(ROOT)), 0, _data_words(tomllib.loads(p.read_text(encoding="utf-8"))))
        for p in sorted(folder.rglob("*.toml"))
    ]


def main() -> int:
    folder = ROOT / (sys.argv[1] if len(sys.argv) > 1 else "retrieval")
    rows = [r for r in (*count(folder), *data(folder)) if r[1] or r[2]]
    print("| module | patterns | listed words |\n| --- | --- | --- |")
    for name, patterns, words in rows:
        print(f"| {name} | {patterns} | {words} |")
    print(f"| all | {sum(r[1] for r in rows)} | {sum(r[2] for r in rows)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
