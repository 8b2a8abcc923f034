// How the protocol's values read on the page: players, time controls, clocks, results.

export function playerName(player) {
  return player.rating === undefined || player.rating === null
    ? player.name
    : `${player.name} (${player.rating})`;
}

// A player's page, and their name (with the rating when it is known) as a link to it.
export function playerPath(name) {
  return `/player/${encodeURIComponent(name)}`;
}

export function playerLink(player, attributes = {}) {
  return make("a", { ...attributes, href: playerPath(player.name), text: playerName(player) });
}

export function timeControl(time) {
  const base = time.base % 60 === 0 ? `${time.base / 60}` : `${time.base}s`;
  return `${base}+${time.increment}`;
}

// A clock's time: h:mm:ss, m:ss, and under 10 s with tenths (0:09.4).
export function clock(ms) {
  if (ms < 10000) {
    const tenths = Math.max(0, Math.floor(ms / 100));
    return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = String(seconds % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

// How a game ended, from the winner's side: the loser is the other one.
const TERMINATIONS = {
  no_legal_move: (loser) => `: ${loser} has no legal move`,
  time_forfeit: () => " on time",
  resignation: () => " by resignation",
  abandoned: (loser) => `: ${loser} left the game`,
};
// The same from a player's own side: [as the winner, as the loser].
const OWN_TERMINATIONS = {
  no_legal_move: ["You won: your opponent has no legal move", "You lost: you have no legal move"],
  time_forfeit: ["You won on time", "You lost on time"],
  resignation: ["You won: your opponent resigned", "You lost: you resigned"],
  abandoned: ["You won: your opponent left the game", "You lost: you left the game"],
};

// The result in words: neutral ("Black wins on time"), or from the side of `mine`, the colour
// the reader plays ("You lost on time"). An aborted game says why, when the server said
// (`aborted`: `cause` and `side` as `game_ended`'s `abort_cause` and `abort_side`, and
// `windowMs` the first move's window).
export function result(winner, termination, mine = null, aborted = {}) {
  if (termination === "ply_cap") return "Drawn at the ply cap";
  if (termination === "aborted" || !winner) return abortedBecause(mine, aborted);
  if (mine !== null) {
    const won = winner === mine;
    const own = OWN_TERMINATIONS[termination];
    return own ? own[won ? 0 : 1] : `${won ? "You won" : "You lost"} (${termination})`;
  }
  const [side, loser] = winner === "white" ? ["White", "Black"] : ["Black", "White"];
  const how = TERMINATIONS[termination]?.(loser) ?? ` (${termination})`;
  return `${side} wins${how}`;
}

function abortedBecause(mine, { cause, side, windowMs }) {
  let who = side === "white" ? "White" : "Black";
  if (mine !== null) who = side === mine ? "you" : "your opponent";
  if (cause === "called_off") return `${who[0].toUpperCase()}${who.slice(1)} aborted the game`;
  if (cause === "no_first_move") {
    const within = windowMs ? `within ${windowMs / 1000} s` : "in time";
    return `Game aborted: ${who} made no first move ${within}`;
  }
  return "Game aborted";
}

// A new element with text and attributes; text goes in as text, never as markup.
export function make(tag, { text, ...attributes } = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  node.append(...children);
  return node;
}

// A rating pool as pages name it: a game's (a house bot's at its strength) or a ladder's.
export function poolLabel(pool) {
  if (pool.ladder) return `Ladder ${pool.ladder}`;
  return pool.strength ? `${pool.game} at strength ${pool.strength}` : pool.game;
}

// A pool's rating as pages show it: points, deviation, and whether it is provisional.
export function ratingText(pool) {
  return `${pool.rating} ± ${pool.deviation}${pool.provisional ? " (provisional)" : ""}`;
}
