// The engine's judgement of a game, for spectators and reviewers (never a player of a live game:
// the page does not ask, and the server would refuse): for the position shown, an evaluation
// bar of White's winning chance with the figure in words, the best line (drawn on the board on
// request), what the estimate rests on, and for Amazons the regions' exact values and their sum
// when the winner is known, the server's note otherwise. A finished game can be reviewed whole
// (`analyze_game`): its progress, then a graph of the evaluation over the plies (a click on it
// goes to that ply), each move's mark (?!, ?, ??) with the better move drawn on the board, and
// each side's summary. Fetched by game.js when the page first shows a game it may analyse.
import { element } from "./board.js";
import { make } from "./describe.js";
import { moveSquares } from "./position.js";

const SURE = 1000; // permille: a sure win
const SIGNS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const SETTLE_MS = 300;
const REVIEW_TRIES = 10; // a whole game's review asked while the server says it is busy // on a position in review before it is asked about: stepping asks nothing
// The graph's drawing box, in its own units (it stretches to the panel's width).
const GRAPH_WIDTH = 600;
const GRAPH_HEIGHT = 120;

// White's chance (permille) in words: "White 64%", "Black 58%", "even"; "White wins (exact)".
export function chanceText(whiteWins, exact) {
  if (exact) return `${whiteWins >= SURE / 2 ? "White" : "Black"} wins (exact)`;
  if (whiteWins === SURE / 2) return "even";
  const [side, chance] = whiteWins > SURE / 2 ? ["White", whiteWins] : ["Black", SURE - whiteWins];
  return `${side} ${Math.min(Math.round(chance / 10), 99)}%`;
}

function basisText(analysis) {
  if (analysis.depth != null) return `depth ${analysis.depth}`;
  if (analysis.playouts != null) {
    return `${analysis.playouts.toLocaleString("en")} playout${analysis.playouts === 1 ? "" : "s"}`;
  }
  return "";
}

export class AnalysisPanel {
  // `show(ply)` goes to a ply of the game (review); `redraw()` draws the board again (an
  // answer changes what is drawn on it).
  constructor(connection, gameId, { show, redraw }) {
    this.connection = connection;
    this.gameId = gameId;
    this.goTo = show;
    this.redraw = redraw;
    this.analyses = new Map(); // ply -> the server's analysis of the position after it
    this.asked = null; // the ply whose analysis is on its way
    this.retried = new Set(); // plies asked again once after the server was busy
    this.busy = new Set(); // plies the server stayed busy for
    this.failed = new Map(); // ply -> why there is no analysis
    this.timer = null;
    this.reviewTimer = null;
    this.shown = null; // {ply, live}: the position the panel is about
    this.review = null; // the complete `game_analysis`
    this.progress = null; // {done, total} while the review is under way
    this.reviewError = "";
    this.build();
  }

