"""The exact solver's search for Twenty-Five and Forty-Five card play: the same search, without a state copy a node.

:class:`tricktable.bots.solver.DealSolver` searches any game through the
fast state's API: it copies the state at every node and lists, applies and
keys positions through method calls, which is most of an exact solution's
cost. This module searches a Spoil Five deal's tricks on its own mutable
copy of the hands and side totals (a play is made and taken back, the
trick in progress travels in the arguments), with the state's own rule
tables (:meth:`tricktable.rules.fast.spoil_five.SpoilFiveFast.trick_tables`)
and the state's own scoring of a deal's end
(:meth:`~tricktable.rules.fast.spoil_five.SpoilFiveFast.deal_result`).

It is the generic search move for move, not only value for value: the same
positions are searched in the same order, with the same move ordering
(the table's best move, else the greedy card), the same table keys and
bounds and the same cutoffs. So it visits exactly the positions the generic
search visits, and in particular reaches the same number of deal ends: the
rules deal the next deal there from the world's generator, and
:class:`~tricktable.bots.solver.DealSolver` draws the same numbers from it
afterwards, so the rest of a decision (its later playouts and worlds) is
what it was with the generic search, and a bot's choices for a seed do not
depend on which search solved its worlds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeGuard

from tricktable.rules.fast.spoil_five import SpoilFiveFast
from tricktable.rules.spoil_five import TRICKS_PER_DEAL

if TYPE_CHECKING:
    from tricktable.bots.solver import Bounds

#: Tricks in a Spoil Five deal, and the tricks played when the last one (every play forced) begins.
_TRICKS = TRICKS_PER_DEAL
_LAST = _TRICKS - 1

_INFINITY = float("inf")


#: The greedy card of each trump suit by (legal cards; in a trick also the card led, the best bid, whether an
#: opponent holds it): the same few thousand hands recur over a decision's worlds and a match's decisions.
_ORDERINGS: dict[int, dict[tuple[int, ...], int]] = {}
#: Entries a trump's orderings may hold before they are dropped (the memory of a long ladder run stays bounded).
_ORDERINGS_KEPT = 200_000


def _orderings(trump: int) -> dict[tuple[int, ...], int]:
    """The greedy cards known for ``trump`` (emptied when they grow past :data:`_ORDERINGS_KEPT`)."""
    known = _ORDERINGS.setdefault(trump, {})
    if len(known) > _ORDERINGS_KEPT:
        known.clear()
    return known


def can_solve(state: object) -> TypeGuard[SpoilFiveFast]:
    """True when :func:`solve` searches ``state``: a Spoil Five deal in card play with no rob still open."""
    return isinstance(state, SpoilFiveFast) and state.position_key() is not None and state.rob_seat < 0


def solve(state: SpoilFiveFast, sides: Sequence[int], side: int, before: Sequence[int], bonus: float,
          table: dict[tuple[int, ...], Bounds]) -> tuple[float, int, int]:
    """``state``'s exact value for ``side`` (not changed): ``(value, positions searched, deal ends reached)``.

    Values, ``table`` entries and the count of positions are the generic
    search's (:meth:`tricktable.bots.solver.DealSolver.generic_value`);
    ``deal ends reached`` counts the searched lines that ended the deal
    without ending the match (each deals the next deal in the rules).
    """
    strength, follow, allow = state.trick_tables()
    n = state.n
    after = tuple((seat + 1) % n for seat in range(n))
    side_of = state.side_of
    score_as_won = state.score_as_won
    target = state.target
    deal_result = state.deal_result
    hands = list(state.hands)
    scores = list(state.scores)
    side_tricks = list(state.side_tricks)
    others = [k for k in range(len(scores)) if k != side]
    other = others[0] if len(others) == 1 else -1
    table_get = table.get
    #: Forty-Five's scores move only at the deal's end: (value, match over) by side tricks and highest trump's side.
    deal_ends: dict[tuple[int, ...], tuple[float, bool]] = {}
    counts = [0, 0]  # positions searched, deal ends reached
    orderings = _orderings(state.trump)

    def value_of(over: bool, winners: Sequence[int], totals: Sequence[int]) -> float:
        """:func:`tricktable.bots.solver.deal_value` of a finished line with side totals ``totals``."""
        if other >= 0:
            value = float(totals[side] - before[side] - (totals[other] - before[other]))
        else:
            value = float(totals[side] - before[side] - max([totals[k] - before[k] for k in others]))
        if over and bonus:
            value += bonus if side in winners else -bonus
        return value

    def end_of_deal(hi_seat: int) -> float:
        """The value of a Forty-Five deal whose tricks are all played (scored by the state's own rules)."""
        hi_side = side_of[hi_seat] if hi_seat >= 0 else -1
        key = (*side_tricks, hi_side)
        known = deal_ends.get(key)
        if known is None:
            points, winners = deal_result(side_tricks, hi_side, scores)
            over = bool(winners)
            known = value_of(over, winners, [s + p for s, p in zip(scores, points, strict=True)]), over
            deal_ends[key] = known
        if not known[1]:
            counts[1] += 1
        return known[0]

    def last_trick(seat: int, hi_rank: int, hi_seat: int) -> float:
        """The value once one card is left in each hand: the last trick is forced, so it is played in one go."""
        card = hands[seat].bit_length() - 1
        row = strength[card]
        best, best_seat = row[card], seat
        for _ in range(n - 1):
            seat = after[seat]
            bid = row[hands[seat].bit_length() - 1]
            if bid > best:
                best, best_seat = bid, seat
        won = side_of[best_seat]
        if score_as_won:
            total = scores[won] + 5
            scores[won] = total
            if total >= target:  # the match ends at once
                value = value_of(True, (won,), scores)
            else:
                counts[1] += 1
                value = value_of(False, (), scores)
            scores[won] = total - 5
            return value
        if best > 100 and best - 100 > hi_rank:
            hi_seat = best_seat
        side_tricks[won] += 1
        value = end_of_deal(hi_seat)
        side_tricks[won] -= 1
        return value

    def search(seat: int, length: int, lead: int, best: int, best_seat: int, hi_rank: int, hi_seat: int,
               tricks: int, alpha: float, beta: float, fresh: bool) -> float:
        """The generic search's value of a position (the hands and totals: the shared lists').

        ``fresh``: the generic search starts a position of its own here (it
        counts one); a forced play's position continues its parent's.
        """
        if fresh:
            counts[0] += 1
        if tricks == _LAST and not length:
            return last_trick(seat, hi_rank, hi_seat)
        hand = hands[seat]
        mask = (hand & allow[lead] if hand & follow[lead] else hand) if length else hand
        forced = not mask & (mask - 1)
        if forced:
            # A forced play is no decision: no table, no ordering (the generic search's own loop).
            first = mask.bit_length() - 1
            key: tuple[int, ...] = ()
            low, high = -_INFINITY, _INFINITY
            maximise = True
        else:
            key = (*hands, seat, length, lead, best, best_seat, hi_rank,
                   side_of[hi_seat] if hi_seat >= 0 else -1, -1, *side_tricks, *scores)
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
                order_key = (mask, lead, best, against) if length else (mask,)
                first = orderings.get(order_key, -1)
                if first < 0:
                    first = orderings[order_key] = _greedy(mask, length, lead, best, against)
        floor, ceiling = alpha, beta
        best_value = -_INFINITY if maximise else _INFINITY
        best_act = first
        rest = mask & ~(1 << first)
        card = first
        while True:
            hands[seat] = hand ^ (1 << card)
            if length:
                bid = strength[lead][card]
                next_lead = lead
                if bid > best:
                    next_best, next_seat = bid, seat
                else:
                    next_best, next_seat = best, best_seat
            else:
                next_lead, next_best, next_seat = card, strength[card][card], seat
            if length + 1 < n:
                value = search(after[seat], length + 1, next_lead, next_best, next_seat, hi_rank, hi_seat, tricks,
                               alpha, beta, not forced)
            else:
                won = side_of[next_seat]
                side_tricks[won] += 1
                played = tricks + 1
                if next_best > 100 and next_best - 100 > hi_rank:
                    rank, holder = next_best - 100, next_seat
                else:
                    rank, holder = hi_rank, hi_seat
                if score_as_won:
                    scores[won] += 5
                if score_as_won and scores[won] >= target:  # the match ends at once
                    value = value_of(True, (won,), scores)
                elif played == _TRICKS:
                    if score_as_won:
                        counts[1] += 1
                        value = value_of(False, (), scores)
                    else:
                        value = end_of_deal(holder)
                elif played == _LAST:  # the generic search's next position, whose plays are all forced
                    if not forced:
                        counts[0] += 1
                    value = last_trick(next_seat, rank, holder)
                else:
                    value = search(next_seat, 0, -1, -1, -1, rank, holder, played, alpha, beta, not forced)
                if score_as_won:
                    scores[won] -= 5
                side_tricks[won] -= 1
            hands[seat] = hand
            if forced:
                return value
            if maximise:
                if value > best_value:
                    best_value, best_act = value, card
                    if value > alpha:
                        alpha = value
            elif value < best_value:
                best_value, best_act = value, card
                if value < beta:
                    beta = value
            if alpha >= beta or not rest:
                break
            low_bit = rest & -rest
            rest ^= low_bit
            card = low_bit.bit_length() - 1
        if best_value <= floor:
            table[key] = (low, best_value, best_act)
        elif best_value >= ceiling:
            table[key] = (best_value, high, best_act)
        else:
            table[key] = (best_value, best_value, best_act)
        return best_value

    def _greedy(mask: int, length: int, lead: int, best: int, against: bool) -> int:
        """:func:`tricktable.bots.playout.greedy_card` among the cards of ``mask`` (``against``: an opponent wins)."""
        if not length:
            pick, top = -1, -1
            while mask:  # ascending: a tie keeps the lowest card
                low_bit = mask & -mask
                mask ^= low_bit
                card = low_bit.bit_length() - 1
                own = strength[card][card]
                if own > top:
                    pick, top = card, own
            return pick
        if against:
            row = strength[lead]
            pick, cheapest = -1, 1 << 30
            rest = mask
            while rest:
                low_bit = rest & -rest
                rest ^= low_bit
                card = low_bit.bit_length() - 1
                bid = row[card]
                if best < bid < cheapest:
                    pick, cheapest = card, bid
            if pick >= 0:
                return pick
        pick, weakest = -1, 1 << 30
        while mask:
            low_bit = mask & -mask
            mask ^= low_bit
            card = low_bit.bit_length() - 1
            own = strength[card][card]
            if own < weakest:
                pick, weakest = card, own
        return pick

    length = state.trick_len
    lead, best, best_seat = (state.lead_card, state.best, state.best_seat) if length else (-1, -1, -1)
    value = search(state.to_act, length, lead, best, best_seat, state.hi_rank, state.hi_seat,
                   len(state.trick_winners), -_INFINITY, _INFINITY, True)
    return value, counts[0], counts[1]


__all__ = ["can_solve", "solve"]
