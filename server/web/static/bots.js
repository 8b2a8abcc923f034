// A person's own bots, for a signed-in account (not a guest, not a bot): the bots they own, a
// form to make one, and each bot's tokens, made (a new token is shown once, here, to be copied
// into the bot's configuration), listed by id and revoked. The server keeps the limits and says
// why it refuses; the refusal shows under the panel's form.
import { make, playerPath } from "./describe.js";

const BOT_NAME = /^[A-Za-z0-9_-]{1,32}$/;

function made(ms) {
  return ms === undefined || ms === null
    ? "made before dates were kept"
    : `made ${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export class BotsPanel {
  constructor(connection) {
    this.connection = connection;
    this.bots = [];
    this.tokens = new Map(); // bot name -> its live tokens, for the bots whose list is open
    this.name = make("input", {
      id: "new-bot-name",
      maxlength: "32",
      autocomplete: "off",
      spellcheck: "false",
    });
    const form = make("form", { class: "ladder-form", id: "new-bot" }, [
      make("label", { class: "field" }, ["Bot name", this.name]),
      make("button", { type: "submit", id: "new-bot-make", text: "Make bot" }),
    ]);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#make();
    });
    this.list = make("ul", { class: "rows", id: "my-bots" });
    this.fresh = make("div", { class: "new-token", id: "new-token", hidden: "" });
    this.message = make("p", { class: "lobby-message error", id: "bots-message", role: "alert" });
    this.section = make("section", { class: "panel", id: "bots-panel", hidden: "" }, [
      make("h2", { text: "Your bots" }),
      make("p", {
        class: "notice",
        text: "A bot account you own plays with a token: arena bot --server … --token-file FILE.",
      }),
      form,
      this.message,
      this.fresh,
      this.list,
    ]);
  }

  // Shown to a person's account only; asked for again at each login.
  online(user) {
    const person = user.kind === "human";
    this.section.hidden = !person;
    this.bots = [];
    this.tokens.clear();
    this.fresh.hidden = true;
    this.#say("");
    this.render();
    if (person) this.#ask({ t: "list_bots" }).then((reply) => reply && this.#bots(reply));
  }

  async #ask(request) {
    this.#say("");
    try {
      return await this.connection.request(request);
    } catch (error) {
      this.#say(error.message);
      return null;
    }
  }

  #say(text) {
    this.message.textContent = text;
  }

  #bots(reply) {
    this.bots = reply.bots ?? [];
    this.render();
  }

  async #make() {
    const name = this.name.value.trim();
    if (!BOT_NAME.test(name)) {
      this.#say("A bot's name is 1 to 32 letters, digits, _ or -");
      return;
    }
    const reply = await this.#ask({ t: "create_bot", name });
    if (reply === null) return;
    this.name.value = "";
    this.#bots(reply);
  }

  async #newToken(bot) {
    const reply = await this.#ask({ t: "create_token", bot });
    if (reply === null) return;
    const code = make("code", { id: "new-token-value", text: reply.token });
    this.fresh.replaceChildren(
      make("p", {
        text: `New token ${reply.token_id} of ${reply.bot}: copy it now, it is shown only once.`,
      }),
      code,
    );
    this.fresh.hidden = false;
    await this.#listTokens(reply.bot);
    const listed = await this.#ask({ t: "list_bots" });
    if (listed !== null) this.#bots(listed);
  }

  async #listTokens(bot) {
    const reply = await this.#ask({ t: "list_tokens", bot });
    if (reply === null) return;
    this.tokens.set(reply.bot, reply.tokens ?? []);
    this.render();
  }

  async #revoke(bot, tokenId) {
    const reply = await this.#ask({ t: "revoke_token", token_id: tokenId });
    if (reply === null) return;
    this.tokens.set(reply.bot, reply.tokens ?? []);
    const listed = await this.#ask({ t: "list_bots" });
    if (listed !== null) this.#bots(listed);
  }

  #button(text, attributes, action) {
    const node = make("button", { type: "button", text, ...attributes });
    node.addEventListener("click", action);
    return node;
  }

  render() {
    this.list.replaceChildren(
      ...this.bots.map((bot) => {
        const shown = this.tokens.get(bot.name);
        const count = `${bot.tokens} token${bot.tokens === 1 ? "" : "s"}`;
        const row = make("li", { class: "row bot", "data-bot": bot.name }, [
          make("a", { class: "who", href: playerPath(bot.name), text: bot.name }),
          make("span", { class: "what", text: count }),
          this.#button("Tokens", { class: "bot-tokens" }, () =>
            shown === undefined
              ? this.#listTokens(bot.name)
              : (this.tokens.delete(bot.name), this.render()),
          ),
          this.#button("New token", { class: "bot-new-token" }, () => this.#newToken(bot.name)),
        ]);
        if (shown === undefined) return row;
        const tokens = make(
          "ul",
          { class: "rows tokens" },
          shown.length === 0
            ? [make("li", { class: "empty", text: "No live tokens" })]
            : shown.map((token) =>
                make("li", { class: "row token", "data-token": token.token_id }, [
                  make("code", { class: "who", text: token.token_id }),
                  make("span", { class: "what", text: made(token.created) }),
                  this.#button("Revoke", { class: "revoke-token" }, () =>
                    this.#revoke(bot.name, token.token_id),
                  ),
                ]),
              ),
        );
        row.append(tokens);
        return row;
      }),
    );
    if (this.bots.length === 0) {
      this.list.append(make("li", { class: "empty", text: "No bots yet" }));
    }
  }
}
