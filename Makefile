# Two commands: `make run` and `make test`. Both build .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench heat-functional heat-functional-cloud clean cloud cloud-stop cloud-clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/hotplate serve

lint: $(STAMP)
	$(BIN)/ruff check hotplate tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/mypy --strict hotplate/model hotplate/graph hotplate/template hotplate/convergence
	$(BIN)/mypy hotplate

# The cloud suites run beside the rest (scripts/run_tests.sh): they mostly wait on the cloud.
test: lint
	BIN=$(BIN) scripts/run_tests.sh

bench: $(STAMP)
	$(BIN)/python benchmarks/converge.py

# Heat's own functional tests against a fresh server; needs HEAT_MIRROR (not part of `test`).
heat-functional: $(STAMP)
	BIN=$(BIN) scripts/heat_functional.sh

# The same in Keystone mode, hotplate serving as the project's cloud's orchestration service
# (`make cloud` first); TEST_LIST defaults to the tests that need the cloud.
heat-functional-cloud: $(STAMP)
	BIN=$(BIN) scripts/heat_functional_cloud.sh

clean:
	rm -rf $(VENV) var .pytest_cache

# The project's test cloud: a real OpenStack control plane on this machine (cloud/README.md).
# `make test` runs the cloud suites while it is up. CLOUD_HEAT=1 also runs real Heat beside it.
cloud:
	bash cloud/setup.sh
	bash cloud/start.sh

cloud-stop:
	bash cloud/stop.sh

cloud-clean:
	bash cloud/clean.sh

# Template functions against Heat 27.0.1's own code (builds its virtualenv once; not part of `test`).
.PHONY: heat-oracle
heat-oracle: $(STAMP)
	$(BIN)/python scripts/heat_oracle.py

# The web view's page (ui/, from npm with its lockfile) built into hotplate/ui/static/,
# which is committed: `make run` needs no Node.
.PHONY: ui ui-check
ui:
	cd ui && npm ci --no-audit --no-fund && npm run build

# CI: the committed bundle must be what the sources build.
ui-check: ui
	@if ! git diff --quiet -- hotplate/ui/static || \
	    [ -n "$$(git status --porcelain --untracked-files=all -- hotplate/ui/static)" ]; then \
	  git status --short -- hotplate/ui/static; \
	  echo "hotplate/ui/static differs from what 'make ui' builds: run it and commit the result"; \
	  exit 1; \
	fi
	@echo "hotplate/ui/static is what 'make ui' builds"
