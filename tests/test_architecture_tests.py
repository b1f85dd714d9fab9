"""The tests' own rule: a test never asserts a wall-clock bound (issue #26, item 6).

On a loaded machine any step can take any time, so "this took less than N seconds" fails there, and "this
took at least N seconds" says nothing a count cannot say better. A test counts work instead: requests,
attempts, characters, the waits of a fake clock (tests/fakeclock.py); or it holds the other side until it
has acted (``FakeOpenAI.hold_after``). A generous timeout that only stops a hung test is fine: it is not
an assertion.

This module scans every test file with :mod:`ast` and fails on an ``assert`` that compares a time read
from a clock (``time.monotonic()``, ``perf_counter()``, ``time.time()``, ``loop.time()``...), or anything
computed from one (``elapsed = time.monotonic() - start``, a helper returning such a difference), and on a
hypothesis ``deadline`` other than None. The checker is tested on the patterns it exists to catch.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).parent

#: Attribute or function names whose call reads a clock.
CLOCKS = frozenset(
    {
        "monotonic",
        "monotonic_ns",
        "perf_counter",
        "perf_counter_ns",
        "process_time",
        "process_time_ns",
        "thread_time",
        "time",
        "time_ns",
    }
)


def _reads_clock(node: ast.AST) -> bool:
    """``time.monotonic()``, ``perf_counter()``, ``loop.time()``, ``datetime.now()``: a call that reads a clock."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name == "now" and isinstance(func, ast.Attribute):  # datetime.now(), datetime.datetime.now()
        return True
    return name in CLOCKS and not node.args and not node.keywords


class _Scope(ast.NodeVisitor):
    """Within one function (or the module), the names holding a time and the asserts that compare one."""

    def __init__(self, timed_functions: set[str]) -> None:
        self.timed_names: set[str] = set()
        self.timed_functions = timed_functions
        self.found: list[ast.Assert] = []

    def timed(self, node: ast.AST) -> bool:
        """Whether ``node`` is a clock reading or arithmetic on one: ``time.monotonic() - start``,
        ``elapsed``, ``round(elapsed, 1)``, ``go()`` or ``asyncio.run(go())`` for a helper ``go`` returning
        a time. (A clock reading passed to anything else, such as a date in a header, is not a time.)"""
        if _reads_clock(node):
            return True
        if isinstance(node, ast.Name):
            return node.id in self.timed_names
        if isinstance(node, ast.BinOp):
            return self.timed(node.left) or self.timed(node.right)
        if isinstance(node, ast.UnaryOp):
            return self.timed(node.operand)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in self.timed_functions:
                return True
            if node.func.id in ("abs", "round", "float", "int", "max", "min", "sum"):
                return any(self.timed(arg) for arg in node.args)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run":
            return any(self.timed(arg) for arg in node.args)  # asyncio.run(go())
        if isinstance(node, ast.Await):
            return self.timed(node.value)
        return False

    def visit_Assign(self, node: ast.Assign) -> None:
        if self.timed(node.value):
            for target in node.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        self.timed_names.add(name.id)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None and self.timed(node.value) and isinstance(node.target, ast.Name):
            self.timed_names.add(node.target.id)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if self.timed(node.value) and isinstance(node.target, ast.Name):
            self.timed_names.add(node.target.id)

    def visit_Assert(self, node: ast.Assert) -> None:
        for compare in ast.walk(node.test):
            if isinstance(compare, ast.Compare) and any(
                self.timed(side) for side in [compare.left, *compare.comparators]
            ):
                self.found.append(node)
                return

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        pass  # a nested function is its own scope (see wall_clock_asserts)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        pass

    def visit_Lambda(self, node: ast.Lambda) -> None:
        pass


def _returns_a_time(function: ast.FunctionDef | ast.AsyncFunctionDef, timed_functions: set[str]) -> bool:
    scope = _Scope(timed_functions)
    for statement in function.body:
        scope.visit(statement)
    return any(
        isinstance(node, ast.Return) and node.value is not None and scope.timed(node.value)
        for node in ast.walk(function)
    )


