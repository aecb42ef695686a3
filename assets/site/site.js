// cairn site: tabs, display preferences and the memory search. Everything
// the page shows is already in the HTML; this only hides, toggles and
// filters, and builds search results from text nodes (never innerHTML), so
// nothing a memory file holds can become markup here.
(function () {
  "use strict";
  var root = document.documentElement;
  var KEY = "cairn-site:";
  function load(k, d) {
    try { var v = localStorage.getItem(KEY + k); return v === null ? d : v; } catch (e) { return d; }
  }
  function save(k, v) {
    try { localStorage.setItem(KEY + k, v); } catch (e) { /* private mode: not remembered */ }
  }

  // Display: dark mode, wide mode, zoom.
  var dark = load("theme", window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
  var wide = load("wide", "false");
  var zoom = parseFloat(load("zoom", "1")) || 1;
  var themeBtn = document.getElementById("theme");
  var wideBtn = document.getElementById("wide");
  function apply() {
    root.setAttribute("data-theme", dark);
    root.setAttribute("data-wide", wide);
    root.style.setProperty("--zoom", String(zoom));
    themeBtn.setAttribute("aria-pressed", String(dark === "dark"));
    wideBtn.setAttribute("aria-pressed", String(wide === "true"));
  }
  themeBtn.addEventListener("click", function () { dark = dark === "dark" ? "light" : "dark"; save("theme", dark); apply(); });
  wideBtn.addEventListener("click", function () { wide = wide === "true" ? "false" : "true"; save("wide", wide); apply(); });
  function setZoom(z) { zoom = Math.round(Math.min(2, Math.max(0.6, z)) * 10) / 10; save("zoom", String(zoom)); apply(); }
  document.getElementById("zoom-in").addEventListener("click", function () { setZoom(zoom + 0.1); });
  document.getElementById("zoom-out").addEventListener("click", function () { setZoom(zoom - 0.1); });
  apply();

  // Tabs, as the ARIA authoring practices describe them: arrows move,
  // Home/End jump, the selected tab is the only one in the tab order.
  var tabs = Array.prototype.slice.call(document.querySelectorAll('[role="tab"]'));
  function select(tab, focus) {
    tabs.forEach(function (t) {
      var on = t === tab;
      t.setAttribute("aria-selected", String(on));
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
    });
    if (focus) tab.focus();
    save("tab", tab.id);
  }
  tabs.forEach(function (t, i) {
    t.addEventListener("click", function () { select(t, false); });
    t.addEventListener("keydown", function (e) {
      var j = null;
      if (e.key === "ArrowRight") j = (i + 1) % tabs.length;
      else if (e.key === "ArrowLeft") j = (i - 1 + tabs.length) % tabs.length;
      else if (e.key === "Home") j = 0;
      else if (e.key === "End") j = tabs.length - 1;
      if (j !== null) { e.preventDefault(); select(tabs[j], true); }
    });
  });
  var first = document.getElementById(load("tab", "")) || tabs[0];
  select(tabs.indexOf(first) >= 0 ? first : tabs[0], false);

  // Search: every word of the query, folded like the index, must appear.
  var index = JSON.parse(document.getElementById("search-index").textContent || "{}");
  var files = index.files || [];
  var dates = index.dates || [];
  var sections = index.sections || [];
  var rows = index.rows || [];
  function fold(s) {
    return s.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  }
  var folded = null;
  var input = document.getElementById("q");
  var list = document.getElementById("results");
  var status = document.getElementById("search-status");
  var MAX = 50;
  function search() {
    var q = fold(input.value).split(/\s+/).filter(Boolean);
    while (list.firstChild) list.removeChild(list.firstChild);
    if (!q.length) { status.textContent = ""; return; }
    if (!folded) folded = rows.map(function (r) { return fold(r[3] + " " + sections[r[2]]); });
    var hits = 0;
    for (var i = rows.length - 1; i >= 0; i--) {
      var t = folded[i];
      if (!q.every(function (w) { return t.indexOf(w) >= 0; })) continue;
      hits++;
      if (hits > MAX) continue;
      var r = rows[i];
      var li = document.createElement("li");
      var meta = document.createElement("span");
      meta.className = "date";
      var date = dates[r[0]];
      meta.textContent = (date ? date + " · " : "") + (sections[r[2]] || "") + " ";
      var text = document.createElement("span");
      text.textContent = r[3];
      var a = document.createElement("a");
      a.className = "loc";
      a.href = encodeURI(files[r[0]]) + "#L" + r[1];
      a.textContent = " " + files[r[0]] + ":" + r[1];
      li.appendChild(meta); li.appendChild(text); li.appendChild(a);
      list.appendChild(li);
    }
    status.textContent = hits === 0 ? "No match." : hits > MAX ? hits + " matches, the newest " + MAX + " shown." : hits + (hits === 1 ? " match." : " matches.");
  }
  input.addEventListener("input", search);
})();
