/* Mentions in the composer: typing "@" and the start of a name offers the members who may read the scene
   (from the form's data-mention-source); arrows move, Enter or Tab picks, Escape closes. The post then
   carries "@username", which notifies that member (notifications/services.py). Event delegation: the
   composer is swapped after each post, this script is loaded once. */
(function () {
  "use strict";
  var cache = {};
  var box = null;
  var state = null; // {area, start, items, index}
  var TRIGGER = /(^|[^\w@])@([\w.+-]{0,30})$/;

  function members(url) {
    if (!cache[url]) {
      cache[url] = fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (r) { return r.ok ? r.json() : { results: [] }; })
        .then(function (body) { return body.results || []; })
        .catch(function () { return []; });
    }
    return cache[url];
  }

  function close() {
    if (box) { box.remove(); box = null; }
    if (state) { state.area.removeAttribute("aria-activedescendant"); state.area.setAttribute("aria-expanded", "false"); }
    state = null;
  }

  function render() {
    if (!box) {
      box = document.createElement("ul");
      box.id = "mention-options";
      box.className = "mention-options";
      box.setAttribute("role", "listbox");
      state.area.insertAdjacentElement("afterend", box);
      state.area.setAttribute("aria-controls", box.id);
      state.area.setAttribute("aria-expanded", "true");
    }
    box.textContent = "";
    state.items.forEach(function (m, i) {
      var li = document.createElement("li");
      li.id = "mention-option-" + i;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", i === state.index ? "true" : "false");
      li.dataset.username = m.username;
      li.textContent = m.name === m.username ? "@" + m.username : "@" + m.username + " · " + m.name;
      li.addEventListener("mousedown", function (e) { e.preventDefault(); pick(i); });
      box.appendChild(li);
    });
    state.area.setAttribute("aria-activedescendant", "mention-option-" + state.index);
  }

  function pick(i) {
    var area = state.area, m = state.items[i];
    var caret = area.selectionStart;
    var text = "@" + m.username + " ";
    area.value = area.value.slice(0, state.start) + text + area.value.slice(caret);
    var at = state.start + text.length;
    area.setSelectionRange(at, at);
    close();
    area.focus();
  }

  document.addEventListener("input", function (e) {
    var area = e.target;
    if (!(area instanceof HTMLTextAreaElement)) return;
    var form = area.closest("form[data-mention-source]");
    if (!form) return;
    var before = area.value.slice(0, area.selectionStart);
    var match = TRIGGER.exec(before);
    if (!match) { close(); return; }
    var typed = match[2].toLowerCase();
    var start = area.selectionStart - match[2].length - 1;
    members(form.getAttribute("data-mention-source")).then(function (list) {
      var items = list.filter(function (m) {
        return m.username.toLowerCase().indexOf(typed) === 0 || m.name.toLowerCase().indexOf(typed) === 0;
      }).slice(0, 8);
      if (!items.length) { close(); return; }
      state = { area: area, start: start, items: items, index: 0 };
      render();
    });
  });

  document.addEventListener("keydown", function (e) {
    if (!state || e.target !== state.area) return;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      var n = state.items.length;
      state.index = (state.index + (e.key === "ArrowDown" ? 1 : n - 1)) % n;
      render();
    } else if (e.key === "Enter" || e.key === "Tab") {
      e.preventDefault();
      pick(state.index);
    } else if (e.key === "Escape") {
      close();
    }
  });

  document.addEventListener("focusout", function (e) { if (state && e.target === state.area) close(); });
})();
