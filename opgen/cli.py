"""The `opgen` command line: argument parsing and wiring of the layers, nothing else.

Every user mistake surfaces as an OpgenError, printed as `path:line:col: error: ...` with
exit status 2; nothing is written when a command fails.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import re
import sys
import traceback
from pathlib import Path
from typing import Callable, Sequence

from opgen import __version__
from opgen.config import Config, load_config
from opgen.errors import Location, OpgenError

Handler = Callable[[argparse.Namespace, Config], int]


def _add_spec_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("sources", nargs="*", help="C++ files, directories, globs or OpList files "
                   "(default: [tool.opgen] sources)")
    p.add_argument("-D", dest="defines", action="append", default=None, metavar="NAME[=V]",
                   help="preprocessor define")
    p.add_argument("-I", dest="include_dirs", action="append", default=None, metavar="DIR",
                   help="directory searched by #include \"...\"")
    p.add_argument("--allow", metavar="FILE", help="selective registration: file of op names to keep")
    p.add_argument("--include-internal", action="store_true", help="keep ops whose name starts with _")
    p.add_argument("--strict-includes", action="store_true", default=None,
                   help="a #include \"...\" that cannot be found is an error (default: a warning)")


def _gather(args: argparse.Namespace, config: Config, strict_kernels: bool = False):
    from opgen.spec.gather import gather

    sources = args.sources or [str(config.path(s)) for s in config.sources]
    result = gather(
        sources,
        defines=args.defines if args.defines is not None else list(config.defines),
        include_dirs=args.include_dirs if args.include_dirs is not None else
        [str(config.path(d)) for d in config.include_dirs],
        allow_file=args.allow or (str(config.path(config.allow)) if config.allow else None),
        include_internal=args.include_internal,
        helpers=config.helpers,
        strict_includes=args.strict_includes or config.strict_includes,
        strict_kernels=strict_kernels,
        cache=args.command == "build" and not args.dry_run,  # `--dry-run` writes no cache
    )
    for warning in result.warnings:
        print(warning, file=sys.stderr)
    return result


def _cmd_oplist(args: argparse.Namespace, config: Config) -> int:
    from opgen.fsutil import atomic_write

    if args.from_library:
        from opgen.runtime.backend import op_list_from_library
        from opgen.spec.oplist_io import check_op_list

        _require_tensorflow(args.from_library)
        op_list = op_list_from_library(args.from_library)
        check_op_list(op_list, args.from_library)
    else:
        op_list = _gather(args, config).op_list
    if args.api:
        from opgen.overrides import describe_api_model, load_overrides

        model = load_overrides(_overrides_dir(args, config), op_list, merge=config.merge_overrides)
        data = describe_api_model(model, op_list).encode()
    else:
        from opgen.spec.oplist_io import dump_op_list

        data = dump_op_list(op_list, args.format)
    if args.output:
        atomic_write(Path(args.output), data)
    else:
        sys.stdout.buffer.write(data)
    return 0


def _require_tensorflow(library: str) -> None:
    """`--from-library` loads the library into TensorFlow: without it, a user error."""
    try:
        import tensorflow  # noqa: F401
    except ImportError:
        raise OpgenError("--from-library needs TensorFlow to load the op library, and it is not installed",
                         Location(library), hint="pip install tensorflow-cpu, or give the library's REGISTER_OP "
                         "sources (or an OpList file) instead") from None


def _cmd_specs(args: argparse.Namespace, config: Config) -> int:
    from opgen.fsutil import atomic_write
    from opgen.spec.emit_cc import op_list_to_cc
    from opgen.spec.oplist_io import load_op_list_file

    op_list = load_op_list_file(args.oplist)
    cc = op_list_to_cc(op_list, skip_inexpressible=args.skip_inexpressible)
    atomic_write(Path(args.output), cc.encode())
    return 0


def _cmd_build(args: argparse.Namespace, config: Config) -> int:
    from opgen.pipeline import run_build

    return run_build(args, config, gather=lambda: _gather(args, config))


def _overrides_dir(args: argparse.Namespace, config: Config) -> str | Path | None:
    """`--overrides` (must exist), else the configured directory when it exists."""
    if args.overrides:
        return args.overrides
    configured = config.path(config.overrides) if config.overrides else None
    return configured if configured is not None and configured.exists() else None


def _cmd_overrides_check(args: argparse.Namespace, config: Config) -> int:
    from opgen.overrides import load_overrides

    op_list = _gather(args, config).op_list
    overrides_dir = _overrides_dir(args, config)
    model = load_overrides(overrides_dir, op_list, merge=config.merge_overrides)
    if overrides_dir is None:
        print("overrides OK: no override directory")
    else:
        print(f"overrides OK: {len(model.provenance)} of {len(op_list.op)} ops overridden by {overrides_dir}")
    return 0


def _cmd_api(args: argparse.Namespace, config: Config) -> int:
    from opgen.apidiff import run_api

    return run_api(args, config, _gather(args, config))


def _cmd_diff(args: argparse.Namespace, config: Config) -> int:
    from opgen.apidiff import run_diff

    return run_diff(args, config)


def _cmd_kernels(args: argparse.Namespace, config: Config) -> int:
    from opgen.kernels_command import run_kernels

    args.include_internal = True  # kernels of `_` ops are checked against their declarations too
    return run_kernels(args, _gather(args, config, strict_kernels=True))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="opgen", description="Generate Python op-wrapper modules from TensorFlow REGISTER_OP declarations, "
        "and review their API. Options default to [tool.opgen] in pyproject.toml; exit status 0 ok, "
        "1 stale or breaking, 2 user error.")
    parser.add_argument("--version", action="version", version=f"opgen {__version__}")
    parser.add_argument("--debug", action="store_true", help="print the traceback of an internal error")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("oplist", help="gather REGISTER_OP specs into an OpList")
    _add_spec_options(p)
    p.add_argument("--format", choices=["pbtxt", "pb", "json"], default="pbtxt")
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    p.add_argument("--overrides", metavar="DIR", help="override directory (with --api)")
    p.add_argument("--api", action="store_true", help="print the per-op Python API model after overrides")
    p.add_argument("--from-library", metavar="SO", help="read a compiled op library's OpList through TensorFlow")
    p.set_defaults(handler=_cmd_oplist)

    p = sub.add_parser("kernels", help="gather REGISTER_KERNEL_BUILDER registrations into a KernelList")
    _add_spec_options(p)
    p.add_argument("--format", choices=["pbtxt", "pb", "json", "md"], default="pbtxt",
                   help="md: per op, a table of devices x allowed types")
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    p.add_argument("--check", action="store_true",
                   help="exit 1 when the cross-check against the sources' ops reports a kernel")
    p.set_defaults(handler=_cmd_kernels)

    p = sub.add_parser("specs", help="write REGISTER_OP C++ (with Doc) for an OpList file")
    p.add_argument("oplist", help="OpList file (.pbtxt or .pb)")
    p.add_argument("-o", "--output", required=True, metavar="FILE.cc")
    p.add_argument("--skip-inexpressible", action="store_true",
                   help="write a comment for OpDefs REGISTER_OP cannot express instead of failing")
    p.set_defaults(handler=_cmd_specs)

    p = sub.add_parser("build", help="render gen_*_ops.py modules")
    _add_spec_options(p)
    p.add_argument("--overrides", metavar="DIR",
                   help="OpGenOverride/ApiDef override files ([tool.opgen] overrides, default overrides/)")
    p.add_argument("--templates", metavar="DIR",
                   help="Jinja templates replacing the shipped ones ([tool.opgen] templates)")
    p.add_argument("--out", metavar="DIR", help="output directory ([tool.opgen] out, default generated/)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; list each stale file and exit 1 when anything is stale")
    p.add_argument("--diff", action="store_true",
                   help="write nothing; print a unified diff (paths relative to the project root, "
                        "for git apply); with --check also exit 1 when anything is stale")
    p.add_argument("--dry-run", action="store_true", help="say what would change, write nothing")
    p.add_argument("--list-outputs", action="store_true", help="print the output paths and exit")
    p.add_argument("--depfile", metavar="FILE", help="write a make-style depfile")
    p.add_argument("--jobs", "-j", type=int, metavar="N",
                   help="render/format worker processes for large builds; 0 = one per core "
                        "([tool.opgen] jobs, default 1: fastest measured on 2 shared cores)")
    p.add_argument("--formatter", choices=["black", "ruff"], help="formatter (same bytes either way)")
    p.add_argument("--library", metavar="PATH",
                   help="compiled op library the generated modules load with tf.load_op_library on first "
                        "TensorFlow use: a path relative to the modules, or package:resource "
                        "([tool.opgen] library)")
    p.set_defaults(handler=_cmd_build)

    p = sub.add_parser("overrides", help="override files")
    osub = p.add_subparsers(dest="overrides_command", required=True)
    q = osub.add_parser("check", help="validate override files against the OpList")
    _add_spec_options(q)
    q.add_argument("--overrides", metavar="DIR")
    q.set_defaults(handler=_cmd_overrides_check)

    p = sub.add_parser("api", help="write the API snapshot of the generated modules")
    _add_spec_options(p)
    p.add_argument("--overrides", metavar="DIR")
    p.add_argument("--format", choices=["md", "json"], default="md")
    p.add_argument("-o", "--output", metavar="FILE")
    p.set_defaults(handler=_cmd_api)

    p = sub.add_parser("diff", help="compare two APIs and classify the changes")
    p.add_argument("old", nargs="?", help="spec tree, OpList file, API snapshot (or a git revision with --git)")
    p.add_argument("new", nargs="?", help="same kinds as OLD (default: the work tree)")
    p.add_argument("--git", metavar="REV", help="read OLD from this git revision")
    p.add_argument("--format", choices=["text", "md", "json", "github"], default="text")
    p.add_argument("--allow-breaking", action="store_true", help="exit 0 even on breaking changes")
    p.set_defaults(handler=_cmd_diff)
    return parser


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_safe(text: str) -> str:
    """`text` with terminal control characters (escape sequences, carriage returns, ...)
    spelled as `\\xNN`, so echoed input cannot drive the terminal; newlines and tabs stay."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _report(text: str) -> None:
    with contextlib.suppress(OSError, ValueError):  # stderr closed: the exit status still tells
        print(terminal_safe(text), file=sys.stderr)


