// Tintero: the signed-in user's own live channel (/ws/me/, campaigns/consumers.py UserConsumer).
//
// It says only that something of the user's changed ({"type": "notices.changed"}); the page re-reads what
// shows it: the header's notices badge (it listens for "tintero:notices-changed" on <body>) and every
// region marked data-live-user-on="notices.changed" (fetched again from the page's own URL, or from
// data-live-src, and swapped by id). So pages outside a campaign follow too, without polling.
(function () {
  "use strict";
  if (!document.body.hasAttribute("data-live-user") || !window.WebSocket || !window.htmx) return;
  var attempt = 0;
  var pending = {};

  function refresh(region) {
    var id = region.id;
    if (!id || pending[id]) return;
    pending[id] = window.setTimeout(function () {
      delete pending[id];
      var current = document.getElementById(id);
      if (!current) return;
      var src = current.getAttribute("data-live-src") || window.location.pathname + window.location.search;
      window.htmx.ajax("GET", src, { target: "#" + id, select: "#" + id, swap: "outerHTML" });
    }, 150);
  }

  function apply(type) {
    window.htmx.trigger(document.body, "tintero:" + type.replace(".", "-"), {});
    document.querySelectorAll("[data-live-user-on]").forEach(function (region) {
      if (region.getAttribute("data-live-user-on").split(/\s+/).indexOf(type) !== -1) refresh(region);
    });
  }

  function connect() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + window.location.host + "/ws/me/");
    socket.onopen = function () { attempt = 0; document.body.setAttribute("data-live-user", "connected"); };
    socket.onmessage = function (message) {
      var frame;
      try { frame = JSON.parse(message.data); } catch (e) { return; }
      if (frame && typeof frame.type === "string") apply(frame.type);
    };
    socket.onclose = function (event) {
      document.body.setAttribute("data-live-user", "");
      if (event.code === 4401 || event.code === 4403) return; // signed out: nothing to follow
      var delay = Math.min(30000, 1000 * Math.pow(2, attempt)) * (0.5 + Math.random() / 2);
      attempt += 1;
      window.setTimeout(connect, delay);
    };
    window.addEventListener("pagehide", function () { socket.onclose = null; socket.close(); });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", connect);
  else connect();
})();
