"""The ladder benchmarks, in tiny runs: the pairing figures and the simulated ladder's
standings come out as they are read. Their figures are printed, never asserted."""

from __future__ import annotations

import re

import pytest

from bench import ladder_pairing, ladder_ratings


def test_the_pairing_benchmark_prints_a_line_per_size(capsys: pytest.CaptureFixture[str]) -> None:
    ladder_pairing.main(["--bots", "10", "40", "--rounds", "3"])

    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    for line, count in zip(lines, ("10", "40"), strict=True):
        assert re.fullmatch(
            rf"pairing a round of {count} bots: median [\d.]+ ms \(min [\d.]+, max [\d.]+; "
            r"3 rounds, \d+ games a round\)",
            line,
        )


def test_the_ratings_benchmark_prints_the_standings_of_its_games(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ladder_ratings.main(["--bots", "4", "--games", "30", "--seed", "3"])

    out = capsys.readouterr().out
    assert out.startswith("30 games among 4 bots 120 Elo apart (anchors bot1 and bot4, seed 3)")
    table = out.split("\n\n")[1].splitlines()
    assert table[0].split() == ["rank", "bot", "rating", "95%", "games", "won", "score"]
    assert sorted(line.split()[1] for line in table[1:]) == ["bot1", "bot2", "bot3", "bot4"]
    assert sum(int(line.split()[4]) for line in table[1:]) == 2 * 30
    assert re.search(r"^order matches the known one: (yes|no)$", out, re.MULTILINE)
    assert re.search(r"^widest interval ±\d+ Elo: all under ±100: (yes|no)$", out, re.MULTILINE)
