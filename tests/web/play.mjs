// Plays complete games on the play page through clicks alone, against
// `random`, until the human has removed a row and a ring by clicking; checks
// the outcome shown, reviews the game, and takes screenshots.
//
// usage: node play.mjs <url> <screenshot prefix>
// Uses Debian's chromium ($CHROMIUM or /usr/bin/chromium); never downloads one.
import { clickForNewGame, fail, launch, untilHumanActs } from "./browser.mjs";

// Board geometry, as the engine has it.
const LETTERS = "abcdefghijk";
function onBoard(c, r) {
  if (c < 0 || c > 10 || r < 0 || r > 10) return false;
  const x = c - 5, y = r - 5;
  const d = Math.max(Math.abs(x), Math.abs(y), Math.abs(x - y));
  return d <= 5 && !(d === 5 && (x === 0 || y === 0 || x === y));
}
const parse = (n) => [LETTERS.indexOf(n[0]), parseInt(n.slice(1), 10) - 1];
const name = (c, r) => LETTERS[c] + (r + 1);
const POINTS = [];
for (let c = 0; c < 11; c++) for (let r = 0; r < 11; r++) if (onBoard(c, r)) POINTS.push([c, r]);

/** Rows of five and the longest run of `color` in a marker map. */
function lines(markers, color) {
  let rows = 0, longest = 0;
  for (const [dc, dr] of [[1, 0], [0, 1], [1, 1]]) {
    for (const [c, r] of POINTS) {
      if (markers.get(name(c - dc, r - dr)) === color) continue;
      let n = 0;
      while (onBoard(c + n * dc, r + n * dr) && markers.get(name(c + n * dc, r + n * dr)) === color) n++;
      longest = Math.max(longest, n);
      if (n >= 5) rows += n - 4;
    }
  }
  return { rows, longest };
}

/** Steers toward rows: the move that makes the most own rows and longest runs. */
function chooseMove(legal, markers, me) {
  const other = me === "white" ? "black" : "white";
  let best = null, bestScore = -Infinity;
  for (const d of legal) {
    if (!d.includes("-")) continue;
    const [from, to] = d.split("-");
    const [c0, r0] = parse(from), [c1, r1] = parse(to);
    const dc = Math.sign(c1 - c0), dr = Math.sign(r1 - r0);
    const m = new Map(markers);
    m.set(from, me);
    for (let c = c0 + dc, r = r0 + dr; c !== c1 || r !== r1; c += dc, r += dr) {
      const k = name(c, r);
      if (m.has(k)) m.set(k, m.get(k) === "white" ? "black" : "white");
    }
    const mine = lines(m, me), theirs = lines(m, other);
    const score = 100 * mine.rows + 3 * mine.longest - 60 * theirs.rows - theirs.longest + Math.random();
    if (score > bestScore) { bestScore = score; best = d; }
  }
  return best;
}

const { page, url, shotPrefix, done } = await launch("play", { width: 1280, height: 900 });

const state = () => page.evaluate(() => {
  const b = document.body.dataset;
  const markers = [...document.querySelectorAll("[data-marker]")].map(e => [e.dataset.at, e.dataset.marker]);
  return { id: b.gameId, decision: b.decision, toAct: b.toAct, human: b.human, busy: b.busy,
    engineToAct: b.engineToAct, legal: JSON.parse(b.legal || "[]"), outcome: b.outcome || "",
    steps: Number(b.steps || 0), removed: JSON.parse(b.removed || "{}"), markers };
});

/** Waits until the human may act or the game is over, after `steps` changed. */
async function settle(previousSteps) {
  await untilHumanActs(page, previousSteps);
  return state();
}

