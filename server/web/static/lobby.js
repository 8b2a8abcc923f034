// The lobby: who the page plays as (a guest, or an account signed in by name and password),
// the terms of a new game and the ways to start one (a seek, quick pairing, a house bot, a
// challenge to a user by name), the open seeks (pushed by the server once asked for), the
// challenges to and from the user, the live games (asked for again every few seconds), and
// ways to a bot ladder's standings and to a player's page by name (players' names link there).
// Only what the server offers (`welcome.offers`) is offered; a refusal shows its message.
import { make, playerLink, playerName, timeControl } from "./describe.js";

const GAMES_POLL_MS = 5000;
// Time controls offered when the server gives a range rather than a list: base s, increment s.
const USUAL_TIMES = [
  [60, 0], [180, 2], [300, 0], [300, 3], [600, 5], [900, 10], [1800, 0],
];
const DEFAULT_TIME = "300+0";
const STRENGTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const DEFAULT_STRENGTH = 5;
const DEFAULT_LADDER = "fast"; // the ladder `arena serve` creates first
const PAGE_NAME = /^[A-Za-z0-9_-]{1,32}$/;

export class Lobby {
  // `openGame(gameId, started)` is called when a game of the user's starts; `openPath(path)`
  // opens another of the page's views.
  constructor(connection, openGame, openPath) {
    this.connection = connection;
    this.openGame = openGame;
    this.openPath = openPath;
    this.user = null;
    this.seeks = new Map();
    this.challenges = new Map();
    this.games = [];
    this.myGames = [];
    this.pairing = false;
    this.timer = null;
    this.#build();
    this.render();
  }

  mount(root) {
    root.replaceChildren(...this.sections);
    if (this.user !== null) this.#listGames();
  }

  online(welcome) {
    if (this.user?.name !== welcome.user.name) this.challenges.clear();
    this.user = welcome.user;
    this.myGames = welcome.games ?? [];
    this.pairing = false;
    this.#offer(welcome.offers);
    // `welcome` shows the default game's offers; `list_offers` has every game's.
    this.connection
      .request({ t: "list_offers" })
      .then((reply) => this.#offer(reply.offers))
      .catch(() => {});
    this.#listGames();
    clearInterval(this.timer);
    this.timer = setInterval(() => this.#listGames(), GAMES_POLL_MS);
    this.render();
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
      case "challenge_added":
        this.challenges.set(message.challenge.challenge_id, message.challenge);
        break;
      case "challenge_removed":
        this.#challengeGone(message);
        break;
      case "game_list": {
        this.games = message.games;
        const live = new Set(message.games.map((game) => game.game_id));
        this.myGames = this.myGames.filter((gameId) => live.has(gameId));
        break;
      }
      case "game_started":
        this.pairing = false;
        this.myGames = [...new Set([...this.myGames, message.game_id])];
        this.render();
        this.openGame(message.game_id, message);
        return;
      default:
        return;
    }
    this.render();
  }

  #challengeGone(message) {
    const challenge = this.challenges.get(message.challenge_id);
    this.challenges.delete(message.challenge_id);
    if (challenge === undefined || message.outcome !== "declined") return;
    if (challenge.challenger.name !== this.user?.name) return;
    const why = message.reason ? `: ${message.reason}` : "";
    this.#say(`${challenge.opponent.name} declined your challenge${why}`, "notice");
  }

