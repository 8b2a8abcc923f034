"""A background loop's turn that fails because Redis cannot be reached (restarting, a cluster
failing over) is logged in one line, every turn until Redis is back; anything else with its
traceback."""

from __future__ import annotations

from redis.exceptions import ClusterDownError, ConnectionError
from structlog.testing import capture_logs

from server.app import _turn_failed


def test_a_turn_that_met_no_redis_is_one_line_and_any_other_failure_a_traceback() -> None:
    refused = "Error 111 connecting to 127.0.0.1:7001. Connection refused."
    with capture_logs() as logs:
        for error in (
            ConnectionError(refused),
            ClusterDownError("The cluster is down"),
            KeyError(1),
        ):
            try:
                raise error
            except Exception:
                _turn_failed("sweep_failed", bucket=3)
    assert logs == [
        {
            "event": "sweep_failed",
            "log_level": "warning",
            "error": f"ConnectionError: {refused}",
            "bucket": 3,
        },
        {
            "event": "sweep_failed",
            "log_level": "warning",
            "error": "ClusterDownError: The cluster is down",
            "bucket": 3,
        },
        {"event": "sweep_failed", "log_level": "error", "exc_info": True, "bucket": 3},
    ]
