"""``openhip hipify``: translate CUDA sources to HIP.

Accepts hipify-clang's option names (``--roc``, ``--miopen``, ``--hip-kernel-execution-syntax``,
``--experimental``, ``--amap``, ``--default-preprocessor``, ``-o``, ``--o-dir``,
``--local-headers``, ``--local-headers-recursive``, ``-p`` ...) and hipify-perl's single-dash
spellings (``-inplace``, ``-print-stats``, ``-examine``, ``-quiet-warnings``, ``-o=FILE``).

``--local-headers`` also translates the headers a source includes with quotes (found in its
directory, then the ``-I`` directories), each to ``HEADER.hip`` beside it as hipify-clang does
(under ``--output-dir`` with the source's layout when the header lies below the source's root;
in place with ``--inplace``); ``--local-headers-recursive`` follows their quoted includes too.
``-p DIR`` reads ``DIR/compile_commands.json``: without sources every file in it is translated,
and each file gets its entry's ``-D`` and ``-I`` options. Exit status: 0 when every file was
translated, 1 when any file failed (the others are still done), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path

from openhip.hipify import HipifyError, HipifyOptions, Stats, compdb, hipify, maps
from openhip.hipify.files import backup, discover, encode, read_source, write_text
from openhip.hipify.lexer import tokenize
from openhip.hipify.local_headers import local_headers
from openhip.hipify.local_headers import output_path as header_output_path
from openhip.hipify.preprocessor import inactive_ranges

#: hipify-perl's single-dash long options (``-inplace`` means ``--inplace``).
_PERL_OPTIONS = {
    "inplace", "print-stats", "examine", "quiet-warnings", "no-output", "roc", "experimental",
    "hip-kernel-execution-syntax", "cuda-kernel-execution-syntax", "help", "version", "whitelist",
    "exclude-dirs", "exclude-files", "amap", "miopen", "no-backup",
    "use-hip-data-types", "default-preprocessor", "skip-excluded-preprocessor-conditional-blocks",
    "o-dir", "output-dir", "local-headers", "local-headers-recursive",
}
_MAPS_SOURCE = "HIPIFY amd-staging 014177bc (HIP 6.3.0)"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="openhip hipify",
        description="Translate CUDA sources to HIP (hipify-clang and hipify-perl options accepted).",
        epilog="Directories are searched for " + " ".join(
            ("*.cu", "*.cuh", "*.cpp", "*.cxx", "*.cc", "*.c", "*.h", "*.hpp", "*.inl")
        ) + ". Options after '--' are compiler options: -D is used, the rest ignored.",
    )
    p.add_argument("sources", nargs="*", help="files or directories to translate")
    out = p.add_argument_group("output")
    out.add_argument("-o", "--o", dest="output", metavar="FILE", help="output file (one input only)")
    out.add_argument("--output-dir", "--o-dir", dest="output_dir", metavar="DIR",
                     help="write outputs under DIR, keeping the layout of the inputs")
    out.add_argument("--inplace", action="store_true",
                     help="overwrite each input, keeping the original as FILE.prehip (once)")
    out.add_argument("--no-backup", action="store_true", help="with --inplace: no .prehip backup")
    out.add_argument("--no-output", action="store_true", help="write no translated output")
    out.add_argument("--print-stats", action="store_true", help="print translation statistics")
    out.add_argument("--examine", action="store_true", help="--no-output plus --print-stats")
    out.add_argument("--quiet-warnings", action="store_true", help="do not print warnings")
    out.add_argument("--encoding", default="utf-8",
                     help="source encoding (default utf-8; bytes invalid in it are kept as they are)")
    out.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                     help="progress bar for trees (default: when stderr is a terminal)")
    tr = p.add_argument_group("translation")
    tr.add_argument("--hip-kernel-execution-syntax", action="store_true",
                    help="rewrite k<<<...>>>(...) as hipLaunchKernelGGL(...)")
    tr.add_argument("--cuda-kernel-execution-syntax", action="store_true",
                    help="keep the <<<...>>> launch syntax (default)")
    tr.add_argument("--roc", action="store_true", help="translate to roc* libraries where possible")
    tr.add_argument("--miopen", action="store_true", help="translate cuDNN to MIOpen")
    tr.add_argument("--experimental", action="store_true", help="translate experimental HIP APIs")
    tr.add_argument("--use-hip-data-types", action="store_true",
                    help="keep hipDataType for cudaDataType even with --roc")
    tr.add_argument("--skip-excluded-preprocessor-conditional-blocks", "--default-preprocessor",
                    dest="skip_blocks", action="store_true",
                    help="leave code in inactive #if branches untouched")
    tr.add_argument("--amap", action="store_true",
                    help="translate as much as possible (overrides --default-preprocessor)")
    tr.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                    help="define a macro for --default-preprocessor")
    tr.add_argument("-I", dest="includes", action="append", default=[], metavar="DIR",
                    help="directory searched for the headers of --local-headers")
    tr.add_argument("--local-headers", action="store_true",
                    help="also translate the headers the sources include with quotes, each to "
                         "HEADER.hip beside it (hipify-clang's naming)")
    tr.add_argument("--local-headers-recursive", action="store_true",
                    help="--local-headers, following those headers' own quoted includes too")
    tr.add_argument("--implicit-runtime-header", action=argparse.BooleanOptionalAction, default=True,
                    help="add #include <hip/hip_runtime.h> to every .cu/.cuh file that lacks it, as "
                         "hipify-clang does (nvcc includes cuda_runtime.h into them implicitly); "
                         "other files get it when they use CUDA (default: on)")
    tr.add_argument("-p", dest="compdb", metavar="DIR",
                    help="compilation database: DIR/compile_commands.json gives each file's "
                         "-D/-I options; with no sources, every file in it is translated")
    compat = p.add_argument_group("hipify-clang options accepted for compatibility (no effect)")
    compat.add_argument("--cuda-path", "--clang-resource-directory", "--temp-dir",
                        "--cuda-gpu-arch", dest="ignored", metavar="VALUE")
    compat.add_argument("--extra-arg", "--extra-arg-before", dest="extra_args", action="append",
                        default=[], metavar="ARG", help="compiler argument (-D is used)")
    for flag in ("--save-temps", "-v", "--no-undocumented-features",
                 "--no-warnings-on-undocumented-features"):
        compat.add_argument(flag, action="store_true", dest="ignored_flag")
    tr.add_argument("--translate-strings", action=argparse.BooleanOptionalAction, default=True,
                    help="rewrite CUDA names standing alone in string literals, as hipify-clang "
                         "and hipify-perl do (default: on; --no-translate-strings keeps them)")
    tr.add_argument("--translate-comments", action="store_true", help="rewrite CUDA names in comments")
    tr.add_argument("--whitelist", default="", metavar="A,B",
                    help="CUDA-looking names not to warn about")
    tr.add_argument("--exclude-dirs", default="", metavar="A,B", help="directories to skip")
    tr.add_argument("--exclude-files", default="", metavar="A,B", help="files to skip")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    return p


def normalize_argv(argv: list[str]) -> tuple[list[str], list[str]]:
    """Turn hipify-perl spellings into argparse ones; split off compiler options after ``--``."""
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    else:
        extra = []
    out: list[str] = []
    for arg in argv:
        if arg.startswith("-o="):
            out += ["-o", arg[3:]]
        elif arg.startswith("-") and not arg.startswith("--") and arg[1:].split("=")[0] in _PERL_OPTIONS:
            out.append("-" + arg)
        else:
            out.append(arg)
    return out, extra


def _defines(values: list[str]) -> dict[str, str]:
    result = {}
    for value in values:
        name, _, val = value.partition("=")
        result[name] = val or "1"
    return result


def args_extra(args: argparse.Namespace) -> list[str]:
    """Compiler arguments given with ``--extra-arg``."""
    return list(args.extra_args)


def _include_dirs(values: list[str]) -> list[Path]:
    return [Path(v) for v in values]


def _compiler_options(words: list[str]) -> tuple[list[str], list[str]]:
    """(``-D`` values, ``-I`` directories) of compiler arguments (``-DX``, ``-D X``, ``-Idir``...)."""
    defines, dirs = [], []
    i = 0
    while i < len(words):
        word = words[i]
        for flag, out in (("-D", defines), ("-I", dirs)):
            if word == flag and i + 1 < len(words):
                out.append(words[i + 1])
                i += 1
            elif word.startswith(flag) and len(word) > 2:
                out.append(word[2:])
        i += 1
    return defines, dirs


def run(argv: list[str]) -> int:
    """Run ``openhip hipify``; returns the exit status."""
    args_list, extra = normalize_argv(list(argv))
    parser = _parser()
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:
        return int(exc.code or 0)
    extra_defines, extra_dirs = _compiler_options(extra + args_extra(args))
    if args.version:
        from openhip import __version__

        print(f"openhip hipify {__version__} (maps: {_MAPS_SOURCE})")
        return 0
    commands: list[compdb.CompileCommand] = []
    from_database = False
    if args.compdb is not None:
        if not args.compdb:
            print("openhip hipify: error: -p needs the compilation database's directory", file=sys.stderr)
            return 2
        try:
            commands = compdb.load(args.compdb)
        except HipifyError as exc:
            print(f"openhip hipify: error: {exc}", file=sys.stderr)
            return 2
        if not args.sources:
            args.sources = [str(c.file) for c in commands]
            from_database = True
    if not args.sources:
        parser.print_usage(sys.stderr)
        print("openhip hipify: error: no source files given", file=sys.stderr)
        return 2
    files = discover(args.sources, filter(None, args.exclude_dirs.split(",")),
                     filter(None, args.exclude_files.split(",")))
    if from_database and files:
        # the database's files keep their layout under --output-dir (two x.cu do not collide)
        common = Path(os.path.commonpath([str(path.resolve().parent) for path, _ in files]))
        files = [(path.resolve(), common) for path, _ in files]
    if args.output and (len(files) != 1 or args.inplace or args.output_dir):
        print("openhip hipify: error: -o needs exactly one input file and no --inplace/--output-dir",
              file=sys.stderr)
        return 2
    if args.inplace and args.output_dir:
        print("openhip hipify: error: --inplace and --output-dir cannot be used together", file=sys.stderr)
        return 2
    base = HipifyOptions(
        hip_kernel_execution_syntax=args.hip_kernel_execution_syntax,
        roc=args.roc,
        miopen=args.miopen,
        experimental=args.experimental,
        use_hip_data_types=args.use_hip_data_types,
        skip_excluded_preprocessor_blocks=args.skip_blocks,
        amap=args.amap,
        defines=_defines(args.defines + extra_defines),
        translate_strings=args.translate_strings,
        translate_comments=args.translate_comments,
        warnings=not args.quiet_warnings,
        whitelist=frozenset(filter(None, args.whitelist.split(","))),
    )
    job = _Job(args, base, _include_dirs(args.includes + extra_dirs), commands,
               {path.resolve() for path, _ in files})
    progress = _Progress(len(files), args.progress, writes_stdout=not (args.inplace or args.output_dir
                                                                      or args.output or job.no_output))
    for index, (path, root) in enumerate(files):
        progress.update(index, path)
        job.source(path, root, progress)
    progress.done()
    if job.print_stats and (len(files) > 1 or job.translated > 1):
        sys.stderr.write(job.total.report(total=True))
    return 1 if job.failed else 0


class _Job:
    """One run of the command: the options, the totals, and the local headers already done."""

    def __init__(self, args: argparse.Namespace, base: HipifyOptions, include_dirs: list[Path],
                 commands: list[compdb.CompileCommand], inputs: set[Path]) -> None:
        self.args = args
        self.base = base
        self.include_dirs = include_dirs
        self.by_file = {c.file.resolve(): c for c in reversed(commands)}  # the first entry wins
        self.inputs = inputs
        self.print_stats = args.print_stats or args.examine
        self.no_output = args.no_output or args.examine
        self.headers_mode = "recursive" if args.local_headers_recursive else (
            "direct" if args.local_headers else "")
        self.done_headers: set[Path] = set()
        self.total = Stats(file="GLOBAL", files=0)
        self.failed = 0
        self.translated = 0

    def options_for(self, path: Path, command: compdb.CompileCommand | None) -> HipifyOptions:
        """The options of one file: its database entry's macros, the runtime-header rule by suffix."""
        changes: dict[str, object] = {}
        if command is not None and (command.defines or command.undefines):
            defines = {k: v for k, v in command.defines.items()}
            defines.update(self.base.defines)  # the command line's -D win
            changes["defines"] = defines
        if self.args.implicit_runtime_header and path.suffix in _CUDA_SUFFIXES:
            changes["runtime_header"] = "always"
        return dataclasses.replace(self.base, **changes) if changes else self.base  # type: ignore[arg-type]

    def translate(self, path: Path, options: HipifyOptions, progress: _Progress) -> tuple[str, str] | None:
        """(source, translation) of one file, its warnings printed; None after an error."""
        try:
            source = read_source(path, self.args.encoding)
            result = hipify(source, filename=str(path), options=options)
        except HipifyError as exc:
            self.failed += 1
            progress.clear()
            print(f"openhip hipify: error: {exc}", file=sys.stderr)
            return None
        progress.clear()
        for warning in result.warnings:
            print(warning, file=sys.stderr)
        if self.print_stats:
            sys.stderr.write(result.stats.report())
        self.total.merge(result.stats)
        self.translated += 1
        return source, result.text

    def source(self, path: Path, root: Path, progress: _Progress) -> None:
        """Translate one input (and, with --local-headers, its local headers) and write them."""
        command = self.by_file.get(path.resolve()) if self.by_file else None
        include_dirs = (command.include_dirs if command is not None else []) + self.include_dirs
        done = self.translate(path, self.options_for(path, command), progress)
        if done is None:
            return
        source, text = done
        if not self.no_output:
            try:
                _write(text, source, path, root, self.args)
            except OSError as exc:
                self.failed += 1
                print(f"openhip hipify: error: {path}: {exc}", file=sys.stderr)
        if self.headers_mode:
            self.local_headers(path, source, root, include_dirs, command, progress)

    def local_headers(self, path: Path, source: str, root: Path, include_dirs: list[Path],
                      command: compdb.CompileCommand | None, progress: _Progress) -> None:
        tables = maps.tables()
        inactive = None
        if self.base.skip_excluded_preprocessor_blocks and not self.base.amap:
            defines = self.options_for(path, command).defines
            inactive = lambda text: inactive_ranges(tokenize(text), defines)  # noqa: E731
        found = local_headers(
            path, source, include_dirs=include_dirs, recursive=self.headers_mode == "recursive",
            is_cuda_header=lambda name: name in tables.includes,
            read=lambda p: read_source(p, self.args.encoding), inactive=inactive,
        )
        if not self.args.quiet_warnings:
            for miss in found.missing:
                print(f"{miss.includer}:{miss.line}: warning: local header \"{miss.spelled}\" not found "
                      "(searched the includer's directory and the -I directories); not translated",
                      file=sys.stderr)
        for header in found.headers:
            if header.path in self.done_headers or header.path in self.inputs:
                continue  # translated once per run; an input is translated as such
            self.done_headers.add(header.path)
            done = self.translate(header.path, self.options_for(header.path, command), progress)
            if done is None or self.no_output:
                continue
            header_source, text = done
            try:
                _write_header(text, header_source, header.path, root, self.args)
            except OSError as exc:
                self.failed += 1
                print(f"openhip hipify: error: {header.path}: {exc}", file=sys.stderr)


