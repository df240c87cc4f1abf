// How the compare page tells its lines apart without colour alone: each economy has its own
// marker shape (filled), each mean a dashed line with its economy's shape hollow (the world's:
// dotted, a hollow diamond); the colours are compare.css's (Okabe and Ito's palette).
import { svg } from "./chart.js";

export const MARKERS = ["circle", "square", "triangle", "diamond", "triangle-down", "plus", "cross", "star"];
const SIZE = 4.5; // a marker's radius, in px


function polygon(points, x, y) {
  return `M${points.map(([dx, dy]) => `${(x + dx).toFixed(1)},${(y + dy).toFixed(1)}`).join("L")}Z`;
}

function rotated(points, degrees) {
  const [cos, sin] = [Math.cos((degrees * Math.PI) / 180), Math.sin((degrees * Math.PI) / 180)];
  return points.map(([dx, dy]) => [dx * cos - dy * sin, dx * sin + dy * cos]);
}

const r = SIZE;
const arm = r * 0.42;
const PLUS = [[-arm, -r], [arm, -r], [arm, -arm], [r, -arm], [r, arm], [arm, arm], [arm, r], [-arm, r], [-arm, arm],
  [-r, arm], [-r, -arm], [-arm, -arm]];
const STAR = Array.from({ length: 10 }, (_, index) => {
  const radius = index % 2 ? r * 0.55 : r * 1.3;
  const angle = (Math.PI / 5) * index - Math.PI / 2;
  return [radius * Math.cos(angle), radius * Math.sin(angle)];
});
const SHAPES = {
  square: [[-r * 0.9, -r * 0.9], [r * 0.9, -r * 0.9], [r * 0.9, r * 0.9], [-r * 0.9, r * 0.9]],
  triangle: [[0, -r * 1.2], [r * 1.1, r * 0.8], [-r * 1.1, r * 0.8]],
  "triangle-down": [[0, r * 1.2], [r * 1.1, -r * 0.8], [-r * 1.1, -r * 0.8]],
  diamond: [[0, -r * 1.3], [r, 0], [0, r * 1.3], [-r, 0]],
  plus: PLUS,
  cross: rotated(PLUS, 45),
  star: STAR,
};

// The path of ``shape`` centred on (x, y).
export function markerPath(shape, x, y) {
  if (SHAPES[shape]) return polygon(SHAPES[shape], x, y);
  return `M${(x - r).toFixed(1)},${y.toFixed(1)}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0Z`;
}

// Replace the dots of each series of ``chart`` (an <svg> from chart.js's lineChart) by its
// line's marker; ``lines`` maps a series' class (k0, k1, ...) to { marker, hollow }. The chart
// draws itself again when its width changes, so the markers are put back after every drawing.
export function withMarkers(chart, lines) {
  const mark = () => {
    for (const group of chart.querySelectorAll("g.series")) {
      const key = [...group.classList].find((name) => lines.has(name));
      if (!key) continue;
      const line = lines.get(key);
      for (const dot of group.querySelectorAll("circle")) {
        const marker = svg("path", { class: `marker${line.hollow ? " hollow" : ""}`,
          d: markerPath(line.marker, Number(dot.getAttribute("cx")), Number(dot.getAttribute("cy"))) });
        marker.append(...dot.childNodes); // its <title>: the economy, the snapshot and the value
        dot.replaceWith(marker);
      }
    }
  };
  mark();
  new MutationObserver(mark).observe(chart, { childList: true });
  return chart;
}

// A line's key for the legend and the table: a short stretch of its line with its marker.
export function sample(line) {
  const group = svg("g", { class: `series ${line.className}` });
  group.append(svg("path", { d: "M2,8H32", fill: "none" }),
    svg("path", { class: `marker${line.hollow ? " hollow" : ""}`, d: markerPath(line.marker, 17, 8) }));
  const picture = svg("svg", { class: "sample", width: 34, height: 16, viewBox: "0 0 34 16", "aria-hidden": "true",
    focusable: "false" });
  picture.append(group);
  return picture;
}
