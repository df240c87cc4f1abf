// A small line chart in inline SVG: one line per series over the same x labels, each line's
// name at its end (as OWID's grapher writes them), y fitted to the values (fittedAxis): from zero
// when the values come near it, else from a round number above it, with an axis break drawn and
// said in words. The chart is an image for screen readers (role="img" with a label, which says
// the axis too); the numbers it draws are in a table next to it.
//
// Text keeps its CSS size (12 px) at any width: the chart is drawn in a viewBox exactly as wide
// as the space it is given, measured when it is shown and again whenever that width changes,
// so the viewBox is never scaled (a 640-unit drawing squeezed into 320 px would halve the text).
import { t } from "./i18n.js";

export const SVG_NS = "http://www.w3.org/2000/svg";
const WIDTH = 640; // until the chart is shown and measured
const HEIGHT = 260;
const MARGIN = { top: 12, right: 28, bottom: 36, left: 40 };
const BROKEN_TOP = 30; // the top margin when the axis is broken: room for the words that say so
const CHAR_WIDTH = 7.5; // an upper bound on a 12 px digit or dash, for spacing the x labels
const LABEL_SIZE = 12; // an end-of-line label's font size, px
const LEADER = 16; // an end-of-line label's leader, px
const LABEL_GAP = 14; // the least distance between two end-of-line labels' middles, px
const LABEL_SHARE = 0.32; // the most of the chart's width the labels may take; longer ones are cut with "…"
const STEPS = [1, 2, 2.5, 5, 10, 20, 25]; // the axis' tick steps, smallest first
const LEAST_SPAN = 10; // points: a narrower spread is shown over 10, so a flat line stays flat

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

// The y axis for ``values`` (scores from 0 to 100; nulls ignored): { min, max, ticks, broken }.
// The range is the values' own, widened to at least LEAST_SPAN points and to round ticks (four to
// six of them), kept within 0 to 100. It starts at zero when the values come within one step of it;
// otherwise ``broken`` is true and the chart draws the break and says the axis does not start at 0.
export function fittedAxis(values) {
  const known = values.filter((value) => typeof value === "number" && Number.isFinite(value));
  if (!known.length) return { min: 0, max: 100, ticks: [0, 25, 50, 75, 100], broken: false };
  let low = Math.min(...known);
  let high = Math.max(...known);
  if (high - low < LEAST_SPAN) {
    const middle = (low + high) / 2;
    [low, high] = [middle - LEAST_SPAN / 2, middle + LEAST_SPAN / 2];
  }
  const step = STEPS.find((candidate) => (high - low) / candidate <= 5) ?? 25;
  let min = Math.max(0, Math.floor(low / step) * step);
  let max = Math.min(100, Math.ceil(high / step) * step);
  // A line within a quarter step of the frame gets a step of room (never past 0 or 100), so no
  // line lies on the axis' foot or top.
  if (low - min < step / 4 && min - step >= 0) min -= step;
  if (max - high < step / 4 && max + step <= 100) max += step;
  if (max === min) max = Math.min(100, min + step);
  if (max - min < step * 2 && max < 100) max += step; // two intervals at least
  if (min <= step) min = 0;
  const ticks = [];
  for (let tick = min; tick <= max + 1e-9; tick += step) ticks.push(Math.round(tick * 100) / 100);
  return { min, max, ticks, broken: min > 0 };
}

// The axis in words, for the chart's label and the break's note.
export function axisWords(axis) {
  return axis.broken ? t("the axis runs from {min} to {max}, not from zero", axis)
    : t("the axis runs from 0 to {max}", axis);
}

