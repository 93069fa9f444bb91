/* checkspec's report and compare pages: data from the embedded JSON, rows rendered a page
   at a time (hand-written, no framework; every text goes in through textContent). */
(function () {
  "use strict";
  var PAGE = 100;
  var ORDER = { error: 0, fail: 1, skip: 2, pass: 3 };

  function el(tag, attrs, kids) {
    var node = document.createElement(tag);
    if (attrs) for (var key in attrs) {
      var value = attrs[key];
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key === "class") node.className = value;
      else if (key.slice(0, 2) === "on") node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    (kids || []).forEach(function (kid) {
      if (kid === null || kid === undefined || kid === false) return;
      node.appendChild(typeof kid === "string" ? document.createTextNode(kid) : kid);
    });
    return node;
  }
  function text(value) {
    if (value === null || value === undefined) return "";
    return typeof value === "string" ? value : JSON.stringify(value, null, 2);
  }
  /* A long text (an output of 1 MB of one character took the browser 46 s to lay out) is
     shown cut to CUT characters, with buttons that show CUT more, or all of it. */
  var CUT = 20000;
  function longText(tag, attrs, value) {
    var full = text(value), node = el(tag, attrs);
    if (full.length <= CUT) { node.textContent = full; return node; }
    var shown = CUT;
    var note = el("span", { class: "muted cut-note" });
    var more = el("button", { class: "more show-more", text: "show more", onclick: function () { shown += CUT * 4; draw(); } });
    var all = el("button", { class: "more show-all", text: "show all", onclick: function () { shown = full.length; draw(); } });
    function draw() {
      node.textContent = full.slice(0, shown);
      var left = full.length - shown;
      note.textContent = left > 0 ? "… " + left.toLocaleString() + " more characters (" + full.length.toLocaleString() + " in all) " : "";
      more.style.display = all.style.display = left > 0 ? "" : "none";
    }
    draw();
    return el("div", { class: "long-text" }, [node, el("div", null, [note, more, " ", all])]);
  }
  function short(value, n) { var t = text(value); return t.length > n ? t.slice(0, n) + "…" : t; }
  function badge(status) { return el("span", { class: "badge " + (status || "none"), text: status || "—" }); }
  function seconds(s) { return s === null || s === undefined ? "—" : s < 1 ? Math.round(s * 1000) + " ms" : s.toFixed(2) + " s"; }
  function percent(x) { return x === null || x === undefined ? "—" : (x * 100).toFixed(1) + "%"; }
  function card(label, value, cls) { return el("div", { class: "card " + (cls || "") }, [el("b", { text: String(value) }), el("small", { text: label })]); }

  /* ---- one scenario ---- */
  function turnsOf(interaction) {
    var turns = [], inputs = interaction.inputs, outputs = interaction.outputs;
    function add(role, value) { turns.push({ role: role, content: value }); }
    function messages(value, role) {
      if (value && Array.isArray(value.messages)) value.messages.forEach(function (m) { add(m.role || role, m.content); });
      else if (Array.isArray(value) && value.length && value[0] && value[0].role) value.forEach(function (m) { add(m.role || role, m.content); });
      else if (value && typeof value === "object" && value.role && "content" in value) add(value.role, value.content);
      else if (value && typeof value === "object" && value.response !== undefined) {
        messages(value.response, role);
        var rest = {};
        for (var k in value) if (k !== "response") rest[k] = value[k];
        if (Object.keys(rest).length) add("outputs", rest);
      } else if (value !== undefined && value !== null) add(role, value);
    }
    messages(inputs, "user");
    messages(outputs, "assistant");
    return turns;
  }
  /* What the agent did in a turn, as `capture: otel` recorded it (docs/capture.md). */
  function oneLine(value, n) { var t = JSON.stringify(value) || ""; return t.length > n ? t.slice(0, n) + "…" : t; }
  function activityOf(interaction) {
    var m = interaction.metadata;
    if (!m || typeof m.span_count !== "number") return null;
    var tools = Array.isArray(m.tool_calls) ? m.tool_calls : [], models = Array.isArray(m.model_calls) ? m.model_calls : [];
    var lines = [];
    tools.forEach(function (c) {
      var line = "tool " + String(c.name) + "(" + oneLine(c.arguments, 200) + ")";
      if (c.result !== null && c.result !== undefined) line += " → " + oneLine(c.result, 200);
      if (c.error) line += "  ERROR " + String(c.error);
      lines.push(line);
    });
    models.forEach(function (c) {
      lines.push("model " + String(c.model) + ": " + (typeof c.token_count === "number" ? c.token_count + " tokens, " : "") +
        Math.round(Number(c.latency_ms) || 0) + " ms" + (c.error ? "  ERROR " + String(c.error) : ""));
    });
    lines.push(tools.length + " tool call(s), " + models.length + " model call(s)" +
      (typeof m.token_count === "number" ? ", " + m.token_count + " tokens" : "") + ", " + Math.round(Number(m.latency_ms) || 0) + " ms");
    return el("div", { class: "turn activity" }, [el("div", { class: "role", text: "did" }), longText("pre", { class: "calls" }, lines.join("\n"))]);
  }
  var EXPECTED = ["expected_value", "expected", "expected_output", "reference", "keyword", "pattern", "expected_schema"];
  var ACTUAL = ["actual_value", "actual", "output", "text", "value"];
  function pick(details, keys) {
    for (var i = 0; i < keys.length; i++) if (details && details[keys[i]] !== undefined) return { key: keys[i], value: details[keys[i]] };
    return null;
  }
  /* A line diff (LCS over lines, small inputs) marking what is only in one side. */
  function diffLines(a, b) {
    var x = a.split("\n"), y = b.split("\n");
    if (x.length * y.length > 250000) return null;
    var n = x.length, m = y.length, table = [];
    for (var i = 0; i <= n; i++) { table.push(new Int32Array(m + 1)); }
    for (i = n - 1; i >= 0; i--) for (var j = m - 1; j >= 0; j--)
      table[i][j] = x[i] === y[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
    var left = [], right = [];
    i = 0; j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && x[i] === y[j]) { left.push([x[i], 0]); right.push([y[j], 0]); i++; j++; }
      else if (j < m && (i >= n || table[i][j + 1] >= table[i + 1][j])) { right.push([y[j], 1]); j++; }
      else { left.push([x[i], 1]); i++; }
    }
    return [left, right];
  }
  function diffView(expected, actual) {
    var a = text(expected.value), b = text(actual.value);
    var lines = a.length + b.length > CUT ? null : diffLines(a, b);
    function side(title, rows, tag) {
      var pre = el("pre");
      rows.forEach(function (row, k) {
        if (k) pre.appendChild(document.createTextNode("\n"));
        pre.appendChild(row[1] ? el(tag, { text: row[0] }) : document.createTextNode(row[0]));
      });
      return el("div", null, [el("h4", { text: title }), pre]);
    }
    if (!lines) return el("div", { class: "diff" }, [el("div", null, [el("h4", { text: "expected (" + expected.key + ")" }), longText("pre", null, a)]), el("div", null, [el("h4", { text: "actual (" + actual.key + ")" }), longText("pre", null, b)])]);
    return el("div", { class: "diff" }, [side("expected (" + expected.key + ")", lines[0], "del"), side("actual (" + actual.key + ")", lines[1], "ins")]);
  }
  /* On a judged check (its details name the model), "Label as correct / incorrect": the
     `checkspec label FILE:LINE pass|fail` command that writes a person's label (`expect:`),
     copied to the clipboard and shown (a page from file:// writes no file). On a live run
     kept in the history, `--from-run ID` records the answer the judge saw first. */
  function shellWord(text) { return /^[\w@%+=:,.\/-]+$/.test(text) ? text : "'" + text.replace(/'/g, "'\\''") + "'"; }
  function labelView(result, file, fromRun) {
    var details = result.details || {};
    if (!file || !result.line || !details.model || (result.status !== "pass" && result.status !== "fail")) return null;
    var shown = el("code", { class: "muted label-command" });
    function offer(word, value) {
      var command = "checkspec label " + shellWord(file + ":" + result.line) + " " + value + (fromRun ? " --from-run " + shellWord(fromRun) : "");
      return el("button", { class: "more label-as", title: command, text: "Label as " + word, onclick: function () {
        shown.textContent = command;
        var clip = typeof navigator !== "undefined" && navigator.clipboard;
        if (clip) clip.writeText(command).catch(function () {});
      } });
    }
    return el("div", { class: "label" }, [offer("correct", result.status), " ", offer("incorrect", result.status === "pass" ? "fail" : "pass"), " ", shown]);
  }
  function checkView(result, repeat, file, fromRun) {
    var details = result.details || {};
    var expected = pick(details, EXPECTED), actual = pick(details, ACTUAL);
    var kids = [
      el("div", { class: "head" }, [badge(result.status), el("span", { class: "kind", text: result.check || details.check_kind || "check" }),
        result.line ? el("span", { class: "muted", text: "line " + result.line }) : null,
        repeat ? el("span", { class: repeat.passed > 0 && repeat.passed < repeat.runs ? "flaky" : "muted", title: "passed / runs over the repeats",
          text: "passed " + repeat.passed + "/" + repeat.runs + " (" + percent(repeat.rate) + ")" }) : null]),
      result.message ? longText("p", { class: "reason" }, result.message) : null,
    ];
    if (expected && actual && result.status !== "pass") kids.push(diffView(expected, actual));
    if (Object.keys(details).length) {
      kids.push(el("details", null, [el("summary", { class: "muted", text: "details" }), longText("pre", null, details)]));
    }
    kids.push(labelView(result, file, fromRun));
    return el("div", { class: "check " + (result.status || "") }, kids);
  }
  function scenarioBody(s) {
    var body = el("div", { class: "body" });
    var interactions = (s.final_trace && s.final_trace.interactions) || [];
    if (interactions.length) {
      body.appendChild(el("h2", { text: "Conversation" }));
      interactions.forEach(function (interaction) {
        turnsOf(interaction).forEach(function (t) {
          body.appendChild(el("div", { class: "turn " + t.role }, [el("div", { class: "role", text: t.role }), longText("div", { class: "msg" }, t.content)]));
        });
        var did = activityOf(interaction);
        if (did) body.appendChild(did);
      });
    }
    body.appendChild(el("h2", { text: "Checks" }));
    var repeats = {};
    ((s.repeats && s.repeats.checks) || []).forEach(function (c) { repeats[c.step + ":" + c.index] = c; });
    (s.steps || []).forEach(function (step, k) {
      if ((s.steps || []).length > 1) body.appendChild(el("div", { class: "muted", text: "step " + (k + 1) + (s.step_lines && s.step_lines[k] ? " (line " + s.step_lines[k] + ")" : "") + ": " + step.status }));
      if (step.error) body.appendChild(longText("pre", null, step.error));
      if (step.skip_reason) body.appendChild(el("p", { class: "muted", text: "skipped: " + step.skip_reason }));
      (step.results || []).forEach(function (r, i) { body.appendChild(checkView(r, repeats[k + ":" + i], s.file, s.label_run)); });
    });
    if (s.repeats) {
      body.appendChild(el("h2", { text: "Repeats" }));
      body.appendChild(el("p", { text: "passed " + s.repeats.passed + " of " + s.repeats.runs + " (" + percent(s.repeats.rate) + ")" + (s.repeats.flaky ? ", flaky" : "") +
        (s.repeats.statuses ? ": " + s.repeats.statuses.join(" ") : "") }));
    }
    if (s.output) { body.appendChild(el("h2", { text: "Captured output" })); body.appendChild(longText("pre", null, s.output)); }
    if (s.rerun) body.appendChild(el("p", { class: "muted", text: "re-run: " + s.rerun }));
    return body;
  }
  function scenarioRow(s, extra, makeBody) {
    var row = el("details", { class: "row", "data-status": s.status, "data-section": s.section || null, "data-id": s.id || "" }, [
      el("summary", null, [badge(s.status), el("span", { class: "name", text: short(s.scenario_name || s.name || s.id, 300) }),
        extra || null,
        s.repeats && s.repeats.flaky ? el("span", { class: "flaky", title: "verdicts differ across repeats", text: "flaky" }) : null,
        s.repeats ? el("span", { class: "muted", title: "passed / runs", text: percent(s.repeats.rate) + " (" + s.repeats.passed + "/" + s.repeats.runs + ")" }) : null,
      ].concat((s.tags || []).map(function (t) { return el("span", { class: "tag", text: short(t, 100) }); })).concat([
        el("span", { class: "where", text: short(s.file || "", 300) + (s.line ? ":" + s.line : "") }),
        el("span", { class: "dur", text: s.duration_ms !== undefined ? seconds(s.duration_ms / 1000) : "" })])),
    ]);
    var filled = false;
    row.addEventListener("toggle", function () { if (row.open && !filled) { filled = true; row.appendChild(makeBody ? makeBody() : scenarioBody(s)); } });
    return row;
  }

  /* ---- a filtered, paged list ---- */
  function searchText(s) {
    if (s._search === undefined) {
      var parts = [s.scenario_name || "", s.id || "", s.file || "", (s.tags || []).join(" "), s.reason || ""];
      (s.steps || []).forEach(function (step) { (step.results || []).forEach(function (r) { parts.push(r.message || "", r.check || ""); }); });
      s._search = parts.join("\n").toLowerCase();
    }
    return s._search;
  }
  function listView(items, options) {
    /* items: [{scenario, status, extra}] */
    var state = { status: "all", tag: "", file: "", query: "", shown: PAGE };
    var rows = el("div", { class: "rows", id: "rows" });
    var count = el("span", { class: "count", id: "count" });
    var more = el("button", { class: "more", text: "Show more", onclick: function () { state.shown += PAGE; draw(); } });
    var statuses = ["all"].concat(options.failing ? ["failing"] : [], options.statuses);
    var buttons = statuses.map(function (name) {
      var label = name === "failing" ? "fail + error" : (options.labels || {})[name] || name;
      return el("button", { "data-status": name, "aria-pressed": name === "all" ? "true" : "false", text: label,
        onclick: function () { state.status = name; state.shown = PAGE; buttons.forEach(function (b) { b.setAttribute("aria-pressed", b === this ? "true" : "false"); }, this); draw(); } });
    });
    var tags = {}, files = {};
    items.forEach(function (item) { (item.scenario.tags || []).forEach(function (t) { tags[t] = 1; }); if (item.scenario.file) files[item.scenario.file] = 1; });
    function select(label, values, key) {
      var node = el("select", { "aria-label": label, id: "filter-" + key, onchange: function () { state[key] = node.value; state.shown = PAGE; draw(); } },
        [el("option", { value: "", text: "all " + label + "s" })].concat(Object.keys(values).sort().map(function (v) { return el("option", { value: v, text: v }); })));
      return node;
    }
    var timer = null;
    var search = el("input", { type: "search", id: "search", placeholder: "Search names, ids, reasons…", "aria-label": "search",
      oninput: function () { clearTimeout(timer); timer = setTimeout(function () { state.query = search.value.trim().toLowerCase(); state.shown = PAGE; draw(); }, 120); } });
    var bar = el("div", { class: "toolbar" }, buttons.concat([
      Object.keys(tags).length ? select("tag", tags, "tag") : null, Object.keys(files).length > 1 ? select("file", files, "file") : null, search, count]));
    function keep(item) {
      var s = item.scenario, status = item.status;
      if (state.status === "flaky") { if (!(s.repeats && s.repeats.flaky)) return false; }
      else if (state.status === "failing" ? status !== "fail" && status !== "error" : state.status !== "all" && status !== state.status) return false;
      if (state.tag && (s.tags || []).indexOf(state.tag) < 0) return false;
      if (state.file && s.file !== state.file) return false;
      return !state.query || searchText(s).indexOf(state.query) >= 0;
    }
    function draw() {
      var kept = items.filter(keep);
      rows.textContent = "";
      kept.slice(0, state.shown).forEach(function (item) { rows.appendChild(scenarioRow(item.scenario, item.extra, item.body)); });
      if (!kept.length) rows.appendChild(el("div", { class: "empty", text: "No scenario matches." }));
      count.textContent = "showing " + Math.min(kept.length, state.shown) + " of " + kept.length + (kept.length !== items.length ? " (" + items.length + " in all)" : "");
      more.style.display = kept.length > state.shown ? "" : "none";
    }
    if ("IntersectionObserver" in window) {
      new IntersectionObserver(function (entries) { if (entries[0].isIntersecting && more.style.display !== "none") { state.shown += PAGE; draw(); } }).observe(more);
    }
    draw();
    return el("div", null, [bar, rows, more]);
  }

  /* ---- the report page ---- */
  function modelsText(models) {
    if (!models) return "";
    if (Array.isArray(models)) return models.join(", ");
    return Object.keys(models).filter(function (k) { return models[k]; }).map(function (k) { return k + " " + models[k]; }).join(", ");
  }
  function counts(scenarios) {
    var c = { pass: 0, fail: 0, error: 0, skip: 0 };
    scenarios.forEach(function (s) { c[s.status] = (c[s.status] || 0) + 1; });
    return c;
  }
  function report(data, root) {
    var scenarios = data.scenarios || [];
    var c = data.summary || counts(scenarios), run = data.run || {};
    // A label on a live answer records it from this run (kept in the history) first.
    if (run.id) scenarios.forEach(function (s) { if (!s.replayed) s.label_run = String(run.id); });
    var total = (c.pass || 0) + (c.fail || 0) + (c.error || 0) + (c.skip || 0);
    var ran = total - (c.skip || 0);
    var usage = data.usage || {};
    var git = run.git || {};
    root.appendChild(el("h1", { text: data.title || "checkspec run" + (run.id ? " " + run.id : "") }));
    root.appendChild(el("div", { class: "meta" }, [
      run.started ? el("span", { text: "started " + run.started }) : null,
      git.commit ? el("span", { text: "git " + String(git.commit).slice(0, 10) + (git.dirty ? " (dirty)" : "") }) : null,
      run.target ? el("span", { text: "target " + run.target }) : null,
      modelsText(run.models) ? el("span", { text: "models " + modelsText(run.models) }) : null,
      data.interrupted ? el("span", { text: "interrupted" }) : null,
      el("span", { text: "overall " + (data.status || "—") }),
    ]));
    root.appendChild(el("div", { class: "cards", id: "summary" }, [
      card("scenarios", total), card("passed", c.pass || 0, "pass"), card("failed", c.fail || 0, "fail"),
      card("errored", c.error || 0, "error"), card("skipped", c.skip || 0), card("pass rate", ran ? percent((c.pass || 0) / ran) : "—"),
      card("duration", seconds(data.duration_s !== undefined ? data.duration_s : run.duration_s)),
      run.repeat > 1 ? card("repeats", run.repeat + "×") : null,
      run.repeat > 1 ? card("flaky", scenarios.filter(function (s) { return s.repeats && s.repeats.flaky; }).length, "error") : null,
      usage.requests !== undefined ? card("LLM requests", usage.requests + (usage.failed ? " (" + usage.failed + " failed)" : "")) : null,
      usage.requests !== undefined ? card("cached", usage.cached || 0) : null,
      usage.requests !== undefined ? card("tokens", ((usage.prompt_tokens || 0) + (usage.completion_tokens || 0)).toLocaleString()) : null,
      usage.cost !== undefined ? card("cost", usage.cost) : null,
    ]));
    if (total) {
      root.appendChild(el("div", { class: "bar", title: "pass / fail / error / skip" }, ["pass", "fail", "error", "skip"].map(function (k) {
        return el("i", { class: k, style: "width:" + (100 * (c[k] || 0) / total) + "%" });
      })));
    }
    var items = scenarios.map(function (s, k) { return { scenario: s, status: s.status, order: k }; });
    items.sort(function (a, b) { return (ORDER[a.status] - ORDER[b.status]) || a.order - b.order; });
    var flaky = scenarios.filter(function (s) { return s.repeats && s.repeats.flaky; }).length;
    root.appendChild(listView(items, { failing: true, statuses: ["pass", "fail", "error", "skip"].concat(flaky ? ["flaky"] : []) }));
  }

  /* ---- the compare page ---- */
  var SECTIONS = [["newly_failing", "newly failing"], ["fixed", "fixed"], ["still_failing", "still failing"],
    ["changed_outputs", "output changed"], ["added", "added"], ["removed", "removed"]];
  function runLabel(run) {
    var git = run.git || {};
    return [run.started ? "started " + run.started : null, git.commit ? "git " + String(git.commit).slice(0, 10) + (git.dirty ? " (dirty)" : "") : null,
      run.target ? "target " + run.target : null].filter(Boolean).join(", ");
  }
  function rateTable(title, rates) {
    if (!rates || !rates.length) return null;
    function cell(passed, total, rate) { return el("td", { text: total ? percent(rate) + " (" + passed + "/" + total + ")" : "—" }); }
    return el("div", null, [el("h2", { text: title }), el("table", null, [
      el("tr", null, ["", "base", "head", "change"].map(function (h) { return el("th", { text: h }); }))].concat(rates.map(function (r) {
        var delta = r.delta === null || r.delta === undefined ? "" : (r.delta > 0 ? "+" : "") + (r.delta * 100).toFixed(1) + " pts";
        return el("tr", null, [el("td", { text: r.name }), cell(r.base_passed, r.base_total, r.base_rate), cell(r.head_passed, r.head_total, r.head_rate),
          el("td", { class: r.delta < 0 ? "worse" : r.delta > 0 ? "better" : "", text: delta })]);
      })))]);
  }
  function changeBody(entry, section, sides) {
    var body = el("div", { class: "body" });
    if (entry.reason) body.appendChild(longText("p", { class: "reason" }, entry.reason));
    if (section === "changed_outputs") {
      body.appendChild(el("h2", { text: "Interaction " + (entry.interaction + 1) + ": the same input" }));
      body.appendChild(longText("pre", null, entry.inputs));
      body.appendChild(diffView({ key: "base", value: entry.base_output }, { key: "head", value: entry.head_output }));
    }
    if (sides.head) { body.appendChild(el("h2", { text: "In head" })); body.appendChild(scenarioBody(sides.head)); }
    if (sides.base) {
      body.appendChild(el("details", null, [el("summary", { class: "muted", text: "In base (" + (sides.base.status || "") + ")" }), scenarioBody(sides.base)]));
    }
    return body;
  }
  function compare(data, root) {
    var base = data.base || {}, head = data.head || {}, details = data.scenarios || {};
    root.appendChild(el("h1", { text: "Compare " + (base.id || "base") + " → " + (head.id || "head") }));
    root.appendChild(el("div", { class: "meta" }, [el("span", { text: "base: " + runLabel(base) }), el("span", { text: "head: " + runLabel(head) })]));
    if (data.note) root.appendChild(el("p", { class: "note", text: data.note }));
    var cards = SECTIONS.map(function (pair) {
      return card(pair[1], (data[pair[0]] || []).length, pair[0] === "newly_failing" ? "fail" : pair[0] === "fixed" ? "pass" : "");
    });
    cards.push(card("pass rate", percent(base.pass_rate) + " → " + percent(head.pass_rate)));
    cards.push(card("in common", data.common !== undefined ? data.common : "—"));
    root.appendChild(el("div", { class: "cards", id: "summary" }, cards));
    var items = [], statuses = [];
    SECTIONS.forEach(function (pair) {
      var list = data[pair[0]] || [];
      if (list.length) statuses.push(pair[0]);
      list.forEach(function (entry, k) {
        var sides = details[entry.id] || {}, shown = sides.head || sides.base || {};
        var status = pair[0] === "changed_outputs" ? (shown.status || "none") : entry.head_status || entry.base_status;
        var scenario = { scenario_name: entry.name, id: entry.id, file: entry.file || shown.file, line: entry.line || shown.line,
          tags: shown.tags || [], status: status, section: pair[0], reason: entry.reason || "", steps: [] };
        var change = pair[0] === "changed_outputs" ? "interaction " + (entry.interaction + 1)
          : (entry.base_status || "—") + (entry.base_rate !== null && entry.base_rate !== undefined ? " " + percent(entry.base_rate) : "") + " → " +
            (entry.head_status || "—") + (entry.head_rate !== null && entry.head_rate !== undefined ? " " + percent(entry.head_rate) : "");
        items.push({ scenario: scenario, status: pair[0], order: k,
          extra: el("span", { class: "change" }, [el("span", { class: "section " + pair[0], text: pair[1] }), " ", el("span", { class: "muted", text: change })]),
          body: function () { return changeBody(entry, pair[0], sides); } });
      });
    });
    root.appendChild(el("h2", null, ["Scenarios ", el("span", { class: "section-count", text: items.length ? "" : "(nothing changed)" })]));
    var labels = {};
    SECTIONS.forEach(function (pair) { labels[pair[0]] = pair[1]; });
    root.appendChild(listView(items, { statuses: statuses, labels: labels }));
    [rateTable("Pass rate per check kind", data.by_check), rateTable("Pass rate per tag", data.by_tag)].forEach(function (t) { if (t) root.appendChild(t); });
  }

  /* The embedded data: JSON, or for big pages a JSON string of gzipped JSON in base64. */
  function load(node) {
    var raw = JSON.parse(node.textContent);
    if (node.getAttribute("data-encoding") !== "gzip+base64") return Promise.resolve(raw);
    var binary = atob(raw), bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }
  function start() {
    load(document.getElementById("checkspec-data")).then(show, function (error) {
      document.getElementById("app").textContent = "This page could not read its data: " + error;
    });
  }
  function show(data) {
    var root = document.getElementById("app");
    root.textContent = "";
    if (window.acquireVsCodeApi || /vscode-webview/.test(location.protocol)) document.body.classList.add("vscode");
    var views = { report: report, compare: compare };
    (views[data.page] || (window.checkspecViews || {})[data.page] || report)(data.data, root);
    document.body.setAttribute("data-ready", "true");
  }
  window.checkspecPage = { start: start, report: report, compare: compare, el: el, percent: percent, seconds: seconds, longText: longText, CUT: CUT };
  start();
})();
