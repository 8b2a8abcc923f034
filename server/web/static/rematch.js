// What a player is offered once their game has ended: *Rematch*, the same game with the colours
// swapped, asked of the opponent as a `challenge` (a house bot's starts at once), and *New game*,
// one like it against the same kind of opponent (the same house bot, or a seek on the same
// terms for anyone). The opponent's page shows the rematch asked of it, to accept or decline;
// a challenge is a rematch when it comes from this game's opponent on this game's terms, the
// opponent asking for the colour the user played. Games that start open by the lobby's `game_started`, as any other.
import { make } from "./describe.js";
import { DEFAULT_STRENGTH, STRENGTH_KEY } from "./lobby.js";

export class Rematch {
  // `openPath(path)` opens another view of the page (the lobby, for a seek).
  constructor(connection, openPath) {
    this.connection = connection;
    this.openPath = openPath;
    this.game = null;
    this.mine = null;
    this.asked = null; // the challenge id of our rematch, while it is open
    this.offered = null; // the opponent's rematch challenge, while it is open
    const button = (id, text, action, secondary = false) => {
      const node = make("button", { type: "button", id, text });
      if (secondary) node.classList.add("secondary");
      node.addEventListener("click", action);
      return node;
    };
    this.rematchButton = button("rematch", "Rematch", () => this.#rematch());
    this.newGameButton = button("new-game", "New game", () => this.#newGame(), true);
    this.cancelButton = button("rematch-cancel", "Cancel", () => this.#cancel(), true);
    this.line = make("p", { class: "rematch-line", id: "rematch-line", role: "status" });
    this.acceptButton = button("rematch-accept", "Accept", () => this.#answer(true));
    this.declineButton = button("rematch-decline", "Decline", () => this.#answer(false), true);
    this.offer = make("div", { class: "rematch-offer", id: "rematch-offer", hidden: "" }, [
      (this.offerText = make("span", { class: "offer-text" })),
      this.acceptButton,
      this.declineButton,
    ]);
    this.element = make("div", { class: "after-game", id: "after-game", hidden: "" }, [
      this.offer,
      this.line,
      make("div", { class: "actions" }, [this.rematchButton, this.newGameButton, this.cancelButton]),
    ]);
    this.render();
  }

  // The game as the page holds it, and the colour the user played in it (null: a spectator).
  show(game, mine) {
    this.game = game;
    this.mine = mine;
    this.render();
  }

  render() {
    const ended = this.game?.status === "ended" && this.mine !== null;
    this.element.hidden = !ended;
    // A game from a position (no setup) cannot be asked for again by a challenge or a seek.
    const again = ended && Boolean(this.game.setup);
    this.rematchButton.hidden = !again || this.asked !== null || this.offered !== null;
    this.newGameButton.hidden = !again || this.asked !== null;
    this.cancelButton.hidden = this.asked === null;
    this.offer.hidden = this.offered === null;
  }

  // Challenges come to every page of the user: the rematch of this game is the one answered here.
  receive(message) {
    if (message.t === "challenge_added") {
      const challenge = message.challenge;
      if (this.#isRematch(challenge)) {
        this.offered = challenge;
        const colour = this.#other();
        this.offerText.textContent = `${challenge.challenger.name} asks for a rematch (you play ${colour})`;
        this.#say("");
      }
    } else if (message.t === "challenge_removed") {
      const id = message.challenge_id;
      if (id === this.asked) {
        this.asked = null;
        if (message.outcome === "declined") {
          const why = message.reason ? `: ${message.reason}` : "";
          this.#say(`${this.#opponent().name} declined the rematch${why}`);
        } else if (message.outcome !== "accepted") this.#say("");
      }
      if (id === this.offered?.challenge_id) {
        this.offered = null;
        if (message.outcome === "cancelled") this.#say(`${this.#opponent().name} took the rematch back`);
      }
    } else return;
    this.render();
  }

  #isRematch(challenge) {
    const game = this.game;
    if (game?.status !== "ended" || this.mine === null) return false;
    return (
      challenge.challenger.name === this.#opponent().name &&
      challenge.opponent.name === game[this.mine].name &&
      challenge.colour === this.mine &&
      challenge.setup === game.setup &&
      (challenge.game ?? "amazons") === game.kind &&
      challenge.time.base === game.time.base &&
      challenge.time.increment === game.time.increment &&
      Boolean(challenge.rated) === Boolean(game.rated)
    );
  }

  #opponent() {
    return this.game[this.#other()];
  }

  #other() {
    return this.mine === "white" ? "black" : "white";
  }

  // The game's terms as a request's fields (Amazons, the default game, named by none).
  #terms() {
    const game = this.game;
    const terms = { time: { ...game.time }, setup: game.setup };
    if (game.kind !== "amazons") terms.game = game.kind;
    if (game.rated) terms.rated = true;
    return terms;
  }

  #houseRequest(colour) {
    const strength = Number(localStorage.getItem(STRENGTH_KEY) ?? DEFAULT_STRENGTH);
    return {
      t: "challenge",
      opponent: this.#opponent().name,
      ...this.#terms(),
      colour,
      strength: Number.isInteger(strength) ? strength : DEFAULT_STRENGTH,
    };
  }

  async #rematch() {
    const opponent = this.#opponent();
    const house = opponent.kind === "house";
    // Our rematch crossing theirs: accepting theirs is the rematch both asked for.
    if (this.offered !== null) {
      await this.#answer(true);
      return;
    }
    // The colour asked for is the one the opponent played: the colours swap.
    const request = house
      ? this.#houseRequest(this.#other())
      : { t: "challenge", opponent: opponent.name, ...this.#terms(), colour: this.#other() };
    this.#say(house ? `Starting a rematch with ${opponent.name}…` : "");
    try {
      const reply = await this.connection.request(request);
      if (reply.t === "challenge_added") {
        this.asked = reply.challenge.challenge_id;
        this.#say(`Rematch asked of ${opponent.name} (you play ${this.#other()}): waiting for an answer`);
      }
    } catch (error) {
      this.#say(error.message);
    }
    this.render();
  }

  // A game like this one: the same house bot with the same colour, or a seek on the same terms.
  async #newGame() {
    const opponent = this.#opponent();
    try {
      if (opponent.kind === "house") {
        this.#say(`Starting a new game with ${opponent.name}…`);
        await this.connection.request(this.#houseRequest(this.mine));
      } else {
        await this.connection.request({ t: "seek", ...this.#terms(), colour: "random" });
        this.openPath("/");
      }
    } catch (error) {
      this.#say(error.message);
    }
  }

  async #cancel() {
    const id = this.asked;
    if (id === null) return;
    try {
      await this.connection.request({ t: "cancel_challenge", challenge_id: id });
      this.asked = null;
      this.#say("Rematch taken back");
    } catch (error) {
      this.#say(error.message);
    }
    this.render();
  }

  async #answer(accept) {
    const challenge = this.offered;
    if (challenge === null) return;
    const id = challenge.challenge_id;
    try {
      await this.connection.request(
        accept ? { t: "accept_challenge", challenge_id: id } : { t: "decline_challenge", challenge_id: id },
      );
      this.offered = null;
      if (!accept) this.#say("Rematch declined");
    } catch (error) {
      this.offered = null;
      this.#say(error.message);
    }
    this.render();
  }

  #say(text) {
    this.line.textContent = text;
  }
}
