"""Games registered only in the test suite, to prove that every layer reaches a game through the
registry."""
