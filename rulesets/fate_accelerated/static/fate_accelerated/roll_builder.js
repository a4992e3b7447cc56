// The Fate Accelerated roll builder shows only the fields of the chosen roll type (the form's
// fields_by_kind, written on each field as data-kinds). Without this file every field stays visible.
(function () {
  "use strict";
  if (window.tinteroFaeBuilder) return;
  window.tinteroFaeBuilder = true;

  function refresh(root) {
    root.querySelectorAll("[data-roll-builder]").forEach(function (box) {
      var select = box.querySelector("[name='" + box.dataset.kindField + "']");
      var kind = select ? select.value : "";
      box.querySelectorAll("[data-kinds]").forEach(function (field) {
        field.hidden = (" " + field.dataset.kinds + " ").indexOf(" " + kind + " ") < 0;
      });
    });
  }
  document.addEventListener("change", function (event) {
    if (event.target.closest && event.target.closest("[data-roll-builder]")) refresh(document);
  });
  document.addEventListener("DOMContentLoaded", function () { refresh(document); });
  document.addEventListener("htmx:afterSettle", function () { refresh(document); });
  refresh(document);
})();
