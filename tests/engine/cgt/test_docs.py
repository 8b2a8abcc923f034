"""The example session in docs/cgt.md runs as written."""

from __future__ import annotations

import doctest
from pathlib import Path

DOCS = Path(__file__).resolve().parents[3] / "docs" / "cgt.md"


def test_the_example_session_in_the_docs_runs() -> None:
    result = doctest.testfile(str(DOCS), module_relative=False, verbose=False)
    assert result.attempted >= 6
    assert result.failed == 0
