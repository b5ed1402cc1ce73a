// Starts Swagger UI on the OpenAPI document the page names (data-url,
// relative to the page: behind a gateway stage the prefix is kept). Served
// from the service itself: the page's Content-Security-Policy runs no
// inline script.
"use strict";
(function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: new URL(root.dataset.url, document.baseURI).href,
    domNode: root,
    deepLinking: true,
    layout: "BaseLayout",
    // Swagger UI's default validator badge loads an image from a public
    // validator: nothing on this page leaves the service.
    validatorUrl: null,
    tryItOutEnabled: false,
  });
})();
