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


# --- the scored half of the record (#36 item 1): the judge entry, the results file, names in the tables ---

#: The module that owns the judge entry: its TypedDicts and the only reads of it by key.
JUDGE_ENTRY_MODULE = "formatkit/_core/judge_entry.py"
#: The module that owns a results file: the one reader of its lines as records.
RESULTS_MODULE = "scoring/_results.py"
#: The tables where metric and judge names live (and may be compared).
NAME_TABLES = ("scoring/_metrics/registry.py", "scoring/_judges/kinds.py")
#: The keys only a judge entry holds (``"judge"`` itself, read off a response, and the entry's own keys).
JUDGE_KEYS = frozenset(
    {
        "judge",
        "orders",
        "outcome",
        "disagree",
        "repeats",
        "rationale",
        "consistent",
        "escalations",
        "sent_because",
        "combined",
        "verdict",
        "tagged",
        "raw_score",
        "extracted",
        "against",
    }
)
#: Receivers that hold other things under those keys: the judges' summaries and stats, a run record, a report row.
_OTHER_HOLDERS = frozenset({"summary", "stats", "run", "r"})
#: Words that are a metric's name and also a tag of another vocabulary (a MetricSpec's kind, an option's kind).
_KIND_TAGS = frozenset({"rule", "judge", "choice"})


def judge_key_reads(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, key) of each read of a judge entry's key: ``x.get("outcome")``, ``x["orders"]`` (stores aside)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        key: object = None
        holder: ast.expr | None = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Constant):
            key, holder = node.slice.value, node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "pop", "setdefault")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            key, holder = node.args[0].value, node.func.value
        if isinstance(key, str) and key in JUDGE_KEYS and holder is not None:
            name = holder.attr if isinstance(holder, ast.Attribute) else getattr(holder, "id", "")
            if name not in _OTHER_HOLDERS:
                found.append((holder.lineno, key))
    return found


def judge_entry_readers() -> list[str]:
    """Files other than the judge entry's module that read the entry by key."""
    return [
        relative(path)
        for path in source_files()
        if relative(path) != JUDGE_ENTRY_MODULE and judge_key_reads(ast.parse(path.read_text(encoding="utf-8")))
    ]


def reads_results_lines(tree: ast.AST) -> bool:
    """The module parses JSON (``loads``) and tells a canonical record itself
    (``isinstance(x.get("messages"), list)``)."""
    loads = checks = False
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr == "loads") or (
            isinstance(func, ast.Name) and func.id == "loads"
        ):
            loads = True
        if isinstance(func, ast.Name) and func.id == "isinstance" and node.args:
            first = node.args[0]
            checks = checks or (
                isinstance(first, ast.Call)
                and isinstance(first.func, ast.Attribute)
                and first.func.attr == "get"
                and bool(first.args)
                and isinstance(first.args[0], ast.Constant)
                and first.args[0].value == "messages"
            )
    return loads and checks


def results_file_readers() -> list[str]:
    """Modules of ``scoring`` that read a results file's lines as records themselves (the results module included)."""
    return [
        relative(path)
        for path in sorted((ROOT / "scoring").rglob("*.py"))
        if reads_results_lines(ast.parse(path.read_text(encoding="utf-8")))
    ]


def metric_names() -> frozenset[str]:
    """The names in the metric table (read from its source: this script imports nothing of the packages)."""
    tree = ast.parse((ROOT / NAME_TABLES[0]).read_text(encoding="utf-8"))
    return frozenset(
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "MetricSpec"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    )


