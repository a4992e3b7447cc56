// A roll builder that follows the RollBuilder contract (rulesets/kit/rolls.py) marks the field choosing the
// roll type with data-kind-field and every other field with the roll types it belongs to (data-roll-kinds):
// only the fields of the chosen type are shown. Without JavaScript every field stays visible.
(function () {
  "use strict";
  if (window.tinteroRollKinds) { return; }  // htmx re-runs this file when it swaps a composer in
  window.tinteroRollKinds = true;

  function sync() {
    document.querySelectorAll("[data-roll-builder]").forEach(function (box) {
      var select = box.querySelector("[data-kind-field] select");
      var kind = select ? select.value : "";
      box.querySelectorAll("[data-roll-kinds]").forEach(function (field) {
        field.hidden = !kind || field.dataset.rollKinds.split(" ").indexOf(kind) < 0;
      });
    });
  }

  document.addEventListener("change", function (event) {
    if (event.target.closest && event.target.closest("[data-kind-field]")) { sync(); }
  });
  document.addEventListener("DOMContentLoaded", sync);
  document.addEventListener("htmx:load", sync);
  sync();
})();
