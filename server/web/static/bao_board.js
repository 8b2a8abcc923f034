// The Bao board as SVG: 4 rows of 8 pits with their seeds, each side's store and stage, the
// houses while owned, the takasia mark, the last move's pit and the pits it sowed or emptied;
// while a player moves, the pits a move may start from, then the picked pit's moves as
// buttons under the board. The side the page plays (South for a spectator) sits at the
// bottom, its A1 on the left, so `>` goes right along its front row. Colours are the
// stylesheet's (classes only).
import { COLOURS, SIDE_NAMES, pitLabel, moveText } from "./bao_position.js";
import { element } from "./board.js";

const PITS = 16;
const HOUSE = 4;
const LEFT = 0.7; // room for the rows' letters, in pits
// The rows from the top, as [side (0 the bottom side, 1 the top), y, ring pits left to right].
const ROWS = [
  [1, 1.0, [8, 9, 10, 11, 12, 13, 14, 15]],
  [1, 2.0, [7, 6, 5, 4, 3, 2, 1, 0]],
  [0, 3.2, [0, 1, 2, 3, 4, 5, 6, 7]],
  [0, 4.2, [15, 14, 13, 12, 11, 10, 9, 8]],
];
const HEIGHT = 6.0;
const CHOICES_HEIGHT = 1.0;
const HAND_HEIGHT = 0.6; // a sowing's step: the line saying the seeds in hand

// A move picked on the board: a pit, then one of its moves. Same shape as choice.js's
// `MoveChoice` where game.js uses it (clear, back, shown).
export class PitChoice {
  constructor() {
    this.clear();
  }

  clear() {
    this.pit = null;
  }

  back() {
    if (this.pit === null) return false;
    this.pit = null;
    return true;
  }

  shown(position) {
    return position;
  }

  // Pick pit `pit` (a ring index of the mover's) of `position`: the move text when it has a
  // single move, else null (its moves are then offered); a pit no move starts from is no pick.
  pick(pit, position) {
    const moves = position.moves().filter((move) => move.pit === pit);
    if (moves.length === 0) return null;
    if (moves.length === 1) {
      this.clear();
      return moveText(moves[0]);
    }
    this.pit = pit;
    return null;
  }

  // What the board marks: the pits a move may start from, or the picked pit and its moves.
  marks(position) {
    if (this.pit === null) {
      return { picked: null, targets: [...new Set(position.moves().map((m) => m.pit))], choices: [] };
    }
    // `<` (to the left along the player's front row) first, each way's safari after it.
    const choices = position
      .moves()
      .filter((move) => move.pit === this.pit)
      .sort((a, b) => a.direction - b.direction || a.safari - b.safari)
      .map(moveText);
    return { picked: this.pit, targets: [], choices };
  }
}

// The pits (as "side,pit") whose seeds differ between `before` and `after`.
export function changedPits(before, after) {
  const changed = new Set();
  if (before === null) return changed;
  for (let index = 0; index < 2 * PITS; index++) {
    if (before.pits[index] !== after.pits[index]) {
      changed.add(`${Math.floor(index / PITS)},${index % PITS}`);
    }
  }
  return changed;
}

