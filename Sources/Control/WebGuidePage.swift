/// The web remote's guide, served at `GET /guide`: one self-contained page (no external assets).
///
/// It shows the channels with their live pictures (each channel's thumbnail, refreshed every
/// 5 s; a click tunes it) and two hours of the guide (`/api/v1/guide`): a row per channel, a
/// line at now, the programme on now on the channel playing highlighted. A click on a programme
/// on now tunes its channel; on a later one, sets a reminder. Open it as `/guide?token=TOKEN`
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
"""#

    static let body = #"""
<header><h1>Guide</h1><span id="clock"></span><a id="remote" href="/">remote</a></header>
<div id="message"></div>
<section id="channels"></section>
<section id="grid"></section>
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
      cell.className = "programme" + (onNow && number === playing ? " current" : "");
      cell.textContent = p.title;
      cell.title = hhmm(start) + "–" + hhmm(stop) + " " + p.title + (p.description ? "\n" + p.description : "");
      cell.style.left = x(start) + "%";
      cell.style.width = (x(stop) - x(start)) + "%";
      cell.addEventListener("click", () => start > now ? remind(number, p.start, p.title) : tune(number));
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
  await Promise.all([drawChannels(), drawGuide()]);
  document.body.dataset.loaded = "yes";
}
load();
setInterval(load, 30000);
// The pictures again every 5 s (each is the channel's latest keyframe).
setInterval(() => { for (const [c, img] of shown) picture(c, img); }, 5000);
"""#
}
