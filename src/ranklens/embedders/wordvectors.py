"""Averaged static word vectors as sentence embedders.

Two sources of word vectors:

- :class:`WordVectorFileEmbedder` (spec ``wordvec:PATH``): pre-trained vectors, as the N2O paper
  used (GoogleNews word2vec, GloVe 6B/840B, fastText wiki/cc): a word2vec text file (first line
  ``<count> <dim>``), a GloVe text file (no header line), a word2vec binary file (read with
  gensim's ``KeyedVectors.load_word2vec_format``) or a fastText ``.bin`` model (read with
  gensim's ``load_facebook_vectors``: out-of-vocabulary words get vectors from their character
  n-grams, as the paper's fastText "-sub" embedders did).
- :class:`TrainedWordVectorEmbedder` (specs ``word2vec``, ``fasttext``, ``fasttext-nosub``):
  gensim ``Word2Vec`` or ``FastText`` trained on a corpus of texts (ranklens trains on the
  neighbour corpus because no pretrained vectors ship with it). **This is a deviation**: the
  paper used pretrained vectors trained on billions of tokens; vectors trained on a few thousand
  sentences are much noisier, so give ``wordvec:PATH`` to reproduce the paper.

A text's embedding is the mean of the vectors of its word tokens (:func:`ranklens.text.word_tokens`).
``tokenizer="paper"`` (the default) tokenizes as the paper did (App. A): spaCy's tokenizer for
word2vec and GloVe files and for ``word2vec`` trained vectors ("don't" -> "do" + "n't",
punctuation kept), fastText's own whitespace split for fastText models and ``fasttext`` trained
vectors. ``"spacy"``, ``"fasttext"`` and ``"ranklens"`` (letter/digit runs, contractions whole,
punctuation dropped: the ranklens tokenizer before this option) choose one for every file. The
paper averaged with spaCy's ``Doc.vector``, which counts a token without a vector as a zero
vector; ranklens skips it -- the same direction, so the same cosine neighbours.
Lookups in a vectors file keep the case of the text (``case="preserve"``, the default): cased
vectors (GoogleNews, GloVe 840B, fastText) are looked up as written ("Paris" gets "Paris"'s
vector), and a token missing in its written case falls back to its lower-case form, so uncased
vectors (GloVe 6B, which the paper looked up in lower case) work too. ``case="lower"``
lower-cases every token first (the old behaviour), ``case="exact"`` has no fallback. Tokens without
a vector are skipped (fastText with subwords has a vector for every token, built from its
n-grams); a text with no known token gets the zero vector, whose cosine similarity to everything
is 0. Trained vectors are trained on and looked up in lower case.

Determinism: training is single-threaded (``workers=1``) with a fixed ``seed`` and a stable
string hash for the initial vectors (gensim's default is Python's salted ``hash``, which
changes between processes), so the same corpus, parameters and seed give the same vectors in
every process. The fingerprint holds a SHA-256 of the corpus (or of the vectors file) plus every
training parameter and the seed, so cached embeddings never outlive the vectors they came from.
"""

from __future__ import annotations

import pickle
import tempfile
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .._hashing import sha256_file, sha256_texts
from .._lazy import require
from ..errors import DataFormatError, ValidationError
from ..text import WORD_TOKENIZERS, word_tokenizer_version, word_tokens
from ..rankers.base import named_fingerprint
from .base import BaseEmbedder

__all__ = ["CASES", "TrainedWordVectorEmbedder", "WordVectorFileEmbedder", "average_word_vectors", "case_lookup",
           "is_fasttext_bin"]


def _stable_hash(text: str) -> int:
    """Process-independent replacement for gensim's default ``hashfxn=hash``."""
    return zlib.crc32(text.encode("utf-8"))


def average_word_vectors(
    tokens_per_text: Sequence[Sequence[str]], lookup: Any, dim: int
) -> npt.NDArray[np.float32]:
    """Mean vector of the tokens of each text (tokens without a vector are skipped).

    Args:
        tokens_per_text: one token list per text.
        lookup: gensim ``KeyedVectors`` (``key in kv`` and ``kv[key]``).
        dim: vector dimension (row of zeros for texts with no known token).

    Returns:
        float32 array ``(n, dim)``.
    """
    out = np.zeros((len(tokens_per_text), dim), dtype=np.float32)
    for i, toks in enumerate(tokens_per_text):
        known = [t for t in toks if t in lookup]
        if known:
            out[i] = np.asarray(lookup[known], dtype=np.float32).mean(axis=0)
    return out


