// A player's page (`/player/NAME`): who the player is, its rating in each pool it has played
// rated games in with that rating's history drawn as a small chart (one dot per rated game), and
// every game it finished, a page at a time (the profile's first page, then `player_games`), each
// a link to its review. An unknown name shows the server's message. The chart is a few SVG
// elements made here: a line, its dots and two axis labels.
import { make, playerLink, playerPath, poolLabel, ratingText } from "./describe.js";
import { GamePager } from "./pager.js";

const SVG = "http://www.w3.org/2000/svg";
// In the chart's own units: drawn at 400 wide it is scaled to the page's width (up to 520 px),
// so its labels stay readable on a phone.
const CHART = { width: 400, height: 130, left: 40, right: 10, top: 10, bottom: 22, inset: 8 };
const KINDS = { human: "Player", guest: "Guest", bot: "Bot", house: "House bot" };
const ENDINGS = {
  no_legal_move: "no legal move",
  time_forfeit: "on time",
  resignation: "by resignation",
  abandoned: "left the game",
  aborted: "aborted",
  ply_cap: "at the ply cap",
};

export class PlayerPage {
  constructor(root, connection, name) {
    this.connection = connection;
    this.name = name;
    this.heading = make("h2", { text: name });
    this.about = make("p", { class: "terms", id: "player-kind" });
    this.error = make("p", { class: "game-error", id: "player-error", role: "alert" });
    this.ratings = make("div", { id: "player-ratings" });
    this.games = new GamePager("player-games", {
      title: "Games",
      empty: "No finished games yet",
      fetchPage: (before) =>
        this.connection.request({ t: "player_games", name: this.name, ...(before ? { before } : {}) }),
      row: gameRow,
      failed: (error) => this.#failed(error),
    });
    root.replaceChildren(
      make("p", { class: "back" }, [make("a", { href: "/", text: "← Lobby" })]),
      make("section", { class: "panel standings-view player-view" }, [
        this.heading,
        this.about,
        this.error,
        this.ratings,
        this.games.root,
      ]),
    );
  }

  close() {}

  receive() {}

  online() {
    if (!this.connection.online) return;
    this.connection.request({ t: "player_info", name: this.name }).then(
      (reply) => this.#render(reply),
      (error) => this.#failed(error),
    );
  }

  #failed(error) {
    if (error.code !== "offline") this.error.textContent = error.message;
  }

  #render(profile) {
    this.error.textContent = "";
    this.heading.textContent = profile.name;
    document.title = `${profile.name} · Amazons Arena`;
    const owner = profile.owner
      ? [", owned by ", make("a", { href: playerPath(profile.owner), text: profile.owner })]
      : [];
    this.about.replaceChildren(KINDS[profile.kind] ?? profile.kind, ...owner);
    const ratings = profile.ratings ?? [];
    this.ratings.replaceChildren(
      make("h3", { text: "Ratings" }),
      ratings.length === 0
        ? make("p", { class: "empty", text: "No rated games yet" })
        : make("ul", { class: "rows pools" }, ratings.map((pool) => poolRow(pool))),
    );
    this.games.first(profile);
  }
}

function poolRow(pool) {
  const history = pool.history ?? [];
  const games = history.length === 1 ? "1 rated game" : `${history.length} rated games`;
  return make("li", { class: "pool", "data-pool": poolLabel(pool) }, [
    make("div", { class: "pool-head" }, [
      make("span", { class: "who", text: poolLabel(pool) }),
      make("span", { class: "rating", text: ratingText(pool) }),
      make("span", { class: "what", text: games }),
    ]),
    history.length > 0 ? chart(history) : "",
  ]);
}

function gameRow(game) {
  const won = game.winner ? game.winner === game.colour : null;
  const drawn = game.termination === "ply_cap";
  const outcome = drawn ? "Drawn" : won === null ? "Aborted" : won ? "Won" : "Lost";
  const terms = [
    `as ${game.colour}`,
    game.game !== "amazons" ? game.game : null,
    game.setup,
    game.rated ? "rated" : "casual",
    won === null && !drawn ? null : ENDINGS[game.termination],
  ].filter(Boolean);
  return make("li", { class: "row played", "data-game": game.game_id }, [
    make("span", { class: `result ${outcome.toLowerCase()}`, text: outcome }),
    make("span", { class: "who" }, ["vs ", playerLink(game.opponent, { class: "opponent" })]),
    make("span", { class: "what", text: terms.join(" · ") }),
    make("span", { class: "what", text: game.ended ? day(game.ended) : "" }),
    make("a", { class: "review", href: `/game/${encodeURIComponent(game.game_id)}`, text: "Review" }),
  ]);
}

// The history as a line through one dot per rated game, evenly spaced (games, not days, so a
// busy afternoon does not crowd into one spot), the rating's range on the left.
function chart(history) {
  const { width, height, left, right, top, bottom, inset } = CHART;
  const ratings = history.map((point) => point.rating);
  let low = Math.min(...ratings);
  let high = Math.max(...ratings);
  if (high - low < 20) [low, high] = [low - 10, high + 10];
  const span = width - left - right - 2 * inset;
  const x = (i) => left + inset + (history.length === 1 ? 0.5 : i / (history.length - 1)) * span;
  const y = (rating) => top + ((high - rating) / (high - low)) * (height - top - bottom);
  const points = history.map((point, i) => `${x(i).toFixed(1)},${y(point.rating).toFixed(1)}`);
  const svg = svgNode("svg", {
    class: "chart",
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": `rating from ${ratings[0]} to ${ratings.at(-1)} over ${history.length} rated games`,
  });
  svg.append(
    svgNode("line", { class: "axis", x1: left, y1: height - bottom, x2: width - right, y2: height - bottom }),
    svgNode("line", { class: "axis", x1: left, y1: top, x2: left, y2: height - bottom }),
    svgText(left - 4, top + 4, String(Math.round(high)), "end"),
    svgText(left - 4, height - bottom, String(Math.round(low)), "end"),
    svgText(left, height - 6, day(history[0].at), "start"),
    svgText(width - right, height - 6, day(history.at(-1).at), "end"),
    svgNode("polyline", { class: "line", points: points.join(" ") }),
  );
  history.forEach((point, i) => {
    const dot = svgNode("circle", { class: "point", cx: x(i).toFixed(1), cy: y(point.rating).toFixed(1), r: 3.5 });
    const title = svgNode("title");
    title.textContent = `${point.rating} ± ${point.deviation} after game ${point.game_id}, ${day(point.at)}`;
    dot.append(title);
    svg.append(dot);
  });
  return svg;
}

function svgNode(name, attributes = {}) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

function svgText(x, y, text, anchor) {
  const node = svgNode("text", { class: "label", x, y, "text-anchor": anchor });
  node.textContent = text;
  return node;
}

function day(ms) {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}
