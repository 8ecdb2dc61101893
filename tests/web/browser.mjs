// What the browser tests share: their arguments, Debian's chromium
// ($CHROMIUM or /usr/bin/chromium; never a downloaded one) started through
// playwright-core with a fresh profile, the errors the page logs, and the
// end — "OK <result>" on success; on a failure a screenshot, the error and
// exit code 1; the browser closed and its profile removed either way.
//
// usage of every test script: node <name>.mjs <url> <screenshot prefix>
import { chromium } from "playwright-core";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function fail(msg) { throw new Error(msg); }

/**
 * Waits until the human may act on a game page or the game is over, once
 * the page's decision count (`data-steps`) has moved on from
 * `previousSteps` (at once if that is negative).
 */
export async function untilHumanActs(page, previousSteps) {
  await page.waitForFunction((prev) => {
    const b = document.body.dataset;
    return b.busy === "false" && (Number(b.steps) !== prev || prev < 0) &&
      (b.outcome || (b.engineToAct === "false" && b.legal !== "[]"));
  }, previousSteps, { timeout: 60000 });
}

/**
 * Clicks `button` to start a game and waits until the page shows a game
 * other than the one it showed before: until then its data still describe
 * the old game, a finished one perhaps, whose outcome would pass for the
 * new game's.
 */
export async function clickForNewGame(page, button) {
  const before = await page.evaluate(() => document.body.dataset.gameId || "");
  await page.click(button);
  await page.waitForFunction((old) => (document.body.dataset.gameId || "") !== old, before);
}

/**
 * Starts a game from a page's new-game form (`variant`, opponent `spec`,
 * side `color`) and waits until the human may act or the game is over.
 */
export async function startByForm(page, variant, spec, color) {
  await page.selectOption("#ng-variant", variant);
  await page.selectOption("#ng-color", color);
  await page.fill("#ng-spec", spec);
  await clickForNewGame(page, "#ng-start");
  await page.waitForFunction((v) => document.body.dataset.variant === v, variant);
  await untilHumanActs(page, -1);
}

/**
 * Starts a headless chromium of `viewport` for the test script `name`:
 * its page, the server's `url` and the `shotPrefix` from the command line,
 * and `done(test)`, which runs the test (an async function answering what
 * to print after "OK"), fails it on any error the page logged, and closes.
 */
export async function launch(name, viewport) {
  const [url, shotPrefix] = process.argv.slice(2);
  if (!url || !shotPrefix) { console.error(`usage: node ${name}.mjs <url> <screenshot prefix>`); process.exit(2); }
  const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
  if (!existsSync(executablePath)) { console.error(`no chromium at ${executablePath}`); process.exit(3); }
  const profile = mkdtempSync(join(tmpdir(), `${name}-chromium-`));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = context.pages()[0] || await context.newPage();
  const consoleErrors = [];
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });

  async function done(test) {
    try {
      const result = await test();
      if (consoleErrors.length) fail(`page errors: ${consoleErrors.join("; ")}`);
      console.log(`OK ${JSON.stringify(result)}`);
    } catch (e) {
      try { await page.screenshot({ path: `${shotPrefix}-failure.png` }); } catch {}
      console.error(`FAILED: ${e.stack || e}`);
      process.exitCode = 1;
    } finally {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }
  }
  return { page, url, shotPrefix, done };
}
