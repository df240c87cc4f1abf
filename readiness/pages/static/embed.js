// An embed tells the page that frames it how tall its content is, whenever that changes, so the
// page can fit the frame to it: no inner scroll bar, no empty space (docs/PAGES.md#embeds).
// The message, to any origin (a height is no secret): { type: "readiness-embed-height", height }
// in CSS pixels. The snippet's script (export.js embedSnippet) sets its iframe's height from it.
const MESSAGE = "readiness-embed-height";

let sent = 0;
function tell() {
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (height === sent || window.parent === window) return;
  sent = height;
  window.parent.postMessage({ type: MESSAGE, height }, "*");
}

new ResizeObserver(tell).observe(document.documentElement);
window.addEventListener("load", tell);
