/* checkspec calibrate --format html: each judge's agreement with the labels, its confusion
   matrix and disagreements. Loaded before report.js, which loads the data and calls this
   view; every text goes in through textContent (report.js's el). */
(function () {
  "use strict";
  function pct(value) { return value === null || value === undefined ? "-" : (value * 100).toFixed(1) + "%"; }
  function num(value) { return value === null || value === undefined ? "-" : value.toFixed(3); }
  function calibration(data, root) {
    var el = window.checkspecPage.el, meta = data.calibration || {};
    root.appendChild(el("h1", { text: "Judge calibration " + (meta.id || "") }));
    root.appendChild(el("div", { class: "meta" }, [
      el("span", { text: (meta.labels || 0) + " labelled check(s)" }),
      el("span", { text: (meta.repeat || 1) + " run(s) each" }),
      el("span", { text: meta.spent || ("cost " + (meta.cost || "$?")) }),
      el("span", { text: "fail is the positive class" }),
    ]));
    var repeat = (meta.repeat || 1) > 1;
    var head = ["judge", "n", "agreement", "kappa", "precision (fail)", "recall (fail)"];
    if (repeat) head.push("consistent");
    head.push("errors");
    var rows = (data.judges || []).map(function (judge) {
      var cells = [judge.judge, String(judge.n), pct(judge.agreement), num(judge.kappa), pct(judge.precision), pct(judge.recall)];
      if (repeat) cells.push(pct(judge.consistency));
      cells.push(String(judge.errors));
      return el("tr", { class: "judge" }, cells.map(function (c) { return el("td", { text: c }); }));
    });
    root.appendChild(el("table", { class: "judges" }, [
      el("thead", null, [el("tr", null, head.map(function (h) { return el("th", { text: h }); }))]),
      el("tbody", null, rows),
    ]));
    (data.judges || []).forEach(function (judge) {
      var m = judge.confusion || {};
      root.appendChild(el("h2", { text: judge.judge }));
      root.appendChild(el("table", { class: "confusion" }, [
        el("tr", null, [el("th"), el("th", { text: "judge fail" }), el("th", { text: "judge pass" })]),
        el("tr", null, [el("th", { text: "label fail" }), el("td", { text: String(m.tp) }), el("td", { text: String(m.fn) })]),
        el("tr", null, [el("th", { text: "label pass" }), el("td", { text: String(m.fp) }), el("td", { text: String(m.tn) })]),
      ]));
      var list = (judge.disagreements || []).concat(judge.not_judged || []);
      if (!list.length) return;
      root.appendChild(el("table", { class: "disagreements" }, [
        el("tr", null, ["where", "scenario", "label", "judge", "reason"].map(function (h) { return el("th", { text: h }); })),
      ].concat(list.map(function (d) {
        return el("tr", { class: "disagreement" }, [
          el("td", { text: d.file + ":" + d.line }),
          el("td", { text: d.scenario }),
          el("td", null, [el("span", { class: "badge " + d.expect, text: d.expect })]),
          el("td", null, [el("span", { class: "badge " + d.verdict, text: d.verdict })]),
          el("td", null, [window.checkspecPage.longText("span", { class: "reason" }, d.reason)]),
        ]);
      }))));
    });
    (data.side_by_side || []).forEach(function (group) {
      root.appendChild(el("h2", { text: "Side by side on " + group.labels + " shared label(s)" }));
      root.appendChild(el("table", { class: "side-by-side" }, [
        el("tr", null, ["judge", "agreement", "kappa", "precision (fail)", "recall (fail)"].map(function (h) { return el("th", { text: h }); })),
      ].concat((group.judges || []).map(function (judge) {
        return el("tr", { class: "compared" }, [judge.judge, pct(judge.agreement), num(judge.kappa), pct(judge.precision), pct(judge.recall)].map(function (c) { return el("td", { text: c }); }));
      })).concat((group.differ || []).map(function (d) {
        return el("tr", { class: "differ" }, [
          el("td", { text: d.where }), el("td", { text: "labelled " + d.expect }),
          el("td", { colspan: "3", text: (d.verdicts || []).join(" / ") }),
        ]);
      }))));
    });
  }
  window.checkspecViews = window.checkspecViews || {};
  window.checkspecViews.calibration = calibration;
})();
