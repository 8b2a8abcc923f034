// One game as its players and spectators see it: the board after each move, the players and
// their clocks, and the move list, kept by the game's event versions (docs/protocol.md): a
// version already seen is skipped, a gap is filled by `resync`, and a `game_state` replaces
// what the page had. A player also makes moves here (on the board or as text), and may resign,
// abort while the game is young, and claim victory once the opponent has been away long enough.
// Each side's first move is counted down (its window, from the server's offers or what its
// `game_state` says is left), and an aborted game says why, from the reader's side.
// Spectators see how many watch and the engine's judgement of each position as it comes, with
// the region values on the board on request (never a player of a live game: the server refuses
// it). An ended game is shown for review: any position by its move number, each with its
// analysis, the whole game's review on request, and its record to save as a file; its players
// are offered a rematch and a new game like it (analysis.js, fetched when the page first may
// analyse; rematch.js when a game of the user's ends; record.js when a record is saved: none is
// needed before).
import { boardPoint, boardSvg, squareAt } from "./board.js";
import { clock, make, playerName, playerPath, result, timeControl } from "./describe.js";
import { MoveChoice } from "./choice.js";
import { Position, moveText, squareName } from "./position.js";
import { Sound } from "./sound.js";

const TICK_MS = 100; // clocks show tenths under 10 s
const LOW_MS = 10000; // a clock or a first move's window shows red under this
const FREE_PLIES = 2; // each side's first move is off the clock (docs/protocol.md)
const DRAG_START_PX = 6; // a press that moves further than this is a drag, not a click
const CONFIRM_MS = 8000; // how long "resign" waits for its second press (or Cancel)
const REVIEW_KEYS = { ArrowLeft: -1, ArrowRight: 1 };
// The games with a board on this page.
const BOARDS = new Set(["amazons", "bao"]);
// Bao's sides by the protocol's colours: white is South, who moves first.
const BAO_SIDES = { white: "South (white)", black: "North (black)" };

