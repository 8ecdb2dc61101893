// The Emergo page: draws the board's dark squares and every unit as a
// stack (its controllers over its prisoners, counted `3/1`), turns clicks
// into decisions (`@e5` enters on a clicked square; a clicked unit, then a
// highlighted square, steps `c3-d4` or jumps `c3xe5`), and lets the engine
// answer. A capture chain is one decision per jump: while one is under
// way its unit stays picked and only its next jumps are offered.
"use strict";

let config = null;      // /api/emergo/config
let selected = null;    // own unit picked to step or jump
let layers = null;      // the SVG groups of the drawn board
let drawnSide = null;
const session = new GameSession("/api/emergo/games", render, () => { selected = null; });

const FILES = "abcdefghi";
const other = (c) => c === "white" ? "black" : "white";
const cap = (c) => c ? c[0].toUpperCase() + c.slice(1) : "–";
const playable = (c, r) => (c + r) % 2 === 0;

// ---- the board ----

function drawBoard(side) {
  const svg = $("board");
  const m = side - 1;
  svg.innerHTML = "";
  svg.setAttribute("viewBox", `-1.1 -0.6 ${side + 0.7} ${side + 0.7}`);
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  svg.setAttribute("aria-label", `Emergo board, ${side} x ${side}`);
  const pos = (name) => [FILES.indexOf(name[0]), m - (Number(name.slice(1)) - 1)];
  const g = (cls) => el("g", { class: cls }, svg);
  const squares = g("squares"), labels = g("labels");
  layers = { pos, marks: g("marks"), last: g("last-layer"), units: g("units"), hits: g("hits") };
  for (let c = 0; c <= m; c++) {
    for (let r = 0; r <= m; r++) {
      el("rect", { class: playable(c, r) ? "sq dark" : "sq light", x: c - 0.5, y: m - r - 0.5, width: 1, height: 1 }, squares);
    }
  }
  for (let c = 0; c <= m; c++) {
    const t = el("text", { class: "label", x: c, y: m + 0.85, "text-anchor": "middle" }, labels);
    t.textContent = FILES[c];
  }
  for (let r = 0; r <= m; r++) {
    const t = el("text", { class: "label", x: -0.8, y: m - r + 0.12, "text-anchor": "middle" }, labels);
    t.textContent = String(r + 1);
  }
  for (let c = 0; c <= m; c++) {
    for (let r = 0; r <= m; r++) {
      if (!playable(c, r)) continue;
      const name = FILES[c] + (r + 1);
      const hit = el("rect", { class: "hit", x: c - 0.5, y: m - r - 0.5, width: 1, height: 1, "data-square": name }, layers.hits);
      el("title", {}, hit);
      hit.addEventListener("click", () => onSquare(name));
    }
  }
  drawnSide = side;
}

/** A stack: its prisoners' disc peeking out below, its controllers' on top, and the counts. */
function drawUnit(u, last) {
  const [x, y] = layers.pos(u.square);
  const g = el("g", { class: "unit" + (last ? " last" : ""), "data-unit": u.text, "data-at": u.square, "data-owner": u.owner }, layers.units);
  if (u.prisoners > 0) el("circle", { class: `stack ${other(u.owner)}`, cx: x, cy: y + 0.1, r: 0.36 }, g);
  el("circle", { class: `stack ${u.owner}`, cx: x, cy: y - 0.04, r: 0.36 }, g);
  if (u.controllers > 1 || u.prisoners > 0) {
    const t = el("text", { class: `count on-${u.owner}`, x, y: y + 0.06, "text-anchor": "middle" }, g);
    t.textContent = u.prisoners > 0 ? `${u.controllers}/${u.prisoners}` : String(u.controllers);
  }
  const title = el("title", {}, g);
  title.textContent = `${u.square}: ${u.controllers} ${u.owner} over ${u.prisoners} ${other(u.owner)}`;
}

/** The squares of the last turn: where a man entered, or a unit's path. */
function lastPath() {
  const t = session.game.turns.length ? session.game.turns[session.game.turns.length - 1].text : "";
  if (t.startsWith("@")) return [t.slice(1)];
  return t ? t.split(/[-x]/) : [];
}

/** The unit whose steps or jumps are offered: the chain's, else the one picked. */
function picked() { return session.game.chain || selected; }

