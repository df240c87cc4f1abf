// What the explorer's pages share: the requests they send (the public API, as any client
// sends them), the fields they show, and how values are written.
import { lang, t } from "./i18n.js";

export const DIMENSIONS = [
  ["Infrastructure Score", t("Infrastructure")],
  ["Human Capital Score", t("Human capital")],
  ["School Access and Gender Parity Score", t("School access & gender parity")],
  ["Innovation Score", t("Innovation")],
  ["Governance Score", t("Governance")],
];
export const COMPOSITE = "Composite Readiness Score";

export class ApiError extends Error {}

// The URL of an API request: path plus the parameters that have a value, in the given order.
export function apiUrl(path, params = {}) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") query.set(name, value);
  }
  const text = query.toString().replaceAll("+", "%20");
  return text ? `${path}?${text}` : path;
}

// GET a JSON answer; an error answer becomes an ApiError carrying the API's own message.
export async function getJson(path, params = {}) {
  const url = apiUrl(path, params);
  const response = await fetch(url, { headers: { Accept: "application/json" } });
  let body = null;
  try {
    body = await response.json();
  } catch {
    throw new ApiError(`${url} answered ${response.status} without JSON`);
  }
  if (!response.ok) throw new ApiError(body?.error || `${url} answered ${response.status}`);
  return body;
}

// A number as shown: at most ``digits`` decimals, an en dash for no value.
export function number(value, digits = 2) {
  if (value === null || value === undefined || value === "") return "–";
  if (typeof value !== "number") return String(value);
  return value.toLocaleString(lang, { maximumFractionDigits: digits });
}

// A 0-100 score as shown: always two decimals, so a column of scores lines up.
export function score(value) {
  if (typeof value !== "number") return number(value);
  return value.toLocaleString(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

// Folded for searching: case- and accent-insensitive, as the API sorts names.
export function folded(text) {
  return String(text).normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
}

// Make an element with attributes and children (strings become text, never HTML).
export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    if (name === "text") element.textContent = value;
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

// A 0-100 value drawn as a bar, its number beside it (the bar itself is hidden from screen readers).
export function bar(value, className = "") {
  const outer = el("span", { class: `bar ${className}`.trim(), "aria-hidden": "true" });
  const inner = el("span", { class: "fill" });
  if (typeof value === "number") inner.style.width = `${Math.max(0, Math.min(100, value))}%`;
  outer.append(inner);
  return el("span", { class: "barred" }, outer, el("span", { class: "value" }, score(value)));
}

// Show a message in the page's status region (announced to screen readers).
export function say(region, message, isError = false) {
  region.textContent = message;
  region.classList.toggle("error", isError);
}
