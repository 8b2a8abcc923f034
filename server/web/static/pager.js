// Pages of finished games, the latest first, as `player_games` and `ladder_games` answer them
// (protocol.md, "Players"): a list, *Older games* to the page the shown one's `next` starts and
// *Newer games* back to the one before it. The cursor each page was asked with is kept, so a
// newer page comes back as it was, whatever has ended since; only the first page gains games.
import { make } from "./describe.js";

export class GamePager {
  // `fetchPage(before)` asks for the page after the cursor `before` (none: the first page) and
  // resolves to the reply ({games, next}); `row(game)` makes a game's list item; `failed(error)`
  // shows a refused request.
  constructor(id, { title, empty, fetchPage, row, failed }) {
    this.title = title;
    this.empty = empty;
    this.fetchPage = fetchPage;
    this.row = row;
    this.failed = failed;
    this.trail = []; // the pages before the one shown: {before, offset}
    this.shown = { before: null, offset: 0, games: [], next: null };
    this.newer = make("button", { class: "small secondary", id: `${id}-newer`, text: "← Newer games" });
    this.older = make("button", { class: "small secondary", id: `${id}-older`, text: "Older games →" });
    this.range = make("span", { class: "what", id: `${id}-range` });
    this.newer.addEventListener("click", () => this.#back());
    this.older.addEventListener("click", () => this.#on());
    this.root = make("div", { id });
  }

  // Show `reply` as the first page (a player's profile holds its first page).
  first(reply) {
    this.trail = [];
    this.#show({ before: null, offset: 0 }, reply);
  }

  // Ask for the page shown again: the first page's newest games come in.
  refresh() {
    const { before, offset } = this.shown;
    return this.#ask({ before, offset });
  }

  #on() {
    const { before, offset, games, next } = this.shown;
    if (!next) return;
    this.trail.push({ before, offset });
    this.#ask({ before: next, offset: offset + games.length }, () => this.trail.pop());
  }

  #back() {
    const page = this.trail.pop();
    if (page) this.#ask(page, () => this.trail.push(page));
  }

  #ask(page, undo = () => {}) {
    this.older.disabled = this.newer.disabled = true;
    return this.fetchPage(page.before).then(
      (reply) => this.#show(page, reply),
      (error) => {
        undo();
        this.#buttons();
        this.failed(error);
      },
    );
  }

  #show({ before, offset }, reply) {
    const games = reply.games ?? [];
    this.shown = { before, offset, games, next: reply.next ?? null };
    const pager = make("p", { class: "pager" }, [this.newer, this.range, this.older]);
    this.range.textContent = games.length === 0 ? "" : `${offset + 1}–${offset + games.length}`;
    this.#buttons();
    const paged = this.trail.length > 0 || this.shown.next !== null;
    this.root.replaceChildren(
      make("h3", { text: this.title }),
      games.length === 0 && !paged
        ? make("p", { class: "empty", text: this.empty })
        : make("ul", { class: "rows" }, games.map((game) => this.row(game))),
      paged ? pager : "",
    );
  }

  #buttons() {
    this.newer.disabled = this.trail.length === 0;
    this.older.disabled = this.shown.next === null;
  }
}
