// A finished game's record (docs/records.md: one JSON object, a line of a JSON Lines file),
// built in the browser from the game as the page holds it, and offered as a file to save.
// What the page is never told is left empty as the format allows: the date, the ratings when
// the game began, each move's thinking time and clocks (`arena archive` writes them all).

export function gameRecord(game, gameId) {
  return {
    game: game.kind,
    game_id: gameId,
    date: null,
    rated: Boolean(game.rated),
    white_rating: null,
    black_rating: null,
    start: game.start,
    setup: game.setup ?? null,
    white: game.white.name,
    black: game.black.name,
    moves: [...game.moves],
    seconds: [],
    nodes: [],
    winner: game.winner ?? null,
    termination: (game.termination ?? "").replaceAll("_", " "),
    budget: null,
    time: [game.time.base, game.time.increment],
    clocks: [],
  };
}

// Save `record` as `game-ID.jsonl` through a link to an object URL (no server round trip).
export function download(record, gameId) {
  const blob = new Blob([`${JSON.stringify(record)}\n`], { type: "application/x-ndjson" });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = `game-${gameId}.jsonl`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
