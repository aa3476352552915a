"""Helpers for tests of query plans: the stages of an explained plan, and values of every kind
that index keys must tell apart or treat alike."""

from bson.decimal128 import Decimal128
from bson.int64 import Int64


def winning_stages(explained):
    """Stage names of an explain reply's winning plan from the top down, following inputStage."""
    names, stage = [], explained["queryPlanner"]["winningPlan"]
    while stage is not None:
        names.append(stage["stage"])
        stage = stage.get("inputStage")
    return names


def random_typed_value(rng):
    """A value of one of the types that sort together or apart in index keys: numbers of each
    type (1, 1L, 1.0 and -0.0 alike), strings, null, decimals, documents and booleans."""
    return rng.choice([
        lambda: rng.randint(-3, 3), lambda: Int64(rng.randint(-3, 3)),
        lambda: rng.choice([-1.5, 0.0, -0.0, 0.5, 2.0, 3.25]),
        lambda: rng.choice(["a", "B", "", "ab"]), lambda: None,
        lambda: Decimal128(rng.choice(["1", "2.50", "-0"])),
        lambda: {"k": rng.randint(0, 2)}, lambda: rng.random() < 0.5,
    ])()
