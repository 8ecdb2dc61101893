// Nine Men's Morris on the Morris page with the complete database: the
// human (White) switches "show perfect move" on before the first stone and
// clicks a marked perfect move at every decision, placing and moving,
// against `random` until the game ends. Every position the human meets must
// show a value and at least one marked move; the empty board must read as a
// draw with best play, and perfect play must win against random.
//
// usage: node morris-nine.mjs <url> <screenshot prefix>
// The server must have Nine's complete database (every moving-phase layer
// and the placing book). Positions beyond the book are searched by the
// server, so a single answer may take minutes on a slow machine.
import { fail, launch, startByForm, untilHumanActs } from "./browser.mjs";
import { boardState, clickAction } from "./morris-board.mjs";

const { page, shotPrefix, done } = await launch("morris-nine", { width: 1280, height: 900 });

/** How long one perfect answer may take: the searched turns beyond the book. */
const ANSWER_TIMEOUT_MS = 15 * 60 * 1000;

const state = () => boardState(page);

await done(async () => {
  await page.goto(new URL("/morris", process.argv[2]).href);
  await page.waitForFunction(() => document.body.dataset.ready === "true");
  await page.selectOption("#ng-variant", "nine");
  const dbNote = (await page.textContent("#ng-db")).trim();
  if (!/solved/.test(dbNote)) fail(`Nine's database is not reported solved: "${dbNote}"`);
  if ((await page.inputValue("#ng-spec")) !== "perfect") fail("perfect is not suggested with Nine's database");

  let s = await startByForm(page, "nine", "random", "white").then(state);
  await page.check("#perfect-toggle");
  const id = s.id;
  let startValue = null, slowestMs = 0, slowestStep = -1;
  const byPhase = { place: 0, move: 0, fly: 0, remove: 0 };
  const answers = () => Object.values(byPhase).reduce((a, b) => a + b, 0);
  while (!s.outcome) {
    if (s.id !== id) fail("the game changed under the test");
    const asked = Date.now();
    await page.waitForFunction(() => {
      const b = document.body.dataset;
      return b.perfectSteps === b.steps && (JSON.parse(b.best || "[]").length > 0 || !!document.getElementById("db-value").textContent);
    }, null, { timeout: ANSWER_TIMEOUT_MS, polling: 250 });
    const ms = Date.now() - asked;
    s = await state();
    const value = (await page.textContent("#db-value")).trim();
    if (!value.startsWith("Value: ")) fail(`decision ${s.steps} (${s.phase}): no value shown: "${value}"`);
    const marked = await page.$$eval(".hits [data-best]", (xs) => xs.map(x => x.dataset.point));
    if (!s.best.length || !marked.length) fail(`decision ${s.steps} (${s.phase}): no perfect move marked ("${value}")`);
    if (startValue === null) {
      startValue = value;
      if (value !== "Value: a draw with best play.") fail(`the empty board reads "${value}", not a draw`);
      await page.screenshot({ path: `${shotPrefix}-start.png` });
    }
    byPhase[s.phase]++;
    if (ms > slowestMs) { slowestMs = ms; slowestStep = s.steps; }
    console.log(`decision ${s.steps} (${s.phase}): ${value} best ${s.best.slice(0, 3).join(",")} in ${ms} ms`);
    if (byPhase.move + byPhase.fly === 1 && (s.phase === "move" || s.phase === "fly")) await page.screenshot({ path: `${shotPrefix}-moving.png` });
    const prev = s.steps;
    await clickAction(page, s.best[0]);
    await untilHumanActs(page, prev);
    s = await state();
    if (answers() > 400) fail("the game does not end");
  }
  const shown = (await page.textContent("#outcome")).trim();
  if (!shown.startsWith("White wins")) fail(`perfect play against random did not win: "${shown}"`);
  await page.screenshot({ path: `${shotPrefix}-end.png` });
  return { outcome: shown, startValue, answers: answers(), placing: byPhase.place, moving: byPhase.move + byPhase.fly, removing: byPhase.remove,
    slowestMs, slowestStep, decisions: s.steps };
});
