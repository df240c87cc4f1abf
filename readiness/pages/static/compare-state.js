// The compare page's view as its URL says it (codes, score, means, years), in the API's words:
// reading a query string (and saying what it cannot use), writing the canonical one, and the
// snapshots a years value shows.
import { COMPOSITE, DIMENSIONS } from "./api.js";
import { t, urlLanguage } from "./i18n.js";

export const MAX_ECONOMIES = 8;
const ALIASES = {
  [COMPOSITE]: "score", "Infrastructure Score": "infra", "Human Capital Score": "human",
  "School Access and Gender Parity Score": "access", "Innovation Score": "innovation", "Governance Score": "governance",
};
// The scores a reader can choose: the URL names them by the API's alias (score=infra).
export const SCORES = [[COMPOSITE, t("Composite readiness score")],
  ...DIMENSIONS.map(([field, label]) => [field, t("{dimension} score", { dimension: label })])]
  .map(([field, label]) => ({ field, label, alias: ALIASES[field] }));
export const MEANS = ["region", "world"];
const PARAMETERS = ["codes", "code", "score", "means", "years", "year", "snapshot", "lang"];

export const scoreOf = (alias) => SCORES.find((entry) => entry.alias === alias) ?? SCORES[0];
// "a", "a and b", "a, b and c".
export const list = (items) => (items.length < 2 ? items.join("")
  : t("{list} and {last}", { list: items.slice(0, -1).join(t(", ")), last: items.at(-1) }));
export const historyEntries = (catalogue) => catalogue.filter((entry) => entry.selectable || entry.current)
  .sort((a, b) => a.id.localeCompare(b.id));

// The view a query string asks for, and what it says that the page cannot use (each said).
export function readState(search) {
  const params = new URLSearchParams(search);
  const problems = [];
  const codes = [];
  for (const name of ["code", "codes"]) {
    for (const value of params.getAll(name)) {
      for (const part of value.split(",")) {
        const code = part.trim().toUpperCase();
        if (code && !codes.includes(code)) codes.push(code);
      }
    }
  }
  if (codes.length > MAX_ECONOMIES) {
    problems.push(t("Compare shows at most eight economies: {codes} left out.", { codes: list(codes.slice(MAX_ECONOMIES)) }));
  }
  let alias = "score";
  const asked = (params.get("score") ?? "").trim();
  if (asked) {
    const wanted = asked.toLowerCase();
    const found = SCORES.find((entry) => entry.alias === wanted || entry.field.toLowerCase() === wanted);
    if (found) alias = found.alias;
    else problems.push(t("score={asked} is not a score; use {aliases} (or a score's name). Showing the composite.",
      { asked, aliases: SCORES.map((entry) => entry.alias).join(", ") }));
  }
  const means = [];
  for (const part of (params.get("means") ?? "").split(",")) {
    const mean = part.trim().toLowerCase();
    if (!mean) continue;
    if (MEANS.includes(mean)) means.push(mean);
    else problems.push(t("means={asked} is not a mean this page draws; use region, world or both.", { asked: part.trim() }));
  }
  const unknown = [...new Set(params.keys())].filter((name) => !PARAMETERS.includes(name));
  for (const name of unknown) {
    problems.push(t("{name}= is not a parameter of this page, which takes codes, score, means and years.", { name }));
  }
  return {
    state: { codes: codes.slice(0, MAX_ECONOMIES), score: alias, means: MEANS.filter((mean) => means.includes(mean)),
      years: (params.get("years") ?? "").trim() },
    pin: { year: (params.get("year") ?? "").trim(), snapshot: (params.get("snapshot") ?? "").trim() },
    problems,
  };
}

// The canonical query string of a view: the parameters that differ from the default, in one order.
export function searchOf(view) {
  const pairs = [];
  if (view.codes.length) pairs.push(["codes", view.codes.join(",")]);
  if (view.score !== "score") pairs.push(["score", view.score]);
  if (view.means.length) pairs.push(["means", view.means.join(",")]);
  if (view.years) pairs.push(["years", view.years]);
  if (urlLanguage()) pairs.push(["lang", urlLanguage()]); // the page's language, as its address chose it
  const encoded = (value) => encodeURIComponent(value).replace(/%2C/g, ",").replace(/%3A/g, ":");
  const text = pairs.map(([name, value]) => `${name}=${encoded(value)}`);
  return text.length ? `?${text.join("&")}` : "";
}

// year=Y and snapshot=ID, the other pages' way to pin a snapshot, become the years up to it here:
// the compare page shows time, so the snapshot chosen is the last one shown.
export function pinned(pin, years, entries, catalogue) {
  if (!pin.year && !pin.snapshot) return { years, problems: [] };
  const [name, value] = pin.year ? ["year", pin.year] : ["snapshot", pin.snapshot];
  if (years) return { years, problems: [t("{name}={value} left out: years={years} already chooses the snapshots.", { name, value, years })] };
  const entry = entries.find((candidate) => (pin.year ? String(candidate.year) === value : candidate.id === value));
  if (!entry) {
    const listed = catalogue.some((candidate) => candidate.id === value);
    const values = { name, value, every: list(entries.map((e) => e.id)) };
    return { years, problems: [listed
      ? t("{name}={value} is not one compare shows (the December archives and the current snapshot); showing every one of {every}.", values)
      : t("{name}={value} is not a snapshot history shows; showing every one of {every}.", values)] };
  }
  const first = entries[0].year;
  return { years: entry.year === first ? String(first) : `${first}:${entry.year}`, problems: [] };
}

// The snapshots a years value shows (null for a value the API will refuse with its own message).
export function entriesIn(years, entries) {
  if (!years) return entries;
  const match = /^(\d{4})(?::(\d{4}))?$/.exec(years);
  if (!match) return null;
  const [from, to] = [Number(match[1]), Number(match[2] ?? match[1])];
  const shown = entries.filter((entry) => entry.year >= from && entry.year <= to);
  return shown.length ? shown : null;
}

export function yearsOf(entries, from, to) {
  const years = entries.map((entry) => entry.year);
  if (from === years[0] && to === years.at(-1)) return "";
  return from === to ? String(from) : `${from}:${to}`;
}
