import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from server.cli import main

COMMAND_SECONDS = 60  # for one command to run, so a command that hangs fails its test


class _Gone(io.StringIO):
    """Standard output whose reader has gone away, as in `arena moves | head -1`."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_reader_that_goes_away_is_not_an_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdout", _Gone())
    assert main(["moves"]) == 0
    assert capsys.readouterr().err == ""


def test_an_unreadable_file_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["fit", "/nonexistent/games.jsonl"])
    assert exit_info.value.code == 2
    assert "arena fit: error: cannot read /nonexistent/games.jsonl" in capsys.readouterr().err


def _arena(
    *args: str, cwd: Path, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` run as a user would, from `cwd`, with stdout and stderr apart."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_") and k != "REDIS_URL"}
    return subprocess.run(
        [sys.executable, "-m", "server.cli", *args],
        cwd=cwd,
        env={**clean, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=COMMAND_SECONDS,
    )


def test_a_token_is_the_only_output_and_the_data_folder_is_named(tmp_path: Path) -> None:
    data = tmp_path / ".arena"
    first = _arena("token", "create", "mybot", "--bot", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert re.fullmatch(r"bot_[A-Za-z0-9_-]{43}\n", first.stdout)
    assert f"data folder {data} (a new database" in first.stderr
    again = _arena("token", "create", "mybot", "--bot", cwd=tmp_path)
    assert re.fullmatch(r"bot_[A-Za-z0-9_-]{43}\n", again.stdout)
    assert f"data folder {data}" in again.stderr
    assert "new database" not in again.stderr


def test_archive_and_user_create_write_only_their_output_to_stdout(tmp_path: Path) -> None:
    created = _arena("user", "create", "ann", cwd=tmp_path, env={"ARENA_PASSWORD": "pw"})
    assert (created.returncode, created.stdout) == (0, "created account ann\n"), created.stderr
    archived = _arena("archive", cwd=tmp_path)
    assert (archived.returncode, archived.stdout) == (0, ""), archived.stderr
    assert f"data folder {tmp_path / '.arena'}" in archived.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["serve", "--port", "0", "--workers", "0"],
        ["worker"],
        ["archive"],
        ["token", "create", "mybot", "--bot"],
        ["user", "create", "ann"],
    ],
)
def test_a_redis_that_does_not_answer_is_one_line_naming_it(
    command: list[str], tmp_path: Path
) -> None:
    url = "redis://:secret@127.0.0.1:1/0"
    result = _arena(*command, "--redis-url", url, cwd=tmp_path, env={"ARENA_PASSWORD": "pw"})
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "cannot reach Redis at redis://:***@127.0.0.1:1/0" in result.stderr
    assert "secret" not in result.stderr
