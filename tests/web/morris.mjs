// Plays Morris on the Morris page through clicks alone, against `random`:
// Six Men's Morris until the human has removed a stone by clicking it (and
// the game has ended, its outcome shown), then Three Men's Morris with
// "show perfect move" on, clicking the marked perfect moves to a win.
// Checks the boards drawn for each variant, the database notes, undo, and
// takes screenshots.
//
// usage: node morris.mjs <url> <screenshot prefix>
// The server must have a solved Three Men's Morris database and none for
// Six. Uses Debian's chromium ($CHROMIUM or /usr/bin/chromium).
import { fail, launch, startByForm, untilHumanActs } from "./browser.mjs";
import { boardState, clickAction } from "./morris-board.mjs";

const { page, url, shotPrefix, done } = await launch("morris", { width: 1280, height: 900 });

const state = () => boardState(page);

/** Waits until the human may act or the game is over, after `steps` changed. */
async function settle(previousSteps) {
  await untilHumanActs(page, previousSteps);
  return state();
}

const drawn = () => page.evaluate(() => ({
  points: document.querySelectorAll(".hits [data-point]").length,
  lines: document.querySelectorAll(".grid .line").length,
}));

/** A greedy human: closes mills, builds towards them, else anything. */
function choose(s, board) {
  const mine = new Set(s.stones.filter(([, c]) => c === s.human).map(([p]) => p));
  const theirs = new Set(s.stones.filter(([, c]) => c !== s.human).map(([p]) => p));
  const after = (from, to) => { const m = new Set(mine); if (from) m.delete(from); m.add(to); return m; };
  const closes = (from, to) => { const m = after(from, to); return board.mills.some(ml => ml.includes(to) && ml.every(p => m.has(p))); };
  const builds = (from, to) => { const m = after(from, to);
    return board.mills.filter(ml => ml.includes(to) && !ml.some(p => theirs.has(p)) && ml.filter(p => m.has(p)).length === 2).length; };
  const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
  if (s.phase === "remove") return pick(s.legal);
  const split = (a) => a.includes("-") ? a.split("-") : [null, a];
  const closing = s.legal.filter(a => closes(...split(a)));
  if (closing.length) return pick(closing);
  let best = -1, options = [];
  for (const a of s.legal) {
    const score = builds(...split(a));
    if (score > best) { best = score; options = [a]; } else if (score === best) options.push(a);
  }
  return pick(options);
}

async function startGame(variant, spec, color) {
  await startByForm(page, variant, spec, color);
  return state();
}

async function checkOutcome(id) {
  const shown = (await page.textContent("#outcome")).trim();
  if (!(await page.isVisible("#outcome")) || !/^(White wins|Black wins|Draw): /.test(shown)) fail(`no outcome shown: "${shown}"`);
  const api = await page.evaluate(async (gid) => (await fetch(`/api/morris/games/${gid}`)).json(), id);
  if (!api.outcome || api.outcome.text !== shown) fail(`outcome shown "${shown}" differs from the API's ${JSON.stringify(api.outcome)}`);
  return { shown, api };
}

