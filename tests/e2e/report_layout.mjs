// Layout and interaction checks of a report in headless Chromium, driven over the
// Chrome DevTools protocol (no npm packages: Node's WebSocket where it has one, else a
// minimal client below; Node 18 and later).
//
//   node tests/e2e/report_layout.mjs REPORT.html [WIDTHxHEIGHT ...]
//
// At each window size (default 1400x900 and 800x900) it checks that:
//   - every chart rendered (data-charts-rendered == data-charts-expected) and the page
//     recorded no error; nothing reached the browser console (Vega warnings included);
//   - nothing scrolls sideways: document.documentElement.scrollWidth <= window width;
//   - the roofline's top lies within two window heights;
//   - no two facet or column headers' boxes overlap, and no chart text is cut ("…");
//   - the first screen holds the verdict summary and the key-results table;
//   - the PNG and SVG export buttons produce images (clicked);
//   - the roofline's bytes-basis switch changes where the points are drawn (clicked);
//   - every roofline point is drawn at or below its own roof tick (faults excepted) and no
//     text mark in the plot overlaps a point, under every bytes basis;
//   - no chart has a facet panel without a mark, or two value labels overlapping in a panel;
//   - the mouse wheel over the roofline scrolls the page and does not zoom the chart.
// Exit 0 when all pass, 1 with one line per failure, 77 without Chromium.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const [report, ...sizeArgs] = process.argv.slice(2);
if (!report) {
  console.error("usage: report_layout.mjs REPORT.html [WIDTHxHEIGHT ...]");
  process.exit(2);
}
const sizes = (sizeArgs.length ? sizeArgs : ["1400x900", "800x900"]).map((s) => s.split("x").map(Number));
const browserPath = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
if (!browserPath) {
  console.log("SKIP: chromium not installed (scripts/install-deps.sh --test installs it)");
  process.exit(77);
}
const screenshot = process.env.LMROOF_LAYOUT_SCREENSHOT || "";  // FILE.png: the first screen at the first size

const profile = mkdtempSync(join(tmpdir(), "lmroof-layout-"));
const browser = spawn(browserPath, [
  "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--remote-debugging-port=0",
  `--user-data-dir=${profile}`, "about:blank"], { stdio: ["ignore", "ignore", "pipe"] });
const killer = setTimeout(() => { console.error("FAIL: timed out after 150 s"); cleanup(1); }, 150000);
function cleanup(code) {
  clearTimeout(killer);
  try { browser.kill("SIGKILL"); } catch (e) { /* already gone */ }
  try { rmSync(profile, { recursive: true, force: true }); } catch (e) { /* best effort */ }
  process.exit(code);
}

const wsUrl = await new Promise((ok, fail) => {
  let text = "";
  browser.stderr.on("data", (chunk) => {
    text += chunk;
    const m = text.match(/DevTools listening on (ws:\/\/\S+)/);
    if (m) ok(m[1]);
  });
  browser.on("exit", (code) => fail(new Error(`chromium exited ${code}: ${text.slice(-400)}`)));
}).catch((e) => { console.error("FAIL: " + e.message); cleanup(1); });

// Node 22 has a WebSocket client, Node 20 behind --experimental-websocket; Debian's
// Node 18 has none, so a minimal RFC 6455 client (text frames, masked sends) stands in.
class MiniWebSocket {
  constructor(url) {
    this.handlers = { open: [], message: [] };
    this.buffer = Buffer.alloc(0);
    this.fragments = [];
    const key = randomBytes(16).toString("base64");
    const u = new URL(url);
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname,
                              headers: { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Key": key,
                                         "Sec-WebSocket-Version": "13" } });
    req.on("upgrade", (res, socket, head) => {
      this.socket = socket;
      socket.on("data", (d) => this.receive(d));
      if (head && head.length) this.receive(head);
      this.handlers.open.forEach((h) => h());
    });
    req.on("error", (e) => { console.error("FAIL: DevTools connection: " + e.message); cleanup(1); });
    req.end();
  }
  addEventListener(type, fn) { this.handlers[type].push(fn); }
  send(text) {
    const payload = Buffer.from(text);
    const n = payload.length;
    const head = n < 126 ? Buffer.from([0x81, 0x80 | n])
               : n < 65536 ? Buffer.from([0x81, 0x80 | 126, n >> 8, n & 255])
               : Buffer.concat([Buffer.from([0x81, 0x80 | 127, 0, 0, 0, 0]), Buffer.from([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255])]);
    const mask = randomBytes(4);
    for (let i = 0; i < n; ++i) payload[i] ^= mask[i & 3];
    this.socket.write(Buffer.concat([head, mask, payload]));
  }
  receive(data) {
    this.buffer = Buffer.concat([this.buffer, data]);
    for (;;) {
      if (this.buffer.length < 2) return;
      const fin = this.buffer[0] & 0x80, opcode = this.buffer[0] & 0x0f;
      let len = this.buffer[1] & 0x7f, at = 2;
      if (len === 126) { if (this.buffer.length < 4) return; len = this.buffer.readUInt16BE(2); at = 4; }
      else if (len === 127) { if (this.buffer.length < 10) return; len = Number(this.buffer.readBigUInt64BE(2)); at = 10; }
      if (this.buffer.length < at + len) return;
      const payload = this.buffer.subarray(at, at + len);
      this.buffer = this.buffer.subarray(at + len);
      if (opcode === 0x9) { this.socket.write(Buffer.from([0x8a, 0x80, 0, 0, 0, 0])); continue; }  // pong
      if (opcode === 0x1 || opcode === 0x0) {
        this.fragments.push(Buffer.from(payload));
        if (fin) {
          const text = Buffer.concat(this.fragments).toString();
          this.fragments = [];
          this.handlers.message.forEach((h) => h({ data: text }));
        }
      }
    }
  }
}

