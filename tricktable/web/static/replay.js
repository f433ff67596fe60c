// The replay of an ended game: every hand face up, step by step, with a permalink per step (#step=N); each bot's
// note beside its move (annotations, in the record once the table ended); and the analysis timeline of a seat's
// decisions (computed on demand by /api/analysis, or read from `tricktable analyse --json` output).
import { el, header, renderBoard, trickLine, sideNames, getJSON, fmt } from "./common.js";

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
const note = el("div", { class: "note", "data-testid": "annotation" });
const stepAnalysis = el("div", { class: "note", "data-testid": "step-analysis" });
const timelines = el("div", { "data-testid": "timelines" });
const analysisStatus = el("span", { class: "muted", "data-testid": "analysis-status" });
let analyses = []; // loaded analyses: {seat, threshold, decisions, loss_per_deal, ...} as `tricktable analyse --json`

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
  drawNote(frame, names);
  drawStepAnalysis(names);
}

// The acting bot's note on this move: its text, and its values by action id, best first, the move played marked.
function drawNote(frame, names) {
  const a = frame.annotation;
  note.hidden = !a;
  if (!a) return note.replaceChildren();
  const values = Object.entries(a.values || {}).sort((x, y) => y[1] - x[1]);
  note.replaceChildren(
    el("span", { class: "label" }, `${names[frame.actor]}'s note`), " ", el("span", { class: "text", "data-testid": "note-text" }, a.note || ""),
    values.length ? el("ol", { class: "values" }, values.map(([id, v]) =>
      el("li", { class: id === frame.action_id ? "played" : null, "data-action": id }, `${id}: ${fmt(v, 3)}`))) : null);
}

// The frame (step) of an analysed decision: the frame after its action.
function stepOf(decision) {
  const deal = data.deals[decision.deal - 1];
  return deal ? deal.frame + decision.action + 1 : -1;
}

function drawStepAnalysis(names) {
  const found = analyses.flatMap((an) => an.decisions.filter((d) => stepOf(d) === step).map((d) => [an, d]));
  stepAnalysis.hidden = !found.length;
  stepAnalysis.replaceChildren(...found.map(([an, d]) => el("div", { class: d.costly ? "costly" : null },
    el("span", { class: "label" }, `analysis of ${names[an.seat]}`), " ",
    `played ${d.played_name} (${fmt(d.played_value)}), ${an.analyser || "analyser"}: ${d.choice_name} (${fmt(d.choice_value)}), `,
    `loss ${fmt(d.loss)}`, d.costly ? el("b", {}, " costly") : null)));
}

// One timeline per analysed seat: a bar per decision (its height the estimated loss, the costly ones red) that
// goes to the move, then the loss of each deal.
function drawTimelines() {
  const names = data.meta.names;
  timelines.replaceChildren(...analyses.map((an) => {
    const top = Math.max(an.threshold || 0, ...an.decisions.map((d) => d.loss)) || 1;
    return el("div", { class: "timeline-box", "data-testid": "timeline", "data-seat": an.seat },
      el("div", {}, el("b", {}, names[an.seat] ?? `seat ${an.seat}`),
        ` (seat ${an.seat}): ${an.decisions.length} decisions, ${an.costly} costly (loss over ${an.threshold}), `,
        `estimated loss ${fmt(an.total_loss)}`, an.sims ? `; ${an.analyser || "search"}, ${an.sims} worlds a decision` : ""),
      el("div", { class: "timeline" }, an.decisions.map((d) => el("button", {
        class: `bar${d.costly ? " costly" : ""}`, "data-testid": "decision", "data-step": stepOf(d),
        style: `height:${4 + Math.round(56 * d.loss / top)}px`, onclick: () => go(stepOf(d)),
        title: `deal ${d.deal}, action ${d.action}: played ${d.played_name} (${fmt(d.played_value)}), ` +
          `analyser: ${d.choice_name} (${fmt(d.choice_value)}), loss ${fmt(d.loss)}${d.costly ? ", costly" : ""}` }))),
      el("table", { class: "grid", "data-testid": "loss-per-deal" },
        el("tr", {}, el("th", {}, "deal"), el("th", { class: "num" }, "decisions"), el("th", { class: "num" }, "estimated loss"),
          el("th", { class: "num" }, "costly")),
        an.loss_per_deal.map((loss, i) => {
          const mine = an.decisions.filter((d) => d.deal === i + 1);
          return el("tr", { "data-deal": i + 1 }, el("td", {}, i + 1), el("td", { class: "num" }, mine.length),
            el("td", { class: "num" }, fmt(loss)), el("td", { class: "num" }, mine.filter((d) => d.costly).length));
        })));
  }));
  drawStepAnalysis(names);
}

function showAnalyses(loaded, how) {
  analyses = loaded;
  analysisStatus.textContent = how;
  drawTimelines();
}

async function analyseSeat(seat, sims) {
  analysisStatus.textContent = `analysing ${data.meta.names[seat]} (${sims} worlds a decision)…`;
  try {
    const found = await getJSON(`${api.replace("/api/replay/", "/api/analysis/")}?seat=${seat}&sims=${sims}`);
    showAnalyses([found], `analysed by ${found.analyser}, ${found.sims} worlds a decision`);
  } catch (error) {
    analysisStatus.textContent = error.message;
  }
}

// `tricktable analyse --json` writes one JSON object per line (record and seat).
async function loadAnalysisFile(file) {
  try {
    const loaded = (await file.text()).split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
    showAnalyses(loaded.filter((an) => Array.isArray(an.decisions)), `from ${file.name}`);
  } catch (error) {
    analysisStatus.textContent = `${file.name}: ${error.message}`;
  }
}

function analysisPanel() {
  const names = data.meta.names;
  const seat = el("select", { "aria-label": "seat to analyse" }, names.map((n, i) => el("option", { value: i }, `${i} ${n}`)));
  const sims = el("input", { type: "number", min: 1, max: 400, value: 50, "aria-label": "worlds a decision", style: "width:5rem" });
  return el("div", {},
    el("h2", {}, "analysis"),
    el("div", { class: "controls" }, seat, sims, " worlds a decision ",
      el("button", { "data-testid": "analyse", onclick: () => analyseSeat(Number(seat.value), Number(sims.value)) }, "analyse"),
      el("label", {}, " or load ", el("code", {}, "tricktable analyse --json"), " output: ",
        el("input", { type: "file", accept: ".json,.jsonl,application/json", "data-testid": "analysis-file",
                      onchange: (e) => e.target.files[0] && loadAnalysisFile(e.target.files[0]) })),
      analysisStatus),
    timelines);
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
    note,
    stepAnalysis,
    boardRoot,
    el("div", { class: "columns" },
      el("div", {}, el("h2", {}, "score line"), el("div", { class: "scroll" }, scoreLine)),
      el("div", {}, el("h2", {}, "tricks of this deal"), tricks)),
    analysisPanel());
}

document.addEventListener("keydown", (e) => {
  if (!data || e.target.tagName === "SELECT") return;
  if (e.key === "ArrowRight") go(step + 1);
  if (e.key === "ArrowLeft") go(step - 1);
});
window.addEventListener("hashchange", () => data && fromHash());

getJSON(api).then((loaded) => { data = loaded; build(); fromHash(); })
  .catch((error) => main.replaceChildren(el("p", { class: "error-box", "data-testid": "error" }, error.message)));
