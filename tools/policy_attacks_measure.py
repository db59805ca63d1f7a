"""Time and peak memory of ``necro-env evaluate`` on each malicious policy file of tests/policy_attacks.py.

    python tools/policy_attacks_measure.py [--necro-env PATH] [--games 2]

Each file is built in a temporary directory and run as a user would, under ``/usr/bin/time -v``:
``necro-env evaluate --players 3 --necromancer FILE --games N --quiet``. One row per attack: exit code,
wall time, peak resident memory, the number of stderr lines, whether a traceback was printed, and
the start of the error line. A refused file must exit 2 with one line; a playable one exit 0.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--necro-env", default=shutil.which("necro-env") or str(Path(sys.executable).parent / "necro-env"))
    p.add_argument("--games", type=int, default=2)
    args = p.parse_args(argv)

    import policy_attacks

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        names = list(policy_attacks.REFUSED) + list(policy_attacks.PLAYABLE)
        print(f"{'attack':<28} {'rc':>3} {'wall s':>7} {'peak MB':>8} {'lines':>5} {'tb':>3}  error")
        for name in names:
            path = policy_attacks.build(name, Path(tmp))
            proc = subprocess.run(["/usr/bin/time", "-v", args.necro_env, "evaluate", "--players", "3", "--necromancer",
                                   str(path), "--games", str(args.games), "--quiet"],
                                  capture_output=True, text=True, env=env, timeout=600)
            err = proc.stderr
            wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", err)
            secs = (int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))) if wall else -1
            peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1)) / 1024
            own = [ln for ln in err.splitlines() if not ln.startswith("\t") and not ln.startswith("Command exited")]
            tb = "Traceback" in err
            want = 0 if name in policy_attacks.PLAYABLE else 2
            ok = proc.returncode == want and not tb and (want == 0 or len(own) == 1)
            bad += not ok
            line = own[0].removeprefix("necro-env evaluate: error: ") if own and want else ""
            line = line.replace(str(path), "FILE")
            print(f"{name:<28} {proc.returncode:>3} {secs:>7.2f} {peak:>8.0f} {len(own):>5} "
                  f"{'yes' if tb else 'no':>3}  {line[:90]}{'' if ok else '   <-- NOT AS EXPECTED'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
