"""tiktoken without its downloads: its encodings are fetched on first use, which no
machine of this bench can (only package registries are reached), so words stand in for
tokens. Imported first by the peers' drivers that count tokens (Ragas, DeepEval)."""

import tiktoken


class _WordEncoding:
    """Each distinct word a token."""

    name = "cl100k_base"

    def __init__(self) -> None:
        self.words: list[str] = []
        self.ids: dict[str, int] = {}

    def encode(self, text: str, **_: object) -> list[int]:
        found = []
        for word in text.split():
            if word not in self.ids:
                self.ids[word] = len(self.words)
                self.words.append(word)
            found.append(self.ids[word])
        return found

    def decode(self, tokens: list[int], **_: object) -> str:
        return " ".join(self.words[t] for t in tokens)


_ENCODING = _WordEncoding()
tiktoken.get_encoding = lambda name: _ENCODING  # type: ignore[assignment]
tiktoken.encoding_for_model = lambda name: _ENCODING  # type: ignore[assignment]