await done(async () => {
  let result = null;
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.ready === "true");
  // The board: 85 points, 33 lines (11 per axis), 33 labels.
  const counts = await page.evaluate(() => ({
    points: document.querySelectorAll(".hits [data-point]").length,
    lines: document.querySelectorAll(".grid .line").length,
    labels: document.querySelectorAll(".labels text").length,
  }));
  if (counts.points !== 85 || counts.lines !== 33 || counts.labels !== 33) fail(`board drawn wrong: ${JSON.stringify(counts)}`);
  await page.click("#rules-link");
  await page.waitForSelector("text=How to play");
  await page.goBack();
  await page.waitForFunction(() => document.body.dataset.ready === "true");

  let games = 0, rowByClick = false, ringByClick = false, midShot = false;
  while (!(rowByClick && ringByClick) && games < 6) {
    games += 1;
    rowByClick = ringByClick = false;
    await page.selectOption("#ng-color", "white");
    await page.selectOption("#ng-kind", "random");
    await page.fill("#ng-spec", "");
    await page.check("#ng-blitz");
    await clickForNewGame(page, "#ng-start");
    let s = await settle(-1);
    const id = s.id;
    let clicks = 0;
    while (!s.outcome) {
      if (s.id !== id) fail("the game changed under the test");
      const me = s.human;
      const markers = new Map(s.markers);
      const prev = s.steps;
      const click = async (p) => { clicks++; await page.click(`.hits [data-point="${p}"]`); };
      if (s.decision === "place_ring") {
        await click(s.legal[Math.floor(Math.random() * s.legal.length)]);
      } else if (s.decision === "move_ring") {
        if (s.legal.includes("pass")) { clicks++; await page.click("#pass-btn"); }
        else {
          const d = chooseMove(s.legal, markers, me);
          const [from, to] = d.split("-");
          await click(from);
          await page.waitForSelector(`.hits [data-point="${to}"][data-target="target"]`);
          await click(to);
        }
      } else if (s.decision === "remove_row") {
        const rows = s.legal;
        const row = rows[0];
        const ends = row.slice(1).split("-");
        const pts = (d) => { const [a, b] = d.slice(1).split("-"); const [c0, r0] = parse(a), [c1, r1] = parse(b);
          const dc = Math.sign(c1 - c0), dr = Math.sign(r1 - r0); return [0, 1, 2, 3, 4].map(k => name(c0 + k * dc, r0 + k * dr)); };
        // An end that no other candidate row contains picks this row on the board.
        const own = ends.find(e => rows.filter(d => pts(d).includes(e)).length === 1);
        if (own) await click(own);
        else { clicks++; await page.click(`[data-row-button="${row}"]`); }
        rowByClick = true;
      } else if (s.decision === "remove_ring") {
        await click(s.legal[0].slice(1));
        ringByClick = true;
      } else fail(`unexpected decision ${s.decision}`);
      s = await settle(prev);
      if (!midShot && s.markers.length >= 8 && !s.outcome) {
        await page.screenshot({ path: `${shotPrefix}-mid.png` });
        midShot = true;
      }
      if (clicks > 2000) fail("too many clicks");
    }
    const shown = (await page.textContent("#outcome")).trim();
    const visible = await page.isVisible("#outcome");
    if (!visible || !/wins|draw/.test(shown)) fail(`no outcome shown: "${shown}"`);
    const api = await page.evaluate(async (gid) => (await fetch(`/api/games/${gid}`)).json(), id);
    if (!api.outcome || api.outcome.text !== shown) fail(`outcome shown "${shown}" differs from the API's ${JSON.stringify(api.outcome)}`);
    if (rowByClick && ringByClick && api.outcome.winner !== "white") fail(`removed a ring in Blitz but did not win: ${shown}`);
    result = { games, clicks, outcome: shown, moves: api.moves.length, rowByClick, ringByClick };
    console.log(`game ${games}: ${shown} after ${api.history.length} decisions, ${clicks} clicks; row by click: ${rowByClick}, ring by click: ${ringByClick}`);
  }
  if (!(rowByClick && ringByClick)) fail(`no game with a row and ring removed by clicks in ${games} games`);
  await page.screenshot({ path: `${shotPrefix}-end.png` });

  // Review the game just played from its move list.
  const moves = await page.inputValue("#moves");
  await page.click("#review-panel summary");
  await page.fill("#review-text", moves);
  await page.check("#review-blitz");
  await page.click("#review-btn");
  await page.waitForSelector("#review-bar:not([hidden])");
  await page.click("#rv-last");
  const label = await page.textContent("#rv-label");
  const prompt = await page.textContent("#prompt");
  if (!/wins/.test(prompt)) fail(`review did not reach the result: ${label} / ${prompt}`);
  console.log(`review: ${label} — ${prompt}`);
  await page.click("#rv-exit");
  return result;
});
