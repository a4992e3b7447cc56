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

  // Controls that only work with this file (the composer's preview) are hidden in the HTML.
  function showScripted(root) {
    (root || document).querySelectorAll("[data-needs-js][hidden]").forEach(function (el) { el.hidden = false; });
  }
  document.addEventListener("DOMContentLoaded", function () { showScripted(document); });
  document.addEventListener("htmx:afterSettle", function () { showScripted(document); });

  // Quote: insert the post's text (as the server gives it: only what this viewer may read) at the
  // composer's cursor instead of reloading the page with ?quote=.
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a[data-quote-url]") : null;
    var body = document.querySelector("#composer textarea[name=body]");
    if (!link || !body) return;
    event.preventDefault();
    fetch(link.dataset.quoteUrl, { credentials: "same-origin" }).then(function (response) {
      if (!response.ok) throw new Error(response.status);
      return response.text();
    }).then(function (text) {
      var at = body.selectionStart || body.value.length;
      var before = body.value.slice(0, at);
      if (before && !/\n\n$/.test(before)) before += before.slice(-1) === "\n" ? "\n" : "\n\n";
      body.value = before + text + body.value.slice(at);
      body.focus();
      body.selectionStart = body.selectionEnd = (before + text).length;
      body.scrollIntoView({ behavior: "smooth", block: "center" });
    }).catch(function () { window.location.href = link.href; });
  });

  // Roll builders (the RollBuilder contract, rulesets/kit/rolls.py) mark the field choosing the roll type
  // with data-kind-field and every other field with the roll types it belongs to (data-roll-kinds): only
  // the chosen type's fields show. Here, not in each game's own script, because the composer's builder
  // arrives by htmx (whose swapped-in scripts do not run) and every game's builder follows one contract.
  window.tinteroRollKinds = true;
  function syncRollKinds() {
    document.querySelectorAll("[data-roll-builder]").forEach(function (box) {
      // The kind's select: named on the builder (data-kind-field="<name>") or inside a marked field.
      var select = box.dataset.kindField
        ? box.querySelector("[name='" + box.dataset.kindField + "']")
        : box.querySelector("[data-kind-field] select");
      var kind = select ? select.value : "";
      box.querySelectorAll("[data-roll-kinds], [data-kinds]").forEach(function (field) {
        var kinds = (field.dataset.rollKinds || field.dataset.kinds || "").split(" ");
        field.hidden = !kind || kinds.indexOf(kind) < 0;
      });
    });
  }
  document.addEventListener("change", function (event) {
    if (event.target.closest && event.target.closest("[data-kind-field]")) syncRollKinds();
  });
  document.addEventListener("DOMContentLoaded", syncRollKinds);
  document.addEventListener("htmx:load", syncRollKinds);
})();
