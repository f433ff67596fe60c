// Shared by every page: building elements, drawing cards and the table.
// Cards come in record notation ("5H", "TS", "JKB"); the board is a seat view as JSON (web/jsonview.py).

export const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades", NT: "no-trump" };
const RANKS = { T: "10" };

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function card(code, { small = false, win = false, inline = false } = {}) {
  const classes = ["card"];
  if (small) classes.push("small");
  if (inline) classes.push("inline");
  if (win) classes.push("win");
  if (code === "JKB" || code === "JKF") {
    classes.push("joker");
    return el("span", { class: classes.join(" "), "data-card": code, title: code === "JKB" ? "La Blanche" : "Le Fou" },
      "JOKER", el("span", {}, code === "JKB" ? "★" : "☆"));
  }
  const rank = code.slice(0, -1), suit = code.slice(-1);
  if (suit === "H" || suit === "D") classes.push("red");
  return el("span", { class: classes.join(" "), "data-card": code, title: `${RANKS[rank] || rank} of ${SUIT_NAMES[suit]}` },
    el("span", { class: "rank" }, RANKS[rank] || rank), el("span", { class: "suit" }, SUITS[suit] || suit));
}

export function cardBack(small = true) {
  return el("span", { class: small ? "card back small" : "card back", title: "face down" });
}

export function suitLabel(suit) {
  if (!suit) return "–";
  if (suit === "NT") return el("span", { class: "suit-sym" }, "NT");
  return el("span", { class: `suit-sym${suit === "H" || suit === "D" ? " red" : ""}`, title: SUIT_NAMES[suit] },
    `${SUITS[suit]} ${SUIT_NAMES[suit]}`);
}

export function statusBadge(status) {
  return el("span", { class: `status ${status || ""}` }, status || "?");
}

export async function getJSON(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(await response.text());
  return response.json();
}

export function sideNames(sides, names) {
  return sides.map((seats) => seats.map((s) => names[s] ?? `seat ${s}`).join(" & "));
}

export function bidText(bid) {
  if (!bid) return "pass";
  const [tricks, denomination] = bid;
  return `${tricks} ${denomination === "NT" ? "NT" : SUITS[denomination]}`;
}

// The trick to show in front of the seats: the one being played, else the last one won (its winner marked).
export function shownTrick(board) {
  const current = board.current_trick;
  if (current && current.cards.length) return current;
  return board.tricks.length ? board.tricks[board.tricks.length - 1] : null;
}

export function playedBySeat(trick, players) {
  const bySeat = {};
  if (!trick) return bySeat;
  trick.cards.forEach((code, i) => { bySeat[(trick.leader + i) % players] = code; });
  return bySeat;
}

// The info bar and one panel per seat. `seatExtras(seat)` adds badges and the clock (live pages).
export function renderBoard(root, board, names, { seatExtras = () => [], faceUp = false } = {}) {
  const trick = shownTrick(board);
  const played = playedBySeat(trick, board.players);
  const sides = sideNames(board.sides, names);
  const info = el("div", { class: "info" },
    el("div", { class: "item" }, el("span", { class: "label" }, "deal"), el("b", { "data-testid": "deal" }, board.deal_number)),
    el("div", { class: "item" }, el("span", { class: "label" }, "trump"),
      board.no_trump ? "no-trump" : suitLabel(board.trump)),
    board.turn_up ? el("div", { class: "item" }, el("span", { class: "label" }, "turn-up"), card(board.turn_up, { small: true })) : null,
    board.exposed && board.exposed.length > 1 ? el("div", { class: "item" }, el("span", { class: "label" }, "exposed"),
      el("span", { class: "cards" }, board.exposed.map((c) => card(c, { small: true })))) : null,
    board.contract ? el("div", { class: "item", "data-testid": "contract" }, el("span", { class: "label" }, "contract"),
      `${names[board.contract.seat]}: ${bidText([board.contract.tricks, board.contract.denomination])}`) : null,
    board.bids && board.bids.length && !board.contract ? el("div", { class: "item" }, el("span", { class: "label" }, "bids"),
      board.bids.map(([seat, bid]) => `${names[seat]} ${bidText(bid)}`).join(", ")) : null,
    board.robbed_by !== null && board.robbed_by !== undefined ? el("div", { class: "item" },
      el("span", { class: "label" }, "robbed by"), names[board.robbed_by]) : null,
    board.jinked_by !== null && board.jinked_by !== undefined ? el("div", { class: "item" },
      el("span", { class: "label" }, "jink"), names[board.jinked_by]) : null,
    el("div", { class: "item", "data-testid": "scores" }, el("span", { class: "label" }, "scores"),
      sides.map((side, i) => `${side} ${board.scores[i]}`).join(" · ")),
    el("div", { class: "item" }, el("span", { class: "label" }, "this deal"),
      board.deal_points.map((p, i) => `${p}`).join(" – ")),
  );
  const seats = el("div", { class: "seats" });
  for (let seat = 0; seat < board.players; seat++) {
    const hand = faceUp ? (board.hands[seat] || []).map((c) => card(c, { small: true }))
      : Array.from({ length: board.hand_sizes[seat] || 0 }, () => cardBack());
    const winner = trick && trick.winner === seat;
    seats.append(el("div", { class: `seat${board.to_act === seat ? " to-act" : ""}`, "data-seat": seat },
      el("div", { class: "name" }, names[seat] ?? `seat ${seat}`,
        el("span", { class: "badge" }, `seat ${seat}`),
        seat === board.dealer ? el("span", { class: "badge dealer" }, "dealer") : null,
        winner ? el("span", { class: "badge won" }, "won the trick") : null,
        seatExtras(seat)),
      el("div", { class: "row" },
        el("div", { class: "played", "data-testid": "played" }, played[seat] ? card(played[seat], { win: winner }) : null),
        el("div", { class: "hand cards" }, hand))));
  }
  const extra = [];
  if (faceUp && (board.kitty?.length || board.discards?.length || board.buried)) {
    extra.push(el("div", { class: "info" },
      board.kitty?.length ? [el("span", { class: "label" }, "kitty"), el("span", { class: "cards" }, board.kitty.map((c) => card(c, { small: true })))] : null,
      board.discards?.length ? [el("span", { class: "label" }, "discards"), el("span", { class: "cards" }, board.discards.map((c) => card(c, { small: true })))] : null,
      board.buried ? [el("span", { class: "label" }, "buried"), card(board.buried, { small: true })] : null));
  }
  root.replaceChildren(el("div", { class: "felt" }, info, seats, extra));
}

// A completed trick as a list line: leader first, the winner's card marked.
export function trickLine(trick, names, players, { deal, number }) {
  const seats = trick.cards.map((_, i) => (trick.leader + i) % players);
  return el("li", { class: "trick", "data-deal": deal, "data-number": number, "data-cards": trick.cards.join(" "),
                    "data-leader": trick.leader, "data-winner": trick.winner },
    `deal ${deal}, trick ${number}: `,
    el("span", { class: "cards" }, trick.cards.map((c, i) => card(c, { small: true, win: seats[i] === trick.winner }))),
    ` → ${names[trick.winner] ?? trick.winner}`);
}

export function header(title, sub) {
  return el("header", {}, el("h1", {}, el("a", { href: "/" }, "Tricktable")), el("span", {}, title),
    sub ? el("span", { class: "sub" }, sub) : null);
}

export function fmt(x, digits = 2) {
  return typeof x === "number" ? x.toFixed(digits) : "–";
}
