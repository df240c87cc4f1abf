// The map, for /map and /embed/map alike: every economy with a shape in the vendored Natural Earth
// geometry (world-110m.json, written by scripts/vendor_world_atlas.py) coloured by one score of one
// snapshot, as GET /api/v1/readiness answers it, in the classes of the index's bands; each shape a
// link to the economy's page; the economies too small to draw listed beside it. The view is in the
// URL (?score=infra&region=SSA&year=2024), read with the API's own names: the API resolves the
// score's name (any field name or alias, any case), the region (name, short code or alias) and the
// snapshot, and says when one is not valid. A region zooms the map to its economies' shapes, fades
// the others and narrows the legend, the list and the table under the map to it.
import { COMPOSITE, DIMENSIONS, ApiError, apiUrl, el, getJson, say, score as written } from "./api.js";
import { chosenSnapshot, describe, entryOf, paramsFor, sayShownId, snapshotSelector, snapshots, withSnapshot } from "./snapshot.js";
import { svg } from "./chart.js";
import { bandOf } from "./profile.js";
import { chartTools } from "./export.js";
import { economyName, lang, t, urlLanguage, word } from "./i18n.js";

const CODE = "Country Code";
const NAME = "Country Name";
const REGION = "Region";
const RANK = "Global Rank";
const REGIONAL_RANK = "Regional Rank";
const MICROSTATE = "Microstate";
const EXTRA = [CODE, NAME, REGION, RANK, REGIONAL_RANK, MICROSTATE]; // asked with every score
const MOST_ZOOM = 8; // the most the zoom buttons enlarge the view (the world's or the region's)
const view = document.getElementById("map-view");
const status = document.getElementById("status");
const problem = document.getElementById("problem");
const embedded = document.body.classList.contains("embed");
// /map has controls and the chart tools; the landing page shows the map alone, as /map first does.
const controlled = document.getElementById("map-controls") !== null;
// The bands and the scores' aliases, as the server wrote them into the page from their one
// definition (readiness/domain/bands.py, readiness/domain/vocabulary.py): field -> alias.
const BANDS = JSON.parse(document.getElementById("bands-data").textContent);
const ALIASES = JSON.parse(document.getElementById("score-aliases").textContent);
// The seven regions, as the data names them -> the API's short code (loaders/contract.py REGION_SHORT).
const REGION_SHORT = JSON.parse(document.getElementById("regions-data").textContent);
const SCORES = [[COMPOSITE, t("Composite score")], ...DIMENSIONS.map(([field, label]) => [field, t("{dimension} score", { dimension: label })])];
const LABELS = Object.fromEntries(SCORES);
const SYNTHETIC = document.querySelector(".synthetic") !== null; // the page's notice: the snapshot's data is synthetic

// The class of a value: the index of the first band, from the top, whose floor it reaches; null
// for no value. The composite's classes are its bands; a dimension score is cut at the same bounds.
function classOf(value) {
  const band = bandOf(value, BANDS);
  return band === null ? null : BANDS.indexOf(band);
}

// What a class is called for ``field``: the band's name and range for the composite, the range alone
// for a dimension (the bands are the composite's).
function className(field, index) {
  if (index === null) return t("no data");
  const band = BANDS[index];
  return field === COMPOSITE ? `${band.name} (${band.range})` : band.range;
}

function swatch(index) {
  return el("span", { class: `swatch ${index === null ? "no-data" : `c-${index}`}`, "aria-hidden": "true" });
}

let geometry = null;
async function loadGeometry() {
  geometry ??= fetch(view.dataset.geometry).then((response) => {
    if (!response.ok) throw new ApiError(`the map's geometry answered ${response.status}`);
    return response.json();
  });
  return geometry;
}

// The view the URL asks for, answered by the API: { field, rows, snapshot id, asked score, problem }.
// An unknown score is said, never dropped silently: the map then shows the composite and says so.
async function loadData(asked, chosen) {
  const request = (name) => getJson("/api/v1/readiness", { fields: `${EXTRA.join(",")},${name}`, ...chosen });
  const accepted = t("use one of {aliases} or a score's field name", { aliases: Object.values(ALIASES).join(", ") });
  let answer = null;
  let field = COMPOSITE;
  let note = null;
  if (asked) {
    try {
      answer = await request(asked);
      field = Object.keys(answer.data[0] ?? {}).find((key) => !EXTRA.includes(key));
      if (!(field in LABELS)) note = t("score={asked} is not a score the map can show: {accepted}.", { asked, accepted });
    } catch (error) {
      if (!(error instanceof ApiError) || !error.message.includes("fields=")) throw error;
      note = t("score={asked} is not a score: {accepted}.", { asked, accepted });
    }
    if (note) {
      answer = null;
      field = COMPOSITE;
      note += " " + t("The map shows the composite score.");
    }
  }
  answer ??= await request(COMPOSITE);
  return { field, rows: answer.data, snapshot: answer.snapshot, note };
}

