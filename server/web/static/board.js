// The Amazons board as SVG: squares in one unit each, files a.. along the bottom, ranks 1..
// up the left, the last move's squares marked. Colours are the stylesheet's (classes only).
import { fileName, moveSquares } from "./position.js";

const SVG = "http://www.w3.org/2000/svg";
const MARGIN = 0.6; // room for the coordinates, in squares

export function boardSvg(position, lastMove) {
  const { width, height } = position;
  const svg = element("svg", {
    class: "board",
    viewBox: `${-MARGIN} 0 ${width + MARGIN} ${height + MARGIN}`,
    role: "img",
    "aria-label": `${width}x${height} board, ${position.toMove} to move`,
  });
  const marked = new Map(moveSquares(lastMove).map((s, i) => [key(s), ["from", "to", "arrow"][i]]));
  for (let rank = 0; rank < height; rank++) {
    for (let file = 0; file < width; file++) {
      const x = file;
      const y = height - 1 - rank;
      const shade = (file + rank) % 2 === 0 ? "dark" : "light";
      const mark = marked.get(key({ file, rank }));
      svg.append(
        element("rect", {
          class: `square ${shade}${mark ? ` last-${mark}` : ""}`,
          x,
          y,
          width: 1,
          height: 1,
          "data-square": `${fileName(file)}${rank + 1}`,
        }),
      );
      const piece = position.cells[rank][file];
      if (piece === "x") {
        const burnt = { class: "burnt", x: x + 0.2, y: y + 0.2, width: 0.6, height: 0.6, rx: 0.08 };
        svg.append(element("rect", burnt));
      } else if (piece !== "") {
        svg.append(amazon(x + 0.5, y + 0.5, piece === "W" ? "white" : "black"));
      }
    }
  }
  for (let file = 0; file < width; file++) {
    svg.append(label(file + 0.5, height + MARGIN * 0.72, fileName(file)));
  }
  for (let rank = 0; rank < height; rank++) {
    svg.append(label(-MARGIN / 2, height - rank - 0.5 + 0.12, String(rank + 1)));
  }
  return svg;
}

// An amazon: a crowned piece drawn as one path, so it reads at every size.
function amazon(cx, cy, colour) {
  const group = element("g", { class: `amazon ${colour}`, transform: `translate(${cx} ${cy})` });
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

function element(name, attributes) {
  const node = document.createElementNS(SVG, name);
  for (const [attribute, value] of Object.entries(attributes)) {
    node.setAttribute(attribute, String(value));
  }
  return node;
}

function key(square) {
  return `${square.file},${square.rank}`;
}
