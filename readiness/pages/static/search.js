// Finding an economy by what people type: its name, its code, or a name in common use that its
// World Bank name does not contain ("DRC", "Turkey", "Ivory Coast", "South Korea"). One matcher for
// the landing page's search and the explorer's, over one table of other names that the server
// writes into both pages (readiness/pages/names.py), so both find the same economies.
import { folded } from "./api.js";
import { economyName, lang } from "./i18n.js";

const block = document.getElementById("economy-names");
// ISO3 code -> the other names of that economy.
const OTHER_NAMES = block ? JSON.parse(block.textContent) : {};

// How well an economy matches the typed text, smaller is better; null for no match.
// 0: the code, a name or another name is the text; 1: a name begins with it; 2: the code or a
// word of a name begins with it; 3: a name contains it. Codes match from their start only ("us"
// is not RUS), and after names ("fr" is France before the Faroe Islands, FRO).
export function closeness(wanted, code, name) {
  const text = folded(wanted.trim());
  if (!text) return null;
  // The page's language's name too (肯尼亚 finds Kenya on a Chinese page).
  const names = [name, economyName(code, name), ...(OTHER_NAMES[code] ?? [])].map(folded);
  const foldedCode = folded(code);
  if (foldedCode === text || names.includes(text)) return 0;
  if (names.some((each) => each.startsWith(text))) return 1;
  if (foldedCode.startsWith(text)
    || names.some((each) => each.split(/[\s,.'()-]+/).some((word) => word.startsWith(text)))) return 2;
  if (names.some((each) => each.includes(text))) return 3;
  return null;
}

// Whether an economy matches the typed text at all (the explorer's filter).
export function matches(wanted, code, name) {
  return closeness(wanted, code, name) !== null;
}

// The economies of ``rows`` matching the text, the closest first, then by name.
export function ranked(wanted, rows, codeOf, nameOf) {
  return rows
    .map((row) => [closeness(wanted, codeOf(row), nameOf(row)), row])
    .filter(([rank]) => rank !== null)
    .sort(([a, x], [b, y]) => a - b || nameOf(x).localeCompare(nameOf(y), lang))
    .map(([, row]) => row);
}