CASES = ("preserve", "lower", "exact")
_TOKEN_CHUNK = 4096  # texts tokenized at a time for training
_FASTTEXT_MAGIC = 793712314  # first int32 of a fastText .bin model


def case_lookup(token: str, lookup: Any, case: str) -> str | None:
    """The key ``token`` is looked up under, or ``None`` when it has no vector.

    ``"preserve"``: the token as written if it is in the vocabulary, else its lower-case form if
    that is; ``"exact"``: as written only; ``"lower"``: the lower-case form only. With a fastText
    model (subword vectors) a token in neither form still gets its n-gram vector, as written.
    """
    vocab = getattr(lookup, "key_to_index", lookup)
    key = token.lower() if case == "lower" else token
    if key in vocab:
        return key
    if case == "preserve" and token.lower() in vocab:
        return token.lower()
    return key if key in lookup else None  # fastText: subword vector of an unknown word


def is_fasttext_bin(path: Path) -> bool:
    """True when ``path`` starts with the fastText binary model magic number."""
    with open(path, "rb") as f:
        head = f.read(4)
    return len(head) == 4 and int.from_bytes(head, "little") == _FASTTEXT_MAGIC


def _detect_format(path: Path) -> tuple[bool, bool]:
    """(binary, has_header) of a word-vectors file, from its first line."""
    with open(path, "rb") as f:
        first = f.readline(1 << 16)
    if not first:
        raise DataFormatError("empty word-vectors file", path=path, line=1)
    parts = first.split()
    header = len(parts) == 2 and all(p.isdigit() for p in parts)
    if header:
        with open(path, "rb") as f:
            f.readline()
            chunk = f.read(4096)
        try:
            chunk.decode("utf-8")
            binary = False
        except UnicodeDecodeError:
            binary = True
        return binary, True
    return False, False


@dataclass(kw_only=True)
class WordVectorFileEmbedder(BaseEmbedder):
    """Average of pre-trained word vectors read from a word2vec/GloVe file or a fastText model.

    Args:
        path: the vectors file (``.txt``/``.vec`` text with or without a ``count dim`` header,
            i.e. word2vec or GloVe text, word2vec ``.bin``, or a fastText ``.bin`` model, which is
            detected by its magic number and gives subword vectors for unknown words).
        binary: force binary (``True``) or text (``False``) word2vec; ``None`` detects it.
        case: ``"preserve"`` (as written, lower-case fallback; default), ``"lower"`` or
            ``"exact"`` (module docstring).
        tokenizer: ``"paper"`` (default: fastText's whitespace split for a fastText model,
            spaCy's tokenizer otherwise), ``"spacy"``, ``"fasttext"`` or ``"ranklens"``.
        batch_size: texts per engine call.
    """

    path: str
    binary: bool | None = None
    case: str = "preserve"
    tokenizer: str = "paper"
    batch_size: int = 256

    def __post_init__(self) -> None:
        if self.case not in CASES:
            raise ValidationError(f"WordVectorFileEmbedder: case must be one of {CASES}, got {self.case!r}")
        _check_tokenizer(self.tokenizer, "WordVectorFileEmbedder")

    @property
    def word_tokenizer(self) -> str:
        """The tokenizer used: ``tokenizer`` with ``"paper"`` resolved for this file."""
        if self.tokenizer != "paper":
            return self.tokenizer
        return "fasttext" if Path(self.path).is_file() and is_fasttext_bin(Path(self.path)) else "spacy"

    @property
    def name(self) -> str:
        return f"wordvec:{Path(self.path).name}"

    def _revision(self) -> str:
        p = Path(self.path)
        if not p.is_file():
            raise DataFormatError("word-vectors file not found; pass an existing path", path=p)
        return f"{sha256_file(p)}|{word_tokenizer_version(self.word_tokenizer)}"

    def _load(self) -> Any:
        gensim_models = require("gensim.models", feature="word-vector embedders")
        p = Path(self.path)
        if not p.is_file():
            raise DataFormatError("word-vectors file not found; pass an existing path", path=p)
        if is_fasttext_bin(p):
            from gensim.models.fasttext import load_facebook_vectors

            try:
                return load_facebook_vectors(str(p))
            except (ValueError, EOFError, NotImplementedError) as exc:
                raise DataFormatError(f"cannot read the fastText model: {exc}", path=p) from exc
        binary, header = _detect_format(p)
        if self.binary is not None:
            binary = self.binary
        try:
            return gensim_models.KeyedVectors.load_word2vec_format(
                str(p), binary=binary, no_header=not header and not binary
            )
        except (ValueError, UnicodeDecodeError, EOFError) as exc:
            raise DataFormatError(
                f"cannot read word vectors ({'binary' if binary else 'text'} word2vec/GloVe format "
                f"expected; pass binary=True/False to override detection): {exc}",
                path=p,
            ) from exc

    def dimension(self) -> int:
        return int(self._model().vector_size)

    def _encode_batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        kv = self._model()
        toks = [[case_lookup(t, kv, self.case) for t in ts] for ts in word_tokens(texts, self.word_tokenizer)]
        return average_word_vectors([[t for t in ts if t is not None] for ts in toks], kv, kv.vector_size)


