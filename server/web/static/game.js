// One game as its players and spectators see it: the board after each move, the players and
// their clocks, and the move list, kept by the game's event versions (docs/protocol.md): a
// version already seen is skipped, a gap is filled by `resync`, and a `game_state` replaces
// what the page had. A player also makes moves here (on the board or as text), and may resign,
// abort while the game is young, and claim victory once the opponent has been away long enough.
import { boardPoint, boardSvg, squareAt } from "./board.js";
import { clock, make, playerName, result, timeControl } from "./describe.js";
import { MoveChoice } from "./choice.js";
import { Position, squareName } from "./position.js";
import { Sound } from "./sound.js";

const TICK_MS = 100; // clocks show tenths under 10 s
const FREE_PLIES = 2; // each side's first move is off the clock (docs/protocol.md)
const DRAG_START_PX = 6; // a press that moves further than this is a drag, not a click
const CONFIRM_MS = 4000; // how long "resign" waits for its second press

export class GamePage {
  // `started`: the `game_started` that opened the page, when it did.
  constructor(root, connection, gameId, started = null) {
    this.connection = connection;
    this.gameId = gameId;
    this.game = null;
    this.resyncing = false;
    this.pendingMove = null; // {ply, text}: sent, not yet answered
    this.choice = new MoveChoice();
    this.drag = null;
    this.sound = new Sound();
    this.#build(root);
    if (started !== null) this.#replace({ ...started, moves: [], status: "playing" });
    this.timer = setInterval(() => this.#renderClocks(), TICK_MS);
    this.onKey = (event) => {
      if (event.key === "Escape" && this.choice.back()) this.#renderBoard();
    };
    document.addEventListener("keydown", this.onKey);
    this.render();
  }

  close() {
    clearInterval(this.timer);
    document.removeEventListener("keydown", this.onKey);
  }

  #build(root) {
    this.heading = make("h2", { text: "Game" });
    this.terms = make("p", { class: "terms" });
    this.status = make("p", { class: "status", id: "game-status", role: "status" });
    this.presence = make("p", { class: "presence", id: "presence" });
    this.players = {};
    this.clocks = {};
    for (const side of ["white", "black"]) {
      this.clocks[side] = make("span", { class: "clock", id: `clock-${side}` });
      this.players[side] = make("div", { class: `player ${side}` }, [
        make("span", { class: "name" }),
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
      placeholder: "d1-d6/g6",
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
    this.abortButton = this.#button("abort", "Abort", () =>
      this.#act({ t: "abort", game_id: this.gameId }),
    );
    this.claimButton = this.#button("claim-victory", "Claim victory", () =>
      this.#act({ t: "claim_victory", game_id: this.gameId }),
    );
    this.controls = make("div", { class: "controls", id: "controls" }, [
      this.moveForm,
      make("div", { class: "actions" }, [this.resignButton, this.abortButton, this.claimButton]),
    ]);
    this.error = make("p", { class: "game-error", id: "game-error", role: "alert" });
    const soundBox = make("input", { type: "checkbox", id: "sound" });
    soundBox.checked = this.sound.on;
    soundBox.addEventListener("change", () => this.sound.set(soundBox.checked));
    this.moveList = make("ol", { class: "moves", id: "moves" });
    root.replaceChildren(
      make("p", { class: "back" }, [make("a", { href: "/", text: "← Lobby" })]),
      make("section", { class: "game-view" }, [
        make("div", { class: "board-side" }, [
          this.players.black,
          this.boardHolder,
          this.players.white,
        ]),
        make("div", { class: "panel" }, [
          this.heading,
          this.terms,
          this.status,
          this.presence,
          this.controls,
          this.error,
          make("h3", { text: "Moves" }),
          this.moveList,
          make("label", { class: "field check sound" }, [soundBox, "sound on moves"]),
        ]),
      ]),
    );
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
      () => this.#resend(),
      (error) => {
        if (error.code === "not_found") this.status.textContent = "No such game on this server";
        else if (error.code !== "offline") this.status.textContent = error.message;
      },
    );
  }

