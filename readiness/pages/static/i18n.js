// The page's words in its language, for the scripts (docs/PAGES.md#languages).
// The page carries them in <script type="application/json" id="i18n">, written by the server
// from the gettext catalogue (readiness/pages/translations.py): its language tag, the scripts'
// messages translated, the economies' names (CLDR) and the data's words (regions, income groups).
// An English page carries none: its messages are the keys and the API's names are English.
// Messages are marked t("...") with a double-quoted literal, so `make i18n` extracts them.

const block = document.getElementById("i18n");
const data = block ? JSON.parse(block.textContent) : {};

/** The page's language tag (en, zh-Hans): for Intl's number and date formats. */
export const lang = data.lang || document.documentElement.lang || "en";

const messages = data.messages || {};
const economies = data.economies || {};
const words = data.words || {};
const indicators = data.indicators || {};

/** `message` in the page's language, each {name} replaced by values[name]. */
export function t(message, values = {}) {
  const text = messages[message] ?? message;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

/** The name of the economy `code` in the page's language; `name` (the API's) when it has none. */
export function economyName(code, name) {
  return economies[code] ?? name;
}

/** A word of the data (a region, an income group) in the page's language. */
export function word(text) {
  return text == null ? text : (words[text] ?? text);
}

/** The name of the indicator `code` in the page's language; `name` (the API's) when it has none. */
export function indicatorName(code, name) {
  return indicators[code] ?? name;
}

/** `value` with `digits` decimals, as the page's language writes numbers. */
export function formatNumber(value, digits = 0) {
  return new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
}

/** The page address's own lang= (a page's scripts keep it when they rewrite the address), or null. */
export function urlLanguage() {
  return new URLSearchParams(window.location.search).get("lang");
}

/** An ISO date (2026-11-28) as the page's language writes it in prose; the text itself if it is none.
 * English keeps the ISO form the site has always shown (unambiguous to every English reader). */
export function formatDate(iso) {
  if (lang.startsWith("en")) return iso;
  const day = new Date(`${String(iso).slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(day.getTime())) return iso;
  return new Intl.DateTimeFormat(lang, { dateStyle: "long", timeZone: "UTC" }).format(day);
}

// The language switch (base.html): each link keeps the page's address (its query and its
// fragment: the filters, the economies compared), changes only lang=, and keeps the choice in
// a cookie so the next page is in it too. Without scripts the links are ?lang=xx on this page.
// The address is read again on a click: a page's script may have changed it since (filters).
function switched(language) {
  const url = new URL(window.location.href);
  url.searchParams.set("lang", language);
  return url.pathname + url.search + url.hash;
}

function keep(language) {
  document.cookie = `lang=${language}; path=/; max-age=31536000; SameSite=Lax`;
}

for (const link of document.querySelectorAll("a[data-lang]")) {
  link.href = switched(link.dataset.lang);
  link.addEventListener("click", () => {
    link.href = switched(link.dataset.lang);
    keep(link.dataset.lang);
  });
}
// A page opened at ?lang=zh (a shared link) keeps its reader in that language on the next page.
const asked = urlLanguage();
if (asked && document.querySelector(`a[data-lang="${CSS.escape(asked)}"], [data-lang-current="${CSS.escape(asked)}"]`)) {
  keep(asked);
}
