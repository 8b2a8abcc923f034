"""Hypothesis strategies for canonical forms: games built from small options, and the same as
text in the notation cgt-py reads too (numbers, `*`, `*2`, `^`, `v`, `^*`, nested braces)."""

from __future__ import annotations

from hypothesis import strategies as st

from engine.cgt import Form

# Values whose spelling cgt-py and this library both read.
SHARED_ATOMS = ["0", "1", "-1", "2", "-2", "1/2", "-1/2", "3/4", "*", "*2", "^", "v", "^*", "v*"]


def _braced(left: list[str], right: list[str]) -> str:
    return "{" + ",".join(left) + "|" + ",".join(right) + "}"


def game_texts(max_leaves: int = 10, max_options: int = 3) -> st.SearchStrategy[str]:
    """Games written as nested braces over SHARED_ATOMS, up to `max_options` a side."""
    return st.recursive(
        st.sampled_from(SHARED_ATOMS),
        lambda inner: st.builds(
            _braced,
            st.lists(inner, min_size=1, max_size=max_options),
            st.lists(inner, min_size=1, max_size=max_options),
        ),
        max_leaves=max_leaves,
    )


def games(max_leaves: int = 10) -> st.SearchStrategy[Form]:
    """Canonical forms of random games built from small options."""
    extra = ["+-1", "{1|0}", "{0||0|-1}", "^^", "1*", "+-{1,{2|0}}", "5/8", "-3"]
    atoms = st.sampled_from(SHARED_ATOMS + extra).map(Form.parse)
    return st.recursive(
        atoms,
        lambda inner: st.builds(
            Form.from_options,
            st.lists(inner, min_size=1, max_size=3),
            st.lists(inner, min_size=1, max_size=3),
        ),
        max_leaves=max_leaves,
    )
