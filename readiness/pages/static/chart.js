// A small line chart in inline SVG: one line per series over the same x labels, y from 0 to
// 100. The chart is an image for screen readers (role="img" with a label); the numbers it
// draws are in a table next to it.
//
// Text keeps its CSS size (12 px) at any width: the chart is drawn in a viewBox exactly as wide
// as the space it is given, measured when it is shown and again whenever that width changes,
// so the viewBox is never scaled (a 640-unit drawing squeezed into 320 px would halve the text).
export const SVG_NS = "http://www.w3.org/2000/svg";
const WIDTH = 640; // until the chart is shown and measured
const HEIGHT = 260;
const MARGIN = { top: 12, right: 28, bottom: 36, left: 40 };
const CHAR_WIDTH = 7.5; // an upper bound on a 12 px digit or dash, for spacing the x labels

// An SVG element with attributes (numbers to two decimals; null and undefined left out) and
// children (strings become text, null is skipped): every page's SVG is made here.
export function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined) continue;
    element.setAttribute(name, String(typeof value === "number" ? Math.round(value * 100) / 100 : value));
  }
  for (const child of children) {
    if (child !== null && child !== undefined) element.append(child);
  }
  return element;
}

// Calls ``draw(width)`` now with ``initial``, then with the element's own width whenever that
// changes while it is in the page. The redraw waits for the next animation frame, so a drawing
// that changes the element's height never resizes it inside the observer's own callback.
export function drawAtWidth(element, initial, draw) {
  let drawn = initial;
  let scheduled = false;
  draw(initial);
  new ResizeObserver(() => {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      const width = element.getBoundingClientRect().width;
      if (width > 0 && Math.abs(width - drawn) >= 0.5) {
        drawn = width;
        draw(width);
      }
    });
  }).observe(element);
}

// The x labels to write when they are ``spacing`` px apart: every one if they fit, else every
// k-th, counted back from the last (the newest is always written).
function labelStep(labels, spacing) {
  const widest = Math.max(...labels.map((label) => String(label).length)) * CHAR_WIDTH + 8;
  return Math.max(1, Math.ceil(widest / Math.max(spacing, 1)));
}

// series: [{ label, values: [number|null, ...], className }], labels: the x labels.
export function lineChart(labels, series, title) {
  const root = svg("svg", { role: "img", "aria-label": title, class: "chart line-chart" });
  root.style.height = `${HEIGHT}px`;
  drawAtWidth(root, WIDTH, (width) => {
    const plotWidth = width - MARGIN.left - MARGIN.right;
    const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
    const x = (index) => MARGIN.left + (labels.length < 2 ? plotWidth / 2 : (index * plotWidth) / (labels.length - 1));
    const y = (value) => MARGIN.top + plotHeight - (value / 100) * plotHeight;
    const parts = [svg("title", {}, title)];
    for (const tick of [0, 25, 50, 75, 100]) {
      parts.push(svg("line", { x1: MARGIN.left, x2: width - MARGIN.right, y1: y(tick), y2: y(tick), class: "grid" }));
      parts.push(svg("text", { x: MARGIN.left - 6, y: y(tick) + 4, "text-anchor": "end", class: "tick" },
        String(tick)));
    }
    const step = labelStep(labels, labels.length < 2 ? plotWidth : plotWidth / (labels.length - 1));
    labels.forEach((label, index) => {
      if ((labels.length - 1 - index) % step !== 0) return;
      parts.push(svg("text", { x: x(index), y: HEIGHT - MARGIN.bottom + 18, "text-anchor": "middle", class: "tick" },
        label));
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
      parts.push(group);
    }
    root.setAttribute("viewBox", `0 0 ${width} ${HEIGHT}`);
    root.replaceChildren(...parts);
  });
  return root;
}
