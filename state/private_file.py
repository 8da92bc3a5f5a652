"""Files only their owner may read (0600): the query log and the user-hash salt."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

PRIVATE_FILE_MODE = 0o600


def open_private(path: Path, flags: int) -> int:
    """``os.open`` a file with mode 0600, narrowing it to 0600 when it already existed
    with a wider mode."""
    fd = os.open(path, flags, PRIVATE_FILE_MODE)
    try:
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, PRIVATE_FILE_MODE)
    except OSError:
        os.close(fd)
        raise
    return fd


def read_or_create_private(path: Path, make: str) -> str:
    """The text of ``path``; first written as ``make`` when there is no such file.

    The file appears complete or not at all (written aside, then hard-linked into
    place), so processes starting at once agree on one value and never read half of it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            with os.fdopen(
                open_private(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), "w", encoding="utf-8"
            ) as fh:
                fh.write(make)
            with contextlib.suppress(FileExistsError):  # another process won: use its value
                os.link(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    fd = open_private(path, os.O_RDONLY)
    with os.fdopen(fd, encoding="utf-8") as fh:
        return fh.read()
