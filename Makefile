# Tintero: `make run` serves the demo on 127.0.0.1:8000; `make test` runs the whole suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.in requirements-dev.in constraints.txt | cksum | cut -d' ' -f1)
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=

.PHONY: install run migrate messages messages-update demo test test-services lint format bench clean

$(STAMP): requirements.in requirements-dev.in constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q -r requirements.in -r requirements-dev.in -c constraints.txt
	rm -f $(VENV)/.installed-*
	touch $@

install: $(STAMP)

migrate: install
	$(PY) manage.py migrate --noinput

# The compiled catalogues are committed; recompile when gettext's msgfmt is there.
messages: install
	@if command -v msgfmt >/dev/null 2>&1; then $(PY) manage.py compilemessages --ignore=.venv -v 0; \
	else echo "msgfmt not found: using the committed .mo files"; fi

# After adding or changing translatable strings: refresh the English catalogue, translate, then `make messages`.
messages-update: install
	$(PY) manage.py makemessages -l en --ignore=.venv --ignore=bench --ignore=tests --no-obsolete --no-location

demo: migrate
	$(PY) manage.py load_demo

# The task worker (mail, digests, notifications) runs in the background and dies with the server.
run: install messages demo
	$(PY) manage.py run_task_worker & worker=$$!; \
	trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	$(PY) manage.py runserver $(HOST):$(PORT)

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

# The same suite against real services: DATABASE_URL (PostgreSQL) and REDIS_URL must be set.
test-services: install
	@test -n "$(DATABASE_URL)" || (echo "DATABASE_URL is required (e.g. postgresql://postgres@127.0.0.1:5432/test)"; exit 2)
	@test -n "$(REDIS_URL)" || (echo "REDIS_URL is required (e.g. redis://127.0.0.1:6379/0)"; exit 2)
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy .

format: install
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

# Rolls per second against the bare dice floor, Markdown rendering against bare markdown-it + nh3, then WebSocket fan-out (in-memory layer, and Redis layers
# when REDIS_URL is set) against a bare Channels consumer, then the notifications' fan-out against the post's own write.
bench: install
	$(PY) -m bench.rolls_bench
	$(PY) -m bench.markdown_bench
	$(PY) -m bench.fanout
	$(PY) -m bench.notify_bench

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache
