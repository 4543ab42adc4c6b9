"""Lists of fnmatch globs matched against many names (`[tool.opgen.modules]` on op names,
`[tool.opgen.libraries]` on module names, `external_includes` on include targets): a glob is
tried only on names its literal prefix starts, so thousands of globs against thousands of
names cost about one match per name, not one per pair."""

from __future__ import annotations

import fnmatch
import functools
from collections.abc import Iterable, Iterator


class GlobList:
    """Globs in their order (case-sensitive, as `fnmatch.fnmatchcase`)."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(patterns)
        # each glob's index under its literal prefix (the text before its first `*`, `?` or `[`)
        self._by_prefix: dict[str, list[int]] = {}
        for index, pattern in enumerate(self.patterns):
            cut = min((pattern.find(c) for c in "*?[" if c in pattern), default=len(pattern))
            self._by_prefix.setdefault(pattern[:cut], []).append(index)
        self._prefix_lengths = sorted({len(prefix) for prefix in self._by_prefix})

    def _candidates(self, name: str) -> Iterator[int]:
        for length in self._prefix_lengths:
            if length > len(name):
                return
            yield from self._by_prefix.get(name[:length], ())

    def matching(self, name: str) -> list[str]:
        """Every glob that matches `name`, in the list's order."""
        found = sorted(i for i in self._candidates(name) if fnmatch.fnmatchcase(name, self.patterns[i]))
        return [self.patterns[i] for i in found]

    def first(self, name: str) -> str | None:
        """The first glob (in the list's order) that matches `name`, or None."""
        best = None
        for index in self._candidates(name):
            if (best is None or index < best) and fnmatch.fnmatchcase(name, self.patterns[index]):
                best = index
        return None if best is None else self.patterns[best]


@functools.lru_cache(maxsize=64)
def glob_list(patterns: tuple[str, ...]) -> GlobList:
    """The GlobList of `patterns`, built once per list (callers ask per name)."""
    return GlobList(patterns)