  build() {
    this.bar = element("svg", {
      class: "eval-bar",
      id: "eval-bar",
      viewBox: `0 0 ${SURE} 10`,
      preserveAspectRatio: "none",
      "aria-hidden": "true",
    });
    this.barWhite = element("rect", { class: "eval-white", x: 0, y: 0, width: SURE / 2, height: 10 });
    this.bar.append(
      element("rect", { class: "eval-black", x: 0, y: 0, width: SURE, height: 10 }),
      this.barWhite,
      element("line", { class: "eval-middle", x1: SURE / 2, x2: SURE / 2, y1: 0, y2: 10 }),
    );
    this.chance = make("strong", { class: "eval-chance", id: "eval-chance" });
    this.basis = make("span", { class: "eval-basis", id: "eval-basis" });
    this.state = make("span", { class: "eval-state", id: "eval-state", role: "status" });
    this.line = make("p", { class: "eval-line", id: "eval-line" });
    this.exact = make("p", { class: "eval-exact", id: "eval-exact" });
    this.lineBox = make("input", { type: "checkbox", id: "best-line" });
    this.lineBox.addEventListener("change", () => this.redraw());
    this.lineToggle = make("label", { class: "field check", id: "best-line-toggle" }, [
      this.lineBox,
      "draw the best line on the board",
    ]);
    this.reviewButton = make("button", { type: "button", id: "review-game", class: "secondary" });
    this.reviewButton.textContent = "Analyse the whole game";
    this.reviewButton.addEventListener("click", () => this.#reviewGame());
    this.reviewState = make("p", { class: "review-state", id: "review-state", role: "status" });
    this.graph = make("div", { class: "eval-graph", id: "eval-graph" });
    this.graph.addEventListener("click", (event) => {
      const point = event.target.closest?.("[data-ply]");
      if (point !== null && point !== undefined) this.goTo(Number(point.dataset.ply));
    });
    this.marked = make("p", { class: "move-mark", id: "move-mark" });
    this.summary = make("ul", { class: "review-summary", id: "review-summary" });
    this.element = make("div", { class: "analysis", id: "analysis-panel" }, [
      make("div", { class: "eval" }, [this.bar, make("p", { class: "eval-words" }, [this.chance, this.basis, this.state])]),
      this.line,
      this.exact,
      this.lineToggle,
      this.reviewButton,
      this.reviewState,
      this.graph,
      this.marked,
      this.summary,
    ]);
  }

  close() {
    clearTimeout(this.timer);
    clearTimeout(this.reviewTimer);
  }

  // The position after `ply` moves is shown; `live`: the game is being played (the latest
  // position, asked for at once), else a review (asked once the reader stays on it).
  // `ended`: the game is over, so it may be reviewed whole.
  show(game, ply, live) {
    const moved = this.shown?.ply !== ply;
    this.shown = { ply, live };
    this.game = game;
    const analysis = this.analyses.get(ply);
    this.element.dataset.ply = String(ply);
    if (analysis === undefined && moved) {
      clearTimeout(this.timer);
      if (live) this.#ask(ply);
      else this.timer = setTimeout(() => this.#ask(ply), SETTLE_MS);
    }
    this.#render();
  }

  // The analysis of the position after `ply` moves, when it has come.
  at(ply) {
    return this.analyses.get(ply);
  }

  // What goes on the board of the position after `ply` moves: the best line's first moves
  // when asked for, and in a review the better move where the move that made it is marked.
  arrows(ply) {
    const arrows = [];
    const analysis = this.analyses.get(ply);
    if (this.lineBox.checked && analysis?.line?.length) {
      arrows.push({ move: analysis.line[0], kind: "best" });
      if (analysis.line.length > 1) arrows.push({ move: analysis.line[1], kind: "reply" });
    }
    const review = this.#moveReview(ply);
    if (review?.better) arrows.push({ move: review.better, kind: "better" });
    return arrows;
  }

  // The mark of the move that made the position after `ply` moves: {sign, mark} or null.
  markOf(ply) {
    const review = this.#moveReview(ply);
    return review?.mark ? { sign: SIGNS[review.mark], mark: review.mark } : null;
  }

  // A message for this game: the review's progress and its end.
  receive(message) {
    if (message.t !== "game_analysis" || message.game_id !== this.gameId) return;
    if (message.complete) {
      this.review = message;
      this.progress = null;
      this.redraw();
    } else {
      this.progress = { done: message.done, total: message.total };
    }
    this.#render();
  }

  #moveReview(ply) {
    return this.review?.moves.find((move) => move.ply === ply) ?? null;
  }

  #ask(ply) {
    if (this.asked !== null) return; // one at a time: the answer asks for what is shown then
    this.asked = ply;
    this.failed.delete(ply);
    this.connection.request({ t: "analyze", game_id: this.gameId, ply }).then(
      (analysis) => {
        this.asked = null;
        const about = analysis.ply ?? ply;
        // In a live game an answer about a position passed meanwhile is dropped.
        if (!this.shown.live || about === this.shown.ply) this.analyses.set(about, analysis);
        this.#next();
        if (about === this.shown.ply) this.redraw();
      },
      (error) => {
        this.asked = null;
        const busy = error.code === "unavailable" || error.code === "rate_limited";
        if (busy && error.retryAfter !== undefined && !this.retried.has(ply)) {
          // Asked again once, after the time the server says; quietly meanwhile.
          this.retried.add(ply);
          this.busy.add(ply);
          clearTimeout(this.timer);
          this.timer = setTimeout(() => {
            this.busy.delete(ply);
            if (this.shown.ply === ply) this.#ask(ply);
          }, error.retryAfter * 1000);
        } else if (error.code !== "offline") {
          this.failed.set(ply, `No analysis: ${error.message}`);
        }
        this.#next();
      },
    );
    this.#render();
  }

