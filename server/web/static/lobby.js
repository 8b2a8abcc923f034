// The lobby: who the page plays as (a guest, or an account signed in by name and password),
// the terms of a new game and the ways to start one (a seek, quick pairing, a house bot, a
// challenge to a user by name), the open seeks (pushed by the server once asked for), the
// challenges to and from the user, the live games (asked for again every few seconds), and
// ways to a bot ladder's standings and to a player's page by name (players' names link there),
// and a signed-in person's own bots and their tokens (bots.js) and account (account.js), whose
// modules are fetched when a person first signs in (a guest's page never needs them).
// Only what the server offers (`welcome.offers`) is offered; a refusal shows its message.
import { make, playerLink, playerName, timeControl } from "./describe.js";

const GAMES_POLL_MS = 5000;
const WAIT_TICK_MS = 1000; // the countdown to asking a house bot again
// Time controls offered when the server gives a range rather than a list: base s, increment s.
const USUAL_TIMES = [
  [60, 0], [180, 2], [300, 0], [300, 3], [600, 5], [900, 10], [1800, 0],
];
const DEFAULT_TIME = "300+0";
const STRENGTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
export const DEFAULT_STRENGTH = 5;
// The house-bot strength last played at, kept for the browser (a rematch asks for it again).
export const STRENGTH_KEY = "arena-house-strength";
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
    // The seeks' news since this connection came online, until its seek list comes: the list
    // may have been read before some of them, and is brought up to date with them.
    this.seekNews = [];
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
    this.#personal();
    this.seekNews = [];
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
        (this.seekNews ?? []).forEach((news) => this.#seekNews(news));
        this.seekNews = null;
        break;
      case "seek_added":
      case "seek_removed":
        this.seekNews?.push(message);
        this.#seekNews(message);
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
      case "house_bots":
        this.houseBots = { ready: message.ready ?? [], preparing: message.preparing ?? [] };
        this.#offerBots();
        // A bot waited for that is ready now is asked at once, not at the end of the countdown.
        if (this.botWait !== null && this.houseBots.ready.includes(this.botWait.request.opponent)) {
          this.#playBot(this.botWait.request);
        }
        // Not the whole lobby drawn again: its rows' buttons would be replaced under a finger
        // pressing one (the server says this whenever readiness changes, at any moment).
        return;
      case "game_started":
        this.pairing = false;
        this.#stopWaiting();
        this.myGames = [...new Set([...this.myGames, message.game_id])];
        this.render();
        this.openGame(message.game_id, message);
        return;
      default:
        return;
    }
    this.render();
  }

  #seekNews(message) {
    if (message.t === "seek_added") this.seeks.set(message.seek.seek_id, message.seek);
    else this.seeks.delete(message.seek_id);
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
      newName: make("input", { id: "sign-up-name", autocomplete: "username", maxlength: "32" }),
      newPassword: make("input", {
        id: "sign-up-password",
        type: "password",
        autocomplete: "new-password",
        maxlength: "128",
      }),
    };
    for (const colour of ["random", "white", "black"]) {
      this.fields.colour.append(make("option", { value: colour, text: colour }));
    }
    for (const strength of STRENGTHS) {
      this.fields.strength.append(make("option", { value: String(strength), text: strength }));
    }
    const kept = localStorage.getItem(STRENGTH_KEY);
    this.fields.strength.value = STRENGTHS.includes(Number(kept)) ? kept : String(DEFAULT_STRENGTH);

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
    this.signUpProblem = make("p", { class: "form-problem", id: "sign-up-problem", role: "alert" });
    const signUp = make("form", { class: "sign-in", id: "sign-up" }, [
      field("Name", this.fields.newName),
      field("Password", this.fields.newPassword),
      make("button", { type: "submit", text: "Create account" }),
      this.signUpProblem,
    ]);
    this.signUpBox = make("details", { class: "account", id: "sign-up-box" }, [
      make("summary", { text: "Create an account", id: "sign-up-open" }),
      make("p", {
        class: "notice",
        text: "Letters, digits, _ and -, up to 32; a password of 8 characters or more",
      }),
      signUp,
    ]);
    signUp.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#signUp();
    });
    this.asGuest = button("play-as-guest", "Play as a guest instead", () => {
      this.#say("");
      this.connection.playAsGuest();
    });

    this.quickButton = button("quick-pair", "Quick pairing", () => this.#quickPair());
    this.botWaitText = make("span", { id: "bot-waiting-text" });
    this.botWaitLine = make("p", { class: "pairing waiting", id: "bot-waiting", hidden: "" }, [
      this.botWaitText,
      button("bot-waiting-cancel", "Cancel", () => this.#stopWaiting()),
    ]);
    this.botWait = null;
    this.houseBots = null; // {ready, preparing} once the server has said
    // The bot and the challenge take the board, time and colour of "New game": said under each.
    this.termsNotes = ["bot-terms", "challenge-terms"].map((id) => make("p", { class: "notice terms-note", id }));
    for (const name of ["game", "setup", "time", "colour", "rated"]) {
      this.fields[name].addEventListener("change", () => this.#sayTerms());
    }
    this.bots = [];
    this.botReadiness = make("p", { class: "notice readiness", id: "bot-readiness" });
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
    this.botsPanel = null; // with the account panel, made when a person first signs in
    this.accountPanel = null;
    this.lists = make("div", { class: "lists" }, [
      this.myGamesPanel,
      this.challengesPanel,
      make("section", { class: "panel" }, [make("h2", { text: "Open seeks" }), this.seekList]),
      make("section", { class: "panel" }, [make("h2", { text: "Live games" }), this.gameList]),
      this.#ladderPanel(),
      this.#playerPanel(),
    ]);
    this.sections = [
      make("section", { class: "panel play" }, [
        make("h2", { text: "Play" }),
        this.who,
        this.signInBox,
        this.signUpBox,
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
        this.botReadiness,
        this.termsNotes[0],
        make("div", { class: "fields" }, [
          field("Bot", this.fields.bot),
          field("Strength", this.fields.strength),
          button("play-bot", "Play the bot", () => this.#challenge(this.fields.bot.value, true)),
        ]),
        this.botWaitLine,
        make("h3", { text: "Challenge a player" }),
        this.termsNotes[1],
        make("div", { class: "fields" }, [
          field("Name", this.fields.opponent),
          button("challenge", "Challenge", () => this.#challenge(this.fields.opponent.value)),
        ]),
        this.message,
      ]),
      this.lists,
    ];
  }

  // A person's own bots and account: the panels made (their modules fetched) when a person
  // first signs in, and shown or hidden for whoever the page plays as since.
  async #personal() {
    if (this.accountPanel === null) {
      if (this.user?.kind !== "human") return;
      const [{ BotsPanel }, { AccountPanel }] = await Promise.all([
        import("./bots.js"),
        import("./account.js"),
      ]);
      if (this.accountPanel === null) {
        this.botsPanel = new BotsPanel(this.connection);
        this.accountPanel = new AccountPanel(this.connection);
        this.lists.append(this.botsPanel.section, this.accountPanel.section);
      }
    }
    // Whoever the page plays as now: it may have changed while the modules came.
    this.botsPanel.online(this.user);
    this.accountPanel.online(this.user);
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
    this.bots = offers.house_bots ?? [];
    bot.replaceChildren(...this.bots.map((name) => make("option", { value: name, text: name })));
    if (this.bots.includes(keep.bot)) bot.value = keep.bot;
    this.#offerBots();
    this.#sayTerms();
  }

  // What a house-bot game or a challenge would be: the terms chosen under "New game".
  #sayTerms() {
    const { game, setup, time, colour } = this.fields;
    const [base, increment] = time.value.split("+").map(Number);
    const kind = game.value && game.value !== "amazons" ? `${game.value} ` : "";
    const side = colour.value === "random" ? "colours drawn" : `you play ${colour.value}`;
    const terms = `${kind}${setup.value} · ${time.value ? timeControl({ base, increment }) : ""} · ${side}`;
    for (const note of this.termsNotes) note.textContent = `On the terms of New game above: ${terms}`;
  }

  // Each house bot's readiness as the server last said it (`house_bots`; servers before it say
  // nothing, and then nothing is shown): on its option, and in a line under the bots.
  #offerBots() {
    const known = this.houseBots;
    for (const option of this.fields.bot.options) {
      const name = option.value;
      const state =
        known === null || known.ready.includes(name)
          ? ""
          : known.preparing.includes(name)
            ? " (preparing)"
            : " (no worker)";
      option.textContent = name + state;
    }
    if (known === null) {
      this.botReadiness.textContent = "";
      return;
    }
    const offered = (names) => names.filter((name) => this.bots.includes(name));
    const [ready, preparing] = [offered(known.ready), offered(known.preparing)];
    const total = ready.length + preparing.length;
    this.botReadiness.textContent =
      total === 0
        ? "No house-bot worker is running yet"
        : preparing.length === 0
          ? `House bots: all ${total} ready`
          : `House bots: ${ready.length} of ${total} ready (preparing: ${preparing.join(", ")})`;
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

  async #signUp() {
    const user = this.fields.newName.value.trim();
    const password = this.fields.newPassword.value;
    const say = (text) => (this.signUpProblem.textContent = text);
    if (user === "" || password === "") {
      say("Give a name and a password");
      return;
    }
    // On a new connection the server cannot tell that this guest is in a game: said here.
    if (this.user?.kind === "guest" && this.myGames.length > 0) {
      say(`You are playing as ${this.user.name}: finish or leave your game first`);
      return;
    }
    say("");
    try {
      await this.connection.signUp(user, password);
      this.fields.newPassword.value = "";
      this.signUpBox.open = false;
    } catch (error) {
      say(error.message);
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
      localStorage.setItem(STRENGTH_KEY, this.fields.strength.value);
      delete request.rated; // house games are casual
      this.#playBot(request);
      return;
    }
    const reply = await this.#act(request);
    if (reply?.t === "challenge_added") this.#say(`Challenge sent to ${name}`, "notice");
  }

  // A house bot that is not ready yet (still being prepared, or no worker running) is asked
  // again after the server's `retry_after`, for as long as the user waits: the line says why
  // and when, and Cancel stops it. Its game opens as it starts (`game_started`).
  async #playBot(request) {
    this.#stopWaiting();
    this.#say("");
    try {
      await this.connection.request(request);
    } catch (error) {
      if (error.code !== "unavailable" || error.retryAfter === undefined) {
        this.#say(error.message);
        return;
      }
      const wait = { request, why: error.message, at: Date.now() + error.retryAfter * 1000 };
      wait.timer = setInterval(() => this.#waitForBot(wait), WAIT_TICK_MS);
      this.botWait = wait;
      this.#waitForBot(wait);
    }
  }

  #waitForBot(wait) {
    if (this.botWait !== wait) return;
    const seconds = Math.ceil((wait.at - Date.now()) / 1000);
    if (seconds <= 0) {
      this.#playBot(wait.request);
      return;
    }
    const bot = wait.request.opponent;
    this.botWaitText.textContent = `Waiting for ${bot}: ${wait.why}; asking again in ${seconds} s`;
    this.botWaitLine.hidden = false;
  }

  #stopWaiting() {
    clearInterval(this.botWait?.timer);
    this.botWait = null;
    this.botWaitLine.hidden = true;
  }

  render() {
    const me = this.user?.name;
    const account = this.user !== null && this.user.kind !== "guest";
    this.who.textContent =
      this.user === null ? "Connecting…" : `Playing as ${playerName(this.user)}`;
    this.asGuest.hidden = !account;
    this.signUpBox.hidden = account || !this.connection.signups;
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
    const live = new Map(this.games.map((game) => [game.game_id, game]));
    this.myGameList.replaceChildren(
      ...this.myGames.map((gameId) => this.#myGameRow(gameId, live.get(gameId))),
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

  // One of the user's live games: the opponent, the terms, whose move it is, and the way to it;
  // a game not yet in the live list (it has just started) by its id until the list has it.
  #myGameRow(gameId, game) {
    const open = make("a", {
      class: "watch",
      href: `/game/${encodeURIComponent(gameId)}`,
      text: "Open",
    });
    if (game === undefined) {
      return make("li", { class: "row game mine", "data-game": gameId }, [
        make("span", { class: "who", text: `Game ${gameId}` }),
        open,
      ]);
    }
    const me = this.user?.name;
    const colour = game.white.name === me ? "white" : "black";
    const opponent = colour === "white" ? game.black : game.white;
    const move = `move ${Math.floor(game.ply / 2) + 1}`;
    const state = game.to_move === colour ? `your move (${move})` : `their move (${move})`;
    return make("li", { class: "row game mine", "data-game": gameId }, [
      make("span", { class: "who" }, ["vs ", playerLink(opponent)]),
      make("span", { class: "what", text: `${terms(game)} · you play ${colour}` }),
      make("span", { class: `ply${game.to_move === colour ? " to-move" : ""}`, text: state }),
      open,
    ]);
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
