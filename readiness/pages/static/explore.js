// The explorer's table: GET /api/v1/readiness with the filters, snapshot, weights and sort
// chosen, drawn as a sortable table (PAGE_ROWS rows at a time, the rest a click away) and a
// ranking chart of every row (above or beside the table, explore.css); the name search narrows the rows shown, and the download link
// asks the API for exactly those rows as CSV. Microstates (scored, never ranked) are marked in
// both: "microstate" in the rank's place in the table, a hollow bar in the chart.
//
// The view lives in the page's query string, in the API's own language: the page sends its
// query (all but the page-only `q`, the name search) to GET /api/v1/query/readiness, the
// service's own parser, and shows what it answers: the view its canonical parameters describe,
// with the canonical URL in the address bar, or the API's message for a value it does not know
// (and then no table at all, never another view in its place). The sliders' weights are written
// in the API's canonical form the same way: the page asks GET /api/v1/query/readiness for it.
import { COMPOSITE, DIMENSIONS, ApiError, apiUrl, bar, el, getJson, number, say } from "./api.js";
import { matches } from "./search.js";
import { entryOf, snapshotSelector, snapshots, sayShown } from "./snapshot.js";
import { drawRankingChart } from "./ranking.js";
import { economyName, formatNumber, t, urlLanguage, word } from "./i18n.js";

const CUSTOM_SCORE = "Custom Score";
const CUSTOM_RANK = "Custom Rank";
// Every column; `extra` ones fold away on a phone until "Show all columns" (explore.css).
const PUBLISHED_COLUMNS = [
  { field: "Global Rank", label: t("Rank"), numeric: true, ascendingFirst: true },
  { field: "Country Name", label: t("Economy"), numeric: false },
  { field: "Region", label: t("Region"), numeric: false, extra: true },
  { field: "Income Level", label: t("Income group"), numeric: false, extra: true },
  { field: COMPOSITE, label: t("Composite"), numeric: true, barred: true },
  ...DIMENSIONS.map(([field, label]) => ({ field, label, numeric: true, barred: true, extra: true })),
  { field: "FCV Status", label: t("FCV"), numeric: false, extra: true },
];
const CUSTOM_COLUMNS = [
  { field: CUSTOM_SCORE, label: t("Custom score"), numeric: true, barred: true, custom: true },
  { field: CUSTOM_RANK, label: t("Custom rank"), numeric: true, ascendingFirst: true, custom: true },
];
const MICROSTATE = "Microstate";
const FIELDS = ["Country Code", ...PUBLISHED_COLUMNS.map((column) => column.field), MICROSTATE];
// The table's rows at a time: "Show 50 more" adds as many, "Show all" the rest. A new view (a
// filter, sort, snapshot, weights or search) starts again at its first PAGE_ROWS.
const PAGE_ROWS = 50;
const FILTERS = ["region", "income", "fcv"];
const SNAPSHOT = ["year", "snapshot"];
// What the explorer reads of the canonical parameters; the API's other parameters (fields,
// limit, codes, ...) are said to be unused and left out of the page's link.
const USED = [...FILTERS, ...SNAPSHOT, "sort", "order", "weights"];
// In the API's canonical order (Query.canonical), then the page's own.
const URL_ORDER = ["region", "income", "fcv", "year", "snapshot", "sort", "order", "weights", "q", "lang"];
const PAGE_ONLY = ["q", "lang"];
const PUBLISHED_WEIGHT = 1;
const MAX_SLIDER = 5;
// How long the sliders rest before their weights are sent to the API's parser: a held arrow key
// or a fast run of moves asks once, for where they stop, not once per step.
const WEIGHING_DELAY_MS = 150;

