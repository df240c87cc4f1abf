// A small line chart in inline SVG: one line per series over the same x labels, y from 0 to
// 100. The chart is an image for screen readers (role="img" with a label); the numbers it
// draws are in a table next to it.
const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 640;
const HEIGHT = 260;
const MARGIN = { top: 12, right: 40, bottom: 36, left: 40 };

function svg(tag, attributes = {}, text = null) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  if (text !== null) element.textContent = text;
  return element;
}

// series: [{ label, values: [number|null, ...], className }], labels: the x labels.
export function lineChart(labels, series, title) {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (index) => MARGIN.left + (labels.length < 2 ? plotWidth / 2 : (index * plotWidth) / (labels.length - 1));
  const y = (value) => MARGIN.top + plotHeight - (value / 100) * plotHeight;
  const root = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": title, class: "chart" });
  for (const tick of [0, 25, 50, 75, 100]) {
    root.append(svg("line", { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y(tick), y2: y(tick), class: "grid" }));
    root.append(svg("text", { x: MARGIN.left - 6, y: y(tick) + 4, "text-anchor": "end", class: "tick" }, String(tick)));
  }
  labels.forEach((label, index) => {
    root.append(svg("text", { x: x(index), y: HEIGHT - MARGIN.bottom + 18, "text-anchor": "middle", class: "tick" }, label));
  });
  for (const line of series) {
    const group = svg("g", { class: `series ${line.className}` });
    let path = "";
    line.values.forEach((value, index) => {
      if (typeof value !== "number") return;
      path += `${path ? "L" : "M"}${x(index).toFixed(1)},${y(value).toFixed(1)}`;
      const dot = svg("circle", { cx: x(index).toFixed(1), cy: y(value).toFixed(1), r: 3 });
      dot.append(svg("title", {}, `${line.label}, ${labels[index]}: ${value}`));
      group.append(dot);
    });
    group.prepend(svg("path", { d: path, fill: "none" }));
    root.append(group);
  }
  return root;
}
