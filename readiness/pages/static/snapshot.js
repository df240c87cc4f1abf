// Time on every page: which snapshot a page shows, chosen in its URL as the API chooses it
// (?year=2024 for that December archive, ?snapshot=2024-06 for any listed one, neither for the
// current snapshot), a selector that changes it, and the words that say which one is shown.
import { el, getJson } from "./api.js";
import { formatDate, t } from "./i18n.js";

// In the order the API reads them: given together, year= chooses, as the API's answer does.
export const SNAPSHOT_PARAMETERS = ["year", "snapshot"];

// The snapshot parameters of the page's URL, as given: the API validates them, and its message
// is what a page shows for a bad one (never a silent fallback to the current snapshot).
export function chosenSnapshot(search = window.location.search) {
  const params = new URLSearchParams(search);
  const chosen = {};
  for (const name of SNAPSHOT_PARAMETERS) {
    const value = params.get(name);
    if (value !== null && value.trim() !== "") chosen[name] = value.trim();
  }
  return chosen;
}

let catalogue = null;

// GET /api/v1/snapshots once per page: the snapshots there are, newest first.
export async function snapshots() {
  catalogue ??= getJson("/api/v1/snapshots");
  return (await catalogue).data;
}

// The catalogue entry a choice names (current for none), or undefined for a choice the
// catalogue does not list (the API answers that with its own 404 or 400).
export function entryOf(list, chosen) {
  if (chosen.year) return list.find((entry) => entry.selectable && String(entry.year) === chosen.year);
  if (chosen.snapshot) return list.find((entry) => entry.id === chosen.snapshot);
  return list.find((entry) => entry.current);
}

// How a page names a snapshot: "2025-12 (December 2025 archive)", "2026-11 (current)".
export function describe(entry) {
  if (entry.current) return t("{id} (current, published {date})", { id: entry.id, date: formatDate(entry.published) });
  return t("{id} (published {date})", { id: entry.id, date: formatDate(entry.published) });
}

// Fired on the document with the snapshot's id whenever a page says another snapshot is shown:
// what follows the page's snapshot without owning it listens ("Cite this", cite.js).
export const SHOWN_EVENT = "readiness:snapshot-shown";

// Every "[data-snapshot]" of the page says the snapshot ``id`` is shown; the document hears it.
export function sayShownId(id) {
  for (const node of document.querySelectorAll("[data-snapshot]")) node.textContent = id;
  document.dispatchEvent(new CustomEvent(SHOWN_EVENT, { detail: id }));
}

// Every "[data-snapshot]" of the page says the snapshot shown, and "[data-published]" its date.
export function sayShown(entry) {
  sayShownId(entry.id);
  for (const node of document.querySelectorAll("[data-published]")) {
    node.textContent = formatDate(entry.published);
    if (node.tagName === "TIME") node.setAttribute("datetime", entry.published);
  }
}

// The URL parameters that choose ``entry``: none for the current snapshot, year= for a
// December (the shorter, older form), snapshot= for any other.
export function paramsFor(entry) {
  if (entry.current) return {};
  if (entry.selectable) return { year: String(entry.year) };
  return { snapshot: entry.id };
}

// A labelled <select> of every listed snapshot in ``container``, set to the URL's choice;
// ``onChange(params)`` gets the parameters of the snapshot picked. Resolves to the entry shown
// (undefined when the URL names one the catalogue does not list).
export async function snapshotSelector(container, onChange) {
  const list = await snapshots();
  const chosen = chosenSnapshot();
  const shown = entryOf(list, chosen);
  const id = `snapshot-${container.id || "choice"}`;
  const select = el("select", { id, name: "snapshot" },
    list.map((entry) => el("option", { value: entry.id }, describe(entry))));
  if (shown) select.value = shown.id;
  else select.prepend(el("option", { value: "", selected: true }, t("{snapshot} (not listed)", { snapshot: Object.values(chosen)[0] })));
  select.addEventListener("change", () => {
    const entry = list.find((candidate) => candidate.id === select.value);
    if (entry) {
      sayShown(entry);
      onChange(paramsFor(entry), entry);
    }
  });
  container.replaceChildren(el("label", { for: id }, t("Snapshot")), select);
  if (shown) sayShown(shown);
  return shown;
}

// The page URL with the snapshot parameters replaced by ``params`` (other parameters kept).
export function withSnapshot(params, search = window.location.search) {
  const query = new URLSearchParams(search);
  for (const name of SNAPSHOT_PARAMETERS) query.delete(name);
  for (const [name, value] of Object.entries(params)) query.set(name, value);
  const text = query.toString().replaceAll("+", "%20");
  return window.location.pathname + (text ? `?${text}` : "");
}