const form = document.getElementById("filters");
const table = document.getElementById("ranking");
const caption = document.getElementById("ranking-caption");
const status = document.getElementById("status");
const problem = document.getElementById("problem");
const unused = document.getElementById("unused");
const download = document.getElementById("download");
const request = document.getElementById("request");
const permalink = document.getElementById("permalink");
const customLabel = document.getElementById("custom-label");
const customWeights = document.getElementById("custom-weights");
const weightsBox = document.getElementById("weights-box");
const sliders = document.getElementById("weight-sliders");
const moreColumns = document.getElementById("more-columns");
const chart = document.getElementById("ranking-chart-body");
const choice = document.getElementById("explore-snapshot");
const links = document.getElementById("links");
const viewLink = document.getElementById("view-link");
const chartSection = document.getElementById("ranking-chart");
const pager = document.getElementById("pager");
const pagerText = document.getElementById("pager-text");
const moreRows = document.getElementById("more-rows");
const allRows = document.getElementById("all-rows");

let state = defaultState("");
let rows = [];
let rowsShown = PAGE_ROWS;
let shownEntry = null;
let pending = 0;
// The sliders' latest choice: its number (an answer for an older one is dropped), its timer
// while the sliders rest, and its weights until the API's canonical form of them is applied
// (so a table drawn meanwhile leaves the sliders where they were put).
let weighing = 0;
let weighingTimer = null;
let chosen = null;

function defaultState(search) {
  return { filters: { region: "", income: "", fcv: "" }, snapshot: {}, weights: null,
    sort: "Global Rank", order: "asc", search };
}

const custom = () => state.weights !== null;
const columns = () => (custom()
  ? [...PUBLISHED_COLUMNS.slice(0, 5), ...CUSTOM_COLUMNS, ...PUBLISHED_COLUMNS.slice(5)] : PUBLISHED_COLUMNS);
// Whether a column folds away on a phone: the published rank too while the custom rank is shown.
const folds = (column) => column.extra || (custom() && column.field === "Global Rank");
// The explorer's own default order: the published rank, or the custom score with custom weights.
const defaultSort = (weights = state.weights) => (weights !== null
  ? { sort: CUSTOM_SCORE, order: "desc" } : { sort: "Global Rank", order: "asc" });

// A query string as the service writes one (urlencode with quote, "," and ":" kept).
function encode(value) {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replaceAll("%2C", ",").replaceAll("%3A", ":");
}

// The view's parameters in the API's terms (sort and order left out for the explorer's default
// view, the published rank ascending, as the API leaves out its own default).
function viewParams() {
  const params = { ...state.filters, ...state.snapshot };
  const published = defaultSort(null);
  if (state.sort !== published.sort || state.order !== published.order) Object.assign(params, { sort: state.sort, order: state.order });
  if (custom()) params.weights = state.weights.join(",");
  return params;
}

// The page's canonical URL: the API's canonical query for the view, then the name search.
function pageUrl() {
  const params = { ...viewParams(), q: state.search.trim(), lang: urlLanguage() };
  const text = URL_ORDER.filter((name) => params[name]).map((name) => `${name}=${encode(params[name])}`).join("&");
  return window.location.pathname + (text ? `?${text}` : "");
}

// A filter, snapshot, weight or sort change is a new history entry (Back returns to the view
// before it); typing in the search box replaces the current one, or every keystroke would be a
// step back.
function writeUrl(push) {
  const shown = pageUrl();
  if (push && shown !== window.location.pathname + window.location.search) window.history.pushState(null, "", shown);
  else window.history.replaceState(null, "", shown);
  permalink.href = shown;
  permalink.textContent = permalink.href;
}

// The API parameters of the table, without the format and the name search.
function apiParams() {
  return { ...state.filters, ...state.snapshot, sort: state.sort, order: state.order, fields: FIELDS.join(","),
    weights: custom() ? state.weights.join(",") : "" };
}