// The region the URL asks for, as the API's parser reads it (GET /api/v1/query/readiness):
// { region: the data's name or null, note }. One the API refuses is said with the API's own message,
// never dropped silently: the map then shows the world.
async function loadRegion(asked) {
  if (!asked) return { region: null, note: null };
  try {
    const answer = await getJson("/api/v1/query/readiness", { region: asked });
    const region = answer.parameters?.region;
    if (region in REGION_SHORT) return { region, note: null };
    return { region: null, note: t("region={asked} is not a region of the map. The map shows the whole world.", { asked }) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { region: null, note: error.message + " " + t("The map shows the whole world.") };
  }
}

// The URL parameters of a view: score= (the alias; none for the composite), region= (the short
// code; none for the world) and the snapshot's.
function viewParams(field, region, chosen) {
  return { ...(field === COMPOSITE ? {} : { score: ALIASES[field] }),
    ...(region ? { region: REGION_SHORT[region] } : {}), ...chosen, ...(urlLanguage() ? { lang: urlLanguage() } : {}) };
}

function search(params) {
  const text = new URLSearchParams(params).toString().replaceAll("+", "%20");
  return text ? `?${text}` : "";
}

const tooltip = document.getElementById("map-tooltip");

function showTooltip(target, lines, point = null) {
  tooltip.replaceChildren(el("strong", {}, lines[0]), ...lines.slice(1).map((line) => el("span", {}, line)));
  tooltip.hidden = false;
  const box = tooltip.parentElement.getBoundingClientRect();
  const at = point ?? (() => {
    const shape = target.getBoundingClientRect();
    return { x: shape.left + shape.width / 2, y: shape.top + shape.height / 2 };
  })();
  const width = tooltip.offsetWidth;
  const left = Math.max(0, Math.min(box.width - width, at.x - box.left + 12));
  tooltip.style.left = `${left}px`;
  tooltip.style.top = `${Math.max(0, at.y - box.top + 14)}px`;
}

function hideTooltip() {
  tooltip.hidden = true;
}

// Each economy's rank by ``field`` among ``rows`` (code -> { rank, of }): the API's Global Rank
// (or Regional Rank, ``regional``) for the composite; for a dimension, one more than the number of
// ranked economies scoring higher, counted as the method ranks (microstates and economies without
// the score are not ranked).
function ranksOf(rows, field, regional = false) {
  const ranked = rows.filter((row) => row[MICROSTATE] !== true && typeof row[field] === "number");
  const ranks = new Map();
  for (const row of ranked) {
    const rank = field === COMPOSITE ? row[regional ? REGIONAL_RANK : RANK]
      : 1 + ranked.filter((other) => other[field] > row[field]).length;
    if (typeof rank === "number") ranks.set(row[CODE], { rank, of: ranked.length });
  }
  return ranks;
}

// The tooltip's line about an economy's rank: in the world, and in its region when one is shown.
function rankWords(row, world, inRegion) {
  if (row[MICROSTATE] === true) return t("Not ranked: a microstate");
  const here = world.get(row[CODE]);
  if (!here) return t("Not ranked: no score");
  const regional = inRegion?.get(row[CODE]);
  return regional
    ? t("Rank {rank} of {of} ({regional} of {regionalOf} in the region)",
      { ...here, regional: regional.rank, regionalOf: regional.of })
    : t("Rank {rank} of {of}", here);
}

// A dark line with a white halo over the shape pointed at or focused: visible on every class.
function highlight(root, path) {
  root.querySelector(".map-highlight")?.remove();
  if (!path) return;
  const d = path.getAttribute("d");
  root.append(svg("g", { class: "map-highlight", "aria-hidden": "true" },
    svg("path", { d, class: "halo" }), svg("path", { d, class: "line" })));
}

// The map as an <svg>: one path per feature, a link per economy in the data.
function drawMap(shapes, byCode, field, label, region) {
  const rows = [...byCode.values()];
  const world = ranksOf(rows, field);
  const inRegion = region ? ranksOf(rows.filter((row) => row[REGION] === region), field, true) : null;
  const [, , width, height] = shapes.viewBox.split(" ").map(Number);
  const root = svg("svg", { viewBox: shapes.viewBox, class: "map-svg", role: "group", "aria-labelledby": "map-caption",
    width, height });
  const features = shapes.features.map((feature) => ({ ...feature, row: byCode.get(feature.code) }))
    .sort((a, b) => (a.row?.[NAME] ?? a.name).localeCompare(b.row?.[NAME] ?? b.name, "en"));
  // No data: grey hatching, in the SVG itself so a downloaded file keeps it.
  root.append(svg("defs", {}, svg("pattern", { id: "map-no-data", width: 4, height: 4, patternUnits: "userSpaceOnUse",
    patternTransform: "rotate(45)" }, svg("rect", { width: 4, height: 4, fill: "#eceef0", stroke: "none" }),
  svg("line", { x1: 0, y1: 0, x2: 0, y2: 4, stroke: "#8c959f", "stroke-width": 1.5 }))));
  const countries = svg("g", { class: "countries" });
  for (const feature of features) {
    const { row } = feature;
    const value = row?.[field];
    const index = classOf(value);
    const path = svg("path", { d: feature.d, class: index === null ? "no-data" : `c-${index}`, "data-code": feature.code });
    const outside = region !== null && row?.[REGION] !== region ? "outside" : null;
    if (!row) {
      if (outside) path.classList.add(outside);
      const lines = [feature.name, t("not in the data")];
      path.append(svg("title", {}, lines.join(": ")));
      path.addEventListener("pointermove", (event) => showTooltip(path, lines, { x: event.clientX, y: event.clientY }));
      path.addEventListener("pointerleave", hideTooltip);
      countries.append(path);
      continue;
    }
    const name = economyName(row[CODE], row[NAME]);
    const lines = [name, `${label}: ${written(value)}`, rankWords(row, world, inRegion), index === null ? t("No data")
      : (field === COMPOSITE ? t("Band: {band}", { band: BANDS[index].name }) : t("Class: {range}", { range: BANDS[index].range }))];
    const link = svg("a", { href: `/explore/${feature.code}`, "aria-label": lines.join(", "), "data-code": feature.code,
      class: outside, target: embedded ? "_blank" : null, rel: embedded ? "noopener" : null },
    svg("title", {}, lines.join("\n")), path);
    link.addEventListener("pointermove", (event) => {
      showTooltip(link, lines, { x: event.clientX, y: event.clientY });
      if (!root.querySelector(".map-highlight") || root.dataset.lit !== feature.code) {
        root.dataset.lit = feature.code;
        highlight(root, path);
      }
    });
    link.addEventListener("pointerleave", () => { hideTooltip(); highlight(root, null); delete root.dataset.lit; });
    link.addEventListener("focus", () => { showTooltip(link, lines); highlight(root, path); });
    link.addEventListener("blur", () => { hideTooltip(); highlight(root, null); });
    countries.append(link);
  }
  root.append(countries);
  return root;
}

// The box the map zooms to for ``region``: the union of the drawn shapes' boxes (getBBox) of the
// region's economies, with a margin, widened to at least TALLEST's proportions (a tall region,
// Africa or the Americas, would otherwise fill a phone's screen) and heightened to at most the
// world's, and kept inside the world where it fits. The map is never stretched: the SVG takes the
// box's proportions. A shape cut by the antimeridian (Fiji,
// Russia's Chukotka) counts on the side most of it lies on, or the region would span the world.
const TALLEST = 1.25; // width to height, at least, of a region's view

function regionBox(root, codes, world) {
  let box = null;
  const add = (b) => {
    box = box ? { x0: Math.min(box.x0, b.x0), y0: Math.min(box.y0, b.y0), x1: Math.max(box.x1, b.x1),
      y1: Math.max(box.y1, b.y1) } : b;
  };
  for (const path of root.querySelectorAll(".countries path[data-code]")) {
    if (!codes.has(path.dataset.code)) continue;
    const whole = path.getBBox();
    if (whole.width <= world.width / 2) {
      add({ x0: whole.x, y0: whole.y, x1: whole.x + whole.width, y1: whole.y + whole.height });
      continue;
    }
    const sides = [[], []]; // the subpaths left and right of the middle, with their boxes' areas
    for (const d of path.getAttribute("d").split(/(?=M)/)) {
      const piece = svg("path", { d });
      root.append(piece);
      const b = piece.getBBox();
      piece.remove();
      sides[b.x + b.width / 2 < world.width / 2 ? 0 : 1].push(b);
    }
    const area = (side) => side.reduce((sum, b) => sum + b.width * b.height, 0);
    for (const b of area(sides[0]) >= area(sides[1]) ? sides[0] : sides[1]) {
      add({ x0: b.x, y0: b.y, x1: b.x + b.width, y1: b.y + b.height });
    }
  }
  if (!box) return null;
  const margin = Math.max(box.x1 - box.x0, box.y1 - box.y0) * 0.06 + 4;
  let width = box.x1 - box.x0 + 2 * margin;
  let height = box.y1 - box.y0 + 2 * margin;
  const widest = world.width / world.height;
  if (width / height > widest) height = width / widest;
  else if (width / height < TALLEST) width = height * TALLEST;
  if (width >= world.width) return null; // the region is the world
  height = Math.min(height, world.height);
  const clamp = (value, low, high) => Math.min(Math.max(value, low), high);
  const x = clamp((box.x0 + box.x1 - width) / 2, world.x, world.x + world.width - width);
  const y = clamp((box.y0 + box.y1 - height) / 2, world.y, world.y + world.height - height);
  const round = (value) => Math.round(value * 10) / 10;
  return { x: round(x), y: round(y), width: round(width), height: round(height) };
}

// Zooms ``root`` to ``box`` (null: the world): its viewBox, and the lines and the hatching scaled
// back so they look as they do on the world map (CSS reads --zoom).
// ``scale`` (the zoom buttons', 1 for none) enlarges that view around ``centre`` (the view's own
// centre for none), kept inside it. Any zoom clears the tooltip: the shape it was about has moved.
function zoom(root, box, world, scale = 1, centre = null) {
  const base = box ?? world;
  const width = base.width / scale;
  const height = base.height / scale;
  const clamp = (value, low, high) => Math.min(Math.max(value, low), high);
  const cx = clamp(centre?.x ?? base.x + base.width / 2, base.x + width / 2, base.x + base.width - width / 2);
  const cy = clamp(centre?.y ?? base.y + base.height / 2, base.y + height / 2, base.y + base.height - height / 2);
  const shown = { x: cx - width / 2, y: cy - height / 2, width, height };
  hideTooltip();
  highlight(root, null);
  root.setAttribute("viewBox", [shown.x, shown.y, shown.width, shown.height].map((n) => Math.round(n * 10) / 10).join(" "));
  root.setAttribute("width", base.width);
  root.setAttribute("height", base.height);
  root.style.touchAction = scale > 1 ? "none" : ""; // a finger drags the zoomed map, not the page
  root.dataset.zoom = String(scale);
  const factor = world.width / shown.width;
  root.style.setProperty("--zoom", String(factor));
  root.querySelector("#map-no-data")?.setAttribute("patternTransform", `rotate(45) scale(${1 / factor})`);
}

function drawLegend(field, counts) {
  const items = BANDS.map((band, index) => el("li", {}, swatch(index), `${className(field, index)}`,
    el("span", { class: "count" }, ` · ${counts[index] ?? 0}`)));
  items.push(el("li", {}, swatch(null), t("No data"), el("span", { class: "count" }, ` · ${counts.none ?? 0}`)));
  document.getElementById("map-legend").replaceChildren(...items);
}

function drawSmall(rows, field, label, shapes) {
  const drawn = new Set(shapes.features.map((feature) => feature.code));
  const nameOf = (row) => economyName(row[CODE], row[NAME]);
  const small = rows.filter((row) => !drawn.has(row[CODE])).sort((a, b) => nameOf(a).localeCompare(nameOf(b), lang));
  document.getElementById("small-title").textContent = t("Too small to draw ({count})", { count: small.length });
  document.getElementById("map-small").replaceChildren(...small.map((row) => {
    const index = classOf(row[field]);
    const band = index === null ? t("no data") : field === COMPOSITE ? BANDS[index].name : BANDS[index].range;
    return el("li", { "data-code": row[CODE] },
      el("a", { href: `/explore/${row[CODE]}`, target: embedded ? "_blank" : null, rel: embedded ? "noopener" : null },
        swatch(index), nameOf(row)),
      el("span", { class: "value", "aria-label": `${label} ${written(row[field])}, ${band}` },
        `${written(row[field])} · ${band}`));
  }));
  return small.length;
}

// The numbers as a table under the map: every economy of the view (the region's, or all), best
// first, those without the score last; each a link to its page.
function drawTable(rows, field, label, place, snapshot) {
  const sorted = [...rows].sort((a, b) => {
    const [x, y] = [a[field], b[field]];
    if (typeof x !== "number" || typeof y !== "number") return (typeof x !== "number") - (typeof y !== "number");
    return y - x || economyName(a[CODE], a[NAME]).localeCompare(economyName(b[CODE], b[NAME]), lang);
  });
  document.getElementById("map-table-count").textContent = `(${rows.length})`;
  document.getElementById("map-table-caption").textContent = t("{score}, {place}, snapshot {snapshot}: best first",
    { score: label, place, snapshot });
  document.getElementById("map-table-band").textContent = field === COMPOSITE ? t("Band") : t("Class");
  document.querySelector("#map-table tbody").replaceChildren(...sorted.map((row) => {
    const index = classOf(row[field]);
    return el("tr", { "data-code": row[CODE] },
      el("th", { scope: "row" }, el("a", { href: `/explore/${row[CODE]}`, target: embedded ? "_blank" : null,
        rel: embedded ? "noopener" : null }, economyName(row[CODE], row[NAME]))),
      el("td", { class: "num" }, written(row[field])),
      el("td", {}, swatch(index),
        index === null ? t("no data") : field === COMPOSITE ? BANDS[index].name : BANDS[index].range));
  }));
}

// For a download: the map with its title above, its legend in the South Pacific and its credit
// below, so the file explains itself. A zoomed map is drawn at the world's size: the shapes scaled
// up and clipped to the region's box, so the file is as large and sharp as the world's. standaloneSvg
// copies the SVG at once; the additions are gone before the page paints again.
function exportable(root, field, title, shapes, box) {
  const viewBox = root.getAttribute("viewBox");
  const [, , width, worldHeight] = shapes.viewBox.split(" ").map(Number);
  const countries = root.querySelector(".countries");
  const height = box ? Math.round(box.height * (width / box.width) * 10) / 10 : worldHeight;
  let clip = null;
  if (box) {
    const factor = width / box.width;
    clip = svg("clipPath", { id: "map-zoom-clip" },
      svg("rect", { x: box.x, y: box.y, width: box.width, height: box.height }));
    root.querySelector("defs").append(clip);
    countries.setAttribute("transform", `scale(${factor}) translate(${-box.x} ${-box.y})`);
    countries.setAttribute("clip-path", "url(#map-zoom-clip)");
  }
  const items = [...BANDS.map((_, index) => [index, className(field, index)]), [null, t("No data")]];
  const top = height - 8 - items.length * 16;
  const extra = svg("g", { class: "map-export" },
    svg("text", { x: 8, y: -10, class: "export-title" }, title),
    svg("rect", { x: 4, y: top - 4, width: 150, height: items.length * 16 + 6, class: "export-legend" }),
    ...items.flatMap(([index, text], row) => [
      svg("rect", { x: 8, y: top + row * 16, width: 14, height: 11, class: index === null ? "no-data" : `c-${index}` }),
      svg("text", { x: 28, y: top + row * 16 + 10, class: "export-text" }, text)]),
    svg("text", { x: width - 8, y: height + 14, "text-anchor": "end", class: "export-text" },
      (SYNTHETIC ? t("Readiness Index (synthetic data: not the published index).") : t("Readiness Index."))
      + " " + t("Map: {attribution}.", { attribution: word(shapes.attribution) })));
  root.append(extra);
  root.setAttribute("viewBox", `0 -30 ${width} ${height + 52}`);
  requestAnimationFrame(() => {
    extra.remove();
    clip?.remove();
    countries.removeAttribute("transform");
    countries.removeAttribute("clip-path");
    root.setAttribute("viewBox", viewBox);
  });
  return root;
}

let tools = null;
let current = null;
let generation = 0;

async function render() {
  const mine = ++generation;
  const query = new URLSearchParams(window.location.search);
  const asked = (query.get("score") ?? "").trim();
  const askedRegion = (query.get("region") ?? "").trim();
  const chosen = chosenSnapshot();
  say(status, t("Loading…"));
  let shapes;
  let data;
  let place;
  try {
    [shapes, data, place] = await Promise.all([loadGeometry(), loadData(asked, chosen), loadRegion(askedRegion)]);
  } catch (error) {
    if (mine !== generation) return;
    say(status, t("The map could not be drawn: {error}", { error: error.message }), true);
    document.getElementById("map").replaceChildren();
    return;
  }
  if (mine !== generation) return;
  const { field, rows: all, snapshot } = data;
  const { region } = place;
  const note = [data.note, place.note].filter(Boolean).join(" ") || null;
  const label = LABELS[field];
  const list = await snapshots().catch(() => []);
  const entry = entryOf(list, chosen);
  const shown = entry?.id ?? snapshot;
  sayShownId(shown);
  problem.hidden = !note;
  problem.textContent = note ?? "";
  const select = document.getElementById("map-score");
  if (select) select.value = field;
  const regionSelect = document.getElementById("map-region");
  if (regionSelect) regionSelect.value = region ? REGION_SHORT[region] : "";
  // The URL in the API's canonical words: score's alias, region's short code, the snapshot's shortest name.
  if (!note) {
    const canonical = search(viewParams(field, region, entry ? paramsFor(entry) : chosen));
    if (canonical !== window.location.search) {
      window.history.replaceState(null, "", window.location.pathname + canonical);
    }
  }
  const back = document.querySelector("footer.site a[target=_blank]");
  if (embedded && back) back.href = `/map${window.location.search}`;

  const byCode = new Map(all.map((row) => [row[CODE], row]));
  const rows = region ? all.filter((row) => row[REGION] === region) : all; // the economies of the view
  hideTooltip(); // about a shape of the map being replaced
  const root = drawMap(shapes, byCode, field, label, region);
  document.getElementById("map").replaceChildren(root);
  const [wx, wy, ww, wh] = shapes.viewBox.split(" ").map(Number);
  const world = { x: wx, y: wy, width: ww, height: wh };
  const box = region ? regionBox(root, new Set(rows.map((row) => row[CODE])), world) : null;
  zoom(root, box, world);
  pannable(root);
  const drawnCodes = new Set(shapes.features.map((feature) => feature.code));
  const counts = {};
  for (const row of rows) {
    if (!drawnCodes.has(row[CODE])) continue;
    const index = classOf(row[field]);
    counts[index ?? "none"] = (counts[index ?? "none"] ?? 0) + 1;
  }
  // Shapes with no economy in the data belong to no region: counted on the world map only.
  if (!region) counts.none = (counts.none ?? 0) + shapes.features.filter((feature) => !byCode.has(feature.code)).length;
  drawLegend(field, counts);
  const small = drawSmall(rows, field, label, shapes);
  const where = region ? word(region) : t("world");
  drawTable(rows, field, label, where, shown);
  document.getElementById("map-caption").textContent = region
    ? t("{score}, {region}, snapshot {snapshot}", { score: label, region: word(region), snapshot: entry ? describe(entry) : shown })
    : t("{score}, snapshot {snapshot}", { score: label, snapshot: entry ? describe(entry) : shown });
  document.getElementById("map-after").textContent = t("Map: {attribution}.", { attribution: word(shapes.attribution) });
  const mapped = rows.length - small;
  const values = { score: label, count: rows.length, region: word(region), mapped, small };
  say(status, (region ? t("{score} of {count} economies in {region}:", values) : t("{score} of {count} economies:", values))
    + " " + (controlled || embedded ? t("{mapped} on the map, {small} too small to draw (listed).", values)
      : t("{mapped} on the map, {small} too small to draw (in the table under the map).", values)));
  current = { field, label, snapshot: shown, root, shapes, box, region, world, scale: 1, centre: null,
    chosen: entry ? paramsFor(entry) : chosen };
  zoomButtons();
  if (controlled && !tools) {
    const title = () => (current.region
      ? t("{score}, {region}, snapshot {snapshot}", { score: current.label, region: word(current.region), snapshot: current.snapshot })
      : t("{score}, snapshot {snapshot}", { score: current.label, snapshot: current.snapshot }));
    tools = chartTools({
      chart: () => exportable(current.root, current.field, title(), current.shapes, current.box),
      name: () => ["map", ALIASES[current.field], current.region && REGION_SHORT[current.region].toLowerCase(),
        current.snapshot].filter(Boolean).join("-"),
      csv: () => apiUrl("/api/v1/readiness", { format: "csv",
        region: current.region ? REGION_SHORT[current.region] : null, fields: `${CODE},${NAME},${current.field}`,
        ...current.chosen }),
      permalink: () => window.location.href,
      embed: () => `/embed/map${window.location.search}`,
      title,
    });
    document.getElementById("map-tools").replaceChildren(tools);
  }
}

// The zoom buttons: in and out by ZOOM_STEP around the view's centre, and back to the whole view.
const ZOOM_STEP = 2;
function zoomBy(step) {
  if (!current) return;
  const scale = step === null ? 1 : Math.min(MOST_ZOOM, Math.max(1, current.scale * step));
  current.centre = scale === 1 ? null : centreOf(current.root);
  current.scale = scale;
  zoom(current.root, current.box, current.world, scale, current.centre);
  zoomButtons();
}

function centreOf(root) {
  const [x, y, width, height] = root.getAttribute("viewBox").split(" ").map(Number);
  return { x: x + width / 2, y: y + height / 2 };
}

function zoomButtons() {
  document.getElementById("zoom-in").disabled = current.scale >= MOST_ZOOM;
  document.getElementById("zoom-out").disabled = current.scale <= 1;
  document.getElementById("zoom-reset").disabled = current.scale <= 1;
}

// A zoomed map follows a dragging pointer (a finger, or a mouse with its button down); a drag is
// not a click, so the economy under the pointer is not opened when it ends.
function pannable(root) {
  let drag = null;
  root.addEventListener("pointerdown", (event) => {
    if (!current || current.scale <= 1 || root !== current.root) return;
    drag = { x: event.clientX, y: event.clientY, centre: centreOf(root), moved: false, id: event.pointerId };
  });
  root.addEventListener("pointermove", (event) => {
    if (!drag || event.pointerId !== drag.id) return;
    const [, , width] = root.getAttribute("viewBox").split(" ").map(Number);
    const units = width / root.getBoundingClientRect().width;
    const [dx, dy] = [event.clientX - drag.x, event.clientY - drag.y];
    if (!drag.moved && Math.hypot(dx, dy) < 5) return;
    if (!drag.moved) root.setPointerCapture?.(event.pointerId);
    drag.moved = true;
    current.centre = { x: drag.centre.x - dx * units, y: drag.centre.y - dy * units };
    zoom(root, current.box, current.world, current.scale, current.centre);
  });
  const end = () => { setTimeout(() => { drag = null; }); };
  root.addEventListener("pointerup", end);
  root.addEventListener("pointercancel", end);
  root.addEventListener("click", (event) => {
    if (drag?.moved) event.preventDefault();
  }, true);
}

document.getElementById("zoom-in").addEventListener("click", () => zoomBy(ZOOM_STEP));
document.getElementById("zoom-out").addEventListener("click", () => zoomBy(1 / ZOOM_STEP));
document.getElementById("zoom-reset").addEventListener("click", () => zoomBy(null));

// /map's controls: the score, the region and the snapshot, each change a new history entry.
async function controls() {
  const select = document.getElementById("map-score");
  select.replaceChildren(...SCORES.map(([field, label]) => el("option", { value: field }, label)));
  select.value = COMPOSITE;
  select.addEventListener("change", () => {
    const params = new URLSearchParams(window.location.search);
    if (select.value === COMPOSITE) params.delete("score");
    else params.set("score", ALIASES[select.value]);
    const text = params.toString().replaceAll("+", "%20");
    window.history.pushState(null, "", window.location.pathname + (text ? `?${text}` : ""));
    render();
  });
  const regionSelect = document.getElementById("map-region");
  regionSelect.addEventListener("change", () => {
    const params = new URLSearchParams(window.location.search);
    if (regionSelect.value) params.set("region", regionSelect.value);
    else params.delete("region");
    window.history.pushState(null, "", window.location.pathname + search(Object.fromEntries(params)));
    render();
  });
  const container = document.getElementById("map-snapshot");
  await snapshotSelector(container, (params) => {
    window.history.pushState(null, "", withSnapshot(params));
    render();
  });
  window.addEventListener("popstate", async () => {
    const list = await snapshots();
    const entry = entryOf(list, chosenSnapshot());
    const choice = container.querySelector("select");
    if (entry && choice) choice.value = entry.id;
    render();
  });
}

if (controlled) controls().catch((error) => say(status, t("The snapshot list could not be loaded: {error}", { error: error.message }), true));
render();