export class GamePage {
  // `started`: the `game_started` that opened the page, when it did; `openPath(path)` opens
  // another view of the page.
  constructor(root, connection, gameId, started = null, openPath = () => {}) {
    this.connection = connection;
    this.gameId = gameId;
    this.game = null;
    this.resyncing = false;
    this.pendingMove = null; // {ply, text}: sent, not yet answered
    this.choice = new MoveChoice();
    this.drag = null;
    this.sound = new Sound();
    this.shownPly = null; // the move number shown in review; null: the latest position
    this.sowing = null; // Bao: the last move's sowing, worked out for the position shown
    this.sowingStep = null; // the step of it shown; null: the position itself
    this.analysisOn = false;
    this.analysis = null; // analysis.js's AnalysisPanel, once the page may analyse
    this.analysisModule = null;
    this.analysisLoading = null;
    this.openPath = openPath;
    this.rematch = null; // rematch.js's Rematch, once a game of the user's has ended
    this.rematchLoading = null;
    this.rematchHeld = []; // challenges that came while it loaded
    this.afterGame = make("div", { class: "after-game-holder" });
    this.#build(root);
    this.bao = null; // bao_board.js and bao_position.js, fetched for a Bao game
    this.baoHeld = null; // the game's messages that came while they loaded
    if (started !== null) this.receive(started);
    this.timer = setInterval(() => this.#renderClocks(), TICK_MS);
    this.onKey = (event) => this.#key(event);
    document.addEventListener("keydown", this.onKey);
    this.render();
  }

  close() {
    clearInterval(this.timer);
    clearTimeout(this.confirmTimer);
    this.analysis?.close();
    document.removeEventListener("keydown", this.onKey);
  }

  #key(event) {
    if (event.key === "Escape" && this.choice.back()) {
      this.#renderBoard();
      return;
    }
    if (!this.#reviewing() || event.target.closest?.("input, select, textarea")) return;
    const moves = this.game.moves.length;
    const shown = this.shownPly ?? moves;
    const to = {
      ArrowLeft: shown - 1,
      ArrowRight: shown + 1,
      Home: 0,
      End: moves,
    }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    this.#show(to);
  }

  #build(root) {
    this.heading = make("h2", { text: "Game" });
    this.terms = make("p", { class: "terms" });
    this.status = make("p", { class: "status", id: "game-status", role: "status" });
    this.presence = make("p", { class: "presence", id: "presence" });
    this.firstMove = make("p", { class: "first-move", id: "first-move" });
    this.players = {};
    this.clocks = {};
    for (const side of ["white", "black"]) {
      this.clocks[side] = make("span", { class: "clock", id: `clock-${side}` });
      this.players[side] = make("div", { class: `player ${side}` }, [
        make("a", { class: "name" }),
        this.clocks[side],
      ]);
    }
    this.boardHolder = make("div", { class: "board-holder", id: "board" });
    this.boardHolder.addEventListener("pointerdown", (event) => this.#press(event));
    this.boardHolder.addEventListener("pointermove", (event) => this.#dragTo(event));
    this.boardHolder.addEventListener("pointerup", (event) => this.#release(event));
    this.boardHolder.addEventListener("pointercancel", () => this.#cancelDrag());

    this.moveText = make("input", {
      id: "move-text",
      autocomplete: "off",
      spellcheck: "false",
      maxlength: "32",
      "aria-label": "Move",
    });
    this.moveForm = make("form", { class: "move-form", id: "move-form" }, [
      this.moveText,
      make("button", { type: "submit", text: "Play" }),
    ]);
    this.moveForm.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#typed();
    });
    this.resignButton = this.#button("resign", "Resign", () => this.#resign());
    this.cancelResignButton = this.#button("resign-cancel", "Cancel", () => this.#keepPlaying());
    this.cancelResignButton.classList.add("secondary");
    this.cancelResignButton.hidden = true;
    this.abortButton = this.#button("abort", "Abort", () =>
      this.#act({ t: "abort", game_id: this.gameId }),
    );
    this.claimButton = this.#button("claim-victory", "Claim victory", () =>
      this.#act({ t: "claim_victory", game_id: this.gameId }),
    );
    this.controls = make("div", { class: "controls", id: "controls" }, [
      this.moveForm,
      make("div", { class: "actions" }, [
        this.resignButton,
        this.cancelResignButton,
        this.abortButton,
        this.claimButton,
      ]),
    ]);
    this.error = make("p", { class: "game-error", id: "game-error", role: "alert" });
    const soundBox = make("input", { type: "checkbox", id: "sound" });
    soundBox.checked = this.sound.on;
    soundBox.addEventListener("change", () => this.sound.set(soundBox.checked));
    this.moveList = make("ol", { class: "moves", id: "moves" });
    const choose = (event) => {
      const move = event.target.closest(".move[data-ply]");
      if (move === null || !this.#reviewing()) return;
      event.preventDefault();
      this.#show(Number(move.dataset.ply));
      this.moveList.querySelector(".current")?.focus();
    };
    this.moveList.addEventListener("click", choose);
    this.moveList.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") choose(event);
    });
    this.spectators = make("p", { class: "spectators", id: "spectators" });
    this.review = this.#buildReview();
    this.analysisBox = make("input", { type: "checkbox", id: "analysis" });
    this.overlay = null; // regions.js's overlay, fetched when the analysis is first turned on
    this.analysisBox.addEventListener("change", async () => {
      this.analysisOn = this.analysisBox.checked;
      this.overlay ??= (await import("./regions.js")).overlay;
      this.render();
    });
    this.analysisHolder = make("div", { class: "analysis-holder" });
    this.analysisToggle = make("label", { class: "field check", id: "analysis-toggle" }, [
      this.analysisBox,
      "show the region values on the board",
    ]);
    this.analysisNote = make("p", { class: "analysis-note", id: "analysis-note" });
    // The position shown as a picture the server draws (/game/ID.svg?ply=K), to share.
    this.share = make("a", { id: "share", target: "_blank", rel: "noopener", text: "share" });
    this.shareLine = make("p", { class: "share" }, [this.share, " a picture of this position"]);
    // Bao: the last move's sowing, step by step (a lap at a time, and each capture).
    const stepButton = (id, text, delta, label) => {
      const node = make("button", { type: "button", id, text, "aria-label": label });
      node.addEventListener("click", () => this.#stepSowing(delta));
      return node;
    };
    this.sowingAt = make("span", { class: "sowing-at", id: "sowing-at" });
    this.sowingBar = make("div", { class: "sowing", id: "sowing" }, [
      stepButton("sowing-back", "◀", -1, "the sowing's step before"),
      this.sowingAt,
      stepButton("sowing-next", "▶", 1, "the sowing's next step"),
    ]);
    this.root = root;
    this.loading = make("p", { class: "notice loading", id: "game-loading", text: "Loading the game…" });
    // Nothing of the game shows until the server has sent it: an unknown game gets a page of its
    // own (#notFound), not the controls of a game that is not there.
    this.view = make("section", { class: "game-view", hidden: "" }, [
        make("div", { class: "board-side" }, [
          this.players.black,
          this.boardHolder,
          this.players.white,
        ]),
        make("div", { class: "panel" }, [
          this.heading,
          this.terms,
          this.status,
          this.firstMove,
          this.sowingBar,
          this.presence,
          this.spectators,
          this.controls,
          this.afterGame,
          this.review,
          this.error,
          this.analysisHolder,
          this.analysisToggle,
          this.analysisNote,
          this.shareLine,
          make("h3", { text: "Moves" }),
          this.moveList,
          make("label", { class: "field check sound" }, [soundBox, "sound on moves"]),
        ]),
      ]);
    root.replaceChildren(
      make("p", { class: "back" }, [make("a", { href: "/", text: "← Lobby" })]),
      this.loading,
      this.view,
    );
  }