// The view a page URL names, read by the service's parser (GET /api/v1/query/readiness):
// resolves to the state, or throws the API's ApiError for a value it does not accept.
async function readUrl(search) {
  const params = new URLSearchParams(search);
  const text = params.get("q") || "";
  for (const name of PAGE_ONLY) params.delete(name);
  const next = defaultState(text);
  const given = [...params.entries()].filter(([, value]) => value.trim() !== "").map(([name]) => name);
  if (given.length === 0) return { view: next, ignored: [] };
  const query = params.toString().replaceAll("+", "%20");
  const answer = await getJson(`/api/v1/query/readiness?${query}`);
  const parameters = answer.parameters || {};
  for (const name of FILTERS) next.filters[name] = parameters[name] === undefined ? "" : String(parameters[name]);
  for (const name of SNAPSHOT) if (parameters[name] !== undefined) next.snapshot[name] = String(parameters[name]);
  // A link's weights are kept as the API writes them, equal ones too (the API's custom columns).
  if (parameters.weights !== undefined) next.weights = String(parameters.weights).split(",").map(Number);
  if (given.includes("sort") || given.includes("order")) {
    next.sort = parameters.sort ?? "Country Name"; // the API's default, which its canonical form leaves out
    next.order = parameters.order ?? "asc";
  } else {
    Object.assign(next, defaultSort(next.weights)); // the explorer's default for these weights
  }
  const ignored = Object.entries(parameters).filter(([name]) => !USED.includes(name));
  return { view: next, ignored };
}

function setControls() {
  for (const name of FILTERS) form.elements[name].value = state.filters[name];
  form.elements.q.value = state.search;
  const weights = chosen || state.weights || DIMENSIONS.map(() => PUBLISHED_WEIGHT);
  sliders.querySelectorAll("input").forEach((input, index) => {
    input.value = String(Math.min(MAX_SLIDER, weights[index]));
    input.nextElementSibling.value = String(weights[index]);
  });
  if (custom()) weightsBox.open = true;
  customLabel.hidden = !custom();
  customWeights.textContent = custom()
    ? t("Weights {weights}; Custom score and Custom rank are yours, Composite and Rank the published index.",
      { weights: DIMENSIONS.map(([, label], index) => `${label} ${formatNumber(state.weights[index])}`).join(t(", ")) })
    : "";
}

function drawHead() {
  const row = table.tHead.rows[0];
  // The buttons are drawn anew: the one that had the focus gives it to its successor.
  const focused = row.contains(document.activeElement) ? document.activeElement.dataset.field : null;
  table.classList.toggle("weighted", custom());
  row.replaceChildren(...columns().map((column) => {
    const sorted = column.field === state.sort;
    const button = el("button", { type: "button", "data-field": column.field }, column.label,
      el("span", { class: "arrow", "aria-hidden": "true" }, sorted ? (state.order === "asc" ? " ▲" : " ▼") : ""));
    button.addEventListener("click", () => sortBy(column));
    return el("th", {
      scope: "col",
      class: [column.numeric ? "num" : "", folds(column) ? "extra" : "", column.custom ? "custom" : ""].join(" ").trim() || null,
      "aria-sort": sorted ? (state.order === "asc" ? "ascending" : "descending") : null,
    }, button);
  }));
  if (focused) row.querySelector(`button[data-field="${CSS.escape(focused)}"]`)?.focus();
  const sortedBy = columns().find((column) => column.field === state.sort)?.label.toLowerCase() ?? state.sort;
  caption.textContent = (state.order === "asc" ? t("Economies by {column}, ascending", { column: sortedBy })
    : t("Economies by {column}, descending", { column: sortedBy }))
    + (custom() ? t(" (custom weights: not the published index)") : "");
}

function sortBy(column) {
  if (state.sort === column.field) state.order = state.order === "asc" ? "desc" : "asc";
  else {
    state.sort = column.field;
    state.order = column.ascendingFirst || !column.numeric ? "asc" : "desc";
  }
  load(true);
}

