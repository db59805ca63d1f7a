"""The training recipe is pinned: the digests of the weights after the warm start and after the first PPO
updates of configs/digest_small.yaml (the 3-seat recipe in miniature) must equal tests/data/recipe_digests.json.

A failure here means the recipe's code path changed (rewards, shaping, observation, network, warm start,
PPO, seeding). If that is intended, rerun ``python training/recipe_digest.py --write`` (``make digest
WRITE=1``) and commit the new digests with the change, so the change shows up as a reviewed diff. On a
setting the file pins no digests for (another torch version or CPU kernels), only how far each stage
moved the weights is compared, with a warning.
"""
from __future__ import annotations

import json
import warnings

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from training import recipe_digest  # noqa: E402


def test_the_recipe_reproduces_the_pinned_digests():
    pinned = json.loads(recipe_digest.PINNED.read_text())
    assert pinned["config"] == recipe_digest.DEFAULT_CONFIG
    assert list(pinned["moved"])[:4] == ["init", "warm_start", "update_1", "update_2"]
    got = recipe_digest.recipe_digests(pinned["config"])
    how, diff = recipe_digest.compare(pinned, got)
    assert not diff, ("the recipe's weights changed; if intended, run `python training/recipe_digest.py --write` "
                      f"and commit tests/data/recipe_digests.json ({recipe_digest.numeric_env()}, "
                      f"{'exact digests' if how == 'exact' else 'moved only: no digests pinned for it'}):\n"
                      + "\n".join(diff))
    if how != "exact":
        warnings.warn(f"tests/data/recipe_digests.json pins no exact digests for {recipe_digest.numeric_env()}: "
                      "compared how far each stage moved the weights only")
    # Each stage trains: the warm start and the first two updates move the weights.
    assert len({got[s]["sha256"] for s in ("init", "warm_start", "update_1", "update_2")}) == 4
    assert all(got[s]["moved"] > 0 for s in ("warm_start", "update_1", "update_2"))


def test_compare_is_exact_where_digests_are_pinned_and_else_checks_how_far_the_weights_moved():
    stages = {"init": {"sha256": "a" * 64, "moved": 0.0}, "update_1": {"sha256": "b" * 64, "moved": 0.0002675}}
    pinned = {"moved": {k: v["moved"] for k, v in stages.items()},
              "digests": {"torch X, AVX512": {k: v["sha256"] for k, v in stages.items()}}}
    assert recipe_digest.compare(pinned, stages, "torch X, AVX512") == ("exact", [])
    rounded = {**stages, "update_1": {"sha256": "c" * 64, "moved": 0.0002675}}  # other kernels' rounding
    how, diff = recipe_digest.compare(pinned, rounded, "torch X, AVX512")
    assert how == "exact" and [line.split(":")[0] for line in diff] == ["update_1"]
    assert recipe_digest.compare(pinned, rounded, "torch X, AVX2") == ("moved", [])
    near = {**rounded, "update_1": {"sha256": "c" * 64, "moved": 0.0002675 * (1 + 1e-5)}}
    assert recipe_digest.compare(pinned, near, "torch X, AVX2") == ("moved", [])
    changed = {**rounded, "update_1": {"sha256": "c" * 64, "moved": 0.0002646}}  # a 1% change of a reward term
    how, diff = recipe_digest.compare(pinned, changed, "torch X, AVX2")
    assert how == "moved" and [line.split(":")[0] for line in diff] == ["update_1"]
    extra = {**stages, "update_2": {"sha256": "d" * 64, "moved": 0.1}}
    assert [line.split(":")[0] for line in recipe_digest.compare(pinned, extra, "torch X, AVX512")[1]] == ["update_2"]


def test_digest_covers_every_weight_and_refuses_other_floats():
    net = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Linear(2, 1))
    d = recipe_digest.weights_digest(net)
    assert d == recipe_digest.weights_digest(net) and len(d) == 64
    saved = {k: v.clone() for k, v in net.state_dict().items()}
    with torch.no_grad():
        net[1].bias.copy_(torch.nextafter(net[1].bias, torch.tensor(1.0)))  # one weight, one float apart
    assert recipe_digest.weights_digest(net) != d
    net.load_state_dict(saved)
    assert recipe_digest.weights_digest(net) == d
    with pytest.raises(TypeError, match="float32"):
        recipe_digest.weights_digest(net.double())