// `marks`: PitChoice.marks while the page's player moves (else null); `bottom`: the side drawn
// at the bottom (0 South, 1 North); `changed`: changedPits of the last move. With `frame`, a
// step of the last move's sowing (`BaoPosition.sowing`), `position` is the one the move was
// made in and the board shows the step: its seeds, the pits it sowed and the pit it captured.
export function baoBoardSvg(position, lastMove, changed, marks = null, bottom = 0, frame = null) {
  const over = position.isOver();
  const choices = marks?.choices ?? [];
  const height = HEIGHT + (choices.length ? CHOICES_HEIGHT : 0) + (frame === null ? 0 : HAND_HEIGHT);
  const svg = element("svg", {
    class: "board bao",
    viewBox: `${-LEFT} 0 ${8 + LEFT} ${height}`,
    role: "img",
    "aria-label": `Bao board, ${SIDE_NAMES[position.mover]} to move`,
    "data-bottom": SIDE_NAMES[bottom].toLowerCase(),
  });
  const mover = position.mover;
  const targets = new Set(marks?.targets ?? []);
  const sower = frame === null ? 1 - mover : mover;
  const last = lastMove ? `${sower},${parseLast(lastMove)}` : null;
  const key = (index) => `${Math.floor(index / PITS)},${index % PITS}`;
  if (frame !== null) changed = new Set(frame.sown.map(key));
  const taken = frame === null || frame.taken < 0 ? null : key(frame.taken);
  svg.append(sideLine(position, 1 - bottom, 0.62, over));
  for (const [place, y, ring] of ROWS) {
    const side = place === 0 ? bottom : 1 - bottom;
    svg.append(text(-LEFT / 2, y + 0.58, ring[0] < 8 ? "A" : "B", "coordinate"));
    ring.forEach((pit, column) => {
      const seeds = frame === null ? position.seeds(side, pit) : frame.pits[side * PITS + pit];
      const here = `${side},${pit}`;
      const classes = ["pit", SIDE_NAMES[side].toLowerCase()];
      const mine = marks !== null && side === mover && !over && frame === null;
      if (changed.has(here)) classes.push("sown");
      if (here === last) classes.push("last");
      if (here === taken) classes.push("taken");
      if (mine && targets.has(pit)) classes.push("movable");
      if (mine && marks.picked === pit) classes.push("picked");
      const house = pit === HOUSE && position.owned[side];
      const blocked = side === mover && pit === position.blocked;
      if (house) classes.push("house");
      if (blocked) classes.push("takasia");
      const group = element("g", {
        class: classes.join(" "),
        "data-pit": pitLabel(pit),
        "data-side": SIDE_NAMES[side].toLowerCase(),
        "data-seeds": seeds,
      });
      group.append(
        element("rect", { x: column + 0.06, y: y + 0.06, width: 0.88, height: 0.88, rx: 0.3 }),
        text(column + 0.5, y + 0.66, String(seeds), seeds ? "seeds" : "seeds empty"),
      );
      if (house) group.append(text(column + 0.18, y + 0.3, "⌂", "house-mark"));
      if (blocked) group.append(text(column + 0.82, y + 0.3, "×", "takasia-mark"));
      svg.append(group);
    });
  }
  svg.append(element("line", { class: "middle", x1: 0, x2: 8, y1: 3.1, y2: 3.1 }));
  for (let column = 0; column < 8; column++) {
    svg.append(text(column + 0.5, 0.92 + 0.02, String(8 - column), "coordinate small"));
    svg.append(text(column + 0.5, 5.42, String(column + 1), "coordinate small"));
  }
  svg.append(sideLine(position, bottom, 5.85, over));
  // A step of a sowing: the seeds in the sower's hand (lifted, or captured and still to sow),
  // on a line of their own under the board.
  if (frame !== null && frame.hand > 0) {
    const seeds = frame.hand === 1 ? "1 seed" : `${frame.hand} seeds`;
    const hand = text(0, HEIGHT + 0.4, `${SIDE_NAMES[mover]} holds ${seeds} in hand`, "hand");
    hand.setAttribute("text-anchor", "start");
    svg.append(hand);
  }
  const width = 8 / Math.max(choices.length, 3);
  choices.forEach((choice, i) => {
    const x = (8 - width * choices.length) / 2 + i * width;
    const group = element("g", { class: "choice", "data-choice": choice, role: "button" });
    group.append(
      element("rect", { x: x + 0.1, y: HEIGHT + 0.08, width: width - 0.2, height: 0.8, rx: 0.2 }),
      text(x + width / 2, HEIGHT + 0.62, describeChoice(choice), "choice-text"),
    );
    svg.append(group);
  });
  return svg;
}

// What a move does, for its button: `A6>` clockwise (right along the front row).
function describeChoice(choice) {
  const way = choice.includes(">") ? "→" : "←";
  return `${choice} ${way}${choice.endsWith("+") ? " safari" : ""}`;
}

function parseLast(move) {
  const match = /^([AB])([1-8])/i.exec(move);
  if (match === null) return null;
  const column = Number(match[2]);
  return match[1].toUpperCase() === "A" ? column - 1 : PITS - column;
}

function sideLine(position, side, y, over) {
  const words = [
    `${SIDE_NAMES[side]} (${COLOURS[side]})`,
    `store ${position.stores[side]}`,
    position.inNamua(side) ? "namua" : "mtaji",
  ];
  const moving = position.mover === side && !over;
  if (moving) words.push("to move");
  else if (over) {
    const winner = position.winner();
    words.push(winner === null ? "drawn" : winner === side ? "won" : "lost");
  }
  const line = text(0, y, words.join(" · "), `side${moving ? " to-move" : ""}`);
  line.setAttribute("text-anchor", "start");
  line.setAttribute("data-side", SIDE_NAMES[side].toLowerCase());
  return line;
}

function text(x, y, content, classes) {
  const node = element("text", { class: classes, x, y, "text-anchor": "middle" });
  node.textContent = content;
  return node;
}
