// The numbers of a country profile, computed from the API's table of one snapshot (every
// economy's scores, GET /api/v1/readiness?fields=...): where each score stands against the
// world, the strengths and gaps in words, the region's peers, the economies per band and the
// data-quality notes. Pure functions: the country page (country.js) draws what they return,
// and the rules are docs/METHOD.md#the-country-profile.
import { COMPOSITE, DIMENSIONS, score } from "./api.js";
import { lang, t } from "./i18n.js";

export const SCORES = [[COMPOSITE, t("Composite")], ...DIMENSIONS];
export const IMPUTED_PREFIX = "Imputed"; // builder/changes.py: data_source of an imputed value
export const NEAR_POINTS = 2.5; // "near" the world average: at most this many points away

const hundredths = (value) => Math.round(value * 100);

// The plain mean of a field over the records that have a number there (null for none).
export function mean(records, field) {
  const values = records.map((record) => record[field]).filter((value) => typeof value === "number");
  return values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : null;
}

// Ranked economies: those with a Global Rank (non-microstates with a composite, METHOD step 9).
export function ranked(table) {
  return table.filter((record) => typeof record["Global Rank"] === "number");
}

// "1st", "2nd", "3rd", "4th", "11th", "21st", "112th": as the method writes percentiles.
// A language without English's suffixes takes the catalogue's form ("第 31").
export function ordinal(n) {
  if (!lang.startsWith("en")) return t("No. {n}", { n });
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] ?? "th");
  return `${n}${suffix}`;
}

// The percentile of ``value`` among ``values``, by the method's rule for indicators (step 10):
// the share at or below it, x 100, rounded half up, at least 1. Integer arithmetic, so exact.
export function percentile(value, values) {
  if (typeof value !== "number" || !values.length) return null;
  const atOrBelow = values.filter((other) => other <= value).length;
  return Math.max(1, Math.floor((200 * atOrBelow + values.length) / (2 * values.length)));
}

// Above, near or below the world average: near when the score and the average as shown (both
// to two decimals) are at most NEAR_POINTS apart.
export function against(value, average) {
  if (typeof value !== "number" || typeof average !== "number") return null;
  const difference = (hundredths(value) - hundredths(average)) / 100;
  if (Math.abs(difference) <= NEAR_POINTS) return { word: "near", difference };
  return { word: difference > 0 ? "above" : "below", difference };
}

// Each score of ``country`` (the composite, then the five dimensions) against its region and
// the world: the means, above/near/below and its percentile among ranked economies (none for a
// microstate, which the method never gives a percentile).
export function standings(country, table) {
  const region = table.filter((record) => record["Region"] === country["Region"]);
  const rankedTable = ranked(table);
  return SCORES.map(([field, label]) => {
    const value = country[field];
    const world = mean(table, field);
    const rankedValues = rankedTable.map((record) => record[field]).filter((other) => typeof other === "number");
    return {
      field, label, value, world,
      region: mean(region, field),
      against: against(value, world),
      percentile: country["Microstate"] ? null : percentile(value, rankedValues),
    };
  });
}

// A score in words: "Governance (29.10, 20th percentile)" or, for a microstate, with its
// distance from the world average instead.
function described(standing) {
  const points = score(Math.abs(standing.against.difference));
  const where = standing.percentile !== null
    ? t("{ordinal} percentile", { ordinal: ordinal(standing.percentile) })
    : standing.against.word === "below" ? t("{points} points below the world average", { points })
      : t("{points} points above the world average", { points });
  return t("{dimension} ({score}, {where})", { dimension: standing.label, score: score(standing.value), where });
}

// The dimensions ordered from the strongest to the weakest relative to the world: by
// percentile among ranked economies, ties by the difference from the world average; a
// microstate (no percentile) by that difference alone.
export function strongestFirst(rows) {
  const dimensions = rows.filter((row) => row.field !== COMPOSITE && typeof row.value === "number" && row.against);
  return [...dimensions].sort((a, b) => ((b.percentile ?? 0) - (a.percentile ?? 0))
    || (b.against.difference - a.against.difference));
}

const COUNTS = [t("none"), t("one"), t("two"), t("three"), t("four"), t("five")];

// The words of above, near and below the world average: in the scores table and the sentences.
export const AGAINST_WORDS = { above: t("above"), near: t("near"), below: t("below") };

function listed(labels) {
  if (labels.length <= 1) return labels.join("");
  return t("{list} and {last}", { list: labels.slice(0, -1).join(t(", ")), last: labels.at(-1) });
}

// The strengths and gaps in words, from the numbers: two sentences.
export function strengthsAndGaps(name, rows) {
  const order = strongestFirst(rows);
  if (order.length < 2) return [t("{name} has too few dimension scores to compare.", { name })];
  const first = t("{name}'s strongest dimension is {strongest}; its largest gap is {gap}.",
    { name, strongest: described(order[0]), gap: described(order.at(-1)) });
  const inOrder = rows.filter((row) => order.includes(row)); // the dimensions in the table's order
  const phrases = {
    above: (count, list) => t("above it in {count} ({list})", { count, list }),
    near: (count, list) => t("near it in {count} ({list})", { count, list }),
    below: (count, list) => t("below it in {count} ({list})", { count, list }),
  };
  const groups = ["above", "near", "below"].map((word) => [word, inOrder.filter((row) => row.against.word === word)])
    .filter(([, members]) => members.length)
    .map(([word, members]) => phrases[word](COUNTS[members.length], listed(members.map((m) => m.label))));
  const second = t("Against the world average, {name} is {groups}.", { name, groups: listed(groups) });
  return [first, second];
}

// The band of a composite: the first band, from the top, whose floor the score reaches.
export function bandOf(value, bands) {
  if (typeof value !== "number") return null;
  return bands.find((band) => value >= band.floor) ?? bands.at(-1);
}

// Economies per band (every economy with a composite, microstates included: they have a band).
export function bandCounts(table, bands) {
  const counts = new Map(bands.map((band) => [band.name, 0]));
  for (const record of table) {
    const band = bandOf(record[COMPOSITE], bands);
    if (band) counts.set(band.name, counts.get(band.name) + 1);
  }
  return bands.map((band) => ({ band, count: counts.get(band.name) }));
}

// The economies of ``country``'s region, best composite first (then by name); null composites last.
export function peers(country, table) {
  return table.filter((record) => record["Region"] === country["Region"]).sort((a, b) =>
    ((b[COMPOSITE] ?? -1) - (a[COMPOSITE] ?? -1)) || String(a["Country Name"]).localeCompare(String(b["Country Name"])));
}

// The data-quality facts of a record's indicator_details: the scored indicators (those with a
// dimension), the imputed ones (data_source "Imputed: ...") and those with no value at all.
export function quality(details) {
  const scored = details.filter((item) => item.component);
  return {
    scored,
    imputed: scored.filter((item) => String(item.data_source || "").startsWith(IMPUTED_PREFIX)),
    missing: scored.filter((item) => typeof item.normalized_value !== "number"),
  };
}
