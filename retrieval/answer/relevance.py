"""How well the lead runbook's best section answers the question, by meaning: the cosine
of the two vectors with each dimension of the embedding weighed as the questions of
every question set taught.

The plain cosine counts every dimension of the embedding alike, and so scores a near miss
(same subject, another ask) almost as high as the question the section answers. The
weighting is a ridge regression over the products of the question's and the section's
vectors, dimension by dimension (standardized), on whether a runbook answers the question:
fitted by ``make quality`` on the sets' questions, leave-one-corpus-out where it is judged,
and kept as data (``relevance.json``) with the embedding model it belongs to. The
section's vector comes from the in-memory mirror, or from a Qdrant server, which keeps
none beside the index; where none can be had, or for another embedding model, the plain
cosine mapped onto the same scale stands in.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from retrieval.errors import ModelDataError

DATA = Path(__file__).with_name("relevance.json")
RIDGE = 10000.0  # the weighting's shrinkage: a broad plateau from 3,000 to 30,000 (docs/quality.md)

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Relevance:
    model: str  # the embedding model whose dimensions are weighed
    weights: tuple[float, ...]  # per dimension, on the raw products
    intercept: float
    # the plain cosine onto the same scale, where the vectors are not at hand
    cosine_slope: float = 1.0
    cosine_intercept: float = 0.0

    def applies_to(self, model: str, dim: int) -> bool:
        return model == self.model and dim == len(self.weights)

    def of_product(self, product: npt.ArrayLike) -> float:
        """The score of the vectors' product, dimension by dimension."""
        return float(
            np.asarray(product, dtype=np.float64) @ np.asarray(self.weights) + self.intercept
        )

    def from_cosine(self, cosine: float) -> float:
        return self.cosine_slope * cosine + self.cosine_intercept

    def read(self, cosine: float, product: npt.ArrayLike | None) -> float:
        """The relevance of a section: its product with the question weighed, or where
        there is none (no vector at hand, another model's) the cosine's stand-in."""
        return self.from_cosine(cosine) if product is None else self.of_product(product)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def load(cls, path: Path = DATA) -> Relevance:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(
                model=str(data["model"]),
                weights=tuple(float(w) for w in data["weights"]),
                intercept=float(data["intercept"]),
                cosine_slope=float(data["cosine_slope"]),
                cosine_intercept=float(data["cosine_intercept"]),
            )
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ModelDataError(f"cannot read the relevance weighting {path}: {e}") from e


def product(question: npt.ArrayLike, section: npt.ArrayLike) -> Array:
    """The two vectors multiplied dimension by dimension (their cosine is its sum)."""
    return np.asarray(question, dtype=np.float64) * np.asarray(section, dtype=np.float64)


@dataclass(frozen=True)
class Pair:
    """One labelled question: the product of its vector and its lead section's, the plain
    cosine of the two, and whether a runbook answers it."""

    product: Array
    cosine: float
    answerable: bool


@dataclass(frozen=True)
class _Sums:
    """A set's sufficient statistics: the weighting fitted on any union of sets is solved
    from their sums, so leaving one set out (or two) costs no pass over the questions."""

    xx: Array
    xy: Array
    x: Array
    x2: Array
    y: float
    n: int
    cos: Array  # (cosine, 1) rows, for the stand-in's least squares
    cos_xy: Array  # (cosine, 1) x product, for the score's mean by cosine

    @classmethod
    def of(cls, pairs: Sequence[Pair]) -> _Sums:
        x = np.array([p.product for p in pairs], dtype=np.float64)
        y = np.array([1.0 if p.answerable else -1.0 for p in pairs])
        c = np.column_stack([[p.cosine for p in pairs], np.ones(len(pairs))])
        return cls(
            x.T @ x, x.T @ y, x.sum(0), (x * x).sum(0), float(y.sum()), len(pairs), c.T @ c, c.T @ x
        )

    def __add__(self, o: _Sums) -> _Sums:
        return _Sums(
            self.xx + o.xx,
            self.xy + o.xy,
            self.x + o.x,
            self.x2 + o.x2,
            self.y + o.y,
            self.n + o.n,
            self.cos + o.cos,
            self.cos_xy + o.cos_xy,
        )


class RelevanceFit:
    """Fits the weighting on any union of question sets (by name)."""

    def __init__(self, sets: dict[str, Sequence[Pair]], model: str, ridge: float = RIDGE) -> None:
        self._sums = {name: _Sums.of(pairs) for name, pairs in sets.items() if pairs}
        self._model = model
        self._ridge = ridge

    def without(self, left_out: Iterable[str] = ()) -> Relevance:
        """The weighting fitted on every set but those ``left_out``."""
        out = set(left_out)
        parts = [s for name, s in self._sums.items() if name not in out]
        if not parts:
            raise ValueError("no question set to fit the relevance weighting on")
        s = parts[0]
        for p in parts[1:]:
            s = s + p
        mean = s.x / s.n
        std = np.sqrt(np.maximum(s.x2 / s.n - mean**2, 0.0))
        scale = np.where(std > 1e-9, std, 1.0)
        centred = s.xx - s.n * np.outer(mean, mean)
        gram = centred / np.outer(scale, scale)
        target = (s.xy - mean * s.y) / scale
        w = np.linalg.solve(gram + self._ridge * np.eye(len(mean)), target)
        weights = w / scale
        intercept = -float(mean @ weights)
        # the stand-in: least squares of the score on the plain cosine
        score_by_cos = s.cos_xy @ weights + intercept * s.cos[:, 1]
        slope, icept = np.linalg.solve(s.cos + 1e-9 * np.eye(2), score_by_cos)
        return Relevance(
            model=self._model,
            weights=tuple(round(float(v), 6) for v in weights),
            intercept=round(intercept, 6),
            cosine_slope=round(float(slope), 6),
            cosine_intercept=round(float(icept), 6),
        )
