"""The dataclasses' generated methods, compiled once and kept beside the bytecode.

`@dataclass` writes the source of each class's `__init__`, `__repr__`, `__eq__`, `__hash__`
(and a frozen class's `__setattr__` and `__delattr__`) and compiles it with `exec`, on every
start of the interpreter. The engine defines about eighty dataclasses, so a `codemod` run
used to spend about 0.1 s of its start compiling them, as much as parsing a large file.

`install()` gives the `dataclasses` module an `exec` that looks each generated text up in
a table of code objects kept next to this module's bytecode (a marshal file, like a `.pyc`
stamped with the interpreter's magic number), compiling and adding what is missing. The code
objects are those `exec` would compile from the same text (the same file name, `<string>`,
and no inherited `__future__` flags), so the classes are the same; a table of another
interpreter, or one that does not load, is ignored. Only the house's modules' classes go
through the table; any other module's are compiled as before.

The table is written when the process exits, with what it compiled that the table lacked,
the way Python writes bytecode: not under `PYTHONDONTWRITEBYTECODE` (`sys.dont_write_bytecode`),
and never where it cannot write. `prime()` (`python -m codemods.startup`) imports every module
of the engine and writes the table whatever that setting, as `python -m compileall` writes
bytecode. `CODEMOD_DATACLASS_CACHE=0` turns it off.
"""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import importlib
import marshal
import os
import sys
from importlib.util import MAGIC_NUMBER, cache_from_source
from collections.abc import Mapping
from types import CodeType
from typing import Any

# The packages whose classes go through the table.
HOUSE = ("codemods", "interchange", "analysis", "kernels")
# A table that grew past this many texts is written again with only what this process used.
_MOST = 4000

_table: dict[str, CodeType] = {}
_used: set[str] = set()
_added = False
_installed = False


def table_path() -> str:
    """Where the table lives: beside this module's bytecode (under `sys.pycache_prefix` if set)."""
    pyc = cache_from_source(__file__)
    return pyc[: -len(".pyc")] + ".dataclasses"


def _load() -> dict[str, CodeType]:
    try:
        with open(table_path(), "rb") as stream:
            data = stream.read()
    except OSError:
        return {}
    if not data.startswith(MAGIC_NUMBER):
        return {}
    try:
        table = marshal.loads(data[len(MAGIC_NUMBER) :])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, CodeType) for k, v in table.items()):
        return {}
    return table


def _ours(namespace: object) -> bool:
    name = namespace.get("__name__", "") if isinstance(namespace, dict) else ""
    return isinstance(name, str) and name.split(".")[0] in HOUSE


def _exec(
    source: str | bytes | CodeType,
    globals: dict[str, Any] | None = None,
    locals: Mapping[str, object] | None = None,
    /,
    **kwargs: Any,
) -> None:
    """`exec` as `dataclasses` calls it: a generated text of the house's compiled once."""
    global _added
    if kwargs or not isinstance(source, str) or not _ours(globals):
        return builtins.exec(source, globals, locals, **kwargs)
    code = _table.get(source)
    if code is None:
        # What exec(source) compiles: the file name "<string>", no flags of this module's
        # `from __future__ import annotations` (dont_inherit), or annotations would turn to text.
        code = _table[source] = compile(source, "<string>", "exec", dont_inherit=True)
        _added = True
    _used.add(source)
    return builtins.exec(code, globals, locals)


def install() -> None:
    """Route the dataclasses' `exec` through the table (once per process; a no-op when turned off
    or when this interpreter's `dataclasses` has its own `exec`)."""
    global _installed, _table
    if _installed or os.environ.get("CODEMOD_DATACLASS_CACHE", "1").strip() == "0":
        return
    if "exec" in vars(dataclasses):
        return  # someone else's hook: leave it alone
    _installed = True
    _table = _load()
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    atexit.register(_save_on_exit)


def _save_on_exit() -> None:
    if _added and not sys.dont_write_bytecode:
        save()


def save() -> bool:
    """Write the table (atomically: a whole file or the one before); whether it was written."""
    table = _table if len(_table) <= _MOST else {k: v for k, v in _table.items() if k in _used}
    path = table_path()
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "wb") as stream:
            stream.write(MAGIC_NUMBER + marshal.dumps(table))
        os.replace(temporary, path)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        return False
    return True


def prime() -> int:
    """Import every module of the codemods package (its bundled recipes included) and of interchange
    (whose decision schema a bundled recipe reads) that imports here, and write the
    table; how many texts it holds."""
    # here: only prime() walks the packages, and every start imports this module
    import pkgutil

    install()
    for package in ("codemods", "interchange"):  # not kernels' or analysis' (torch): the CLI's
        try:
            root = importlib.import_module(package)
        except ImportError:
            continue
        for module in pkgutil.walk_packages(root.__path__, f"{package}."):
            if module.name.endswith("__main__"):
                continue
            try:
                importlib.import_module(module.name)
            except Exception:  # a module whose optional dependency is missing (torch): its classes wait
                continue
    save()
    return len(_table)


if __name__ == "__main__":
    # The module the engine installed (codemods.edit imports it), not this copy run as __main__.
    from codemods import startup

    print(f"codemods.startup: {startup.prime()} generated method(s) in {startup.table_path()}")