function renderBoard(interactive) {
  if (!layers) return;
  const game = session.game;
  for (const k of ["marks", "last", "units"]) layers[k].innerHTML = "";
  const path = lastPath();
  if (path.length > 1) {
    el("polyline", { class: "last-move", points: path.map(p => layers.pos(p).join(",")).join(" ") }, layers.last);
  }
  const landed = path[path.length - 1];
  for (const u of game.board.units) drawUnit(u, u.square === landed);
  const targets = {};
  if (interactive) {
    const from = picked();
    for (const l of game.legal) {
      if (l.kind === "enter") targets[l.to] = "enter";
      else if (!targets[l.from]) targets[l.from] = "movable";
    }
    if (from) {
      targets[from] = "selected";
      for (const l of game.legal) {
        if (l.from !== from) continue;
        targets[l.to] = l.kind === "jump" ? "jump" : "step";
        if (l.over) el("circle", { class: "mark over", cx: layers.pos(l.over)[0], cy: layers.pos(l.over)[1], r: 0.42 }, layers.marks);
      }
    }
  }
  for (const [sq, kind] of Object.entries(targets)) {
    const [x, y] = layers.pos(sq);
    const r = kind === "movable" || kind === "selected" ? 0.44 : 0.13;
    el("circle", { class: `mark ${kind}`, cx: x, cy: y, r }, layers.marks);
  }
  for (const hit of layers.hits.children) {
    const sq = hit.dataset.square;
    const kind = targets[sq];
    if (kind) hit.dataset.target = kind; else delete hit.dataset.target;
    hit.firstChild.textContent = kind === "enter" ? `@${sq}: enter a man here`
      : kind === "step" ? `${picked()}-${sq}: step here` : kind === "jump" ? `${picked()}x${sq}: jump here`
      : kind === "movable" ? `${sq}: pick this unit` : sq;
  }
}

function onSquare(sq) {
  if (!session.humanToAct()) return;
  const game = session.game;
  const from = picked();
  const legal = game.legal.find(l => l.kind === "enter" ? l.to === sq : l.from === from && l.to === sq);
  if (legal) { session.play(legal.action); return; }
  if (game.chain) return;
  const movable = game.legal.some(l => l.from === sq);
  selected = movable && selected !== sq ? sq : null;
  render();
}

// ---- drawing the page ----

function prompt(game) {
  const who = cap(game.to_act);
  if (game.outcome) return "Game over.";
  if (session.busy && game.engine_to_act) return "The engine is thinking…";
  if (game.engine_to_act) return "The engine is to play.";
  switch (game.phase) {
    case "enter": return `${who}: click a highlighted empty square to enter a man (${game.board.hand[game.to_act]} in hand).`;
    case "move": return selected ? `${who}: click a highlighted square to step there.` : `${who}: click one of your units to step it.`;
    case "capture": return selected ? `${who}: click a highlighted square to jump there.` : `${who} must capture: click a unit that can jump (the longest chain is compulsory).`;
    case "chain": return `${who}: the unit on ${game.chain} jumps on: click where it lands next.`;
    default: return "";
  }
}

function render() {
  const game = session.game;
  if (!game) return;
  if (drawnSide !== game.side) drawBoard(game.side);
  const interactive = session.humanToAct();
  renderBoard(interactive);

  $("prompt").textContent = prompt(game);
  const doing = { capture: " (must capture)", chain: ` (jumping on from ${game.chain})` }[game.phase] || "";
  $("to-act").textContent = game.to_act ? cap(game.to_act) + doing : "–";
  for (const c of ["white", "black"]) {
    $(`hand-${c}`).textContent = game.board.hand[c];
    $(`units-${c}`).textContent = game.board.units.filter(u => u.owner === c).length;
    $(`material-${c}`).textContent = game.board.material[c];
  }
  $("quiet").textContent = String(game.quiet_turns);
  listMoves(game.turns.map(t => t.text));
  session.showStatus(cap, game.legal.map(l => l.action));
  const b = document.body.dataset;
  b.phase = game.phase;
  b.selected = selected || "";
  b.chain = game.chain || "";
}

// ---- the new-game form ----

function variantSide(name) {
  const v = config && config.variants.find(v => v.name === name);
  return v ? v.side : 9;
}

async function init() {
  try {
    config = await api("GET", "/api/emergo/config");
  } catch (e) { showError(e); }
  listPlayerKinds(config && config.players);
  offerSuggestions(config ? config.suggestions : []);
  if (!$("ng-spec").value) $("ng-spec").value = config ? config.default_opponent : "alphabeta:depth=4";
  $("ng-variant").addEventListener("change", () => { if (!session.game) drawBoard(variantSide($("ng-variant").value)); });
  session.bindControls();
  if (await session.resume()) {
    render();
    await session.engineIfToAct();
  } else drawBoard(variantSide($("ng-variant").value));
  document.body.dataset.ready = "true";
}

init();
