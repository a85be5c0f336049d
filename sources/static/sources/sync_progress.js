// The progress bar of a source's sync on its admin page: polls the progress URL every second while
// the sync is queued or running, and stops once it is done or failed.
(function () {
  "use strict";
  var box = document.getElementById("source-sync");
  if (!box) return;
  var bar = document.getElementById("sync-progress");
  var status = document.getElementById("sync-status");
  var url = box.getAttribute("data-progress-url");

  function show(data) {
    bar.max = Math.max(1, data.total);
    bar.value = data.done;
    box.setAttribute("data-status", data.status);
    if (data.status === "none") {
      status.textContent = "Never synced.";
    } else {
      status.textContent = data.status + ": " + data.done + " of " + data.total + " pages";
    }
    return data.status === "queued" || data.status === "running";
  }

  function poll() {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.json(); })
      .then(function (data) { if (show(data)) window.setTimeout(poll, 1000); })
      .catch(function () { window.setTimeout(poll, 3000); });
  }
  poll();
})();
