// The lobby: tables waiting, running and ended (by game), and the tournaments; polled every 1.5 s.
import { el, getJSON, header, statusBadge } from "./common.js";

const STATUS_ORDER = ["waiting", "running", "finished", "aborted"];
let gameFilter = "";

function tableRows(tables) {
  return tables.map((t) => el("tr", { "data-table": t.id, "data-status": t.status },
    el("td", {}, el("a", { href: t.url }, t.id)),
    el("td", {}, t.game),
    el("td", {}, statusBadge(t.status)),
    el("td", {}, (t.names || []).map((n, i) => `${i}: ${n}`).join(", ")),
    el("td", { class: "num" }, (t.scores || []).join(" – ")),
    el("td", { class: "num" }, t.deal ?? ""),
    el("td", { class: "muted" }, t.reason || "")));
}

function section(title, tables) {
  if (!tables.length) return el("div", {}, el("h2", {}, title), el("p", { class: "muted" }, "none"));
  return el("div", {}, el("h2", {}, `${title} (${tables.length})`), el("div", { class: "scroll" },
    el("table", { class: "grid", "data-testid": `tables-${title}` },
      el("tr", {}, el("th", {}, "table"), el("th", {}, "game"), el("th", {}, "status"), el("th", {}, "seats"),
        el("th", { class: "num" }, "scores (sides)"), el("th", { class: "num" }, "deal"), el("th", {}, "")),
      tableRows(tables))));
}

// The organiser's sign-in: its owner token goes to the viewer once, which keeps it in an HttpOnly cookie;
// tables withheld from the public (a tournament's deck set still being played) then show and can be followed.
let organiser = null;

async function signIn(event) {
  event.preventDefault();
  const token = event.target.elements.token.value.trim();
  const response = await fetch("/api/organiser", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token }) });
  if (!response.ok) { alert(await response.text()); return; }
  refresh();
}

async function signOut() {
  await fetch("/api/organiser", { method: "DELETE" });
  refresh();
}

function drawOrganiser(signedIn, live) {
  if (signedIn === organiser) return;  // drawn once per state: a redraw would wipe what is being typed
  organiser = signedIn;
  const box = document.getElementById("organiser");
  if (!live) { box.replaceChildren(); return; }
  box.replaceChildren(signedIn
    ? el("p", { class: "muted", "data-testid": "organiser" }, "signed in with an owner token: its withheld tables are listed too. ",
      el("button", { type: "button", onclick: signOut }, "sign out"))
    : el("form", { onsubmit: signIn, "data-testid": "organiser" },
      el("label", {}, "organiser: ", el("input", { name: "token", type: "password", autocomplete: "off",
        placeholder: "owner token" })), " ", el("button", { type: "submit" }, "sign in")));
}

async function refresh() {
  const [{ live, organiser: signedIn, tables }, { tournaments }] = await Promise.all([getJSON("/api/tables"), getJSON("/api/tournaments")]);
  drawOrganiser(Boolean(signedIn), live);
  const games = [...new Set(tables.map((t) => t.game))].sort();
  const shown = tables.filter((t) => !gameFilter || t.game === gameFilter);
  const filter = el("select", { onchange: (e) => { gameFilter = e.target.value; refresh(); } },
    el("option", { value: "" }, "every game"), games.map((g) => el("option", { value: g, selected: g === gameFilter }, g)));
  const parts = [el("p", {}, "Game: ", filter, " ",
    el("span", { class: "muted" }, live ? "live from the server; updates every 1.5 s" : "from files (tricktable view)"))];
  const groups = live ? [["waiting", ["waiting"]], ["running", ["running"]], ["ended", ["finished", "aborted"]]]
    : [["ended", STATUS_ORDER]];
  for (const [title, statuses] of groups) parts.push(section(title, shown.filter((t) => statuses.includes(t.status))));
  parts.push(el("h2", {}, "tournaments"));
  parts.push(tournaments.length ? el("div", { class: "scroll" }, el("table", { class: "grid", "data-testid": "tournaments" },
    el("tr", {}, el("th", {}, "tournament"), el("th", {}, "game"), el("th", {}, "format"), el("th", {}, "status"),
      el("th", { class: "num" }, "games")),
    tournaments.map((t) => el("tr", {}, el("td", {}, el("a", { href: t.url }, t.name)), el("td", {}, t.game),
      el("td", {}, t.format), el("td", {}, statusBadge(t.status)), el("td", { class: "num" }, `${t.games} / ${t.scheduled}`)))))
    : el("p", { class: "muted" }, "none"));
  document.getElementById("main").replaceChildren(...parts);
}

document.getElementById("top").replaceWith(header("lobby"));
async function loop() {
  try { await refresh(); } catch (error) {
    document.getElementById("main").replaceChildren(el("p", { class: "error-box" }, `${error.message}`));
  }
  setTimeout(loop, 1500);
}
loop();
