// The landing page's example commands: show them with this service's address and copy them.
// The page reads fine without this script: the commands then show paths.
const origin = window.location.origin;
document.getElementById("paths-hint").hidden = true; // the commands now carry the address

for (const code of document.querySelectorAll("code[data-path]")) {
  const command = `curl '${origin}${code.dataset.path}'`;
  code.textContent = command;
  const button = code.closest(".copyable").querySelector("button.copy");
  button.hidden = false;
  button.setAttribute("aria-label", `Copy: ${command}`);
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(command);
      button.textContent = "Copied";
    } catch {
      // No clipboard (an insecure origin, a refused permission): select the text instead.
      window.getSelection().selectAllChildren(code);
      button.textContent = "Selected: press Ctrl+C";
    }
  });
}
