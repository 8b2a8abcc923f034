import io
import sys

import pytest

from server.cli import main


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