function cell(column, record) {
  const value = record[column.field];
  const extra = folds(column) ? "extra" : null;
  if (column.field === "Country Name") {
    return el("th", { scope: "row" }, el("a", { href: `/explore/${record["Country Code"]}` },
      economyName(record["Country Code"], value)));
  }
  if (column.field === "FCV Status") return el("td", { class: extra }, value === true ? t("Yes") : value === false ? t("No") : "–");
  if (column.field === "Region" || column.field === "Income Level") return el("td", { class: extra }, word(value) ?? "–");
  const classes = [column.numeric ? "num" : "", extra || "", column.custom ? "custom" : ""].join(" ").trim() || null;
  // A microstate is scored but never ranked (the method's rule): its ranks say why they are empty.
  if (column.ascendingFirst && record[MICROSTATE] === true && value == null) {
    return el("td", { class: classes }, el("span", { class: "micro-mark" }, t("microstate")));
  }
  if (column.barred) return el("td", { class: classes }, bar(value));
  return el("td", { class: classes }, column.numeric ? number(value, 0) : value ?? "–");
}

// A name or another name in common use containing the search, or a code beginning with it
// ("usa" finds United States, "drc" Congo, Dem. Rep.): the landing page's matcher (search.js).
function visibleRows() {
  const wanted = state.search.trim();
  return wanted ? rows.filter((record) => matches(wanted, record["Country Code"], record["Country Name"])) : rows;
}

// The table's first ``rowsShown`` rows of ``shown``, and the pager under it for the rest.
function drawRows(shown) {
  const drawn = table.tBodies[0].rows.length;
  const count = Math.min(rowsShown, shown.length);
  if (drawn > 0 && drawn < count) { // more of the same view: add the rows, keep those drawn
    table.tBodies[0].append(...shown.slice(drawn, count).map(rowOf));
  } else {
    table.tBodies[0].replaceChildren(...shown.slice(0, count).map(rowOf));
  }
  const rest = shown.length - count;
  pager.hidden = rest <= 0;
  pagerText.textContent = t("Rows 1–{count} of {all}.", { count, all: shown.length });
  moreRows.textContent = t("Show {count} more", { count: Math.min(PAGE_ROWS, rest) });
  moreRows.hidden = rest <= PAGE_ROWS; // "Show all" says the same then
  allRows.textContent = t("Show all {count}", { count: shown.length });
}

const rowOf = (record) => el("tr", {}, columns().map((column) => cell(column, record)));

// More rows of the view: the focus goes to the first new row's economy, where reading goes on.
function showMore(all) {
  const before = table.tBodies[0].rows.length;
  rowsShown = all ? Infinity : rowsShown + PAGE_ROWS;
  drawRows(visibleRows());
  const first = table.tBodies[0].rows[before]?.querySelector("a");
  first?.focus();
  sayShowing(visibleRows());
}

// The status line: how many economies the view shows of those the API sent, and how many of
// them the table has drawn so far.
function sayShowing(shown) {
  const drawn = Math.min(rowsShown, shown.length);
  const values = { shown: shown.length, all: rows.length, text: state.search.trim(), snapshot: shownEntry?.id, drawn };
  say(status, (values.text ? t("Showing {shown} of {all} economies matching “{text}”", values)
    : t("Showing {shown} of {all} economies", values))
    + (!shownEntry ? "" : shownEntry.current ? t(" (snapshot {snapshot}, the current one)", values)
      : t(" (snapshot {snapshot})", values))
    + (drawn < shown.length ? t(": the first {drawn} in the table.", values) : t(".")));
}

function drawBody() {
  table.tBodies[0].replaceChildren();
  const shown = visibleRows();
  drawRows(shown);
  const narrowed = shown.length !== rows.length;
  const params = narrowed ? { ...apiParams(), codes: shown.map((r) => r["Country Code"]).join(",") } : apiParams();
  download.href = apiUrl("/api/v1/readiness", { ...params, format: "csv" });
  download.toggleAttribute("hidden", shown.length === 0);
  request.href = apiUrl("/api/v1/readiness", apiParams());
  sayShowing(shown);
  drawChart(shown);
}

