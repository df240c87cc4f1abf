// "Cite this" in every page's footer: when it is opened, it says how to cite the snapshot the page
// shows now (the page may have changed it since it loaded) and gives a permalink pinned to that
// snapshot, so the link shows the same numbers after the next monthly release.
import { apiUrl } from "./api.js";
import { SHOWN_EVENT } from "./snapshot.js";

const block = document.getElementById("cite-this");

// The snapshot on screen: what the page's "[data-snapshot]" says (snapshot.js keeps it current).
function shownSnapshot() {
  return document.querySelector("[data-snapshot]")?.textContent.trim() || block.dataset.current;
}

// The page's URL with its snapshot pinned: year= and snapshot= already pin it; otherwise add snapshot=.
export function permalink(location, shown) {
  const url = new URL(location.href);
  if (!url.searchParams.has("year") && !url.searchParams.has("snapshot")) url.searchParams.set("snapshot", shown);
  return url.href.replaceAll("+", "%20");
}

async function refresh() {
  const shown = shownSnapshot();
  const link = block.querySelector("[data-permalink]");
  link.href = permalink(window.location, shown);
  link.textContent = link.href;
  for (const download of block.querySelectorAll("[data-citation-format]")) {
    download.href = apiUrl("/api/v1/citation", { format: download.dataset.citationFormat, snapshot: shown });
  }
  // The API's text even for the snapshot the page was rendered with: its URL is absolute and it
  // says when it was accessed, which the rendered (cached, shared) text cannot.
  // The snapshot the text cites is kept in data-cited, never data-snapshot: every
  // "[data-snapshot]" is overwritten with the bare id when the page shows another snapshot.
  const text = block.querySelector("[data-citation]");
  if (text.dataset.cited === shown) return;
  const response = await fetch(apiUrl("/api/v1/citation", { format: "text", snapshot: shown }));
  // An answer for a snapshot the page no longer shows is dropped: a later refresh writes its own.
  if (response.ok && shownSnapshot() === shown) {
    text.textContent = (await response.text()).trim();
    text.dataset.cited = shown;
  }
}

if (block) {
  block.addEventListener("toggle", () => { if (block.open) refresh(); });
  // Open while the page changes its snapshot, it cites the new one.
  document.addEventListener(SHOWN_EVENT, () => { if (block.open) refresh(); });
  // Printed, the block is open (site.css): it cites the snapshot on paper, with its permalink.
  window.addEventListener("beforeprint", refresh);
  window.matchMedia("print").addEventListener("change", (query) => { if (query.matches) refresh(); });
}
