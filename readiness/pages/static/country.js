// One economy's view (/explore/{ISO3}) and its embed (/embed/explore/{ISO3}): its record with
// indicators (GET /api/v1/readiness?code=...), every economy's scores for the world and region
// means, percentiles, peers and bands (GET /api/v1/readiness?fields=...), both of the snapshot
// the URL chooses (?year= or ?snapshot=, snapshot.js), and its scores across snapshots
// (GET /api/v1/history?code=...), each drawn as the API answered. The embed has fewer sections:
// each part is drawn when the page has its place.
import { COMPOSITE, DIMENSIONS, apiUrl, bar, el, getJson, number, say, score } from "./api.js";
import { lineChart } from "./chart.js";
import { chartTools } from "./export.js";
import { chosenSnapshot, entryOf, sayShown, snapshotSelector, snapshots, withSnapshot } from "./snapshot.js";
import { economyName, formatDate, formatNumber, indicatorName as named, lang, t, word } from "./i18n.js";
import {
  AGAINST_WORDS, IMPUTED_PREFIX, SCORES, bandCounts, bandOf as bandIn, ordinal, peers, quality, ranked, standings,
  strengthsAndGaps,
} from "./profile.js";

const heading = document.getElementById("country");
const code = heading.dataset.code;
const name = heading.textContent;
const embedded = heading.dataset.view === "embed";
const status = document.getElementById("status");
const place = (id) => document.getElementById(id);
// The bands, as the server wrote them into the page from their one definition (readiness/domain/bands.py).
const BANDS = JSON.parse(place("bands-data").textContent);
const TABLE_FIELDS = ["Country Code", "Country Name", "Region", "Microstate", "Global Rank", "Regional Rank",
  ...SCORES.map(([field]) => field)];

const bandOf = (value) => bandIn(value, BANDS);
// An indicator's name in the page's language (the catalogue's words of the data), else the API's.
const indicatorName = (item) => named(item.indicator_code, item.indicator_name);
// "31st" as the API writes a percentile, in the page's language ("第 31").
const percentileWords = (text) => {
  const n = Number.parseInt(String(text ?? ""), 10);
  return Number.isNaN(n) ? (text || "–") : ordinal(n);
};

// ``path`` with the snapshot the page's URL chooses: a peer's page, the embed, the link back.
function withChoice(path) {
  const query = new URLSearchParams(chosenSnapshot()).toString();
  return query ? `${path}?${query}` : path;
}
const signed = (value) => `${value > 0 ? "+" : value < 0 ? "−" : "±"}${score(Math.abs(value))}`;

function drawSummary(country) {
  const target = place("summary");
  if (!target) return;
  const fcv = country["FCV Status"]
    ? t("fragile or conflict-affected ({type})", { type: word(country["FCV Type"]) || t("FCV") })
    : t("not fragile or conflict-affected");
  const micro = country["Microstate"] ? t(" · microstate (scored, not ranked)") : "";
  target.replaceChildren(
    el("span", {}, [word(country["Region"]), word(country["Income Level"]) || t("income group unknown"), fcv].join(" · ") + micro),
    el("span", { class: "about" }, t("Population {people} · data published", { people: people(country["Population, total"]) }), " ",
      el("time", { datetime: country["Last Updated"] ?? "", "data-published": "" },
        country["Last Updated"] ? formatDate(country["Last Updated"]) : "—")));
}

// A population as people say it: "54.0 million", "1.42 billion", "109,250".
// In Chinese, as Chinese counts: in 亿 (10^8) and 万 (10^4).
function people(count) {
  if (typeof count !== "number") return t("unknown");
  if (!lang.startsWith("en")) {
    if (count >= 1e8) return t("{count} hundred million", { count: (count / 1e8).toLocaleString(lang, { maximumFractionDigits: 2 }) });
    if (count >= 1e4) return t("{count} ten thousand", { count: (count / 1e4).toLocaleString(lang, { maximumFractionDigits: 1 }) });
    return count.toLocaleString(lang);
  }
  if (count >= 1e9) return `${(count / 1e9).toLocaleString("en", { maximumFractionDigits: 2 })} billion`;
  if (count >= 1e6) return `${(count / 1e6).toLocaleString("en", { minimumFractionDigits: 1, maximumFractionDigits: 1 })} million`;
  return count.toLocaleString("en");
}

