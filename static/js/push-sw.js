/* Tintero's service worker: shows a Web Push notification (title, body, url: notifications/push.py) and
   opens its page when clicked. */
self.addEventListener("push", function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = {}; }
  event.waitUntil(self.registration.showNotification(data.title || "Tintero", {
    body: data.body || "",
    data: { url: data.url || "/avisos/" },
    tag: data.url || undefined
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  event.waitUntil(self.clients.openWindow(event.notification.data.url));
});
