"""The exact solver's search for Cinq Cents card play: the same search, without a state copy a node.

:class:`tricktable.bots.solver.DealSolver` searches any game through the
fast state's API: it copies the state at every node and lists, applies and
keys positions through method calls, and every deal end it reaches deals
the next deal on its copy. This module searches a Cinq Cents deal's tricks
on its own mutable copy of the hands and the tricks each side took (a play
is made and taken back, the trick in progress travels in the arguments),
with the state's own denomination tables
(:class:`tricktable.rules.fast.cinq_cents.DenominationTables`: following,
trick strength, the suit a card leads) and the state's own scoring of a
deal's end (:meth:`~tricktable.rules.fast.cinq_cents.CinqCentsFast.deal_result`).

A play is an action code, as the state's: a card (0..53), or at no-trump a
joker led naming a suit an earlier trick was led with
(``JOKER_LEAD + 4 * (joker - JKB) + suit``, never on the first trick). The
legal plays are one bit set over these codes, ascending as
``legal_actions`` lists them.

It is the generic search move for move, not only value for value: the same
positions are searched in the same order, with the same move ordering
(the table's best move, else the greedy card, joker leads included), the
same table keys and bounds and the same cutoffs. So it visits exactly the
positions the generic search visits, and in particular reaches the same
number of deal ends: the rules deal the next deal there from the world's
generator, and :class:`~tricktable.bots.solver.DealSolver` draws the same
numbers from it afterwards
(:meth:`~tricktable.rules.fast.cinq_cents.CinqCentsFast.draw_as_dealt`), so
the rest of a decision (its later playouts and worlds) is what it was with
the generic search, and a bot's choices for a seed do not depend on which
search solved its worlds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeGuard

from tricktable.rules.fast.cinq_cents import JKB, JKF, JOKER_LEAD, TABLES, CinqCentsFast

if TYPE_CHECKING:
    from tricktable.bots.solver import Bounds

#: Tricks in a deal, and the tricks played when the last one (one card a hand) begins.
_TRICKS = 10
_LAST = _TRICKS - 1
#: Seats at the table, and each seat's left-hand neighbour (the next to play).
_SEATS = 4
_AFTER = tuple((seat + 1) % _SEATS for seat in range(_SEATS))
#: Every card but the jokers (a joker leads at no-trump only naming a suit).
_PLAIN = ((1 << JKB) - 1)
#: Play codes: the 54 cards and the eight joker leads.
_CODES = JOKER_LEAD + 8

_INFINITY = float("inf")


def _code_tables(denomination: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """For each play code at ``denomination``: (its card, the suit it leads, its strength as a lead, its strength
    as :meth:`~tricktable.rules.fast.cinq_cents.CinqCentsFast.play_order` ranks it for the greedy card).

    A joker's card code at no-trump cannot lead (suit and strength -1 there).
    """
    tables = TABLES[denomination]
    cards: list[int] = []
    suits: list[int] = []
    leads: list[int] = []
    owns: list[int] = []
    for code in range(_CODES):
        card = code if code < JOKER_LEAD else JKB + (code - JOKER_LEAD) // 4
        suit = tables.suit_of[card] if code < JOKER_LEAD else (code - JOKER_LEAD) % 4
        cards.append(card)
        suits.append(suit if suit < 4 else -1)
        leads.append(tables.strength[suit][card] if suit < 4 else -1)
        natural = tables.suit_of[card]
        owns.append(tables.strength[natural if natural < 4 else 0][card])
    return tuple(cards), tuple(suits), tuple(leads), tuple(owns)


#: :func:`_code_tables` of each denomination.
_CODE_TABLES = tuple(_code_tables(d) for d in range(len(TABLES)))
#: The suits-led bit a play code adds when it leads: its card's suit (none for a joker, led or named).
_LED_BIT: tuple[int, ...] = tuple(1 << (code // 13) if code < JKB else 0 for code in range(_CODES))

#: The greedy card of each denomination by (legal plays; in a trick also the suit led, the best bid, whether an
#: opponent holds it): the same few thousand hands recur over a decision's worlds and a match's decisions.
_ORDERINGS: dict[int, dict[tuple[int, ...], int]] = {}
#: Entries a denomination's orderings may hold before they are dropped (a long ladder run's memory stays bounded).
_ORDERINGS_KEPT = 200_000


def _orderings(denomination: int) -> dict[tuple[int, ...], int]:
    """The greedy cards known for ``denomination`` (emptied when they grow past :data:`_ORDERINGS_KEPT`)."""
    known = _ORDERINGS.setdefault(denomination, {})
    if len(known) > _ORDERINGS_KEPT:
        known.clear()
    return known


def can_solve(state: object) -> TypeGuard[CinqCentsFast]:
    """True when :func:`solve` searches ``state``: a Cinq Cents deal in card play."""
    return isinstance(state, CinqCentsFast) and state.contract is not None and state.position_key() is not None


def solve(state: CinqCentsFast, sides: Sequence[int], side: int, before: Sequence[int], bonus: float,
          table: dict[tuple[int, ...], Bounds]) -> tuple[float, int, int]:
    """``state``'s exact value for ``side`` (not changed): ``(value, positions searched, deal ends reached)``.

    Values, ``table`` entries and the count of positions are the generic
    search's (:meth:`tricktable.bots.solver.DealSolver.generic_value`);
    ``deal ends reached`` counts the searched lines that ended the deal
    without ending the match (each deals the next deal in the rules).
    """
    contract = state.contract
    if contract is None:
        raise ValueError("no contract: card play has not begun")
    denomination = contract[2]
    tables = state.tables
    strength = tables.strength
    follow = tables.follow
    no_trump = tables.trump < 0
    card_of, lead_suit, lead_best, own = _CODE_TABLES[denomination]
    led_bit = _LED_BIT
    after = _AFTER
    scores = state.scores
    deal_result = state.deal_result
    hands = list(state.hands)
    won = list(state.won)
    table_get = table.get
    #: A deal end's (value, match over) by the tricks side 0 took (the other side took the rest).
    deal_ends: dict[int, tuple[float, bool]] = {}
    counts = [0, 0]  # positions searched, deal ends reached
    orderings = _orderings(denomination)

    def end_of_deal() -> float:
        """:func:`tricktable.bots.solver.deal_value` of a deal whose tricks are all played (the state's scoring)."""
        known = deal_ends.get(won[0])
        if known is None:
            points, winners = deal_result(won, scores)
            gains = [s + p - b for s, p, b in zip(scores, points, before, strict=True)]
            value = float(gains[side] - max(g for k, g in enumerate(gains) if k != side))
            over = bool(winners)
            if over and bonus:
                value += bonus if side in winners else -bonus
            known = deal_ends[won[0]] = value, over
        if not known[1]:
            counts[1] += 1
        return known[0]

    def last_trick(seat: int, length: int, led: int, best: int, best_seat: int, code: int) -> float:
        """The value once one card is left in each hand and ``seat``'s only play is ``code``: the trick's every
        play is forced, so it is played in one go."""
        if length:
            bid = strength[led][code]
            if bid > best:
                best, best_seat = bid, seat
        else:
            led, best, best_seat = lead_suit[code], lead_best[code], seat
        row = strength[led]
        for _ in range(_SEATS - 1 - length):
            seat = after[seat]
            bid = row[hands[seat].bit_length() - 1]
            if bid > best:
                best, best_seat = bid, seat
        taker = best_seat & 1
        won[taker] += 1
        value = end_of_deal()
        won[taker] -= 1
        return value

    def search(seat: int, length: int, led: int, best: int, best_seat: int, tricks: int, suits_led: int,
               alpha: float, beta: float, fresh: bool) -> float:
        """The generic search's value of a position (the hands and tricks taken: the shared lists').

        ``fresh``: the generic search starts a position of its own here (it
        counts one); a forced play's position continues its parent's.
        """
        if fresh:
            counts[0] += 1
        hand = hands[seat]
        if length:
            mask = hand & follow[led] or hand
        elif no_trump:
            # docs/games.md 3.5: a joker leads only naming a suit already led, never on the first trick.
            mask = hand & _PLAIN
            if tricks:
                if hand >> JKB & 1:
                    mask |= suits_led << JOKER_LEAD
                if hand >> JKF & 1:
                    mask |= suits_led << (JOKER_LEAD + 4)
        else:
            mask = hand
        forced = not mask & (mask - 1)
        if forced:
            # A forced play is no decision: no table, no ordering (the generic search's own loop).
            first = mask.bit_length() - 1
            if tricks == _LAST:
                return last_trick(seat, length, led, best, best_seat, first)
            key: tuple[int, ...] = ()
            low, high = -_INFINITY, _INFINITY
            maximise = True
        else:
            key = (*hands, seat, length, led, best, best_seat, suits_led, *won)
            entry = table_get(key)
            if entry is None:
                low, high, first = -_INFINITY, _INFINITY, -1
            else:
                low, high, first = entry
                if low >= beta:
                    return low
                if high <= alpha:
                    return high
                if low == high:
                    return low
                if low > alpha:
                    alpha = low
                if high < beta:
                    beta = high
            maximise = sides[seat] == side
            # Move ordering: the table's best move, else the greedy card (tricktable.bots.playout.greedy_card).
            if first < 0 or not mask >> first & 1:
                against = sides[best_seat] != sides[seat] if length else False
                order_key = (mask, led, best, against) if length else (mask,)
                first = orderings.get(order_key, -1)
                if first < 0:
                    first = orderings[order_key] = _greedy(mask, length, led, best, against)
        floor, ceiling = alpha, beta
        best_value = -_INFINITY if maximise else _INFINITY
        best_act = first
        rest = mask & ~(1 << first)
        code = first
        while True:
            card = card_of[code]
            hands[seat] = hand ^ (1 << card)
            if length:
                bid = strength[led][card]
                if bid > best:
                    next_best, next_seat = bid, seat
                else:
                    next_best, next_seat = best, best_seat
                next_led, next_suits = led, suits_led
            else:
                next_led, next_best, next_seat = lead_suit[code], lead_best[code], seat
                next_suits = suits_led | led_bit[code]
            if length + 1 < _SEATS:
                value = search(after[seat], length + 1, next_led, next_best, next_seat, tricks, next_suits,
                               alpha, beta, not forced)
            else:
                taker = next_seat & 1
                won[taker] += 1
                if tricks + 1 == _TRICKS:
                    value = end_of_deal()
                else:
                    value = search(next_seat, 0, -1, -1, -1, tricks + 1, next_suits, alpha, beta, not forced)
                won[taker] -= 1
            hands[seat] = hand
            if forced:
                return value
            if maximise:
                if value > best_value:
                    best_value, best_act = value, code
                    if value > alpha:
                        alpha = value
            elif value < best_value:
                best_value, best_act = value, code
                if value < beta:
                    beta = value
            if alpha >= beta or not rest:
                break
            low_bit = rest & -rest
            rest ^= low_bit
            code = low_bit.bit_length() - 1
        if best_value <= floor:
            table[key] = (low, best_value, best_act)
        elif best_value >= ceiling:
            table[key] = (best_value, high, best_act)
        else:
            table[key] = (best_value, best_value, best_act)
        return best_value

    def _greedy(mask: int, length: int, led: int, best: int, against: bool) -> int:
        """:func:`tricktable.bots.playout.greedy_card` among the plays of ``mask`` (``against``: an opponent wins).

        Ties go to the lowest code, as ``greedy_card``'s keys break them.
        """
        if not length:
            pick, top = -1, -1
            while mask:  # ascending: a tie keeps the lowest code
                low_bit = mask & -mask
                mask ^= low_bit
                code = low_bit.bit_length() - 1
                if own[code] > top:
                    pick, top = code, own[code]
            return pick
        if against:
            row = strength[led]
            pick, cheapest = -1, 1 << 30
            rest = mask
            while rest:
                low_bit = rest & -rest
                rest ^= low_bit
                code = low_bit.bit_length() - 1
                bid = row[code]
                if best < bid < cheapest:
                    pick, cheapest = code, bid
            if pick >= 0:
                return pick
        pick, weakest = -1, 1 << 30
        while mask:
            low_bit = mask & -mask
            mask ^= low_bit
            code = low_bit.bit_length() - 1
            if own[code] < weakest:
                pick, weakest = code, own[code]
        return pick

    length = state.trick_len
    led, best, best_seat = (state.led, state.best, state.best_seat) if length else (-1, -1, -1)
    value = search(state.to_act, length, led, best, best_seat, len(state.trick_winners), state.suits_led,
                   -_INFINITY, _INFINITY, True)
    return value, counts[0], counts[1]


__all__ = ["can_solve", "solve"]
