"""The only module of the analysis package that writes files.

Whole files are written by the shared atomic write (`interchange.atomic_file`:
temporary file in the same folder, fsync, ``os.replace``). ``runs.jsonl`` is
append-only, one fsynced line per run, so an interrupted runner loses at most
the line it was writing; `read_jsonl` skips such a cut-off last line and
reports it. Where each file goes is `_run_folder`'s and `_report`'s.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import IO

from interchange.atomic_file import write_atomic


def write_file(path: Path, data: bytes) -> None:
    """Create the folder if needed and replace ``path`` with ``data`` atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, data)


def write_json(path: Path, document: object) -> None:
    write_file(path, (json.dumps(document, indent=2, sort_keys=False) + "\n").encode())


def append_jsonl(path: Path, record: dict) -> None:
    """Append one JSON line and fsync it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as stream:
        stream.write(json.dumps(record, sort_keys=False) + "\n")
        stream.flush()
        os.fsync(stream.fileno())


def read_jsonl(path: Path) -> tuple[list[tuple[int, dict]], list[str]]:
    """The records of a JSON-lines file with their line numbers, and a note per line that could not be read."""
    if not path.exists():
        return [], []
    records: list[tuple[int, dict]] = []
    problems: list[str] = []
    text = path.read_bytes().decode("utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(f"{path}:{number}: unreadable record ({error.msg})")
            continue
        if isinstance(record, dict):
            records.append((number, record))
        else:
            problems.append(f"{path}:{number}: record is not a JSON object")
    return records, problems


def open_output(path: Path) -> IO[bytes]:
    """A fresh file for a subprocess's stdout, stderr or log."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return path.open("wb")


def copy_file(source: Path, destination: Path) -> None:
    """Copy one file, creating the destination folder."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, destination)


def read_json_object(path: Path) -> dict | None:
    """A JSON object file's content, or None when it is missing or not an object."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return document if isinstance(document, dict) else None