function fact(term, ...value) {
  return el("div", {}, el("dt", {}, term), el("dd", {}, ...value));
}

function rankWords(country, table) {
  if (typeof country["Global Rank"] === "number") {
    return t("{rank} of {count}", { rank: formatNumber(country["Global Rank"]), count: formatNumber(ranked(table).length) });
  }
  return country["Microstate"] ? t("— (a microstate: not ranked)") : t("— (not ranked)");
}

// The headline: composite, band, global rank.
function drawHeadline(country, table) {
  const band = bandOf(country[COMPOSITE]);
  place("headline").replaceChildren(
    fact(t("Composite (0–100)"), el("span", { "data-composite": "" }, score(country[COMPOSITE]))),
    fact(t("Band"), band ? el("span", { class: `band-chip b${BANDS.indexOf(band)}`, "data-band": "" }, band.name) : t("none")),
    fact(t("Global rank"), rankWords(country, table)));
}

function againstCell(standing) {
  if (!standing.against) return el("td", {}, "–");
  const { word, difference } = standing.against;
  return el("td", { "data-against": word },
    el("span", { class: `against ${word}` }, AGAINST_WORDS[word]), ` (${signed(difference)})`);
}

function drawScores(country, table, rows) {
  const regionHeader = place("region-mean");
  if (regionHeader) regionHeader.textContent = t("{region} mean", { region: word(country["Region"]) });
  document.querySelector("#scores tbody").replaceChildren(...rows.map((row) =>
    el("tr", { "data-field": row.field },
      el("th", { scope: "row" }, row.label),
      el("td", { class: "num" }, bar(row.value, "own")),
      embedded ? null : el("td", { class: "num" }, bar(row.region, "region")),
      el("td", { class: "num" }, bar(row.world, "world")),
      againstCell(row),
      embedded ? null : el("td", { class: "num", "data-percentile": row.percentile ?? "" },
        row.percentile === null ? "—" : ordinal(row.percentile)))));
  const ranks = place("ranks");
  if (!ranks) return;
  const region = table.filter((record) => record["Region"] === country["Region"]);
  const rankedInRegion = ranked(region).length;
  ranks.replaceChildren(
    fact(t("Global rank"), rankWords(country, table)),
    fact(t("Regional rank"), typeof country["Regional Rank"] === "number"
      ? t("{rank} of {count} in {region}", { rank: country["Regional Rank"], count: rankedInRegion, region: word(country["Region"]) })
      : t("— (not ranked)")));
}

function drawWords(rows) {
  const target = place("words");
  if (!target) return;
  target.replaceChildren(...strengthsAndGaps(name, rows).map((sentence) => el("p", {}, sentence)));
}

// The region's economies, best first, this one highlighted; a microstate's rank is "—".
function drawPeers(country, table) {
  const target = document.querySelector("#peers tbody");
  if (!target) return;
  const list = peers(country, table);
  target.replaceChildren(...list.map((record) => {
    const self = record["Country Code"] === code;
    const band = bandOf(record[COMPOSITE]);
    const micro = record["Microstate"];
    return el("tr", { class: self ? "self" : null, "data-code": record["Country Code"], "aria-current": self ? "true" : null },
      el("th", { scope: "row" },
        el("a", { href: withChoice(`/explore/${record["Country Code"]}`) }, economyName(record["Country Code"], record["Country Name"])),
        self ? el("span", { class: "self-mark" }, t(" (this economy)")) : null,
        micro ? el("span", { class: "micro-mark" }, t("microstate")) : null),
      el("td", { class: "num" }, score(record[COMPOSITE])),
      el("td", {}, band ? band.name : "–"),
      el("td", { class: "num", "data-rank": "" }, typeof record["Global Rank"] === "number" ? String(record["Global Rank"]) : "—"));
  }));
  const micro = list.filter((record) => record["Microstate"]);
  const microNames = micro.map((r) => economyName(r["Country Code"], r["Country Name"])).join(t(", "));
  place("peers-note").replaceChildren(micro.length
    ? (micro.length === 1 ? t("One economy of the region is a microstate ({names})", { names: microNames })
      : t("{count} economies of the region are microstates ({names})", { count: micro.length, names: microNames }))
      + t(": economies under 300,000 people are scored, and so have a band, but are never ranked, so their global rank is “—”.")
    : t("No economy of {region} is a microstate: every one with a composite is ranked.", { region: word(country["Region"]) }));
  place("peers-note").append(" ", el("a", { href: "/method#microstates" }, t("Why microstates are not ranked")), t("."));
}

