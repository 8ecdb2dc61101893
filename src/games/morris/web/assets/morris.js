// The Morris page: draws the variant's board from the server's geometry,
// turns clicks into actions (`d2`, `d2-d3`, `xd5`), lets the engine answer,
// and shows what the perfect-play database says. The game's life on the
// page is page.js's GameSession.
"use strict";

let config = null;      // /api/morris/config
let selected = null;    // own stone picked for a move
let perfect = null;     // the last /perfect answer for the current position
let perfectSeq = 0;
let drawnVariant = null;
let layers = null;      // the SVG groups of the drawn board
// After every change: drop the picked stone, ask the database anew.
const session = new GameSession("/api/morris/games", render, () => { selected = null; refreshPerfect(); });

const cap = (c) => c ? c[0].toUpperCase() + c.slice(1) : "–";
function variantInfo(name) { return config && config.variants.find(v => v.name === name); }

// ---- the board ----

function drawBoard(variant) {
  const info = variantInfo(variant);
  if (!info) return;
  const b = info.board, svg = $("board");
  const n = b.side - 1;
  svg.innerHTML = "";
  svg.setAttribute("viewBox", `-1 -0.8 ${n + 1.8} ${n + 1.8}`);
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  svg.setAttribute("aria-label", b.title);
  const pos = {};
  for (const p of b.points) pos[p.name] = [p.col, n - p.row];
  const g = (cls) => el("g", { class: cls }, svg);
  const grid = g("grid"), labels = g("labels");
  layers = { pos, marks: g("marks"), stones: g("stones"), best: g("best"), hits: g("hits") };
  el("rect", { class: "morris-bg", x: -0.55, y: -0.55, width: n + 1.1, height: n + 1.1, rx: 0.15 }, grid);
  for (const [a, c] of b.lines) {
    const [x1, y1] = pos[a], [x2, y2] = pos[c];
    el("line", { class: "line", x1, y1, x2, y2 }, grid);
  }
  for (const p of b.points) el("circle", { class: "dot", cx: pos[p.name][0], cy: pos[p.name][1], r: 0.09 }, grid);
  const cols = new Set(b.points.map(p => p.col)), rows = new Set(b.points.map(p => p.row));
  for (const c of cols) {
    const t = el("text", { class: "label", x: c, y: n + 0.62, "text-anchor": "middle" }, labels);
    t.textContent = "abcdefg"[c];
  }
  for (const r of rows) {
    const t = el("text", { class: "label", x: -0.72, y: n - r + 0.12, "text-anchor": "middle" }, labels);
    t.textContent = String(r + 1);
  }
  for (const p of b.points) {
    const hit = el("circle", { class: "hit", cx: pos[p.name][0], cy: pos[p.name][1], r: 0.42, "data-point": p.name }, layers.hits);
    hit.addEventListener("click", () => onPoint(p.name));
  }
  drawnVariant = variant;
}

