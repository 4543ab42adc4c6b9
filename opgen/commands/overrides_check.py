"""`opgen overrides check`: the override files validated against the OpList of the sources."""

from __future__ import annotations

from dataclasses import dataclass

from opgen.settings import Settings as _Settings
from opgen.settings import SpecInput


@dataclass(frozen=True, kw_only=True)
class Settings(_Settings):
    input: SpecInput
    overrides: str | None = None


def run(settings: Settings) -> int:
    from opgen.errors import printable_path
    from opgen.overrides.load import load_overrides

    op_list = settings.input.gather().op_list
    model = load_overrides(settings.overrides, op_list, merge=settings.config.merge_overrides)
    if not settings.quiet:
        print("overrides OK: no override directory" if settings.overrides is None else
              f"overrides OK: {len(model.provenance)} of {len(op_list.op)} ops overridden by "
              f"{printable_path(settings.overrides)}")
    return 0
