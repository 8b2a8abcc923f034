// Bao la Kiswahili positions and moves as the server writes them (docs/bao.md), and the rules
// the server plays by (engine/bao/board.py with its recommended options), so the page can draw
// the position after every move and mark a player's legal pits and directions at once, with
// no round trip to the server per click; the server still judges the move it is sent.
//
// A side's 16 pits are a ring: 0..7 the front row A1..A8, 8..15 the back row B8..B1. Player 0
// is South (white on the wire), player 1 North (black). `>` is clockwise (+1), `<` the other way.

const PITS = 16;
const FRONT = 8;
const HOUSE = 4;
const NO_PIT = -1;
const FUNCTIONAL = 6; // seeds that make an owned house functional
const PLY_CAP = 600;
const RECORD_FROM_LAP = 24;
const CW = 1;
const CCW = -1;
const MOVE = /^([ab])([1-8])([<>])(\+?)$/i;
// The rows of position text, top to bottom as South sees them: [owner, ring pits a..h].
const ROWS = [
  [1, [8, 9, 10, 11, 12, 13, 14, 15]],
  [1, [7, 6, 5, 4, 3, 2, 1, 0]],
  [0, [0, 1, 2, 3, 4, 5, 6, 7]],
  [0, [15, 14, 13, 12, 11, 10, 9, 8]],
];
export const SIDE_NAMES = ["South", "North"];
export const COLOURS = ["white", "black"];

export function pitLabel(pit) {
  return pit < FRONT ? `A${pit + 1}` : `B${PITS - pit}`;
}

export function moveText(move) {
  return `${pitLabel(move.pit)}${move.direction === CW ? ">" : "<"}${move.safari ? "+" : ""}`;
}

export function parseMove(text) {
  const match = MOVE.exec(text.replace(/\s+/g, ""));
  if (match === null) return null;
  const column = Number(match[2]);
  const pit = match[1].toUpperCase() === "A" ? column - 1 : PITS - column;
  return { pit, direction: match[3] === ">" ? CW : CCW, safari: match[4] === "+" };
}

export class BaoPosition {
  // `pits`: 32 counts, player p's ring at p*16..p*16+15; `stores` [South, North]; `owned`
  // the houses still owned; `mover` 0 or 1; `blocked` the mover's takasia'd pit or -1.
  constructor(pits, stores, owned, mover, blocked, ply) {
    this.pits = pits;
    this.stores = stores;
    this.owned = owned;
    this.mover = mover;
    this.blocked = blocked;
    this.ply = ply;
    this.legal = null;
  }

  static parse(text) {
    const fields = text.trim().split(/\s+/);
    if (fields.length !== 7) throw new Error(`not a Bao position: ${text}`);
    const [rows, stores, houses, blocked, side, , ply] = fields;
    const pits = Array(2 * PITS).fill(0);
    rows.split("/").forEach((row, i) => {
      const [owner, ring] = ROWS[i];
      row.split(",").forEach((count, column) => {
        pits[owner * PITS + ring[column]] = Number(count);
      });
    });
    const [south, north] = stores.split("-").map(Number);
    const upper = houses.toUpperCase();
    const mark = blocked === "-" || /^x/i.test(blocked) ? null : parseMove(`${blocked}>`);
    return new BaoPosition(
      pits,
      [south, north],
      [upper.includes("S"), upper.includes("N")],
      side.toLowerCase() === "n" ? 1 : 0,
      mark === null ? NO_PIT : mark.pit,
      Number(ply),
    );
  }

  // Seeds in pit `pit` (ring index) of `side`.
  seeds(side, pit) {
    return this.pits[side * PITS + pit];
  }

  get toMove() {
    return COLOURS[this.mover];
  }

  inNamua(side = this.mover) {
    return this.stores[side] > 0;
  }

  // The legal moves: [{pit, direction, safari, after}], in the engine's order.
  moves() {
    if (this.legal === null) this.legal = legalMoves(this);
    return this.legal;
  }

  // The position after move text `text`; an Error when it is not a legal move here.
  after(text) {
    const move = parseMove(text);
    const found =
      move &&
      this.moves().find(
        (m) => m.pit === move.pit && m.direction === move.direction && m.safari === move.safari,
      );
    if (!found) throw new Error(`${text} is not a legal move here`);
    return found.after;
  }

  // The steps of move text `text`'s sowing from here (see `sow`); null when it is not legal.
  sowing(text) {
    const move = parseMove(text);
    if (move === null || !this.moves().some((m) => moveText(m) === moveText(move))) return null;
    const starts = moveStarts(this);
    const trace = [];
    sow(this, move.pit, move.direction, starts, move.safari, trace);
    return trace;
  }

  isOver() {
    return this.moves().length === 0;
  }