await done(async () => {
  let result = {};
  // The YINSH page links here.
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.ready === "true");
  await page.click("#morris-link");
  await page.waitForFunction(() => document.body.dataset.ready === "true" && location.pathname === "/morris");
  const cfg = await page.evaluate(async () => (await fetch("/api/morris/config")).json());
  const boardOf = (v) => cfg.variants.find(x => x.name === v).board;

  // Each variant's board, drawn before any game.
  for (const [v, points, lines] of [["nine", 24, 32], ["three", 9, 16], ["six", 16, 20]]) {
    await page.selectOption("#ng-variant", v);
    await page.waitForFunction(([n]) => document.querySelectorAll(".hits [data-point]").length === n, [points]);
    const d = await drawn();
    if (d.points !== points || d.lines !== lines) fail(`${v}: board drawn wrong: ${JSON.stringify(d)}`);
  }
  // Six has no database here: the page says how to make one.
  const note = await page.textContent("#ng-db");
  if (!note.includes("yinsh-zero solve --variant six")) fail(`no how-to for the missing database: "${note}"`);
  if (!(await page.isDisabled("#perfect-toggle"))) fail("the perfect toggle is enabled without a database");
  if ((await page.inputValue("#ng-spec")).startsWith("perfect")) fail("perfect suggested without a database");

  // Six Men's Morris against random, until a stone is removed by click.
  let games = 0, removedByClick = false, undoChecked = false, midShot = false, six = null;
  while (!removedByClick && games < 5) {
    games += 1;
    let s = await startGame("six", "random", "white");
    const id = s.id;
    const gameNote = await page.textContent("#db-status");
    if (!gameNote.includes("yinsh-zero solve --variant six")) fail(`the game's missing database is not explained: "${gameNote}"`);
    let clicks = 0, removed = false;
    while (!s.outcome) {
      if (s.id !== id) fail("the game changed under the test");
      const prev = s.steps;
      const action = choose(s, boardOf("six"));
      await clickAction(page, action);
      clicks += action.includes("-") ? 2 : 1;
      if (action.startsWith("x")) removed = true;
      s = await settle(prev);
      if (!undoChecked && !s.outcome && s.steps >= 4 && s.phase === "place") {
        // Undo takes back the human's last turn and the engine's answer.
        const before = s.steps;
        await page.click("#undo-btn");
        s = await settle(before);
        if (s.steps >= before || s.toAct !== "white") fail(`undo went to ${s.steps} steps, ${s.toAct} to act, from ${before}`);
        undoChecked = true;
      }
      if (!midShot && removed && !s.outcome) {
        await page.screenshot({ path: `${shotPrefix}-six-mid.png` });
        midShot = true;
      }
      if (clicks > 1500) fail("too many clicks");
    }
    const { shown, api } = await checkOutcome(id);
    const moves = await page.$$eval("#move-list li", (lis) => lis.length);
    if (moves !== Math.ceil(api.turns.length / 2)) fail(`move list has ${moves} rows for ${api.turns.length} turns`);
    removedByClick = removed;
    six = { games, clicks, outcome: shown, decisions: api.history.length, removedByClick };
    console.log(`six, game ${games}: ${shown} after ${api.history.length} decisions, ${clicks} clicks; removed by click: ${removed}`);
  }
  if (!removedByClick) fail(`no stone removed by click in ${games} games`);
  if (!undoChecked) fail("undo was never tried");
  await page.screenshot({ path: `${shotPrefix}-six-end.png` });
  result.six = six;

  // Three Men's Morris with its database: perfect moves shown and played.
  await page.selectOption("#ng-variant", "three");
  const spec = await page.inputValue("#ng-spec");
  if (spec !== "perfect") fail(`with a database the first suggestion should be perfect, got "${spec}"`);
  if (!(await page.textContent("#ng-db")).includes("solved")) fail("the database is not reported loaded");
  let s = await startGame("three", "random", "white");
  if (!(await page.textContent("#db-status")).includes("solved")) fail("the game's database is not reported loaded");
  await page.check("#perfect-toggle");
  const id = s.id;
  let firstValue = null, stateNumber = null, shots = 0;
  while (!s.outcome) {
    await page.waitForFunction(() => {
      const b = document.body.dataset;
      return b.perfectSteps === b.steps && JSON.parse(b.best || "[]").length > 0;
    }, null, { timeout: 60000 });
    s = await state();
    const marked = await page.$$eval(".hits [data-best]", (xs) => xs.map(x => x.dataset.point));
    if (!marked.length) fail("no perfect move marked on the board");
    if (firstValue === null) {
      firstValue = (await page.textContent("#db-value")).trim();
      stateNumber = (await page.textContent("#state-number")).trim();
      if (!/White \(to act\) wins in \d+ turns/.test(firstValue)) fail(`start value shown as "${firstValue}"`);
      if (!/^[\d,]+ of [\d,]+$/.test(stateNumber)) fail(`state number shown as "${stateNumber}"`);
      await page.screenshot({ path: `${shotPrefix}-three-perfect.png` });
      shots++;
    }
    const prev = s.steps;
    await clickAction(page, s.best[0]);
    s = await settle(prev);
  }
  const { shown } = await checkOutcome(id);
  if (shown !== "White wins: three in a row") fail(`perfect play from the start did not win: "${shown}"`);
  await page.screenshot({ path: `${shotPrefix}-three-end.png` });
  result.three = { outcome: shown, firstValue, stateNumber, decisions: s.steps };
  console.log(`three: ${shown}; start: ${firstValue}; state number ${stateNumber}`);

  return result;
});
