/* checkspec view: the runs list (pass-rate trend as inline SVG, pick two runs to compare),
   over the viewer's JSON endpoints. Loaded before report.js, which renders the page. */
(function () {
  "use strict";
  function esc(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function tag(name, attrs, inner) {
    var out = "<" + name;
    for (var key in attrs) out += " " + key + '="' + esc(attrs[key]) + '"';
    return out + ">" + (inner || "") + "</" + name + ">";
  }
  function rate(run) {
    var c = run.counts || run.summary || {};
    var ran = (c.pass || 0) + (c.fail || 0) + (c.error || 0);
    return ran ? (c.pass || 0) / ran : null;
  }
  /* The pass rate of each run, oldest first, as inline SVG markup (the HTML parser gives
     it the SVG namespace; every text in it is escaped). */
  function chart(runs) {
    var points = runs.slice().reverse().filter(function (r) { return rate(r) !== null; });
    var width = 1000, height = 160, left = 36, right = 10, top = 10, bottom = 12;
    var inner = "", span = height - top - bottom;
    [0, 0.5, 1].forEach(function (y) {
      var py = top + (1 - y) * span;
      inner += tag("line", { class: "grid", x1: left, x2: width - right, y1: py, y2: py });
      inner += tag("text", { x: 4, y: py + 3 }, Math.round(y * 100) + "%");
    });
    var step = points.length > 1 ? (width - left - right) / (points.length - 1) : 0;
    var coords = points.map(function (r, i) {
      return [points.length > 1 ? left + i * step : (left + width - right) / 2, top + (1 - rate(r)) * span];
    });
    if (coords.length > 1) inner += tag("polyline", { class: "line", points: coords.map(function (c) { return c.join(","); }).join(" ") });
    coords.forEach(function (c, i) {
      inner += tag("circle", { class: "dot", cx: c[0], cy: c[1], r: 4 }, tag("title", {}, esc(points[i].id + ": " + (rate(points[i]) * 100).toFixed(1) + "%")));
    });
    var holder = document.createElement("div");
    holder.innerHTML = tag("svg", { viewBox: "0 0 " + width + " " + height, role: "img", "aria-label": "pass rate per run, oldest first" }, inner);
    return holder.firstChild;
  }
  function runs(data, root) {
    var page = window.checkspecPage, el = page.el;
    root.appendChild(el("h1", { text: "checkspec runs" }));
    root.appendChild(el("div", { class: "meta" }, [el("span", { text: data.history || "" })]));
    var status = el("p", { class: "muted", text: "Loading runs…" });
    root.appendChild(status);
    fetch("api/runs?limit=" + (data.limit || 200)).then(function (r) { return r.json(); }).then(function (answer) {
      var list = answer.runs || [];
      status.remove();
      if (!list.length) { root.appendChild(el("div", { class: "empty", text: "No runs recorded yet: run `checkspec run` first." })); return; }
      root.appendChild(el("h2", { text: "Pass rate" }));
      root.appendChild(el("div", { class: "chart", id: "trend" }, [chart(list)]));
      var picked = [];
      var button = el("button", { class: "more", id: "compare", disabled: true, text: "Compare the two picked runs",
        onclick: function () {
          var order = picked.slice().sort(function (a, b) { return list.indexOf(b) - list.indexOf(a); });
          location.href = "compare?base=" + encodeURIComponent(order[0].id) + "&head=" + encodeURIComponent(order[1].id);
        } });
      var rows = list.map(function (run) {
        var c = run.counts || {}, git = run.git || {};
        var box = el("input", { type: "checkbox", "aria-label": "pick " + run.id });
        var row = el("tr", { "data-id": run.id }, [
          el("td", null, [box]),
          el("td", null, [el("a", { href: "runs/" + encodeURIComponent(run.id), text: run.id })]),
          el("td", { text: run.started || "" }),
          el("td", { text: String(c.pass || 0) }), el("td", { text: String(c.fail || 0) }),
          el("td", { text: String(c.error || 0) }), el("td", { text: String(c.skip || 0) }),
          el("td", { text: page.percent(rate(run)) }),
          el("td", { text: page.seconds(run.duration_s) }),
          el("td", { text: git.commit ? String(git.commit).slice(0, 10) + (git.dirty ? " (dirty)" : "") : "" }),
          el("td", { text: run.target || "" }),
        ]);
        box.addEventListener("change", function () {
          if (box.checked) { picked.push(run); if (picked.length > 2) { var out = picked.shift(); out._box.checked = false; out._row.className = ""; } }
          else picked = picked.filter(function (p) { return p !== run; });
          row.className = box.checked ? "picked" : "";
          button.disabled = picked.length !== 2;
        });
        run._box = box; run._row = row;
        return row;
      });
      root.appendChild(el("h2", null, ["Runs ", el("span", { class: "section-count", text: "(" + list.length + ", newest first; pick two to compare)" })]));
      root.appendChild(el("table", { id: "runs" }, [el("tr", null, ["", "run", "started", "pass", "fail", "error", "skip", "pass rate", "duration", "git", "target"].map(function (h) { return el("th", { text: h }); }))].concat(rows)));
      root.appendChild(button);
    }, function (error) { status.textContent = "Could not list the runs: " + error; });
  }
  window.checkspecViews = { runs: runs };
})();
