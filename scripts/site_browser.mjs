// Loads the page `cairn site` wrote from file:// in headless Chromium and
// checks what a person would: tabs switch (by click and by keyboard), dark
// mode toggles and survives a reload, the search finds a bullet, no request
// leaves file://, no console error, no script from a bullet runs. Leaves
// screenshots of every tab at 1280 and 390 px in the artifacts folder.
//
// It speaks the DevTools protocol over --remote-debugging-pipe (fd 3 and 4,
// NUL-separated JSON), so it needs nothing from npm.
//
// usage: node scripts/site_browser.mjs PAGE.html ARTIFACTS_DIR
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pagePath, outDir] = process.argv.slice(2);
if (!pagePath || !outDir) {
  console.error("usage: node scripts/site_browser.mjs PAGE.html ARTIFACTS_DIR");
  process.exit(2);
}
const chromium = process.env.CHROMIUM || "/usr/bin/chromium";
const pageUrl = pathToFileURL(resolve(pagePath)).href;
mkdirSync(outDir, { recursive: true });
const profile = mkdtempSync(join(tmpdir(), "cairn-site-chromium-"));

const proc = spawn(
  chromium,
  [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--disable-default-apps", "--mute-audio",
    `--user-data-dir=${profile}`, "--remote-debugging-pipe", "about:blank",
  ],
  { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] },
);
let stderr = "";
proc.stderr.on("data", (d) => { stderr += d; });
const toBrowser = proc.stdio[3];
const fromBrowser = proc.stdio[4];