// The ranking chart of the rows shown (ranking.js), best first: by the composite, or by the
// custom score while custom weights are set, whatever column the table is sorted by.
function drawChart(shown) {
  const field = custom() ? CUSTOM_SCORE : COMPOSITE;
  try {
    drawRankingChart(chart, {
      field,
      label: columns().find((column) => column.field === state.sort)?.label.toLowerCase() ?? state.sort,
      rows: shown,
      snapshot: shownEntry?.id ?? "",
      permalink: permalink.href,
      csv: download.href,
    });
  } catch (error) {
    chart.replaceChildren(el("p", { class: "error" }, t("The chart could not be drawn: {error}", { error: error.message })));
  }
}

// Nothing shown: no rows, no chart, no links to them.
function clearTable() {
  rows = [];
  table.tBodies[0].replaceChildren();
  pager.hidden = true;
  chart.replaceChildren();
  showingSomething(false);
}

function showingSomething(shown) {
  for (const part of [links, viewLink, chartSection]) part.hidden = !shown;
}

function showProblem(message) {
  problem.replaceChildren(el("strong", {}, t("This view cannot be shown.")), " ", message, " ",
    t("Nothing is shown in its place; change a choice above, or"), " ",
    el("a", { href: "/explore" }, t("start from the whole table")), t("."));
  problem.hidden = false;
}

// The snapshot named in the view, from the catalogue (current for none).
async function entryShown() {
  try {
    return entryOf(await snapshots(), state.snapshot) ?? null;
  } catch {
    return null;
  }
}

// The controls, the table's head and the URL of the current state, before its rows.
function showState(push) {
  problem.hidden = true;
  drawHead();
  setControls();
  writeUrl(push);
}

// A view the API refuses: its message, and no table.
function showRefusal(message) {
  clearTable();
  showProblem(message);
  say(status, t("No economies shown."), true);
}

// Fetch and draw the table of the current state.
async function load(push = false) {
  const mine = ++pending;
  showState(push);
  say(status, t("Loading…"));
  try {
    const answer = await getJson("/api/v1/readiness", apiParams());
    const entry = await entryShown();
    if (mine !== pending) return; // a newer request was sent meanwhile
    rows = answer.data;
    rowsShown = PAGE_ROWS;
    shownEntry = entry;
    if (entry) sayShown(entry);
    showingSomething(true);
    drawBody();
  } catch (error) {
    if (mine !== pending) return;
    showRefusal(error.message);
  }
}

// Read the page's URL through the API's parser, then load its view; for a URL the parser
// refuses, its message and no table.
async function start() {
  const mine = ++pending;
  forgetWeighing(); // a slider choice still on its way belongs to the view being left
  say(status, t("Loading…"));
  let read;
  try {
    read = await readUrl(window.location.search);
  } catch (error) {
    if (mine !== pending) return;
    state = defaultState(new URLSearchParams(window.location.search).get("q") || "");
    setControls();
    drawHead();
    clearTable();
    unused.hidden = true;
    permalink.href = window.location.href;
    permalink.textContent = permalink.href;
    showProblem(error instanceof ApiError ? error.message : String(error));
    say(status, t("No economies shown: the link's query is not valid."), true);
    return;
  }
  if (mine !== pending) return;
  state = read.view;
  unused.hidden = read.ignored.length === 0;
  unused.textContent = read.ignored.length === 0 ? "" : t("Not used by the explorer, and left out of the link: {parameters} (it shows every economy the filters select, with its own columns).",
    { parameters: read.ignored.map(([name, value]) => `${name}=${value}`).join(", ") });
  await load();
  const entry = await entryShown();
  const select = choice.querySelector("select");
  if (select && entry) select.value = entry.id;
}

function weightSliders() {
  sliders.replaceChildren(...DIMENSIONS.map(([field, label], index) => {
    const id = `w-${index}`;
    const input = el("input", { type: "range", id, min: 0, max: MAX_SLIDER, step: 1, value: PUBLISHED_WEIGHT,
      "data-dimension": field });
    const output = el("output", { for: id }, String(PUBLISHED_WEIGHT));
    input.addEventListener("input", () => { output.value = input.value; });
    input.addEventListener("change", () => chooseWeights([...sliders.querySelectorAll("input")].map((i) => Number(i.value))));
    return el("div", { class: "weight" }, el("label", { for: id }, label), input, output);
  }));
}