const BIN = 5; // the histogram's bins are 5 points wide: each lies in one band (bounds 40, 60, 75)

// Economies per band, the histogram of composites with this economy's place, and the words.
function drawDistribution(country, table) {
  const target = document.querySelector("#distribution tbody");
  if (!target) return;
  const withComposite = table.filter((record) => typeof record[COMPOSITE] === "number");
  const counts = bandCounts(table, BANDS);
  const own = bandOf(country[COMPOSITE]);
  target.replaceChildren(...counts.map(({ band, count }) => el("tr", { class: band === own ? "self" : null, "data-band": band.name },
    el("th", { scope: "row" }, el("span", { class: `band-chip b${BANDS.indexOf(band)}` }, band.name),
      band === own ? el("span", { class: "self-mark" }, ` (${name})`) : null),
    el("td", {}, band.range),
    el("td", { class: "num", "data-count": "" }, String(count)),
    el("td", { class: "num" }, `${number((100 * count) / withComposite.length, 1)}%`))));
  const higher = withComposite.filter((record) => record[COMPOSITE] > country[COMPOSITE]).length;
  place("distribution-words").textContent = own
    ? t("{name}'s composite, {score}, is in the {band} band, with {count} of the {all} economies with a composite; {higher} of them (microstates included) score higher.",
      { name, score: score(country[COMPOSITE]), band: own.name, count: counts.find((c) => c.band === own).count,
        all: withComposite.length, higher })
    : t("{name} has no composite in this snapshot, so no band.", { name });

  const bins = Array.from({ length: 100 / BIN }, (_, index) => ({ from: index * BIN, count: 0 }));
  for (const record of withComposite) bins[Math.min(bins.length - 1, Math.floor(record[COMPOSITE] / BIN))].count += 1;
  const tallest = Math.max(1, ...bins.map((b) => b.count));
  const ownBin = own ? Math.min(bins.length - 1, Math.floor(country[COMPOSITE] / BIN)) : -1;
  const columns = bins.map((b, index) => {
    const column = el("span", { class: `column b${BANDS.indexOf(bandOf(b.from))}${index === ownBin ? " own" : ""}` });
    column.style.height = `${(100 * b.count) / tallest}%`;
    return column;
  });
  const marker = own ? el("span", { class: "marker" }, el("span", {}, `${name} ${score(country[COMPOSITE])}`)) : null;
  if (marker) {
    marker.style.left = `${Math.max(0, Math.min(100, country[COMPOSITE]))}%`;
    marker.classList.toggle("flip", country[COMPOSITE] > 65); // its label to the left, inside the plot
  }
  const axis = el("div", { class: "axis", "aria-hidden": "true" },
    [0, 40, 60, 75, 100].map((tick) => {
      const label = el("span", {}, String(tick));
      label.style.left = `${tick}%`;
      return label;
    }));
  place("distribution-chart").replaceChildren(el("div", {
    class: "histogram", role: "img",
    "aria-label": t("Histogram of the composites of {count} economies in {bin}-point bins, coloured by band", { count: withComposite.length, bin: BIN }) +
      (own ? t("; {name}, {score}, is in the {from} to {to} bin, {band} band.", { name, score: score(country[COMPOSITE]),
        from: ownBin * BIN, to: ownBin * BIN + BIN, band: own.name }) : t(".")),
  }, el("div", { class: "plot", "aria-hidden": "true" }, columns, marker), axis));
}