  // The winner's side (0 or 1) once the game is over; null while it goes on or when drawn.
  winner() {
    if (!frontSeeds(this, 1 - this.mover)) return this.mover;
    if (!frontSeeds(this, this.mover)) return 1 - this.mover;
    if (this.ply >= PLY_CAP || this.moves().length) return null;
    return 1 - this.mover;
  }
}

function frontSeeds(board, side) {
  let total = 0;
  for (let k = 0; k < FRONT; k++) total += board.pits[side * PITS + k];
  return total;
}

function functionalHouse(board, side) {
  return board.owned[side] && board.pits[side * PITS + HOUSE] >= FUNCTIONAL;
}

function mtajiCaptures(pits, player) {
  const mine = player * PITS;
  const theirs = (1 - player) * PITS;
  const found = [];
  for (let pit = 0; pit < PITS; pit++) {
    const seeds = pits[mine + pit];
    if (seeds < 2 || seeds > 15) continue;
    for (const d of [CW, CCW]) {
      const end = (((pit + d * seeds) % PITS) + PITS) % PITS;
      if (end < FRONT && pits[mine + end] && pits[theirs + 7 - end]) found.push([pit, d]);
    }
  }
  return found;
}

function firstTarget(pits, player, pit, d) {
  return 7 - ((((pit + d * pits[player * PITS + pit]) % PITS) + PITS) % PITS);
}

function namuaCaptures(pits, player) {
  const mine = player * PITS;
  const theirs = (1 - player) * PITS;
  const found = [];
  for (let k = 0; k < FRONT; k++) if (pits[mine + k] && pits[theirs + 7 - k]) found.push(k);
  return found;
}

function hasCapture(stores, pits, player) {
  return stores[player] > 0
    ? namuaCaptures(pits, player).length > 0
    : mtajiCaptures(pits, player).length > 0;
}

// The (pit, direction) pairs the mover may start from, and what kind of move they make.
function moveStarts(board) {
  const p = board.mover;
  const pits = board.pits;
  const base = p * PITS;
  const both = [CW, CCW];
  const pairs = (list, dirs = both) => list.flatMap((k) => dirs.map((d) => [k, d]));
  if (board.inNamua()) {
    const caps = namuaCaptures(pits, p);
    if (caps.length) {
      const found = caps.flatMap((k) =>
        (k <= 1 ? [CW] : k >= 6 ? [CCW] : both).map((d) => [k, d]),
      );
      return { pairs: found, capture: true, tax: false };
    }
    const occupied = [];
    for (let k = 0; k < FRONT; k++) if (pits[base + k]) occupied.push(k);
    if (functionalHouse(board, p)) {
      const others = occupied.filter((k) => k !== HOUSE);
      if (!others.length) return { pairs: pairs([HOUSE]), capture: false, tax: true };
      return { pairs: pairs(others), capture: false, tax: false };
    }
    const two = occupied.filter((k) => pits[base + k] >= 2);
    return { pairs: pairs(two.length ? two : occupied), capture: false, tax: false };
  }
  const caps = mtajiCaptures(pits, p);
  if (caps.length) return { pairs: caps, capture: true, tax: false };
  const front = [];
  for (let k = 0; k < FRONT; k++) if (pits[base + k] >= 2 && k !== board.blocked) front.push(k);
  const back = [];
  for (let k = FRONT; k < PITS; k++) if (pits[base + k] >= 2) back.push(k);
  return { pairs: pairs(front.length ? front : back), capture: false, tax: false };
}

