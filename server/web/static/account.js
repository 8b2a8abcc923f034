// A person's own account, for a signed-in account (not a guest, not a bot): the password
// changed (the old one required; the account's other sessions end) and the account's live
// sessions, listed by id, when they started and where from, each of the others ended with a
// button; its ratings, with a link to its own page (every game, each rating's history); and the
// account deleted, its password asked for and the deletion confirmed. The server
// keeps the rules and says why it refuses; the refusal shows under the form.
import { make, playerPath, poolLabel, ratingText } from "./describe.js";

function started(ms) {
  return `since ${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export class AccountPanel {
  constructor(connection) {
    this.connection = connection;
    this.sessions = [];
    this.name = null;
    this.old = make("input", {
      id: "old-password",
      type: "password",
      required: "",
      autocomplete: "current-password",
    });
    this.new = make("input", {
      id: "new-password",
      type: "password",
      required: "",
      autocomplete: "new-password",
    });
    const form = make("form", { class: "ladder-form", id: "change-password" }, [
      make("label", { class: "field" }, ["Current password", this.old]),
      make("label", { class: "field" }, ["New password", this.new]),
      make("button", { type: "submit", id: "change-password-submit", text: "Change password" }),
    ]);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#change();
    });
    this.password = make("input", {
      id: "delete-password",
      type: "password",
      required: "",
      autocomplete: "current-password",
    });
    const deletion = make("form", { class: "ladder-form", id: "delete-account" }, [
      make("label", { class: "field" }, ["Password", this.password]),
      make("button", {
        type: "submit",
        id: "delete-account-submit",
        class: "danger",
        text: "Delete account",
      }),
    ]);
    deletion.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#delete();
    });
    this.message = make("p", { class: "lobby-message", id: "account-message", role: "alert" });
    this.deleted = make("p", { class: "lobby-message", id: "delete-message", role: "alert" });
    this.list = make("ul", { class: "rows", id: "my-sessions" });
    this.ratings = make("ul", { class: "rows", id: "my-ratings" });
    this.page = make("a", { id: "my-page", text: "Your page: every game, each rating's history" });
    this.section = make("section", { class: "panel", id: "account-panel", hidden: "" }, [
      make("h2", { text: "Account" }),
      make("h3", { text: "Ratings" }),
      this.ratings,
      make("p", {}, [this.page]),
      form,
      this.message,
      make("h3", { text: "Sessions" }),
      this.list,
      make("h3", { text: "Delete account" }),
      make("p", {
        class: "what",
        text:
          "Your finished games and ratings stay under your name, which nobody may take; " +
          "your bots' tokens are revoked. Finish or resign your games first.",
      }),
      deletion,
      this.deleted,
    ]);
  }

  // Shown to a person's account only; its sessions asked for again at each login.
  online(user) {
    const person = user.kind === "human";
    this.name = user.name;
    this.section.hidden = !person;
    this.sessions = [];
    this.page.setAttribute("href", playerPath(user.name));
    this.ratings.replaceChildren();
    this.#say("", false);
    this.#say("", false, this.deleted);
    this.render();
    if (person) {
      this.#refresh();
      this.#rate();
    }
  }

  // The account's ratings as its page has them, read at each login.
  async #rate() {
    const profile = await this.#ask({ t: "player_info", name: this.name });
    if (profile === null) return;
    const pools = profile.ratings ?? [];
    this.ratings.replaceChildren(
      ...(pools.length === 0
        ? [make("li", { class: "row empty", text: "No rated games yet" })]
        : pools.map((pool) =>
            make("li", { class: "row", "data-pool": poolLabel(pool) }, [
              make("span", { class: "who", text: poolLabel(pool) }),
              make("span", { class: "what", text: ratingText(pool) }),
            ]),
          )),
    );
  }

  // The server's refusal is said under the form that asked (`where`).
  async #ask(request, where = this.message) {
    this.#say("", false, where);
    try {
      return await this.connection.request(request);
    } catch (error) {
      this.#say(error.message, true, where);
      return null;
    }
  }

  #say(text, error, where = this.message) {
    where.textContent = text;
    where.classList.toggle("error", error);
  }

  async #refresh() {
    const reply = await this.#ask({ t: "list_sessions" });
    if (reply === null) return;
    this.sessions = reply.sessions ?? [];
    this.render();
  }

  async #change() {
    const request = { t: "change_password", old: this.old.value, new: this.new.value };
    const reply = await this.#ask(request);
    if (reply === null) return;
    this.old.value = "";
    this.new.value = "";
    await this.#refresh();
    this.#say("Password changed; your other sessions have ended.", false);
  }

  // The connection closes once the account is gone, and the page goes on as a new guest.
  async #delete() {
    const sure = `Delete the account ${this.name}? It cannot log in again.`;
    if (!window.confirm(sure)) return;
    const request = { t: "delete_account", password: this.password.value };
    const reply = await this.#ask(request, this.deleted);
    this.password.value = "";
    if (reply !== null) this.#say("Account deleted.", false, this.deleted);
  }

  async #end(sessionId) {
    const reply = await this.#ask({ t: "end_session", session_id: sessionId });
    if (reply === null) return;
    this.sessions = reply.sessions ?? [];
    this.render();
  }

  render() {
    this.list.replaceChildren(
      ...this.sessions.map((session) => {
        const where = session.address ? ` from ${session.address}` : "";
        const row = make("li", { class: "row session", "data-session": session.session_id }, [
          make("code", { class: "who", text: session.session_id }),
          make("span", { class: "what", text: `${started(session.started)}${where}` }),
        ]);
        if (session.current) {
          row.append(make("span", { class: "what", text: "this one" }));
        } else {
          const end = make("button", { type: "button", class: "end-session", text: "End" });
          end.addEventListener("click", () => this.#end(session.session_id));
          row.append(end);
        }
        return row;
      }),
    );
  }
}
