// A move as a player picks it on the board, in three steps: one of their amazons, its
// destination, then the square its arrow burns. Each step's legal squares come from the
// position (queen lines over empty squares; the amazon's origin is empty for the arrow), so
// the board marks them with no round trip to the server. A step can be taken back.
import { moveText } from "./position.js";

export class MoveChoice {
  constructor() {
    this.clear();
  }

  clear() {
    this.from = null;
    this.to = null;
    this.arrow = null;
  }

  // Take the last step back; false when there was none.
  back() {
    if (this.to !== null) this.to = null;
    else if (this.from !== null) this.from = null;
    else return false;
    return true;
  }

  // Start again from the amazon on `square` (a drag picks it up this way).
  select(square) {
    this.clear();
    this.from = square;
  }

  // The next step on `square` of `position` for the side `colour`; false when the square
  // is no step at all (the choice is then as it was).
  pick(square, position, colour) {
    const own = position.pieceAt(square) === (colour === "white" ? "W" : "B");
    if (this.from === null) {
      if (own) this.from = square;
      return own;
    }
    if (this.to === null) {
      if (same(square, this.from)) this.from = null;
      else if (own) this.from = square;
      else if (includes(position.queenTargets(this.from), square)) this.to = square;
      else return false;
      return true;
    }
    if (same(square, this.to)) {
      this.to = null;
      return true;
    }
    if (!includes(this.shown(position).queenTargets(this.to), square)) return false;
    this.arrow = square;
    return true;
  }

  // The move text once all three squares are picked, else null.
  move() {
    return this.arrow === null ? null : moveText(this.from, this.to, this.arrow);
  }

  // The position to draw: with the amazon on its destination once that is picked.
  shown(position) {
    return this.to === null ? position : position.withAmazonMoved(this.from, this.to);
  }

  // The squares to mark on the board: those picked, and those the next step may pick.
  marks(position) {
    let targets = [];
    if (this.to !== null) targets = this.shown(position).queenTargets(this.to);
    else if (this.from !== null) targets = position.queenTargets(this.from);
    return { chosen: [this.from, this.to].filter((square) => square !== null), targets };
  }
}

function same(a, b) {
  return a.file === b.file && a.rank === b.rank;
}

function includes(squares, square) {
  return squares.some((candidate) => same(candidate, square));
}
