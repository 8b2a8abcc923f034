// The Amazons board as SVG: squares in one unit each, files a.. along the bottom, ranks 1..
// up the left, the last move's squares marked, and while a player makes a move its chosen
// squares and the squares it may pick next, and for an analysis each region shaded by its
// owner with its value written on it. Black's player sees the board turned round (rank 1 at
// the top, file a on the right). Colours are the stylesheet's (classes only).
import { fileName, moveSquares } from "./position.js";

const SVG = "http://www.w3.org/2000/svg";
const MARGIN = 0.6; // room for the coordinates, in squares

// `choice`: `{chosen: [squares], targets: [squares]}` while a player picks a move;
// `regions`: the analysis overlay (regions.js), or null.
export function boardSvg(
  position,
  lastMove,
  choice = { chosen: [], targets: [] },
  flipped = false,
  regions = null,
) {
  const { width, height } = position;
  const column = (file) => (flipped ? width - 1 - file : file);
  const row = (rank) => (flipped ? rank : height - 1 - rank);
  const svg = element("svg", {
    class: "board",
    viewBox: `${-MARGIN} 0 ${width + MARGIN} ${height + MARGIN}`,
    role: "img",
    "aria-label": `${width}x${height} board, ${position.toMove} to move`,
    "data-flipped": flipped ? "yes" : "no",
  });
  const marked = new Map(moveSquares(lastMove).map((s, i) => [key(s), ["from", "to", "arrow"][i]]));
  const chosen = new Set(choice.chosen.map(key));
  const targets = new Set(choice.targets.map(key));
  const owners = new Map();
  for (const region of regions ?? []) {
    for (const square of region.squares) owners.set(key(square), region.owner);
  }
  for (let rank = 0; rank < height; rank++) {
    for (let file = 0; file < width; file++) {
      const x = column(file);
      const y = row(rank);
      const shade = (file + rank) % 2 === 0 ? "dark" : "light";
      const mark = marked.get(key({ file, rank }));
      svg.append(
        element("rect", {
          class: `square ${shade}${mark ? ` last-${mark}` : ""}${
            chosen.has(key({ file, rank })) ? " chosen" : ""
          }`,
          x,
          y,
          width: 1,
          height: 1,
          "data-square": `${fileName(file)}${rank + 1}`,
        }),
      );
      const owned = owners.get(key({ file, rank }));
      if (owned !== undefined) {
        svg.append(element("rect", { class: `region owner-${owned}`, x, y, width: 1, height: 1 }));
      }
      const piece = position.cells[rank][file];
      if (piece === "x") {
        const burnt = { class: "burnt", x: x + 0.2, y: y + 0.2, width: 0.6, height: 0.6, rx: 0.08 };
        burnt["data-at"] = `${fileName(file)}${rank + 1}`;
        svg.append(element("rect", burnt));
      } else if (piece !== "") {
        const colour = piece === "W" ? "white" : "black";
        svg.append(amazon(x + 0.5, y + 0.5, colour, `${fileName(file)}${rank + 1}`));
      }
      if (targets.has(key({ file, rank }))) {
        const target = { class: "target", cx: x + 0.5, cy: y + 0.5, r: 0.16 };
        target["data-target"] = `${fileName(file)}${rank + 1}`;
        svg.append(element("circle", target));
      }
    }
  }
  for (const region of regions ?? []) {
    // A region with no empty square (amazons alone) has its value in a corner of an amazon's
    // square, not over the amazon.
    const covered = position.cells[region.label.rank][region.label.file] !== "";
    const x = column(region.label.file) + (covered ? 0.06 : 0.5);
    const y = row(region.label.rank) + (covered ? 0.22 : 0.6);
    const value = element("text", {
      class: `region-value owner-${region.owner}${covered ? " corner" : ""}`,
      x,
      y,
      "text-anchor": covered ? "start" : "middle",
      "data-at": `${fileName(region.label.file)}${region.label.rank + 1}`,
    });
    value.textContent = region.value;
    svg.append(value);
  }
  for (let file = 0; file < width; file++) {
    svg.append(label(column(file) + 0.5, height + MARGIN * 0.72, fileName(file)));
  }
  for (let rank = 0; rank < height; rank++) {
    svg.append(label(-MARGIN / 2, row(rank) + 0.5 + 0.12, String(rank + 1)));
  }
  return svg;
}

// The board's own coordinates (one unit a square) of a point of the screen.
export function boardPoint(svg, clientX, clientY) {
  const matrix = svg.getScreenCTM();
  if (matrix === null) return null;
  return new DOMPoint(clientX, clientY).matrixTransform(matrix.inverse());
}

// The square under a point of the screen (a pointer event's clientX, clientY), or null.
export function squareAt(svg, position, clientX, clientY) {
  const point = boardPoint(svg, clientX, clientY);
  if (point === null) return null;
  const flipped = svg.dataset.flipped === "yes";
  const column = Math.floor(point.x);
  const row = Math.floor(point.y);
  const file = flipped ? position.width - 1 - column : column;
  const rank = flipped ? row : position.height - 1 - row;
  if (file < 0 || file >= position.width || rank < 0 || rank >= position.height) return null;
  return { file, rank };
}

// An amazon: a crowned piece drawn as one path, so it reads at every size.
function amazon(cx, cy, colour, at) {
  const group = element("g", {
    class: `amazon ${colour}`,
    transform: `translate(${cx} ${cy})`,
    "data-at": at,
  });
  group.append(
    element("path", {
      d: "M -0.3 0.3 L -0.34 -0.18 L -0.17 0.02 L 0 -0.3 L 0.17 0.02 L 0.34 -0.18 L 0.3 0.3 Z",
    }),
    element("circle", { cx: 0, cy: -0.3, r: 0.06 }),
  );
  return group;
}

function label(x, y, text) {
  const node = element("text", { class: "coordinate", x, y, "text-anchor": "middle" });
  node.textContent = text;
  return node;
}

// An SVG element with its attributes.
export function element(name, attributes) {
  const node = document.createElementNS(SVG, name);
  for (const [attribute, value] of Object.entries(attributes)) {
    node.setAttribute(attribute, String(value));
  }
  return node;
}

function key(square) {
  return `${square.file},${square.rank}`;
}
