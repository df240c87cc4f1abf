// What a reader can take away from a chart: the chart as SVG and as PNG, its data as CSV (the
// API request that answers it), the page's permalink, and an embed snippet. The files are made
// in the browser from the chart shown, so they are exactly what the reader sees.
import { el, say } from "./api.js";
import { svg } from "./chart.js";
import { t } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const STYLED = ["fill", "fill-opacity", "stroke", "stroke-width", "stroke-opacity", "stroke-dasharray",
  "stroke-linecap", "stroke-linejoin", "opacity", "visibility", "font-size", "font-family", "font-weight", "font-style",
  "text-anchor", "dominant-baseline"];
// Not inherited: written on an element whenever it is not the initial value.
const NOT_INHERITED = { opacity: "1", "dominant-baseline": "auto" };
const PNG_SCALE = 2; // twice the drawn size: sharp on a slide or a high-density screen

// A standalone copy of the chart ``chart`` (an <svg>): the page's CSS does not travel with a file, so each element's
// computed presentation is written onto the copy (on the root all of it; on the others what
// they do not inherit from their parent, which keeps a 217-bar file small), with the width,
// height and the page's background.
export function standaloneSvg(chart) {
  const copy = chart.cloneNode(true);
  const originals = [chart, ...chart.querySelectorAll("*")];
  const copies = [copy, ...copy.querySelectorAll("*")];
  const computed = new Map(originals.map((original) => [original, window.getComputedStyle(original)]));
  originals.forEach((original, index) => {
    const style = computed.get(original);
    const parent = index === 0 ? null : computed.get(original.parentElement);
    const own = (name) => {
      const value = style.getPropertyValue(name);
      if (parent === null) return true;
      if (name in NOT_INHERITED) return value !== NOT_INHERITED[name];
      return value !== parent.getPropertyValue(name);
    };
    const declarations = STYLED.filter(own).map((name) => `${name}:${style.getPropertyValue(name)}`).join(";");
    if (declarations) copies[index].setAttribute("style", declarations);
    else copies[index].removeAttribute("style");
    copies[index].removeAttribute("class");
  });
  const box = chart.viewBox.baseVal;
  const width = box && box.width ? box.width : chart.getBoundingClientRect().width;
  const height = box && box.height ? box.height : chart.getBoundingClientRect().height;
  copy.setAttribute("xmlns", SVG_NS);
  copy.setAttribute("width", String(width));
  copy.setAttribute("height", String(height));
  // The page's own background (white, or dark in dark mode): the copied text colours are the page's.
  const paper = getComputedStyle(document.body).backgroundColor;
  const background = svg("rect", { x: box?.x ?? 0, y: box?.y ?? 0, width, height, fill: paper });
  const title = copy.querySelector(":scope > title");
  if (title) title.after(background); // the title stays the first child, as SVG wants
  else copy.prepend(background);
  return { text: new XMLSerializer().serializeToString(copy), width, height };
}

// The chart as an SVG file (a Blob).
export function svgBlob(chart) {
  return new Blob([standaloneSvg(chart).text], { type: "image/svg+xml" });
}

// The chart as a PNG file (a Blob), drawn from its standalone SVG on a canvas.
export async function pngBlob(chart) {
  const { text, width, height } = standaloneSvg(chart);
  const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const canvas = el("canvas", { width: Math.round(width * PNG_SCALE), height: Math.round(height * PNG_SCALE) });
    const context = canvas.getContext("2d");
    context.scale(PNG_SCALE, PNG_SCALE);
    context.drawImage(image, 0, 0, width, height);
    return await new Promise((resolve, reject) => canvas.toBlob(
      (blob) => (blob ? resolve(blob) : reject(new Error("the browser made no PNG"))), "image/png"));
  } finally {
    URL.revokeObjectURL(url);
  }
}

