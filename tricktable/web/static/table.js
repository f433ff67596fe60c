// A live table, as a spectator sees it: the spectators' events and view, streamed (Server-Sent Events).
import { el, header, renderBoard, trickLine, card, bidText, statusBadge, suitLabel } from "./common.js";

const tableId = decodeURIComponent(location.pathname.split("/")[2]);
const state = { info: null, board: null, clock: null, offset: 0, deal: 0, timedOut: {}, ended: false };
const main = document.getElementById("main");
const boardRoot = el("div", { "data-testid": "board" });
const status = el("p", { "data-testid": "status" }, "connecting…");
const tricks = el("ol", { class: "tricks", "data-testid": "tricks" });
const log = el("ol", { class: "log", "data-testid": "log" });
document.getElementById("top").replaceWith(header(`live table ${tableId}`));
main.replaceChildren(status, boardRoot, el("div", { class: "columns" },
  el("div", {}, el("h2", {}, "tricks won"), tricks), el("div", {}, el("h2", {}, "what happened"), log)));

const names = () => (state.info ? state.info.seats.map((s) => s.name) : []);
const who = (seat) => names()[seat] ?? `seat ${seat}`;

// The game's action events (rules/events.py), by kind: what the seat did, as the spectators may see it.
const ACTIONS = {
  CardPlayed: (e) => ["plays ", card(e.card, { inline: true }), e.named_suit ? ` naming ${e.named_suit}` : ""],
  Robbed: (e) => (e.buried ? ["robs, burying ", card(e.buried, { inline: true })] : "robs the turn-up"),
  RobPassed: () => "pass rob",
  Jinked: () => "jink",
  JinkPassed: () => "pass jink",
  Stood: () => "stand",
  Begged: () => "beg",
  Gifted: () => "gift",
  PackRun: (e) => ["runs the pack", e.exposed.length ? [": ", e.exposed.map((c) => card(c, { inline: true }))] : ""],
  BidMade: (e) => `bids ${bidText([e.tricks, e.denomination])}`,
  Passed: () => "pass",
  Discarded: () => "discards six cards",
};

// One line per event; kinds this page does not know are still listed, by name.
function describe(event) {
  if (event.kind in ACTIONS) return [who(event.seat), " ", ACTIONS[event.kind](event)];
  switch (event.kind) {
    case "TableStarted": return `table started: ${event.names.join(", ")}`;
    case "DealStarted": return `deal ${event.number}${event.redeal ? " (redeal)" : ""}: ${who(event.dealer)} deals`;
    case "ActionTimedOut": return `${who(event.seat)} timed out: the default action is played`;
    case "TrumpSet": return event.no_trump ? "no-trump" : ["trump: ", suitLabel(event.trump)];
    case "ContractSet": return `contract: ${who(event.contract.seat)} ${bidText([event.contract.tricks, event.contract.denomination])}`;
    case "KittyTaken": return `${who(event.seat)} takes the kitty`;
    case "TrickWon": return `trick ${event.number} to ${who(event.trick.winner)}`;
    case "DealScored": return `deal ${event.number} scored: points ${event.points.join("–")}, scores ${event.scores.join("–")}`;
    case "DealVoided": return event.reason;
    case "SeatJoined": return `${who(event.seat)} ${event.rejoined ? "reconnected" : "joined"}`;
    case "SeatDisconnected": return `${who(event.seat)} disconnected`;
    case "TableEnded": return `table over: ${event.result.status} (${event.result.reason})`;
    default: return `${event.kind}${event.seat !== undefined ? ` (${who(event.seat)})` : ""}`;
  }
}

const isTimeout = (event) => /TimedOut|Default/.test(event.kind);

function apply(event) {
  if (event.kind === "DealStarted") state.deal = event.number;
  if (event.kind === "TrickWon") tricks.append(trickLine(event.trick, names(), state.info.players, { deal: state.deal, number: event.number }));
  // A timed-out seat stays marked through the default action played for it, until it acts again itself.
  if (isTimeout(event)) { state.timedOut[event.seat] = true; state.defaultFor = event.seat; }
  else if (event.kind in ACTIONS) {
    if (state.defaultFor === event.seat) state.defaultFor = null;
    else state.timedOut[event.seat] = false;
  }
  log.append(el("li", { class: isTimeout(event) ? "timeout" : "", "data-kind": event.kind, "data-seq": event.seq }, describe(event)));
  log.scrollTop = log.scrollHeight;
  tricks.scrollTop = tricks.scrollHeight;
}

function clockText(seat) {
  const c = state.clock;
  if (!c || c.seat !== seat || state.ended) return null;
  const now = Date.now() / 1000 + state.offset;
  const decision = c.deadline - now;
  const left = decision >= 0 ? `${decision.toFixed(1)} s` : `bank ${Math.max(0, c.bank + decision).toFixed(1)} s`;
  const low = decision < 0 || decision < 2;
  return el("span", { class: `clock${low ? " low" : ""}`, "data-testid": "clock" }, `clock ${left}`);
}

function seatExtras(seat) {
  const info = state.info.seats[seat];
  return [
    state.timedOut[seat] ? el("span", { class: "badge timeout", "data-testid": "timed-out" }, "timed out: default action") : null,
    info.timeouts ? el("span", { class: "badge timeout" }, `${info.timeouts} timeouts`) : null,
    info.away ? el("span", { class: "badge timeout" }, "away") : !info.connected && !state.ended ? el("span", { class: "badge" }, "disconnected") : null,
    clockText(seat),
  ];
}

function draw() {
  if (!state.board) return;
  renderBoard(boardRoot, state.board, names(), { seatExtras });
  if (state.board.result) {
    const r = state.board.result;
    boardRoot.append(el("div", { class: "result", "data-testid": "result" },
      `${r.status}: ${r.reason}; scores ${r.scores.join(" – ")}`));
  }
}

function receive(kind, data) {
  state.info = data.table;
  state.board = data.board;
  state.clock = data.clock;
  if (data.clock) state.offset = data.clock.now - Date.now() / 1000;
  for (const event of data.events) apply(event);
  const ended = kind === "end";
  state.ended = ended || ["finished", "aborted"].includes(data.table.status);
  status.replaceChildren(el("span", {}, `${data.table.game}, ${data.table.players} players `, statusBadge(data.table.status),
    state.ended ? [" ", el("a", { href: `/replay/${encodeURIComponent(tableId)}`, "data-testid": "replay-link" }, "replay this game")] : ""));
  draw();
}

const source = new EventSource(`/api/tables/${encodeURIComponent(tableId)}/events`);
for (const kind of ["state", "batch", "end"]) {
  source.addEventListener(kind, (message) => {
    receive(kind, JSON.parse(message.data));
    if (kind === "end") source.close();
  });
}
source.addEventListener("withheld", (message) => {
  source.close();
  state.ended = true;
  status.replaceChildren(el("span", { class: "error-box", "data-testid": "withheld" }, JSON.parse(message.data).reason));
});
source.onerror = () => { if (!state.ended) status.textContent = "connection lost; reconnecting…"; };
setInterval(() => { if (state.clock && !state.ended) draw(); }, 250);