  // Only while the lobby is on the page: a player in a game has no use for the list.
  #listGames() {
    if (!this.sections[0].isConnected) return;
    this.connection.request({ t: "list_games" }).catch(() => {});
  }

  // A request from a button: its refusal is shown as one line, its success clears the line.
  async #act(request) {
    this.#say("");
    try {
      return await this.connection.request(request);
    } catch (error) {
      this.#say(error.message);
      return null;
    }
  }

  #say(text, kind = "error") {
    this.message.textContent = text;
    this.message.className = `lobby-message ${kind}`;
  }

  #terms() {
    const [base, increment] = this.fields.time.value.split("+").map(Number);
    const terms = { time: { base, increment }, setup: this.fields.setup.value };
    // Amazons is the server's default game: its requests name no game, as before games were many.
    if (this.fields.game.value && this.fields.game.value !== "amazons") {
      terms.game = this.fields.game.value;
    }
    if (this.fields.rated.checked && !this.fields.rated.disabled) terms.rated = true;
    return terms;
  }

  #build() {
    const field = (label, control) => make("label", { class: "field" }, [label, control]);
    const button = (id, text, action) => {
      const node = make("button", { type: "button", id, text });
      node.addEventListener("click", action);
      return node;
    };
    this.fields = {
      game: make("select", { id: "game" }),
      setup: make("select", { id: "setup" }),
      time: make("select", { id: "time" }),
      colour: make("select", { id: "colour" }),
      rated: make("input", { id: "rated", type: "checkbox" }),
      bot: make("select", { id: "bot" }),
      strength: make("select", { id: "strength" }),
      opponent: make("input", { id: "opponent", autocomplete: "off", maxlength: "32" }),
      name: make("input", { id: "sign-in-name", autocomplete: "username", maxlength: "32" }),
      password: make("input", {
        id: "sign-in-password",
        type: "password",
        autocomplete: "current-password",
        maxlength: "128",
      }),
    };
    for (const colour of ["random", "white", "black"]) {
      this.fields.colour.append(make("option", { value: colour, text: colour }));
    }
    for (const strength of STRENGTHS) {
      this.fields.strength.append(make("option", { value: String(strength), text: strength }));
    }
    this.fields.strength.value = String(DEFAULT_STRENGTH);

    this.who = make("p", { class: "who-am-i", id: "who-am-i" });
    const signIn = make("form", { class: "sign-in", id: "sign-in" }, [
      field("Name", this.fields.name),
      field("Password", this.fields.password),
      make("button", { type: "submit", text: "Sign in" }),
    ]);
    this.signInBox = make("details", { class: "account" }, [
      make("summary", { text: "Sign in to an account", id: "sign-in-open" }),
      signIn,
    ]);
    signIn.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#signIn();
    });
    this.asGuest = button("play-as-guest", "Play as a guest instead", () => {
      this.#say("");
      this.connection.playAsGuest();
    });

    this.quickButton = button("quick-pair", "Quick pairing", () => this.#quickPair());
    this.pairingLine = make("p", { class: "pairing", id: "pairing" });
    this.message = make("p", { class: "lobby-message", id: "lobby-message", role: "alert" });
    this.seekList = make("ul", { class: "rows", id: "seeks" });
    this.challengeList = make("ul", { class: "rows", id: "challenges" });
    this.gameList = make("ul", { class: "rows", id: "games" });
    this.myGameList = make("ul", { class: "rows", id: "my-games" });
    this.myGamesPanel = make("section", { class: "panel urgent" }, [
      make("h2", { text: "Your games" }),
      this.myGameList,
    ]);
    this.challengesPanel = make("section", { class: "panel urgent" }, [
      make("h2", { text: "Challenges" }),
      this.challengeList,
    ]);
    this.sections = [
      make("section", { class: "panel play" }, [
        make("h2", { text: "Play" }),
        this.who,
        this.signInBox,
        this.asGuest,
        make("h3", { text: "New game" }),
        make("div", { class: "fields" }, [
          (this.gameField = field("Game", this.fields.game)),
          field("Board", this.fields.setup),
          field("Time", this.fields.time),
          field("Colour", this.fields.colour),
          make("label", { class: "field check" }, [this.fields.rated, "rated"]),
        ]),
        make("div", { class: "actions" }, [
          button("create-seek", "Create seek", () => this.#seek()),
          this.quickButton,
        ]),
        this.pairingLine,
        make("h3", { text: "Against a house bot" }),
        make("div", { class: "fields" }, [
          field("Bot", this.fields.bot),
          field("Strength", this.fields.strength),
          button("play-bot", "Play the bot", () => this.#challenge(this.fields.bot.value, true)),
        ]),
        make("h3", { text: "Challenge a player" }),
        make("div", { class: "fields" }, [
          field("Name", this.fields.opponent),
          button("challenge", "Challenge", () => this.#challenge(this.fields.opponent.value)),
        ]),
        this.message,
      ]),
      make("div", { class: "lists" }, [
        this.myGamesPanel,
        this.challengesPanel,
        make("section", { class: "panel" }, [make("h2", { text: "Open seeks" }), this.seekList]),
        make("section", { class: "panel" }, [make("h2", { text: "Live games" }), this.gameList]),
        this.#ladderPanel(),
        this.#playerPanel(),
      ]),
    ];
  }

  #ladderPanel() {
    return this.#byName("ladder", "Bot ladders", "Ladder", DEFAULT_LADDER, "Standings", "ladder-standings");
  }

  #playerPanel() {
    return this.#byName("player", "Players", "Name", "", "Profile", "player-open");
  }

  // A panel that opens `/KIND/NAME` for the name typed (a ladder's or a player's: the same
  // characters), or says in one line why it cannot be one.
  #byName(kind, heading, label, value, button, buttonId) {
    const name = make("input", {
      id: `${kind}-name`,
      value,
      maxlength: "32",
      autocomplete: "off",
      spellcheck: "false",
    });
    const note = make("p", { class: "lobby-message error", id: `${kind}-message`, role: "alert" });
    const form = make("form", { class: "ladder-form", id: `${kind}-form` }, [
      make("label", { class: "field" }, [label, name]),
      make("button", { type: "submit", id: buttonId, text: button }),
    ]);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const wanted = name.value.trim();
      if (!PAGE_NAME.test(wanted)) {
        note.textContent = `A ${kind}'s name is 1 to 32 letters, digits, _ or -`;
        return;
      }
      note.textContent = "";
      this.openPath(`/${kind}/${wanted}`);
    });
    return make("section", { class: "panel" }, [make("h2", { text: heading }), form, note]);
  }

  // Fill the choices with what the server offers: its games (the choice shown only when
  // there are several), and the chosen game's setups, time controls and house bots.
  #offer(offers) {
    if (!offers) return;
    const games = offers.games?.length ? offers.games : [{ game: "amazons", ...offers }];
    this.gameOffers = new Map(games.map((g) => [g.game, g]));
    const { game } = this.fields;
    const kept = game.value;
    game.replaceChildren(...games.map((g) => make("option", { value: g.game, text: g.game })));
    game.value = this.gameOffers.has(kept) ? kept : games[0].game;
    this.gameField.hidden = games.length < 2;
    if (!game.dataset.listening) {
      game.dataset.listening = "yes";
      game.addEventListener("change", () => this.#offerGame(this.gameOffers.get(game.value)));
    }
    this.#offerGame(this.gameOffers.get(game.value));
  }

  #offerGame(offers) {
    if (!offers) return;
    const { setup, time, bot } = this.fields;
    const keep = { setup: setup.value, time: time.value, bot: bot.value };
    setup.replaceChildren(...offers.setups.map((name) => make("option", { value: name, text: name })));
    setup.value = offers.setups.includes(keep.setup)
      ? keep.setup
      : (offers.default_setup ?? offers.setups[0] ?? "");
    let times = (offers.time_controls ?? []).map((t) => [t.base, t.increment]);
    if (times.length === 0) {
      times = USUAL_TIMES.filter(
        ([base, increment]) =>
          base >= offers.min_base && base <= offers.max_base && increment <= offers.max_increment,
      );
      if (times.length === 0) times = [[Math.max(offers.min_base, 1), 0]];
    }
    time.replaceChildren(
      ...times.map(([base, increment]) =>
        make("option", { value: `${base}+${increment}`, text: timeControl({ base, increment }) }),
      ),
    );
    const values = times.map(([base, increment]) => `${base}+${increment}`);
    time.value = values.includes(keep.time)
      ? keep.time
      : values.includes(DEFAULT_TIME)
        ? DEFAULT_TIME
        : values[0];
    const bots = offers.house_bots ?? [];
    bot.replaceChildren(...bots.map((name) => make("option", { value: name, text: name })));
    if (bots.includes(keep.bot)) bot.value = keep.bot;
  }

  async #signIn() {
    const user = this.fields.name.value.trim();
    const password = this.fields.password.value;
    if (user === "" || password === "") {
      this.#say("Give a name and a password to sign in");
      return;
    }
    this.#say("");
    this.fields.password.value = "";
    try {
      await this.connection.signIn(user, password);
      this.signInBox.open = false;
    } catch (error) {
      this.#say(error.message);
    }
  }

  async #seek() {
    await this.#act({ t: "seek", ...this.#terms(), colour: this.fields.colour.value });
  }

  async #quickPair() {
    if (this.pairing) {
      if ((await this.#act({ t: "cancel_quick_pair" })) !== null) this.pairing = false;
    } else if ((await this.#act({ t: "quick_pair", ...this.#terms() })) !== null) {
      this.pairing = true;
    }
    this.render();
  }

  async #challenge(opponent, house = false) {
    const name = opponent.trim();
    if (name === "") {
      this.#say(house ? "This server offers no house bots" : "Give the name of a player");
      return;
    }
    const request = { t: "challenge", opponent: name, ...this.#terms() };
    request.colour = this.fields.colour.value;
    if (house) {
      request.strength = Number(this.fields.strength.value);
      delete request.rated; // house games are casual
    }
    const reply = await this.#act(request);
    if (reply?.t === "challenge_added") this.#say(`Challenge sent to ${name}`, "notice");
  }

  render() {
    const me = this.user?.name;
    const account = this.user !== null && this.user.kind !== "guest";
    this.who.textContent =
      this.user === null ? "Connecting…" : `Playing as ${playerName(this.user)}`;
    this.asGuest.hidden = !account;
    this.fields.rated.disabled = !account;
    this.fields.rated.parentElement.title = account ? "" : "Sign in to play rated games";
    this.quickButton.textContent = this.pairing ? "Cancel quick pairing" : "Quick pairing";
    this.pairingLine.textContent = this.pairing ? "Looking for an opponent…" : "";

    this.seekList.replaceChildren(
      ...[...this.seeks.values()].map((seek) => {
        const mine = seek.player.name === me;
        const action = mine
          ? this.#rowButton("Cancel", { t: "cancel_seek", seek_id: seek.seek_id })
          : this.#rowButton("Accept", { t: "accept_seek", seek_id: seek.seek_id });
        return make("li", { class: "row seek", "data-seek": seek.seek_id }, [
          make("span", { class: "who" }, [playerLink(seek.player)]),
          make("span", { class: "what", text: terms(seek) }),
          make("span", {
            class: "colour",
            text: seek.colour === "random" ? "" : `plays ${seek.colour}`,
          }),
          action,
        ]);
      }),
    );
    if (this.seeks.size === 0) {
      this.seekList.append(make("li", { class: "empty", text: "No open seeks" }));
    }

    this.challengeList.replaceChildren(
      ...[...this.challenges.values()].map((challenge) => {
        const id = challenge.challenge_id;
        const incoming = challenge.opponent.name === me;
        const text = incoming
          ? ["from ", playerLink(challenge.challenger)]
          : ["to ", playerLink(challenge.opponent)];
        const actions = incoming
          ? [
              this.#rowButton("Accept", { t: "accept_challenge", challenge_id: id }),
              this.#rowButton("Decline", { t: "decline_challenge", challenge_id: id }),
            ]
          : [this.#rowButton("Cancel", { t: "cancel_challenge", challenge_id: id })];
        const colour =
          challenge.colour === "random" ? "" : `${challenge.challenger.name} plays ${challenge.colour}`;
        return make("li", { class: "row challenge", "data-challenge": id }, [
          make("span", { class: "who" }, text),
          make("span", { class: "what", text: terms(challenge) }),
          make("span", { class: "colour", text: colour }),
          ...actions,
        ]);
      }),
    );
    this.challengesPanel.hidden = this.challenges.size === 0;

    this.myGamesPanel.hidden = this.myGames.length === 0;
    this.myGameList.replaceChildren(
      ...this.myGames.map((gameId) =>
        make("li", { class: "row" }, [
          make("a", { class: "who", href: `/game/${encodeURIComponent(gameId)}`, text: gameId }),
        ]),
      ),
    );

    this.gameList.replaceChildren(
      ...this.games.map((game) =>
        make("li", { class: "row game", "data-game": game.game_id }, [
          make("span", { class: "who" }, [playerLink(game.white), " – ", playerLink(game.black)]),
          make("span", { class: "what", text: terms(game) }),
          make("span", { class: "ply", text: `move ${Math.floor(game.ply / 2) + 1}` }),
          make("a", {
            class: "watch",
            href: `/game/${encodeURIComponent(game.game_id)}`,
            text: "Watch",
          }),
        ]),
      ),
    );
    if (this.games.length === 0) {
      this.gameList.append(make("li", { class: "empty", text: "No live games" }));
    }
  }

  #rowButton(text, request) {
    const node = make("button", { type: "button", class: "small", text });
    node.addEventListener("click", () => this.#act(request));
    return node;
  }
}

function terms(offer) {
  const game = offer.game && offer.game !== "amazons" ? `${offer.game} ` : "";
  const rated = offer.rated ? "rated" : "casual";
  return `${game}${offer.setup ?? ""} · ${timeControl(offer.time)} · ${rated}`;
}
