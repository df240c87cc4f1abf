// /compare and /embed/compare: one score of up to eight economies across the snapshots history
// shows (GET /api/v1/history: the December archives and the current snapshot), with their
// regions' and the world's means on request (GET /api/v1/aggregates), drawn as a line chart and
// written as a table of the same numbers.
//
// The page's URL holds the whole view (codes, score, means, years), in the API's words, so a
// link shows the same view; each change is a history entry (Back undoes it). A value the page or
// the API does not know is said on the page, never dropped silently. /embed/compare draws the
// same view read-only: no picker, no remove buttons, no controls.
import { ApiError, apiUrl, el, getJson, say, score } from "./api.js";
import { lineChart } from "./chart.js";
import { chartTools } from "./export.js";
import { sayShown, snapshots } from "./snapshot.js";
import { MARKERS, sample, withMarkers } from "./compare-lines.js";
import { picker } from "./compare-picker.js";
import { economyName, t, word } from "./i18n.js";
import { MAX_ECONOMIES, MEANS, SCORES, entriesIn, historyEntries, list, pinned, readState, scoreOf, searchOf, yearsOf }
  from "./compare-state.js";

const embedded = document.body.classList.contains("embed");
const messages = document.getElementById("messages");
const status = document.getElementById("status");
const shownLine = document.getElementById("shown");
const heading = document.getElementById("chart-title");
const legend = document.getElementById("legend");
const chartBox = document.getElementById("compare-chart");
const table = document.getElementById("compare-table");
const caption = document.getElementById("compare-caption");
const sources = document.getElementById("compare-sources");
const form = document.getElementById("compare-controls");
const input = document.getElementById("add-economy");
const listbox = document.getElementById("add-options");
const scoreChoice = document.getElementById("score-choice");
const yearsBox = document.getElementById("compare-years");

let state = null; // { codes, score, means, years }: what the URL says
let notes = []; // what the page says about the URL or the last action, above the view
let apiNotes = []; // what the API said about the view drawn (its message, its unmatched codes)
let view = null; // what is drawn: { title, csv (its data as CSV), stem (the files' name) }
let drawing = 0; // the newest render; an older one's answers are dropped
let focusAfter = null; // after a removal: the index of the remove button to focus

const answers = new Map();
// GET a JSON answer once per URL while the page is open (a failed one is asked again next time).
function cachedJson(path, params) {
  const url = apiUrl(path, params);
  if (!answers.has(url)) {
    answers.set(url, getJson(path, params).catch((error) => { answers.delete(url); throw error; }));
  }
  return answers.get(url);
}

const names = cachedJson("/api/v1/readiness", { fields: "Country Code,Country Name" })
  .then((answer) => answer.data.map((row) => ({ code: row["Country Code"], name: economyName(row["Country Code"], row["Country Name"]) })));

function sayNotes() {
  messages.replaceChildren(...[...notes, ...apiNotes].map((note) => el("p", { class: "error" }, note)));
}

function navigate(next) {
  state = next;
  notes = [];
  sayNotes();
  window.history.pushState(null, "", `${window.location.pathname}${searchOf(state)}`);
  render();
}

async function add(entry) {
  if (state.codes.includes(entry.code)) {
    notes = [t("{name} is already compared.", { name: entry.name })];
    sayNotes();
  } else if (state.codes.length >= MAX_ECONOMIES) {
    notes = [t("Compare shows at most eight economies: remove one before adding {name}.", { name: entry.name })];
    sayNotes();
  } else {
    navigate({ ...state, codes: [...state.codes, entry.code] });
  }
}

function remove(code) {
  focusAfter = state.codes.indexOf(code);
  navigate({ ...state, codes: state.codes.filter((other) => other !== code) });
}

