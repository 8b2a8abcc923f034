"""The Redis memory benchmark, in a tiny run from two sources: its guests play and resign, and
Redis's memory and keys are reported for each. Its figures are printed, never asserted."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import structlog

from bench.redis_memory import kind_of, main

CHECKOUT = Path(__file__).resolve().parents[2]


def test_a_tiny_run_reports_each_source_side_by_side(
    capsys: pytest.CaptureFixture[str],
) -> None:
    saved = structlog.get_config()
    try:
        main(
            [
                *("--games", "5", "--live", "2", "--plies", "2", "--quiet", "0"),
                *("--source", str(CHECKOUT), "--source", str(CHECKOUT)),
            ]
        )
    finally:
        structlog.configure(**saved)
    out = capsys.readouterr().out
    assert "5 games of 6x6 (2 plies, then a resignation), 2 at once" in out
    rows = {
        cells[0]: cells[1:] for cells in (re.split(r"\s{2,}", line) for line in out.splitlines())
    }
    assert rows["source"] == [str(CHECKOUT), str(CHECKOUT)]
    for row, unit in [
        ("tables seated (the start)", "MiB"),
        ("peak", "MiB"),
        ("per live game (median of waves)", "B"),
        ("after every game ended", "MiB"),
        ("kept per finished game", "B"),
    ]:
        # used_memory and, in brackets, used_memory_dataset, for each source
        figure = rf"-?[\d.,]+ {unit} \(-?[\d.,]+\)"
        assert [re.fullmatch(figure, cell) is not None for cell in rows[row]] == [True, True]
    # The census counts every key: the two tables' four guests each have a session.
    sessions = [line.split() for line in out.splitlines() if line.endswith(" session:*")]
    assert [line[0] for line in sessions] == ["4", "4"]


def test_a_key_is_counted_by_its_kind() -> None:
    assert kind_of("{g:Ab3_x}:events") == "{g:*}:events"
    assert kind_of("user-finished:guest-12") == "user-finished:*"
    assert kind_of("lobby:seek-taken:x2bhDUc8") == "lobby:seek-taken:*"
    assert kind_of("session:abc_DEF-123") == "session:*"
    assert kind_of("games:archive") == "games:archive"


def test_bad_arguments_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--source", "/nonexistent"])
    assert stopped.value.code == 2
    assert "--source /nonexistent: no server/cli.py there" in capsys.readouterr().err
