// What the game pages share (YINSH's play page uses the first helpers;
// Morris, the grid game and Emergo all of it): requests to the JSON API,
// SVG elements, errors, the new-game form's player help and suggestions,
// the move list, and one game's life on a page — the human's decisions,
// the engine's replies, undo and new games — in a GameSession.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element `name` with `attrs`, appended to `parent` if given. */
function el(name, attrs, parent) {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

/** A JSON request; a refused one throws the server's `error` message. */
async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
  if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
  return data;
}

function showError(e) { $("error").textContent = e ? String(e.message || e) : ""; }

/** Lists the player kinds of a page's config, with their options, in #spec-kinds. */
function listPlayerKinds(players) {
  for (const p of players || []) {
    const li = document.createElement("li");
    const keys = p.keys.map(k => `${k.key}: ${k.about}`).join("; ");
    li.innerHTML = "<code></code> ";
    li.firstChild.textContent = p.name + (p.keys.length ? ":" + p.keys.map(k => `${k.key}=…`).join(",") : "");
    li.appendChild(document.createTextNode(p.about + (keys ? ` (${keys})` : "")));
    $("spec-kinds").appendChild(li);
  }
}

/** Offers `specs` in #spec-list and as buttons in #suggestions that fill in #ng-spec. */
function offerSuggestions(specs) {
  const list = $("spec-list"), box = $("suggestions");
  list.innerHTML = ""; box.innerHTML = "";
  for (const s of specs) {
    const o = document.createElement("option"); o.value = s; list.appendChild(o);
    const btn = document.createElement("button");
    btn.type = "button"; btn.textContent = s; btn.dataset.spec = s;
    btn.addEventListener("click", () => { $("ng-spec").value = s; });
    box.appendChild(btn);
  }
}

/** Writes the turns two to a row (the first player's, the second's) in #move-list. */
function listMoves(texts) {
  const ol = $("move-list");
  ol.innerHTML = "";
  for (let i = 0; i < texts.length; i += 2) {
    const li = document.createElement("li");
    li.textContent = texts[i] + (texts[i + 1] ? "   " + texts[i + 1] : "");
    ol.appendChild(li);
  }
  ol.scrollTop = ol.scrollHeight;
}

/** The new-game form's request: variant, colour (a random one drawn here) and opponent. */
function newGameRequest() {
  let color = $("ng-color").value;
  if (color === "random") color = Math.random() < 0.5 ? "white" : "black";
  const spec = $("ng-spec").value.trim();
  const body = { variant: $("ng-variant").value, color };
  if (spec) body.opponent = spec;
  return body;
}

/**
 * One game on its page, whose games are under `base` (`/api/morris/games`,
 * `/api/grid/games`, `/api/emergo/games`): the server's view of it (`game`), whether a request that changes it is under
 * way (`busy`), and those requests. After every answer `changed(game)` runs
 * (a page drops its selection there, Morris asks its database) and then
 * `render()`; the engine replies on its own whenever it is to act.
 */
class GameSession {
  constructor(base, render, changed) {
    this.base = base;
    this.render = render;
    this.changed = changed || (() => {});
    this.game = null;
    this.busy = false;
  }

  humanToAct() { return !!this.game && !this.game.outcome && !this.game.engine_to_act && !this.busy; }

  /**
   * What every page shows of its game alike: the title, who plays which
   * side (`sideName(colour)` in the page's words), the opponent, the
   * outcome, whether undo is offered, and on the body, for the browser
   * tests, the game's state with `actions` (the legal decisions' text)
   * while the human may act.
   */
  showStatus(sideName, actions) {
    const game = this.game;
    $("title").textContent = game.title;
    $("game-title").textContent = game.title;
    $("you").textContent = game.opponent === "human" ? "both sides" : sideName(game.human);
    $("opp").textContent = game.opponent;
    $("outcome").hidden = !game.outcome;
    $("outcome").textContent = game.outcome ? game.outcome.text : "";
    $("undo-btn").disabled = !game.can_undo || this.busy;
    const b = document.body.dataset;
    b.gameId = game.id; b.variant = game.variant; b.toAct = game.to_act || "";
    b.human = game.human; b.busy = String(this.busy); b.engineToAct = String(game.engine_to_act);
    b.legal = JSON.stringify(this.humanToAct() ? actions : []);
    b.outcome = game.outcome ? game.outcome.text : "";
    b.steps = String(game.history.length);
  }

  /** Runs `request` (which answers the game's new view) as the one change under way. */
  async change(request) {
    if (this.busy) return;
    this.busy = true; showError(null);
    try {
      this.game = await request();
      this.changed(this.game);
    } catch (e) { showError(e); }
    this.busy = false;
    this.render();
    await this.engineIfToAct();
  }

  /** Plays the human's `action`, written in the game's notation. */
  play(action) {
    const id = this.game.id;
    return this.change(() => api("POST", `${this.base}/${id}/play`, { action }));
  }

  undo() {
    if (!this.game) return Promise.resolve();
    const id = this.game.id;
    return this.change(() => api("POST", `${this.base}/${id}/undo`));
  }

  /** A new game from the new-game request `body`, remembered in the address. */
  start(body) {
    return this.change(async () => {
      const game = await api("POST", this.base, body);
      history.replaceState(null, "", `#${game.id}`);
      return game;
    });
  }

  /**
   * Wires the new-game form and the Undo and New game buttons;
   * `beforeStart()` runs before each new game is asked for.
   */
  bindControls(beforeStart) {
    const start = (ev) => {
      if (ev) ev.preventDefault();
      if (beforeStart) beforeStart();
      return this.start(newGameRequest());
    };
    $("new-form").addEventListener("submit", start);
    $("again-btn").addEventListener("click", () => start());
    $("undo-btn").addEventListener("click", () => this.undo());
  }

  /**
   * Takes up the game in the address (`#id`) if the server still has it
   * (not one from before a restart), its settings shown in the form.
   */
  async resume() {
    const id = location.hash.slice(1);
    if (!id) return false;
    try { this.game = await api("GET", `${this.base}/${id}`); }
    catch (e) { this.game = null; return false; }
    $("ng-variant").value = this.game.variant;
    $("ng-color").value = this.game.human;
    $("ng-spec").value = this.game.opponent;
    return true;
  }

  async engineIfToAct() {
    const g = this.game;
    if (!g || !g.engine_to_act || g.outcome || this.busy) return;
    this.busy = true; this.render();
    try {
      this.game = (await api("POST", `${this.base}/${g.id}/engine`)).game;
      this.changed(this.game);
    } catch (e) { showError(e); }
    this.busy = false;
    this.render();
  }
}
