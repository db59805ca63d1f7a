"""Re-save a policy file in the current format (layout fingerprint and commit in its header), same weights.

    python tools/resave_policy.py necro_env/pretrained/necromancer_3p.safetensors --commit 5324b76... \\
        --note "trained with the code of 5324b76 (the parent of 1c52dca, which landed the file)"

For files written before policy files recorded their layout (format version 1) or to correct a
file's commit. The fingerprint written is this checkout's layout fingerprint, so the tool first
checks that the layout at ``--commit`` is this one: it checks that commit out in a temporary git
worktree, computes the fingerprint there (with this checkout's ``necro_env/fingerprint.py``) and
refuses if it differs. The tensors are copied as they are (bit for bit: checked by reading the
new file back through every check of ``read_policy_file`` and comparing each tensor with
``torch.equal``); the info gains ``provenance`` (the note) when one is given. The file is replaced
atomically unless ``--out`` names another.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def fingerprint_at(commit: str) -> str:
    """The layout fingerprint of the code at ``commit`` (a temporary worktree of this repository)."""
    tmp = Path(tempfile.mkdtemp(prefix="resave_")) / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(tmp), commit], check=True)
    try:
        shutil.copy(ROOT / "necro_env" / "fingerprint.py", tmp / "necro_env" / "fingerprint.py")
        code = "from necro_env.fingerprint import layout_fingerprint as f; print(f())"
        env = {"PYTHONPATH": str(tmp), "PATH": "/usr/bin:/bin"}
        out = subprocess.run([sys.executable, "-c", code], cwd=tmp, env=env, capture_output=True, text=True, check=True)
        return out.stdout.strip()
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tmp)], check=False)
        shutil.rmtree(tmp.parent, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("file")
    p.add_argument("--commit", required=True, help="the full commit whose code trained the policy")
    p.add_argument("--note", default=None, help="how the commit was established (stored in info as 'provenance')")
    p.add_argument("--out", default=None, help="write here instead of replacing FILE")
    args = p.parse_args(argv)

    import torch
    from safetensors import safe_open
    from safetensors.torch import load_file

    from necro_env.agents.nets import build_net
    from necro_env.agents.torch_policy import read_policy_file, save_policy
    from necro_env.fingerprint import is_commit, layout_fingerprint

    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", args.commit + "^{commit}"],
                            capture_output=True, text=True, check=True).stdout.strip()
    if not is_commit(commit):
        p.error(f"--commit {args.commit}: not a commit")
    here, there = layout_fingerprint(), fingerprint_at(commit)
    if here != there:
        print(f"resave_policy.py: error: the layout at {commit[:12]} ({there}) is not this checkout's ({here}): "
              f"the file cannot be given this layout's fingerprint", file=sys.stderr)
        return 1
    with safe_open(args.file, framework="pt") as f:
        meta = f.metadata() or {}
    old = load_file(args.file)
    arch, role, info = json.loads(meta["necro_env.arch"]), meta["necro_env.role"], json.loads(meta["necro_env.info"])
    if args.note:
        info["provenance"] = args.note
    net = build_net(arch)
    net.load_state_dict(old, strict=True)
    out = Path(args.out or args.file)
    save_policy(net, out, role, info, commit=commit)
    new_net, new_role, new_info = read_policy_file(out)
    new = new_net.state_dict()
    same = set(new) == set(old) and all(torch.equal(old[k], new[k]) and old[k].dtype == new[k].dtype for k in old)
    if not same or new_role != role or new_info != info:
        print(f"resave_policy.py: error: {out} does not hold the same tensors, role and info", file=sys.stderr)
        return 1
    print(f"{out}: fingerprint {here}, commit {commit}; {len(old)} tensors bit-identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