function drawQuality(details) {
  const target = place("quality");
  if (!target) return;
  const { scored, imputed, missing } = quality(details);
  const reported = scored.length - imputed.length - missing.length;
  const years = scored.filter((item) => !imputed.includes(item) && typeof item.year === "number").map((item) => item.year);
  const counts = { name, scored: scored.length, reported, imputed: imputed.length, missing: missing.length };
  const parts = [el("p", { id: "quality-words" },
    t("Of {name}'s {scored} scored indicators, {reported} are reported values,", counts) + " " +
    (imputed.length === 1 ? t("{imputed} was imputed", counts) : t("{imputed} were imputed", counts)) + " " +
    (missing.length === 1 ? t("and {missing} has no value.", counts) : t("and {missing} have no value.", counts)) +
    (years.length ? " " + t("The reported values are from {from} to {to}.", { from: Math.min(...years), to: Math.max(...years) }) : ""))];
  if (imputed.length) {
    parts.push(el("p", {}, t("Imputed (filled from a median of similar economies, as the builder's note says):")),
      el("ul", { id: "imputed-list", class: "imputed-list" }, imputed.map((item) => el("li", { "data-code": item.indicator_code },
        el("span", { class: "imputed-mark" }, t("Imputed")), " ", el("strong", {}, indicatorName(item)),
        ` (${item.indicator_code}, ${word(item.component)}): `,
        word(String(item.data_source).slice(IMPUTED_PREFIX.length).replace(/^:\s*/, "")),
        item.notes ? el("span", { class: "note", lang: "en" }, item.notes) : null))));
  }
  if (missing.length) {
    parts.push(el("p", {}, t("No value, so not counted in its dimension score:")),
      el("ul", { id: "missing-list" }, missing.map((item) => el("li", {}, `${indicatorName(item)} (${item.indicator_code})`,
        item.notes ? el("span", { class: "note", lang: "en" }, item.notes) : null))));
  }
  parts.push(el("p", { class: "hint" }, t("Every indicator, with its source and note, is in the table below;"), " ",
    el("a", { href: "/method#imputation" }, t("how values are imputed")), t(".")));
  target.replaceChildren(...parts);
}

function drawIndicators(details) {
  const target = document.querySelector("#indicators tbody");
  if (!target) return;
  target.replaceChildren(...details.map((item) => {
    const source = String(item.data_source || "");
    const imputed = source.startsWith(IMPUTED_PREFIX);
    // The builder's note is free text of the data: it stays in English, and says so (lang="en").
    const sourceCell = el("td", {}, imputed ? el("span", { class: "imputed-mark" }, t("Imputed")) : null,
      imputed ? ` ${word(source.slice(IMPUTED_PREFIX.length).replace(/^:\s*/, ""))}` : word(source),
      item.notes ? el("span", { class: "note", lang: "en" }, item.notes) : null);
    return el("tr", { class: imputed ? "imputed" : null },
      el("th", { scope: "row" }, indicatorName(item), el("span", { class: "code" }, item.indicator_code)),
      el("td", {}, word(item.component) || "–"),
      el("td", { class: "num" }, item.year ?? "–"),
      el("td", { class: "num" }, number(item.reported_value)),
      el("td", {}, bar(item.normalized_value)),
      el("td", {}, percentileWords(item.global_percentile) + t(", ") + percentileWords(item.regional_percentile)),
      sourceCell);
  }));
}

// One of ``parts`` equal shares, as the method page writes it: "1/4 (25%)".
function share(parts) {
  return `1/${parts} (${number(100 / parts)}%)`;
}

// The arithmetic of a mean, as a reader checks it: "mean of 4 values: (a + b + c + d) ÷ 4 = ".
// ``noun``: "value" or "dimension score".
function meanOf(values, noun) {
  const sum = `(${values.map(score).join(" + ")}) ÷ ${values.length} = `;
  if (noun === "value") {
    if (!values.length) return t("no value to average: ");
    return (values.length === 1 ? t("mean of 1 value: ") : t("mean of {count} values: ", { count: values.length })) + sum;
  }
  if (!values.length) return t("no dimension score to average: ");
  return t("mean of {count} dimension scores: ", { count: values.length }) + sum;
}