  // The page for a game the server does not know: what was asked for, and the way back.
  #notFound(why) {
    this.root.replaceChildren(
      make("section", { class: "panel not-found", id: "not-found" }, [
        make("h2", { text: "No such game" }),
        make("p", { text: why }),
        make("p", {}, [make("a", { href: "/", id: "back-to-lobby", text: "← Back to the lobby" })]),
      ]),
    );
  }

  #buildReview() {
    const step = (id, text, label, to) => {
      const node = this.#button(id, text, () => this.#show(to()));
      node.setAttribute("aria-label", label);
      return node;
    };
    const shown = () => this.shownPly ?? this.game.moves.length;
    this.plyField = make("input", {
      id: "review-ply",
      type: "number",
      min: "0",
      inputmode: "numeric",
      "aria-label": "Move number",
    });
    const jump = make("form", { class: "review-jump", id: "review-form", novalidate: "" }, [
      make("label", { class: "field" }, ["move", this.plyField]),
      make("button", { type: "submit", text: "Go" }),
    ]);
    jump.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#jump();
    });
    const save = this.#button("download-record", "Download record", () =>
      import("./record.js").then(({ download, gameRecord }) =>
        download(gameRecord(this.game, this.gameId), this.gameId),
      ),
    );
    save.classList.add("secondary");
    this.reviewAt = make("p", { class: "review-at", id: "review-at" });
    return make("div", { class: "review", id: "review" }, [
      this.reviewAt,
      make("div", { class: "review-steps" }, [
        step("review-start", "«", "Start", () => 0),
        step("review-back", "◀", "Back a move", () => shown() - 1),
        step("review-forward", "▶", "Forward a move", () => shown() + 1),
        step("review-end", "»", "End", () => this.game.moves.length),
      ]),
      jump,
      save,
    ]);
  }

  #jump() {
    const text = this.plyField.value.trim();
    const moves = this.game.moves.length;
    const ply = Number(text);
    if (text === "" || !Number.isInteger(ply) || ply < 0 || ply > moves) {
      this.error.textContent = `There is no move ${text || "(none given)"}: choose 0 to ${moves}`;
      return;
    }
    this.#show(ply);
  }

  // The last move of the position shown (Bao), with the position it was made in and the
  // steps of its sowing; null at the start.
  #lastSowing() {
    const ply = this.#shownPly();
    if (this.game.kind !== "bao" || ply === 0) return null;
    if (this.sowing?.ply !== ply || this.sowing.version !== this.game.version) {
      const before = this.#positionAt(ply - 1);
      const move = this.game.moves[ply - 1];
      this.sowing = { ply, version: this.game.version, before, move, steps: before.sowing(move) };
    }
    return this.sowing.steps === null ? null : this.sowing;
  }

  // Step through the last move's sowing: from the position shown, ▶ starts at its first step
  // and ◀ at its last (where the sowing ends); past either end the position itself shows again.
  #stepSowing(delta) {
    const sowing = this.#lastSowing();
    if (sowing === null) return;
    const steps = sowing.steps.length;
    const step = this.sowingStep === null ? (delta > 0 ? 0 : steps - 1) : this.sowingStep + delta;
    this.sowingStep = step < 0 || step >= steps ? null : step;
    this.render();
    this.#renderBoard();
  }

  // Show the position after `ply` moves, in review.
  #show(ply) {
    this.sowingStep = null;
    const moves = this.game.moves.length;
    this.shownPly = Math.max(0, Math.min(moves, ply));
    this.error.textContent = "";
    this.plyField.value = String(this.shownPly);
    this.render();
  }

  #reviewing() {
    return this.game !== null && this.game.status === "ended";
  }

  // Analysis is offered to spectators, and to everyone once the game has ended.
  #mayAnalyse() {
    const game = this.game;
    return game !== null && BOARDS.has(game.kind) && (game.status === "ended" || this.#mine() === null);
  }

  // The region values on the board: Amazons only, when turned on.
  #regionsOn() {
    return this.analysisOn && this.game.kind === "amazons" && this.#mayAnalyse();
  }

  #shownPly() {
    return this.#reviewing() && this.shownPly !== null ? this.shownPly : this.game.moves.length;
  }

  // The start of the game, as the position type of its game.
  #start() {
    return this.game.kind === "bao" ? this.bao.BaoPosition.parse(this.game.start) : Position.parse(this.game.start);
  }

  #positionAt(ply) {
    let position = this.#start();
    for (const move of this.game.moves.slice(0, ply)) position = position.after(move);
    return position;
  }

  #renderAnalysis() {
    const may = this.#mayAnalyse();
    this.analysisHolder.hidden = !may;
    if (may && this.analysis === null) {
      this.analysisLoading ??= import("./analysis.js").then((module) => {
        this.analysisModule = module;
        this.analysis = new module.AnalysisPanel(this.connection, this.gameId, {
          show: (ply) => this.#show(ply),
          redraw: () => this.render(),
        });
        this.analysisHolder.replaceChildren(this.analysis.element);
        this.render();
      });
    } else if (may) {
      this.analysis.show(this.game, this.#shownPly(), !this.#reviewing());
    }
    this.#renderRegionNote();
    this.#renderBoard();
  }

  // Under the region values: their sum, who wins with each side first, and the thermographs.
  #renderRegionNote() {
    const analysis = this.#regionsOn() ? this.analysis?.at(this.#shownPly()) : undefined;
    if (analysis === undefined) {
      this.analysisNote.textContent = "";
      return;
    }
    const winners = [
      analysis.black_first && `Black first: ${analysis.black_first} wins`,
      analysis.white_first && `White first: ${analysis.white_first} wins`,
    ].filter(Boolean);
    const sum = analysis.sum === "?" ? "not solved (? marks a region too large to solve in time)" : analysis.sum;
    const note = [`Sum of regions: ${sum}`, ...winners].join(" · ");
    // The thermograph of the sum and of each contested region solved, drawn by the server.
    const contested = analysis.regions.filter((region) => region.kind === "contested");
    const values = new Set([analysis.sum, ...contested.map((region) => region.value)]);
    values.delete("?");
    const links = [...values].flatMap((value, i) => [
      i ? ", " : " · thermographs: ",
      make("a", {
        class: "thermograph",
        href: `/thermograph.svg?value=${encodeURIComponent(value)}`,
        target: "_blank",
        rel: "noopener",
        title: `thermograph of ${value}`,
        text: value.length > 24 ? `${value.slice(0, 23)}…` : value,
      }),
    ]);
    this.analysisNote.replaceChildren(note, ...links);
  }

  // How many watch: asked once as the page comes online (the lobby's game list), then pushed by
  // the server as spectators come and go (`spectators`).
  #countSpectators() {
    if (this.game?.status !== "playing" || !this.connection.online) {
      this.#showSpectators(undefined);
      return;
    }
    this.connection.request({ t: "list_games" }).then(
      (reply) => {
        const found = reply.games.find((summary) => summary.game_id === this.gameId);
        this.#showSpectators(found?.spectators);
      },
      () => {},
    );
  }

  #showSpectators(count) {
    const playing = this.game?.status === "playing";
    this.spectators.textContent =
      count === undefined || !playing ? "" : count === 1 ? "1 watching" : `${count} watching`;
  }

  #button(id, text, action) {
    const node = make("button", { type: "button", id, text });
    node.addEventListener("click", action);
    return node;
  }

  online() {
    const following = this.game !== null && this.#mine() !== null;
    const request = following
      ? { t: "resync", game_id: this.gameId, version: this.game.version }
      : { t: "watch", game_id: this.gameId };
    this.connection.request(request).then(
      () => {
        this.#resend();
        this.#countSpectators();
      },
      (error) => {
        if (error.code === "not_found") {
          this.#notFound(`There is no game ${this.gameId} on this server.`);
        } else if (error.code === "bad_field") {
          this.#notFound(`${this.gameId} is not a game's id: ${error.message}`);
        } else if (error.code !== "offline") this.loading.textContent = error.message;
      },
    );
  }

  receive(message) {
    if (this.rematch !== null) this.rematch.receive(message);
    else if (this.rematchLoading !== null) this.rematchHeld.push(message);
    if (message.game_id !== this.gameId) return;
    // Bao's modules come first (only a Bao game needs them), the game's messages kept in order.
    if (this.baoHeld !== null) {
      this.baoHeld.push(message);
      return;
    }
    if (message.game === "bao" && this.bao === null) {
      this.baoHeld = [message];
      Promise.all([import("./bao_board.js"), import("./bao_position.js")]).then(([board, rules]) => {
        this.bao = { ...board, ...rules };
        const held = this.baoHeld;
        this.baoHeld = null;
        for (const message of held) this.receive(message);
      });
      return;
    }
    if (message.t === "spectators") {
      this.#showSpectators(message.count);
      return;
    }
    if (message.t === "game_analysis") {
      this.analysis?.receive(message);
      return;
    }
    if (message.t === "game_state") {
      // A later epoch: the server's store lost events sent here; its state wins (protocol.md).
      const epoch = message.epoch ?? 0;
      const known = this.game?.epoch ?? 0;
      const newer = epoch > known || (epoch === known && message.version >= this.game?.version);
      if (this.game === null || newer) this.#replace(message);
      this.resyncing = false;
    } else if (message.t === "synced") {
      this.resyncing = false;
      return;
    } else if (message.t === "game_started") {
      if (this.game === null) this.#replace({ ...message, moves: [], status: "playing" });
    } else if (this.game === null || !(message.version > this.game.version)) {
      return;
    } else if (message.version > this.game.version + 1) {
      this.#resync();
      return;
    } else {
      this.#apply(message);
    }
    this.render();
  }

  #replace(state) {
    const now = performance.now();
    let firstMoveBy = null; // performance.now() at which the side to move's first move is due
    if (state.first_move_left != null) firstMoveBy = now + state.first_move_left;
    else if (state.t === "game_started") firstMoveBy = this.#firstMoveWindow(now, 0);
    this.game = {
      version: state.version,
      epoch: state.epoch ?? 0,
      white: state.white,
      black: state.black,
      time: state.time,
      rated: state.rated,
      setup: state.setup,
      kind: state.game ?? "amazons",
      start: state.start,
      moves: [...state.moves],
      clocks: state.clocks,
      clocksAt: now,
      firstMoveBy,
      toMove: state.to_move ?? (state.start.trim().endsWith(" b") ? "black" : "white"),
      status: state.status,
      winner: state.winner,
      termination: state.termination,
      abortCause: state.abort_cause,
      abortSide: state.abort_side,
      away: {}, // side -> performance.now() at which a claim is allowed
    };
    this.choice = state.game === "bao" ? new this.bao.PitChoice() : new MoveChoice();
    this.sowingStep = null;
  }

  #apply(event) {
    const game = this.game;
    game.version = event.version;
    if (event.clocks) {
      game.clocks = event.clocks;
      game.clocksAt = performance.now();
    }
    if (event.t === "move_played") {
      if (event.ply !== game.moves.length) {
        this.#resync();
        return;
      }
      game.moves.push(event.move);
      game.firstMoveBy = this.#firstMoveWindow(performance.now(), game.moves.length);
      this.sowingStep = null;
      game.toMove = event.to_move ?? (game.toMove === "white" ? "black" : "white");
      if (this.pendingMove?.ply === event.ply) this.pendingMove = null;
      this.choice.clear();
      this.sound.move();
    } else if (event.t === "game_ended") {
      game.status = "ended";
      this.#showSpectators(undefined);
      game.winner = event.winner;
      game.termination = event.termination;
      game.abortCause = event.abort_cause;
      game.abortSide = event.abort_side;
      game.firstMoveBy = null;
      this.choice.clear();
    } else if (event.t === "clock") {
      // In the first moves the server starts the window again with it (after an outage).
      game.firstMoveBy = this.#firstMoveWindow(performance.now(), game.moves.length);
    } else if (event.t === "presence") {
      if (event.online) delete game.away[event.side];
      else game.away[event.side] = performance.now() + (event.claim_after ?? 0);
    }
  }

  // When a first move's window opened at `now`, `plies` into the game, closes (performance.now()
  // ms): null once both sides have moved, or when the server's offers do not say how long.
  #firstMoveWindow(now, plies) {
    const offers = this.connection.welcome?.offers;
    const window = offers?.first_move_ms;
    return window == null || plies >= (offers.free_plies ?? FREE_PLIES) ? null : now + window;
  }

  #resync() {
    if (this.resyncing) return;
    this.resyncing = true;
    this.connection
      .request({ t: "resync", game_id: this.gameId, version: this.game?.version ?? 0 })
      .catch(() => {
        this.resyncing = false;
      });
  }

  // The side the user plays in this game, or null for a spectator.
  #mine() {
    const name = this.connection.user?.name;
    if (this.game === null || name === undefined) return null;
    if (this.game.white.name === name) return "white";
    if (this.game.black.name === name) return "black";
    return null;
  }

  #myTurn() {
    const game = this.game;
    return (
      game !== null &&
      BOARDS.has(game.kind) &&
      game.status === "playing" &&
      this.pendingMove === null &&
      game.toMove === this.#mine()
    );
  }

  #position() {
    let position = this.#start();
    for (const move of this.game.moves) position = position.after(move);
    // A move on its way shows at once, unless the game has gone past it meanwhile.
    if (this.pendingMove?.ply === this.game.moves.length) {
      try {
        position = position.after(this.pendingMove.text);
      } catch {
        // A move the page finds illegal (Bao checks) shows once the server takes it, if ever.
      }
    }
    return position;
  }

  // A move, from the board or the text field: true once the server has taken it. A move sent
  // as the connection drops is kept and sent again (same ply: harmless) once it is back.
  async #send(text) {
    const ply = this.game.moves.length;
    this.pendingMove = { ply, text };
    this.error.textContent = "";
    this.choice.clear();
    this.render();
    try {
      await this.connection.request({ t: "move", game_id: this.gameId, ply, move: text });
      return true;
    } catch (error) {
      if (error.code === "offline") {
        this.render(); // the status line says the move waits for the connection
        return true;
      }
      this.pendingMove = null;
      this.error.textContent = error.message;
      this.render();
      return false;
    }
  }

  #resend() {
    const pending = this.pendingMove;
    if (pending === null) return;
    const game = this.game;
    if (game === null || game.status !== "playing" || game.moves.length !== pending.ply) {
      this.pendingMove = null;
      this.render();
      return;
    }
    this.pendingMove = null;
    this.#send(pending.text);
  }

  async #typed() {
    const text = this.moveText.value.trim();
    if (text === "" || this.game === null) return;
    if (await this.#send(text)) this.moveText.value = "";
  }

  async #act(request) {
    this.error.textContent = "";
    try {
      await this.connection.request(request);
    } catch (error) {
      this.error.textContent = error.message;
    }
  }

  // The first press asks again, with Cancel beside it; left alone, the question lapses.
  #resign() {
    if (this.resignButton.dataset.confirm === "yes") {
      this.#keepPlaying();
      this.#act({ t: "resign", game_id: this.gameId });
      return;
    }
    this.resignButton.dataset.confirm = "yes";
    this.resignButton.textContent = "Really resign?";
    this.cancelResignButton.hidden = false;
    this.confirmTimer = setTimeout(() => this.#keepPlaying(), CONFIRM_MS);
  }

  #keepPlaying() {
    clearTimeout(this.confirmTimer);
    delete this.resignButton.dataset.confirm;
    this.resignButton.textContent = "Resign";
    this.cancelResignButton.hidden = true;
  }

  // Pointer input on the board: a press and release on the same square is a click (pick the
  // amazon, its destination, its arrow); a press on an amazon that moves is a drag to a
  // destination.
  #press(event) {
    if (!this.#myTurn() || event.button !== 0) return;
    if (this.game.kind === "bao") {
      this.#pressPit(event);
      return;
    }
    const svg = this.boardHolder.firstElementChild;
    const position = this.#shownPosition();
    const square = squareAt(svg, position, event.clientX, event.clientY);
    if (square === null) return;
    const own = this.choice.to === null && position.pieceAt(square) === pieceOf(this.#mine());
    this.drag = { square, own, x: event.clientX, y: event.clientY, moved: false };
    this.boardHolder.setPointerCapture(event.pointerId);
    event.preventDefault();
  }

  // Bao: a click on one of the mover's pits picks it (its only move is made at once), a click
  // on one of the picked pit's moves makes it, a click elsewhere takes the pick back.
  #pressPit(event) {
    this.sowingStep = null;
    const position = this.#position();
    const choice = event.target.closest?.("[data-choice]");
    const pit = event.target.closest?.("[data-pit]");
    let move = null;
    if (choice) move = choice.dataset.choice;
    else if (pit && pit.dataset.side === (position.mover === 0 ? "south" : "north")) {
      move = this.choice.pick(pitIndex(pit.dataset.pit), position);
    } else this.choice.clear();
    event.preventDefault();
    if (move !== null) this.#send(move);
    else this.#renderBoard();
  }

  #dragTo(event) {
    const drag = this.drag;
    if (drag === null || !drag.own) return;
    const far = Math.hypot(event.clientX - drag.x, event.clientY - drag.y) > DRAG_START_PX;
    if (!drag.moved && !far) return;
    if (!drag.moved) {
      drag.moved = true;
      this.choice.select(drag.square);
      this.#renderBoard();
    }
    const svg = this.boardHolder.firstElementChild;
    const point = boardPoint(svg, event.clientX, event.clientY);
    const piece = svg.querySelector(`.amazon[data-at="${squareName(drag.square)}"]`);
    if (point !== null && piece !== null) {
      piece.setAttribute("transform", `translate(${point.x} ${point.y})`);
      piece.classList.add("dragged");
    }
  }

  #release(event) {
    const drag = this.drag;
    this.drag = null;
    if (drag === null || !this.#myTurn()) return;
    const svg = this.boardHolder.firstElementChild;
    const square = squareAt(svg, this.#shownPosition(), event.clientX, event.clientY);
    if (drag.moved) {
      if (square === null || !this.choice.pick(square, this.#position(), this.#mine())) {
        this.choice.clear();
      }
    } else if (square !== null) {
      this.choice.pick(square, this.#position(), this.#mine());
    }
    const move = this.choice.move();
    if (move !== null) this.#send(move);
    else this.#renderBoard();
  }

  #cancelDrag() {
    this.drag = null;
    this.#renderBoard();
  }

  #shownPosition() {
    return this.choice.shown(this.#position());
  }

  render() {
    const game = this.game;
    if (game === null) return;
    this.loading.hidden = true;
    this.view.hidden = false;
    this.heading.textContent = `${game.white.name} – ${game.black.name}`;
    const kind = game.kind === "amazons" ? null : game.kind;
    const rated = game.rated ? "rated" : "casual";
    this.terms.textContent = [kind, game.setup, timeControl(game.time), rated]
      .filter(Boolean)
      .join(" · ");
    const mine = this.#mine();
    this.#renderStatus();
    this.#offerRematch(game, mine);
    const playing = mine !== null && game.status === "playing";
    this.controls.hidden = !playing;
    this.abortButton.hidden = !(playing && game.moves.length < FREE_PLIES);
    this.review.hidden = !this.#reviewing();
    if (this.#reviewing()) {
      const shown = this.#shownPly();
      this.plyField.max = String(game.moves.length);
      this.reviewAt.textContent =
        shown === 0
          ? `The start, before move 1 of ${game.moves.length}`
          : `After move ${shown} of ${game.moves.length}: ${game.moves[shown - 1]}`;
    }
    const sowing = this.#lastSowing();
    this.sowingBar.hidden = sowing === null;
    if (sowing !== null) {
      const steps = sowing.steps.length;
      const hand = this.sowingStep === null ? 0 : sowing.steps[this.sowingStep].hand;
      const seeds = hand === 1 ? "1 seed" : `${hand} seeds`;
      this.sowingAt.textContent =
        this.sowingStep === null
          ? `Sowing of ${sowing.move}: ${steps} steps`
          : `Sowing of ${sowing.move}: step ${this.sowingStep + 1} of ${steps}` +
            (hand > 0 ? ` · ${seeds} in hand` : "");
    }
    const regions = this.#mayAnalyse() && game.kind === "amazons";
    this.analysisToggle.hidden = !regions;
    if (!regions) this.analysisBox.checked = this.analysisOn = false;
    this.#renderAnalysis();
    this.#renderMoves();
    this.#renderClocks();
  }

  // A player's game has ended: the rematch and new-game offers (rematch.js) come in.
  #offerRematch(game, mine) {
    if (this.rematch !== null) {
      this.rematch.show(game, mine);
      return;
    }
    if (game.status !== "ended" || mine === null || this.rematchLoading !== null) return;
    this.rematchLoading = import("./rematch.js").then(({ Rematch }) => {
      this.rematch = new Rematch(this.connection, this.openPath);
      this.afterGame.replaceChildren(this.rematch.element);
      this.rematch.show(this.game, this.#mine());
      for (const message of this.rematchHeld.splice(0)) this.rematch.receive(message);
    });
  }

  // The status line: who is to move and, for a player, what comes next: the step of the move
  // being made, a move on its way (or waiting for the connection), or the result as theirs.
  #renderStatus() {
    const game = this.game;
    const mine = this.#mine();
    let status = `${this.#sideName(game.toMove)} to move`;
    const pending = this.pendingMove?.ply === game.moves.length ? this.pendingMove.text : null;
    if (game.status === "ended") {
      const windowMs = this.connection.welcome?.offers?.first_move_ms;
      const aborted = { cause: game.abortCause, side: game.abortSide, windowMs };
      status = result(game.winner, game.termination, mine, aborted);
    } else if (mine !== null && pending !== null) {
      status += this.connection.online
        ? ` · sending ${pending}…`
        : ` · offline: ${pending} is sent when the connection is back`;
    } else if (mine !== null) {
      status += game.toMove === mine ? ` · your move${this.#nextStep()}` : " · waiting";
    }
    this.status.textContent = status;
    this.status.dataset.state = game.status;
    this.moveText.placeholder = this.#example();
  }

  // A side as the game's board names it: White, or South (white) in Bao.
  #sideName(colour) {
    if (this.game.kind === "bao") return BAO_SIDES[colour];
    return colour === "white" ? "White" : "Black";
  }

  // What the player picks next on the board, as the end of the status line.
  #nextStep() {
    const choice = this.choice;
    if (!BOARDS.has(this.game.kind)) return "";
    if (this.game.kind === "bao") {
      return choice.pit === null
        ? ": pick a pit to sow from"
        : `: pick the way to sow ${this.bao.pitLabel(choice.pit)}`;
    }
    if (choice.from === null) return ": pick an amazon";
    if (choice.to === null) return `: pick where the amazon on ${squareName(choice.from)} goes`;
    return `: pick where the amazon on ${squareName(choice.to)} shoots`;
  }

  // The move field's example: a legal move in the position shown, of the side to move.
  #example() {
    const position = this.#position();
    if (this.game.kind === "bao") {
      const [move] = position.moves();
      return move === undefined ? "" : this.bao.moveText(move);
    }
    if (this.game.kind !== "amazons") return "";
    for (const from of position.amazons(position.toMove)) {
      for (const to of position.queenTargets(from)) {
        const arrows = position.withAmazonMoved(from, to).queenTargets(to);
        // Shooting back onto the square just left is legal, but reads as a puzzle.
        const arrow = arrows.find((square) => !sameSquare(square, from)) ?? arrows[0];
        if (arrow !== undefined) return moveText(from, to, arrow);
      }
    }
    return "";
  }

  #renderBoard() {
    const game = this.game;
    if (game === null) return;
    this.#renderStatus();
    if (!BOARDS.has(game.kind)) {
      const notice = `No board for ${game.kind} on the web yet`;
      this.boardHolder.replaceChildren(make("p", { class: "notice", text: notice }));
      return;
    }
    const reviewed = this.#reviewing() ? this.#shownPly() : null;
    const position = reviewed === null ? this.#position() : this.#positionAt(reviewed);
    const pending = this.pendingMove?.ply === game.moves.length ? this.pendingMove.text : null;
    const last = reviewed === null ? (pending ?? game.moves.at(-1)) : game.moves[reviewed - 1];
    const flipped = this.#mine() === "black";
    const sowing = this.sowingStep === null ? null : this.#lastSowing();
    if (sowing !== null) {
      const frame = sowing.steps[this.sowingStep];
      this.boardHolder.replaceChildren(
        this.bao.baoBoardSvg(sowing.before, sowing.move, null, null, flipped ? 1 : 0, frame),
      );
    } else if (game.kind === "bao") {
      const plies = reviewed ?? game.moves.length + (pending === null ? 0 : 1);
      const before = plies > 0 ? this.#positionAt(plies - 1) : null;
      const marks = this.#myTurn() ? this.choice.marks(position) : null;
      const changed = last === undefined ? new Set() : this.bao.changedPits(before, position);
      const svg = this.bao.baoBoardSvg(position, last, changed, marks, flipped ? 1 : 0);
      if (this.analysis !== null && this.#mayAnalyse()) {
        this.analysisModule.markPits(svg, position, this.analysis.arrows(reviewed ?? game.moves.length));
      }
      this.boardHolder.replaceChildren(svg);
    } else {
      const shown = this.choice.shown(position);
      const regions = this.#overlay(position);
      const svg = boardSvg(shown, last, this.choice.marks(position), flipped, regions);
      if (this.analysis !== null && this.#mayAnalyse()) {
        this.analysisModule.drawArrows(svg, shown, this.analysis.arrows(reviewed ?? game.moves.length));
      }
      this.boardHolder.replaceChildren(svg);
    }
    this.boardHolder.dataset.ply = String(reviewed ?? game.moves.length);
    this.share.href = `/game/${this.gameId}.svg?ply=${reviewed ?? game.moves.length}`;
    const [top, bottom] = flipped ? ["white", "black"] : ["black", "white"];
    if (this.boardHolder.previousElementSibling !== this.players[top]) {
      this.boardHolder.before(this.players[top]);
      this.boardHolder.after(this.players[bottom]);
    }
    const mine = this.#myTurn();
    this.boardHolder.dataset.turn = mine ? "mine" : "theirs";
    this.boardHolder.classList.toggle("playable", mine);
  }

  // The analysis overlay of the position shown, when it is on and its analysis has come.
  #overlay(position) {
    if (!this.#regionsOn()) return null;
    const analysis = this.analysis?.at(this.#shownPly());
    if (analysis === undefined || this.overlay === null) return null;
    try {
      return this.overlay(position, analysis);
    } catch (error) {
      this.analysisNote.textContent = `No analysis shown: ${error.message}`;
      return null;
    }
  }

  #renderMoves() {
    const game = this.game;
    const blackFirst = this.#start().toMove === "black";
    const moves = blackFirst ? [null, ...game.moves] : game.moves;
    const offset = blackFirst ? 1 : 0;
    const reviewing = this.#reviewing();
    const shown = this.#shownPly();
    const pairs = [];
    for (let i = 0; i < moves.length; i += 2) {
      pairs.push(
        make(
          "li",
          {},
          moves.slice(i, i + 2).map((move, j) => {
            if (move === null) return make("span", { class: "skipped", text: "…" });
            const ply = i + j - offset + 1; // the position after this move
            const attributes = { class: ply === shown && reviewing ? "move current" : "move", text: move };
            if (reviewing) Object.assign(attributes, { "data-ply": String(ply), role: "button", tabindex: "0" });
            const marked = reviewing ? this.analysis?.markOf(ply) : null;
            if (!marked) return make("span", attributes);
            attributes["data-mark"] = marked.mark;
            attributes.title = marked.mark;
            const node = make("span", attributes);
            node.append(make("span", { class: "sign", text: marked.sign }));
            return node;
          }),
        ),
      );
    }
    this.moveList.replaceChildren(...pairs);
    const current = this.moveList.querySelector(".current") ?? this.moveList.lastElementChild;
    current?.scrollIntoView({ block: "nearest" });
  }

  #renderClocks() {
    const game = this.game;
    if (game === null) return;
    const now = performance.now();
    for (const side of ["white", "black"]) {
      let ms = game.clocks[side];
      const toMove = game.status === "playing" && game.toMove === side;
      if (toMove && game.moves.length >= FREE_PLIES) ms -= now - game.clocksAt;
      const holder = this.players[side];
      holder.classList.toggle("to-move", toMove);
      const name = playerName(game[side]);
      const link = holder.firstElementChild;
      if (link.textContent !== name) {
        link.textContent = name;
        link.setAttribute("href", playerPath(game[side].name));
      }
      const text = clock(ms);
      if (this.clocks[side].textContent !== text) this.clocks[side].textContent = text;
      this.clocks[side].classList.toggle("low", toMove && ms < LOW_MS);
    }
    this.#renderFirstMove(now);
    this.#renderPresence(now);
  }

  // While the side to move has its first move to make: the seconds left to make it, else the
  // game is aborted (the clock stands still meanwhile, so nothing else shows the time going).
  #renderFirstMove(now) {
    const game = this.game;
    let text = "";
    let ms = Infinity;
    if (game.status === "playing" && game.firstMoveBy !== null) {
      ms = Math.max(0, game.firstMoveBy - now);
      const seconds = `${Math.ceil(ms / 1000)} s`;
      const mine = this.#mine();
      if (game.toMove === mine) text = `Make your first move within ${seconds}`;
      else if (mine !== null) text = `Your opponent has ${seconds} to make a first move`;
      else text = `${this.#sideName(game.toMove)} has ${seconds} to make a first move`;
      text += ", or the game is aborted";
    }
    if (this.firstMove.textContent !== text) this.firstMove.textContent = text;
    this.firstMove.classList.toggle("low", ms < LOW_MS);
  }

  #renderPresence(now) {
    const game = this.game;
    const mine = this.#mine();
    let text = "";
    let canClaim = false;
    if (game.status === "playing") {
      for (const [side, claimAt] of Object.entries(game.away)) {
        const name = side === "white" ? "White" : "Black";
        const seconds = Math.max(0, Math.ceil((claimAt - now) / 1000));
        if (mine !== null && side !== mine) {
          canClaim = true;
          text =
            seconds > 0
              ? `Your opponent has left: you may claim victory in ${seconds} s`
              : "Your opponent has left: you may claim victory";
        } else if (mine === null) {
          text = `${name} has left the game`;
        }
      }
    }
    if (this.presence.textContent !== text) this.presence.textContent = text;
    this.claimButton.hidden = !canClaim;
  }
}

// The ring index of a Bao pit label: A1..A8 0..7, B8..B1 8..15.
function pitIndex(label) {
  const column = Number(label.slice(1));
  return label[0] === "A" ? column - 1 : 16 - column;
}

function pieceOf(colour) {
  return colour === "white" ? "W" : "B";
}

function sameSquare(a, b) {
  return a.file === b.file && a.rank === b.rank;
}
