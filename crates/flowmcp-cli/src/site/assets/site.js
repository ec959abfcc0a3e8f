// flowmcp catalog site: search (ranked as `flowmcp search` ranks), theme toggle, keyboard.
// No network, no eval, no inline code: pages load this file and search-index.js.
"use strict";

function flowmcpTerms(query) {
  return String(query).toLowerCase().split(/\s+/).filter(function (t) { return t.length > 0; });
}

// The score of a tool entry, as the runtime's toolset scores it: per term the best of name
// equal 12 / contains 6, alias equal 10 / contains 5, search hint 4, tag 3, namespace 2,
// description 1; terms add up.
function flowmcpToolScore(terms, e) {
  var total = 0;
  for (var i = 0; i < terms.length; i++) {
    var t = terms[i], best = 0, j;
    if (e.n === t) { best = 12; } else if (e.n.indexOf(t) >= 0) { best = 6; }
    var aliasEqual = false, aliasHas = false;
    for (j = 0; j < e.a.length; j++) {
      if (e.a[j] === t) { aliasEqual = true; }
      if (e.a[j].indexOf(t) >= 0) { aliasHas = true; }
    }
    if (aliasEqual) { best = Math.max(best, 10); } else if (aliasHas) { best = Math.max(best, 5); }
    if (e.h.indexOf(t) >= 0) { best = Math.max(best, 4); }
    for (j = 0; j < e.t.length; j++) {
      if (e.t[j].indexOf(t) >= 0) { best = Math.max(best, 3); }
    }
    if (e.s.indexOf(t) >= 0) { best = Math.max(best, 2); }
    if (e.x.indexOf(t) >= 0) { best = Math.max(best, 1); }
    total += best;
  }
  return total;
}

// The score of a prompt or skill, as the catalog scores it: per term ID 3, whenToUse 2,
// description 1.
function flowmcpPromptScore(terms, e) {
  var total = 0;
  for (var i = 0; i < terms.length; i++) {
    var t = terms[i];
    if (e.n.indexOf(t) >= 0) { total += 3; }
    else if (e.wh.indexOf(t) >= 0) { total += 2; }
    else if (e.x.indexOf(t) >= 0) { total += 1; }
  }
  return total;
}

function flowmcpDistance(a, b, limit) {
  if (Math.abs(a.length - b.length) > limit) { return limit + 1; }
  var prev = [], cur = [], i, j;
  for (j = 0; j <= b.length; j++) { prev[j] = j; }
  for (i = 1; i <= a.length; i++) {
    cur = [i];
    var rowBest = i;
    for (j = 1; j <= b.length; j++) {
      var cost = a.charAt(i - 1) === b.charAt(j - 1) ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (cur[j] < rowBest) { rowBest = cur[j]; }
    }
    if (rowBest > limit) { return limit + 1; }
    prev = cur;
  }
  return prev[b.length];
}

function flowmcpMatchesAny(index, term) {
  var list = [term], i;
  for (i = 0; i < index.tools.length; i++) {
    if (flowmcpToolScore(list, index.tools[i]) > 0) { return true; }
  }
  for (i = 0; i < index.prompts.length; i++) {
    if (flowmcpPromptScore(list, index.prompts[i]) > 0) { return true; }
  }
  return false;
}

// Ranked hits for a query: {tools, prompts, corrected}. A term that matches nothing is replaced
// by the nearest word of the vocabulary (edit distance 1 from 4 letters, 2 from 8), if any.
function flowmcpSearch(index, query) {
  var terms = flowmcpTerms(query), corrected = [], i;
  for (i = 0; i < terms.length; i++) {
    var t = terms[i];
    if (flowmcpMatchesAny(index, t)) { continue; }
    var limit = t.length >= 8 ? 2 : (t.length >= 4 ? 1 : 0), best = null, bestD = limit + 1;
    for (var v = 0; v < index.vocabulary.length && limit > 0; v++) {
      var d = flowmcpDistance(t, index.vocabulary[v], limit);
      if (d < bestD) { bestD = d; best = index.vocabulary[v]; }
    }
    if (best !== null) { terms[i] = best; corrected.push(best); }
  }
  var tools = [], prompts = [];
  for (i = 0; i < index.tools.length; i++) {
    var s = flowmcpToolScore(terms, index.tools[i]);
    if (s > 0) { tools.push({ score: s, entry: index.tools[i] }); }
  }
  tools.sort(function (a, b) { return b.score - a.score || a.entry.o - b.entry.o; });
  for (i = 0; i < index.prompts.length; i++) {
    var p = flowmcpPromptScore(terms, index.prompts[i]);
    if (p > 0) { prompts.push({ score: p, entry: index.prompts[i], at: i }); }
  }
  prompts.sort(function (a, b) { return b.score - a.score || a.at - b.at; });
  return { tools: tools, prompts: prompts, corrected: corrected };
}

function flowmcpSafePage(u) {
  return typeof u === "string" && /^[A-Za-z0-9_-]+\.html$/.test(u);
}

function flowmcpShow(hits, list, note) {
  while (list.firstChild) { list.removeChild(list.firstChild); }
  // Tools first, then prompts and skills, as `flowmcp search` lists them.
  var all = hits.tools.slice(0, 40).concat(hits.prompts.slice(0, 20));
  note.textContent = all.length === 0 ? "No matches." :
    (hits.corrected.length ? "Showing results for " + hits.corrected.join(", ") + ". " : "") +
    (hits.tools.length + hits.prompts.length) + " matches.";
  for (var i = 0; i < all.length; i++) {
    var e = all[i].entry, li = document.createElement("li"), a = document.createElement("a");
    if (flowmcpSafePage(e.u)) { a.setAttribute("href", e.u); }
    a.textContent = e.i;
    li.appendChild(a);
    var small = document.createElement("small");
    small.textContent = " " + (e.w ? e.w : e.k) + " — " + e.d;
    li.appendChild(small);
    list.appendChild(li);
  }
}

function flowmcpTheme(button, theme) {
  var dark = theme === "dark" ||
    (theme !== "light" && window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
  if (theme) { document.documentElement.setAttribute("data-theme", theme); }
  button.setAttribute("aria-pressed", dark ? "true" : "false");
  button.textContent = dark ? "Light theme" : "Dark theme";
}

if (typeof document !== "undefined") {
  (function () {
    var stored = null, button = document.getElementById("theme");
    try { stored = window.localStorage.getItem("flowmcp-theme"); } catch (e) { stored = null; }
    if (button) {
      flowmcpTheme(button, stored);
      button.addEventListener("click", function () {
        var next = button.getAttribute("aria-pressed") === "true" ? "light" : "dark";
        try { window.localStorage.setItem("flowmcp-theme", next); } catch (e) { /* file:// */ }
        flowmcpTheme(button, next);
      });
    }
    var q = document.getElementById("q"), list = document.getElementById("results"),
      note = document.getElementById("search-note");
    document.addEventListener("keydown", function (ev) {
      var tag = ev.target && ev.target.tagName;
      if (ev.key === "/" && q && tag !== "INPUT" && tag !== "TEXTAREA") { ev.preventDefault(); q.focus(); }
    });
    if (q && list && note && typeof FLOWMCP_INDEX !== "undefined") {
      q.addEventListener("input", function () {
        if (q.value.trim() === "") { flowmcpShow({ tools: [], prompts: [], corrected: [] }, list, note); note.textContent = ""; return; }
        flowmcpShow(flowmcpSearch(FLOWMCP_INDEX, q.value), list, note);
      });
      if (window.location.hash === "#q") { q.focus(); }
    }
  })();
}