#: Files compiled as CUDA, into which nvcc includes cuda_runtime.h implicitly.
_CUDA_SUFFIXES = (".cu", ".cuh")


def _write_header(text: str, source: str, path: Path, root: Path, args: argparse.Namespace) -> None:
    """Write a local header's translation: in place (--inplace), under --output-dir with the
    source's layout when it lies below the root, else to ``HEADER.hip`` beside it."""
    if args.inplace:
        if not args.no_backup:
            backup(path)
        if text != source:
            write_text(path, text, args.encoding)
        return
    if args.output_dir:
        try:
            relative = path.relative_to(root.resolve())
        except ValueError:
            relative = None
        if relative is not None:
            write_text(Path(args.output_dir) / relative, text, args.encoding)
            return
    write_text(header_output_path(path), text, args.encoding)


def _write(text: str, source: str, path: Path, root: Path, args: argparse.Namespace) -> None:
    if args.inplace:
        if not args.no_backup:
            backup(path)
        if text != source:
            write_text(path, text, args.encoding)
    elif args.output_dir:
        write_text(Path(args.output_dir) / path.relative_to(root), text, args.encoding)
    elif args.output:
        write_text(Path(args.output), text, args.encoding)
    else:
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is not None and not _plain_utf8(text, args.encoding):
            sys.stdout.flush()
            buffer.write(encode(text, args.encoding))  # the input's bytes, any that were not UTF-8
            buffer.flush()
        else:
            sys.stdout.write(text)
            sys.stdout.flush()


def _plain_utf8(text: str, encoding: str) -> bool:
    """True when ``text`` is UTF-8 text as it stands (no kept bytes, UTF-8 wanted)."""
    if encoding.lower().replace("-", "").replace("_", "") != "utf8":
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _Progress:
    """A one-line progress bar on stderr, shown only on a terminal and for several files."""

    def __init__(self, count: int, wanted: bool | None, writes_stdout: bool) -> None:
        if wanted is None:
            wanted = sys.stderr.isatty() and not writes_stdout
        self.on = bool(wanted) and count > 1
        self.count = count
        self.shown = False

    def update(self, index: int, path: Path) -> None:
        if not self.on:
            return
        width = 30
        filled = width * index // self.count
        name = str(path)
        if len(name) > 40:
            name = "..." + name[-37:]
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {index}/{self.count} {name}\x1b[K")
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            self.shown = False

    def done(self) -> None:
        if self.on:
            width = 30
            sys.stderr.write(f"\r[{'#' * width}] {self.count}/{self.count}\x1b[K\n")
            sys.stderr.flush()
