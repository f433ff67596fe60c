# Tricktable: every command creates the virtual environment it needs.
# `make demo` runs the main job; `make test` runs the tests; `make check` is lint + types + protos + tests.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed-stamp
# What `make demo` alone installs: the package and its command line, not the dev toolchain.
DEMO_STAMP := $(VENV)/.demo-stamp
export PYTHONDONTWRITEBYTECODE := 1


.PHONY: venv demo test browser check lint types golden bench clean protos protos-check buf-lint buf-breaking schemas schemas-check go-toolchain ladder ladder-timed sandbox-tools postgres-server

# buf (protobuf lint), pinned, run from the npm registry.
BUF := npx --yes @bufbuild/buf@1.75.0

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

$(DEMO_STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[cli]'
	touch $(DEMO_STAMP)

# Watch it at the address printed (the web viewer on HTTP_PORT, 8080 by default); Ctrl-C ends it.
# A venv already made by `make venv` (everything) is used as it is; otherwise only the command line is installed.
demo:
	@test -f $(STAMP) -a $(STAMP) -nt pyproject.toml || $(MAKE) --no-print-directory $(DEMO_STAMP)
	$(BIN)/tricktable match --game twenty_five --bots random,random,random,random --http-port $(or $(HTTP_PORT),8080) --delay-ms 400

# The suite runs on every core (pytest-xdist): each test file stays on one worker, so a file's shared fixtures
# (a built Go client, a module's server) are made once. TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= auto
test: venv browser go-toolchain sandbox-tools postgres-server
	$(BIN)/pytest -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile

# Tournaments run every entrant's bot in a bubblewrap sandbox (docs/tournament.md, Isolation), and the tests
# try to cheat out of it: Debian's bubblewrap is installed here with apt-get when missing.
sandbox-tools:
	@command -v bwrap >/dev/null 2>&1 || { \
	  echo "installing bubblewrap for the tournament sandbox (apt-get)"; \
	  sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $$sudo apt-get install -y -q bubblewrap || { $$sudo apt-get update -q; $$sudo apt-get install -y -q bubblewrap; }; \
	}

# The record store's suite (tests/server/test_storage.py) and the database-gone test run against a real PostgreSQL
# server each test starts in a temporary directory: Debian's is installed here with apt-get when missing.
postgres-server:
	@{ command -v pg_ctl || ls /usr/lib/postgresql/*/bin/pg_ctl; } >/dev/null 2>&1 || { \
	  echo "installing PostgreSQL for the record store's tests (apt-get)"; \
	  sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $$sudo apt-get install -y -q postgresql || { $$sudo apt-get update -q; $$sudo apt-get install -y -q postgresql; }; \
	}

# The browser test (tests/web/test_browser.py) drives Debian's chromium through playwright (playwright's own
# browser download is not used): installed here with apt-get when missing (CI runs as root on a fresh machine).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing chromium for the browser test (apt-get)"; \
	  sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $$sudo apt-get update -q || { sleep 5; $$sudo apt-get update -q; }; \
	  $$sudo apt-get install -y -q chromium fonts-dejavu-core; \
	}

# The Go client test (tests/conformance/test_go_client.py) generates and builds a Go seat from the shipped protos
# with Debian's Go toolchain and grpc-go: installed here with apt-get when missing.
GO_PACKAGES := golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc golang-google-grpc-dev \
	golang-github-golang-protobuf-1-5-dev
go-toolchain:
	@command -v go >/dev/null 2>&1 && command -v protoc-gen-go-grpc >/dev/null 2>&1 && \
	  grep -qs google.golang.org/protobuf /usr/share/gocode/src/github.com/golang/protobuf/go.mod || { \
	  echo "installing the Go toolchain for the Go client test (apt-get)"; \
	  sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $$sudo apt-get update -q || { sleep 5; $$sudo apt-get update -q; }; \
	  $$sudo apt-get install -y -q $(GO_PACKAGES); \
	}

lint: venv
	$(BIN)/ruff check .

types: venv
	$(BIN)/mypy tricktable bench tests examples/python

check: lint types protos-check schemas-check buf-lint buf-breaking test

# Write each registered game's entries into tricktable/v1/game.proto (tricktable/protocol/game_entries.py),
# then regenerate tricktable/protocol/generated from tricktable/v1/*.proto.
protos: venv
	$(PY) -m tricktable.protocol.game_entries
	$(PY) protos/generate.py

# Fail when game.proto lacks a registered game's entries or the committed generated code differs from a
# fresh generation.
protos-check: venv
	@$(PY) -m tricktable.protocol.game_entries --check
	@tmp=$$(mktemp -d) && $(PY) protos/generate.py $$tmp >/dev/null 2>&1 && \
	  diff -r -x __pycache__ tricktable/protocol/generated $$tmp >/dev/null; \
	  rc=$$?; rm -rf $$tmp; \
	  if [ $$rc -ne 0 ]; then echo "tricktable/protocol/generated is stale: run make protos"; exit 1; fi; \
	  echo "generated protos are up to date"

# Write the registered games into the published JSON Schemas (docs/record.schema.json's game enum, and
# docs/tournament.schema.json whole, from the tournament model): tricktable/cli/doc_schemas.py.
schemas: venv
	$(PY) -m tricktable.cli.doc_schemas

# Fail, naming each game a schema lacks, when docs/*.schema.json are not what `make schemas` writes.
schemas-check: venv
	@$(PY) -m tricktable.cli.doc_schemas --check && echo "the schemas name every registered game"

buf-lint:
	cd protos && $(BUF) lint

# Fail when the protos break a contract of the released v1 (protos/baseline/v1.binpb, made by `buf build -o`):
# within v1 the protocol only grows (docs/protocol.md, "Versions and compatibility").
buf-breaking:
	cd protos && $(BUF) breaking --against baseline/v1.binpb

golden: venv
	$(PY) -m tests.golden --regenerate

# The README's ladder: four steps per game (random < heuristic < pimc < search, and search vs heuristic) on
# duplicate deals, seed "ladder"; in the Spoil Five games also the stronger yardstick `pimc-exact` (40 worlds a
# decision, the last three cards of each hand solved exactly, at its own cost) against `pimc` and, timed, the
# search against it. `ladder` runs with a fixed number of worlds a decision (reproducible), `ladder-timed`
# with each searching bot's 100 ms a decision on its own CPU clock (`--clock cpu`: the worlds an idle core gives
# in 100 ms, whatever else the machine runs; `CLOCK=wall` for the live games' wall clock). The pair counts
# keep each target within about an hour of two idle cores (docs/strength.md gives each row's CPU per decision);
# WORKERS=n to change the processes.
LADDER := $(BIN)/tricktable ladder --workers $(or $(WORKERS),2)
ladder: venv
	$(LADDER) --game twenty_five --games 200 --sims 100
	$(LADDER) --game twenty_five --games 200 --sims 100 --seed vp --pair pimc-exact,pimc
	$(LADDER) --game forty_five --games 200 --sims 100
	$(LADDER) --game forty_five --games 200 --sims 100 --seed vp --pair pimc-exact,pimc
	$(LADDER) --game all_fives --games 200 --sims 30
	$(LADDER) --game cinq_cents --games 40 --sims 20 --option target=500

LADDER_TIMED := $(LADDER) --sims 0 --seed timed --clock $(or $(CLOCK),cpu)
ladder-timed: venv
	$(LADDER_TIMED) --game twenty_five --games 40
	$(LADDER_TIMED) --game twenty_five --games 40 --pair search,pimc-exact
	$(LADDER_TIMED) --game forty_five --games 40
	$(LADDER_TIMED) --game forty_five --games 40 --pair search,pimc-exact
	$(LADDER_TIMED) --game all_fives --games 20
	$(LADDER_TIMED) --game cinq_cents --games 20 --option target=500

bench: venv
	-$(PY) -m pip install --quiet -e '.[bench,fast]'
	$(PY) -m bench.run
	$(PY) -m bench.training_throughput
	$(PY) -m bench.server_bench
	$(PY) -m bench.shard_bench
	$(PY) -m bench.sdk_decode
	$(PY) -m bench.external_bots
	-$(PY) -m bench.store_cost

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
