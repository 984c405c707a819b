// The list's live filter: as the search or a menu changes, ask the server
// for the matching list (the same filter as the form's, which works
// without script) and put it in place. No library: the page needs nothing
// else.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var list = document.getElementById("list");
  if (!form || !list) {
    return;
  }
  form.classList.add("live");
  var timer = null;
  var pending = null;
  function refresh() {
    var params = new URLSearchParams(new FormData(form));
    Array.from(params.keys()).forEach(function (k) {
      if (!params.get(k)) {
        params.delete(k);
      }
    });
    var query = params.toString();
    history.replaceState(null, "", query ? "?" + query : location.pathname);
    params.set("fragment", "1");
    if (pending) {
      pending.abort();
    }
    pending = new AbortController();
    list.setAttribute("aria-busy", "true");
    fetch("/?" + params.toString(), { signal: pending.signal, credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) {
          throw new Error("HTTP " + r.status);
        }
        return r.text();
      })
      .then(function (html) {
        list.innerHTML = html; // the server's own escaped HTML
        list.removeAttribute("aria-busy");
      })
      .catch(function (e) {
        if (e.name !== "AbortError") {
          list.removeAttribute("aria-busy");
          list.insertAdjacentHTML("afterbegin", '<p class="error">The list could not be updated; reload the page.</p>');
        }
      });
  }
  function later() {
    clearTimeout(timer);
    timer = setTimeout(refresh, 120);
  }
  form.addEventListener("input", later);
  form.addEventListener("change", later);
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    clearTimeout(timer);
    refresh();
  });
})();
