// One websocket to the server that served the page, speaking the protocol of docs/protocol.md:
// binary msgpack maps, `hello` then a guest login, and after a dropped connection the same
// session again by `resume` (a new guest if it has lapsed). Every message from the server goes
// to the listener; a request's promise also settles with its reply or rejects with its error.
import { decode, encode } from "./vendor/msgpack.mjs";

export const PROTOCOL_VERSION = 1;
const CLIENT_NAME = "arena-web";
const RETRY_FIRST_MS = 500; // the first wait before reconnecting, doubled at each failure
const RETRY_MOST_MS = 15000;

export class ServerError extends Error {
  constructor(reply) {
    super(reply.message);
    this.code = reply.code;
  }
}

export class Connection {
  // `onMessage(message)` gets every message; `onState(state, detail)` each change of state:
  // "connecting", "online" (detail: the user's name), "offline" (detail: seconds to retry).
  constructor(url, { onMessage, onState, onOnline }) {
    this.url = url;
    this.onMessage = onMessage;
    this.onState = onState;
    this.onOnline = onOnline;
    this.socket = null;
    this.nextId = 1;
    this.pending = new Map();
    this.session = null;
    this.user = null;
    this.retryMs = RETRY_FIRST_MS;
  }

  open() {
    this.onState("connecting");
    const socket = new WebSocket(this.url);
    socket.binaryType = "arraybuffer";
    socket.addEventListener("open", () => this.#login());
    socket.addEventListener("message", (event) => this.#receive(event.data));
    socket.addEventListener("close", () => this.#closed(socket));
    this.socket = socket;
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
      await this.request({ t: "hello", version: PROTOCOL_VERSION, client: CLIENT_NAME });
      let welcome = null;
      if (this.session !== null) {
        welcome = await this.request({ t: "resume", session: this.session }).catch(() => null);
      }
      welcome ??= await this.request({ t: "guest" });
      this.session = welcome.session;
      this.user = welcome.user;
      this.retryMs = RETRY_FIRST_MS;
      this.onState("online", welcome.user.name);
      this.onOnline();
    } catch (error) {
      this.onState("offline", null, error.message);
      this.socket?.close();
    }
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

  #closed(socket) {
    if (socket !== this.socket) return;
    for (const id of [...this.pending.keys()]) {
      this.#settle({ t: "error", id, code: "offline", message: "connection lost" });
    }
    const waitMs = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MOST_MS);
    this.onState("offline", Math.ceil(waitMs / 1000));
    setTimeout(() => this.open(), waitMs);
  }
}

// The websocket of the page's own server: wss for a page served over https.
export function serverUrl(location) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/`;
}