// The economies, the means asked for, each a line: { key, label, values, className, marker, hollow }.
function linesOf(labels, history, regionMeans, worldMeans, field, known) {
  const rows = new Map();
  for (const row of history?.data ?? []) {
    if (!rows.has(row["Country Code"])) rows.set(row["Country Code"], []);
    rows.get(row["Country Code"]).push(row);
  }
  const unmatched = new Set(history?.unmatched?.codes ?? []);
  const lines = state.codes.map((code, index) => {
    const own = rows.get(code) ?? [];
    const bySnapshot = new Map(own.map((row) => [row.snapshot, row[field]]));
    return {
      kind: "economy", code, index, region: own.at(-1)?.Region ?? null,
      label: known.get(code) ?? economyName(code, own.at(-1)?.["Country Name"]) ?? code,
      unmatched: unmatched.has(code), values: labels.map((label) => bySnapshot.get(label) ?? null),
      className: `economy c${index}`, marker: MARKERS[index], hollow: false,
    };
  });
  const means = (answer, group) => {
    const bySnapshot = new Map((answer?.data ?? []).filter((row) => row.group === group && row.measure === field)
      .map((row) => [row.snapshot, row.mean]));
    return labels.map((label) => bySnapshot.get(label) ?? null);
  };
  if (regionMeans) {
    const regions = new Map();
    for (const line of lines) if (line.region && !regions.has(line.region)) regions.set(line.region, line);
    for (const [region, first] of regions) {
      lines.push({ kind: "mean", label: t("{region} mean", { region: word(region) }), values: means(regionMeans, region),
        className: `mean c${first.index}`, marker: first.marker, hollow: true });
    }
  }
  if (worldMeans) {
    lines.push({ kind: "mean", label: t("World mean"), values: means(worldMeans, "World"), className: "mean world",
      marker: "diamond", hollow: true });
  }
  return lines.map((line, key) => ({ ...line, key }));
}

function drawLegend(lines) {
  legend.replaceChildren(...lines.map((line) => {
    const name = line.kind === "economy" && !line.unmatched && !embedded
      ? el("a", { href: `/explore/${line.code}` }, line.label) : el("span", {}, line.label);
    const unknown = line.unmatched ? el("span", { class: "unknown" }, t(" (no such economy)")) : null;
    const item = el("li", {}, sample(line), name, unknown);
    if (line.kind === "economy" && !embedded) {
      const button = el("button", { type: "button", class: "remove", "aria-label": t("Remove {name}", { name: line.label }),
        title: t("Remove {name}", { name: line.label }) }, "×");
      button.addEventListener("click", () => remove(line.code));
      item.append(button);
    }
    return item;
  }));
  if (focusAfter !== null) {
    const buttons = legend.querySelectorAll("button.remove");
    (buttons[Math.min(focusAfter, buttons.length - 1)] ?? input)?.focus();
    focusAfter = null;
  }
}

function drawTable(labels, lines, chosen) {
  caption.textContent = t("{score} by snapshot (0 to 100)", { score: chosen.label });
  table.querySelector("thead tr").replaceChildren(el("th", { scope: "col" }, t("Economy or mean")),
    ...labels.map((label) => el("th", { scope: "col", class: "num" }, label)));
  const rows = lines.filter((line) => !line.unmatched);
  table.closest(".table-wrap").hidden = !rows.length;
  table.querySelector("tbody").replaceChildren(...rows.map((line) => el("tr", { class: line.kind },
    el("th", { scope: "row" }, sample(line), line.label),
    ...line.values.map((value) => el("td", { class: "num" }, score(value))))));
}

// Nothing to draw: say why (and, on the page, where to start), with an empty table.
function drawEmpty(why) {
  const start = !embedded && !state.codes.length;
  chartBox.replaceChildren(el("p", { class: "empty" }, why || (start
    ? [t("Nothing to draw yet: add an economy above (up to eight), or start from"), " ",
      el("a", { href: "/compare?codes=KEN,BRA,IND" }, t("Kenya, Brazil and India")), t(".")]
    : t("Nothing to draw."))));
  if (!why) { // nor a table
    table.querySelector("thead tr").replaceChildren();
    table.querySelector("tbody").replaceChildren();
    table.closest(".table-wrap").hidden = true;
    sources.hidden = true;
  }
}

function drawChart(labels, lines, title) {
  const drawn = lines.filter((line) => line.values.some((value) => typeof value === "number"));
  if (!drawn.length) {
    drawEmpty(state.codes.length ? t("No value of this score in the snapshots shown.") : "");
    return;
  }
  chartBox.replaceChildren(withMarkers(lineChart(labels, drawn.map((line) => ({
    label: line.label, values: line.values, className: `${line.className} k${line.key}`,
  })), title), new Map(drawn.map((line) => [`k${line.key}`, line]))));
}

function drawSources(requests) {
  sources.hidden = !requests.length;
  sources.replaceChildren(t("The requests behind this view:"), " ",
    ...requests.flatMap(([label, [path, params]], index) => [index ? t(", ") : "",
      el("a", { href: apiUrl(path, params) }, label)]),
    t("."));
}