  // After an answer: the position shown now, if it is still to be asked about.
  #next() {
    const ply = this.shown.ply;
    if (!this.analyses.has(ply) && !this.failed.has(ply) && !this.busy.has(ply)) this.#ask(ply);
    this.#render();
  }

  #render() {
    if (this.shown === null) return;
    const { ply } = this.shown;
    const analysis = this.analyses.get(ply);
    const known = analysis?.white_wins != null;
    this.bar.classList.toggle("unknown", !known);
    this.barWhite.setAttribute("width", String(known ? analysis.white_wins : SURE / 2));
    this.chance.textContent = known ? chanceText(analysis.white_wins, analysis.exact) : "";
    this.basis.textContent = analysis ? basisText(analysis) : "";
    let state = "";
    if (this.failed.has(ply)) state = this.failed.get(ply);
    else if (this.busy.has(ply)) state = "analysis busy, retrying";
    else if (analysis === undefined) state = "Analysing…";
    this.state.textContent = state;
    const line = analysis?.line ?? [];
    this.line.textContent = line.length ? `Best line: ${line.join(" ")}` : "";
    this.lineToggle.hidden = line.length === 0;
    this.exact.textContent = analysis ? this.#exactText(analysis) : "";
    this.#renderReview();
  }

  // Amazons: the regions' exact values and their sum when the winner is known; else the note.
  #exactText(analysis) {
    if (analysis.exact && this.game.kind === "amazons" && analysis.regions.length > 0) {
      const values = analysis.regions
        .filter((region) => region.kind === "contested" || region.value !== "0")
        .map((region) => region.value);
      const listed = values.length ? `regions ${values.join(", ")} · ` : "";
      return `Exact: ${listed}sum ${analysis.sum}${analysis.note ? ` · ${analysis.note}` : ""}`;
    }
    return analysis.note ?? "";
  }

  #renderReview() {
    const ended = this.game.status === "ended";
    const review = this.review;
    this.reviewButton.hidden = !ended || review !== null || this.progress !== null;
    this.reviewState.textContent =
      this.progress !== null
        ? `Analysing the game: ${this.progress.done} of ${this.progress.total} positions`
        : this.reviewError;
    if (review === null) {
      this.graph.replaceChildren();
      this.marked.textContent = "";
      this.summary.replaceChildren();
      return;
    }
    this.graph.replaceChildren(this.#graphSvg(review));
    const { ply } = this.shown;
    const move = this.#moveReview(ply);
    this.marked.textContent = move?.mark
      ? `${move.move}${SIGNS[move.mark]} ${move.mark}: ${move.better} was better ` +
        `(${move.mover} lost ${(move.loss / 10).toFixed(1)}%)`
      : "";
    this.marked.dataset.mark = move?.mark ?? "";
    this.summary.replaceChildren(
      ...review.summary.map((side) =>
        make("li", {
          "data-colour": side.colour,
          text:
            `${side.colour === "white" ? "White" : "Black"}: ${side.inaccuracies} ?!, ` +
            `${side.mistakes} ?, ${side.blunders} ?? · average loss ${(side.average_loss / 10).toFixed(1)}%`,
        }),
      ),
    );
  }

  // The whole game's review: asked again after the time the server says while it is busy
  // (this page's own question about the position shown, say), up to REVIEW_TRIES times.
  async #reviewGame(tries = REVIEW_TRIES) {
    this.reviewError = "";
    this.progress ??= { done: 0, total: this.game.moves.length + 1 };
    this.#render();
    try {
      // Progress comes as `game_analysis` messages (receive); the reply is the first of them,
      // so the review is complete only once a complete one has come.
      const reply = await this.connection.request({ t: "analyze_game", game_id: this.gameId });
      this.receive(reply);
    } catch (error) {
      if (error.retryAfter !== undefined && tries > 1) {
        this.reviewTimer = setTimeout(() => this.#reviewGame(tries - 1), error.retryAfter * 1000);
        return;
      }
      this.progress = null;
      this.reviewError =
        error.retryAfter !== undefined
          ? `The analysis is busy: try again in ${error.retryAfter} s`
          : `No review: ${error.message}`;
      this.#render();
    }
  }

  // White's chance over the plies, White's share from the bottom; each marked move a dot of its
  // mark's colour, the ply shown a line; a column per ply to click.
  #graphSvg(review) {
    const points = review.white_wins;
    const last = Math.max(points.length - 1, 1);
    const x = (ply) => (ply * GRAPH_WIDTH) / last;
    const y = (chance) => GRAPH_HEIGHT - (chance * GRAPH_HEIGHT) / SURE;
    const svg = element("svg", {
      class: "graph",
      viewBox: `0 0 ${GRAPH_WIDTH} ${GRAPH_HEIGHT}`,
      preserveAspectRatio: "none",
      role: "img",
      "aria-label": "White's winning chance after each move",
    });
    const line = points.map((chance, ply) => `${x(ply)},${y(chance)}`).join(" ");
    svg.append(
      element("rect", { class: "graph-black", x: 0, y: 0, width: GRAPH_WIDTH, height: GRAPH_HEIGHT }),
      element("polygon", { class: "graph-white", points: `0,${GRAPH_HEIGHT} ${line} ${GRAPH_WIDTH},${GRAPH_HEIGHT}` }),
      element("line", { class: "graph-middle", x1: 0, x2: GRAPH_WIDTH, y1: GRAPH_HEIGHT / 2, y2: GRAPH_HEIGHT / 2 }),
      element("polyline", { class: "graph-line", points: line }),
      element("line", { class: "graph-shown", x1: x(this.shown.ply), x2: x(this.shown.ply), y1: 0, y2: GRAPH_HEIGHT }),
    );
    for (const move of review.moves) {
      if (!move.mark) continue;
      // A line of no length with round ends: a dot that stays round as the graph stretches.
      const at = { x: x(move.ply), y: y(points[move.ply] ?? SURE / 2) };
      svg.append(element("line", { class: `graph-mark ${move.mark}`, x1: at.x, x2: at.x, y1: at.y, y2: at.y }));
    }
    const step = GRAPH_WIDTH / last;
    points.forEach((chance, ply) => {
      const column = element("rect", {
        class: "graph-ply",
        x: Math.max(0, x(ply) - step / 2),
        y: 0,
        width: step,
        height: GRAPH_HEIGHT,
        "data-ply": ply,
      });
      const title = element("title", {});
      title.textContent = `after move ${ply}: ${chanceText(chance, chance === 0 || chance === SURE)}`;
      column.append(title);
      svg.append(column);
    });
    return svg;
  }
}

