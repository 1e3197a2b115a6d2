"use strict";
(function () {
  var PAGE = 100;
  var data = JSON.parse(document.getElementById("data").textContent);
  var items = data.items || [];
  var limits = data.limits || [];
  var symbols = {create: "+", replace: "-/+", repair: "!", restore: "<", move: ">", resume: "~", "delete": "-", "no-op": ""};
  var state = {page: 0, shown: items};
  // ticked holds the addresses a reviewer ticked to approve, across pages
  // and filters.
  var ticked = {};
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

  // seek plays the row's audio from t seconds, marking li (in ol) as playing.
  function seek(sec, t, ol, li) {
    var a = sec.querySelector("figure.now audio");
    if (!a) { return; }
    a.currentTime = t;
    var old = ol && ol.querySelector(".playing");
    if (old) { old.classList.remove("playing"); }
    if (li) { li.classList.add("playing"); }
    var p = a.play();
    if (p && p.catch) { p.catch(function () {}); }
  }

  function segments(t, sec) {
    var ol = el("ol", "segments");
    t.segments.forEach(function (s) {
      var li = el("li");
      li.dataset.start = s.start;
      li.appendChild(el("span", "ts", clock(s.start) + "–" + clock(s.end)));
      if (s.speaker) { li.appendChild(el("span", "spk", s.speaker)); }
      li.appendChild(document.createTextNode(s.text));
      li.addEventListener("click", function () { seek(sec, Number(li.dataset.start), ol, li); });
      ol.appendChild(li);
    });
    return ol;
  }

  // measures says each figure of a check with its limit when known.
  function measures(c) {
    var l = limits[c.limits || 0];
    var m = [["cer", (c.cer || 0).toFixed(3), l && l.max_cer], ["wer", (c.wer || 0).toFixed(3), l && l.max_wer],
      ["longest run", c.longest_run || 0, l && l.max_run], ["missing tail", c.missing_tail || 0, l && l.max_missing_tail]];
    return m.map(function (x) { return x[0] + " " + x[1] + (l ? " (limit " + x[2] + ")" : ""); }).join(" · ");
  }

  // alignment shows the words sent against those heard.
  function alignment(c) {
    var p = el("p", "align");
    c.diff.forEach(function (d) {
      if (d.skip) { p.appendChild(el("span", "skip", "… " + d.skip + " words match …")); }
      if (d.sent) { p.appendChild(el(d.op === "match" ? "span" : "del", "a-" + d.op, d.sent)); }
      if (d.sent && d.heard) { p.appendChild(document.createTextNode(" ")); }
      if (d.heard) { p.appendChild(el("ins", "a-" + d.op, d.heard)); }
      p.appendChild(document.createTextNode(" "));
    });
    return p;
  }

  // checkBox is a listening check: its mark, figures and, failing, why,
  // the aligned diff and a control playing from the diverging words.
  function checkBox(c, sec, ol) {
    var d = el("div", "check " + (c.pending ? "pending" : c.pass ? "pass" : "fail"));
    d.appendChild(el("span", "mark", c.pending ? "… listen: pending" : c.pass ? "✓ listen: pass" : "✗ listen: fail"));
    if (!c.pending) { d.appendChild(el("span", "measures", measures(c) + (c.limits ? "" : " (the verdict as recorded)"))); }
    if (c.takes > 1) { d.appendChild(el("span", "takes", c.takes + " takes")); }
    if (c.play_from !== undefined) {
      var b = el("button", "playfrom", "play from " + c.play_from.toFixed(1) + " s");
      b.type = "button";
      b.dataset.at = c.play_from;
      b.addEventListener("click", function (e) { e.stopPropagation(); seek(sec, c.play_from, ol, null); });
      d.appendChild(b);
    }
    if (c.failures) {
      var ul = el("ul", "failures");
      c.failures.forEach(function (f) { ul.appendChild(el("li", "", f)); });
      d.appendChild(ul);
    }
    if (c.diff) { d.appendChild(alignment(c)); }
    if (c.diff_more) { d.appendChild(el("div", "note", c.diff_more + " more words of the alignment not shown")); }
    if (c.note) { d.appendChild(el("div", "note", c.note)); }
    return d;
  }

  // cues lists the chunks of a joined output; a click on one plays the
  // output from its start when the chunk times are known.
  function cues(it, sec) {
    var ol = el("ol", "cues");
    var timed = !!it.chunk_times, est = it.chunk_times === "estimated" ? "~" : "";
    it.chunks.forEach(function (c, i) {
      var li = el("li", timed ? "timed" : "");
      li.dataset.start = c.start;
      var cue = el("div", "cue");
      cue.appendChild(el("span", "ts", (i + 1) + (timed ? " · " + est + clock(c.start) + "–" + est + clock(c.end) : "")));
      if (c.text) { cue.appendChild(el("span", "cuetext", c.text)); }
      li.appendChild(cue);
      if (timed) { cue.addEventListener("click", function () { seek(sec, Number(li.dataset.start), ol, li); }); }
      if (c.check) { li.appendChild(checkBox(c.check, sec, ol)); }
      if (c.seam) { li.appendChild(el("div", "seam fail", "✗ seam after chunk " + (i + 1) + " at " + clock(c.seam.at) + ": " + c.seam.failures.join("; "))); }
      ol.appendChild(li);
    });
    return ol;
  }

  // quote makes an address one shell word: as it is when it holds only
  // characters no shell treats specially, else in single quotes, each
  // single quote written as '\''.
  function quote(s) {
    return /^[A-Za-z0-9_.\/:@+,-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
  }

  // command writes the approve command for the ticked rows, in page order:
  // each address bound to the digest of the outputs shown here (-expect),
  // so that it approves what was heard, not what was made since.
  function command() {
    var list = items.filter(function (it) { return ticked[it.address]; }).map(function (it) { return "-expect " + quote(it.address + "=" + it.digest); });
    $("approve-cmd").value = list.length ? "voxform approve " + list.join(" ") : "";
    $("ticked").textContent = list.length ? list.length + " ticked" : "nothing ticked";
    $("copy").disabled = !list.length;
  }

  function tickBox(it) {
    var cb = el("input", "tick");
    cb.type = "checkbox";
    cb.checked = !!ticked[it.address];
    cb.title = "tick to approve";
    cb.setAttribute("aria-label", "approve " + it.address);
    cb.addEventListener("change", function () {
      if (cb.checked) { ticked[it.address] = true; } else { delete ticked[it.address]; }
      command();
    });
    return cb;
  }

  // origin says where the row's outputs came from (for a replace: those
  // it replaces).
  function origin(it) {
    var o = it.origin, w = "";
    if (o === "imported") { w = "imported (voxform import)"; }
    else if (o && o.indexOf("take ") === 0) { w = "a take put back (voxform use): " + o; }
    else if (o) { w = o; }
    else if (it.made) { w = "made by the service"; }
    if (w && it.action === "replace" && o) { w = "replaces outputs " + w; }
    if (it.recording) { w = (w ? w + " · " : "") + "recording " + it.recording; }
    return w;
  }

  // signoff is the row's approval and origin.
  function signoff(it) {
    var d = el("div", "signoff"), a = it.approval;
    if (a) {
      var words = {approved: "✓ approved", lost: "✗ approval lost: the outputs changed since they were approved", ends: "✗ approval ends: this plan replaces the approved outputs"};
      d.appendChild(el("span", "approval " + a.state, words[a.state] || a.state));
      d.appendChild(el("span", "by", "by " + a.by));
      d.appendChild(el("span", "at", "at " + a.at));
      if (a.note) { d.appendChild(el("span", "apnote", "note: " + a.note)); }
    } else if (it.made) {
      d.appendChild(el("span", "approval none", "not approved"));
    }
    var o = origin(it);
    if (o) { d.appendChild(el("span", "origin", "origin: " + o)); }
    return d.childNodes.length ? d : null;
  }

  function row(it) {
    var sec = el("section", "res act-" + (it.action || "none") + " kind-" + it.kind);
    sec.dataset.address = it.address;
    var h = el("header");
    if (it.approvable) { h.appendChild(tickBox(it)); }
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
    var so = signoff(it);
    if (so) { sec.appendChild(so); }
    var chunked = it.chunks && it.chunks.length;
    if (!chunked && (it.text || it.diff)) { sec.appendChild(text(it)); }
    if (it.audio || it.previous) {
      var ps = el("div", "players");
      if (it.audio) { ps.appendChild(player(it.audio, it.kind === "synthesis" ? "now" : "source")); }
      if (it.previous) { ps.appendChild(player(it.previous, "before")); }
      sec.appendChild(ps);
    }
    if (it.check) { sec.appendChild(checkBox(it.check, sec, null)); }
    if (chunked) {
      if (it.diff || it.text) { sec.appendChild(text(it)); }
      if (it.chunk_note) { sec.appendChild(el("div", "note", it.chunk_note)); }
      sec.appendChild(cues(it, sec));
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
    var changed = $("f-changed").checked, failing = $("f-failing").checked, voice = $("f-voice").value, lang = $("f-lang").value;
    var kind = $("f-kind").value, q = $("f-text").value.toLowerCase();
    state.shown = items.filter(function (it) {
      return (!changed || it.changed) && (!failing || it.listen_fails > 0) && (!voice || it.voice === voice) && (!lang || it.language === lang) &&
        (!kind || it.kind === kind) &&
        (!q || it.address.toLowerCase().indexOf(q) >= 0 || (it.text || "").toLowerCase().indexOf(q) >= 0 ||
          (it.chunks || []).some(function (c) { return (c.text || "").toLowerCase().indexOf(q) >= 0; }));
    });
    state.page = 0;
    render();
  }

  options("f-voice", "voice");
  options("f-lang", "language");
  options("f-kind", "kind");
  ["f-changed", "f-failing", "f-voice", "f-lang", "f-kind"].forEach(function (id) { $(id).addEventListener("change", filter); });
  $("f-text").addEventListener("input", filter);
  function go(d) { return function () { state.page += d; render(); window.scrollTo(0, 0); }; }
  $("prev").addEventListener("click", go(-1));
  $("prev2").addEventListener("click", go(-1));
  $("next").addEventListener("click", go(1));
  $("next2").addEventListener("click", go(1));
  $("tick-unapproved").addEventListener("click", function () {
    state.shown.forEach(function (it) { if (it.approvable) { ticked[it.address] = true; } });
    render();
    command();
  });
  $("untick").addEventListener("click", function () { ticked = {}; render(); command(); });
  $("copy").addEventListener("click", function () {
    var t = $("approve-cmd");
    var fallback = function () { t.focus(); t.select(); try { document.execCommand("copy"); } catch (e) { /* selected: copy by hand */ } };
    if (navigator.clipboard && navigator.clipboard.writeText) { navigator.clipboard.writeText(t.value).catch(fallback); } else { fallback(); }
  });
  $("tick-unapproved").disabled = !items.some(function (it) { return it.approvable; });
  render();
  command();
  document.body.dataset.ready = "1";
})();
