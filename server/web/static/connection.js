// One websocket to the server that served the page, speaking the protocol of docs/protocol.md:
// binary msgpack maps, `hello` then a login (a guest, an account's name and password, or a new
// account made by `sign_up` where the `ok` to `hello` says `signups`), and
// after a dropped connection the same session again by `resume` (a new guest if it has lapsed).
// The session token is kept for the browser (localStorage), so a reload, a game's address
// opened in another tab, or a second tab of a game, is still the same player (the server lets a
// session be resumed on several connections at once); a tab follows a sign-in or a new guest
// made in another. Every message from the server goes to the listener; a request's promise
// also settles with its reply or rejects with its error.
import { decode, encode } from "./vendor/msgpack.mjs";

export const PROTOCOL_VERSION = 1;
const CLIENT_NAME = "arena-web";
const RETRY_FIRST_MS = 500; // the first wait before reconnecting, doubled at each failure
const RETRY_MOST_MS = 15000;
const SESSION_KEY = "arena-session";

export class ServerError extends Error {
  constructor(reply) {
    super(reply.message);
    this.code = reply.code;
    this.retryAfter = reply.retry_after;
  }
}

export class Connection {
  // `onMessage(message)` gets every message; `onState(state, detail)` each change of state:
  // "connecting", "online" (detail: the user's name), "offline" (detail: seconds to retry).
  // `firstRequests()` lists requests to send right behind the login, their replies going to
  // `onMessage` like any other (a login refused sends them again behind the guest login).
  constructor(url, { onMessage, onState, onOnline, firstRequests = () => [] }) {
    this.url = url;
    this.firstRequests = firstRequests;
    this.onMessage = onMessage;
    this.onState = onState;
    this.onOnline = onOnline;
    this.socket = null;
    this.nextId = 1;
    this.pending = new Map();
    this.session = localStorage.getItem(SESSION_KEY);
    // Another tab of this browser signed in, or became a new guest: this one follows it.
    window.addEventListener("storage", (event) => {
      if (event.key !== SESSION_KEY || event.newValue === null) return;
      if (event.newValue === this.session) return;
      this.session = event.newValue;
      this.#reopen();
    });
    this.user = null;
    this.welcome = null;
    this.signingIn = null; // {tag, user, password, resolve, reject} until the login is answered
    this.signups = false; // whether the server lets anyone make an account, as its `ok` says
    this.retryMs = RETRY_FIRST_MS;
    this.retryTimer = null;
  }

  open() {
    this.onState("connecting");
    const socket = new WebSocket(this.url);
    socket.binaryType = "arraybuffer";
    socket.addEventListener("open", () => this.#login());
    socket.addEventListener("message", (event) => {
      if (socket === this.socket) this.#receive(event.data);
    });
    socket.addEventListener("close", () => this.#closed(socket));
    this.socket = socket;
  }

  get online() {
    return this.welcome !== null && this.socket?.readyState === WebSocket.OPEN;
  }

  // Log in to an account on a new connection (a connection logs in once); resolves with the
  // welcome, or rejects with the server's refusal, and then the page goes on as a new guest.
  signIn(user, password) {
    return new Promise((resolve, reject) => {
      this.signingIn = { tag: "login", user, password, resolve, reject };
      this.#forget();
      this.#reopen();
    });
  }

  // Make an account and log in to it, on a new connection; resolves with the welcome, or
  // rejects with the server's refusal, and then the page goes on as the player it was.
  signUp(user, password) {
    return new Promise((resolve, reject) => {
      this.signingIn = { tag: "sign_up", user, password, resolve, reject };
      this.#reopen();
    });
  }

  // Leave the account (or the guest) for a new guest.
  playAsGuest() {
    this.#forget();
    this.#reopen();
  }

  #forget() {
    this.session = null;
    localStorage.removeItem(SESSION_KEY);
  }

  #reopen() {
    const old = this.socket;
    this.socket = null; // its close is then not a dropped connection to retry
    this.welcome = null;
    clearTimeout(this.retryTimer);
    old?.close();
    this.#dropPending("signed out");
    this.open();
  }

  // Send a request; resolves with its reply, rejects with a ServerError.
  request(message) {
    const id = this.nextId++;
    const reply = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
    if (this.socket?.readyState === WebSocket.OPEN) {
      this.socket.send(encode({ ...message, id }));
    } else {
      this.#settle({ t: "error", id, code: "offline", message: "not connected" });
    }
    return reply;
  }

  async #login() {
    try {
      // The first login goes out with the hello, not after its reply: the server answers a
      // connection's requests in order, and the page is online a round trip sooner.
      const hello = this.request({ t: "hello", version: PROTOCOL_VERSION, client: CLIENT_NAME });
      hello.then((ok) => (this.signups = ok.signups === true), () => {});
      let welcome = null;
      const signingIn = this.signingIn;
      this.signingIn = null;
      let login;
      if (signingIn !== null) {
        const { tag, user, password } = signingIn;
        login = this.request({ t: tag, user, password }).then(
          (reply) => (signingIn.resolve(reply), reply),
          (error) => (signingIn.reject(error), null),
        );
      } else if (this.session !== null) {
        login = this.request({ t: "resume", session: this.session }).catch(() => null);
      } else {
        login = this.request({ t: "guest" });
      }
      login.catch(() => {}); // a refused hello is the failure reported
      this.#sendFirst();
      await hello;
      welcome = await login;
      if (welcome === null && signingIn !== null && this.session !== null) {
        // A refused sign-up: the page goes on as the player it was.
        const resumed = this.request({ t: "resume", session: this.session }).catch(() => null);
        this.#sendFirst();
        welcome = await resumed;
      }
      if (welcome === null) {
        const guest = this.request({ t: "guest" });
        this.#sendFirst();
        welcome = await guest;
      }
      this.session = welcome.session;
      localStorage.setItem(SESSION_KEY, welcome.session);
      this.user = welcome.user;
      this.welcome = welcome;
      this.retryMs = RETRY_FIRST_MS;
      this.onState("online", welcome.user.name);
      this.onOnline(welcome);
    } catch (error) {
      this.onState("offline", null, error.message);
      this.socket?.close();
    }
  }

  #sendFirst() {
    for (const request of this.firstRequests()) this.request(request).catch(() => {});
  }

  #receive(data) {
    if (!(data instanceof ArrayBuffer)) return;
    let message;
    try {
      message = decode(new Uint8Array(data));
    } catch {
      return;
    }
    if (message === null || typeof message !== "object") return;
    this.#settle(message);
    this.onMessage(message);
  }

  #settle(message) {
    const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
    if (waiting === undefined) return;
    this.pending.delete(message.id);
    if (message.t === "error") waiting.reject(new ServerError(message));
    else waiting.resolve(message);
  }

  #dropPending(message) {
    for (const id of [...this.pending.keys()]) {
      this.#settle({ t: "error", id, code: "offline", message });
    }
  }

  #closed(socket) {
    if (socket !== this.socket) return;
    this.welcome = null;
    this.#dropPending("connection lost");
    const waitMs = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MOST_MS);
    this.onState("offline", Math.ceil(waitMs / 1000));
    this.retryTimer = setTimeout(() => this.open(), waitMs);
  }
}

// The websocket of the page's own server: wss for a page served over https.
export function serverUrl(location) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/`;
}
