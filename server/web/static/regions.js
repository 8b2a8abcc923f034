// The analysis overlay: the board's regions found in the browser (8-connected groups of squares
// not burnt, ordered by their first square, rank then file, as the engine orders them) paired
// with the regions of the server's `analysis`, which carries each region's counts and value but
// not its squares. Each region gets an owner: the colour whose amazons alone stand in it, or
// for a contested region the side its mean value favours (Left = Black: positive is Black's).

const NEIGHBOURS = [
  [1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [1, -1], [-1, 1], [-1, -1],
];

// The regions of `position` as `{squares, white, black}` (squares as `{file, rank}`).
export function regionsOf(position) {
  const seen = position.cells.map((row) => row.map(() => false));
  const found = [];
  for (let rank = 0; rank < position.height; rank++) {
    for (let file = 0; file < position.width; file++) {
      if (seen[rank][file] || position.cells[rank][file] === "x") continue;
      const squares = [];
      const stack = [{ file, rank }];
      seen[rank][file] = true;
      while (stack.length > 0) {
        const at = stack.pop();
        squares.push(at);
        for (const [df, dr] of NEIGHBOURS) {
          const next = { file: at.file + df, rank: at.rank + dr };
          const cell = position.cells[next.rank]?.[next.file];
          if (cell === undefined || cell === "x" || seen[next.rank][next.file]) continue;
          seen[next.rank][next.file] = true;
          stack.push(next);
        }
      }
      const count = (piece) => squares.filter((s) => position.cells[s.rank][s.file] === piece);
      found.push({ squares, white: count("W").length, black: count("B").length });
    }
  }
  return found;
}

// The overlay for `position` from the server's `analysis` of it: `[{squares, owner, value,
// label}]`, owner "white", "black" or "none", label the square to write the value on. Throws
// an Error saying so when the server's regions are not the board's.
export function overlay(position, analysis) {
  const regions = regionsOf(position);
  const told = analysis.regions;
  const same =
    regions.length === told.length &&
    regions.every(
      (region, i) =>
        region.squares.length === told[i].squares &&
        region.white === told[i].white &&
        region.black === told[i].black,
    );
  if (!same) throw new Error("the analysis does not match the board shown");
  return regions.map((region, i) => ({
    squares: region.squares,
    owner: owner(told[i]),
    value: told[i].value,
    label: middle(region.squares, position),
  }));
}

function owner(region) {
  if (region.kind !== "contested") {
    if (region.white > 0) return "white";
    return region.black > 0 ? "black" : "none";
  }
  const mean = region.mean.trim();
  if (mean === "?" || /^0(\.0*)?$/.test(mean)) return "none";
  return mean.startsWith("-") ? "white" : "black";
}

// The square of the region nearest its centre, an empty one when there is one.
function middle(squares, position) {
  const empty = squares.filter((s) => position.cells[s.rank][s.file] === "");
  const pool = empty.length > 0 ? empty : squares;
  const cf = pool.reduce((sum, s) => sum + s.file, 0) / pool.length;
  const cr = pool.reduce((sum, s) => sum + s.rank, 0) / pool.length;
  const distance = (s) => (s.file - cf) ** 2 + (s.rank - cr) ** 2;
  return pool.reduce((best, s) => (distance(s) < distance(best) ? s : best));
}
