// The page: one connection to the server that served it, and the view its path names, the
// lobby at `/`, a game at `/game/ID`, a ladder's standings at `/ladder/NAME` or a player's page
// at `/player/NAME`. The lobby lives as long as the page (it keeps the seeks and challenges, and
// opens a game of the user's as it starts); moving between the lobby and a game changes the
// address without loading the page again, so the connection stays. The websocket opens as soon
// as its own module is here; the lobby's module loads meanwhile, and the connection's messages
// wait for it and the first view, in order. The other views' modules load when first shown or
// soon after the page is online: a page that opens on the lobby fetches only what the lobby
// needs before it is playable.
import { Connection, serverUrl } from "./connection.js";

const LOBBY = import("./lobby.js");
const VIEWS = {
  game: () => import("./game.js").then((module) => module.GamePage),
  ladder: () => import("./ladder.js").then((module) => module.LadderPage),
  player: () => import("./player.js").then((module) => module.PlayerPage),
};
// The other views' modules are fetched this long after the page is first online, off the lobby's
// way; a view shown before then fetches its own.
const PREFETCH_MS = 1000;
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
  // How many times a view was asked for: a view whose module comes late is shown only if last.
  let shown = 0;
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
        setTimeout(() => Object.values(VIEWS).forEach((load) => load()), PREFETCH_MS);
      }),
    firstRequests: () => FIRST_REQUESTS,
  });
  connection.open();
  const { Lobby } = await LOBBY;
  lobby = new Lobby(
    connection,
    (gameId, started) => open(`/game/${gameId}`, started),
    (path) => open(path),
  );

  async function show(started = null) {
    const mine = ++shown;
    game?.close();
    game = null;
    const found = GAME_PATH.exec(location.pathname);
    const ladder = LADDER_PATH.exec(location.pathname);
    const player = PLAYER_PATH.exec(location.pathname);
    const [view, argument] = found
      ? ["game", found[1]]
      : ladder
        ? ["ladder", ladder[1]]
        : player
          ? ["player", player[1]]
          : [null, null];
    if (view === null) {
      lobby.mount(main);
    } else {
      // Nothing of the last view stays under the new address while its module loads.
      main.replaceChildren();
      const Page = await VIEWS[view]();
      if (mine !== shown) return;
      game =
        view === "game"
          ? new Page(main, connection, argument, started, (path) => open(path))
          : new Page(main, connection, argument);
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
  await show();
  running = true;
  viewsReady();
}

start();
