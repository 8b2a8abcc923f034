// The page: one connection to the server that served it, and the view its path names, the
// lobby at `/` or a game at `/game/ID`.
import { Connection, serverUrl } from "./connection.js";
import { GamePage } from "./game.js";
import { Lobby } from "./lobby.js";

const STATES = {
  connecting: () => "connecting…",
  online: (name) => `online as ${name}`,
  offline: (seconds, reason) =>
    reason ? `offline: ${reason}` : `offline, retrying in ${seconds} s`,
};

function start() {
  const main = document.getElementById("main");
  const badge = document.getElementById("connection");
  const found = /^\/game\/([A-Za-z0-9_-]{1,32})$/.exec(location.pathname);
  let view = null;
  const connection = new Connection(serverUrl(location), {
    onMessage: (message) => view.receive(message),
    onState: (state, detail, reason) => {
      badge.dataset.state = state;
      badge.textContent = STATES[state](detail, reason);
    },
    onOnline: () => view.online(),
  });
  view = found ? new GamePage(main, connection, found[1]) : new Lobby(main, connection);
  document.title = found ? `Game ${found[1]} · Amazons Arena` : "Amazons Arena";
  connection.open();
}

start();