let nextId = 1;
const pending = new Map();
const listeners = [];
let buffer = Buffer.alloc(0);
fromBrowser.on("data", (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  let nul;
  while ((nul = buffer.indexOf(0)) >= 0) {
    const msg = JSON.parse(buffer.subarray(0, nul).toString("utf8"));
    buffer = buffer.subarray(nul + 1);
    if (msg.id && pending.has(msg.id)) {
      const { resolve, reject, method } = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
      else resolve(msg.result);
    } else if (msg.method) {
      for (const l of listeners) l(msg);
    }
  }
});
function send(method, params = {}, sessionId) {
  const id = nextId++;
  const msg = { id, method, params };
  if (sessionId) msg.sessionId = sessionId;
  toBrowser.write(JSON.stringify(msg) + "\0");
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject, method }));
}
function waitFor(method, sessionId, ms = 15000) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out waiting for ${method}`)), ms);
    const l = (m) => {
      if (m.method === method && (!sessionId || m.sessionId === sessionId)) {
        clearTimeout(t);
        listeners.splice(listeners.indexOf(l), 1);
        resolve(m.params);
      }
    };
    listeners.push(l);
  });
}

const failures = [];
function check(ok, what) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures.push(what);
}

const requests = [];
const errors = [];

async function main() {
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId: s } = await send("Target.attachToTarget", { targetId, flatten: true });
  listeners.push((m) => {
    if (m.sessionId !== s) return;
    if (m.method === "Network.requestWillBeSent") requests.push(m.params.request.url);
    if (m.method === "Runtime.exceptionThrown") errors.push(m.params.exceptionDetails.text + " " + (m.params.exceptionDetails.exception?.description || ""));
    if (m.method === "Runtime.consoleAPICalled" && (m.params.type === "error" || m.params.type === "warning"))
      errors.push("console: " + m.params.args.map((a) => a.value ?? a.description).join(" "));
    if (m.method === "Log.entryAdded" && m.params.entry.level === "error") errors.push("log: " + m.params.entry.text);
  });
  for (const d of ["Page", "Runtime", "Network", "Log"]) await send(`${d}.enable`, {}, s);
  const evaluate = async (expr) => {
    const r = await send("Runtime.evaluate", { expression: expr, returnByValue: true, awaitPromise: true }, s);
    if (r.exceptionDetails) throw new Error(`${expr}: ${r.exceptionDetails.text}`);
    return r.result.value;
  };
  const viewport = (width, mobile) =>
    send("Emulation.setDeviceMetricsOverride", { width, height: mobile ? 844 : 900, deviceScaleFactor: 1, mobile }, s);
  const load = async (reload) => {
    const loaded = waitFor("Page.loadEventFired", s);
    if (reload) await send("Page.reload", {}, s);
    else await send("Page.navigate", { url: pageUrl }, s);
    await loaded;
  };
  const shot = async (name) => {
    const { data } = await send("Page.captureScreenshot", { format: "png" }, s);
    writeFileSync(join(outDir, `${name}.png`), Buffer.from(data, "base64"));
  };
  const tabs = ["memory", "spend", "guard", "audits"];
  const selected = () => evaluate(`[...document.querySelectorAll('[role=tab]')].filter(t => t.getAttribute('aria-selected') === 'true').map(t => t.id).join()`);
  const visible = () => evaluate(`[...document.querySelectorAll('[role=tabpanel]')].filter(p => !p.hidden).map(p => p.id).join()`);

  await viewport(1280, false);
  await load(false);
  check((await evaluate("typeof window.__pwned")) === "undefined", "no script from a bullet ran");
  check((await evaluate("document.querySelectorAll('[role=tab]').length")) === 4, "four tabs");

  for (const [width, mobile] of [[1280, false], [390, true]]) {
    await viewport(width, mobile);
    for (const t of tabs) {
      await evaluate(`document.getElementById('tab-${t}').click()`);
      check((await selected()) === `tab-${t}` && (await visible()) === `panel-${t}`, `${width}px: the ${t} tab shows its panel alone`);
      if (mobile) {
        const overflow = await evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth");
        check(overflow <= 1, `${width}px: the ${t} tab fits the width (overflow ${overflow}px)`);
      }
      await evaluate("window.scrollTo(0, 0)");
      await shot(`${t}-${width}`);
    }
  }

  // Keyboard: arrows move between tabs, focus follows.
  await viewport(1280, false);
  await evaluate("document.getElementById('tab-memory').click(); document.getElementById('tab-memory').focus()");
  for (const key of ["ArrowRight", "ArrowRight"]) {
    await send("Input.dispatchKeyEvent", { type: "keyDown", key, code: key, windowsVirtualKeyCode: 39 }, s);
    await send("Input.dispatchKeyEvent", { type: "keyUp", key, code: key, windowsVirtualKeyCode: 39 }, s);
  }
  check((await selected()) === "tab-guard" && (await evaluate("document.activeElement.id")) === "tab-guard", "ArrowRight twice selects and focuses Guard");
  await send("Input.dispatchKeyEvent", { type: "keyDown", key: "Home", code: "Home", windowsVirtualKeyCode: 36 }, s);
  check((await selected()) === "tab-memory", "Home goes back to Memory");

  // Dark mode: toggles, survives a reload.
  const theme = () => evaluate("document.documentElement.getAttribute('data-theme')");
  const before = await theme();
  await evaluate("document.getElementById('theme').click()");
  const after = await theme();
  check(before !== after && ["dark", "light"].includes(after), `dark mode toggles (${before} -> ${after})`);
  if (after !== "dark") await evaluate("document.getElementById('theme').click()");
  await evaluate("document.getElementById('wide').click()");
  await evaluate("document.getElementById('zoom-in').click()");
  // The page's writes reach the browser's storage asynchronously: a reload
  // that overtakes them (a loaded machine) reads the old values. Wait until
  // the browser holds what the page wrote.
  const origin = await evaluate("location.origin");
  const stored = async () => {
    const { entries } = await send("DOMStorage.getDOMStorageItems", { storageId: { securityOrigin: origin, isLocalStorage: true } }, s);
    return new Map(entries);
  };
  let held = false;
  for (let i = 0; i < 50 && !held; i++) {
    const m = await stored().catch(() => new Map());
    held = m.get("cairn-site:theme") === "dark" && m.get("cairn-site:wide") === "true" && m.has("cairn-site:zoom");
    if (!held) await new Promise((r) => setTimeout(r, 100));
  }
  check(held, "the browser holds the display preferences before the reload");
  await load(true);
  check((await theme()) === "dark", "dark mode persists across a reload");
  check((await evaluate("document.documentElement.getAttribute('data-wide')")) === "true", "wide mode persists across a reload");
  check((await evaluate("getComputedStyle(document.documentElement).getPropertyValue('--zoom').trim()")) === "1.1", "zoom persists across a reload");
  for (const t of tabs) {
    await evaluate(`document.getElementById('tab-${t}').click()`);
    await shot(`${t}-1280-dark`);
  }
  await evaluate("document.getElementById('wide').click(); document.getElementById('zoom-out').click(); document.getElementById('tab-memory').click()");

  // Search: typed like a person, accents folded.
  await evaluate("document.getElementById('q').focus()");
  await send("Input.insertText", { text: "verrou flock" }, s);
  const hits = await evaluate("[...document.querySelectorAll('#results li')].map(li => li.textContent)");
  check(hits.length >= 1 && hits.some((h) => h.includes("Ajouter le verrou flock sur macOS")), `search finds the bullet (${hits.length} hits)`);
  await evaluate("{ const q = document.getElementById('q'); q.value = ''; q.focus(); }");
  await send("Input.insertText", { text: "zebrure" }, s);
  const folded = await evaluate("document.querySelector('#results li')?.textContent || ''");
  check(folded.includes("zébrure"), "search folds accents (zebrure finds zébrure)");
  await evaluate("{ const q = document.getElementById('q'); q.value = ''; q.focus(); }");
  await send("Input.insertText", { text: "pwned" }, s);
  check((await evaluate("document.querySelectorAll('#results li').length")) >= 4, "hostile bullets are found as text");
  check((await evaluate("document.querySelectorAll('#results script, #results img').length")) === 0, "search results hold no markup from bullets");
  await shot("search-1280-dark");
  check((await evaluate("typeof window.__pwned")) === "undefined", "still no script from a bullet ran");

  const leaving = requests.filter((u) => !u.startsWith("file://"));
  check(leaving.length === 0, `no request leaves file:// (${requests.length} requests${leaving.length ? ": " + leaving.join(" ") : ""})`);
  check(errors.length === 0, `no console error${errors.length ? ": " + errors.join(" | ") : ""}`);
}

const timer = setTimeout(() => { failures.push("timed out"); finish(); }, 90000);
function finish() {
  clearTimeout(timer);
  try { toBrowser.write(JSON.stringify({ id: nextId++, method: "Browser.close" }) + "\0"); } catch {}
  setTimeout(() => {
    proc.kill("SIGKILL");
    rmSync(profile, { recursive: true, force: true });
    if (failures.length) {
      console.error(`site browser test: ${failures.length} failure(s)`);
      if (stderr.trim()) console.error(stderr.split("\n").slice(-20).join("\n"));
      process.exit(1);
    }
    console.log(`site browser test: all checks passed; screenshots in ${outDir}`);
    process.exit(0);
  }, 300);
}
main().then(finish, (e) => { failures.push(String(e.stack || e)); console.error(e); finish(); });
