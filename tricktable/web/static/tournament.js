// A tournament's standings, read from its database while it runs (polled every 2 s) or from its export folder.
import { el, header, getJSON, statusBadge, fmt } from "./common.js";

const name = decodeURIComponent(location.pathname.split("/")[2]);
const api = `/api/tournaments/${encodeURIComponent(name)}`;
const main = document.getElementById("main");
document.getElementById("top").replaceWith(header(`tournament ${name}`));

const th = (text, num = false) => el("th", { class: num ? "num" : "" }, text);
const td = (text, num = false) => el("td", { class: num ? "num" : "" }, text);

function leaderboard(rows) {
  return el("table", { class: "grid", "data-testid": "leaderboard" },
    el("tr", {}, th("#"), th("entrant"), th("mu", true), th("sigma", true), th("mu − 3σ", true), th("games", true),
      th("win share", true), th("points", true), th("forfeits", true), th("faults", true)),
    rows.map((s, i) => el("tr", { "data-entrant": s.name }, td(i + 1), td(s.name), td(fmt(s.mu), true),
      td(fmt(s.sigma), true), td(fmt(s.conservative), true), td(s.games, true), td(fmt(s.win_share, 3), true),
      td(`${s.points_for}–${s.points_against}`, true), td(s.forfeits, true), td(s.faults, true))));
}

function crosstable(cross, names) {
  return el("table", { class: "grid", "data-testid": "crosstable" },
    el("tr", {}, th("row's score against column (games)"), names.map((n) => th(n, true))),
    names.map((a) => el("tr", {}, td(a), names.map((b) => {
      const r = cross[a]?.[b];
      return td(a === b ? "·" : r ? `${fmt(r.score, 3)} (${r.games})` : "", true);
    }))));
}

function pairs(rows) {
  return el("table", { class: "grid", "data-testid": "pairs" },
    el("caption", { class: "muted" }, "95% interval: Wilson below 30 deck sets or when every deck set scored the same, else Student's t"),
    el("tr", {}, th("A"), th("B"), th("W–D–L", true), th("deck sets", true), th("A's mean score", true), th("95% interval", true)),
    rows.map((p) => el("tr", {}, td(p.a), td(p.b),
      td(p.basis === "head-to-head" ? `${p.wins}–${p.draws}–${p.losses}` : "via common opponents", true),
      td(p.deck_sets, true), td(fmt(p.paired_mean, 3), true),
      el("td", { class: "num ci", title: intervalNote(p) }, interval(p)))));
}

// A pair's interval as the report prints it: none with one deck set (its bounds are null).
function interval(p) {
  return typeof p.ci95_low === "number" ? `[${fmt(p.ci95_low, 3)}, ${fmt(p.ci95_high, 3)}]` : "too few deck sets";
}

function intervalNote(p) {
  return { wilson: "Wilson score interval", t: "Student's t interval" }[p.ci95_method] || null;
}

function sprt(state) {
  if (!state) return el("p", { class: "muted", "data-testid": "sprt" }, "no SPRT in this tournament");
  const verdict = { H1: `${state.a} is stronger than ${state.b}`, H0: `${state.a} is not stronger than ${state.b}` }[state.decision] || "undecided";
  return el("p", { "data-testid": "sprt" }, `${state.a} vs ${state.b}: LLR ${fmt(state.llr, 3)} in [${fmt(state.lower, 3)}, ${fmt(state.upper, 3)}] after ${state.samples} deck sets: `, el("b", {}, verdict));
}

// The deck key: its commitment from the start, the key and salt once every table has ended (docs/tournament.md).
function deckKey(d) {
  if (!d || !d.commitment) return el("p", { class: "muted", "data-testid": "deck-key" }, "no deck-key commitment was published for this tournament");
  const line = (label, value) => el("p", {}, `${label}: `, el("span", { class: "digest" }, value));
  return el("div", { "data-testid": "deck-key" },
    line(`commitment (${d.scheme})`, d.commitment),
    d.key === null
      ? el("p", { class: "muted" }, "the key and its salt are revealed once every table of the tournament has ended")
      : [line("key", d.key), line("salt", d.salt),
        el("p", { class: "muted" }, "check every deck set against them: tricktable verify EXPORT_FOLDER")]);
}

function games(rows) {
  return el("table", { class: "grid", "data-testid": "games" },
    el("tr", {}, th("game"), th("round", true), th("deck set", true), th("seats"), th("status"), th("scores", true), th("")),
    rows.map((m) => el("tr", {}, td(m.match_id), td(m.round, true), td(m.deck_set, true), td(m.seats.join(", ")),
      el("td", {}, statusBadge(m.status), m.forfeit_by ? ` by ${m.forfeit_by}` : ""), td(m.scores.join(" – "), true),
      el("td", {}, m.replay ? el("a", { href: m.replay }, "replay") : ""))));
}

async function refresh() {
  const page = await getJSON(api);
  const names = page.leaderboard.map((s) => s.name);
  // Games of a deck set still being played are counted but not shown (fair play: their twins are to come).
  const withheld = page.withheld_games || 0;
  const done = page.games + withheld, total = Math.max(page.scheduled || 0, done);
  main.replaceChildren(
    el("p", {}, `${page.config.game}, ${page.config.format}, ${page.config.entrants.length} entrants `, statusBadge(page.status)),
    el("div", { "data-testid": "progress" }, el("p", {}, `${done} of ${total} games`,
      withheld ? el("span", { class: "muted", "data-testid": "withheld" },
        ` (${withheld} in deck sets still being played: shown once every arrangement of theirs is over)`) : ""),
      el("div", { class: "progress" }, el("div", { style: `width:${total ? (100 * done / total).toFixed(1) : 0}%` }))),
    el("h2", {}, "leaderboard (OpenSkill)"), el("div", { class: "scroll" }, leaderboard(page.leaderboard)),
    el("h2", {}, "crosstable"), el("div", { class: "scroll" }, crosstable(page.crosstable, names)),
    el("h2", {}, "paired results on shared decks"), el("div", { class: "scroll" }, pairs(page.pairs)),
    el("h2", {}, "SPRT"), sprt(page.sprt),
    el("h2", {}, "deck key"), deckKey(page.deck_key),
    el("h2", {}, `games (${page.matches.length})`), el("div", { class: "scroll" }, games(page.matches)));
  return page.status === "running";
}

async function loop() {
  let again = true;
  try { again = await refresh(); } catch (error) {
    main.replaceChildren(el("p", { class: "error-box" }, error.message));
  }
  if (again) setTimeout(loop, 2000);
}
loop();
