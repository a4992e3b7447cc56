/* The inbox's "browser notifications" button: registers the service worker, asks the browser for a push
   subscription with the server's VAPID key, and hands it to the server (the button's data attributes). */
(function () {
  "use strict";
  var button = document.querySelector("[data-push-subscribe]");
  if (!button) return;
  if (!("serviceWorker" in navigator) || !("PushManager" in window)) { button.hidden = true; return; }

  function key(base64) {
    var padded = (base64 + "===".slice((base64.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(padded), out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }

  function csrf() {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  button.addEventListener("click", function () {
    var status = document.querySelector("[data-push-state]");
    navigator.serviceWorker.register(button.getAttribute("data-worker"))
      .then(function (registration) {
        return registration.pushManager.subscribe({
          userVisibleOnly: true,
          applicationServerKey: key(button.getAttribute("data-push-subscribe"))
        });
      })
      .then(function (subscription) {
        return fetch(button.getAttribute("data-endpoint"), {
          method: "POST",
          credentials: "same-origin",
          headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
          body: JSON.stringify(subscription.toJSON())
        });
      })
      .then(function (response) {
        if (status) status.textContent = response.ok ? button.getAttribute("data-done") : button.getAttribute("data-failed");
      })
      .catch(function () { if (status) status.textContent = button.getAttribute("data-failed"); });
  });
})();
