"""Runtime.user_salt: the salt that pseudonymizes user ids is created once, owner-only."""

from __future__ import annotations

import stat
from pathlib import Path

from bot.runtime import Runtime
from bot.settings import load_settings


def test_salt_file_is_created_private_and_kept(tmp_path: Path) -> None:
    data = tmp_path / "data"
    salt = Runtime(load_settings(data_dir=data)).user_salt
    path = data / ".user-salt"
    assert len(salt) == 32 and path.read_text() == salt
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert Runtime(load_settings(data_dir=data)).user_salt == salt  # the same on restart
    assert [p.name for p in data.iterdir()] == [".user-salt"]  # no temporary file left


def test_an_older_world_readable_salt_is_narrowed(tmp_path: Path) -> None:
    path = tmp_path / ".user-salt"
    path.write_text("0123456789abcdef0123456789abcdef\n")
    path.chmod(0o644)
    assert Runtime(load_settings(data_dir=tmp_path)).user_salt == "0123456789abcdef" * 2
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_configured_salt_writes_no_file(tmp_path: Path) -> None:
    rt = Runtime(load_settings(data_dir=tmp_path, user_hash_salt="configured"))
    assert rt.user_salt == "configured"
    assert not (tmp_path / ".user-salt").exists()
