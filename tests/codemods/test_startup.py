"""The dataclasses' generated methods come from the table beside the bytecode (codemods/startup.py):
the classes are those `@dataclass` makes without it, a table of another interpreter or a broken
one is ignored, and it is written as bytecode is (not under PYTHONDONTWRITEBYTECODE)."""

from __future__ import annotations

import dataclasses
import marshal
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codemods import startup

HOUSE = Path(__file__).resolve().parents[2]

# A module of the house's with the shapes the engine's dataclasses have: frozen, defaults,
# default factories, a return annotation, keyword-only fields, ordering and slots.
PROBE = textwrap.dedent("""
    from __future__ import annotations
    from dataclasses import dataclass, field

    @dataclass(frozen=True)
    class Span:
        path: str
        start: int = 0
        tags: tuple[str, ...] = ()

    @dataclass(order=True)
    class Counted:
        name: str
        seen: list[int] = field(default_factory=list)

    @dataclass(frozen=True, kw_only=True, slots=True)
    class Options:
        strict: bool = False
        width: int = 100
""")


def _probe(module_name: str) -> dict:
    namespace = {"__name__": module_name}
    sys.modules[module_name] = type(sys)(module_name)
    try:
        sys.modules[module_name].__dict__.update(namespace)
        exec(compile(PROBE, f"<{module_name}>", "exec"), sys.modules[module_name].__dict__)
        return dict(sys.modules[module_name].__dict__)
    finally:
        del sys.modules[module_name]


def _shape(cls: type) -> list:
    """What the generated methods are: their code, annotations and defaults, method by method."""
    found = []
    for name in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__", "__lt__"):
        function = cls.__dict__.get(name)
        if function is None or not hasattr(function, "__code__"):
            found.append((name, function))
            continue
        code = function.__code__
        found.append(
            (
                name,
                code.co_code,
                code.co_consts,
                code.co_names,
                code.co_varnames,
                code.co_filename,
                code.co_flags,
                function.__annotations__,
                function.__defaults__,
                function.__kwdefaults__,
            )
        )
    return found


@pytest.fixture
def installed():
    """The table installed in this process for one test, and taken out again after it."""
    was = startup._installed
    startup.install()
    yield
    if not was and startup._installed:
        vars(dataclasses).pop("exec", None)
        startup._installed = False


def test_the_command_defines_the_engines_dataclasses_through_the_table() -> None:
    """The console script installs the table before the engine is imported (the atexit hook
    below runs inside the command's quick exit)."""
    code = (
        "import atexit, dataclasses, sys\n"
        "sys.argv = ['codemod', 'recipes']\n"
        "import codemods.startup as s\n"
        "atexit.register(lambda: print('TABLE', s._installed, vars(dataclasses).get('exec') is s._exec))\n"
        "from codemods.cli.entry import run\n"
        "run()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=HOUSE,
        capture_output=True,
        text=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k != "CODEMOD_DATACLASS_CACHE"},
    )
    assert result.returncode == 0, result.stderr
    assert "TABLE True True" in result.stdout


def test_importing_the_library_leaves_the_standard_library_alone() -> None:
    code = (
        "import dataclasses, codemods, codemods.plan.planner, codemods.cli.main, codemods.edit\n"
        "from codemods import plan_recipe\n"
        "import codemods.startup as s\n"
        "print(s._installed, 'exec' in vars(dataclasses))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=HOUSE, capture_output=True, text=True, timeout=120)
    assert result.stdout.split() == ["False", "False"], result.stderr


def test_a_class_made_through_the_table_is_the_class_made_without_it(monkeypatch, installed) -> None:
    used = set(startup._used)
    through = _probe("codemods._probe_through_table")
    assert any("def __init__(self,path:" in text for text in startup._used - used)
    # The same module text, its methods compiled by dataclasses' own `exec`.
    monkeypatch.delattr(dataclasses, "exec")
    plain = _probe("codemods._probe_plain")
    for name in ("Span", "Counted", "Options"):
        assert _shape(through[name]) == _shape(plain[name]), name
    # Annotations stay objects, as exec compiles them (not text, as this module's
    # `from __future__ import annotations` would make them if the flags were inherited).
    assert through["Span"].__init__.__annotations__["return"] is None
    span = through["Span"]("a.rs", 3)
    assert span == through["Span"]("a.rs", 3) and hash(span) == hash(through["Span"]("a.rs", 3))
    with pytest.raises(dataclasses.FrozenInstanceError):
        span.start = 4  # type: ignore[misc]
    assert repr(through["Counted"]("x")) == "Counted(name='x', seen=[])"
    assert through["Counted"]("a") < through["Counted"]("b")


def test_another_packages_classes_are_compiled_as_before(installed) -> None:
    before = set(startup._table)
    _probe("not_the_house_probe")
    assert set(startup._table) == before


def _run(code: str, table: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | env
    prelude = f"import codemods.startup as s\ns.table_path = lambda: {str(table)!r}\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + code], env=environment, cwd=HOUSE, capture_output=True, text=True, timeout=120
    )


# A process that defines one class of the house after pointing the table elsewhere.
_DEFINE = textwrap.dedent("""
    s.install()
    import sys
    module = sys.modules["codemods._probe_child"] = type(sys)("codemods._probe_child")
    exec("from dataclasses import dataclass\\n@dataclass(frozen=True)\\nclass P:\\n    a: int = 1\\n",
         module.__dict__)
    assert module.P() == module.P(1)
    print(len(s._table))
""")


def test_a_table_of_another_interpreter_or_a_broken_one_is_ignored_and_replaced(tmp_path) -> None:
    table = tmp_path / "table.dataclasses"
    for content in (
        b"\x00\x01\x02\x03" + marshal.dumps({"x": compile("1", "<string>", "exec")}),
        startup.MAGIC_NUMBER + b"not marshal data",
        startup.MAGIC_NUMBER + marshal.dumps(["a list"]),
    ):
        table.write_bytes(content)
        result = _run(_DEFINE, table)
        assert result.returncode == 0, result.stderr
        written = table.read_bytes()
        assert written.startswith(startup.MAGIC_NUMBER)
        assert all(isinstance(v, type(compile("1", "<s>", "exec"))) for v in marshal.loads(written[4:]).values())


def test_the_table_is_written_as_bytecode_is(tmp_path) -> None:
    table = tmp_path / "table.dataclasses"
    result = _run(_DEFINE, table, PYTHONDONTWRITEBYTECODE="1")
    assert result.returncode == 0, result.stderr
    assert not table.exists()
    result = _run(_DEFINE, table)
    assert result.returncode == 0, result.stderr
    assert table.exists()
    first = int(result.stdout)
    # The next process finds its class's methods there, and adds nothing.
    table.chmod(0o444)
    try:
        again = _run(_DEFINE, table)
        assert again.returncode == 0, again.stderr
        assert int(again.stdout) == first
    finally:
        table.chmod(0o644)


def test_it_can_be_turned_off() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import dataclasses, codemods.startup as s; s.install(); print(s._installed, 'exec' in vars(dataclasses))",
        ],
        env=os.environ | {"CODEMOD_DATACLASS_CACHE": "0"},
        cwd=HOUSE,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.split() == ["False", "False"], result.stderr


def test_prime_writes_every_module_of_the_engine(tmp_path) -> None:
    table = tmp_path / "table.dataclasses"
    result = _run("print(s.prime())", table, PYTHONDONTWRITEBYTECODE="1")
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) > 300
    assert len(marshal.loads(table.read_bytes()[4:])) == int(result.stdout)
