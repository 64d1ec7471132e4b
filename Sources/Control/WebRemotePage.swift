/// The web remote served at `GET /`: one self-contained page (no external assets).
///
/// It shows the current channel and a live snapshot refreshed about once a second, offers
/// ▲ ▼ recall and a number pad, and follows `/api/v1/events`. While the channel on screen is
/// locked (its lock card is up), the pad types the PIN instead, shown as dots, and OK sends it to
/// `POST /api/v1/unlock`; a wrong PIN or a wait says so. Open it as `/?token=TOKEN` when the
/// API has a token; the page passes it on as a bearer header and as `?token=` where a browser
/// cannot send headers.
enum WebRemotePage {
    static let html = WebPage.document(title: "Flipbox remote", style: style, body: body, script: script)

    static let style = #"""
  :root { color-scheme: dark; --bg: #111; --panel: #1c1c1e; --key: #2c2c2e; --accent: #0a84ff; --text: #f2f2f7; --dim: #8e8e93; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.4 system-ui, sans-serif; background: var(--bg); color: var(--text);
         display: flex; justify-content: center; }
  main { width: 100%; max-width: 420px; padding: 16px; display: grid; gap: 12px; }
  #screen { width: 100%; aspect-ratio: 16 / 9; background: #000; border-radius: 10px; object-fit: contain; display: block; }
  #now { background: var(--panel); border-radius: 10px; padding: 10px 14px; }
  #channel { font-size: 1.3em; font-weight: 600; }
  #number { color: var(--accent); margin-right: .4em; }
  #last, #conn { color: var(--dim); font-size: .9em; min-height: 1.4em; }
  #guide { color: var(--accent); font-size: .9em; }
  #entry { font-size: 1.6em; text-align: center; min-height: 1.5em; letter-spacing: .15em; color: var(--accent); }
  .row { display: grid; grid-template-columns: repeat(3, 1fr); gap: 8px; }
  button { font: inherit; font-size: 1.3em; padding: 14px 0; border: 0; border-radius: 10px;
           background: var(--key); color: var(--text); cursor: pointer; touch-action: manipulation; }
  button:active { background: var(--accent); }
  .nav button { font-size: 1.5em; }
  .error { color: #ff453a; }
  #lock { background: #3a1d1d; border-radius: 10px; padding: 10px 14px; }
  #lock[hidden] { display: none; }
  #lockTitle { font-weight: 600; }
  #lockReason, #lockAnswer { color: var(--dim); font-size: .9em; min-height: 1.2em; }
"""#

    static let body = #"""
<main>
  <img id="screen" alt="live picture">
  <section id="now">
    <div id="channel"><span id="number">–</span><span id="name">no channel</span></div>
    <div id="last"></div>
    <div id="conn">connecting…</div>
    <a id="guide" href="/guide">guide</a>
  </section>
  <div class="row nav">
    <button data-flip="next" title="next channel (↑)">▲</button>
    <button data-flip="recall" title="previous channel shown (Backspace)">↺</button>
    <button data-flip="previous" title="previous channel (↓)">▼</button>
  </div>
  <section id="lock" hidden>
    <div id="lockTitle">Locked: type the PIN, then OK</div>
    <div id="lockReason"></div>
    <div id="lockAnswer"></div>
  </section>
  <div id="entry"></div>
  <div class="row pad">
    <button data-digit="1">1</button><button data-digit="2">2</button><button data-digit="3">3</button>
    <button data-digit="4">4</button><button data-digit="5">5</button><button data-digit="6">6</button>
    <button data-digit="7">7</button><button data-digit="8">8</button><button data-digit="9">9</button>
    <button data-digit=".">.</button><button data-digit="0">0</button><button id="ok">OK</button>
  </div>
</main>
"""#

    static let script = #"""
$("guide").href = withToken("/guide");

function showChannel(channel) {
  $("number").textContent = channel ? channel.number : "–";
  $("name").textContent = channel ? channel.name : "no channel";
}
function showResult(r) {
  const last = $("last");
  last.classList.toggle("error", !r.ok && r.outcome !== "superseded");
  if (r.ok) {
    showChannel(r.channel);
    last.textContent = r.path + (r.latencyMs != null ? ", " + Math.round(r.latencyMs) + " ms" : "");
  } else if (r.outcome === "superseded") {
    last.textContent = "superseded";
  } else {
    last.textContent = r.error || "failed";
  }
}
async function api(method, path) {
  try {
    const response = await fetch(path, { method, headers });
    const body = await response.json();
    if (!response.ok && body.error && body.requestId === undefined) throw new Error(body.error);
    return body;
  } catch (e) {
    $("last").textContent = String(e.message || e);
    $("last").classList.add("error");
    return null;
  }
}
async function flip(path) {
  const r = await api("POST", path);
  if (r && r.requestId !== undefined) showResult(r);
}

// The lock card: while it is up, the pad types the PIN (4 to 8 digits, shown as dots).
let locked = null, pin = "";
function showLock(reason) {
  locked = reason || null; pin = "";
  $("lock").hidden = !locked;
  $("lockReason").textContent = locked || "";
  $("lockAnswer").textContent = "";
  $("entry").textContent = "";
}
function typePIN(d) {
  if (!/^[0-9]$/.test(d) || pin.length >= 8) return;
  pin += d; $("entry").textContent = "●".repeat(pin.length);
  if (pin.length === 8) submitPIN();
}
async function submitPIN() {
  const typed = pin;
  pin = ""; $("entry").textContent = "";
  if (typed.length < 4) { $("lockAnswer").textContent = "a PIN has 4 to 8 digits"; return; }
  const response = await fetch("/api/v1/unlock", { method: "POST", headers: { ...headers, "Content-Type": "application/json" },
                                                   body: JSON.stringify({ pin: typed }) }).catch(() => null);
  if (!response) { $("lockAnswer").textContent = "the box did not answer"; return; }
  if (response.ok) { showLock(null); return; }
  const body = await response.json().catch(() => ({}));
  $("lockAnswer").textContent = body.error || ("refused (" + response.status + ")");
}

let entry = "", entryTimer = null;
function commitEntry() {
  clearTimeout(entryTimer);
  const number = entry.replace(/\.$/, "");
  entry = ""; $("entry").textContent = "";
  if (number) flip("/api/v1/tune/" + encodeURIComponent(number));
}
function typeDigit(d) {
  if (locked) { typePIN(d); return; }
  if (d === "." && (entry === "" || entry.includes("."))) return;
  entry += d; $("entry").textContent = entry + "_";
  clearTimeout(entryTimer);
  if (entry.replace(".", "").length >= 4) { commitEntry(); return; }
  entryTimer = setTimeout(commitEntry, 1500);
}
document.querySelectorAll("[data-flip]").forEach((b) => b.addEventListener("click", () => {
  const kind = b.dataset.flip;
  flip(kind === "recall" ? "/api/v1/recall" : "/api/v1/flip/" + kind);
}));
document.querySelectorAll("[data-digit]").forEach((b) => b.addEventListener("click", () => typeDigit(b.dataset.digit)));
$("ok").addEventListener("click", () => locked ? submitPIN() : commitEntry());
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowUp" || e.key === "PageUp" || e.key === "+") flip("/api/v1/flip/next");
  else if (e.key === "ArrowDown" || e.key === "PageDown" || e.key === "-") flip("/api/v1/flip/previous");
  else if (/^[0-9.]$/.test(e.key)) typeDigit(e.key);
  else if (e.key === "Enter") locked ? submitPIN() : commitEntry();
  else if (e.key === "Backspace") {
    if (locked) { pin = pin.slice(0, -1); $("entry").textContent = "●".repeat(pin.length); }
    else if (entry) { entry = entry.slice(0, -1); $("entry").textContent = entry ? entry + "_" : ""; }
    else flip("/api/v1/recall");
  } else return;
  e.preventDefault();
});

// The picture: ask for the next frame once the previous one has arrived, about once a second.
const screen = $("screen");
function nextSnapshot() { screen.src = withToken("/api/v1/snapshot.png?width=640&t=" + Date.now()); }
screen.addEventListener("load", () => setTimeout(nextSnapshot, 1000));
screen.addEventListener("error", () => setTimeout(nextSnapshot, 3000));
nextSnapshot();

// The current channel now, then live from the event stream.
api("GET", "/api/v1/status").then((s) => { if (s) { showChannel(s.channel); if (s.lastFlip) showResult(s.lastFlip); showLock(s.locked); } });
const events = new EventSource(withToken("/api/v1/events"));
events.addEventListener("open", () => { $("conn").textContent = "live"; });
events.addEventListener("error", () => { $("conn").textContent = "reconnecting…"; });
events.addEventListener("flip-started", (e) => {
  const d = JSON.parse(e.data);
  if (d.target) $("last").textContent = "→ " + d.target.number + " " + d.target.name;
});
events.addEventListener("flip-completed", (e) => showResult(JSON.parse(e.data)));
events.addEventListener("lock-shown", (e) => showLock(JSON.parse(e.data).reason || "locked"));
events.addEventListener("lock-hidden", () => showLock(null));
"""#
}