@dataclass(kw_only=True)
class TrainedWordVectorEmbedder(BaseEmbedder):
    """Average of word vectors trained with gensim on ``corpus`` (lazily, on first encode).

    Not the paper's embedders (it used pretrained vectors, see the module docstring): a
    stand-in when no vectors file is at hand. Tokens are lower-cased for training and lookup.

    Args:
        corpus: training texts (tokenized as ``tokenizer`` says, then lower-cased).
        tokenizer: ``"paper"`` (default: spaCy's tokenizer for word2vec, fastText's whitespace
            split for fastText, as the paper tokenized for those embedders), ``"spacy"``,
            ``"fasttext"`` or ``"ranklens"``.
        method: ``"word2vec"`` or ``"fasttext"``.
        subwords: FastText only: use character n-grams (``min_n..max_n``); ``False`` trains
            FastText without subwords (``max_n=0``), i.e. whole-word vectors only.
        vector_size, window, min_count, epochs, sg, negative: gensim training parameters
            (``sg=1`` skip-gram, ``0`` CBOW).
        min_n, max_n: FastText character n-gram lengths when ``subwords`` is true.
        seed: random seed; training uses one worker thread, so results are reproducible.
        batch_size: texts per engine call.
    """

    corpus: tuple[str, ...] = field(repr=False)
    method: Literal["word2vec", "fasttext"] = "word2vec"
    subwords: bool = True
    vector_size: int = 100
    window: int = 5
    min_count: int = 1
    epochs: int = 5
    sg: int = 0
    negative: int = 5
    min_n: int = 3
    max_n: int = 6
    seed: int = 0
    tokenizer: str = "paper"
    batch_size: int = 256
    _corpus_hash: str | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.corpus, tuple):
            # an immutable copy, so later changes to the caller's list cannot change us
            self.corpus = tuple(self.corpus)
        if self.method not in ("word2vec", "fasttext"):
            raise ValidationError(f"method must be 'word2vec' or 'fasttext', got {self.method!r}")
        for i, t in enumerate(self.corpus):
            if not isinstance(t, str):
                raise ValidationError(f"corpus[{i}] must be str, got {type(t).__name__}")
        if not self.corpus:
            raise ValidationError("corpus is empty: word vectors need training texts")
        _check_tokenizer(self.tokenizer, "TrainedWordVectorEmbedder")

    @property
    def word_tokenizer(self) -> str:
        """The tokenizer used: ``tokenizer`` with ``"paper"`` resolved for this method."""
        if self.tokenizer != "paper":
            return self.tokenizer
        return "spacy" if self.method == "word2vec" else "fasttext"

    def _token_chunks(self, texts: Sequence[str]) -> Iterator[list[list[str]]]:
        """Lower-cased tokens of each text, ``_TOKEN_CHUNK`` texts at a time; each distinct
        token one shared string (token lists hold pointers, not a string per occurrence)."""
        pool: dict[str, str] = {}
        for i in range(0, len(texts), _TOKEN_CHUNK):
            yield [[pool.setdefault(w, w) for w in map(str.lower, ts)]
                   for ts in word_tokens(list(texts[i:i + _TOKEN_CHUNK]), self.word_tokenizer)]

    def _tokens(self, texts: Sequence[str]) -> list[list[str]]:
        """Lower-cased tokens of each text (:meth:`_token_chunks`, joined)."""
        return [ts for chunk in self._token_chunks(texts) for ts in chunk]

    @property
    def name(self) -> str:
        if self.method == "word2vec":
            return "word2vec"
        return "fasttext" if self.subwords else "fasttext-nosub"

    def _params_for_fingerprint(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "subwords": self.subwords if self.method == "fasttext" else None,
            "vector_size": self.vector_size,
            "window": self.window,
            "min_count": self.min_count,
            "epochs": self.epochs,
            "sg": self.sg,
            "negative": self.negative,
            "min_n": self.min_n,
            "max_n": self.max_n,
            "seed": self.seed,
            "tokenizer": word_tokenizer_version(self.word_tokenizer),
        }

    def corpus_hash(self) -> str:
        """SHA-256 of the training texts (order matters)."""
        if self._corpus_hash is None:
            self._corpus_hash = sha256_texts(self.corpus)
        return self._corpus_hash

    @property
    def fingerprint(self) -> str:
        payload = {
            "class": "ranklens.embedders.wordvectors.TrainedWordVectorEmbedder",
            "params": self._params_for_fingerprint(),
            "corpus": self.corpus_hash(),
            "gensim": _gensim_version(),
        }
        return named_fingerprint("TrainedWordVectorEmbedder", payload)

    def _load(self) -> Any:
        gensim_models = require("gensim.models", feature="trained word-vector embedders")
        with tempfile.TemporaryDirectory(prefix="ranklens-wordvec-") as tmp:
            sentences = _TokenFile(Path(tmp) / "tokens.pkl", self._token_chunks(self.corpus))
            if not sentences.n:
                raise ValidationError("corpus has no word tokens to train word vectors on")
            return self._train(gensim_models, sentences)

    def _train(self, gensim_models: Any, sentences: Iterable[list[str]]) -> Any:
        common = dict(
            sentences=sentences,
            vector_size=self.vector_size,
            window=self.window,
            min_count=self.min_count,
            epochs=self.epochs,
            sg=self.sg,
            negative=self.negative,
            seed=self.seed,
            workers=1,
            hashfxn=_stable_hash,
        )
        if self.method == "word2vec":
            model = gensim_models.Word2Vec(**common)
        else:
            if self.subwords:
                model = gensim_models.FastText(min_n=self.min_n, max_n=self.max_n, **common)
            else:
                model = gensim_models.FastText(min_n=1, max_n=0, **common)
        return model.wv

    def dimension(self) -> int:
        return int(self.vector_size)

    def _encode_batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        kv = self._model()
        toks = self._tokens(texts)
        if self.method == "fasttext" and self.subwords:
            # every token has a vector (from its character n-grams), even out of vocabulary
            out = np.zeros((len(texts), kv.vector_size), dtype=np.float32)
            for i, ts in enumerate(toks):
                if ts:
                    out[i] = np.mean([kv.get_vector(t) for t in ts], axis=0)
            return out
        return average_word_vectors(toks, kv, kv.vector_size)


