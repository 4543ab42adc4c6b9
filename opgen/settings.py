"""What a command runs with: the options given on its command line, else `[tool.opgen]`.

The rule "the option, else `[tool.opgen]`, else opgen's default" is written here once, as
black writes it: `option_defaults` turns a `Config` into the values of the options that
stand for its keys, and the CLI hands them to click as the command's `default_map`, so an
option given on the command line wins and click resolves everything in one pass. The
commands read the result as frozen dataclasses (`Settings` and each command's subclass in
`opgen/commands/`); `SpecInput` is what every command that gathers REGISTER_OP sources
takes, also when a project is read without a command line (`opgen diff` sides).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from opgen.config import Config
from opgen.errors import Location, report

if TYPE_CHECKING:
    from opgen.model import GatherResult


def option_defaults(config: Config) -> dict[str, Any]:
    """`[tool.opgen]` by the name of the option that overrides each key: paths resolved
    against the pyproject.toml directory (an option's path is relative to the working
    directory instead); `overrides` only when its directory exists (left unset it is
    optional; set, `config.check_paths` has made sure it exists). Keys without a value
    are left out, so the option's own default applies."""
    overrides = config.path(config.overrides) if config.overrides else None
    values: dict[str, Any] = {
        "sources": config.source_paths(),
        "exclude": config.exclude_patterns(),
        "defines": list(config.defines),
        "undefines": list(config.undefines),
        "include_dirs": [str(config.path(d)) for d in config.include_dirs],
        "allow": str(config.path(config.allow)) if config.allow else None,
        "strict_includes": config.strict_includes,
        "include_internal": config.include_internal,
        "strict_defines": config.strict_defines,
        "overrides": str(overrides) if overrides is not None and overrides.exists() else None,
        "templates": str(config.path(config.templates)) if config.templates else None,
        "formatter": config.formatter,
        "jobs": config.jobs,
        "max_ops_per_module": config.max_ops_per_module,
        "library": config.library,
        "out": str(config.path(config.out)),
        "warnings_as_errors": config.warnings_as_errors,
    }
    return {key: value for key, value in values.items() if value is not None}


@dataclass(frozen=True, kw_only=True)
class SpecInput:
    """The REGISTER_OP sources a command gathers and how (`opgen.spec.gather.gather`)."""

    sources: tuple[str, ...]  # C++ files, directories, globs, OpList files (`Config.source_paths` kinds)
    exclude: tuple[str, ...] = ()  # globs of files (or directories) of directory and glob sources not to read
    defines: tuple[str, ...] = ()
    undefines: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    allow: str | None = None
    include_internal: bool = False
    strict_includes: bool = False
    strict_defines: bool = False
    helpers: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # [tool.opgen.helpers] only
    core_ops: tuple[str, ...] = ()  # [tool.opgen] core_ops only
    external_includes: tuple[str, ...] = ()  # [tool.opgen] external_includes only
    # where each `helpers` key is written in pyproject.toml, for errors in its text
    helper_locations: Mapping[str, Location] = field(default_factory=lambda: MappingProxyType({}), compare=False)
    # `exclude` patterns of [tool.opgen] exclude: the entry as written and where, for the warning
    # about an entry that matches nothing
    exclude_origins: Mapping[str, tuple[str, Location]] = field(default_factory=lambda: MappingProxyType({}),
                                                                compare=False)

    # the options (and `option_defaults` keys) that are fields
    OPTIONS = ("sources", "exclude", "defines", "undefines", "include_dirs", "allow", "include_internal",
               "strict_includes", "strict_defines")

    @classmethod
    def from_options(cls, options: Mapping[str, Any], config: Config) -> SpecInput:
        """From resolved option values (a command's, or `option_defaults`), with the keys no
        option sets from `config`."""
        given: dict[str, Any] = {key: tuple(value) if isinstance(value, (list, tuple)) else value
                 for key, value in options.items() if key in cls.OPTIONS}
        origins = {pattern: (entry, config.where("exclude", i))
                   for i, (pattern, entry) in enumerate(zip(config.exclude_patterns(), config.exclude))}
        return cls(**given, helpers=MappingProxyType(dict(config.helpers)), core_ops=tuple(config.core_ops),
                   external_includes=tuple(config.external_includes),
                   helper_locations=MappingProxyType({name: config.where("helpers", name) for name in config.helpers}),
                   exclude_origins=MappingProxyType(origins))

    @classmethod
    def from_config(cls, config: Config, sources: Iterable[str] | None = None) -> SpecInput:
        """A project's input as configured (or `sources`, with its defines and helpers)."""
        options = option_defaults(config)
        if sources is not None:
            options["sources"] = list(sources)
        return cls.from_options(options, config)

    def reads_configured_sources(self, config: Config) -> bool:
        """Whether these are `config`'s [tool.opgen] sources, not sources named on the command
        line instead (`opgen build ops/a.cc`)."""
        return self.sources == tuple(config.source_paths())

    def gather(self, *, strict_kernels: bool = False, cache: bool = False, require_ops: bool = False,
               warn: Callable[[str], None] = report, jobs: int = 0) -> GatherResult:
        """The GatherResult (`opgen.spec.gather.gather` says what the flags do)."""
        from opgen.spec.gather import gather

        return gather(
            list(self.sources),
            exclude=list(self.exclude),
            defines=list(self.defines),
            include_dirs=list(self.include_dirs),
            allow_file=self.allow,
            include_internal=self.include_internal,
            helpers=dict(self.helpers),
            strict_includes=self.strict_includes,
            strict_kernels=strict_kernels,
            cache=cache,
            require_ops=require_ops,
            warn=warn,
            jobs=jobs,
            undefines=list(self.undefines),
            strict_defines=self.strict_defines,
            core_ops=self.core_ops,
            external_includes=self.external_includes,
            helper_locations=self.helper_locations,
            exclude_origins=self.exclude_origins,
        )


@dataclass(frozen=True, kw_only=True)
class Settings:
    """What every command runs with; each command's `Settings` adds its own options."""

    config: Config  # [tool.opgen] keys no option sets (modules, api, ...) and the located errors
    quiet: bool = False
    verbose: bool = False

    @classmethod
    def field_names(cls) -> set[str]:
        return {f.name for f in fields(cls)}
