// Amazons positions as the server writes them (docs/notation.md): rows from the top rank down,
// separated by "/", `W` and `B` amazons, `x` burnt squares, a number for that many empty
// squares; then the side to move. Moves as the server writes them: `d1-d7/g7`.

const FILES = "abcdefghijklmnopqrstuvwxyz";
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

function square(file, rank) {
  return { file: FILES.indexOf(file), rank: Number(rank) - 1 };
}
