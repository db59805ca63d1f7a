"""Test helper: pretend the observation layout changed (two flat features of the glob block swapped)."""
from __future__ import annotations


def swap_glob_features(monkeypatch, a: str = "picked", b: str = "placed") -> None:
    """Swap glob features ``a`` and ``b`` in ``necro_env.observe``'s tables and rebuild ``OFFSETS`` from them,
    as an edit of ``_GLOB_FEATURES`` would (both 1 wide by default, so ``OBS_SIZE`` stays the same)."""
    from necro_env import observe

    feats = list(observe._GLOB_FEATURES)
    i = next(k for k, (name, _) in enumerate(feats) if name == a)
    j = next(k for k, (name, _) in enumerate(feats) if name == b)
    feats[i], feats[j] = feats[j], feats[i]
    monkeypatch.setattr(observe, "_GLOB_FEATURES", tuple(feats))
    offsets, size = observe._build_offsets()
    assert size == observe.OBS_SIZE
    monkeypatch.setattr(observe, "OFFSETS", offsets)
