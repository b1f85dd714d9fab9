"""The codebase's own figures: how far each extension axis is from "one home per concept".

``python benchmarks/code_figures.py`` prints them; ``tests/test_architecture.py`` holds the targets. Counted
with ``ast`` (parameters, imports) and plain text search (annotations), so the figures are the same on any
machine and any load.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("formatkit", "scoring")
#: The one module allowed to index a record's messages by position.
RECORD_MODULE = "formatkit/_core/record.py"
MAX_PARAMETERS = 8

_ANY_DICT = re.compile(r"dict\[str, Any\]")
#: The record module's names for JSON objects with open keys (sampling parameters, schemas, raw lines).
_OPEN_ALIASES = re.compile(r"\b(?:JsonObject|Parameters)\b(?!\s*=)")
_LAST_MESSAGE = re.compile(r"""messages["']?\]?\[-1\]""")


def source_files() -> Iterator[Path]:
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def count_any_dicts(text: str) -> int:
    return len(_ANY_DICT.findall(text))


def open_alias_uses() -> int:
    """Annotations through the record module's aliases of ``dict[str, Any]`` (import lines aside)."""
    return sum(
        len(_OPEN_ALIASES.findall(line))
        for path in source_files()
        for line in path.read_text(encoding="utf-8").splitlines()
        if "import" not in line and not line.lstrip().startswith(('"', "#"))
    )


def indexes_last_message(text: str) -> bool:
    return _LAST_MESSAGE.search(text) is not None


def any_dicts() -> int:
    """Occurrences of ``dict[str, Any]`` in the two packages."""
    return sum(count_any_dicts(path.read_text(encoding="utf-8")) for path in source_files())


def last_message_indexers() -> list[str]:
    """Files other than the record module that index ``messages[-1]`` themselves."""
    return [
        relative(path)
        for path in source_files()
        if relative(path) != RECORD_MODULE and indexes_last_message(path.read_text(encoding="utf-8"))
    ]


@dataclass(frozen=True)
class LongSignature:
    where: str
    name: str
    parameters: int


def signatures_in(path: Path, limit: int = MAX_PARAMETERS) -> list[LongSignature]:
    """The functions of one file that take more than ``limit`` parameters (typer's command functions aside).

    ``self``/``cls`` are not counted; ``*args``/``**kwargs`` count as one each.
    """
    in_cli = path.is_relative_to(ROOT / "formatkit" / "cli")
    where = relative(path) if path.is_relative_to(ROOT) else path.name
    found: list[LongSignature] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        args = node.args
        names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        count = len(names) - (1 if names and names[0] in ("self", "cls") else 0)
        count += (args.vararg is not None) + (args.kwarg is not None)
        if count > limit and not (in_cli and _decorated_command(node)):
            found.append(LongSignature(f"{where}:{node.lineno}", node.name, count))
    return found


def long_signatures(limit: int = MAX_PARAMETERS) -> list[LongSignature]:
    """Functions of the two packages (typer's command functions aside) with more than ``limit`` parameters."""
    found = [sig for path in source_files() for sig in signatures_in(path, limit)]
    return sorted(found, key=lambda s: -s.parameters)


def _decorated_command(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A typer command: its parameters are typer options (``typer.Option(...)`` defaults or annotations)."""
    text = ast.unparse(node.args)
    return "typer." in text or "Annotated[" in text or "option(" in text


def private_imports(importer: str, imported: str) -> Counter[str]:
    """``importer``'s imports of ``imported``'s private modules (``imported._x``), by module imported."""
    counts: Counter[str] = Counter()
    for path in source_files():
        if not relative(path).startswith(importer):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                modules = [node.module]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            for module in modules:
                if module.startswith(imported + "._"):
                    counts[module] += 1
    return counts


def readme_figures() -> tuple[int, int | None]:
    """The README's length in lines and the line where ``formatkit eval`` first appears."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    first = next((n for n, line in enumerate(lines, 1) if "formatkit eval" in line), None)
    return len(lines), first


# --- the report's words and the languages (#36 items 2 and 3) --------------------------------------------
#: The report's one rewrite of rendered text allowed: escaping a Markdown cell, never words.
_ESCAPERS = frozenset({"md_escape"})


def report_pattern_rewrites() -> list[str]:
    """Calls of ``sub``/``subn``/``translate`` (regular expressions, ``str.translate``) in the report's
    modules outside the escapers: a report's words come from the catalogues, never rewritten."""
    found = []
    paths = [*sorted((ROOT / "scoring" / "_report").glob("*.py")), ROOT / "scoring" / "_pipeline" / "report_file.py"]
    for path in paths:
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(function, ast.FunctionDef) or function.name in _ESCAPERS:
                continue
            for node in ast.walk(function):
                called = node.func if isinstance(node, ast.Call) else None
                if isinstance(called, ast.Attribute) and called.attr in ("sub", "subn", "translate"):
                    found.append(f"{relative(path)}:{called.lineno}")
    return found


def language_coverage() -> list[tuple[str, int, int, str, float]]:
    """Each language of the table: translated keys, English's keys, the share, and its declared minimum."""
    sys.path.insert(0, str(ROOT))
    from formatkit._core.messages import DECLARED_COVERAGE, coverage, languages

    out = []
    for lang in languages():
        said = coverage(lang)
        out.append((lang, said.translated, said.total, said.percent, DECLARED_COVERAGE.get(lang, 0.0)))
    return out


def print_words_figures() -> None:
    rewrites = report_pattern_rewrites()
    print(f"pattern rewrites of rendered report text (scoring/_report): {len(rewrites)}")
    for where in rewrites:
        print(f"  {where}")
    print("languages (translated keys / English keys; declared minimum):")
    for lang, translated, total, percent, declared in language_coverage():
        print(f"  {lang}: {translated} / {total} ({percent}; declared {declared:.0%})")


def main() -> int:
    files = list(source_files())
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in files)
    print(f"modules: {len(files)}, lines: {lines:,}")
    print(f"dict[str, Any] in formatkit/ and scoring/: {any_dicts()}")
    print(f"  and through the aliases JsonObject/Parameters (open keys): {open_alias_uses()}")
    indexers = last_message_indexers()
    print(f"files indexing messages[-1] outside {RECORD_MODULE}: {len(indexers)}")
    for where in indexers:
        print(f"  {where}")
    long = long_signatures()
    print(f"functions with more than {MAX_PARAMETERS} parameters (typer commands aside): {len(long)}")
    for sig in long:
        print(f"  {sig.parameters:3d}  {sig.name}  {sig.where}")
    for importer, imported in (("formatkit/cli", "scoring"), ("formatkit/cli", "formatkit"), ("scoring", "formatkit")):
        counts = private_imports(importer, imported)
        print(f"{importer} imports of {imported}'s private modules: {sum(counts.values())} ({len(counts)} modules)")
        for module, n in counts.most_common():
            print(f"  {n:3d}  {module}")
    length, first_eval = readme_figures()
    print(f"README: {length} lines; `formatkit eval` first on line {first_eval}")
    print_words_figures()
    return 0


if __name__ == "__main__":
    sys.exit(main())
