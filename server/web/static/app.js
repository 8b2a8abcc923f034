// The page: one connection to the server that served it, and the view its path names, the
// lobby at `/`, a game at `/game/ID`, a ladder's standings at `/ladder/NAME` or a player's page
// at `/player/NAME`. The lobby lives as long as the page (it keeps the seeks and challenges, and
// opens a game of the user's as it starts); moving between the lobby and a game changes the
// address without loading the page again, so the connection stays. The websocket opens as soon as its own module is here; the
// views' modules load meanwhile, and the connection's messages wait for them, in order.
import { Connection, serverUrl } from "./connection.js";

const VIEWS = Promise.all([
  import("./game.js"),
  import("./ladder.js"),
  import("./lobby.js"),
  import("./player.js"),
]);
// Asked for with the login: the lobby's seeks (the server then pushes their changes).
const FIRST_REQUESTS = [{ t: "list_seeks" }];

const STATES = {
  connecting: () => "connecting…",
  online: (name) => `online as ${name}`,
  offline: (seconds, reason) =>
    reason ? `offline: ${reason}` : `offline, retrying in ${seconds} s`,
};
const GAME_PATH = /^\/game\/([A-Za-z0-9_-]{1,32})$/;
const LADDER_PATH = /^\/ladder\/([A-Za-z0-9_-]{1,32})$/;
const PLAYER_PATH = /^\/player\/([A-Za-z0-9_-]{1,32})$/;

async function start() {
  const main = document.getElementById("main");
  const badge = document.getElementById("connection");
  let game = null;
  let lobby = null;
  let running = false;
  let viewsReady;
  const ready = new Promise((resolve) => (viewsReady = resolve));
  const connection = new Connection(serverUrl(location), {
    onMessage: (message) =>
      ready.then(() => {
        lobby.receive(message);
        game?.receive(message);
      }),
    onState: (state, detail, reason) => {
      badge.dataset.state = state;
      badge.textContent = STATES[state](detail, reason);
    },
    onOnline: (welcome) =>
      ready.then(() => {
        lobby.online(welcome);
        game?.online();
      }),
    firstRequests: () => FIRST_REQUESTS,
  });
  connection.open();
  const [{ GamePage }, { LadderPage }, { Lobby }, { PlayerPage }] = await VIEWS;
  lobby = new Lobby(
    connection,
    (gameId, started) => open(`/game/${gameId}`, started),
    (path) => open(path),
  );

  function show(started = null) {
    game?.close();
    game = null;
    const found = GAME_PATH.exec(location.pathname);
    const ladder = LADDER_PATH.exec(location.pathname);
    const player = PLAYER_PATH.exec(location.pathname);
    if (found) {
      game = new GamePage(main, connection, found[1], started);
    } else if (ladder) {
      game = new LadderPage(main, connection, ladder[1]);
    } else if (player) {
      game = new PlayerPage(main, connection, player[1]);
    } else {
      lobby.mount(main);
    }
    // At the start the views wait for the connection's own `onOnline`.
    if (game !== null && running && connection.online) game.online();
    document.title = found
      ? `Game ${found[1]} · Amazons Arena`
      : ladder
        ? `Ladder ${ladder[1]} · Amazons Arena`
        : player
          ? `${player[1]} · Amazons Arena`
          : "Amazons Arena";
  }

  function open(path, started = null) {
    if (location.pathname !== path) history.pushState(null, "", path);
    show(started);
  }

  document.addEventListener("click", (event) => {
    const link = event.target.closest?.("a[href^='/']");
    if (link === null || link === undefined || event.button !== 0) return;
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    open(link.getAttribute("href"));
  });
  window.addEventListener("popstate", () => show());
  show();
  running = true;
  viewsReady();
}

start();
