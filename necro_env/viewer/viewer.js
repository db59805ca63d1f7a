// necro_env replay viewer. Every view was computed in Python by replaying the record through
// the engine; this script decodes the views (the first whole, then the changes of each step)
// and shows view k: regions (occupant, tokens, pieces, tooltips), seats, the combo column, the
// Necromancer, the current action in words and a cursor on the charts. Controls: the slider,
// buttons by action / turn / round, play / pause, and the keys listed in the legend.
(function () {
  "use strict";
  const D = JSON.parse(document.getElementById("game-data").textContent);
  const views = [D.first];
  for (const change of D.deltas) {
    const v = Object.assign({}, views[views.length - 1]);
    for (const key in change) {
      const c = change[key];
      if (c !== null && typeof c === "object" && !Array.isArray(c)) {
        const list = v[key].slice();
        for (const i in c) list[+i] = c[i];
        v[key] = list;
      } else {
        v[key] = c;
      }
    }
    views.push(v);
  }
  const last = views.length - 1;
  const $ = (id) => document.getElementById(id);
  const regions = Array.from(document.querySelectorAll("#board g.region")).map((g) => ({
    g: g,
    badge: g.querySelector(".badge"),
    tok: g.querySelector(".tok"),
    title: g.querySelector("title"),
    base: g.querySelector("title").getAttribute("data-base"),
    pieces: D.pieces.map((p) => g.querySelector(".pc-" + p)),
    enc: g.querySelector(".enc"),
    encN: g.querySelector(".enc .n"),
  }));
  const seats = D.names.map((_, s) => $("seat-" + s));
  const slider = $("slider");
  let current = 0;
  let timer = null;

  const powers = (mask) => {
    const names = [];
    for (let p = 0; p < D.powerNames.length; p++) if (Math.floor(mask / 2 ** p) % 2) names.push(D.powerNames[p]);
    return names.join(" + ");
  };
  const text = (el, value) => { if (el && el.textContent !== String(value)) el.textContent = String(value); };
  const shown = (el, yes) => el.setAttribute("visibility", yes ? "visible" : "hidden");

  const light = (hex) => {
    const c = parseInt(hex.slice(1), 16);
    return 0.3 * (c >> 16) + 0.6 * ((c >> 8) & 255) + 0.1 * (c & 255) > 140;
  };

  function badgeColour(v, r) {
    const x = v.occ[r];
    if (x === 15) return D.ghost;
    if (x === 14 || v.own[r] < 0) return D.tribe;
    return v.dec[r] ? D.seatDeclined[v.own[r]] : D.seat[v.own[r]];
  }

  function showRegion(v, r) {
    const R = regions[r];
    let x = v.occ[r], n = v.tok[r];
    const island = D.necroSeat >= 0 && r === D.lake;
    if (island) { x = v.isl > 0 ? 15 : -1; n = v.isl; }
    let who = "empty";
    if (x >= 0) {
      const fill = island ? D.ghost : badgeColour(v, r);
      shown(R.badge, true);
      R.badge.setAttribute("fill", fill);
      text(R.tok, n);
      R.tok.setAttribute("fill", light(fill) ? "#000" : "#fff");
      who = (island ? "the Island: " : "") + D.occNames[x] + " x" + n;
      if (x < 14 && v.own[r] >= 0) who += " of " + D.names[v.own[r]] + (v.dec[r] ? " (in decline)" : "");
    } else {
      shown(R.badge, false);
      text(R.tok, "");
    }
    R.g.setAttribute("data-occ", x >= 0 ? D.occNames[x] : "");
    R.g.setAttribute("data-tok", x >= 0 ? n : 0);
    R.g.setAttribute("data-own", x >= 0 && x < 14 ? v.own[r] : -1);
    R.g.classList.toggle("lc", v.lc === r);
    const pieces = [];
    D.pieces.forEach((p, i) => {
      const on = Math.floor(v.pc[r] / 2 ** i) % 2 === 1;
      shown(R.pieces[i], on);
      if (on) pieces.push(p);
    });
    shown(R.enc, v.enc[r] > 0);
    text(R.encN, v.enc[r] || "");
    if (v.enc[r]) pieces.push(v.enc[r] + " encampment(s)");
    text(R.title, R.base + " - " + who + (pieces.length ? "; " + pieces.join(", ") : "") +
      (v.lc === r ? "; last conquest" : ""));
  }

  function showSeat(v, s) {
    const el = seats[s];
    text(el.querySelector(".coins"), v.coins[s]);
    el.classList.toggle("deciding", v.who === s);
    el.classList.toggle("winner", v.over === 1 && v.win.indexOf(s) >= 0);
    if (s === D.necroSeat) {
      text($("necro-powers"), powers(v.npow) || "-");
      text($("necro-reserve"), v.res);
      text($("necro-island"), v.isl);
      text($("necro-well"), v.well);
      text($("necro-well-ghosts"), v.wg);
      text($("necro-souls"), v.souls);
      text($("necro-gip"), v.gip);
      text($("necro-total"), D.ghostTotal);
      text($("necro-price"), v.price);
      text($("necro-reserve-powers"), v.nres.filter((p) => p >= 0).map((p) => D.powerNames[p]).join(", ") || "-");
      text($("necro-draw"), v.ndraw.map((p) => D.powerNames[p]).join(", ") || "-");
      return;
    }
    const a = v.act[s];
    text(el.querySelector(".race"), a >= 0 ? D.occNames[a] : "none");
    text(el.querySelector(".powers"), a >= 0 ? "(" + powers(v.apow[s]) + ")" : "");
    text(el.querySelector(".hand"), v.hand[s]);
    const decl = [];
    if (v.dcl[s] >= 0) decl.push(D.occNames[v.dcl[s]] + (v.dpow[s] ? " (" + powers(v.dpow[s]) + ")" : ""));
    if (v.spr[s] >= 0) decl.push(D.occNames[v.spr[s]] + " (Spirit)");
    text(el.querySelector(".declined"), decl.join(", ") || "-");
    text(el.querySelector(".pact"), v.pact[s] >= 0 ? "pact: " + D.names[v.pact[s]] + " may not attack" : "");
  }

  function showColumn(v) {
    const ol = $("column");
    while (ol.children.length > v.cr.length) ol.removeChild(ol.lastChild);
    while (ol.children.length < v.cr.length) ol.appendChild(document.createElement("li"));
    v.cr.forEach((race, j) => text(ol.children[j], D.occNames[race] + " + " + D.powerNames[v.cp[j]] +
      (v.cc[j] ? " (" + v.cc[j] + " coins on it)" : "")));
  }

  function moveCursors(v) {
    document.querySelectorAll("svg.chart").forEach((svg) => {
      const line = svg.querySelector(".cursor");
      if (!line) return;
      const x = +svg.getAttribute("data-x0") + (v.rnd - 1) * +svg.getAttribute("data-dx");
      line.setAttribute("x1", x);
      line.setAttribute("x2", x);
    });
  }

  function show(k) {
    current = Math.max(0, Math.min(last, k));
    const v = views[current];
    for (let r = 0; r < regions.length; r++) showRegion(v, r);
    D.names.forEach((_, s) => showSeat(v, s));
    showColumn(v);
    if (D.necroSeat >= 0) text(document.querySelector("#well .count"), v.well);
    moveCursors(v);
    const status = v.over
      ? "Game over after round " + v.rnd + ": winner(s) " + v.win.map((s) => D.names[s]).join(", ")
      : "Round " + v.rnd + "/" + D.turns + ", " + D.names[v.ts] + "'s turn, phase " + D.phaseNames[v.ph] +
        ", " + D.names[v.who] + " to decide" + (v.die >= 0 ? " (last die roll " + v.die + ")" : "");
    text($("status"), status);
    if (current === 0) {
      text($("action"), "start of the game (" + last + " actions recorded)");
    } else {
      const st = D.steps[current - 1];
      text($("action"), "action " + current + ": round " + st[1] + ", " + D.names[st[0]] + ": " + st[2]);
    }
    text($("stepno"), current + " / " + last);
    if (+slider.value !== current) slider.value = current;
    document.body.setAttribute("data-step", current);
  }

  function next(starts, dir) {
    if (dir > 0) {
      for (const k of starts) if (k > current) return k;
      return last;
    }
    let best = 0;
    for (const k of starts) if (k < current) best = k;
    return best;
  }

  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    text($("play"), "play");
  }
  function play() {
    if (timer !== null) return stop();
    if (current === last) show(0);
    text($("play"), "pause");
    timer = setInterval(() => { if (current >= last) stop(); else show(current + 1); }, 1000 / +$("speed").value);
  }

  const actions = {
    first: () => show(0), last: () => show(last),
    prev: () => show(current - 1), next: () => show(current + 1),
    "prev-turn": () => show(next(D.turnStarts, -1)), "next-turn": () => show(next(D.turnStarts, 1)),
    "prev-round": () => show(next(D.roundStarts, -1)), "next-round": () => show(next(D.roundStarts, 1)),
  };
  for (const id in actions) $(id).addEventListener("click", () => { stop(); actions[id](); });
  $("play").addEventListener("click", play);
  $("speed").addEventListener("change", () => { if (timer !== null) { stop(); play(); } });
  slider.addEventListener("input", () => { stop(); show(+slider.value); });
  document.addEventListener("keydown", (e) => {
    const keys = {
      ArrowLeft: e.shiftKey ? "prev-turn" : "prev", ArrowRight: e.shiftKey ? "next-turn" : "next",
      ArrowUp: "prev-turn", ArrowDown: "next-turn", PageUp: "prev-round", PageDown: "next-round",
      Home: "first", End: "last",
    };
    if (e.key === " ") { e.preventDefault(); play(); return; }
    const id = keys[e.key];
    if (!id || e.target.tagName === "SELECT") return;
    e.preventDefault();
    stop();
    actions[id]();
  });
  show(0);
  // For tests and benchmarks/viewer_speed.py: jump to a step; when the page became usable.
  window.necroViewer = { show: show, steps: last, readyMs: performance.now(), get step() { return current; } };
})();
