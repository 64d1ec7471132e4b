/// The web remote's guide, served at `GET /guide`: one self-contained page (no external assets).
///
/// It shows the channels with their live pictures (each channel's thumbnail, refreshed every
/// 5 s; a click tunes it) and two hours of the guide (`/api/v1/guide`): a row per channel, a
/// line at now, the programme on now on the channel playing highlighted. A click on a programme
/// opens its actions: watch (on now), from the start (on now or ended, on a channel whose
/// provider keeps an archive), remind (later), record it, record the series. The box's
/// recordings are listed under the guide, each with watch (on the TV, where it was left) and remove. Open it as `/guide?token=TOKEN`
/// when the API has a token: requests carry it as a bearer header (pictures are fetched, not
/// linked, for that reason).
enum WebGuidePage {
    static let html = WebPage.document(title: "Flipbox guide", style: style, body: body, script: script)

    static let style = #"""
  :root { color-scheme: dark; --bg: #0b1220; --panel: #16213a; --cell: #22314f; --focus: #f2c200; --text: #f2f2f7; --dim: #9fb0d0; --now: #ff3b30; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.35 system-ui, sans-serif; background: var(--bg); color: var(--text); }
  header { display: flex; align-items: baseline; gap: 16px; padding: 14px 20px; }
  header h1 { margin: 0; font-size: 1.4em; }
  header a { color: var(--dim); }
  #message { color: var(--dim); min-height: 1.3em; padding: 0 20px; }
  #channels { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 10px; padding: 10px 20px; }
  .channel { background: var(--panel); border-radius: 8px; overflow: hidden; cursor: pointer; border: 2px solid transparent; }
  .channel.playing { border-color: var(--focus); }
  .channel img, .channel .nopicture { width: 100%; aspect-ratio: 16 / 9; display: block; background: #000; object-fit: cover; }
  .channel .nopicture { color: var(--dim); display: flex; align-items: center; justify-content: center; font-size: .85em; }
  .channel .label { padding: 6px 8px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  #grid { position: relative; margin: 10px 20px 30px; }
  .times, .row { display: grid; grid-template-columns: 200px 1fr; gap: 6px; }
  .times .track, .row .track { position: relative; height: 44px; }
  .times .track span { position: absolute; top: 12px; color: var(--dim); font-size: .9em; }
  .row { margin-top: 6px; }
  .row .name { background: var(--panel); border-radius: 6px; padding: 11px 10px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  .row.playing .name { background: #2c3d66; }
  .programme { position: absolute; top: 0; height: 44px; background: var(--cell); border-radius: 6px; padding: 11px 8px;
               white-space: nowrap; overflow: hidden; text-overflow: ellipsis; cursor: pointer; border: 1px solid var(--bg); }
  .programme.current { background: var(--focus); color: #101010; }
  #nowline { position: absolute; top: 0; bottom: 0; width: 3px; background: var(--now); pointer-events: none; }
  .programme.recording { box-shadow: inset 4px 0 0 var(--now); }
  .programme.recording::before { content: "● "; color: var(--now); }
  #actions { position: sticky; bottom: 0; background: var(--panel); padding: 12px 20px; display: none; gap: 10px; align-items: center; flex-wrap: wrap; }
  #actions.open { display: flex; }
  #actions .what { flex: 1 1 260px; }
  #actions button, #recordings button { font: inherit; background: var(--cell); color: var(--text); border: 1px solid var(--dim); border-radius: 6px; padding: 6px 12px; cursor: pointer; }
  #recordings { margin: 0 20px 30px; }
  #recordings h2 { font-size: 1.1em; margin: 0 0 6px; }
  #recordings .item { display: flex; gap: 12px; align-items: center; padding: 6px 0; border-bottom: 1px solid var(--cell); }
  #recordings .item .state { color: var(--dim); min-width: 80px; }
  #recordings .item .title { flex: 1; }
  #recordings .conflict { color: var(--now); }
"""#

    static let body = #"""
<header><h1>Guide</h1><span id="clock"></span><a id="remote" href="/">remote</a></header>
<div id="message"></div>
<section id="channels"></section>
<section id="grid"></section>
<section id="recordings"></section>
<div id="actions"><span class="what" id="what"></span></div>
"""#

    static let script = #"""
$("remote").href = withToken("/");
const span = 2 * 3600 * 1000;
const hhmm = (d) => d.toTimeString().slice(0, 5);
let playing = null;

async function api(method, path, body) {
  const init = { method, headers: Object.assign({}, headers) };
  if (body) { init.body = JSON.stringify(body); init.headers["Content-Type"] = "application/json"; }
  const response = await fetch(path, init);
  const json = await response.json().catch(() => ({}));
  if (!response.ok && json.error && json.requestId === undefined) throw new Error(json.error);
  return json;
}
function say(text) { $("message").textContent = text; }
async function tune(number) {
  try {
    const r = await api("POST", "/api/v1/tune/" + encodeURIComponent(number));
    say(r.ok ? "Tuned " + r.channel.number + " " + r.channel.name : (r.error || "failed"));
    await load();
  } catch (e) { say(String(e.message || e)); }
}
async function act(label, work) {
  try { say(await work()); } catch (e) { say(label + ": " + String(e.message || e)); }
  await drawRecordings();
}
const record = (number, p) => act("Record", async () => {
  const r = await api("POST", "/api/v1/recordings", { channel: number, programme: p.start });
  return "Recording " + r.title + " (" + r.state + ")";
});
const series = (number, p) => act("Series", async () => {
  const r = await api("POST", "/api/v1/recording-rules", { title: p.title, newOnly: true });
  return "Series " + r.rule.title + ": " + r.recordings.length + " to record" + (r.notes.length ? " — " + r.notes.join("; ") : "");
});
const fromStart = (number, p) => act("From the start", async () => {
  await api("POST", "/api/v1/catchup", { channel: number, programme: p.start });
  await load();
  return "Playing " + p.title + " from " + hhmm(new Date(p.start));
});
// The actions of a programme, in the bar at the bottom.
function choose(number, c, p) {
  const start = new Date(p.start), stop = new Date(p.stop), now = new Date();
  const bar = $("actions");
  bar.textContent = "";
  bar.append(Object.assign(document.createElement("span"), { className: "what", textContent: number + " · " + hhmm(start) + "–" + hhmm(stop) + " " + p.title }));
  const button = (label, work) => {
    const b = Object.assign(document.createElement("button"), { textContent: label });
    b.addEventListener("click", () => { bar.classList.remove("open"); work(); });
    bar.append(b);
  };
  const archive = c.catchupDays && start > now - c.catchupDays * 86400000;
  if (start <= now && now < stop) button("Watch", () => tune(number));
  if (archive && start <= now) button("From the start", () => fromStart(number, p));
  if (start > now) button("Remind", () => remind(number, p.start, p.title));
  if (stop > now) button("Record", () => record(number, p));
  button("Record series", () => series(number, p));
  button("Close", () => {});
  bar.classList.add("open");
}

// The box's recordings: what is scheduled, being written, done.
let recorded = new Set();
async function drawRecordings() {
  const box = $("recordings");
  let list;
  try { list = await api("GET", "/api/v1/recordings"); } catch (e) { box.textContent = ""; return; }
  recorded = new Set(list.recordings.filter((r) => r.state === "scheduled" || r.state === "recording").map((r) => r.channel + "@" + Date.parse(r.start)));
  box.textContent = "";
  box.append(Object.assign(document.createElement("h2"), { textContent: "Recordings" }));
  if (!list.recordings.length) box.append(Object.assign(document.createElement("div"), { className: "item", textContent: "None yet: click a programme to record it." }));
  const titleOf = (id) => (list.recordings.find((r) => r.id === id) || { title: id }).title;
  for (const c of list.conflicts) {
    // The conflict, and what can be done about it: each option one button.
    const row = Object.assign(document.createElement("div"), { className: "conflict" });
    row.append(Object.assign(document.createElement("span"), { textContent: "Conflict: " + c.message }));
    for (const o of c.options) {
      const label = o.kind === "drop" ? "Drop " + titleOf(o.recording) : "Record " + titleOf(o.recording) + " on " + o.channel + " instead";
      const b = Object.assign(document.createElement("button"), { textContent: label });
      b.addEventListener("click", () => act(label, async () => {
        await api("POST", "/api/v1/recording-conflicts", o);
        return label + ": done";
      }));
      row.append(b);
    }
    box.append(row);
  }
  for (const r of list.recordings.slice().reverse()) {
    const item = document.createElement("div");
    item.className = "item";
    const when = new Date(r.start);
    const title = r.title + (r.episode ? " · " + r.episode : "") + (r.subtitle ? " · " + r.subtitle : "");
    item.append(Object.assign(document.createElement("span"), { className: "state", textContent: r.state }),
                Object.assign(document.createElement("span"), { className: "title", textContent: title + (r.error ? " (" + r.error + ")" : "") }),
                Object.assign(document.createElement("span"), { textContent: r.channel + " · " + when.toLocaleDateString() + " " + hhmm(when) }));
    if (r.file && r.state !== "scheduled") {
      // Plays it on the box's screen, where it was left.
      const watch = Object.assign(document.createElement("button"), { className: "watch", textContent: "Watch" });
      watch.addEventListener("click", () => act("Watch", async () => {
        await api("POST", "/api/v1/recordings/" + encodeURIComponent(r.id) + "/play");
        return "Playing " + r.title + " on the TV";
      }));
      item.append(watch);
    }
    const remove = Object.assign(document.createElement("button"), { textContent: r.state === "scheduled" ? "Cancel" : r.state === "recording" ? "Stop" : "Delete" });
    remove.addEventListener("click", () => act("Remove", async () => {
      await api("DELETE", "/api/v1/recordings/" + encodeURIComponent(r.id));
      return "Removed " + r.title;
    }));
    item.append(remove);
    box.append(item);
  }
}

async function remind(number, start, title) {
  try {
    await api("POST", "/api/v1/reminders", { channel: number, programme: start });
    say("Reminder: " + title + " at " + hhmm(new Date(start)));
  } catch (e) { say(String(e.message || e)); }
}

// Channels with their live pictures.
const pictures = new Map();
async function picture(channel, holder) {
  if (!channel.thumbnail) { holder.replaceWith(Object.assign(document.createElement("div"), { className: "nopicture", textContent: channel.state })); return; }
  try {
    const response = await fetch(channel.thumbnail + "?width=320", { headers });
    if (!response.ok) throw new Error(String(response.status));
    const url = URL.createObjectURL(await response.blob());
    if (pictures.has(channel.number)) URL.revokeObjectURL(pictures.get(channel.number));
    pictures.set(channel.number, url);
    holder.src = url;
  } catch (e) {
    holder.replaceWith(Object.assign(document.createElement("div"), { className: "nopicture", textContent: "no picture" }));
  }
}
let shown = [];
async function drawChannels() {
  const list = (await api("GET", "/api/v1/channels")).channels || [];
  const box = $("channels");
  box.textContent = "";
  shown = [];
  for (const c of list) {
    const card = document.createElement("div");
    card.className = "channel" + (c.number === playing ? " playing" : "");
    card.dataset.number = c.number;
    const img = document.createElement("img");
    img.alt = c.name;
    card.append(img, Object.assign(document.createElement("div"), { className: "label", textContent: c.number + " " + c.name }));
    card.addEventListener("click", () => tune(c.number));
    box.append(card);
    shown.push([c, img]);
    picture(c, img);
  }
}

// Two hours of the guide.
async function drawGuide() {
  const from = new Date(Math.floor(Date.now() / 1800000) * 1800000), to = new Date(from.getTime() + span), now = new Date();
  const grid = $("grid");
  let guide;
  try { guide = await api("GET", "/api/v1/guide?from=" + encodeURIComponent(from.toISOString()) + "&to=" + encodeURIComponent(to.toISOString())); }
  catch (e) { grid.textContent = String(e.message || e); return; }
  grid.textContent = "";
  const x = (t) => Math.max(0, Math.min(100, (t - from) / span * 100));
  const times = document.createElement("div");
  times.className = "times";
  const marks = document.createElement("div");
  marks.className = "track";
  for (let t = from.getTime(); t < to.getTime(); t += 1800000) {
    marks.append(Object.assign(document.createElement("span"), { textContent: hhmm(new Date(t)) }));
    marks.lastChild.style.left = x(t) + "%";
  }
  times.append(document.createElement("div"), marks);
  grid.append(times);
  for (const c of guide.channels) {
    const number = String(c.number);
    const row = document.createElement("div");
    row.className = "row" + (number === playing ? " playing" : "");
    const track = document.createElement("div");
    track.className = "track";
    for (const p of c.programmes) {
      const start = new Date(p.start), stop = new Date(p.stop);
      const cell = document.createElement("div");
      const onNow = start <= now && now < stop;
      cell.className = "programme" + (onNow && number === playing ? " current" : "") + (recorded.has(number + "@" + start.getTime()) ? " recording" : "");
      cell.textContent = p.title;
      cell.title = hhmm(start) + "–" + hhmm(stop) + " " + p.title + (p.description ? "\n" + p.description : "");
      cell.style.left = x(start) + "%";
      cell.style.width = (x(stop) - x(start)) + "%";
      cell.addEventListener("click", () => choose(number, c, p));
      track.append(cell);
    }
    row.append(Object.assign(document.createElement("div"), { className: "name", textContent: number + " " + c.name }), track);
    grid.append(row);
  }
  const line = document.createElement("div");
  line.id = "nowline";
  grid.append(line);
  const firstTrack = grid.querySelector(".row .track");
  if (firstTrack) line.style.left = (firstTrack.offsetLeft + firstTrack.offsetWidth * x(now) / 100) + "px";
}

async function load() {
  try {
    const status = await api("GET", "/api/v1/status");
    playing = status.channel ? status.channel.number : null;
  } catch (e) { say(String(e.message || e)); }
  $("clock").textContent = hhmm(new Date());
  await drawRecordings();
  await Promise.all([drawChannels(), drawGuide()]);
  document.body.dataset.loaded = "yes";
}
load();
setInterval(load, 30000);
// The pictures again every 5 s (each is the channel's latest keyframe).
setInterval(() => { for (const [c, img] of shown) picture(c, img); }, 5000);
"""#
}
