// The lobby: the open seeks, which the server pushes as they come and go once asked for, and
// the live games, which it does not push and the page asks for again every few seconds.
import { make, playerName, timeControl } from "./describe.js";

const GAMES_POLL_MS = 5000;

export class Lobby {
  constructor(root, connection) {
    this.connection = connection;
    this.seeks = new Map();
    this.games = [];
    this.seekList = make("ul", { class: "rows", id: "seeks" });
    this.gameList = make("ul", { class: "rows", id: "games" });
    root.replaceChildren(
      make("section", { class: "panel" }, [make("h2", { text: "Open seeks" }), this.seekList]),
      make("section", { class: "panel" }, [make("h2", { text: "Live games" }), this.gameList]),
    );
    this.timer = null;
    this.render();
  }

  online() {
    this.connection.request({ t: "list_seeks" }).catch(() => {});
    this.#listGames();
    clearInterval(this.timer);
    this.timer = setInterval(() => this.#listGames(), GAMES_POLL_MS);
  }

  receive(message) {
    switch (message.t) {
      case "seek_list":
        this.seeks = new Map(message.seeks.map((seek) => [seek.seek_id, seek]));
        break;
      case "seek_added":
        this.seeks.set(message.seek.seek_id, message.seek);
        break;
      case "seek_removed":
        this.seeks.delete(message.seek_id);
        break;
      case "game_list":
        this.games = message.games;
        break;
      default:
        return;
    }
    this.render();
  }

  #listGames() {
    this.connection.request({ t: "list_games" }).catch(() => {});
  }

  render() {
    this.seekList.replaceChildren(
      ...[...this.seeks.values()].map((seek) =>
        make("li", { class: "row seek", "data-seek": seek.seek_id }, [
          make("span", { class: "who", text: playerName(seek.player) }),
          make("span", { class: "what", text: terms(seek) }),
          make("span", {
            class: "colour",
            text: seek.colour === "random" ? "" : `plays ${seek.colour}`,
          }),
        ]),
      ),
    );
    if (this.seeks.size === 0) {
      this.seekList.append(make("li", { class: "empty", text: "No open seeks" }));
    }
    this.gameList.replaceChildren(
      ...this.games.map((game) =>
        make("li", { class: "row game" }, [
          make("a", {
            class: "who",
            href: `/game/${encodeURIComponent(game.game_id)}`,
            text: `${playerName(game.white)} – ${playerName(game.black)}`,
          }),
          make("span", { class: "what", text: terms(game) }),
          make("span", { class: "ply", text: `move ${Math.floor(game.ply / 2) + 1}` }),
        ]),
      ),
    );
    if (this.games.length === 0) {
      this.gameList.append(make("li", { class: "empty", text: "No live games" }));
    }
  }
}

function terms(offer) {
  const game = offer.game && offer.game !== "amazons" ? `${offer.game} ` : "";
  const rated = offer.rated ? "rated" : "casual";
  return `${game}${offer.setup ?? ""} · ${timeControl(offer.time)} · ${rated}`;
}
