// One economy's view: its record with indicators (GET /api/v1/readiness?code=...), the means
// of its region and of the world from the table (GET /api/v1/readiness?fields=...), and its
// scores across snapshots (GET /api/v1/history?code=...), each drawn as the API answered.
import { COMPOSITE, DIMENSIONS, bar, el, getJson, number, say, score } from "./api.js";
import { lineChart } from "./chart.js";

const IMPUTED_PREFIX = "Imputed"; // builder/changes.py: data_source of an imputed value
const SCORES = [[COMPOSITE, "Composite"], ...DIMENSIONS];
const heading = document.getElementById("country");
const code = heading.dataset.code;
const status = document.getElementById("status");
// The bands, as the server wrote them into the page from their one definition (readiness/domain/bands.py).
const BANDS = JSON.parse(document.getElementById("bands-data").textContent);

function mean(records, field) {
  const values = records.map((record) => record[field]).filter((value) => typeof value === "number");
  return values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : null;
}

function drawSummary(country) {
  const fcv = country["FCV Status"] ? `fragile or conflict-affected (${country["FCV Type"] || "FCV"})` : "not fragile or conflict-affected";
  document.getElementById("summary").textContent =
    `${country["Region"]} · ${country["Income Level"] || "income group unknown"} · ${fcv}`;
}

function drawScores(country, table) {
  const region = table.filter((record) => record["Region"] === country["Region"]);
  document.getElementById("region-mean").textContent = `${country["Region"]} mean`;
  document.querySelector("#scores tbody").replaceChildren(...SCORES.map(([field, label]) =>
    el("tr", {},
      el("th", { scope: "row" }, label),
      el("td", { class: "num" }, bar(country[field], "own")),
      el("td", { class: "num" }, bar(mean(region, field), "region")),
      el("td", { class: "num" }, bar(mean(table, field), "world")))));
  const ranked = table.filter((record) => typeof record["Global Rank"] === "number").length;
  const rankedInRegion = region.filter((record) => typeof record["Regional Rank"] === "number").length;
  const fact = (term, value) => el("div", {}, el("dt", {}, term), el("dd", {}, value));
  document.getElementById("ranks").replaceChildren(
    fact("Global rank", country["Global Rank"] ? `${country["Global Rank"]} of ${ranked}` : "not ranked"),
    fact("Regional rank", country["Regional Rank"] ? `${country["Regional Rank"]} of ${rankedInRegion} in ${country["Region"]}` : "not ranked"));
}

function drawIndicators(details) {
  document.querySelector("#indicators tbody").replaceChildren(...details.map((item) => {
    const source = String(item.data_source || "");
    const imputed = source.startsWith(IMPUTED_PREFIX);
    const sourceCell = el("td", {}, imputed ? el("span", { class: "imputed-mark" }, "Imputed") : null,
      imputed ? ` ${source.slice(IMPUTED_PREFIX.length).replace(/^:\s*/, "")}` : source,
      item.notes ? el("span", { class: "note" }, item.notes) : null);
    return el("tr", { class: imputed ? "imputed" : null },
      el("th", { scope: "row" }, item.indicator_name, el("span", { class: "code" }, item.indicator_code)),
      el("td", {}, item.component || "–"),
      el("td", { class: "num" }, item.year ?? "–"),
      el("td", { class: "num" }, number(item.reported_value)),
      el("td", {}, bar(item.normalized_value)),
      el("td", {}, `${item.global_percentile || "–"}, ${item.regional_percentile || "–"}`),
      sourceCell);
  }));
}

// The band of a composite: the first band, from the top, whose floor the score reaches.
function bandOf(value) {
  if (typeof value !== "number") return null;
  return BANDS.find((band) => value >= band.floor) ?? BANDS.at(-1);
}

// One of ``parts`` equal shares, as the method page writes it: "1/4 (25%)".
function share(parts) {
  return `1/${parts} (${number(100 / parts)}%)`;
}

// The arithmetic of a mean, as a reader checks it: "mean of 4 values: (a + b + c + d) ÷ 4 = ".
function meanOf(values, noun) {
  if (!values.length) return `no ${noun} to average: `;
  const plural = values.length === 1 ? noun : `${noun}s`;
  return `mean of ${values.length} ${plural}: (${values.map(score).join(" + ")}) ÷ ${values.length} = `;
}