class _TokenFile:
    """A training corpus's token lists on disk in pickled chunks (written and read only here): a
    restartable iterable for gensim, which reads it once for the vocabulary and once per epoch,
    holding one chunk at a time instead of every token list of the corpus (empty lists left out)."""

    def __init__(self, path: Path, chunks: Iterable[list[list[str]]]) -> None:
        from ..files import atomic_output

        self.path = path
        self.n = 0
        # a full temp disk: an OutputError naming the file and the fix, no half file left
        with atomic_output(path, what="word-vector training token file (in the temp directory: point TMPDIR at "
                                      "a disk with room)") as tmp, open(tmp, "wb") as f:
            for chunk in chunks:
                chunk = [ts for ts in chunk if ts]
                if chunk:
                    pickle.dump(chunk, f, protocol=pickle.HIGHEST_PROTOCOL)
                    self.n += len(chunk)

    def __iter__(self) -> Iterator[list[str]]:
        with open(self.path, "rb") as f:
            while True:
                try:
                    chunk = pickle.load(f)
                except EOFError:
                    return
                yield from chunk


def _check_tokenizer(tokenizer: str, owner: str) -> None:
    if tokenizer != "paper" and tokenizer not in WORD_TOKENIZERS:
        raise ValidationError(f"{owner}: tokenizer must be 'paper' or one of {WORD_TOKENIZERS}, got {tokenizer!r}")


def _gensim_version() -> str:
    try:
        from importlib.metadata import version

        return version("gensim")
    except Exception:  # pragma: no cover - metadata missing
        return "unknown"