// One move: {after, reachedHouse}, or null when it is illegal (it would empty the mover's
// front row, or never end). With `trace`, each step of the sowing is pushed on it as
// `{pits, sown, taken, hand}`: the pits after the step, the pits (indices of `pits`) it sowed
// into, the pit it captured (or -1), and the seeds in hand, off the board (lifted at the
// start, or captured; a relay's seeds show in their pit until the next step sows them); the
// first step is the seeds lifted (or the namua seed laid).
function sow(board, pit, direction, kind, safari, trace = null) {
  const p = board.mover;
  const o = 1 - p;
  const mine = p * PITS;
  const theirs = o * PITS;
  const pits = [...board.pits];
  const owned = [...board.owned];
  const stores = [...board.stores];
  const namua = stores[p] > 0;
  const capture = kind.capture;
  const blocked = namua || capture ? NO_PIT : board.blocked;
  let front = 0;
  for (let k = 0; k < FRONT; k++) front += pits[mine + k];
  let reachedHouse = false;
  let d = direction;
  let gameOver = false;
  let seeds;
  let x;
  const anyFront = (base) => pits.slice(base, base + FRONT).some((n) => n > 0);
  const take = (target) => {
    const taken = pits[theirs + target];
    pits[theirs + target] = 0;
    if (target === HOUSE) owned[o] = false;
    return taken;
  };
  if (namua) {
    stores[p] -= 1;
    pits[mine + pit] += 1;
    front += 1;
  }
  if (namua && capture) {
    seeds = take(7 - pit);
    x = (d === CW ? 0 : 7) - d;
    gameOver = !anyFront(theirs);
    if (gameOver) stores[p] += seeds;
  } else if (kind.tax) {
    pits[mine + HOUSE] -= 2;
    front -= 2;
    seeds = 2;
    x = HOUSE;
    if (pits[mine + HOUSE] === 0) owned[p] = false;
  } else {
    seeds = pits[mine + pit];
    x = pit;
    pits[mine + pit] = 0;
    if (pit < FRONT) front -= seeds;
    if (pit === HOUSE) owned[p] = false;
  }
  const step = (sown, taken = -1, hand = 0) => trace?.push({ pits: [...pits], sown, taken, hand });
  step([], namua && capture ? theirs + 7 - pit : -1, gameOver ? 0 : seeds);
  const seen = new Set();
  let laps = 0;
  while (!gameOver) {
    const sown = [];
    for (let dropped = 1; dropped <= seeds; dropped++) {
      x = (((x + d) % PITS) + PITS) % PITS;
      pits[mine + x] += 1;
      sown.push(mine + x);
      if (x < FRONT) front += 1;
      else if (front === 0) return null; // a lone kichwa sown toward the back row
    }
    const end = x;
    const ends = pits[mine + end] === 1;
    const captures = !ends && capture && end < FRONT && pits[theirs + 7 - end] > 0;
    if (!captures) step(sown);
    if (ends) break;
    if (captures) {
      seeds = take(7 - end);
      step(sown, theirs + 7 - end, anyFront(theirs) ? seeds : 0);
      if (!anyFront(theirs)) {
        stores[p] += seeds;
        break;
      }
      if (end <= 1) d = CW;
      else if (end >= 6) d = CCW;
      x = (d === CW ? 0 : 7) - d;
      continue;
    }
    if (end === HOUSE && namua && owned[p] && pits[mine + HOUSE] >= FUNCTIONAL) {
      if (!capture) break;
      reachedHouse = true;
      if (!safari) break;
    }
    if (end === blocked) break;
    laps += 1;
    if (laps >= RECORD_FROM_LAP) {
      const state = `${pits.join(",")}|${owned[0]}|${owned[1]}|${end}|${d}`;
      if (seen.has(state)) return null; // never ends
      seen.add(state);
    }
    seeds = pits[mine + end];
    pits[mine + end] = 0;
    if (end < FRONT) front -= seeds;
    if (end === HOUSE) owned[p] = false;
    x = end;
  }
  const after = new BaoPosition(pits, stores, owned, o, NO_PIT, board.ply + 1);
  if (!namua && !capture) after.blocked = takasia(after);
  return { after, reachedHouse };
}

// The pit of the side now to move that the takasa just played blocks, or NO_PIT.
function takasia(after) {
  const o = after.mover;
  const p = 1 - o;
  const pits = after.pits;
  const theirFront = pits.slice(o * PITS, o * PITS + FRONT);
  if (!theirFront.some((n) => n) || !pits.slice(p * PITS, p * PITS + FRONT).some((n) => n)) {
    return NO_PIT;
  }
  if (hasCapture(after.stores, pits, o)) return NO_PIT;
  const targets = new Set(mtajiCaptures(pits, p).map(([pit, d]) => firstTarget(pits, p, pit, d)));
  if (targets.size !== 1) return NO_PIT;
  const [target] = targets;
  if (target === HOUSE && functionalHouse(after, o)) return NO_PIT;
  const occupied = theirFront.flatMap((n, k) => (n ? [k] : []));
  if (occupied.length === 1 && occupied[0] === target) return NO_PIT;
  const big = theirFront.flatMap((n, k) => (n > 1 ? [k] : []));
  if (big.length === 1 && big[0] === target) return NO_PIT;
  if (theirFront[target] === 1) return NO_PIT;
  return target;
}

function legalMoves(board) {
  if (!frontSeeds(board, board.mover) || !frontSeeds(board, 1 - board.mover)) return [];
  if (board.ply >= PLY_CAP) return [];
  const starts = moveStarts(board);
  const moves = [];
  for (const [pit, direction] of starts.pairs) {
    const sown = sow(board, pit, direction, starts, false);
    if (sown === null) continue;
    moves.push({ pit, direction, safari: false, after: sown.after });
    if (sown.reachedHouse) {
      const onSafari = sow(board, pit, direction, starts, true);
      if (onSafari !== null) moves.push({ pit, direction, safari: true, after: onSafari.after });
    }
  }
  return moves;
}