function saveBlob(blob, filename) {
  const url = URL.createObjectURL(blob);
  const link = el("a", { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// The height of an embed's frame when no script fits it: its whole content in the compact layout
// at the narrowest column checked (360 px; wider columns need less), with room for a legend of
// eight economies on compare. tests/test_pages_embeds.py frames each at 360, 720 and 1280 px and
// fails if one scrolls (docs/PAGES.md#embeds).
export const NO_SCRIPT_HEIGHTS = [["/embed/explore/", 760], ["/embed/compare", 680], ["/embed/map", 700]];

// The script of the snippet: fits every frame of this site on the page to the height its embed
// says (embed.js posts { type: "readiness-embed-height", height }), from this origin only.
export function fitScript(origin) {
  return "<script>/* Readiness Index embeds: each frame takes the height of its content. */" +
    `addEventListener("message",function(e){var d=e.data;if(e.origin!=="${origin}"||!d||` +
    'd.type!=="readiness-embed-height")return;document.querySelectorAll("iframe").forEach(function(f){' +
    "if(f.contentWindow===e.source)f.height=d.height})})</script>";
}

// The iframe an embedding site pastes: the embed route, a title, the no-script height; with
// ``fit``, followed by the script that fits its height to its content (fitScript).
export function embedSnippet(path, title, { fit = true } = {}) {
  const attribute = (text) => text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
  const url = new URL(path, window.location.origin);
  const height = (NO_SCRIPT_HEIGHTS.find(([prefix]) => url.pathname.startsWith(prefix)) ?? ["", 720])[1];
  const frame = `<iframe src="${attribute(url.href)}" title="${attribute(title)}" width="100%" height="${height}" ` +
    `style="border:0" loading="lazy"></iframe>`;
  return fit ? frame + fitScript(url.origin) : frame;
}

// A toolbar under a chart: PNG, SVG, CSV, Share, Embed. ``options``:
//   chart(): the chart's <svg> as shown now; name(): the files' stem ("ranking-2026-11");
//   csv(): the API URL of the chart's data as CSV; permalink(): the page URL of this view;
//   embed(): the embed route of this view (omit the option when there is none); title(): what it shows.
export function chartTools(options) {
  const status = el("span", { class: "tools-status", role: "status", "aria-live": "polite" });
  const field = el("input", { type: "text", readonly: true, class: "copy", "aria-label": t("Link or snippet to copy"),
    hidden: true });
  const button = (label, action) => {
    const control = el("button", { type: "button" }, label);
    control.addEventListener("click", action);
    return control;
  };
  // ``copied`` and ``selected``: what the status says when the text is on the clipboard, or only selected.
  const show = async (text, copied, selected) => {
    field.hidden = false;
    field.value = text;
    field.select();
    try {
      await navigator.clipboard.writeText(text);
      say(status, copied);
    } catch {
      say(status, selected);
    }
  };
  const showLink = (text) => show(text, t("Link copied."), t("Link selected: copy it with Ctrl+C or ⌘C."));
  const showEmbed = (text) => show(text, t("Embed code copied."), t("Embed code selected: copy it with Ctrl+C or ⌘C."));
  const csv = el("a", { class: "button", download: "" }, t("Data (CSV)"));
  const refreshCsv = () => { csv.href = options.csv(); };
  csv.addEventListener("focus", refreshCsv);
  csv.addEventListener("mouseenter", refreshCsv);
  csv.addEventListener("click", refreshCsv);
  const save = async (kind, make) => {
    try {
      saveBlob(await make(options.chart()), `${options.name()}.${kind.toLowerCase()}`);
      say(status, t("{kind} saved.", { kind }));
    } catch (error) {
      say(status, t("The {kind} could not be made: {error}", { kind, error: error.message }), true);
    }
  };
  const controls = [
    button(t("Download PNG"), () => save("PNG", pngBlob)),
    button(t("Download SVG"), () => save("SVG", svgBlob)),
    csv,
    button(t("Share"), () => showLink(options.permalink())),
  ];
  if (options.embed) {
    controls.push(button(t("Embed"), () => showEmbed(embedSnippet(options.embed(), options.title()))),
      button(t("Snippet without a script"), () => showEmbed(embedSnippet(options.embed(), options.title(), { fit: false }))));
  }
  const bar = el("div", { class: "chart-tools", role: "group", "aria-label": t("Take this chart away") },
    controls, field, status);
  refreshCsv();
  return bar;
}
