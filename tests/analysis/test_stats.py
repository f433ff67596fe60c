"""The intervals of tricktable.stats pinned against known values, and never without width for a score."""

from __future__ import annotations

import pytest

from tricktable.stats import (
    SMALL_SAMPLE,
    STUDENT_T,
    TOO_FEW,
    WILSON,
    mean_interval,
    score_interval,
    share_interval,
    t95,
    wilson,
)


@pytest.mark.parametrize(("proportion", "n", "low", "high"), [
    (1.0, 2, 0.342, 1.000),  # 2 of 2
    (0.5, 10, 0.237, 0.763),  # 5 of 10
    (0.0, 2, 0.000, 0.658),  # 0 of 2: the mirror of 2 of 2
    (1.0, 40, 0.912, 1.000),  # 40 of 40 (docs/strength.md, Cinq Cents heuristic vs random)
    (0.25, 4, 0.046, 0.699),  # 1 of 4
])
def test_wilson_interval_of_known_proportions(proportion: float, n: int, low: float, high: float) -> None:
    assert wilson(proportion, n) == pytest.approx((low, high), abs=0.0005)


def test_wilson_refuses_no_trials_and_a_proportion_outside_zero_one() -> None:
    with pytest.raises(ValueError):
        wilson(0.5, 0)
    with pytest.raises(ValueError):
        wilson(1.5, 3)


def test_t_critical_values_of_known_degrees_and_the_normal_limit() -> None:
    assert t95(1) == pytest.approx(12.706) and t95(4) == pytest.approx(2.776) and t95(30) == pytest.approx(2.042)
    assert t95(60) == pytest.approx(2.000, abs=0.001) and t95(199) == pytest.approx(1.972, abs=0.001)
    with pytest.raises(ValueError):
        t95(0)


def test_a_mean_has_a_t_interval_from_two_samples_and_none_below() -> None:
    two = mean_interval([1.0, 3.0])  # sd = sqrt(2), se = 1: half width t(1) = 12.706
    assert (two.method, two.mean) == (STUDENT_T, 2.0)
    assert (two.low, two.high) == pytest.approx((2.0 - 12.706, 2.0 + 12.706))
    five = mean_interval([10.0, 12.0, 14.0, 16.0, 18.0])  # sd = sqrt(10), se = sqrt(2)
    assert (five.low, five.high) == pytest.approx((14.0 - 2.776 * 2 ** 0.5, 14.0 + 2.776 * 2 ** 0.5))
    for few in ([], [7.0]):
        assert mean_interval(few).too_few and mean_interval(few).method == TOO_FEW


@pytest.mark.parametrize("samples", [[1.0, 1.0], [0.5, 0.5], [0.0, 0.0], [0.75, 0.75, 0.75], [1.0] * 100])
def test_a_score_whose_samples_all_agree_still_has_an_interval_with_width(samples: list[float]) -> None:
    ci = score_interval(samples)
    assert ci.method == WILSON and ci.low <= ci.mean <= ci.high and ci.high - ci.low > 0.03
    assert (ci.low, ci.high) == pytest.approx(wilson(ci.mean, len(samples)))


def test_two_deck_sets_both_won_give_wilsons_interval_for_two_of_two() -> None:
    ci = score_interval([1.0, 1.0])
    assert (ci.mean, ci.n, ci.method) == (1.0, 2, WILSON)
    assert (ci.low, ci.high) == pytest.approx((0.342, 1.000), abs=0.0005)


def test_a_score_uses_wilson_below_the_small_sample_size_and_t_from_it_on() -> None:
    spread = [0.25, 0.75] * SMALL_SAMPLE
    below = score_interval(spread[:SMALL_SAMPLE - 1])
    assert below.method == WILSON and (below.low, below.high) == pytest.approx(wilson(below.mean, SMALL_SAMPLE - 1))
    at, t = score_interval(spread[:SMALL_SAMPLE]), mean_interval(spread[:SMALL_SAMPLE])
    assert at.method == STUDENT_T and (at.low, at.high) == pytest.approx((t.low, t.high))


def test_a_score_of_one_sample_or_none_is_too_few() -> None:
    for few in ([], [1.0]):
        ci = score_interval(few)
        assert ci.too_few and ci.low == ci.high == ci.mean


def test_a_score_or_share_outside_zero_one_is_refused() -> None:
    with pytest.raises(ValueError):
        score_interval([0.5, 1.5])
    with pytest.raises(ValueError):
        share_interval([-0.2, 0.5])


def test_a_share_has_a_t_interval_cut_to_zero_one_and_wilson_when_all_agree() -> None:
    ci = share_interval([0.4, 0.6, 0.5, 0.7])
    half = 3.182 * (sum((v - 0.55) ** 2 for v in [0.4, 0.6, 0.5, 0.7]) / 3 / 4) ** 0.5  # t(0.975, 3 df)
    assert ci.method == STUDENT_T and (ci.low, ci.high) == pytest.approx((0.55 - half, 0.55 + half))
    assert share_interval([0.9, 1.0]).high == 1.0 and share_interval([0.0, 0.1]).low == 0.0
    same = share_interval([1.0, 1.0, 1.0])
    assert same.method == WILSON and same.low < same.high == 1.0
