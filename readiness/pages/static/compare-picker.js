// A combobox (ARIA 1.2, list autocomplete) over every economy's name and code: type, then ↓ ↑
// and Enter, or click an option; Escape closes the list. The focus stays in the text box.
import { el } from "./api.js";
import { ranked } from "./search.js";
import { t } from "./i18n.js";

// known: [{ code, name }]; onPick(entry) gets the economy picked.
export function picker({ input, listbox, hint, known, onPick }) {
  let matches = [];
  let active = -1;
  const hintText = hint.textContent;
  const close = () => {
    listbox.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  };
  const highlight = (index) => {
    active = index;
    listbox.querySelectorAll("[role=option]").forEach((option, position) => {
      option.setAttribute("aria-selected", String(position === index));
      if (position === index) {
        input.setAttribute("aria-activedescendant", option.id);
        option.scrollIntoView({ block: "nearest" });
      }
    });
  };
  const show = () => {
    const text = input.value.trim();
    hint.textContent = hintText;
    if (!text) return close();
    // The landing page's and the explorer's matcher: names, codes and the names people type (DRC).
    matches = ranked(text, known, (entry) => entry.code, (entry) => entry.name).slice(0, 12);
    if (!matches.length) {
      hint.textContent = t("No economy's name or code matches “{text}”.", { text });
      return close();
    }
    listbox.replaceChildren(...matches.map((entry, index) => el("li", { id: `add-option-${index}`, role: "option",
      "aria-selected": "false" }, `${entry.name} (${entry.code})`)));
    listbox.hidden = false;
    input.setAttribute("aria-expanded", "true");
    active = -1;
    input.removeAttribute("aria-activedescendant");
  };
  const pick = (entry) => {
    input.value = "";
    close();
    onPick(entry);
  };
  input.addEventListener("input", show);
  input.addEventListener("blur", close);
  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (listbox.hidden) show();
      if (!matches.length || listbox.hidden) return;
      const step = event.key === "ArrowDown" ? 1 : -1;
      highlight(active < 0 && step < 0 ? matches.length - 1 : (active + step + matches.length) % matches.length);
    } else if (event.key === "Enter") {
      event.preventDefault();
      const upper = input.value.trim().toUpperCase();
      const chosen = active >= 0 ? matches[active]
        : known.find((entry) => entry.code === upper) ?? (matches.length === 1 && !listbox.hidden ? matches[0] : null);
      if (chosen) pick(chosen);
      else if (upper) hint.textContent = t("More than one economy matches: pick one with ↓ ↑ and Enter.");
    } else if (event.key === "Escape") {
      close();
    }
  });
  listbox.addEventListener("mousedown", (event) => event.preventDefault()); // the input keeps the focus
  listbox.addEventListener("click", (event) => {
    const option = event.target.closest("[role=option]");
    if (option) pick(matches[Number(option.id.replace("add-option-", ""))]);
  });
}