  receive(message) {
    if (message.game_id !== this.gameId) return;
    if (message.t === "game_state") {
      if (this.game === null || message.version >= this.game.version) this.#replace(message);
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
    this.game = {
      version: state.version,
      white: state.white,
      black: state.black,
      time: state.time,
      rated: state.rated,
      setup: state.setup,
      kind: state.game ?? "amazons",
      start: state.start,
      moves: [...state.moves],
      clocks: state.clocks,
      clocksAt: performance.now(),
      toMove: state.to_move ?? (state.start.trim().endsWith(" b") ? "black" : "white"),
      status: state.status,
      winner: state.winner,
      termination: state.termination,
      away: {}, // side -> performance.now() at which a claim is allowed
    };
    this.choice.clear();
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
      game.toMove = event.to_move ?? (game.toMove === "white" ? "black" : "white");
      if (this.pendingMove?.ply === event.ply) this.pendingMove = null;
      this.choice.clear();
      this.sound.move();
    } else if (event.t === "game_ended") {
      game.status = "ended";
      game.winner = event.winner;
      game.termination = event.termination;
      this.choice.clear();
    } else if (event.t === "presence") {
      if (event.online) delete game.away[event.side];
      else game.away[event.side] = performance.now() + (event.claim_after ?? 0);
    }
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
      game.kind === "amazons" &&
      game.status === "playing" &&
      this.pendingMove === null &&
      game.toMove === this.#mine()
    );
  }

  #position() {
    let position = Position.parse(this.game.start);
    for (const move of this.game.moves) position = position.after(move);
    // A move on its way shows at once, unless the game has gone past it meanwhile.
    if (this.pendingMove?.ply === this.game.moves.length) {
      position = position.after(this.pendingMove.text);
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
        this.error.textContent = "Connection lost: the move is sent again when it is back";
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

  #resign() {
    if (this.resignButton.dataset.confirm === "yes") {
      this.#act({ t: "resign", game_id: this.gameId });
      return;
    }
    this.resignButton.dataset.confirm = "yes";
    this.resignButton.textContent = "Really resign?";
    setTimeout(() => {
      delete this.resignButton.dataset.confirm;
      this.resignButton.textContent = "Resign";
    }, CONFIRM_MS);
  }

  // Pointer input on the board: a press and release on the same square is a click (pick the
  // amazon, its destination, its arrow); a press on an amazon that moves is a drag to a
  // destination.
  #press(event) {
    if (!this.#myTurn() || event.button !== 0) return;
    const svg = this.boardHolder.firstElementChild;
    const position = this.#shownPosition();
    const square = squareAt(svg, position, event.clientX, event.clientY);
    if (square === null) return;
    const own = this.choice.to === null && position.pieceAt(square) === pieceOf(this.#mine());
    this.drag = { square, own, x: event.clientX, y: event.clientY, moved: false };
    this.boardHolder.setPointerCapture(event.pointerId);
    event.preventDefault();
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
    this.heading.textContent = `${game.white.name} – ${game.black.name}`;
    const kind = game.kind === "amazons" ? null : game.kind;
    const rated = game.rated ? "rated" : "casual";
    this.terms.textContent = [kind, game.setup, timeControl(game.time), rated]
      .filter(Boolean)
      .join(" · ");
    const mine = this.#mine();
    const side = game.toMove === "white" ? "White" : "Black";
    let status = `${side} to move`;
    if (game.status === "ended") status = result(game.winner, game.termination);
    else if (mine !== null) status += game.toMove === mine ? " · your move" : " · waiting";
    this.status.textContent = status;
    this.status.dataset.state = game.status;
    const playing = mine !== null && game.status === "playing";
    this.controls.hidden = !playing;
    this.abortButton.hidden = !(playing && game.moves.length < FREE_PLIES);
    this.#renderBoard();
    this.#renderMoves();
    this.#renderClocks();
  }

  #renderBoard() {
    const game = this.game;
    if (game === null) return;
    if (game.kind !== "amazons") {
      const notice = `No board for ${game.kind} on the web yet`;
      this.boardHolder.replaceChildren(make("p", { class: "notice", text: notice }));
      return;
    }
    const position = this.#position();
    const pending = this.pendingMove?.ply === game.moves.length ? this.pendingMove.text : null;
    const last = pending ?? game.moves.at(-1);
    const shown = this.choice.shown(position);
    const flipped = this.#mine() === "black";
    this.boardHolder.replaceChildren(boardSvg(shown, last, this.choice.marks(position), flipped));
    const [top, bottom] = flipped ? ["white", "black"] : ["black", "white"];
    if (this.boardHolder.previousElementSibling !== this.players[top]) {
      this.boardHolder.before(this.players[top]);
      this.boardHolder.after(this.players[bottom]);
    }
    const mine = this.#myTurn();
    this.boardHolder.dataset.turn = mine ? "mine" : "theirs";
    this.boardHolder.classList.toggle("playable", mine);
  }

  #renderMoves() {
    const game = this.game;
    const blackFirst = Position.parse(game.start).toMove === "black";
    const moves = blackFirst ? [null, ...game.moves] : game.moves;
    const pairs = [];
    for (let i = 0; i < moves.length; i += 2) {
      pairs.push(
        make(
          "li",
          {},
          moves.slice(i, i + 2).map((move) =>
            move === null
              ? make("span", { class: "skipped", text: "…" })
              : make("span", { class: "move", text: move }),
          ),
        ),
      );
    }
    this.moveList.replaceChildren(...pairs);
    this.moveList.lastElementChild?.scrollIntoView({ block: "nearest" });
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
      if (holder.firstElementChild.textContent !== name) holder.firstElementChild.textContent = name;
      const text = clock(ms);
      if (this.clocks[side].textContent !== text) this.clocks[side].textContent = text;
      this.clocks[side].classList.toggle("low", toMove && ms < 10000);
    }
    this.#renderPresence(now);
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

function pieceOf(colour) {
  return colour === "white" ? "W" : "B";
}
