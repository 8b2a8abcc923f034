"""The terminal client, on Textual: screens made of small widgets, among them one board widget
per game behind one interface (`clients.tui.board`)."""