const ws = typeof WebSocket === "function" ? new WebSocket(wsUrl) : new MiniWebSocket(wsUrl);
await new Promise((ok) => ws.addEventListener("open", ok));
let nextId = 1;
const waiting = new Map();
const listeners = [];
ws.addEventListener("message", (event) => {
  const msg = JSON.parse(event.data);
  if (msg.id && waiting.has(msg.id)) {
    const { ok, fail } = waiting.get(msg.id);
    waiting.delete(msg.id);
    msg.error ? fail(new Error(JSON.stringify(msg.error))) : ok(msg.result);
  } else if (msg.method) {
    listeners.forEach((l) => l(msg));
  }
});
function send(method, params = {}, sessionId) {
  const id = nextId++;
  ws.send(JSON.stringify({ id, method, params, sessionId }));
  return new Promise((ok, fail) => waiting.set(id, { ok, fail }));
}
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

const failures = [];
const fail = (size, text) => failures.push(`${size}: ${text}`);
const url = "file://" + resolve(report);

for (const [width, height] of sizes) {
  const label = `${width}x${height}`;
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  const consoleLines = [];
  const listener = (msg) => {
    if (msg.sessionId !== sessionId) return;
    if (msg.method === "Runtime.consoleAPICalled")
      consoleLines.push(`console.${msg.params.type}: ` + msg.params.args.map((a) => a.value ?? a.description ?? "").join(" "));
    if (msg.method === "Runtime.exceptionThrown")
      consoleLines.push("exception: " + (msg.params.exceptionDetails.exception?.description || msg.params.exceptionDetails.text));
    if (msg.method === "Log.entryAdded" && ["error", "warning"].includes(msg.params.entry.level))
      consoleLines.push(`log ${msg.params.entry.level}: ${msg.params.entry.text}`);
  };
  listeners.push(listener);
  await send("Runtime.enable", {}, sessionId);
  await send("Log.enable", {}, sessionId);
  await send("Page.enable", {}, sessionId);
  await send("Emulation.setDeviceMetricsOverride", { width, height, deviceScaleFactor: 1, mobile: false }, sessionId);
  await send("Page.navigate", { url }, sessionId);
  const evaluate = async (expression) => {
    const r = await send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }, sessionId);
    if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description || r.exceptionDetails.text);
    return r.result.value;
  };
  let state = "";
  for (let i = 0; i < 200 && state !== "done"; ++i) {
    await sleep(250);
    state = await evaluate("document.body && document.body.getAttribute('data-report-state')").catch(() => "");
  }
  if (state !== "done") { fail(label, `the charts did not finish rendering (data-report-state=${state})`); continue; }
  await sleep(300);  // let the browser lay out the final SVGs

  const page = await evaluate(`(() => {
    const b = document.body, out = {};
    out.expected = b.getAttribute("data-charts-expected");
    out.rendered = b.getAttribute("data-charts-rendered");
    out.errors = b.getAttribute("data-report-errors") || "0";
    out.errorText = (document.getElementById("report-errors") || {}).textContent || "";
    out.scrollWidth = document.documentElement.scrollWidth;
    out.innerWidth = window.innerWidth;
    out.innerHeight = window.innerHeight;
    const wide = [];
    document.querySelectorAll("body *").forEach((e) => {
      const r = e.getBoundingClientRect();
      if (r.right > window.innerWidth + 1 && r.width > 0 && !e.closest("svg")) wide.push((e.id ? "#" + e.id : e.tagName.toLowerCase() + "." + e.className) + " right=" + Math.round(r.right));
    });
    out.wide = wide.slice(0, 5);
    const roof = document.querySelector("#chart-roofline");
    out.rooflineTop = roof ? roof.getBoundingClientRect().top + window.scrollY : null;
    const missing = [];
    document.querySelectorAll("[data-chart]").forEach((s) => { if (!s.querySelector(".chart svg")) missing.push(s.getAttribute("data-chart")); });
    out.missing = missing;
    // Facet and column headers: the text of every header group, per chart.
    const overlaps = [], cut = [];
    document.querySelectorAll(".chart svg").forEach((svg) => {
      const chart = svg.closest("[data-chart]").getAttribute("data-chart");
      const boxes = [];
      svg.querySelectorAll("g[class*='header'] text, g[class*='title'] text").forEach((t) => {
        const r = t.getBoundingClientRect();
        // Vega hides labels that would collide (labelOverlap) by setting their opacity to 0.
        const hidden = t.getAttribute("opacity") === "0" || getComputedStyle(t).opacity === "0";
        if (r.width > 0 && !hidden) boxes.push({ text: t.textContent, r });
      });
      for (let i = 0; i < boxes.length; ++i)
        for (let j = i + 1; j < boxes.length; ++j) {
          const a = boxes[i].r, c = boxes[j].r;
          if (a.left < c.right - 1 && c.left < a.right - 1 && a.top < c.bottom - 1 && c.top < a.bottom - 1)
            overlaps.push(chart + ": '" + boxes[i].text + "' / '" + boxes[j].text + "'");
        }
      svg.querySelectorAll("text").forEach((t) => { if (t.textContent.includes("\\u2026")) cut.push(chart + ": '" + t.textContent + "'"); });
      const r = svg.getBoundingClientRect();
      if (r.right > window.innerWidth + 1) cut.push(chart + ": the chart is " + Math.round(r.width) + " px wide, ends at " + Math.round(r.right));
    });
    out.overlaps = overlaps.slice(0, 5);
    out.cut = cut.slice(0, 5);
    // No table wider than its box (issue 45): a .table-wrap scrolls sideways inside the page,
    // so a table wider than it hides its last columns.
    const tables = [];
    document.querySelectorAll(".table-wrap").forEach((w) => {
      if (w.scrollWidth > w.clientWidth + 1) {
        const t = w.querySelector("table");
        const name = (t && t.id) || (w.closest("section") && w.closest("section").id) || "a table";
        tables.push(name + ": " + w.scrollWidth + " px in a " + w.clientWidth + " px box");
      }
    });
    out.tables = tables;
    const summary = document.querySelector("#verdict-summary");
    out.summaryBottom = summary ? summary.getBoundingClientRect().bottom + window.scrollY : null;
    const key = document.querySelector("#key-results");
    out.keyTop = key ? key.getBoundingClientRect().top + window.scrollY : null;
    return out;
  })()`);
  if (consoleLines.length) fail(label, "console output: " + consoleLines.slice(0, 3).join(" | "));
  if (page.errors !== "0") fail(label, `the page recorded ${page.errors} error(s): ${page.errorText.slice(0, 300)}`);
  if (!(Number(page.expected) > 0)) fail(label, `data-charts-expected is '${page.expected}'`);
  if (page.rendered !== page.expected) fail(label, `${page.rendered} of ${page.expected} charts rendered`);
  if (page.missing.length) fail(label, "charts without an <svg>: " + page.missing.join(", "));
  if (page.scrollWidth > page.innerWidth) fail(label, `the page scrolls sideways: scrollWidth ${page.scrollWidth} > ${page.innerWidth} (${page.wide.join("; ")})`);
  if (page.tables.length) fail(label, "tables wider than their box: " + page.tables.join("; "));
  if (page.rooflineTop === null) fail(label, "no #chart-roofline");
  else if (page.rooflineTop > 2 * page.innerHeight) fail(label, `the roofline starts at ${Math.round(page.rooflineTop)} px, below two screens (${2 * page.innerHeight} px)`);
  if (page.overlaps.length) fail(label, "overlapping headers: " + page.overlaps.join("; "));
  if (page.cut.length) fail(label, "cut chart text: " + page.cut.join("; "));
  if (page.summaryBottom === null) fail(label, "no #verdict-summary");
  else if (page.summaryBottom > page.innerHeight) fail(label, `the verdict summary ends at ${Math.round(page.summaryBottom)} px, below the first screen`);
  if (page.keyTop === null) fail(label, "no #key-results table");
  else if (page.keyTop > page.innerHeight) fail(label, `the key-results table starts at ${Math.round(page.keyTop)} px, below the first screen`);

  if (screenshot && label === `${sizes[0][0]}x${sizes[0][1]}`) {
    const scale = Number(process.env.LMROOF_LAYOUT_SCREENSHOT_SCALE || 1);
    // LMROOF_LAYOUT_SCREENSHOT_SELECTOR: that element instead of the first screen
    // (scripts/screenshot-roofline.sh takes #chart-roofline).
    const selector = process.env.LMROOF_LAYOUT_SCREENSHOT_SELECTOR || "";
    let clip = { x: 0, y: 0, width, height, scale };
    if (selector) {
      const box = await evaluate(`(() => { const e = document.querySelector(${JSON.stringify(selector)});
        if (!e) return null; const r = e.getBoundingClientRect();
        return { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height }; })()`);
      if (!box) fail(label, "no element " + selector + " to take a picture of");
      else clip = { ...box, scale };
    }
    const shot = await send("Page.captureScreenshot", { format: "png", clip, captureBeyondViewport: true }, sessionId);
    writeFileSync(screenshot, Buffer.from(shot.data, "base64"));
    console.log("screenshot: " + screenshot);
  }

  // Export: click PNG and SVG under the roofline; each records the image's data URL prefix.
  const exported = await evaluate(`(async () => {
    const section = document.querySelector("#chart-roofline");
    const out = {};
    for (const format of ["png", "svg"]) {
      const button = section && section.querySelector("button.export[data-format=" + format + "]");
      if (!button) { out[format] = "no button"; continue; }
      button.click();
      for (let i = 0; i < 40 && !section.getAttribute("data-exported-" + format); ++i) await new Promise((ok) => setTimeout(ok, 100));
      out[format] = section.getAttribute("data-exported-" + format) || "nothing exported";
    }
    return out;
  })()`);
  if (!/^data:image\/png/.test(exported.png)) fail(label, "PNG export: " + exported.png);
  if (!/^(blob:|data:image\/svg)/.test(exported.svg)) fail(label, "SVG export: " + exported.svg);

  // The bytes basis: click each offered option; the points must move for at least one.
  const basis = await evaluate(`(async () => {
    const inputs = Array.from(document.querySelectorAll("#chart-roofline input[name='basis'], #chart-roofline input[type=radio]"));
    if (inputs.length < 2) return { error: "the roofline offers " + inputs.length + " bytes-basis options" };
    const where = () => Array.from(document.querySelectorAll("#chart-roofline svg g[class*='role-mark'] path[transform]"))
      .map((p) => p.getAttribute("transform")).join(";");
    const seen = new Set([where()]);
    const view = window.lmroofViews && window.lmroofViews.roofline;
    const picked = [];
    for (const input of inputs) {
      input.click();
      await new Promise((ok) => setTimeout(ok, 400));
      picked.push(input.value + "=" + (view ? view.signal("basis") : "?"));
      seen.add(where());
    }
    return { options: inputs.map((i) => i.value), picked, distinct: seen.size };
  })()`);
  if (basis.error) fail(label, basis.error);
  else {
    for (const p of basis.picked) { const [want, got] = p.split("="); if (want !== got) fail(label, `clicking '${want}' set basis to '${got}'`); }
    if (basis.distinct < 2) fail(label, "switching the bytes basis did not move any point");
  }
  // Each point is drawn at or below the roof drawn for it (its tick, in its level's colour,
  // the FLOP/s its judged roof allows), a measurement fault (above its roof by more than
  // 5%, named in the warnings box) excepted; and no text mark in the plot overlaps a point
  // (the roofs are labelled in the legend). Under every bytes basis.
  const roofs = await evaluate(`(async () => {
    const view = window.lmroofViews && window.lmroofViews.roofline;
    if (!view) return { error: "no roofline view (window.lmroofViews.roofline)" };
    const walk = (mark, fn) => { fn(mark); for (const item of mark.items || []) for (const child of item.items || []) walk(child, fn); };
    const inputs = Array.from(document.querySelectorAll("#chart-roofline input[type=radio]"));
    const problems = [];
    let checked = 0;
    for (const input of inputs) {
      input.click();
      await new Promise((ok) => setTimeout(ok, 400));
      const y = view.scale("y");
      const points = [], ticks = new Map(), texts = [];
      walk(view.scenegraph().root, (m) => {
        if (m.name === "points_marks") points.push(...m.items);
        if (m.name === "judged_roof_marks") for (const t of m.items) ticks.set(t.datum.id, t);
        if (m.marktype === "text" && m.role === "mark") texts.push(...m.items);
      });
      for (const p of points) {
        const d = p.datum, tick = ticks.get(d.id);
        if (d.fault || d.y_judged_roof == null) continue;
        if (input.value !== "l2" && !tick) { problems.push(input.value + ": " + d.id + " has no tick"); continue; }
        // SVG y grows downwards: the point's centre at or below its roof, 5% (a fault's bound) allowed.
        if (p.y < y(d.y_judged_roof * 1.05) - 0.5) problems.push(input.value + ": " + d.id + " drawn above its roof");
        ++checked;
      }
      for (const t of texts)
        for (const p of points)
          if (t.bounds && p.bounds && t.bounds.intersects(p.bounds)) { problems.push(input.value + ": text '" + t.text + "' over " + p.datum.id); break; }
    }
    return { problems, checked };
  })()`);
  // Every chart: no facet panel without a mark, and no two value labels (text marks of
  // one panel) overlapping.
  const panels = await evaluate(`(() => {
    const problems = [];
    const walk = (mark, fn) => { fn(mark); for (const item of mark.items || []) for (const child of item.items || []) walk(child, fn); };
    for (const [name, view] of Object.entries(window.lmroofViews || {})) {
      walk(view.scenegraph().root, (m) => {
        if (m.name !== "cell" && !(m.role === "scope" && /cell/.test(m.name || ""))) return;
        m.items.forEach((cell, i) => {
          let marks = 0;
          const texts = [];
          for (const child of cell.items || [])
            walk(child, (c) => {
              if (c.role === "mark" && c.marktype !== "group") marks += c.items.length;
              if (c.role === "mark" && c.marktype === "text") texts.push(...c.items.filter((t) => t.text && String(t.text).trim()));
            });
          if (marks === 0) problems.push(name + ": panel " + (i + 1) + " is empty");
          for (let a = 0; a < texts.length; ++a)
            for (let b = a + 1; b < texts.length; ++b)
              if (texts[a].bounds.intersects(texts[b].bounds)) {
                problems.push(name + ": labels '" + texts[a].text + "' and '" + texts[b].text + "' overlap in panel " + (i + 1));
                a = texts.length; break;
              }
        });
      });
    }
    return problems;
  })()`);
  for (const p of panels.slice(0, 6)) fail(label, p);
  if (roofs.error) fail(label, roofs.error);
  else {
    for (const p of roofs.problems.slice(0, 5)) fail(label, "roofline: " + p);
    if (roofs.checked === 0) fail(label, "roofline: no point checked against its roof");
  }
  // The mouse wheel over the roofline scrolls the page and leaves the chart's axes alone
  // (zooming needs shift+wheel).
  const before = await evaluate(`(() => {
    const svg = document.querySelector("#chart-roofline svg");
    window.scrollTo(0, Math.max(0, svg.getBoundingClientRect().top + window.scrollY - 50));
    const r = svg.getBoundingClientRect();
    const ticks = Array.from(svg.querySelectorAll("g[class*='role-axis-label'] text")).map((t) => t.textContent).join(",");
    return { x: r.left + r.width / 2, y: Math.min(r.top + r.height / 2, window.innerHeight - 10), scrollY: window.scrollY, ticks };
  })()`);
  await send("Input.dispatchMouseEvent", { type: "mouseWheel", x: before.x, y: before.y, deltaX: 0, deltaY: 240 }, sessionId);
  await sleep(500);
  const after = await evaluate(`(() => {
    const svg = document.querySelector("#chart-roofline svg");
    return { scrollY: window.scrollY,
             ticks: Array.from(svg.querySelectorAll("g[class*='role-axis-label'] text")).map((t) => t.textContent).join(",") };
  })()`);
  if (!(after.scrollY > before.scrollY)) fail(label, `the mouse wheel over the roofline did not scroll the page (scrollY ${before.scrollY} -> ${after.scrollY})`);
  if (after.ticks !== before.ticks) fail(label, "the mouse wheel over the roofline zoomed the chart");

  if (consoleLines.length) fail(label, "console output after clicks: " + consoleLines.slice(0, 3).join(" | "));
  console.log(`${label}: ${page.rendered}/${page.expected} charts, scrollWidth ${page.scrollWidth}, roofline at ${Math.round(page.rooflineTop ?? -1)} px, basis options ${(basis.options || []).join("/")}`);
  listeners.splice(listeners.indexOf(listener), 1);
  await send("Target.closeTarget", { targetId });
}

for (const f of failures) console.log("FAIL: " + f);
console.log(failures.length ? `${failures.length} failure(s) in ${report}` : `PASS: ${report}`);
cleanup(failures.length ? 1 : 0);
