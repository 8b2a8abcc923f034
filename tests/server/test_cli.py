import io
import subprocess
import sys
from typing import Any

import pytest

import server.cli
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


def test_a_bad_metrics_port_in_the_environment_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARENA_METRICS_PORT", "ninety")
    with pytest.raises(SystemExit) as exit_info:
        main(["worker"])
    assert exit_info.value.code == 2
    assert "argument --metrics-port: a port is 0..65535, got 'ninety'" in capsys.readouterr().err


def test_the_workers_arena_serve_starts_get_no_metrics_port(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Several workers cannot share one port: those of `arena serve --workers N` have none."""
    started: list[dict[str, str]] = []

    def popen(args: list[str], env: dict[str, str], **options: Any) -> None:
        started.append(env)

    monkeypatch.setattr(subprocess, "Popen", popen)
    monkeypatch.setenv("ARENA_METRICS_PORT", "9101")
    monkeypatch.setenv("ARENA_METRICS_HOST", "0.0.0.0")
    server.cli._start_worker("redis://localhost:6379/0")
    assert "ARENA_METRICS_PORT" not in started[0]
    assert "ARENA_METRICS_HOST" not in started[0]