def name_comparisons_in(tree: ast.AST, names: frozenset[str]) -> list[tuple[int, str]]:
    """(line, code) of each comparison with a metric's or judge's name (``metric == "math"``, ``kind in
    ("pairwise", ...)``). Not a name's: a ``.kind`` compared with a word that is also a kind tag
    (``spec.kind == "judge"``: a kind test), a dict's key (``"judge" in summary``, ``key == "judge"``)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        if isinstance(node.ops[0], (ast.In, ast.NotIn)) and isinstance(node.left, ast.Constant):
            continue  # "judge" in summary: a key looked up
        if any(isinstance(side, ast.Name) and side.id in ("key", "k") for side in sides):
            continue  # key == "judge": a dict's key
        words: list[str] = []
        for side in sides:
            elements = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
            words += [e.value for e in elements if isinstance(e, ast.Constant) and e.value in names]
        kind_test = any(isinstance(side, ast.Attribute) and side.attr == "kind" for side in sides)
        if words and not (kind_test and set(words) <= _KIND_TAGS):
            found.append((node.lineno, ast.unparse(node)))
    return found


def name_comparisons() -> list[str]:
    """Comparisons with a metric's or judge's name outside the tables, in ``scoring`` and the CLI (the formats
    never see a metric), as ``file:line code``."""
    names = metric_names()
    found: list[str] = []
    for path in source_files():
        where = relative(path)
        if where in NAME_TABLES or not where.startswith(("scoring/", "formatkit/cli/")):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{where}:{line} {code}" for line, code in name_comparisons_in(tree, names)]
    return found


def definitions_of(name: str) -> list[str]:
    """The files that define a function called ``name`` (one name, one meaning: ``target_turn`` was three)."""
    return [
        relative(path)
        for path in source_files()
        if any(
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        )
    ]


def print_scored_record_figures() -> None:
    readers = judge_entry_readers()
    print(f"files reading the judge entry by key outside {JUDGE_ENTRY_MODULE}: {len(readers)}")
    for where in readers:
        print(f"  {where}")
    results = results_file_readers()
    print(f"modules reading a results file's lines as records: {len(results)}")
    for where in results:
        print(f"  {where}")
    print(f"functions called target_turn: {', '.join(definitions_of('target_turn'))}")
    compared = name_comparisons()
    print(f"comparisons with a metric's or judge's name outside the tables: {len(compared)}")
    for where in compared:
        print(f"  {where}")


# --- growth that pays its way (issue 36): open JSON together, long functions, source lines, public names ---

#: A function longer than this (its ``def`` line to its last, docstring included) is counted.
MAX_FUNCTION_LINES = 80
#: The private modules the command line may import (pyproject.toml's import-linter contract names them):
#: what only a command line needs, kept out of the public faces.
CLI_SUPPORT = ("formatkit._cli_support", "scoring._cli_support")


def open_json_uses() -> int:
    """``dict[str, Any]`` and the open-key aliases (``JsonObject``, ``Parameters``) together: one figure."""
    return any_dicts() + open_alias_uses()


@dataclass(frozen=True)
class LongFunction:
    where: str
    name: str
    lines: int


def functions_in(path: Path, limit: int = MAX_FUNCTION_LINES) -> list[LongFunction]:
    """The functions (methods and nested ones too) of one file longer than ``limit`` lines."""
    where = relative(path) if path.is_relative_to(ROOT) else path.name
    return [
        LongFunction(f"{where}:{node.lineno}", node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > limit
    ]


def long_functions(limit: int = MAX_FUNCTION_LINES) -> list[LongFunction]:
    """Functions of the two packages longer than ``limit`` lines, longest first."""
    found = [f for path in source_files() for f in functions_in(path, limit)]
    return sorted(found, key=lambda f: -f.lines)


def source_lines() -> int:
    """Lines of ``formatkit/`` and ``scoring/`` (every ``.py`` file, blank lines and docstrings included)."""
    return sum(len(path.read_text(encoding="utf-8").splitlines()) for path in source_files())


def exported_names(path: Path) -> list[str]:
    """A module's ``__all__`` as its source lists it (read with ``ast``: nothing is imported)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            value = ast.literal_eval(node.value)
            return [str(name) for name in value]
    return []


def public_names() -> dict[str, int]:
    """Public names per public face: each package's ``__init__`` and its public submodules (no leading
    ``_``; the CLI, a program rather than an API, aside)."""
    counts: dict[str, int] = {}
    for package in PACKAGES:
        counts[package] = len(exported_names(ROOT / package / "__init__.py"))
        for path in sorted((ROOT / package).glob("*.py")):
            if not path.name.startswith("_"):
                counts[f"{package}.{path.stem}"] = len(exported_names(path))
        for path in sorted((ROOT / package).glob("*/__init__.py")):  # a public subpackage: formatkit.serve
            if not path.parent.name.startswith("_") and path.parent.name != "cli":
                counts[f"{package}.{path.parent.name}"] = len(exported_names(path))
    return counts


def growth_figures() -> None:
    print(f"source lines of formatkit/ and scoring/: {source_lines():,}")
    print(f"dict[str, Any] plus JsonObject/Parameters (open JSON, counted together): {open_json_uses()}")
    long = long_functions()
    print(f"functions over {MAX_FUNCTION_LINES} lines: {len(long)}")
    for function in long:
        print(f"  {function.lines:3d}  {function.name}  {function.where}")
    names = public_names()
    tops = sum(n for face, n in names.items() if "." not in face)
    print(f"public names: {tops} in the packages + {sum(names.values()) - tops} in their public submodules")
    for face, n in names.items():
        print(f"  {n:3d}  {face}")


# --- the report's words and the languages (#36 items 2 and 3) --------------------------------------------
#: The report's one rewrite of rendered text allowed: escaping a Markdown cell, never words.
_ESCAPERS = frozenset({"md_escape"})


def report_pattern_rewrites() -> list[str]:
    """Calls of ``sub``/``subn``/``translate`` (regular expressions, ``str.translate``) in the report's
    modules outside the escapers: a report's words come from the catalogues, never rewritten."""
    found = []
    paths = [*sorted((ROOT / "scoring" / "_report").rglob("*.py")), ROOT / "scoring" / "_pipeline" / "report_file.py"]
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
    print_scored_record_figures()
    growth_figures()
    print_words_figures()
    return 0


if __name__ == "__main__":
    sys.exit(main())