// How the composite is built: each dimension's normalized values (imputed ones marked), their
// mean (the published dimension score), then the mean of the five scores and its band.
function drawBuild(country) {
  if (!place("build")) return;
  const details = country.indicator_details || [];
  const groups = DIMENSIONS.map(([field, label]) => {
    const dimension = field.replace(/ Score$/, ""); // indicator_details name it by its component
    const items = details.filter((item) => item.component === dimension);
    const counted = items.filter((item) => typeof item.normalized_value === "number").map((item) => item.normalized_value);
    const rows = items.map((item) => {
      const imputed = String(item.data_source || "").startsWith(IMPUTED_PREFIX);
      const counts = typeof item.normalized_value === "number";
      return el("tr", { class: imputed ? "imputed" : null },
        el("th", { scope: "row" }, indicatorName(item), imputed ? [" ", el("span", { class: "imputed-mark" }, t("Imputed"))] : null,
          el("span", { class: "code" }, item.indicator_code)),
        el("td", { class: "num", "data-value": counts ? item.normalized_value : null }, score(item.normalized_value)),
        el("td", { class: "num" }, counts ? share(counted.length) : t("not counted")),
        el("td", { class: "num" }, counts ? share(DIMENSIONS.length * counted.length) : t("not counted")));
    });
    return el("tbody", { "data-dimension": dimension },
      el("tr", { class: "group" }, el("th", { scope: "rowgroup", colspan: 4 }, label)),
      rows,
      el("tr", { class: "mean" }, el("th", { scope: "row" }, t("{dimension} score", { dimension: label })),
        el("td", { colspan: 3 }, meanOf(counted, "value"), el("strong", { "data-score": "" }, score(country[field])))));
  });
  document.querySelectorAll("#build tbody").forEach((old) => old.remove());
  place("build").append(...groups);

  const scores = DIMENSIONS.map(([field]) => country[field]);
  const complete = scores.every((value) => typeof value === "number");
  document.querySelector("#composite tbody").replaceChildren(
    ...DIMENSIONS.map(([field, label]) => el("tr", {}, el("th", { scope: "row" }, t("{dimension} score", { dimension: label })),
      el("td", { class: "num", "data-value": country[field] ?? null }, score(country[field])),
      el("td", { class: "num" }, share(DIMENSIONS.length)))),
    el("tr", { class: "mean" }, el("th", { scope: "row" }, t("Composite")),
      el("td", { colspan: 2 }, complete ? meanOf(scores, "dimension score") : t("no composite: a dimension has no score "),
        el("strong", { "data-score": "" }, score(country[COMPOSITE])))));
  const band = bandOf(country[COMPOSITE]);
  place("band").replaceChildren(...(band
    ? [t("Band:"), " ", el("strong", {}, band.name), " ", t("(a composite {range})", { range: band.range })]
    : [t("No band: there is no composite.")]));
}


function drawHistory(rows) {
  const target = place("history");
  if (!rows.length) {
    target.replaceChildren(el("p", {}, t("No snapshot has scores for this economy.")));
    return;
  }
  const labels = rows.map((row) => row.snapshot);
  const series = SCORES.map(([field, label], index) => ({
    label, className: `s${index}`, values: rows.map((row) => row[field]),
  }));
  const legend = el("ul", { class: "legend" }, series.map((line) => el("li", { class: `series ${line.className}` },
    el("span", { class: "swatch", "aria-hidden": "true" }), line.label)));
  const table = el("table", { class: "history" },
    el("caption", {}, t("{name}'s scores by snapshot", { name })),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("Snapshot")),
      SCORES.map(([, label]) => el("th", { scope: "col", class: "num" }, label)),
      el("th", { scope: "col", class: "num" }, t("Global rank")))),
    el("tbody", {}, rows.map((row) => el("tr", {}, el("th", { scope: "row" }, row.snapshot),
      SCORES.map(([field]) => el("td", { class: "num" }, number(row[field]))),
      el("td", { class: "num" }, number(row["Global Rank"], 0))))));
  const title = t("{name}'s scores from {from} to {to}", { name, from: labels[0], to: labels.at(-1) });
  const chart = lineChart(labels, series, title);
  const tools = embedded ? null : chartTools({
    chart: () => chart,
    name: () => `${code.toLowerCase()}-history`,
    csv: () => apiUrl("/api/v1/history", { code, format: "csv" }),
    permalink: () => window.location.href,
    embed: () => withChoice(`/embed/explore/${code}`),
    title: () => t("{name}: readiness scores across snapshots", { name }),
  });
  const numbers = el("details", {}, el("summary", {}, t("The numbers")), el("div", { class: "table-wrap" }, table));
  target.replaceChildren(...[chart, legend, tools, numbers].filter(Boolean));
}