// Draw `arrows` ({move, kind}) on an Amazons board: the amazon's way and the arrow's, each
// with its head, the kind's colour (the stylesheet's).
export function drawArrows(svg, position, arrows) {
  const flipped = svg.dataset.flipped === "yes";
  const centre = ({ file, rank }) => ({
    x: (flipped ? position.width - 1 - file : file) + 0.5,
    y: (flipped ? rank : position.height - 1 - rank) + 0.5,
  });
  for (const { move, kind } of arrows) {
    const squares = moveSquares(move);
    if (squares.length !== 3) continue;
    const [from, to, shot] = squares.map(centre);
    const group = element("g", { class: `arrow ${kind}`, "data-move": move });
    group.append(stroke(from, to, "way"), stroke(to, shot, "shot"));
    svg.append(group);
  }
}

// Bao: each move of `arrows` ({move, kind}) but the reply marks the pit it sows from, on the
// mover's side, in the kind's colour (the stylesheet's); the move's text says its way.
export function markPits(svg, position, arrows) {
  const side = position.mover === 0 ? "south" : "north";
  for (const { move, kind } of arrows.filter((arrow) => arrow.kind !== "reply")) {
    const found = /^([AB][1-8])([<>]?)/.exec(move);
    const pit = found && svg.querySelector(`.pit[data-side="${side}"][data-pit="${found[1]}"]`);
    if (!pit) continue;
    pit.classList.add("hint", kind);
    pit.dataset.move = move;
  }
}

// A line from `a` to `b` that stops short of its square's middle, and its head.
function stroke(a, b, part) {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const length = Math.hypot(dx, dy) || 1;
  const ux = dx / length;
  const uy = dy / length;
  const end = { x: b.x - ux * 0.25, y: b.y - uy * 0.25 };
  const group = element("g", { class: part });
  group.append(
    element("line", { x1: a.x, y1: a.y, x2: end.x, y2: end.y }),
    element("polygon", {
      points: [
        `${b.x},${b.y}`,
        `${end.x - uy * 0.16},${end.y + ux * 0.16}`,
        `${end.x + uy * 0.16},${end.y - ux * 0.16}`,
      ].join(" "),
    }),
  );
  return group;
}
