// Tintero live updates: one WebSocket per open campaign page (see campaigns/consumers.py).
//
// The page marks itself with <div data-live-campaign="ID" data-live-events="URL" data-live-since="UNIX">,
// and each region that may change carries an id and data-live-on="type type..." (optionally
// data-live-scene="ID" to listen to one scene only, and data-live-src="URL" when a fragment URL exists;
// without it the region is re-read from the current page). On a matching event the region is fetched
// again with htmx and swapped in place: the server renders it through the policy, so nothing secret
// travels in an event. The client keeps the last seq it has seen; after a gap or a reconnect it asks the
// resync endpoint for what it missed, so a lost message loses nothing. When the log no longer goes back
// that far (the answer says "reset"), or the campaign's settings change, every region is re-read instead.
// The server's heartbeat frames carry the campaign's last seq, so a lost tail of events is noticed too.
// Close code 4403 means the viewer may no longer see the campaign: no reconnecting, "no access" shown.
(function () {
  "use strict";

  var roots = document.querySelectorAll("[data-live-campaign]");
  if (!roots.length || !window.WebSocket) return;
  // One socket per root: a campaign page has one; the GM dashboard has one per campaign, and there each
  // root's regions are inside it (so one campaign's events refresh only that campaign's panels).
  roots.forEach(function (root) { watch(root, roots.length > 1 ? root : document); });

  function watch(root, scope) {
  var campaignId = root.getAttribute("data-live-campaign");
  var eventsUrl = root.getAttribute("data-live-events");
  var since = root.getAttribute("data-live-since");
  var status = document.getElementById("live-status");
  var lastSeq = null; // null until the first hello
  var socket = null;
  var attempt = 0;
  var resyncing = false;
  var stopped = false; // closed for good (no access, no such campaign, bad token): never reconnect
  var resyncAgain = false; // a gap seen while a resync was on its way: ask once more when it lands
  var pending = {}; // region id -> timer: several events in a burst cause one fetch per region

  function setState(state) {
    if (!status) return;
    status.hidden = false;
    status.setAttribute("data-state", state);
    status.textContent = status.getAttribute("data-label-" + state) || state;
  }

  function refreshRegion(region) {
    var id = region.id;
    if (!id || pending[id]) return;
    pending[id] = window.setTimeout(function () {
      delete pending[id];
      var current = document.getElementById(id);
      if (!current) return;
      var src = current.getAttribute("data-live-src") || window.location.pathname + window.location.search;
      window.htmx.ajax("GET", src, { target: "#" + id, select: "#" + id, swap: "outerHTML" });
    }, 100);
  }

  // Every live region of this campaign, fetched again: for what no single event describes.
  function reloadRegions() {
    scope.querySelectorAll("[data-live-on]").forEach(refreshRegion);
    window.htmx.trigger(document.body, "tintero:live-reset", {});
  }

  function apply(event) {
    var data = event.data || {};
    // A settings change (sheets open, optional rules, visibility...) may change any region.
    var everything = event.type === "campaign.changed";
    scope.querySelectorAll("[data-live-on]").forEach(function (region) {
      var types = region.getAttribute("data-live-on").split(/\s+/);
      if (everything) { refreshRegion(region); return; }
      if (types.indexOf(event.type) === -1) return;
      var scene = region.getAttribute("data-live-scene");
      if (scene && data.scene_id != null && String(data.scene_id) !== scene) return;
      refreshRegion(region);
    });
    // Regions that fetch themselves (hx-trigger="tintero:... from:body") hear these on <body>.
    var names = ["tintero:live", "tintero:" + event.type.replace(".", "-")];
    if (event.type === "pool.changed" || event.type === "track.changed") names.push("tintero:pools-changed");
    if (data.character_id != null) names.push("tintero:sheet-changed-" + data.character_id);
    names.forEach(function (name) { window.htmx.trigger(document.body, name, event); });
  }

  function resync(query) {
    if (!eventsUrl) return;
    if (resyncing) { resyncAgain = true; return; }
    resyncing = true;
    fetch(eventsUrl + "?" + query, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : Promise.reject(response.status); })
      .then(function (body) {
        if (body.reset) {
          // The log no longer reaches back to what we have: a partial list would hide a loss.
          reloadRegions();
          lastSeq = Math.max(lastSeq || 0, body.seq);
          resyncing = false;
          resyncAgain = false;
          return;
        }
        body.events.forEach(apply);
        lastSeq = Math.max(lastSeq || 0, body.seq);
        resyncing = false;
        if (body.more || resyncAgain) { resyncAgain = false; resync("after=" + lastSeq); }
      })
      .catch(function () { resyncing = false; });
  }

  function onMessage(message) {
    var frame;
    try { frame = JSON.parse(message.data); } catch (e) { return; }
    if (frame.type === "hello") {
      if (lastSeq === null) {
        lastSeq = frame.seq;
        // Replay what happened between the page's render and this first connection.
        if (since) resync("since=" + since);
      } else if (frame.seq > lastSeq) {
        resync("after=" + lastSeq); // missed while disconnected
      }
      return;
    }
    if (frame.type === "heartbeat") {
      // The campaign's last seq, sent now and then: events lost at the end of a stream (sent while the
      // server's channel layer was down) show up here even when no later event comes to reveal the gap.
      if (lastSeq === null || typeof frame.seq !== "number" || frame.seq <= lastSeq) return;
      var filtered = frame.skipped || [];
      for (var h = lastSeq + 1; h <= frame.seq; h++) {
        if (filtered.indexOf(h) === -1) { resync("after=" + lastSeq); return; }
      }
      lastSeq = frame.seq; // every seq in between was for other viewers
      return;
    }
    if (frame.type === "error" || frame.type === "pong" || typeof frame.seq !== "number") return;
    if (lastSeq !== null && frame.seq <= lastSeq) return; // already applied (a resync got there first)
    var skipped = frame.skipped || [];
    var lost = false;
    for (var s = (lastSeq || 0) + 1; lastSeq !== null && s < frame.seq; s++) {
      if (skipped.indexOf(s) === -1) { lost = true; break; }
    }
    apply(frame);
    if (lost) resync("after=" + lastSeq); // a message really went missing: ask the server
    else lastSeq = frame.seq;
  }

  function connect() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + window.location.host + "/ws/campaigns/" + campaignId + "/");
    setState("connecting");
    socket.onopen = function () { attempt = 0; setState("connected"); };
    socket.onmessage = onMessage;
    socket.onclose = function (event) {
      socket = null;
      if (event.code === 4403) { stopped = true; setState("noaccess"); return; } // may no longer see it
      if (event.code === 4404 || event.code === 4401) { stopped = true; setState("offline"); return; } // for good
      setState("reconnecting");
      // Exponential backoff with jitter, capped at 30 s, so a restarted server is not stampeded.
      var delay = Math.min(30000, 500 * Math.pow(2, attempt)) * (0.5 + Math.random() / 2);
      attempt += 1;
      window.setTimeout(connect, delay);
    };
  }

  // Back from a sleeping laptop or a hidden tab: reconnect now rather than after the backoff.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && !socket && !stopped) { attempt = 0; connect(); }
  });
  window.addEventListener("pagehide", function () { if (socket) { socket.onclose = null; socket.close(); } });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", connect);
  else connect();
  }
})();
