// The replay of an ended game: every hand face up, step by step, with a permalink per step (#step=N).
import { el, header, renderBoard, trickLine, sideNames, getJSON } from "./common.js";

const parts = location.pathname.split("/").slice(2).map(decodeURIComponent);
const api = "/api/replay/" + parts.map(encodeURIComponent).join("/");
const main = document.getElementById("main");
document.getElementById("top").replaceWith(header(`replay ${parts.join(" / ")}`));

let data = null;
let step = 0;
const boardRoot = el("div", { "data-testid": "board" });
const label = el("span", { class: "step-label", "data-testid": "step-label" });
const counter = el("span", { class: "muted", "data-testid": "step" });
const slider = el("input", { type: "range", min: 0, value: 0, "aria-label": "step", oninput: (e) => go(Number(e.target.value)) });
const dealSelect = el("select", { "aria-label": "deal", onchange: (e) => jump(Number(e.target.value), 0) });
const trickSelect = el("select", { "aria-label": "trick", onchange: (e) => jump(data.frames[step].deal, Number(e.target.value)) });
const scoreLine = el("table", { class: "grid", "data-testid": "score-line" });
const tricks = el("ol", { class: "tricks", "data-testid": "tricks" });
const permalink = el("a", { "data-testid": "permalink" }, "permalink");

function go(index) {
  step = Math.max(0, Math.min(data.frames.length - 1, index));
  history.replaceState(null, "", `#step=${step}`);
  draw();
}

// The first step of trick `trick` of deal `deal` (trick 0: the deal as dealt).
function jump(deal, trick) {
  const found = data.frames.findIndex((f) => f.deal === deal && f.trick >= trick);
  go(found >= 0 ? found : data.frames.findIndex((f) => f.deal === deal));
}

function fromHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  if (params.has("step")) return go(Number(params.get("step")) || 0);
  if (params.has("deal")) return jump(Number(params.get("deal")), Number(params.get("trick") || 0));
  go(0);
}

function draw() {
  const frame = data.frames[step];
  const names = data.meta.names;
  renderBoard(boardRoot, frame.board, names, { faceUp: true });
  if (step === data.frames.length - 1) {
    const r = data.meta.result;
    boardRoot.append(el("div", { class: "result", "data-testid": "result" }, `${r.status}: ${r.reason}; scores ${r.scores.join(" – ")}`));
  }
  label.textContent = frame.label;
  counter.textContent = `step ${step} of ${data.frames.length - 1}`;
  slider.value = step;
  dealSelect.value = frame.deal;
  const dealFrames = data.frames.filter((f) => f.deal === frame.deal);
  const lastTrick = Math.max(...dealFrames.map((f) => f.trick));
  trickSelect.replaceChildren(...Array.from({ length: lastTrick + 1 }, (_, t) =>
    el("option", { value: t, selected: t === frame.trick }, t === 0 ? "as dealt" : `trick ${t}`)));
  tricks.replaceChildren(...frame.board.tricks.map((t, i) => trickLine(t, names, frame.board.players, { deal: frame.deal, number: i + 1 })));
  for (const row of scoreLine.querySelectorAll("tr[data-deal]")) row.classList.toggle("current", Number(row.dataset.deal) === frame.deal);
  permalink.href = `${location.pathname}#step=${step}`;
}

function build() {
  const names = data.meta.names;
  const sides = sideNames(data.meta.sides, names);
  scoreLine.replaceChildren(
    el("tr", {}, el("th", {}, "deal"), el("th", {}, "dealer"), sides.map((s) => el("th", { class: "num" }, `${s}: points`)),
      sides.map((s) => el("th", { class: "num" }, `${s}: score`))),
    ...data.deals.map((d) => el("tr", { "data-deal": d.number, style: "cursor:pointer", onclick: () => go(d.frame) },
      el("td", {}, el("a", { href: `#deal=${d.number}`, onclick: (e) => { e.preventDefault(); go(d.frame); } }, d.number)),
      el("td", {}, names[d.dealer]), d.points.map((p) => el("td", { class: "num" }, p)), d.scores.map((s) => el("td", { class: "num" }, s)))));
  dealSelect.replaceChildren(...data.deals.map((d) => el("option", { value: d.number }, `deal ${d.number}`)));
  slider.max = data.frames.length - 1;
  const r = data.meta.result;
  main.replaceChildren(
    el("p", {}, `${data.meta.game}: ${names.map((n, i) => `${i} ${n}`).join(", ")}. `,
      el("b", {}, `${r.status}`), ` (${r.reason}), `, r.winners.length ? `won by ${r.winners.map((w) => sides[w]).join(" and ")}` : "no winner"),
    el("div", { class: "controls" },
      el("button", { onclick: () => go(0), title: "first step", "aria-label": "first" }, "|◀"),
      el("button", { onclick: () => go(step - 1), title: "step back (←)", "data-testid": "back", "aria-label": "back" }, "◀"),
      el("button", { onclick: () => go(step + 1), title: "step forward (→)", "data-testid": "forward", "aria-label": "forward" }, "▶"),
      el("button", { onclick: () => go(data.frames.length - 1), title: "last step", "aria-label": "last" }, "▶|"),
      dealSelect, trickSelect, permalink),
    el("div", { class: "controls" }, slider, counter),
    el("p", {}, label),
    boardRoot,
    el("div", { class: "columns" },
      el("div", {}, el("h2", {}, "score line"), el("div", { class: "scroll" }, scoreLine)),
      el("div", {}, el("h2", {}, "tricks of this deal"), tricks)));
}

document.addEventListener("keydown", (e) => {
  if (!data || e.target.tagName === "SELECT") return;
  if (e.key === "ArrowRight") go(step + 1);
  if (e.key === "ArrowLeft") go(step - 1);
});
window.addEventListener("hashchange", () => data && fromHash());

getJSON(api).then((loaded) => { data = loaded; build(); fromHash(); })
  .catch((error) => main.replaceChildren(el("p", { class: "error-box", "data-testid": "error" }, error.message)));