// Draw the view ``state`` asks for: fetch what it needs, then the legend, chart and table.
async function render() {
  const token = ++drawing;
  const chosen = scoreOf(state.score);
  syncControls();
  say(status, t("Loading…"));
  let catalogue;
  let known;
  try {
    [catalogue, known] = await Promise.all([snapshots(), names]);
  } catch (error) {
    say(status, error instanceof ApiError ? error.message : t("The service could not be reached."), true);
    return;
  }
  const entries = historyEntries(catalogue);
  const knownNames = new Map(known.map((entry) => [entry.code, entry.name]));
  const shown = entriesIn(state.years, entries);
  const [first, last] = [entries[0].year, entries.at(-1).year];
  const years = state.years || (first === last ? String(first) : `${first}:${last}`);
  drawYears(entries, shown);
  const requests = {
    history: state.codes.length
      ? ["/api/v1/history", { codes: state.codes.join(","), fields: `${chosen.alias},Region`, years }] : null,
    region: state.means.includes("region") && state.codes.length
      ? ["/api/v1/aggregates", { by: "region", years }] : null,
    world: state.means.includes("world") ? ["/api/v1/aggregates", { by: "world", years }] : null,
  };
  let history = null;
  let regionMeans = null;
  let worldMeans = null;
  try {
    [history, regionMeans, worldMeans] = await Promise.all(
      [requests.history, requests.region, requests.world].map((request) => (request ? cachedJson(...request) : null)));
  } catch (error) {
    if (token !== drawing) return;
    apiNotes = [error instanceof ApiError ? error.message : t("The service could not be reached.")];
    sayNotes();
    say(status, t("Nothing drawn: the API refused the request (its message is above)."), true);
    drawLegend(linesOf([], null, null, null, chosen.field, knownNames));
    drawEmpty("");
    drawTools();
    return;
  }
  if (token !== drawing) return;
  apiNotes = [];
  const unmatched = history?.unmatched?.codes ?? [];
  if (unmatched.length) {
    apiNotes.push(unmatched.length > 1
      ? t("No economy has the codes {codes} in the snapshots shown: the API names them in its \"unmatched\" codes. Remove them, or add an economy by name.", { codes: list(unmatched) })
      : t("No economy has the code {codes} in the snapshots shown: the API names it in its \"unmatched\" codes. Remove it, or add an economy by name.", { codes: list(unmatched) }));
  }
  if (!shown) {
    apiNotes.push(t("years={years} selects no snapshot history shows; use YYYY or YYYY:YYYY with years from {from} to {to}.",
      { years: state.years, from: entries[0].year, to: entries.at(-1).year }));
  }
  sayNotes();
  const labels = (shown ?? []).map((entry) => entry.id);
  const lines = linesOf(labels, history, regionMeans, worldMeans, chosen.field, knownNames);
  const span = labels.length > 1 ? t("{from} to {to}", { from: labels[0], to: labels.at(-1) }) : labels[0] ?? t("no snapshot");
  const title = t("{score}, {span}", { score: chosen.label, span });
  heading.textContent = title;
  const current = catalogue.find((entry) => entry.current)?.id;
  const mark = (id) => (id === current ? t("{id} (current)", { id }) : id);
  const every = labels.length === entries.length;
  const shownWords = { shown: list(labels.map(mark)), from: entries[0]?.id, to: entries.at(-1)?.id };
  shownLine.textContent = !labels.length ? t("No snapshot shown.") : every
    ? t("Snapshots shown: {shown}: every December archive and the current snapshot, as GET /api/v1/history has them.", shownWords)
    : t("Snapshots shown: {shown}, of the ones history has: the December archives and the current snapshot, {from} to {to}.", shownWords);
  if (shown) sayShown(shown.at(-1));
  const csv = requests.history ?? requests.world ?? ["/api/v1/history", { codes: "", years }];
  view = {
    title: t("{title}: {lines}", { title, lines: list(lines.map((line) => line.label)) }),
    csv: apiUrl(csv[0], { ...csv[1], format: "csv" }),
    stem: `compare-${state.codes.join("-").toLowerCase() || "world"}-${chosen.alias}-${labels[0]}-${labels.at(-1)}`,
  };
  drawLegend(lines);
  drawTable(labels, lines, chosen);
  drawChart(labels, lines, view.title);
  drawTools();
  drawSources([[t("history (JSON)"), requests.history], [t("region means (JSON)"), requests.region],
    [t("world mean (JSON)"), requests.world]].filter(([, request]) => request));
  const economies = lines.filter((line) => line.kind === "economy" && !line.unmatched).length;
  const means = lines.filter((line) => line.kind === "mean").length;
  const counted = {
    economies: economies === 1 ? t("1 economy") : t("{count} economies", { count: economies }),
    means: means === 1 ? t("1 mean") : t("{count} means", { count: means }),
    snapshots: labels.length === 1 ? t("1 snapshot") : t("{count} snapshots", { count: labels.length }),
  };
  if (!lines.length) say(status, embedded ? t("No economy chosen.") : t("No economy chosen yet."));
  else say(status, means ? t("{economies} and {means} over {snapshots}.", counted) : t("{economies} over {snapshots}.", counted));
  if (embedded) {
    const back = document.querySelector("footer.site a[target]");
    if (back) back.href = `/compare${searchOf(state)}`;
  }
}

