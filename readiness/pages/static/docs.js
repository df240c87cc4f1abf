// The API reference: Swagger UI (served from /static/, never a CDN) over the OpenAPI document.
// A classic script, not a module: it runs after swagger-ui-bundle.js, which defines a global.
"use strict";
window.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("swagger-ui");
  window.ui = window.SwaggerUIBundle({
    url: root.dataset.url,
    domNode: root,
    deepLinking: true,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    tryItOutEnabled: false,
    displayRequestDuration: true,
    validatorUrl: null, // the default asks a public validator service about the document
    onComplete: () => {
      // Swagger UI's server chooser has no label of its own (axe: select-name).
      document.getElementById("servers")?.setAttribute("aria-label", "Server");
    },
  });
});
