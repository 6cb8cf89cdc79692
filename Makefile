# Every target creates .venv and installs what it needs by itself (Python 3.11, no Docker, no root).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DEPS   := $(VENV)/.deps
STAMP  := $(VENV)/.installed
GEN    := gen
GEN_STAMP := $(GEN)/.generated
PROTOS := $(sort $(wildcard protos/holdem/*/*/*.proto))
NATIVE_SRC := setup.py libs/poker/fast/_native.c libs/tableproto/_wire.c libs/eventstore/_frames.c

WEB_STAMP := web/dist/index.html
WEB_SRC := $(wildcard web/src/*.ts web/src/*.css) web/index.html web/package.json web/package-lock.json \
	web/vite.config.ts web/tsconfig.json

.PHONY: setup web browser proto test test-fast test-containers lint typecheck bench mutate ladder run up down \
	images compose-up compose-down clean

# Third-party dependencies (and a first editable install of our own packages).
$(DEPS): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

# Python code + mypy stubs for every proto, importable as holdem.<area>.v1.<file>_pb2(_grpc).
# Regenerated from scratch so a deleted .proto leaves no stale module behind.
$(GEN_STAMP): $(DEPS) $(PROTOS)
	rm -rf $(GEN)/holdem
	mkdir -p $(GEN)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m grpc_tools.protoc -Iprotos \
		--python_out=$(GEN) --grpc_python_out=$(GEN) \
		--mypy_out=$(GEN) --mypy_opt=quiet --mypy_grpc_out=$(GEN) --mypy_grpc_opt=quiet \
		$(PROTOS)
	find $(GEN)/holdem -type d -exec touch '{}/__init__.py' ';'
	touch $(GEN)/holdem/py.typed
	touch $@

proto: $(GEN_STAMP)

# The editable install maps only the top-level packages that existed when it ran: if gen/holdem was
# generated after it, install again (cheap, no dependencies) so `import holdem...` works.
# Every install also compiles the optional C extension (setup.py): install again when its source
# changed since the last setup, so no stale build is tested.
$(STAMP): $(DEPS) $(GEN_STAMP) $(NATIVE_SRC)
	$(PY) -c 'import holdem.gateway.v1.gateway_pb2_grpc' 2>/dev/null \
		&& { test ! -e $@ || test -z "$(filter $(NATIVE_SRC),$?)"; } \
		|| $(PY) -m pip install --quiet --no-deps -e .
	$(PY) -c 'import holdem.gateway.v1.gateway_pb2_grpc'
	touch $@

setup: $(STAMP)

# The web client (web/, docs/web.md): npm ci from the lockfile, TypeScript generated from protos/
# (protoc-gen-es through grpc_tools' protoc), built by vite into web/dist, which the gateway's HTTP
# port serves. Node 20 and npm from Debian's nodejs when missing.
$(WEB_STAMP): $(STAMP) $(WEB_SRC) $(PROTOS)
	@command -v npm >/dev/null || { apt-get update -qq && apt-get install -y -qq nodejs npm; }
	cd web && npm ci --no-audit --no-fund --loglevel=error
	rm -rf web/src/gen
	cd web && npm run --silent gen && npm run --silent build

web: $(WEB_STAMP)

# Debian's chromium for the browser tests (tests/web; Playwright drives it, it downloads none).
browser:
	@test -x /usr/bin/chromium || { apt-get update -qq && apt-get install -y -qq chromium; }

test: setup web browser
	$(PY) -m pytest

# The contributors' loop: everything but the integration tests (real NATS, Redis, processes,
# containers) and the slow ones (the long differential and conformance runs); about a minute.
test-fast: setup
	$(PY) -m pytest -m "not integration and not slow"

# The containers tier alone (part of `make test`): the images, compose up, plays and faults from
# the host, testcontainers; starts (as root: installs) a Docker engine when none answers.
test-containers: setup
	$(PY) -m pytest -m containers

# ruff, mypy on libs/, and the layers (.importlinter: tools > services > infrastructure > domain,
# no cycles; docs/development.md)
lint: setup
	$(VENV)/bin/ruff check libs services tests deploy
	$(VENV)/bin/mypy libs
	$(VENV)/bin/lint-imports

typecheck: setup
	$(VENV)/bin/mypy libs services benchmarks tests deploy

bench: setup
	$(PY) -m benchmarks

# Not part of `make test`: realistic one-line bugs (tests/mutation/mutations_*.py), each run against
# the tests that should catch it; fails if any mutation survives (tests/mutation).
mutate: setup
	$(PY) tests/mutation/run.py

# The AI ladder of docs/ai.md: every rung's match, the table printed in Markdown (long: run it
# niced on a shared machine; exit 1 unless every interval is above zero).
ladder: setup
	nice -n 10 $(VENV)/bin/holdem arena --ladder $(if $(SCALE),--scale $(SCALE))

# The whole platform as local processes (nats-server, redis-server, six services; docs/stack.md).
# run: in the foreground. On a terminal (and without HANDS): you play at a 6-seat table with five
# AIs in the terminal client (holdem play); the stack stops when you quit. Without a terminal (CI,
# a pipe) or with HANDS=N: six bots play $(HANDS) hands (default 5), printed as they happen; then
# it keeps running until Ctrl-C, or, with HANDS, stops with a summary (chips conserved or exit 1).
# up: in the background, returns once all are SERVING; `make down` (or `holdem stack down`)
# stops it. Both keep their state in .stack/.
run: setup web
	@if [ -t 0 ] && [ -t 1 ] && [ -z "$(HANDS)" ]; then \
		$(VENV)/bin/holdem stack up --play --log-level warning; \
	else \
		$(VENV)/bin/holdem stack up --demo-hands $(or $(HANDS),5) $(if $(HANDS),--exit-after-demo); \
	fi

up: setup web
	$(VENV)/bin/holdem stack up --detach

down:
	@test -x $(VENV)/bin/holdem || { echo "nothing to stop: no $(VENV)/bin/holdem"; exit 0; }; \
		$(VENV)/bin/holdem stack down

# Containers (docs/operations.md, "docker compose"): every image the stack needs, built here
# (stand-in bases from Debian's packages where the public ones cannot be pulled; the chosen ones
# go to .images.env), then the stack up until every container is healthy (MONITORING=1 adds
# Prometheus, and Grafana where its image can be had), and down with its networks and volumes.
images: setup web
	$(PY) -m deploy.containers images

compose-up: setup web
	$(PY) -m deploy.containers up $(if $(MONITORING),--monitoring)

compose-down: setup
	$(PY) -m deploy.containers down

clean:
	rm -rf $(VENV) gen .mypy_cache .ruff_cache .pytest_cache .hypothesis
