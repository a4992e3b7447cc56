// Tintero: small progressive enhancements. Every page works without this file.
(function () {
  "use strict";

  // Forms with data-confirm ask before submitting (member removal, leaving a campaign...).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);

  // Selects with data-autosubmit submit their form on change (the language switcher).
  document.addEventListener("change", function (event) {
    var el = event.target;
    if (el instanceof HTMLSelectElement && el.hasAttribute("data-autosubmit") && el.form) {
      el.form.submit();
    }
  });

  // Show only the fields that matter for the chosen option.
  function selected(form, name) {
    var checked = form.querySelector("[name='" + name + "']:checked");
    if (checked) return checked.value;
    var select = form.querySelector("select[name='" + name + "']");
    return select ? select.value : null;
  }
  function toggle(form, fieldName, visible) {
    var box = form.querySelector(".field-" + fieldName);
    if (box) box.hidden = !visible;
  }
  function refresh(root) {
    (root || document).querySelectorAll("form[data-composer]").forEach(function (form) {
      var voice = selected(form, "voice");
      toggle(form, "character", voice === "character");
      toggle(form, "npc_name", voice === "npc");
      toggle(form, "whisper_to", selected(form, "recipients") === "whisper");
    });
    (root || document).querySelectorAll("form[data-scene-form]").forEach(function (form) {
      var listed = selected(form, "access") === "listed";
      toggle(form, "readers", listed);
      toggle(form, "writers", listed);
    });
  }
  document.addEventListener("change", function (event) {
    if (event.target.form) refresh(event.target.form.parentNode);
  });
  document.addEventListener("DOMContentLoaded", function () { refresh(document); });
  document.addEventListener("htmx:afterSettle", function () { refresh(document); });

  // After a post is appended in place, bring it into view.
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "posts") {
      var last = event.detail.target.lastElementChild;
      if (last) last.scrollIntoView({ behavior: "smooth", block: "start" });
    }
  });
})();
