// The explorer's ranking chart: the view the table shows, best first, as horizontal bars.
// view: { field, label, rows (the rows shown, in the table's order), snapshot (id shown),
//         permalink (page URL of the view), csv (API URL of the rows as CSV) }
//
// The bars are one score from 0 to 100: the sorted column's when it is a score; the composite
// for Global Rank and any column that is not a score (name, region...); the Custom Score for
// Custom Rank. Whatever the table's order, the chart's is best first (highest score first, the
// table's order among equal scores); economies without a score are listed last as "no score".
// A view of more than SHORT_VIEW rows draws its first FIRST bars and a button shows them all
// (the choice is kept while the view changes). Text is drawn at its own size at any width
// (drawAtWidth), the names beside the bars on a wide screen and above them on a narrow one.
// A microstate (scored, never ranked: the method's rule, and the table's "microstate" in place of
// its rank) is drawn where its score puts it, but marked: a hollow dashed bar and "(microstate)"
// after its name, and the subtitle says what the hollow bars are.
import { COMPOSITE, DIMENSIONS, el, score } from "./api.js";
import { drawAtWidth, svg } from "./chart.js";
import { chartTools } from "./export.js";
import { economyName, t } from "./i18n.js";

export const FIRST = 20;
export const SHORT_VIEW = 30;
const CUSTOM_SCORE = "Custom Score";
const SCORE_LABELS = new Map([
  [COMPOSITE, t("Composite score")],
  ...DIMENSIONS.map(([field, label]) => [field, t("{dimension} score", { dimension: label })]),
  [CUSTOM_SCORE, t("Custom score (your weights, not the published index)")],
]);
const SCORE_SLUGS = new Map([
  [COMPOSITE, "composite-score"],
  ...DIMENSIONS.map(([field]) => [field, field.toLowerCase().replace(/[^a-z0-9]+/g, "-")]),
  [CUSTOM_SCORE, "custom-score"],
]);
const RANK_SCORES = { "Global Rank": COMPOSITE, "Regional Rank": COMPOSITE, "Custom Rank": CUSTOM_SCORE };
const SIZE = { title: 15, subtitle: 12, name: 13, value: 12, tick: 12 };
const NARROW = 560; // below this width a name goes above its bar
const PAD = 8; // around the drawing, so a downloaded file has a margin
const showAll = new WeakMap(); // container -> whether every bar is drawn

// The score a view is charted by: its sorted field when that is a score, else the score that
// field ranks by, else the composite.
export function chartedField(field) {
  if (SCORE_LABELS.has(field)) return field;
  return RANK_SCORES[field] ?? COMPOSITE;
}

// The rows best first by ``field``: highest first, equal values in their given order, rows
// without a value last (in their given order).
export function bestFirst(rows, field) {
  const scored = rows.filter((row) => typeof row[field] === "number");
  const unscored = rows.filter((row) => typeof row[field] !== "number");
  return [...scored.map((row, index) => [row, index]).sort((a, b) => b[0][field] - a[0][field] || a[1] - b[1])
    .map(([row]) => row), ...unscored];
}

let measuring = null;
function textWidth(text, size, family, weight = "400") {
  measuring ??= document.createElement("canvas").getContext("2d");
  measuring.font = `${weight} ${size}px ${family}`;
  return measuring.measureText(text).width;
}

// ``text`` in lines no wider than ``width``, broken between words.
function wrap(text, width, size, family, weight) {
  const lines = [];
  for (const word of text.split(" ")) {
    const last = lines.at(-1);
    const longer = `${last} ${word}`;
    if (last !== undefined && textWidth(longer, size, family, weight) <= width) lines[lines.length - 1] = longer;
    else lines.push(word);
  }
  return lines;
}

const micro = (row) => row.Microstate === true;
const nameOf = (row) => String(economyName(row["Country Code"], row["Country Name"]) ?? row["Country Code"])
  + (micro(row) ? t(" (microstate)") : "");

// Lines of text from ``y`` down, wrapped to ``width``; returns the y under the last.
function writeLines(parts, text, y, width, size, weight, className, family) {
  for (const line of wrap(text, width, size, family, weight)) {
    y += size * 1.35;
    parts.push(svg("text", { x: PAD, y, "font-size": size, "font-weight": weight, class: className }, line));
  }
  return y;
}

