"""The arithmetic of a calibration (engine/calibrate/metrics.py) against numbers worked
out by hand. `fail` is the positive class."""

from __future__ import annotations

import pytest

from checkspec.engine.calibrate.metrics import Confusion, cohen_kappa, consistency


def pairs(tp: int, fp: int, fn: int, tn: int) -> list[tuple[str, str]]:
    """(label, verdict) pairs making that confusion matrix."""
    return (
        [("fail", "fail")] * tp
        + [("pass", "fail")] * fp
        + [("fail", "pass")] * fn
        + [("pass", "pass")] * tn
    )


def test_the_matrix_counts_fail_as_the_positive_class() -> None:
    matrix = Confusion.of(pairs(tp=3, fp=2, fn=1, tn=4))
    assert (matrix.tp, matrix.fp, matrix.fn, matrix.tn, matrix.n) == (3, 2, 1, 4, 10)


def test_agreement_precision_recall_and_kappa_by_hand() -> None:
    # 10 labels: 4 fail (3 caught, 1 missed), 6 pass (2 failed by the judge, 4 passed).
    # agreement = (3 + 4) / 10 = 0.7; precision = 3 / (3 + 2) = 0.6; recall = 3 / 4 = 0.75
    # chance: judge fails 5/10, labels fail 4/10 -> pe = (5*4 + 5*6) / 100 = 0.5
    # kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    matrix = Confusion.of(pairs(tp=3, fp=2, fn=1, tn=4))
    assert matrix.agreement == pytest.approx(0.7)
    assert matrix.precision == pytest.approx(0.6)
    assert matrix.recall == pytest.approx(0.75)
    assert matrix.kappa == pytest.approx(0.4)


def test_kappa_of_another_hand_worked_matrix() -> None:
    # tp 20, fp 5, fn 10, tn 15 (n 50): po = 35/50 = 0.7;
    # pe = (25*30 + 25*20) / 2500 = 0.5; kappa = 0.4. And tp 45, fp 15, fn 25, tn 15
    # (Wikipedia's example, n 100): po = 0.6, pe = (60*70 + 40*30)/10000 = 0.54,
    # kappa = 0.06 / 0.46 = 0.1304...
    assert Confusion(20, 5, 10, 15).kappa == pytest.approx(0.4)
    assert cohen_kappa(Confusion(45, 15, 25, 15)) == pytest.approx(0.06 / 0.46)


def test_perfect_agreement_and_perfect_disagreement() -> None:
    assert Confusion(2, 0, 0, 3).kappa == pytest.approx(1.0)
    assert Confusion(2, 0, 0, 3).agreement == 1.0
    assert Confusion(0, 3, 2, 0).kappa == pytest.approx(-12 / 13)  # po 0, pe 13/25


def test_undefined_ratios_are_none_never_a_made_up_number() -> None:
    empty = Confusion()
    assert (empty.agreement, empty.precision, empty.recall, empty.kappa) == (None,) * 4
    all_pass = Confusion(tp=0, fp=0, fn=0, tn=4)  # both sides always said pass
    assert all_pass.agreement == 1.0
    assert all_pass.kappa is None  # chance agreement 1: kappa undefined
    assert all_pass.precision is None  # the judge failed nothing
    assert all_pass.recall is None  # nothing was labelled fail


def test_only_pass_and_fail_are_counted() -> None:
    with pytest.raises(ValueError, match="pass or fail"):
        Confusion.of([("fail", "error")])


def test_consistency_is_the_share_whose_verdicts_all_agree_and_names_the_flips() -> None:
    found = consistency(
        [
            ["pass", "pass", "pass"],
            ["fail", "pass", "fail"],  # flips
            ["fail", "fail", "fail"],
            [],  # never ran: left out
            ["pass", "error", "pass"],  # an error is a different verdict
        ]
    )
    assert (found.checks, found.stable, found.flipped) == (4, 2, (1, 4))
    assert found.share == pytest.approx(0.5)
    assert consistency([]).share is None
