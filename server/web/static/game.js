// One game as a spectator sees it: the board after each move, the players and their clocks,
// and the move list, kept by the game's event versions (docs/protocol.md): a version already
// seen is skipped, a gap is filled by `resync`, and a `game_state` replaces what the page had.
import { boardSvg } from "./board.js";
import { clock, make, playerName, result, timeControl } from "./describe.js";
import { Position } from "./position.js";

const TICK_MS = 200;
const FREE_PLIES = 2; // each side's first move is off the clock (docs/protocol.md)

export class GamePage {
  constructor(root, connection, gameId) {
    this.connection = connection;
    this.gameId = gameId;
    this.game = null;
    this.resyncing = false;
    this.heading = make("h2", { text: "Game" });
    this.terms = make("p", { class: "terms" });
    this.status = make("p", { class: "status", id: "game-status", role: "status" });
    this.players = {
      white: make("div", { class: "player white" }),
      black: make("div", { class: "player black" }),
    };
    this.boardHolder = make("div", { class: "board-holder", id: "board" });
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
          make("h3", { text: "Moves" }),
          this.moveList,
        ]),
      ]),
    );
    setInterval(() => this.#renderClocks(), TICK_MS);
  }

  online() {
    this.connection.request({ t: "watch", game_id: this.gameId }).catch((error) => {
      this.status.textContent =
        error.code === "not_found" ? "No such game on this server" : error.message;
    });
  }

  receive(message) {
    if (message.game_id !== this.gameId) return;
    if (message.t === "game_state") {
      if (this.game === null || message.version >= this.game.version) this.#replace(message);
      this.resyncing = false;
    } else if (message.t === "synced") {
      this.resyncing = false;
      return;
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
      toMove: state.to_move,
      status: state.status,
      winner: state.winner,
      termination: state.termination,
    };
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
    } else if (event.t === "game_ended") {
      game.status = "ended";
      game.winner = event.winner;
      game.termination = event.termination;
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

  render() {
    const game = this.game;
    if (game === null) return;
    this.heading.textContent = `${game.white.name} – ${game.black.name}`;
    const kind = game.kind === "amazons" ? null : game.kind;
    const rated = game.rated ? "rated" : "casual";
    this.terms.textContent = [kind, game.setup, timeControl(game.time), rated]
      .filter(Boolean)
      .join(" · ");
    const side = game.toMove === "white" ? "White" : "Black";
    this.status.textContent =
      game.status === "ended" ? result(game.winner, game.termination) : `${side} to move`;
    if (game.kind === "amazons") {
      let position = Position.parse(game.start);
      for (const move of game.moves) position = position.after(move);
      this.boardHolder.replaceChildren(boardSvg(position, game.moves.at(-1)));
    } else {
      const notice = `No board for ${game.kind} on the web yet`;
      this.boardHolder.replaceChildren(make("p", { class: "notice", text: notice }));
    }
    this.moveList.replaceChildren(...game.moves.map((move) => make("li", { text: move })));
    this.moveList.lastElementChild?.scrollIntoView({ block: "nearest" });
    this.#renderClocks();
  }

  #renderClocks() {
    const game = this.game;
    if (game === null) return;
    for (const side of ["white", "black"]) {
      let ms = game.clocks[side];
      const toMove = game.status === "playing" && game.toMove === side;
      if (toMove && game.moves.length >= FREE_PLIES) ms -= performance.now() - game.clocksAt;
      const holder = this.players[side];
      holder.classList.toggle("to-move", toMove);
      holder.replaceChildren(
        make("span", { class: "name", text: playerName(game[side]) }),
        make("span", { class: "clock", text: clock(ms) }),
      );
    }
  }
}
