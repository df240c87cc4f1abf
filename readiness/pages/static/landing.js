// The landing page: find an economy (search.js's matcher over every economy's name and code),
// the top and the bottom of the ranking, and this release's largest moves (the change report,
// GET /api/v1/rankings/changes), each from the public API as any client asks it; the map is
// map.js's. Then the API section's example commands, with this service's address, to copy.
// Without this script the search is the explorer's name search and the rest links to the API.
import { COMPOSITE, apiUrl, el, getJson, say, score } from "./api.js";
import { ranked } from "./search.js";
import { economyName, formatNumber, t } from "./i18n.js";

const CODE = "Country Code";
const NAME = "Country Name";
const RANK = "Global Rank";
const LISTED = 10; // economies at the top and at the bottom of the ranking
const MOVERS = 8;
const SUGGESTED = 8;

const profile = (code) => `/explore/${code}`;
const nameOf = (row) => economyName(row[CODE], row[NAME]);
const signed = (value) => `${value > 0 ? "+" : value < 0 ? "−" : "±"}${score(Math.abs(value))}`;

// The request behind a list, as a link: the page doubles as an example of the API.
function requestLink(path, params) {
  const url = apiUrl(path, params);
  return el("p", { class: "hint request" }, t("The request:"), " ", el("a", { href: url }, url));
}

// --- Find an economy ------------------------------------------------------------------------

const form = document.getElementById("find");
const input = document.getElementById("find-input");
const results = document.getElementById("find-results");
const findStatus = document.getElementById("find-status");
let economies = null;

function suggest() {
  const wanted = input.value.trim();
  if (!wanted || !economies) {
    results.hidden = true;
    results.replaceChildren();
    say(findStatus, "");
    return [];
  }
  const found = ranked(wanted, economies, (row) => row[CODE], nameOf);
  results.replaceChildren(...found.slice(0, SUGGESTED).map((row) => el("li", {},
    el("a", { href: profile(row[CODE]) }, nameOf(row)), el("span", { class: "iso" }, ` ${row[CODE]}`))));
  results.hidden = found.length === 0;
  const count = found.length;
  say(findStatus, count === 0 ? t("No economy matches “{text}”.", { text: wanted })
    : count === 1 ? t("1 economy matches.")
      : count > SUGGESTED ? t("{count} economies match; the first {listed} are listed.", { count, listed: SUGGESTED })
        : t("{count} economies match.", { count }));
  return found;
}

async function startSearch() {
  const answer = await getJson("/api/v1/readiness", { fields: `${CODE},${NAME}`, sort: NAME });
  economies = answer.data;
  input.addEventListener("input", suggest);
  // Enter opens the closest match's profile; with none, the explorer's search (the form as sent).
  form.addEventListener("submit", (event) => {
    const found = suggest();
    if (found.length > 0) {
      event.preventDefault();
      window.location.assign(profile(found[0][CODE]));
    }
  });
  suggest(); // text typed before the names arrived
}

// --- The top and the bottom of the ranking ---------------------------------------------------

function rankTable(rows, caption) {
  return el("table", { class: "rank-table" },
    el("caption", {}, caption),
    el("thead", {}, el("tr", {}, el("th", { scope: "col", class: "num" }, t("Rank")),
      el("th", { scope: "col" }, t("Economy")), el("th", { scope: "col", class: "num" }, t("Composite")))),
    el("tbody", {}, ...rows.map((row) => el("tr", { "data-code": row[CODE] },
      el("td", { class: "num" }, formatNumber(row[RANK])),
      el("th", { scope: "row" }, el("a", { href: profile(row[CODE]) }, nameOf(row))),
      el("td", { class: "num" }, score(row[COMPOSITE]))))));
}

async function drawRanking(target) {
  const order = target.dataset.order;
  const params = { sort: RANK, order, limit: LISTED, fields: `${CODE},${NAME},${COMPOSITE},${RANK}` };
  try {
    const answer = await getJson("/api/v1/readiness", params);
    const rows = answer.data.filter((row) => typeof row[RANK] === "number");
    const caption = order === "asc" ? t("Ranks 1 to {count}", { count: rows.length })
      : t("The {count} lowest ranks", { count: rows.length });
    target.replaceChildren(rankTable(rows, caption), requestLink("/api/v1/readiness", params));
  } catch (error) {
    target.replaceChildren(el("p", { class: "error" }, t("The ranking could not be loaded: {error}", { error: error.message })));
  }
}

// --- This release's largest moves -------------------------------------------------------------

function rankMove(row) {
  if (typeof row.rank_change !== "number") return t("not ranked");
  if (row.rank_change === 0) return t("rank {rank}, unchanged", { rank: row.rank_to });
  const values = { from: row.rank_from, to: row.rank_to, places: Math.abs(row.rank_change) };
  return row.rank_direction === "better" ? t("rank {from} → {to} (up {places})", values)
    : t("rank {from} → {to} (down {places})", values);
}

async function drawMovers(target) {
  const params = { limit: MOVERS };
  try {
    const answer = await getJson("/api/v1/rankings/changes", params);
    const rows = answer.data;
    if (rows.length === 0) {
      target.replaceChildren(el("p", {}, t("No economy is in both this snapshot and the one before it.")));
      return;
    }
    const { from, to } = rows[0];
    target.replaceChildren(
      el("table", { class: "movers-table" },
        el("caption", {}, t("Composite score, {from} to {to}: the largest changes", { from, to })),
        el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("Economy")),
          el("th", { scope: "col", class: "num" }, t("Change")), el("th", { scope: "col" }, t("Rank")))),
        el("tbody", {}, ...rows.map((row) => el("tr", { "data-code": row[CODE] },
          el("th", { scope: "row" }, el("a", { href: profile(row[CODE]) }, nameOf(row))),
          el("td", { class: `num move ${row.score_direction ?? ""}` },
            typeof row.score_change === "number" ? signed(row.score_change) : "–",
            el("span", { class: "to" }, " " + t("to {score}", { score: score(row.score_to) }))),
          el("td", {}, rankMove(row)))))),
      requestLink("/api/v1/rankings/changes", params));
  } catch (error) {
    target.replaceChildren(el("p", {}, t("No change report: {error}", { error: error.message })));
  }
}

// --- The API section's example commands --------------------------------------------------------

function examples() {
  const origin = window.location.origin;
  document.getElementById("paths-hint").hidden = true; // the commands now carry the address
  for (const code of document.querySelectorAll("code[data-path]")) {
    const command = `curl '${origin}${code.dataset.path}'`;
    code.textContent = command;
    const button = code.closest(".copyable").querySelector("button.copy");
    button.hidden = false;
    button.setAttribute("aria-label", t("Copy: {command}", { command }));
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(command);
        button.textContent = t("Copied");
      } catch {
        // No clipboard (an insecure origin, a refused permission): select the text instead.
        window.getSelection().selectAllChildren(code);
        button.textContent = t("Selected: press Ctrl+C");
      }
    });
  }
}

examples();
startSearch().catch((error) => say(findStatus, t("The search could not load the economies: {error}", { error: error.message }), true));
drawRanking(document.getElementById("top"));
drawRanking(document.getElementById("bottom"));
drawMovers(document.getElementById("movers"));