// How the composite is built: each dimension's normalized values (imputed ones marked), their
// mean (the published dimension score), then the mean of the five scores and its band.
function drawBuild(country) {
  const details = country.indicator_details || [];
  const groups = DIMENSIONS.map(([field, label]) => {
    const dimension = field.replace(/ Score$/, ""); // indicator_details name it by its component
    const items = details.filter((item) => item.component === dimension);
    const counted = items.filter((item) => typeof item.normalized_value === "number").map((item) => item.normalized_value);
    const rows = items.map((item) => {
      const imputed = String(item.data_source || "").startsWith(IMPUTED_PREFIX);
      const counts = typeof item.normalized_value === "number";
      return el("tr", { class: imputed ? "imputed" : null },
        el("th", { scope: "row" }, item.indicator_name, imputed ? [" ", el("span", { class: "imputed-mark" }, "Imputed")] : null,
          el("span", { class: "code" }, item.indicator_code)),
        el("td", { class: "num", "data-value": counts ? item.normalized_value : null }, score(item.normalized_value)),
        el("td", { class: "num" }, counts ? share(counted.length) : "not counted"),
        el("td", { class: "num" }, counts ? share(DIMENSIONS.length * counted.length) : "not counted"));
    });
    return el("tbody", { "data-dimension": dimension },
      el("tr", { class: "group" }, el("th", { scope: "rowgroup", colspan: 4 }, label)),
      rows,
      el("tr", { class: "mean" }, el("th", { scope: "row" }, `${label} score`),
        el("td", { colspan: 3 }, meanOf(counted, "value"), el("strong", { "data-score": "" }, score(country[field])))));
  });
  document.querySelectorAll("#build tbody").forEach((old) => old.remove());
  document.getElementById("build").append(...groups);

  const scores = DIMENSIONS.map(([field]) => country[field]);
  const complete = scores.every((value) => typeof value === "number");
  document.querySelector("#composite tbody").replaceChildren(
    ...DIMENSIONS.map(([field, label]) => el("tr", {}, el("th", { scope: "row" }, `${label} score`),
      el("td", { class: "num", "data-value": country[field] ?? null }, score(country[field])),
      el("td", { class: "num" }, share(DIMENSIONS.length)))),
    el("tr", { class: "mean" }, el("th", { scope: "row" }, "Composite"),
      el("td", { colspan: 2 }, complete ? meanOf(scores, "dimension score") : "no composite: a dimension has no score ",
        el("strong", { "data-score": "" }, score(country[COMPOSITE])))));
  const band = bandOf(country[COMPOSITE]);
  document.getElementById("band").replaceChildren(...(band
    ? ["Band: ", el("strong", {}, band.name), ` (a composite ${band.range})`]
    : ["No band: there is no composite."]));
}

function drawHistory(rows) {
  const target = document.getElementById("history");
  if (!rows.length) {
    target.replaceChildren(el("p", {}, "No snapshot has scores for this economy."));
    return;
  }
  const labels = rows.map((row) => row.snapshot);
  const series = SCORES.map(([field, label], index) => ({
    label, className: `s${index}`, values: rows.map((row) => row[field]),
  }));
  const legend = el("ul", { class: "legend" }, series.map((line) => el("li", { class: `series ${line.className}` },
    el("span", { class: "swatch", "aria-hidden": "true" }), line.label)));
  const table = el("table", { class: "history" },
    el("caption", {}, `${heading.textContent}'s scores by snapshot`),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Snapshot"),
      SCORES.map(([, label]) => el("th", { scope: "col", class: "num" }, label)),
      el("th", { scope: "col", class: "num" }, "Global rank"))),
    el("tbody", {}, rows.map((row) => el("tr", {}, el("th", { scope: "row" }, row.snapshot),
      SCORES.map(([field]) => el("td", { class: "num" }, number(row[field]))),
      el("td", { class: "num" }, number(row["Global Rank"], 0))))));
  target.replaceChildren(
    lineChart(labels, series, `${heading.textContent}'s scores from ${labels[0]} to ${labels.at(-1)}, 0 to 100`),
    legend,
    el("details", {}, el("summary", {}, "The numbers"), el("div", { class: "table-wrap" }, table)));
}

async function loadHistory() {
  try {
    const answer = await getJson("/api/v1/history", { code });
    drawHistory(answer.data);
  } catch (error) {
    document.getElementById("history").replaceChildren(el("p", {}, `No history: ${error.message}`));
  }
}

async function load() {
  const history = loadHistory();
  try {
    const fields = ["Country Code", "Region", "Global Rank", "Regional Rank", ...SCORES.map(([field]) => field)];
    const [one, all] = await Promise.all([
      getJson("/api/v1/readiness", { code }),
      getJson("/api/v1/readiness", { fields: fields.join(",") }),
    ]);
    const country = one.data;
    drawSummary(country);
    drawScores(country, all.data);
    drawIndicators(country.indicator_details || []);
    drawBuild(country);
    say(status, `Snapshot ${one.snapshot === "current" ? document.querySelector("[data-snapshot]").textContent : one.snapshot}.`);
  } catch (error) {
    say(status, `The API refused the request: ${error.message}`, true);
  }
  await history;
}

load();