function draw(root, fullWidth, chart) {
  const family = window.getComputedStyle(root).fontFamily || "sans-serif";
  const narrow = fullWidth < NARROW;
  const width = fullWidth - 2 * PAD;
  const parts = [svg("title", {}, chart.title)];
  let y = writeLines(parts, chart.title, PAD - 4, width, SIZE.title, "700", "rc-title", family);
  y = writeLines(parts, chart.subtitle, y, width, SIZE.subtitle, "400", "rc-muted", family) + 8;
  const valueWidth = textWidth("100.00", SIZE.value, family) + 8;
  const nameWidth = narrow ? 0 : Math.min(width * 0.4,
    Math.max(0, ...chart.rows.map((row) => textWidth(nameOf(row), SIZE.name, family))) + 12);
  const left = PAD + nameWidth;
  const span = Math.max(40, PAD + width - left - valueWidth);
  const x = (value) => left + (Math.max(0, Math.min(100, value)) / 100) * span;
  const rowHeight = narrow ? 36 : 22;
  const barHeight = 14;
  // The scale: 0, 25, 50, 75, 100 over the bars, with lines down through them.
  y += SIZE.tick;
  const top = y + 6;
  const bottom = top + chart.rows.length * rowHeight;
  for (const tick of [0, 25, 50, 75, 100]) {
    const anchor = tick === 0 ? "start" : tick === 100 ? "end" : "middle";
    parts.push(svg("text", { x: x(tick), y, "text-anchor": anchor, "font-size": SIZE.tick, class: "rc-muted rc-tick" },
      String(tick)));
    parts.push(svg("line", { x1: x(tick), x2: x(tick), y1: top, y2: bottom, class: "rc-grid" }));
  }
  chart.rows.forEach((row, index) => {
    const name = nameOf(row);
    const value = row[chart.field];
    const rowTop = top + index * rowHeight;
    const barTop = narrow ? rowTop + SIZE.name + 5 : rowTop + (rowHeight - barHeight) / 2;
    const middle = barTop + barHeight / 2;
    const group = svg("g", { class: "rc-row", "data-code": row["Country Code"] ?? "" });
    group.append(svg("title", {}, name + ": " + (typeof value === "number" ? score(value) : t("no score"))
      + (micro(row) ? t("; a microstate: scored, not ranked") : "")));
    if (micro(row)) group.classList.add("rc-micro");
    group.append(svg("text", narrow ? { x: PAD, y: rowTop + SIZE.name, "font-size": SIZE.name, class: "rc-name" }
      : { x: left - 8, y: middle, "text-anchor": "end", "dominant-baseline": "central", "font-size": SIZE.name,
        class: "rc-name" }, name));
    if (typeof value === "number") {
      group.append(svg("rect", { x: left, y: barTop, width: Math.max(0, x(value) - left), height: barHeight,
        class: "rc-bar", "data-value": value }));
      group.append(svg("text", { x: x(value) + 4, y: middle, "dominant-baseline": "central", "font-size": SIZE.value,
        class: "rc-value" }, score(value)));
    } else {
      group.append(svg("text", { x: left, y: middle, "dominant-baseline": "central", "font-size": SIZE.value,
        "font-style": "italic", class: "rc-muted rc-value" }, t("no score")));
    }
    parts.push(group);
  });
  const end = writeLines(parts, chart.source, bottom + 4, width, SIZE.subtitle, "400", "rc-muted rc-source", family);
  const height = Math.ceil(end + PAD);
  root.setAttribute("viewBox", `0 0 ${fullWidth} ${height}`);
  root.style.height = `${height}px`;
  root.replaceChildren(...parts);
}

// Draws ``view`` in ``container`` (its previous content replaced): the chart, the button that
// shows every bar or the first FIRST, and the toolbar to take it away (PNG, SVG, CSV, Share).
export function drawRankingChart(container, view) {
  const field = chartedField(view.field);
  const label = SCORE_LABELS.get(field);
  const ordered = bestFirst(view.rows, field);
  const long = ordered.length > SHORT_VIEW;
  const all = !long || showAll.get(container) === true;
  const rows = all ? ordered : ordered.slice(0, FIRST);
  const missing = ordered.filter((row) => typeof row[field] !== "number").length;
  const count = ordered.length;
  const economies = count === 1 ? t("1 economy") : t("{count} economies", { count });
  const title = t("{score}, best first", { score: label });
  const subtitle = (view.snapshot ? t("Snapshot {snapshot} · ", { snapshot: view.snapshot }) : "") +
    (all ? economies : t("the first {first} of {count} economies", { first: FIRST, count })) +
    (missing ? t(" · {missing} without a score, listed last", { missing }) : "") +
    (rows.some(micro) ? t(" · hollow bars: microstates, scored but not ranked") : "") +
    (field !== view.field && view.label ? t(" · the table is sorted by {column}", { column: view.label }) : "");
  const root = svg("svg", { class: "rank-chart", role: "img",
    "aria-label": t("Bar chart: {title}, {subtitle}. The table below has every value.", { title, subtitle }) });
  // Where the chart comes from, so a downloaded copy says it (and that the data is synthetic
  // when the page's notice says so).
  const synthetic = document.querySelector(".synthetic") ? t(" · synthetic data, not the real index") : "";
  const source = t("Source: Readiness Index Data Service, {address}", { address: `${window.location.host}/explore` }) + synthetic;
  const chart = { field, rows, title, subtitle, source };
  const parts = [root];
  if (long) {
    const toggle = el("button", { type: "button", class: "rc-toggle", "aria-controls": container.id || null },
      all ? t("Show the first {first}", { first: FIRST }) : t("Show all {count}", { count }));
    toggle.addEventListener("click", () => {
      showAll.set(container, !all);
      drawRankingChart(container, view);
      container.querySelector(".rc-toggle")?.focus();
    });
    parts.push(el("p", { class: "rc-more" }, toggle));
  }
  // The file's name in the API's words, whatever the page's language.
  const slug = SCORE_SLUGS.get(field);
  parts.push(chartTools({
    chart: () => root,
    name: () => ["ranking", slug, view.snapshot].filter(Boolean).join("-"),
    csv: () => view.csv,
    permalink: () => view.permalink,
    title: () => (view.snapshot ? t("{title}, snapshot {snapshot}", { title, snapshot: view.snapshot }) : title),
  }));
  container.replaceChildren(...parts);
  drawAtWidth(root, root.getBoundingClientRect().width || 640, (width) => draw(root, width, chart));
}
