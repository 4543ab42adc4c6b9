"""`opgen diff`: two APIs compared and each change classified (`opgen.apidiff.compare`)."""

from __future__ import annotations

from dataclasses import dataclass

from opgen.settings import Settings as _Settings


@dataclass(frozen=True, kw_only=True)
class Settings(_Settings):
    old: str | None = None
    new: str | None = None
    git: str | None = None
    format: str = "text"
    allow_breaking: bool = False


def run(settings: Settings) -> int:
    from opgen.apidiff.compare import run_diff

    return run_diff(settings, settings.config)
