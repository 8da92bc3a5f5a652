// runbook-bot web pages: a little plain JavaScript, no build step. The pages work without it.
(function () {
  "use strict";

  // "/" focuses the question box, unless the person is already typing somewhere.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    var typing = target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
    if (typing) return;
    var box = document.getElementById("q");
    if (!box) return;
    event.preventDefault();
    box.focus();
    box.select();
  });

  // Say that the answer is on its way, and keep a double click from asking twice.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var button = form.querySelector("button[data-busy]");
    if (!button) return;
    if (form.dataset.sent === "1") {
      event.preventDefault();
      return;
    }
    form.dataset.sent = "1";
    button.dataset.label = button.textContent;
    button.textContent = button.getAttribute("data-busy");
    button.setAttribute("aria-disabled", "true");
  });

  // Coming back with the browser's back button: the form may be used again.
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[data-sent]").forEach(function (form) {
      delete form.dataset.sent;
      var button = form.querySelector("button[data-busy]");
      if (button) {
        button.removeAttribute("aria-disabled");
        if (button.dataset.label) button.textContent = button.dataset.label;
      }
    });
  });
})();