function renderBoard(marks, best) {
  if (!layers) return;
  const game = session.game;
  const { pos } = layers;
  layers.stones.innerHTML = ""; layers.marks.innerHTML = ""; layers.best.innerHTML = "";
  const last = lastTurn();
  if (last.from) {
    const [x1, y1] = pos[last.from], [x2, y2] = pos[last.to];
    el("line", { class: "last-move", x1, y1, x2, y2 }, layers.stones);
  }
  for (const color of ["white", "black"]) {
    for (const p of game.board[color]) {
      const [x, y] = pos[p];
      el("circle", { class: `stone ${color}` + (p === last.to ? " last" : ""), cx: x, cy: y, r: 0.27, "data-stone": color, "data-at": p }, layers.stones);
    }
  }
  if (last.taken) {
    const [x, y] = pos[last.taken], d = 0.14;
    el("path", { class: "taken", d: `M${x - d} ${y - d}L${x + d} ${y + d}M${x - d} ${y + d}L${x + d} ${y - d}` }, layers.stones);
  }
  for (const [p, kind] of Object.entries(marks)) {
    const [x, y] = pos[p];
    el("circle", { class: `mark ${kind}`, cx: x, cy: y, r: kind === "target" ? 0.11 : 0.36 }, layers.marks);
  }
  for (const b of best) {
    const [from, to] = b.startsWith("x") ? [null, b.slice(1)] : b.includes("-") ? b.split("-") : [null, b];
    if (from) {
      const [x1, y1] = pos[from], [x2, y2] = pos[to];
      el("line", { class: "best-arrow", x1, y1, x2, y2 }, layers.best);
      el("circle", { class: "best-from", cx: x1, cy: y1, r: 0.4 }, layers.best);
    }
    const [x, y] = pos[to];
    el("circle", { class: b.startsWith("x") ? "best-take" : "best-to", cx: x, cy: y, r: b.startsWith("x") ? 0.4 : 0.2 }, layers.best);
  }
  for (const hit of layers.hits.children) {
    const p = hit.dataset.point;
    if (marks[p] && marks[p] !== "selected-only") hit.dataset.target = marks[p]; else delete hit.dataset.target;
    const isBest = best.some(b => b === p || b === "x" + p || b.split("-").includes(p));
    if (isBest) hit.dataset.best = "true"; else delete hit.dataset.best;
  }
}

/** The last whole turn: where its stone went, where from, what it took. */
function lastTurn() {
  const game = session.game;
  const t = game.turns.length ? game.turns[game.turns.length - 1].text.split(" ") : [];
  const out = { to: null, from: null, taken: null };
  for (const a of t) {
    if (a.startsWith("x")) out.taken = a.slice(1);
    else if (a.includes("-")) [out.from, out.to] = a.split("-");
    else out.to = a;
  }
  return out;
}

function onPoint(p) {
  if (!session.humanToAct()) return;
  const game = session.game;
  const legal = new Set(game.legal);
  switch (game.phase) {
    case "place":
      if (legal.has(p)) session.play(p);
      break;
    case "move":
    case "fly":
      if (selected && legal.has(`${selected}-${p}`)) { session.play(`${selected}-${p}`); return; }
      if (game.legal.some(a => a.startsWith(p + "-"))) selected = (selected === p ? null : p);
      else selected = null;
      render();
      break;
    case "remove":
      if (legal.has("x" + p)) session.play("x" + p);
      break;
  }
}

// ---- the database ----

async function refreshPerfect() {
  const seq = ++perfectSeq;
  const game = session.game;
  if (!game) return;
  const steps = game.history.length, id = game.id;
  try {
    const p = await api("GET", `/api/morris/games/${id}/perfect`);
    const now = session.game;
    if (seq !== perfectSeq || !now || now.id !== id || now.history.length !== steps) return;
    perfect = p;
  } catch (e) { if (seq === perfectSeq) perfect = null; }
  render();
}

// ---- drawing the page ----