def os_error(e: OSError) -> OpgenError:
    """An OS error no layer located (a write to `-o`, `--depfile`, stdout, ...): the file it
    concerns and the system's reason."""
    where = e.filename if isinstance(e.filename, (str, bytes)) else None
    if isinstance(where, bytes):
        where = where.decode("utf-8", "backslashreplace")
    reason = e.strerror or str(e)
    return OpgenError(f"cannot access file: {reason}" if where else f"I/O error: {reason}",
                      Location(where) if where else None)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. The only error boundary: user and I/O errors print located and exit 2,
    a bug prints one line (its traceback only with --debug) and exits 1."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv  # accepted anywhere on the line
    if sys.stdout is None:  # started with file descriptor 1 closed
        sys.stdout = _ClosedStdout()  # type: ignore[assignment]
    args = build_parser().parse_args([a for a in argv if a != "--debug"])
    try:
        config = load_config()
        status = args.handler(args, config)
        sys.stdout.flush()
        return status
    except OpgenError as e:
        _report(e.format())
        return e.exit_code
    except KeyboardInterrupt:
        _report("opgen: interrupted")
        return 130
    except OSError as e:  # stdout closed (EPIPE), disk full on -o, -o naming a directory, ...
        if isinstance(e, BrokenPipeError) or e.errno == errno.EPIPE:
            _silence_stdout()
            _report("opgen: error: standard output was closed before everything was written")
        else:
            _report(os_error(e).format())
        return 2
    except Exception as e:  # noqa: BLE001 - the boundary: a bug must not dump a traceback on users
        if debug:
            traceback.print_exc()
        _report(f"opgen: internal error, please report ({e!r}); rerun with --debug for the traceback")
        return 1


class _ClosedStdout:
    """Stands in for a closed standard output: writing fails like an OS write would."""

    def write(self, data) -> int:
        raise OSError(errno.EBADF, "standard output is closed", "<stdout>")

    def flush(self) -> None:
        pass

    @property
    def buffer(self):
        return self


def _silence_stdout() -> None:
    """After EPIPE, point stdout at /dev/null so the interpreter's final flush stays quiet."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
