// A bot ladder's standings (`/ladder/NAME`): the table the server's `ladder_standings` answers
// with, and its cross table when the server sends one, asked again every few seconds; and every
// game the ladder finished, a page at a time (`ladder_games`), each a link to its review. An
// unknown ladder shows the server's message, which names the ladders there are.
import { make, playerPath } from "./describe.js";
import { GamePager } from "./pager.js";

const POLL_MS = 10000;

export class LadderPage {
  constructor(root, connection, name) {
    this.connection = connection;
    this.name = name;
    this.heading = make("h2", { text: `Ladder ${name}` });
    this.error = make("p", { class: "game-error", id: "ladder-error", role: "alert" });
    this.table = make("div", { id: "standings" });
    this.games = new GamePager("ladder-games", {
      title: "Games",
      empty: "No finished games yet",
      fetchPage: (before) =>
        this.connection.request({ t: "ladder_games", ladder: this.name, ...(before ? { before } : {}) }),
      row: gameRow,
      failed: (error) => this.#failed(error),
    });
    this.cross = make("div", { id: "cross-table" });
    root.replaceChildren(
      make("p", { class: "back" }, [make("a", { href: "/", text: "← Lobby" })]),
      make("section", { class: "panel standings-view" }, [
        this.heading,
        this.error,
        this.table,
        this.games.root,
        this.cross,
      ]),
    );
    this.timer = setInterval(() => this.online(), POLL_MS);
  }

  close() {
    clearInterval(this.timer);
  }

  receive() {}

  online() {
    if (!this.connection.online) return;
    this.connection.request({ t: "ladder_standings", ladder: this.name }).then(
      (reply) => {
        this.#render(reply);
        this.games.refresh();
      },
      (error) => this.#failed(error),
    );
  }

  #failed(error) {
    if (error.code !== "offline") this.error.textContent = error.message;
  }

  #render(reply) {
    this.error.textContent = "";
    this.heading.textContent = `Ladder ${reply.ladder}`;
    const rows = reply.rows ?? [];
    const has = (field) => rows.some((row) => row[field] !== undefined && row[field] !== null);
    const columns = [
      ["#", (row) => String(row.rank), true],
      ["Bot", (row) => make("a", { href: playerPath(row.bot), text: row.bot })],
      ["Rating", (row) => (row.anchor ? `${row.rating} (anchor)` : `${row.rating} ± ${row.margin}`), true],
      ["Games", (row) => String(row.games), true],
      ["Wins", (row) => String(row.wins), true],
      has("glicko") && ["Glicko-2", (row) => (row.glicko == null ? "–" : `${row.glicko} ± ${row.deviation}`), true],
      has("owner") && ["Owner", (row) => row.owner ?? ""],
      has("engine") && ["Engine", (row) => row.engine ?? ""],
      ["Seen", (row) => seen(row)],
    ].filter(Boolean);
    if (rows.length === 0) {
      this.table.replaceChildren(make("p", { class: "empty", text: "No bots on this ladder yet" }));
    } else {
      this.table.replaceChildren(
        table(
          columns.map(([title, , number]) => [title, number]),
          rows.map((row) => columns.map(([, cell, number]) => [cell(row), number])),
          "standings",
        ),
      );
    }
    this.#renderCross(rows, reply.cross ?? []);
  }

  #renderCross(rows, cross) {
    if (cross.length === 0) {
      this.cross.replaceChildren();
      return;
    }
    const bots = rows.map((row) => row.bot);
    const score = new Map();
    for (const [bot, opponent, wins, losses] of cross) {
      score.set(`${bot}\n${opponent}`, `${wins}–${losses}`);
      score.set(`${opponent}\n${bot}`, `${losses}–${wins}`);
    }
    const head = [["", false], ...bots.map((_, i) => [String(i + 1), true])];
    const body = bots.map((bot, i) => [
      [make("span", {}, [`${i + 1}. `, make("a", { href: playerPath(bot), text: bot })]), false],
      ...bots.map((other) => [bot === other ? "·" : (score.get(`${bot}\n${other}`) ?? ""), true]),
    ]);
    this.cross.replaceChildren(make("h3", { text: "Cross table (wins–losses)" }), table(head, body, "standings cross"));
  }
}

function gameRow(game) {
  const winner = game.winner === "white" ? game.white : game.black;
  const when = game.ended ? ` · ${new Date(game.ended).toISOString().slice(0, 16).replace("T", " ")}` : "";
  return make("li", { class: "row", "data-game": game.game_id }, [
    make("a", { href: `/game/${encodeURIComponent(game.game_id)}`, text: `${game.white} – ${game.black}` }),
    make("span", { class: "what", text: `${winner} won${when}` }),
  ]);
}

function seen(row) {
  if (row.online) return "online";
  if (row.last_seen == null) return "";
  return new Date(row.last_seen).toISOString().slice(0, 16).replace("T", " ");
}

// A table from `[title, numeric]` headings and rows of `[content, numeric]` cells, the content
// text or an element (a link to a bot's page).
function table(head, body, className) {
  const cell = (tag, [content, number]) => {
    if (typeof content === "string") return make(tag, number ? { class: "number", text: content } : { text: content });
    return make(tag, number ? { class: "number" } : {}, [content]);
  };
  return make("table", { class: className }, [
    make("thead", {}, [make("tr", {}, head.map((h) => cell("th", h)))]),
    make("tbody", {}, body.map((row) => make("tr", {}, row.map((c) => cell("td", c))))),
  ]);
}
