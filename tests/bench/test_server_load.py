"""The load benchmark, in a tiny run: its clients connect, play and count against both the
server and the relay. Its figures are printed, never asserted."""

from __future__ import annotations

import pytest
import structlog

from bench.server_load import main, stall_seconds


def test_a_tiny_run_plays_against_the_server_and_the_relay(
    capsys: pytest.CaptureFixture[str],
) -> None:
    saved = structlog.get_config()
    try:
        main(
            [
                *("--games", "3", "--seconds", "2", "--think", "0.2", "--scripts", "2"),
                *("--loads", "human", "--relay-loads", "human"),
            ]
        )
    finally:
        structlog.configure(**saved)
    out = capsys.readouterr().out
    rows = {tuple(line.split()[:2]): line.split() for line in out.splitlines()}
    for target in ("arena", "relay"):
        games, connections, moves_a_second = rows[("human", target)][2:5]
        assert (games, connections) == ("3", "9")
        assert int(moves_a_second) > 0
    assert out.count("stalls (a move unseen after 10 s, or a new game after 60 s) 0;") == 2
    assert out.count("connections dropped 0; tables failed 0") == 2
    # The server's garbage collections over the window are reported (the relay's are not timed).
    assert "server, human arena: gen-0 " in out
    assert "relay, human relay: gen-0" not in out


def test_a_stall_is_judged_against_the_longest_think() -> None:
    assert stall_seconds(1.0) == 10.0
    assert stall_seconds(10.0) == 15.0