// The y of each end-of-line label: each at its line's last value, nudged apart to at least
// ``gap`` between neighbours and kept within [top, bottom]. ``wanted``: the ys asked for, in any
// order; returns the ys given, in the same order.
export function spreadLabels(wanted, gap, top, bottom) {
  const order = wanted.map((y, index) => [y, index]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const placed = order.map(([y]) => Math.min(Math.max(y, top), bottom));
  for (let i = 1; i < placed.length; i += 1) placed[i] = Math.max(placed[i], placed[i - 1] + gap);
  if (placed.length && placed.at(-1) > bottom) {
    placed[placed.length - 1] = bottom;
    for (let i = placed.length - 2; i >= 0; i -= 1) placed[i] = Math.min(placed[i], placed[i + 1] - gap);
  }
  const result = new Array(wanted.length);
  order.forEach(([, index], rank) => { result[index] = placed[rank]; });
  return result;
}

let measuring = null;
// The width of ``text`` at ``size`` px in ``element``'s font.
function textWidth(element, text, size) {
  measuring ??= document.createElement("canvas").getContext("2d");
  const family = (element.isConnected && window.getComputedStyle(element).fontFamily) || "sans-serif";
  measuring.font = `${size}px ${family}`;
  return measuring.measureText(text).width;
}

// ``text`` cut to ``width`` px with "…" when longer.
function fitted(element, text, width) {
  if (textWidth(element, text, LABEL_SIZE) <= width) return text;
  let cut = text;
  while (cut.length > 1 && textWidth(element, `${cut}…`, LABEL_SIZE) > width) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}…`;
}

// The x labels to write when they are ``spacing`` px apart: every one if they fit, else every
// k-th, counted back from the last (the newest is always written).
function labelStep(labels, spacing) {
  const widest = Math.max(...labels.map((label) => String(label).length)) * CHAR_WIDTH + 8;
  return Math.max(1, Math.ceil(widest / Math.max(spacing, 1)));
}

// The break in a y axis that does not start at zero: two short slanted strokes across the axis'
// foot, where its lowest grid line starts (no line lies there: fittedAxis leaves room).
function axisBreak(x, y) {
  return svg("g", { class: "axis-break", "aria-hidden": "true" },
    svg("line", { x1: x - 4, x2: x + 2, y1: y + 3, y2: y - 4 }),
    svg("line", { x1: x - 1, x2: x + 5, y1: y + 4, y2: y - 3 }));
}

// series: [{ label, values: [number|null, ...], className }], labels: the x labels. The y axis is
// fitted to the series' values (fittedAxis); the chart's label ends with the axis in words, and
// its ``data-axis-min``/``data-axis-max`` hold the range.
export function lineChart(labels, series, title) {
  const axis = fittedAxis(series.flatMap((line) => line.values));
  const label = t("{title}; {axis}", { title, axis: axisWords(axis) });
  const root = svg("svg", { role: "img", "aria-label": label, class: "chart line-chart",
    "data-axis-min": axis.min, "data-axis-max": axis.max });
  root.style.height = `${HEIGHT}px`;
  drawAtWidth(root, WIDTH, (width) => {
    const ends = series.map((line) => {
      const last = line.values.findLastIndex((value) => typeof value === "number");
      return last < 0 ? null : { line, last, value: line.values[last] };
    });
    const room = Math.max(0, width * LABEL_SHARE);
    const texts = ends.map((end) => (end ? fitted(root, end.line.label, room) : ""));
    const labelWidth = Math.min(room, Math.max(0, ...texts.map((text) => (text ? textWidth(root, text, LABEL_SIZE) : 0))));
    const top = axis.broken ? BROKEN_TOP : MARGIN.top;
    const right = labelWidth ? labelWidth + LEADER + 10 : MARGIN.right;
    const plotWidth = width - MARGIN.left - right;
    const plotHeight = HEIGHT - top - MARGIN.bottom;
    const x = (index) => MARGIN.left + (labels.length < 2 ? plotWidth / 2 : (index * plotWidth) / (labels.length - 1));
    const y = (value) => top + plotHeight - ((value - axis.min) / (axis.max - axis.min)) * plotHeight;
    const parts = [svg("title", {}, label)];
    for (const tick of axis.ticks) {
      parts.push(svg("line", { x1: MARGIN.left, x2: width - right, y1: y(tick), y2: y(tick), class: "grid" }));
      parts.push(svg("text", { x: MARGIN.left - 6, y: y(tick) + 4, "text-anchor": "end", class: "tick" },
        String(tick)));
    }
    if (axis.broken) {
      parts.push(axisBreak(MARGIN.left, y(axis.min)));
      parts.push(svg("text", { x: 4, y: 14, class: "tick axis-note" }, t("Axis from {min}, not zero", axis)));
    }
    const step = labelStep(labels, labels.length < 2 ? plotWidth : plotWidth / (labels.length - 1));
    labels.forEach((text, index) => {
      if ((labels.length - 1 - index) % step !== 0) return;
      parts.push(svg("text", { x: x(index), y: HEIGHT - MARGIN.bottom + 18, "text-anchor": "middle", class: "tick" },
        text));
    });
    const groups = series.map((line) => {
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
      return group;
    });
    // Each line's name at its end, nudged apart so no two overlap (the lines' own order kept), in
    // its line's group: a leader in the line's colour from its last point, then the name in ink
    // (some lines' colours are too light for text).
    const drawn = ends.map((end, index) => [end, index]).filter(([end]) => end);
    const ys = spreadLabels(drawn.map(([end]) => y(end.value)), LABEL_GAP, top + 4, HEIGHT - MARGIN.bottom);
    drawn.forEach(([end, index], at) => {
      const from = x(end.last) + 5;
      const to = width - right + LEADER + 6;
      const text = svg("text", { x: to, y: ys[at], "dominant-baseline": "central", "font-size": LABEL_SIZE },
        texts[index]);
      if (texts[index] !== end.line.label) text.append(svg("title", {}, end.line.label));
      groups[index].append(svg("g", { class: "end-label", "data-label": end.line.label },
        svg("line", { x1: from, y1: y(end.value), x2: to - 3, y2: ys[at], class: "leader" }), text));
    });
    root.setAttribute("viewBox", `0 0 ${width} ${HEIGHT}`);
    root.replaceChildren(...parts);
  });
  return root;
}