// The toolbar under the chart (export.js), made once the first view is drawn: each of its
// options reads the view drawn when it is used.
function drawTools() {
  const tools = document.getElementById("compare-tools");
  // Nothing drawn: nothing to take away. An embed is a view, not a tool (as the country's).
  tools.hidden = embedded || !chartBox.querySelector("svg.chart");
  if (tools.childElementCount || !view) return;
  tools.replaceChildren(chartTools({
    chart: () => chartBox.querySelector("svg.chart"),
    name: () => view.stem,
    csv: () => view.csv,
    permalink: () => new URL(`/compare${searchOf(state)}`, window.location.origin).href,
    embed: () => `/embed/compare${searchOf(state)}`,
    title: () => view.title,
  }));
}

function syncControls() {
  if (embedded) return;
  scoreChoice.value = state.score;
  for (const box of form.querySelectorAll("input[name=means]")) box.checked = state.means.includes(box.value);
}

// "From" and "To" years: the first and the last snapshot shown (the last is the snapshot the
// other pages' selector chooses). Both full: no years= in the URL, so a link follows new snapshots.
function drawYears(entries, shown) {
  if (embedded || !yearsBox) return;
  const option = (entry) => el("option", { value: String(entry.year) },
    entry.current ? t("{year} ({id}, current)", { year: entry.year, id: entry.id }) : `${entry.year} (${entry.id})`);
  const from = el("select", { id: "years-from", name: "from" }, entries.map(option));
  const to = el("select", { id: "years-to", name: "to" }, entries.map(option));
  from.value = String((shown ?? entries)[0].year);
  to.value = String((shown ?? entries).at(-1).year);
  const changed = (moved, other, keepOrder) => {
    if (keepOrder(Number(from.value), Number(to.value))) other.value = moved.value;
    navigate({ ...state, years: yearsOf(entries, Number(from.value), Number(to.value)) });
  };
  from.addEventListener("change", () => changed(from, to, (a, b) => a > b));
  to.addEventListener("change", () => changed(to, from, (a, b) => a > b));
  yearsBox.replaceChildren(el("div", {}, el("label", { for: "years-from" }, t("From")), from),
    el("div", {}, el("label", { for: "years-to" }, t("To (last snapshot shown)")), to));
}

function controls() {
  scoreChoice.replaceChildren(...SCORES.map((entry) => el("option", { value: entry.alias }, entry.label)));
  form.addEventListener("submit", (event) => event.preventDefault());
  scoreChoice.addEventListener("change", () => navigate({ ...state, score: scoreChoice.value }));
  for (const box of form.querySelectorAll("input[name=means]")) {
    box.addEventListener("change", () => navigate({ ...state,
      means: MEANS.filter((mean) => (mean === box.value ? box.checked : state.means.includes(mean))) }));
  }
  const hint = document.getElementById("add-hint");
  names.then((known) => picker({ input, listbox, hint, known, onPick: add }), () => {});
}

async function start() {
  const read = readState(window.location.search);
  state = read.state;
  notes = read.problems;
  if (read.pin.year || read.pin.snapshot) {
    try {
      const catalogue = await snapshots();
      const fixed = pinned(read.pin, state.years, historyEntries(catalogue), catalogue);
      state = { ...state, years: fixed.years };
      notes.push(...fixed.problems);
    } catch {
      // render() says that the service could not be reached
    }
  }
  const canonical = `${window.location.pathname}${searchOf(state)}`;
  if (canonical !== `${window.location.pathname}${window.location.search}`) {
    window.history.replaceState(null, "", canonical); // the link as the page reads it
  }
  sayNotes();
  if (embedded) { // a frame is short: the numbers fold under the chart
    const wrap = table.closest(".table-wrap");
    const fold = el("details", { class: "numbers" }, el("summary", {}, t("The numbers")));
    wrap.replaceWith(fold);
    fold.append(wrap);
  } else {
    controls();
  }
  window.addEventListener("popstate", () => {
    const again = readState(window.location.search);
    state = again.state;
    notes = again.problems;
    sayNotes();
    render();
  });
  render();
}

start();