async function loadHistory() {
  try {
    const answer = await getJson("/api/v1/history", { code });
    drawHistory(answer.data);
  } catch (error) {
    place("history").replaceChildren(el("p", {}, t("No history: {error}", { error: error.message })));
  }
}

function showParts(visible) {
  for (const part of document.querySelectorAll(".snapshot-part")) part.hidden = !visible;
}

// Say which snapshot the page shows, in its words ("2024-12 (published 2024-12-05)").
function sayShowing(entry) {
  if (!entry) return;
  const date = formatDate(entry.published);
  place("showing")?.replaceChildren(t("Showing snapshot"), " ", el("span", { "data-snapshot": "" }, entry.id), " ",
    entry.current ? t("(the current one, published {date}).", { date }) : t("(published {date}).", { date }));
  sayShown(entry);
}

let latest = 0;

// Draw every section of the snapshot ``chosen`` ({year} or {snapshot} or nothing): all but the history.
async function load(chosen) {
  const mine = ++latest;
  say(status, t("Loading…"));
  try {
    const [one, all, list] = await Promise.all([
      getJson("/api/v1/readiness", { code, ...chosen }),
      getJson("/api/v1/readiness", { fields: TABLE_FIELDS.join(","), ...chosen }),
      snapshots(),
    ]);
    if (mine !== latest) return;
    const entry = one.snapshot === "current" ? list.find((candidate) => candidate.current)
      : list.find((candidate) => candidate.id === one.snapshot);
    sayShowing(entry);
    const country = one.data;
    if (!country || Array.isArray(country)) {
      showParts(false);
      say(status, t("{name} is not in snapshot {snapshot}: that snapshot has no record of it.", { name, snapshot: entry ? entry.id : one.snapshot })
        + " " + t("Choose another snapshot; its history below lists the snapshots that have it."), true);
      return;
    }
    const rows = standings(country, all.data);
    drawSummary(country);
    drawHeadline(country, all.data);
    drawScores(country, all.data, rows);
    drawWords(rows);
    drawPeers(country, all.data);
    drawDistribution(country, all.data);
    drawQuality(country.indicator_details || []);
    drawIndicators(country.indicator_details || []);
    drawBuild(country);
    showParts(true);
    say(status, "");
  } catch (error) {
    if (mine !== latest) return;
    showParts(false);
    place("showing")?.replaceChildren(t("No snapshot shown."));
    say(status, t("The API refused the request: {error}", { error: error.message }), true);
  }
}

async function start() {
  const history = loadHistory();
  if (embedded) {
    const back = document.querySelector("footer.site a");
    if (back) back.href = withChoice(`/explore/${code}`);
    await load(chosenSnapshot());
  } else {
    const container = place("snapshot-choice");
    const selector = snapshotSelector(container, (params) => {
      window.history.pushState(null, "", withSnapshot(params));
      load(params);
    }).catch((error) => say(status, t("No snapshot list: {error}", { error: error.message }), true));
    window.addEventListener("popstate", async () => {
      const select = container.querySelector("select");
      const shown = entryOf(await snapshots(), chosenSnapshot());
      if (select && shown) select.value = shown.id;
      load(chosenSnapshot());
    });
    await Promise.all([selector, load(chosenSnapshot())]);
  }
  await history;
}

start();
