"""The connection's state, shown on every screen: connected, reconnecting (attempt N),
resynced, or why there is no connection."""

from __future__ import annotations

from textual.widgets import Static

__all__ = ["ConnectionStatus"]


class ConnectionStatus(Static):
    """Follows the application's `connection`, coloured by what it means."""

    def on_mount(self) -> None:
        self.watch(self.app, "connection", self._show)

    def _show(self, state: str) -> None:
        # `arena play --ascii` marks it in ASCII, as everything else.
        self.update(f"{'*' if getattr(self.app, 'ascii', False) else '●'} {state}")
        self.set_class(state in ("connected", "resynced"), "-up")
        self.set_class(state.startswith(("reconnecting", "connecting")), "-trying")
        self.set_class(
            not state.startswith(("connected", "resynced", "reconnecting", "connecting")), "-down"
        )