def wall_clock_asserts(source: str) -> list[int]:
    """The line of every ``assert`` in ``source`` that compares a clock reading or something computed from it."""
    tree = ast.parse(source)
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    timed_functions: set[str] = set()
    changed = True
    while changed:  # a helper returning a time makes its callers' results times too
        changed = False
        for function in functions:
            if function.name not in timed_functions and _returns_a_time(function, timed_functions):
                timed_functions.add(function.name)
                changed = True
    lines: list[int] = []
    for body in [tree.body, *(f.body for f in functions)]:
        scope = _Scope(timed_functions)
        for statement in body:
            scope.visit(statement)
        lines += [node.lineno for node in scope.found]
    return sorted(set(lines))


def hypothesis_deadlines(source: str) -> list[int]:
    """The line of every ``settings(..., deadline=X)`` with X other than None (hypothesis times each example)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and (
            (isinstance(node.func, ast.Name) and node.func.id in ("settings", "register_profile"))
            or (isinstance(node.func, ast.Attribute) and node.func.attr in ("settings", "register_profile"))
        ):
            for keyword in node.keywords:
                if keyword.arg == "deadline" and not (
                    isinstance(keyword.value, ast.Constant) and keyword.value.value is None
                ):
                    lines.append(node.lineno)
    return lines


TEST_FILES = sorted(p for p in TESTS.rglob("*.py") if "corpora" not in p.parts)


@pytest.mark.parametrize("path", TEST_FILES, ids=lambda p: str(p.relative_to(TESTS)))
def test_no_test_asserts_a_wall_clock_bound(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    found = [f"{path.relative_to(TESTS)}:{n}: {lines[n - 1].strip()}" for n in wall_clock_asserts(source)]
    found += [f"{path.relative_to(TESTS)}:{n}: a hypothesis deadline" for n in hypothesis_deadlines(source)]
    assert not found, "a test asserts a wall-clock bound (count work instead):\n" + "\n".join(found)


# -- the checker itself --------------------------------------------------------------------------------

CAUGHT = {
    "elapsed-difference": """
def test_x():
    started = time.perf_counter()
    parse(reply)
    assert time.perf_counter() - started < 5.0
""",
    "lower-bound": """
def test_x():
    start = time.monotonic()
    complete()
    assert time.monotonic() - start >= 0.29
""",
    "elapsed-name": """
def test_x():
    t0 = monotonic()
    work()
    elapsed = monotonic() - t0
    assert elapsed < 2 and requests == 1
""",
    "helper-returning-a-time": """
def test_x():
    async def go() -> float:
        start = time.monotonic()
        await many()
        return time.monotonic() - start

    assert asyncio.run(go()) >= 0.39
""",
    "deadline-in-an-assert": """
def test_x():
    deadline = time.time() + 5
    run()
    assert time.time() < deadline
""",
    "loop-time": """
async def test_x():
    loop = asyncio.get_running_loop()
    begin = loop.time()
    await work()
    assert loop.time() - begin <= 1
""",
}

LEFT_ALONE = {
    "a-deadline-that-stops-a-hung-wait": """
def test_x():
    deadline = time.monotonic() + 30
    while not done() and time.monotonic() < deadline:
        time.sleep(0.005)
    assert done()
""",
    "counting": """
def test_x():
    clock = FakeClock()
    complete(clock=clock)
    assert clock.sleeps == [0.3] and server.requests == 2
""",
    "a-date-in-a-header": """
def test_x():
    fault = Fault("429", retry_after=formatdate(time.time() + 1))
    assert fault.kind == "429"
""",
    "a-safety-timeout": """
def test_x():
    result = subprocess.run(args, timeout=120)
    assert result.returncode == 0
""",
}


@pytest.mark.parametrize("source", CAUGHT.values(), ids=CAUGHT.keys())
def test_the_checker_catches_a_wall_clock_assertion(source: str) -> None:
    assert wall_clock_asserts(source), source


@pytest.mark.parametrize("source", LEFT_ALONE.values(), ids=LEFT_ALONE.keys())
def test_the_checker_leaves_counting_and_safety_limits_alone(source: str) -> None:
    assert wall_clock_asserts(source) == [], source


def test_the_checker_catches_a_hypothesis_deadline() -> None:
    assert hypothesis_deadlines("@settings(max_examples=5, deadline=200)\ndef test_x(): pass\n") == [1]
    assert hypothesis_deadlines("s = settings(deadline=timedelta(seconds=1))\n") == [1]
    assert hypothesis_deadlines("@settings(max_examples=5, deadline=None)\ndef test_x(): pass\n") == []
