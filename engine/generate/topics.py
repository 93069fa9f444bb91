"""Lexical vectors (TF-IDF, standard library only), topic clustering and near-duplicates.

With an embedding model configured, the same clustering and de-duplication run on its
vectors (pipeline.py asks for them through engine/llm); without one, TF-IDF vectors over
words and word pairs serve, so a chat model alone is enough.

Clustering is spherical k-means (cosine), fitted on a seeded sample of at most
`FIT_SAMPLE` vectors and then assigning every vector once, so a 5 MB knowledge base takes
a few seconds; the same seed gives the same topics.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections import Counter
from collections.abc import Sequence

Vector = dict[int, float]  # sparse, L2-normalised

_WORD = re.compile(r"[^\W\d_][\w'-]*", re.UNICODE)
_STOP = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "also",
        "may",
        "must",
        "us",
        "one",
        "two",
        "use",
        "used",
        "using",
        "per",
        "via",
        "etc",
        "within",
        "without",
    ]
)
FIT_SAMPLE = 1500
MAX_VOCABULARY = 4000
MAX_TOPICS = 8


def words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _STOP]


class TfIdf:
    """TF-IDF vectors of a set of texts, words and word pairs, the commonest terms kept."""

    def __init__(
        self, texts: Sequence[str], *, pairs: bool = True, drop_common: bool = True
    ) -> None:
        self.pairs = pairs
        counts = [self._terms(text) for text in texts]
        df: Counter[str] = Counter()
        for terms in counts:
            df.update(terms.keys())
        n = max(len(texts), 1)
        # Terms in more than half the texts say nothing about one of them.
        # (Not for de-duplication, where shared words are the point.)
        limit = max(1, n // 2) if drop_common and n >= 4 else n
        common = [t for t, c in df.most_common() if c <= limit]
        kept = common[:MAX_VOCABULARY]
        self.terms = kept
        self.index = {term: i for i, term in enumerate(kept)}
        self.idf = [math.log((1 + n) / (1 + df[t])) + 1.0 for t in kept]
        self.vectors = [self._vector(terms) for terms in counts]

    def _terms(self, text: str) -> Counter[str]:
        found = words(text)
        terms = Counter(found)
        if self.pairs:
            terms.update(f"{a} {b}" for a, b in itertools.pairwise(found))
        return terms

    def _vector(self, terms: Counter[str]) -> Vector:
        vector: Vector = {}
        for term, count in terms.items():
            i = self.index.get(term)
            if i is not None:
                vector[i] = (1.0 + math.log(count)) * self.idf[i]
        return normalised(vector)

    def vector(self, text: str) -> Vector:
        return self._vector(self._terms(text))


def normalised(vector: Vector) -> Vector:
    norm = math.sqrt(sum(v * v for v in vector.values()))
    return {i: v / norm for i, v in vector.items()} if norm else vector


def dense_to_sparse(values: Sequence[float]) -> Vector:
    return normalised({i: float(v) for i, v in enumerate(values) if v})


def cosine(a: Vector, b: Vector) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(i, 0.0) for i, v in a.items())


def topic_count(n: int) -> int:
    """How many topics n chunks are clustered into: about sqrt(n / 4), 1 to MAX_TOPICS."""
    if n < 8:
        return 1
    return max(2, min(MAX_TOPICS, round(math.sqrt(n / 4))))


def cluster(vectors: Sequence[Vector], k: int, seed: int = 0, rounds: int = 8) -> list[int]:
    """The cluster of each vector (0..k-1, largest cluster first): spherical k-means."""
    n = len(vectors)
    if k <= 1 or n <= k:
        return [0] * n if k <= 1 else list(range(n))
    rng = random.Random(seed)
    sample = list(range(n)) if n <= FIT_SAMPLE else sorted(rng.sample(range(n), FIT_SAMPLE))
    centroids = _seed_centroids([vectors[i] for i in sample], k, rng)
    for _ in range(rounds):
        labels = [_nearest(vectors[i], centroids) for i in sample]
        moved = _centroids([vectors[i] for i in sample], labels, k)
        for j, centroid in enumerate(moved):
            if centroid:
                centroids[j] = centroid
    labels = [_nearest(vector, centroids) for vector in vectors]
    order = [j for j, _ in Counter(labels).most_common()]
    order += [j for j in range(k) if j not in order]
    rank = {j: r for r, j in enumerate(order)}
    return [rank[label] for label in labels]


def _seed_centroids(vectors: list[Vector], k: int, rng: random.Random) -> list[Vector]:
    """k-means++ style: each next centre far from those chosen (on a small candidate set)."""
    chosen = [vectors[rng.randrange(len(vectors))]]
    candidates = rng.sample(vectors, min(len(vectors), 200))
    while len(chosen) < k:
        best = max(candidates, key=lambda v: min(1.0 - cosine(v, c) for c in chosen))
        chosen.append(best)
    return [dict(c) for c in chosen]


def _nearest(vector: Vector, centroids: list[Vector]) -> int:
    best, best_score = 0, -1.0
    for j, centroid in enumerate(centroids):
        score = 0.0
        get = centroid.get
        for i, v in vector.items():
            score += v * get(i, 0.0)
        if score > best_score:
            best, best_score = j, score
    return best


def _centroids(vectors: list[Vector], labels: list[int], k: int) -> list[Vector]:
    sums: list[dict[int, float]] = [{} for _ in range(k)]
    for vector, label in zip(vectors, labels, strict=True):
        total = sums[label]
        for i, v in vector.items():
            total[i] = total.get(i, 0.0) + v
    return [normalised(total) for total in sums]


def top_terms(vectors: Sequence[Vector], terms: Sequence[str], count: int = 3) -> list[str]:
    """The heaviest terms of a group of vectors (single words before pairs on ties)."""
    total: dict[int, float] = {}
    for vector in vectors:
        for i, v in vector.items():
            total[i] = total.get(i, 0.0) + v
    ranked = sorted(total.items(), key=lambda item: (-item[1], item[0]))
    found: list[str] = []
    for i, _ in ranked:
        term = terms[i]
        if any(term in f or f in term for f in found):
            continue
        found.append(term)
        if len(found) == count:
            break
    return found


def near_duplicates(vectors: Sequence[Vector], threshold: float) -> set[int]:
    """Indexes of vectors at least `threshold` similar to an earlier kept one."""
    dropped: set[int] = set()
    kept: list[int] = []
    # An inverted index of the kept vectors: only those sharing a term are compared.
    postings: dict[int, list[int]] = {}
    for index, vector in enumerate(vectors):
        candidates = {k for i in vector for k in postings.get(i, ())}
        if any(cosine(vector, vectors[k]) >= threshold for k in candidates):
            dropped.add(index)
            continue
        kept.append(index)
        for i in vector:
            postings.setdefault(i, []).append(index)
    return dropped


BALANCE_MIN_CHUNKS = 24  # a knowledge base this large has no topic over a third of it


def balanced(
    groups: list[list[int]], vectors: Sequence[Vector], total: int, keep: set[int]
) -> list[tuple[int, list[int]]]:
    """The groups, each larger than a third of `total` chunks split by clustering its
    members (`keep`: groups never split, release notes); each part with the index of the
    group it comes from. A group clustering cannot split (identical texts) is cut in
    runs of chunks in their order. Below BALANCE_MIN_CHUNKS, groups stay as they are."""
    limit = math.ceil(total / 3)
    out: list[tuple[int, list[int]]] = []
    for number, members in enumerate(groups):
        parts = [members]
        if total >= BALANCE_MIN_CHUNKS and number not in keep:
            for _ in range(4):  # k-means parts can be uneven: split what is still too big
                if all(len(part) <= limit for part in parts):
                    break
                parts = [piece for part in parts for piece in _split(part, vectors, limit)]
        out.extend((number, part) for part in parts)
    return out


def _split(members: list[int], vectors: Sequence[Vector], limit: int) -> list[list[int]]:
    if len(members) <= limit:
        return [members]
    k = math.ceil(len(members) / limit)
    labels = cluster([vectors[i] for i in members], k, seed=0)
    parts: dict[int, list[int]] = {}
    for index, label in zip(members, labels, strict=True):
        parts.setdefault(label, []).append(index)
    if len(parts) > 1:
        return [parts[label] for label in sorted(parts)]
    size = math.ceil(len(members) / k)  # nothing tells them apart: runs in their order
    return [members[i : i + size] for i in range(0, len(members), size)]


def allot(sizes: Sequence[int], need: int) -> list[int]:
    """How many of `need` questions each topic gets: one each (the largest topics first
    when there are more topics than questions), the rest in proportion to the topics'
    sizes (largest remainders), so a small topic still gets one and a topic ten times
    larger gets about ten times more."""
    count = len(sizes)
    if not count or need <= 0:
        return [0] * count
    order = sorted(range(count), key=lambda i: (-sizes[i], i))
    shares = [0] * count
    for i in order[:need]:
        shares[i] = 1
    rest = need - min(need, count)
    total = sum(sizes)
    if rest and total:
        exact = [rest * size / total for size in sizes]
        floors = [math.floor(x) for x in exact]
        left = rest - sum(floors)
        by_remainder = sorted(range(count), key=lambda i: (-(exact[i] - floors[i]), i))
        for i in by_remainder[:left]:
            floors[i] += 1
        shares = [a + b for a, b in zip(shares, floors, strict=True)]
    return shares
