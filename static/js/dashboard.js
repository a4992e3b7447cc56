// The dashboard shows fragments written for their own pages, which target fixed ids (#sheet, #pools,
// #aspects, #roll-N...). Here each sits in its own [data-dash-scope]: swap into the element with that id
// inside the scope, not the page's first one; when the scope has none, refresh the panel instead.
// Buttons marked data-dash-refresh (approve, accept...) refresh their panel once the action is done.
(function () {
  "use strict";
  function refreshPanel(elt) {
    var panel = elt && elt.closest ? elt.closest("[data-dash-panel]") : null;
    if (panel && window.htmx) window.htmx.trigger(panel, "dash:refresh");
  }
  document.addEventListener("htmx:beforeSwap", function (event) {
    var detail = event.detail;
    var elt = (detail.requestConfig && detail.requestConfig.elt) || detail.elt;
    var target = detail.target;
    if (!elt || !elt.closest || !target || !target.id) return;
    var scope = elt.closest("[data-dash-scope]");
    if (!scope || scope.contains(target)) return;
    var local = scope.querySelector('[id="' + target.id.replace(/"/g, "") + '"]');
    if (local) {
      detail.target = local;
    } else {
      detail.shouldSwap = false;
      refreshPanel(elt);
    }
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.hasAttribute && elt.hasAttribute("data-dash-refresh") && event.detail.successful) refreshPanel(elt);
  });
})();
