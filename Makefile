# Every target bootstraps .venv itself; `make test` reinstalls only when pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# A local CPU build of torch on these machines; installing it first keeps pip from
# resolving torch to a multi-gigabyte CUDA build when the train extra is installed (and naming it again
# in the extras' install line keeps any extra from replacing it).
TORCH_PIN := torch==2.13.0

.PHONY: install test fuzz demo reproduce reference digest bench bench-env simulate clean

install: $(STAMP)

$(VPY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(VPY)
	$(VPY) -m pip install --upgrade pip
	$(VPY) -m pip install '$(TORCH_PIN)'
	$(VPY) -m pip install '$(TORCH_PIN)' -e '.[train,dev,rllib,openspiel,bench]'
	touch $(STAMP)

test: $(STAMP)
	$(VPY) -m pytest -q -n 2 tests

# The long run of the loader fuzz suite (tests/test_fuzz_loading.py): FUZZ_SCALE times its
# `make test` cases (about 940 each time; 25 gives about 23,500), with hypothesis's outcome counts.
FUZZ_SCALE ?= 25
fuzz: $(STAMP)
	NECRO_FUZZ_SCALE=$(FUZZ_SCALE) $(VPY) -m pytest -q -n 2 -p no:cacheprovider --hypothesis-show-statistics \
		tests/test_fuzz_loading.py

# The main job: train a small Necromancer policy on CPU, then evaluate it against the
# random (and the heuristic) Necromancer on the same seeded games (training/demo.py).
demo: $(STAMP)
	$(VPY) training/demo.py --config configs/necromancer_quick.yaml

# Retrain a shipped policy from its config with the current code (the seed its file records), then
# evaluate it and the shipped file on 600 games of seed 2024 (training/reproduce.py; about an hour):
#   make reproduce NAME=necromancer_3p      (necromancer_6p, player_2p)
NAME ?= necromancer_3p
reproduce: $(STAMP)
	$(VPY) training/reproduce.py $(NAME)

# One reference run of the benchmark suite (training/reference_run.py; docs/benchmark/README.md, "Reference
# results"): LIBRARY's learner trained on TASK for BUDGET's env steps or MINUTES of training, whichever comes
# first, scored with the task's evaluation; the results file goes to OUT (necro-env benchmark --results OUT):
#   make reference LIBRARY=sb3 TASK=necro3-greedy SEED=0      (LIBRARY: sb3, rllib, tianshou, benchmarl)
LIBRARY ?= sb3
TASK ?= necro3-greedy
SEED ?= 0
BUDGET ?= small
MINUTES ?= 60
OUT ?= results/reference
reference: $(STAMP)
	OMP_NUM_THREADS=1 $(VPY) training/reference_run.py --library $(LIBRARY) --task $(TASK) --seed $(SEED) \
		--budget $(BUDGET) --max-minutes $(MINUTES) --out-dir $(OUT)

# The weights' digests after the warm start and the first two PPO updates of configs/digest_small.yaml
# against tests/data/recipe_digests.json (training/recipe_digest.py); `make digest WRITE=1` rewrites them.
digest: $(STAMP)
	$(VPY) training/recipe_digest.py $(if $(WRITE),--write,--check)

bench: $(STAMP)
	$(VPY) benchmarks/engine_speed.py
	$(VPY) benchmarks/env_speed.py

simulate: $(STAMP)
	$(VENV)/bin/necro-env simulate --players 4 --games 200 --seed 0

clean:
	rm -rf build *.egg-info .pytest_cache