function render() {
  const game = session.game;
  if (!game) return;
  if (drawnVariant !== game.variant) drawBoard(game.variant);
  const b = document.body.dataset;
  const interactive = session.humanToAct();
  const marks = {};
  const who = cap(game.to_act);
  let prompt = "";
  if (game.outcome) prompt = "Game over.";
  else if (session.busy && game.engine_to_act) prompt = "The engine is thinking…";
  else if (game.engine_to_act) prompt = "The engine is to play.";
  else if (game.phase === "place") prompt = `${who}: place a stone on an empty point (${game.board.hand[game.to_act]} in hand).`;
  else if (game.phase === "move" || game.phase === "fly") {
    const fly = game.phase === "fly" ? " With three stones left, it may fly to any empty point." : "";
    prompt = selected ? `${who}: click a highlighted point to move the stone.${fly}` : `${who}: click one of your stones to move it.${fly}`;
  } else if (game.phase === "remove") prompt = `${who} closed a mill: click a highlighted stone to remove it.`;
  if (interactive) {
    if (game.phase === "place") for (const a of game.legal) marks[a] = "target";
    if (game.phase === "move" || game.phase === "fly") {
      for (const a of game.legal) marks[a.split("-")[0]] = "movable";
      if (selected) {
        marks[selected] = "selected";
        for (const a of game.legal) if (a.startsWith(selected + "-")) marks[a.split("-")[1]] = "target";
      }
    }
    if (game.phase === "remove") for (const a of game.legal) marks[a.slice(1)] = "remove";
  }
  const current = perfect && perfect.steps === game.history.length ? perfect : null;
  const show = $("perfect-toggle").checked && current && !game.outcome;
  const best = show ? current.best : [];
  renderBoard(marks, best);

  $("prompt").textContent = prompt;
  $("to-act").textContent = game.to_act ? cap(game.to_act) + (game.phase === "remove" ? " (removing)" : "") : "–";
  for (const c of ["white", "black"]) {
    $(`hand-${c}`).textContent = game.board.hand[c];
    $(`count-${c}`).textContent = game.board[c].length + (game.board.flies[c] ? " (flies)" : "");
  }
  $("quiet").textContent = game.quiet_moves + (game.repetitions > 1 ? ` · position seen ${game.repetitions}×` : "");
  listMoves(game.turns.map(t => t.text));
  renderPerfect(current, show);
  session.showStatus(cap, game.legal);
  b.phase = game.phase;
  b.selected = selected || "";
  b.perfectSteps = current ? String(current.steps) : "";
  b.best = JSON.stringify(best);
}

function renderPerfect(p, show) {
  const info = variantInfo(session.game.variant);
  const db = p ? p.database : info && info.database;
  $("db-status").textContent = db ? db.note : "";
  $("db-status").className = db && db.present ? "db-ok" : "db-missing";
  document.body.dataset.dbPresent = String(!!(db && db.present));
  $("perfect-toggle").disabled = !(db && db.present);
  if (p && p.state) {
    $("state-number").textContent = `${p.state.number.toLocaleString("en")} of ${p.state.total.toLocaleString("en")}`;
    $("state-layer").textContent = `${p.state.layer}, index ${p.state.index.toLocaleString("en")}`;
  } else {
    $("state-number").textContent = p && p.state_note ? "–" : "…";
    $("state-layer").textContent = p && p.state_note ? p.state_note : "";
  }
  document.body.dataset.stateNumber = p && p.state ? String(p.state.number) : "";
  const ol = $("db-actions");
  ol.innerHTML = "";
  if (!show) {
    $("db-value").textContent = "";
    ol.hidden = true;
    return;
  }
  $("db-value").textContent = p.value_text ? `Value: ${p.value_text}.` : (p.note || "");
  ol.hidden = !p.actions.length;
  for (const a of p.actions.slice(0, 10)) {
    const li = document.createElement("li");
    li.textContent = `${a.action}  ${a.value.text}` + (a.best ? "  ★" : "");
    if (a.best) li.className = "best";
    ol.appendChild(li);
  }
}

// ---- the new-game form ----

function fillSuggestions(variant, keepSpec) {
  const info = variantInfo(variant);
  if (!info) return;
  offerSuggestions(info.suggestions);
  if (!keepSpec) $("ng-spec").value = info.default_opponent;
  $("ng-db").textContent = info.database.note;
  $("ng-db").className = "hint " + (info.database.present ? "db-ok" : "db-missing");
  if (!session.game) {
    drawBoard(variant);
    $("db-status").textContent = info.database.note;
    $("db-status").className = info.database.present ? "db-ok" : "db-missing";
    $("perfect-toggle").disabled = !info.database.present;
    document.body.dataset.dbPresent = String(info.database.present);
  }
}

async function init() {
  try {
    config = await api("GET", "/api/morris/config");
  } catch (e) { showError(e); }
  listPlayerKinds(config && config.players);
  $("ng-variant").addEventListener("change", () => fillSuggestions($("ng-variant").value, false));
  session.bindControls(() => { perfect = null; });
  $("perfect-toggle").addEventListener("change", render);
  await session.resume();
  fillSuggestions($("ng-variant").value, false);
  if (session.game) { render(); refreshPerfect(); await session.engineIfToAct(); }
  document.body.dataset.ready = "true";
}

init();
