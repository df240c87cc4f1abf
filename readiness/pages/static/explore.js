// The explorer's table: GET /api/v1/readiness with the filters and sort chosen, drawn as a
// sortable table; the name search narrows the rows shown, and the download link asks the API
// for exactly those rows as CSV. The state lives in the page's query string, so a view can be
// shared and survives a reload.
import { COMPOSITE, DIMENSIONS, apiUrl, bar, el, folded, getJson, number, say } from "./api.js";

const COLUMNS = [
  { field: "Global Rank", label: "Rank", numeric: true, ascendingFirst: true },
  { field: "Country Name", label: "Economy", numeric: false },
  { field: "Region", label: "Region", numeric: false },
  { field: "Income Level", label: "Income group", numeric: false },
  { field: COMPOSITE, label: "Composite", numeric: true, barred: true },
  ...DIMENSIONS.map(([field, label]) => ({ field, label, numeric: true, barred: true })),
  { field: "FCV Status", label: "FCV", numeric: false },
];
const FIELDS = ["Country Code", ...COLUMNS.map((column) => column.field)];
const FILTERS = ["region", "income", "fcv"];

const form = document.getElementById("filters");
const table = document.getElementById("ranking");
const caption = document.getElementById("ranking-caption");
const status = document.getElementById("status");
const download = document.getElementById("download");
const request = document.getElementById("request");

let state = readState();
let rows = [];
let pending = 0;

function readState() {
  const params = new URLSearchParams(window.location.search);
  const sort = COLUMNS.find((column) => column.field === params.get("sort")) ? params.get("sort") : "Global Rank";
  const order = params.get("order") === "desc" || params.get("order") === "asc" ? params.get("order") : "asc";
  const filters = Object.fromEntries(FILTERS.map((name) => [name, params.get(name) || ""]));
  return { sort, order, filters, search: params.get("q") || "" };
}

// A filter or sort change is a new history entry (Back returns to the view before it); typing
// in the search box replaces the current one, or every keystroke would be a step back.
function writeState(push) {
  const shown = apiUrl(window.location.pathname, { ...state.filters, q: state.search,
    sort: state.sort === "Global Rank" && state.order === "asc" ? "" : state.sort,
    order: state.sort === "Global Rank" && state.order === "asc" ? "" : state.order });
  if (push && shown !== window.location.pathname + window.location.search) window.history.pushState(null, "", shown);
  else window.history.replaceState(null, "", shown);
}

// The API parameters of the current view, without the format and the name search.
function apiParams() {
  return { ...state.filters, sort: state.sort, order: state.order, fields: FIELDS.join(",") };
}

function drawHead() {
  const row = table.tHead.rows[0];
  // The buttons are drawn anew: the one that had the focus gives it to its successor.
  const focused = row.contains(document.activeElement) ? document.activeElement.dataset.field : null;
  row.replaceChildren(...COLUMNS.map((column) => {
    const sorted = column.field === state.sort;
    const button = el("button", { type: "button", "data-field": column.field }, column.label,
      el("span", { class: "arrow", "aria-hidden": "true" }, sorted ? (state.order === "asc" ? " ▲" : " ▼") : ""));
    button.addEventListener("click", () => sortBy(column));
    return el("th", {
      scope: "col",
      class: column.numeric ? "num" : null,
      "aria-sort": sorted ? (state.order === "asc" ? "ascending" : "descending") : null,
    }, button);
  }));
  if (focused) row.querySelector(`button[data-field="${CSS.escape(focused)}"]`)?.focus();
  const sortedBy = COLUMNS.find((column) => column.field === state.sort).label.toLowerCase();
  caption.textContent = `Economies by ${sortedBy}, ${state.order === "asc" ? "ascending" : "descending"}`;
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
  if (column.field === "Country Name") {
    return el("th", { scope: "row" }, el("a", { href: `/explore/${record["Country Code"]}` }, value));
  }
  if (column.field === "FCV Status") return el("td", {}, value === true ? "Yes" : value === false ? "No" : "–");
  if (column.barred) return el("td", { class: "num" }, bar(value));
  return el("td", { class: column.numeric ? "num" : null }, column.numeric ? number(value, 0) : value ?? "–");
}

// A name containing the search, or a code beginning with it ("usa" finds United States).
function visibleRows() {
  const wanted = folded(state.search.trim());
  return wanted ? rows.filter((record) => folded(record["Country Name"]).includes(wanted)
    || folded(record["Country Code"]).startsWith(wanted)) : rows;
}

function drawBody() {
  const shown = visibleRows();
  table.tBodies[0].replaceChildren(...shown.map((record) =>
    el("tr", {}, COLUMNS.map((column) => cell(column, record)))));
  const narrowed = shown.length !== rows.length;
  const params = narrowed ? { ...apiParams(), codes: shown.map((r) => r["Country Code"]).join(",") } : apiParams();
  download.href = apiUrl("/api/v1/readiness", { ...params, format: "csv" });
  download.toggleAttribute("hidden", shown.length === 0);
  request.href = apiUrl("/api/v1/readiness", apiParams());
  say(status, `Showing ${shown.length} of ${rows.length} economies` +
    (state.search.trim() ? ` matching “${state.search.trim()}”` : "") + ".");
}

async function load(push = false) {
  const mine = ++pending;
  drawHead();
  writeState(push);
  say(status, "Loading…");
  try {
    const answer = await getJson("/api/v1/readiness", apiParams());
    if (mine !== pending) return; // a newer request was sent meanwhile
    rows = answer.data;
    drawBody();
  } catch (error) {
    if (mine !== pending) return;
    rows = [];
    table.tBodies[0].replaceChildren();
    say(status, `The API refused the request: ${error.message}`, true);
  }
}

for (const name of FILTERS) {
  const control = form.elements[name];
  control.value = state.filters[name];
  if (control.value !== state.filters[name]) state.filters[name] = ""; // not one of the choices
  control.addEventListener("change", () => {
    state.filters[name] = control.value;
    load(true);
  });
}
// Back and Forward: the view of that entry, its controls set to match.
window.addEventListener("popstate", () => {
  state = readState();
  for (const name of FILTERS) form.elements[name].value = state.filters[name];
  form.elements.q.value = state.search;
  load();
});
form.elements.q.value = state.search;
form.elements.q.addEventListener("input", () => {
  state.search = form.elements.q.value;
  writeState();
  drawBody();
});
form.addEventListener("submit", (event) => event.preventDefault());
load();