// Drop a slider choice not yet applied: its timer, and its answer when it comes.
function forgetWeighing() {
  weighing += 1;
  clearTimeout(weighingTimer);
  chosen = null;
}

// The sliders' weights, once they rest: equal ones are the published index at once; any others
// go to the API's parser, whose canonical form (2,4,4,2,0 is 1,2,2,1,0) is the view's weights,
// in the link and in the table's request alike, or whose refusal (all 0) is said as a refused
// link's is. Only the latest choice is applied: an answer for an older one, however late, is not.
function chooseWeights(weights) {
  forgetWeighing();
  // The page's rule, not the API's: the sliders start equal, at the published index, so equal
  // sliders mean "no weights of my own" (no custom columns, no weights in the link). The API
  // keeps weights=1,1,1,1,1 as asked, since a client that sends weights wants custom columns;
  // that is why a link's equal weights are kept (readUrl) and only the sliders' are dropped.
  if (weights.every((weight) => weight === weights[0]) && weights[0] > 0) {
    setWeights(null);
    load(true);
    return;
  }
  const mine = weighing;
  chosen = weights;
  say(status, t("Loading…"));
  weighingTimer = setTimeout(() => weigh(mine, weights), WEIGHING_DELAY_MS);
}

// Ask the API's parser what choice `mine` of the sliders means, and apply its answer if no
// later choice was made meanwhile.
async function weigh(mine, weights) {
  let canonical;
  try {
    const answer = await getJson("/api/v1/query/readiness", { weights: weights.join(",") });
    canonical = String(answer.parameters.weights).split(",").map(Number);
  } catch (error) {
    if (mine !== weighing) return;
    chosen = null;
    ++pending; // no table answer on its way may draw over the refusal
    setWeights(weights); // as chosen, in the link too, as a refused link stays as given
    showState(true);
    showRefusal(error.message);
    return;
  }
  if (mine !== weighing) return;
  chosen = null;
  setWeights(canonical);
  load(true);
}

// The view's weights (null: the published index), and the explorer's default order for them
// when the custom columns come or go.
function setWeights(weights) {
  const wasCustom = custom();
  state.weights = weights;
  const sortIsCustom = [CUSTOM_SCORE, CUSTOM_RANK].includes(state.sort);
  if (custom() && (!wasCustom || !sortIsCustom)) Object.assign(state, { sort: CUSTOM_SCORE, order: "desc" });
  if (!custom() && sortIsCustom) Object.assign(state, defaultSort());
}

weightSliders();
document.getElementById("weights-reset").addEventListener("click", () => chooseWeights(DIMENSIONS.map(() => PUBLISHED_WEIGHT)));

for (const name of FILTERS) {
  form.elements[name].addEventListener("change", () => {
    state.filters[name] = form.elements[name].value;
    load(true);
  });
}
moreColumns.addEventListener("click", () => {
  const all = table.classList.toggle("all-columns");
  moreColumns.setAttribute("aria-pressed", String(all));
});
// Back and Forward: the view of that entry, read from its URL like the first one.
window.addEventListener("popstate", () => start());
moreRows.addEventListener("click", () => showMore(false));
allRows.addEventListener("click", () => showMore(true));
form.elements.q.addEventListener("input", () => {
  state.search = form.elements.q.value;
  rowsShown = PAGE_ROWS;
  writeUrl(false);
  drawBody();
});
form.addEventListener("submit", (event) => event.preventDefault());

start().then(() => snapshotSelector(choice, (params) => {
  state.snapshot = params;
  load(true);
})).catch((error) => say(status, t("The snapshots could not be listed: {error}", { error: error.message }), true));
