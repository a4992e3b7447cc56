# Tintero: `make run` serves the demo on 127.0.0.1:8000; `make test` runs the whole suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.in requirements-dev.in constraints.txt | cksum | cut -d' ' -f1)
HOST ?= 127.0.0.1
PORT ?= 8000
# Where mail and feeds point: where `make run` / `make dev` serve, unless set otherwise.
SITE_URL ?= http://$(HOST):$(PORT)
PYTEST_ARGS ?=
# pytest-xdist workers for `make test` and `make test-services`: one per core (auto), or a number; 0 runs in one
# process. Tests marked xdist_group(name) run together on one worker (--dist loadgroup, pyproject.toml).
TEST_WORKERS ?= auto

.PHONY: install run dev static migrate messages messages-update demo test test-services lint format bench clean

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

# `make run` serves like a real site: DEBUG off (the site's own error pages, never a debug page), a secret
# key generated once for this checkout and kept out of git (.local/), static files through WhiteNoise.
# Plain HTTP on the loopback, so the session cookie may not require HTTPS here.
LOCAL_SECRET := .local/secret_key

$(LOCAL_SECRET):
	@mkdir -p $(dir $@)
	@umask 077 && $(PY) -c 'import secrets; print(secrets.token_urlsafe(50))' > $@

LOCAL_SITE = DEBUG=0 SECRET_KEY="$$(cat $(LOCAL_SECRET))" SESSION_COOKIE_SECURE=0 SERVE_MEDIA=1 SITE_URL="$(SITE_URL)"

# Collected with DEBUG off, so WhiteNoise's manifest (hashed names) is what the pages ask for.
static: install $(LOCAL_SECRET)
	$(LOCAL_SITE) $(PY) manage.py collectstatic --noinput --clear -v 0

# The task worker (mail, digests, notifications) runs in the background and dies with the server.
run: install messages demo static
	$(LOCAL_SITE) $(PY) manage.py run_task_worker & worker=$$!; \
	trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	$(LOCAL_SITE) $(PY) manage.py runserver --noreload $(HOST):$(PORT)

# The debug server: Django's debug pages and code reloading, for working on Tintero itself.
dev: install messages demo
	DEBUG=1 SITE_URL="$(SITE_URL)" $(PY) manage.py run_task_worker & worker=$$!; \
	trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	DEBUG=1 SITE_URL="$(SITE_URL)" $(PY) manage.py runserver $(HOST):$(PORT)

test: install
	$(PY) -m pytest -n $(TEST_WORKERS) $(PYTEST_ARGS)

# The same suite against real services: DATABASE_URL (PostgreSQL) and REDIS_URL must be set.
test-services: install
	@test -n "$(DATABASE_URL)" || (echo "DATABASE_URL is required (e.g. postgresql://postgres@127.0.0.1:5432/test)"; exit 2)
	@test -n "$(REDIS_URL)" || (echo "REDIS_URL is required (e.g. redis://127.0.0.1:6379/0)"; exit 2)
	$(PY) -m pytest -n $(TEST_WORKERS) $(PYTEST_ARGS)

lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy .

format: install
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

# Rolls per second against the bare dice floor, Markdown rendering against bare markdown-it + nh3, the thread
# page and posting against their floors (posting: a bare ORM view writing the same rows; SQLite, and
# PostgreSQL, with pgbench as a second line for the database alone, when DATABASE_URL is set: use your own
# database name), then WebSocket fan-out (in-memory layer, and Redis layers when REDIS_URL is set) against a
# bare Channels consumer, and with REDIS_URL two uvicorn processes at 1,000 and 3,000 sockets against plain
# WebSockets over Redis, then the notifications' fan-out against the post's own write.
bench: install static
	$(PY) -m bench.rolls_bench
	$(PY) -m bench.markdown_bench
	$(PY) -m bench.thread_bench
	$(PY) -m bench.fanout
	$(PY) -m bench.notify_bench

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache
