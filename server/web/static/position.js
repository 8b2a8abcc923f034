// Amazons positions as the server writes them (docs/notation.md): rows from the top rank down,
// separated by "/", `W` and `B` amazons, `x` burnt squares, a number for that many empty
// squares; then the side to move. Moves as the server writes them: `d1-d7/g7`.
// The squares a piece or an arrow may reach are found here, in the browser, so a player's
// clicks mark their targets at once, with no round trip to the server per click; the server
// still judges the move it is sent.

const FILES = "abcdefghijklmnopqrstuvwxyz";
const DIRECTIONS = [
  [1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [1, -1], [-1, 1], [-1, -1],
];
const MOVE = /^([a-z])(\d{1,2})-([a-z])(\d{1,2})\/([a-z])(\d{1,2})$/;

export class Position {
  // `cells[rank][file]`, rank 0 the bottom one: "W", "B", "x" or "" (empty).
  constructor(width, height, cells, toMove) {
    this.width = width;
    this.height = height;
    this.cells = cells;
    this.toMove = toMove;
  }

  static parse(text) {
    const [board, side] = text.trim().split(/\s+/);
    const rows = board.split("/").map((row) => {
      const cells = [];
      for (const token of row.match(/\d+|[WBx]/g) ?? []) {
        if (/\d/.test(token)) cells.push(...Array(Number(token)).fill(""));
        else cells.push(token);
      }
      return cells;
    });
    const width = rows[0].length;
    if (rows.some((row) => row.length !== width)) {
      throw new Error(`rows of unequal length: ${text}`);
    }
    return new Position(width, rows.length, rows.reverse(), side === "b" ? "black" : "white");
  }

  // The amazons of `colour` ("white" or "black") as `{file, rank}`.
  amazons(colour) {
    const piece = colour === "white" ? "W" : "B";
    const found = [];
    this.cells.forEach((row, rank) =>
      row.forEach((cell, file) => cell === piece && found.push({ file, rank })),
    );
    return found;
  }

  pieceAt({ file, rank }) {
    return this.cells[rank]?.[file];
  }

  // The empty squares a queen on `from` reaches along its eight lines; the square `vacated`
  // (the moving amazon's origin, when shooting its arrow) counts as empty.
  queenTargets(from, vacated = null) {
    const found = [];
    for (const [df, dr] of DIRECTIONS) {
      let file = from.file + df;
      let rank = from.rank + dr;
      while (file >= 0 && file < this.width && rank >= 0 && rank < this.height) {
        const empty =
          this.cells[rank][file] === "" ||
          (vacated !== null && vacated.file === file && vacated.rank === rank);
        if (!empty) break;
        found.push({ file, rank });
        file += df;
        rank += dr;
      }
    }
    return found;
  }

  // The same position with the amazon on `from` moved to `to` (no arrow yet, same side).
  withAmazonMoved(from, to) {
    const cells = this.cells.map((row) => [...row]);
    cells[to.rank][to.file] = cells[from.rank][from.file];
    cells[from.rank][from.file] = "";
    return new Position(this.width, this.height, cells, this.toMove);
  }

  // The position after `text`; a move this reader does not know leaves it as it is.
  after(text) {
    const found = MOVE.exec(text);
    if (found === null) return this;
    const [from, to, arrow] = [1, 3, 5].map((i) => square(found[i], found[i + 1]));
    const cells = this.cells.map((row) => [...row]);
    cells[to.rank][to.file] = cells[from.rank][from.file];
    cells[from.rank][from.file] = "";
    cells[arrow.rank][arrow.file] = "x";
    const next = this.toMove === "white" ? "black" : "white";
    return new Position(this.width, this.height, cells, next);
  }
}

// The squares a move names, as `{file, rank}` from 0: from, to and arrow.
export function moveSquares(text) {
  const found = MOVE.exec(text ?? "");
  if (found === null) return [];
  return [1, 3, 5].map((i) => square(found[i], found[i + 1]));
}

export function fileName(file) {
  return FILES[file];
}

// `d1` for `{file: 3, rank: 0}`.
export function squareName({ file, rank }) {
  return `${FILES[file]}${rank + 1}`;
}

// The move text the server reads, from three squares.
export function moveText(from, to, arrow) {
  return `${squareName(from)}-${squareName(to)}/${squareName(arrow)}`;
}

function square(file, rank) {
  return { file: FILES.indexOf(file), rank: Number(rank) - 1 };
}
