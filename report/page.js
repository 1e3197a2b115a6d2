"use strict";
(function () {
  var PAGE = 100;
  var data = JSON.parse(document.getElementById("data").textContent);
  var items = data.items || [];
  var symbols = {create: "+", replace: "-/+", repair: "!", restore: "<", move: ">", resume: "~", "delete": "-", "no-op": ""};
  var state = {page: 0, shown: items};
  var $ = function (id) { return document.getElementById(id); };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function clock(s) {
    var m = Math.floor(s / 60), r = s - 60 * m;
    return m + ":" + (r < 10 ? "0" : "") + r.toFixed(2);
  }
  function seconds(s) { return s >= 60 ? clock(s) : s.toFixed(2) + " s"; }
  function bytes(n) {
    if (n < 1024) { return n + " B"; }
    if (n < 1048576) { return (n / 1024).toFixed(1) + " kB"; }
    return (n / 1048576).toFixed(1) + " MB";
  }

  function options(id, key) {
    var seen = {}, list = [];
    items.forEach(function (it) {
      var v = it[key];
      if (v && !seen[v]) { seen[v] = true; list.push(v); }
    });
    list.sort();
    var sel = $(id);
    list.forEach(function (v) { var o = el("option", "", v); o.value = v; sel.appendChild(o); });
  }

  function player(c, caption) {
    var f = el("figure", caption === "before" ? "before" : "now");
    f.appendChild(el("figcaption", "", caption + (c.label ? ": " + c.label : "")));
    if (c.src) {
      var a = el("audio");
      a.controls = true;
      a.preload = "none";
      a.src = c.src;
      f.appendChild(a);
    }
    if (c.wave) {
      var img = el("img", "wave");
      img.loading = "lazy";
      img.alt = "waveform" + (c.clipped ? ", clipping" : "");
      img.src = c.wave;
      f.appendChild(img);
    }
    var facts = [];
    if (c.duration) { facts.push(seconds(c.duration)); }
    if (c.size) { facts.push(bytes(c.size)); }
    if (c.peak !== undefined) { facts.push("peak " + c.peak.toFixed(1) + " dBFS"); }
    if (c.lufs !== undefined) { facts.push(c.lufs.toFixed(1) + " LUFS"); }
    if (c.true_peak !== undefined) { facts.push(c.true_peak.toFixed(1) + " dBTP"); }
    if (facts.length) { f.appendChild(el("div", "meta", facts.join(" · "))); }
    if (c.clipped) { f.appendChild(el("div", "note clipping", c.clipped + " samples at full scale (clipping)")); }
    if (c.note) { f.appendChild(el("div", "note", c.note)); }
    return f;
  }

  function text(it) {
    var p = el("p", "text");
    if (it.diff) {
      it.diff.forEach(function (d) {
        p.appendChild(d.op === "-" ? el("del", "", d.text) : d.op === "+" ? el("ins", "", d.text) : document.createTextNode(d.text));
      });
    } else {
      p.textContent = it.text;
    }
    return p;
  }

  function segments(t, sec) {
    var ol = el("ol", "segments");
    t.segments.forEach(function (s) {
      var li = el("li");
      li.dataset.start = s.start;
      li.appendChild(el("span", "ts", clock(s.start) + "–" + clock(s.end)));
      if (s.speaker) { li.appendChild(el("span", "spk", s.speaker)); }
      li.appendChild(document.createTextNode(s.text));
      li.addEventListener("click", function () {
        var a = sec.querySelector("figure.now audio");
        if (!a) { return; }
        a.currentTime = Number(li.dataset.start);
        var old = ol.querySelector(".playing");
        if (old) { old.classList.remove("playing"); }
        li.classList.add("playing");
        var p = a.play();
        if (p && p.catch) { p.catch(function () {}); }
      });
      ol.appendChild(li);
    });
    return ol;
  }

  function row(it) {
    var sec = el("section", "res act-" + (it.action || "none") + " kind-" + it.kind);
    sec.dataset.address = it.address;
    var h = el("header");
    if (it.action) { h.appendChild(el("span", "sym", symbols[it.action] || "")); }
    h.appendChild(el("code", "addr", it.address));
    h.appendChild(el("span", "action", it.action || it.status));
    if (it.reasons) { h.appendChild(el("span", "reasons", it.reasons.join(", "))); }
    sec.appendChild(h);
    var m = el("div", "meta");
    [["model", it.model], ["voice", it.voice], ["language", it.language],
     ["duration", it.duration ? seconds(it.duration) : ""], ["size", it.size ? bytes(it.size) : ""],
     ["cost", it.cost]].forEach(function (kv) {
      if (kv[1]) { m.appendChild(el("span", kv[0], kv[0] + " " + kv[1])); }
    });
    sec.appendChild(m);
    if (it.text) { sec.appendChild(text(it)); }
    if (it.audio || it.previous) {
      var ps = el("div", "players");
      if (it.audio) { ps.appendChild(player(it.audio, it.kind === "synthesis" ? "now" : "source")); }
      if (it.previous) { ps.appendChild(player(it.previous, "before")); }
      sec.appendChild(ps);
    }
    if (it.transcript) {
      if (it.transcript.segments && it.transcript.segments.length) { sec.appendChild(segments(it.transcript, sec)); }
      if (it.transcript.more) { sec.appendChild(el("div", "note", it.transcript.more + " more segments not shown")); }
      if (it.transcript.note) { sec.appendChild(el("div", "note", it.transcript.note)); }
    }
    if (it.outputs) { sec.appendChild(el("div", "meta outputs", it.outputs.join("  "))); }
    return sec;
  }

  function render() {
    var rows = $("rows"), n = state.shown.length;
    var pages = Math.max(1, Math.ceil(n / PAGE));
    state.page = Math.min(Math.max(state.page, 0), pages - 1);
    var from = state.page * PAGE, to = Math.min(from + PAGE, n);
    var frag = document.createDocumentFragment();
    for (var i = from; i < to; i++) { frag.appendChild(row(state.shown[i])); }
    rows.textContent = "";
    if (n === 0) { rows.appendChild(el("p", "empty", "No resource matches the filters.")); }
    rows.appendChild(frag);
    $("pageinfo").textContent = n ? (from + 1) + "–" + to + " of " + n + " (page " + (state.page + 1) + " of " + pages + ")" : "0 of 0";
    ["prev", "prev2"].forEach(function (id) { $(id).disabled = state.page === 0; });
    ["next", "next2"].forEach(function (id) { $(id).disabled = state.page >= pages - 1; });
    document.body.dataset.page = String(state.page);
  }

  function filter() {
    var changed = $("f-changed").checked, voice = $("f-voice").value, lang = $("f-lang").value;
    var kind = $("f-kind").value, q = $("f-text").value.toLowerCase();
    state.shown = items.filter(function (it) {
      return (!changed || it.changed) && (!voice || it.voice === voice) && (!lang || it.language === lang) &&
        (!kind || it.kind === kind) &&
        (!q || it.address.toLowerCase().indexOf(q) >= 0 || (it.text || "").toLowerCase().indexOf(q) >= 0);
    });
    state.page = 0;
    render();
  }

  options("f-voice", "voice");
  options("f-lang", "language");
  options("f-kind", "kind");
  ["f-changed", "f-voice", "f-lang", "f-kind"].forEach(function (id) { $(id).addEventListener("change", filter); });
  $("f-text").addEventListener("input", filter);
  function go(d) { return function () { state.page += d; render(); window.scrollTo(0, 0); }; }
  $("prev").addEventListener("click", go(-1));
  $("prev2").addEventListener("click", go(-1));
  $("next").addEventListener("click", go(1));
  $("next2").addEventListener("click", go(1));
  render();
  document.body.dataset.ready = "1";
})();
