"""The ``loomlint`` command: a thin shell over configuration, discovery, the runner and output.

Exit codes a CI gate can trust: 0 no findings, 1 findings, 2 a usage or configuration error, a
file that could not be analysed (LML901-LML903), or an internal error; 130 / 143 when Ctrl-C /
SIGTERM stopped the run (``loomlint.run.interrupt``). Errors are printed as
``error: <message>`` on stderr, with a traceback only under ``--debug``. With ``--baseline`` or
``--diff`` the exit code follows the findings that are reported, not the hidden ones.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import importlib
import json
import os
import sys
import traceback
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, NoReturn, Protocol, cast

import click

from loomlint import __version__
from loomlint.catalog.rules import Rule, load_catalog
from loomlint.engine.diagnostics import Diagnostic, FileResult
from loomlint.files.atomic import write_atomically
from loomlint.project.config import CliOverrides, ConfigError, Settings
from loomlint.project.discovery import DiscoveryError, discover_files
from loomlint.project.settings import load_settings
from loomlint.project.shard import ShardError, parse_shard
from loomlint.report.baseline import (
    Baseline,
    BaselineError,
    FindingKeys,
    build_baseline,
    compare,
    load_baseline,
    write_baseline,
)
from loomlint.report.docs import render_rule_page, rule_url
from loomlint.report.gitdiff import ChangedLines, GitDiffError, changed_lines, keep_changed
from loomlint.report.output import OUTPUT_FORMATS, OutputFormat
from loomlint.report.output.report import STATISTICS_FORMATS, render_report
from loomlint.report.output.text import applied_fixes_listing, render_text
from loomlint.run.interrupt import exit_on_interrupt
from loomlint.run.progress import ProgressDisplay

if TYPE_CHECKING:
    from loomlint.fix.files import FileFix

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2

# A file that could not be analysed at all fails the gate like a usage error: its findings are
# unknown. (LML904, checked without types, is an ordinary finding.)
ANALYSIS_FAILURE_CODES = frozenset({"LML901", "LML902", "LML903", "LML905"})


class RunResult(Protocol):
    """What ``loomlint.run.runner.run_check`` returns."""

    @property
    def results(self) -> Sequence[FileResult]: ...

    @property
    def notes(self) -> Sequence[str]: ...

    @property
    def digests(self) -> Mapping[str, str]: ...

    @property
    def warnings(self) -> Sequence[str]: ...

    @property
    def settings(self) -> Settings | None: ...


# Called as files finish: progress(done, total).
ProgressCallback = Callable[[int, int], None]


class RunCheck(Protocol):
    def __call__(
        self,
        files: Sequence[Path | str],
        settings: Settings,
        *,
        progress: ProgressCallback | None = None,
        debug: bool = False,
        use_cache: bool = True,
        sources: Mapping[str, bytes] | None = None,
    ) -> RunResult: ...


class _Failure(Exception):
    """A user-facing error: printed as ``error: <message>``, exit code 2."""


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    __version__, "--version", prog_name="loomlint", message="%(prog)s %(version)s"
)
def main() -> None:
    """Find code that treats LLM message content as always a string.

    A message's ``content`` is ``str | list[parts]``. loomlint flags the places that read it as
    a string anyway (str(), f-strings, %, logging, json.dumps, .strip(), len(), iteration,
    casts) so they are fixed before a model answers with parts.

    \b
    Examples:
      loomlint check                    check the project in the current folder
      loomlint check src/ --format sarif --output-file loomlint.sarif
      loomlint explain LML003           what a rule flags, and what to write instead
    """


# --- rules / explain ---------------------------------------------------------------------------


@main.command("rules")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: an aligned table; json: an array of rule objects.",
)
def rules_command(output_format: str) -> None:
    """List every rule: code, name, whether `loomlint fix` can fix it, and a summary.

    \b
    Examples:
      loomlint rules
      loomlint rules --format json
    """
    rules = [rule for _, rule in sorted(load_catalog().rules.items())]
    if output_format == "json":
        click.echo(json.dumps([_rule_json(rule) for rule in rules], indent=2, ensure_ascii=False))
    else:
        click.echo(_rules_table(rules), nl=False)


def _rule_json(rule: Rule) -> dict[str, object]:
    return {
        "code": rule.code,
        "name": rule.name,
        "fixable": rule.fixable,
        "summary": rule.summary,
        "mypy_code": rule.mypy_code,
        "opt_in": rule.opt_in,
        "url": rule_url(rule.code),
    }


def _rules_table(rules: Sequence[Rule]) -> str:
    rows = [("Code", "Name", "Fixable", "Summary")]
    rows.extend((r.code, r.name, "yes" if r.fixable else "no", r.summary) for r in rules)
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    return "".join(
        f"{code:<{widths[0]}}  {name:<{widths[1]}}  {fixable:<{widths[2]}}  {summary}\n"
        for code, name, fixable, summary in rows
    )


@main.command("explain")
@click.argument("code")
def explain_command(code: str) -> None:
    """Print the documentation of one rule (by code or name).

    \b
    Examples:
      loomlint explain LML003
      loomlint explain content-coercion
    """
    rules = load_catalog().rules
    wanted = code.strip()
    rule = rules.get(wanted.upper()) or next(
        (rule for rule in rules.values() if rule.name == wanted.lower()), None
    )
    if rule is None:
        _exit_with_error(f"unknown rule code '{code}' (known: {', '.join(sorted(rules))})")
    click.echo(render_rule_page(rule), nl=False)


# --- check -------------------------------------------------------------------------------------


def _split_codes(
    _ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]
) -> tuple[str, ...]:
    return tuple(code.strip() for value in values for code in value.split(",") if code.strip())


_ANALYSIS_OPTIONS = [
    click.option(
        "--select",
        multiple=True,
        callback=_split_codes,
        metavar="CODES",
        help="Report only these codes or prefixes, comma-separated, repeatable "
        "(e.g. --select LML003 or --select LML0). Replaces `select` from the configuration.",
    ),
    click.option(
        "--ignore",
        multiple=True,
        callback=_split_codes,
        metavar="CODES",
        help="Do not report these codes or prefixes, comma-separated, repeatable "
        "(e.g. --ignore LML001,LML002). Added to `ignore` from the configuration.",
    ),
    click.option(
        "--extend-select",
        multiple=True,
        callback=_split_codes,
        metavar="CODES",
        help="Report these codes or prefixes too, on top of `select` (from the configuration "
        "or --select), comma-separated, repeatable (e.g. --extend-select LML100).",
    ),
    click.option(
        "--extend-ignore",
        multiple=True,
        callback=_split_codes,
        metavar="CODES",
        help="The same as --ignore (Ruff's older spelling): do not report these codes or "
        "prefixes, on top of `ignore`.",
    ),
    click.option(
        "--preset",
        "presets",
        multiple=True,
        metavar="NAME",
        help="The SPI whose content types and accessors apply (repeatable; default: `preset` "
        "from the configuration, else inferred from the imports of the checked files: loom "
        "and the presets of the SDKs they import). Replaces `preset` from the configuration.",
    ),
    click.option(
        "--no-types",
        is_flag=True,
        help="Do not run mypy for types: faster, with less precision "
        "(see each rule's known problems).",
    ),
    click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False, path_type=Path),
        metavar="PATH",
        help="Read configuration from PATH (a pyproject.toml with [tool.loomlint], or a "
        "loomlint.toml) instead of the nearest one above the current folder.",
    ),
    click.option(
        "--no-cache",
        is_flag=True,
        help="Analyse every file afresh: neither read nor write the result cache "
        "(.loomlint_cache/ under the project root).",
    ),
    click.option("--debug", is_flag=True, help="Show tracebacks of internal errors."),
    click.option(
        "--no-project-plugins",
        is_flag=True,
        help="Build types without the plugins the project's mypy configuration names: their "
        "code would run in loomlint's process (see docs/ci.md on untrusted pull requests).",
    ),
]


def _analysis_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options `check` and `fix` share: which codes, which SPI, types or not, config."""
    for option in reversed(_ANALYSIS_OPTIONS):
        command = option(command)
    return command


@main.command("check")
@click.argument("paths", nargs=-1, type=click.Path(readable=False, path_type=str))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(OUTPUT_FORMATS),
    default="text",
    show_default=True,
    help="text: path:line:col lines and a summary; json: an array of findings; "
    "sarif: SARIF 2.1.0 for GitHub code scanning; github: workflow annotations; "
    "gitlab: a Code Quality (Code Climate JSON) report for GitLab merge requests; "
    "junit: JUnit XML for CI test-report views.",
)
@_analysis_options
@click.option(
    "--report-unused-suppressions",
    is_flag=True,
    default=None,
    help="Report `# loomlint: ignore[...]` and `# noqa: LML...` comments that suppress "
    "nothing (LML100).",
)
@click.option(
    "--report-guesses",
    is_flag=True,
    default=None,
    help="Also report the findings that rest on no type and no preset data: reads of messages "
    "whose module mypy could not find (not installed where loomlint runs) or that mypy typed "
    "Any (a dict[str, Any], an Any parameter), reads in functions mypy does not check "
    "(unannotated, check_untyped_defs off), and, without types, every read that no preset's "
    "data, no declared content type and no class of the project declaring its content grounds; "
    "judged by syntax and marked as guesses. By default they are only counted, in the run's "
    "warnings.",
)
@click.option(
    "--diff",
    "diff_revision",
    metavar="REV",
    help="Report only findings on lines changed since the git revision REV (committed, staged "
    "or not; files git does not track count as wholly changed), e.g. --diff origin/main.",
)
@click.option(
    "--baseline",
    "baseline_file",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Report only findings that FILE (written by --write-baseline) does not record.",
)
@click.option(
    "--write-baseline",
    "write_baseline_file",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Record every finding in FILE and exit 0 without a report; later runs with "
    "--baseline FILE report only new findings.",
)
@click.option(
    "--statistics",
    is_flag=True,
    help="Print the number of findings per code instead of the findings (text, json); with "
    "sarif or github the report is unchanged and the counts go to stderr.",
)
@click.option(
    "--stdin-filename",
    metavar="PATH",
    help="Read the source from standard input and check it as the file PATH (which need not "
    "exist): configuration, per-file-ignores and presets apply as at PATH, and mypy types it "
    "with the project's imports. For editors checking an unsaved buffer; no PATHS then, or "
    "`-` (standard input, Ruff's spelling).",
)
@click.option(
    "--add-noqa",
    is_flag=True,
    help="Write a suppression for every finding reported now (`# noqa: CODE` at the end of "
    "its line, or `# loomlint: ignore[CODE]` above a statement where a comment cannot end the "
    "line) instead of a report. A file that changed during the run is left alone. Exits 0 "
    "when every finding is suppressed.",
)
@click.option(
    "--fix",
    "fix_instead",
    is_flag=True,
    help="Fix what `loomlint fix` fixes and report what remains: `loomlint fix` with these "
    "options (Ruff's spelling). Not with the options of reports (--format, --baseline, ...).",
)
@click.option(
    "--show-fixes",
    is_flag=True,
    help="Under each fixable finding (text format), show the edit `loomlint fix` would make.",
)
@click.option(
    "--exit-zero",
    is_flag=True,
    help="Exit 0 even when findings are reported (errors still exit 2, interruptions 130 or "
    "143), e.g. when code scanning rather than the job is the gate.",
)
@click.option(
    "--shard",
    "shard_text",
    metavar="K/N",
    help="Check only the K-th of N stable parts of the files (1 <= K <= N), so that N jobs of "
    "a CI matrix share a large codebase. A file's part follows from its path relative to the "
    "project root, so it stays in its part when other files come and go.",
)
@click.option(
    "--no-daemon",
    is_flag=True,
    help="Check in this process even when a daemon runs for the project (also "
    "LOOMLINT_NO_DAEMON=1). Without it, a check with types asks the project's daemon "
    "(`loomlint daemon start`) when one runs with the same loomlint, mypy, Python "
    "environment and settings: the same report, from warm types. When there is none, or it "
    "is another user's, declines, or is silent for LOOMLINT_DAEMON_TIMEOUT seconds (10), the "
    "check runs here, as it would without it.",
)
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Say on stderr whether a daemon answered, or why none was used.",
)
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="Print the findings only: no summary, no notes, no progress line.",
)
@click.option(
    "-o",
    "--output-file",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    metavar="PATH",
    help="Write the report to PATH instead of standard output.",
)
@click.pass_context
def check_command(
    context: click.Context,
    paths: tuple[str, ...],
    output_format: OutputFormat,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    presets: tuple[str, ...],
    no_types: bool,
    config_path: Path | None,
    no_cache: bool,
    report_unused_suppressions: bool | None,
    report_guesses: bool | None,
    diff_revision: str | None,
    baseline_file: Path | None,
    write_baseline_file: Path | None,
    statistics: bool,
    stdin_filename: str | None,
    add_noqa: bool,
    fix_instead: bool,
    show_fixes: bool,
    exit_zero: bool,
    shard_text: str | None,
    no_daemon: bool,
    verbose: bool,
    quiet: bool,
    output_file: Path | None,
    debug: bool,
    extend_select: tuple[str, ...],
    extend_ignore: tuple[str, ...],
    no_project_plugins: bool,
) -> None:
    """Check PATHS (files or folders; default: the current folder) for unsafe content use.

    Folders are walked honouring .gitignore and the configured `exclude`; named files are
    checked even when .gitignore lists them, but never when `exclude` does.

    Exit status: 0 no findings, 1 findings, 2 a usage or configuration error, a file that
    could not be analysed (LML901-LML903), or an internal error; 130 interrupted by Ctrl-C,
    143 stopped by SIGTERM (no report is written). With --baseline or --diff, only the
    findings reported count; --exit-zero turns 1 into 0. Named files that are not Python
    (pyproject.toml) are skipped with a note.

    \b
    Examples:
      loomlint check
      loomlint check src/ tests/ --select LML003
      loomlint check --no-types --format json
      loomlint check --format sarif --output-file loomlint.sarif
      loomlint check --format github          (in GitHub Actions)
      loomlint check --write-baseline loomlint-baseline.json
      loomlint check --baseline loomlint-baseline.json
      loomlint check --diff origin/main
      loomlint daemon start; loomlint check -v   (warm types from the daemon)
    """
    if fix_instead:
        with _reporting_errors(debug):
            _check_fix_options(context)
        context.invoke(
            fix_command,
            paths=paths,
            select=select,
            ignore=ignore,
            presets=presets,
            no_types=no_types,
            config_path=config_path,
            no_cache=no_cache,
            debug=debug,
            show_diff=False,
            show_fixes=show_fixes,
            quiet=quiet,
            extend_select=extend_select,
            extend_ignore=extend_ignore,
            no_project_plugins=no_project_plugins,
        )
        return
    with _reporting_errors(debug):
        _check_gate_options(
            diff_revision, baseline_file, write_baseline_file, statistics, output_file
        )
        if stdin_filename is not None and paths == ("-",):
            paths = ()  # Ruff's spelling: `-` is standard input, read as --stdin-filename
        _check_input_options(paths, stdin_filename, add_noqa, write_baseline_file, shard_text)
        overrides = _overrides(
            _Selection(select, ignore, extend_select, extend_ignore),
            presets,
            no_types,
            report_unused_suppressions,
            no_project_plugins,
            report_guesses,
        )
        settings, files = _settings_and_files(
            paths if stdin_filename is None else (),
            overrides,
            config_path,
            quiet=quiet,
            shard_text=shard_text,
            stdin_filename=stdin_filename,
        )
        # Both are read before the (long) run, so a bad revision or file fails at once.
        changed = _changed_lines(diff_revision, settings, files)
        baseline = _load_baseline(baseline_file)
        given: dict[str, bytes] = {}
        if stdin_filename is not None:
            given[files[0]] = sys.stdin.buffer.read()
        analysed = _digests(files) if add_noqa else {}
        daemon = _DaemonUse(
            config_path,
            overrides,
            verbose=verbose and not quiet,
            reason_not=_why_no_daemon(no_daemon, no_cache, stdin_filename, settings),
        )
        run = _run(
            files,
            settings,
            debug=debug,
            quiet=quiet,
            no_cache=no_cache or stdin_filename is not None,
            sources=given,
            daemon=daemon,
        )
        diagnostics = sorted(
            (d for result in run.results for d in result.diagnostics), key=lambda d: d.sort_key
        )
        keys = FindingKeys(settings.project_root, settings.cwd)
        if write_baseline_file is not None:
            _record_baseline(write_baseline_file, diagnostics, keys, quiet=quiet)
            raise SystemExit(EXIT_CLEAN)
        if baseline is not None:
            diagnostics = _hide_baselined(
                diagnostics, baseline, keys, settings, files, baseline_file, quiet=quiet
            )
        if changed is not None:
            diagnostics = _keep_changed(diagnostics, changed, settings, quiet=quiet)
        if add_noqa:
            remaining = _add_noqa(diagnostics, analysed, settings.project_root, quiet=quiet)
            raise SystemExit(exit_code(remaining))
        report = render_report(
            output_format,
            diagnostics,
            source_root=settings.project_root,
            cwd=settings.cwd,
            statistics=statistics,
            quiet=quiet,
            show_fixes=show_fixes,
            warnings=run.warnings,
        )
        _write(report, output_file)
        if statistics and output_format not in STATISTICS_FORMATS:
            # The report is for a machine and stays whole; the counts are for the person.
            click.echo(render_text(diagnostics, statistics=True, quiet=quiet), err=True, nl=False)
    code = exit_code(diagnostics)
    raise SystemExit(EXIT_CLEAN if exit_zero and code == EXIT_FINDINGS else code)


# --- fix ---------------------------------------------------------------------------------------


@main.command("fix")
@click.argument("paths", nargs=-1, type=click.Path(readable=False, path_type=str))
@_analysis_options
@click.option(
    "--diff",
    "show_diff",
    is_flag=True,
    help="Print the fixes as a unified diff instead of writing them.",
)
@click.option(
    "--show-fixes",
    is_flag=True,
    help="After the findings that remain, list each finding fixed, with its fix as `check "
    "--show-fixes` shows it (positions in the text before the fix). Not with --diff.",
)
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="Print only the findings that remain (and, with --show-fixes, the fixes): no "
    "summary, no notes, no progress line.",
)
def fix_command(
    paths: tuple[str, ...],
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    presets: tuple[str, ...],
    no_types: bool,
    config_path: Path | None,
    no_cache: bool,
    debug: bool,
    show_diff: bool,
    show_fixes: bool,
    quiet: bool,
    extend_select: tuple[str, ...],
    extend_ignore: tuple[str, ...],
    no_project_plugins: bool,
) -> None:
    """Rewrite coercions of content to the SPI's accessor (text_of) where that is safe.

    Only LML003 findings whose fix is safe and unambiguous are rewritten: `str(x)`, f-string
    interpolations (not `!r`), `"%s" % x`, `str.format()` arguments, `+` with a string and
    print/logging arguments. The accessor's import is added or reused. Files without a fixable
    finding are never touched, and a second run changes nothing.

    Exit status: 0 when no finding remains, 1 while unfixed findings remain (or, with --diff,
    when there is something to fix), 2 on errors, as for `check`.

    \b
    Examples:
      loomlint fix
      loomlint fix src/ --diff
      loomlint fix --show-fixes
      loomlint fix --select LML003 --no-types
    """
    with _reporting_errors(debug):
        if show_diff and show_fixes:
            raise _Failure("--show-fixes lists the fixes made; --diff shows them as a patch")
        settings, files = _settings_and_files(
            paths,
            _overrides(
                _Selection(select, ignore, extend_select, extend_ignore),
                presets,
                no_types,
                None,
                no_project_plugins,
            ),
            config_path,
            quiet=quiet,
        )
        run = _run(files, settings, debug=debug, quiet=quiet, no_cache=no_cache)
        fixes = _fix_files(run, settings, show_diff=show_diff, quiet=quiet, no_cache=no_cache)
        remaining: list[Diagnostic] = []
        applied: list[Diagnostic] = []
        changed_files = 0
        problems: list[str] = []
        for result, fixed in fixes:
            applied.extend(fixed.outcome.fixed)
            changed_files += 1 if fixed.outcome.fixed else 0
            if fixed.problem is not None:
                problems.append(fixed.problem)
            if show_diff and fixed.outcome.fixed:
                click.echo(_unified_diff(result.path, fixed.original, fixed.outcome.text), nl=False)
            fixed_ids = {id(d) for d in fixed.outcome.fixed}
            remaining.extend(d for d in result.diagnostics if id(d) not in fixed_ids)
        remaining.sort(key=lambda d: d.sort_key)
        fixed_count = len(applied)
        if not show_diff:
            report = render_text(remaining, quiet=True)
            if show_fixes and applied:
                report += ("\n" if report else "") + applied_fixes_listing(applied)
            click.echo(report, nl=False)
        for problem in problems:
            click.echo(f"error: {problem}", err=True)
        verb = "Would fix" if show_diff else "Fixed"
        failed = f"; {_count(len(problems), 'file')} could not be fixed" if problems else ""
        _stderr(
            f"{verb} {_count(fixed_count, 'finding')} in {_count(changed_files, 'file')}; "
            f"{_count(len(remaining), 'finding')} remaining{failed}.",
            quiet=quiet,
        )
    if problems or any(d.code in ANALYSIS_FAILURE_CODES for d in remaining):
        raise SystemExit(EXIT_ERROR)
    raise SystemExit(EXIT_FINDINGS if remaining or (show_diff and fixed_count) else EXIT_CLEAN)


def _fix_files(
    run: RunResult, settings: Settings, *, show_diff: bool, quiet: bool, no_cache: bool
) -> list[tuple[FileResult, FileFix]]:
    """Each file's result with its fix. A file changed since its analysis is analysed again
    (once): fixing it from findings about other bytes could rewrite the wrong text."""
    # Imported here: LibCST's codemod machinery costs a third of a second to import, and
    # `check` never needs it.
    from loomlint.fix.files import FileFix, fix_file

    def fix(result: FileResult, digests: Mapping[str, str]) -> FileFix:
        return fix_file(
            result, digests.get(result.path), settings.project_root, write=not show_diff
        )

    fixes = [(result, fix(result, run.digests)) for result in run.results]
    changed = {result.path: index for index, (result, f) in enumerate(fixes) if f.changed}
    if not changed:
        return fixes
    for path in changed:
        _stderr(f"note: '{path}' changed after it was analysed; it was analysed again", quiet=quiet)
    # Under the presets the first run chose: not those a few files' imports would choose.
    again = _run(
        list(changed), run.settings or settings, debug=False, quiet=True, no_cache=no_cache
    )
    for result in again.results:
        fixed = fix(result, again.digests)
        if fixed.changed:
            fixed = FileFix(problem=f"'{result.path}' keeps changing; it was not fixed")
        fixes[changed[result.path]] = (result, fixed)
    return fixes


def _unified_diff(path: str, before: str, after: str) -> str:
    from loomlint.files.lines import source_lines

    return "".join(
        difflib.unified_diff(
            source_lines(before), source_lines(after), fromfile=f"a/{path}", tofile=f"b/{path}"
        )
    )


# --- server ------------------------------------------------------------------------------------


@main.command("server")
@click.option(
    "--no-project-plugins",
    is_flag=True,
    help="Build types without the plugins the project's mypy configuration names: opening a "
    "folder then runs none of its code (the initialization option noProjectPlugins says the "
    "same).",
)
def server_command(no_project_plugins: bool) -> None:
    """Run the language server (LSP over stdin/stdout) for an editor.

    Findings as you type, with types from a mypy build kept warm in memory, quick fixes and
    `# loomlint: ignore[...]` actions. The editor starts it; see docs/editors.md.
    """
    from loomlint.server.lsp import serve

    raise SystemExit(serve(no_project_plugins=no_project_plugins))


# --- daemon ------------------------------------------------------------------------------------


@main.group("daemon")
def daemon_group() -> None:
    """A warm process for the project that `loomlint check` asks, like `dmypy`.

    It keeps the project's mypy build in memory and updates it fine-grained from the files
    changed on disk, and keeps its results in memory: a check after an edit costs what the
    editor's does. One daemon per project root (the folder of its configuration); it
    listens on a Unix-domain socket only its user can reach. See docs/performance.md.
    """


_DAEMON_CONFIG_OPTION = click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="PATH",
    help="The configuration (pyproject.toml or loomlint.toml) whose folder is the project "
    "root, which names the daemon (default: the nearest one above the current folder).",
)


@daemon_group.command("start")
@_DAEMON_CONFIG_OPTION
def daemon_start_command(config_path: Path | None) -> None:
    """Start the daemon for the project of the current folder, in the background.

    It checks the whole project once at start (warm-up); checks asked meanwhile wait for
    it. Its log is beside its socket (`loomlint daemon status` names it). Exit status 0 when
    it runs (or already ran), 2 when it could not start.
    """
    from loomlint.server.endpoint import EndpointError
    from loomlint.server.lifecycle import DaemonError, start_daemon

    with _reporting_errors(debug=False):
        root = _daemon_root(config_path)
        try:
            click.echo(start_daemon(root, config_path))
        except (DaemonError, EndpointError) as exc:
            raise _Failure(str(exc)) from exc


@daemon_group.command("stop")
@_DAEMON_CONFIG_OPTION
def daemon_stop_command(config_path: Path | None) -> None:
    """Stop the project's daemon. Exit status 0 (also when none ran)."""
    from loomlint.server.lifecycle import stop_daemon

    with _reporting_errors(debug=False):
        click.echo(stop_daemon(_daemon_root(config_path)))


@daemon_group.command("status")
@_DAEMON_CONFIG_OPTION
def daemon_status_command(config_path: Path | None) -> None:
    """Say whether a daemon runs for the project. Exit status 0 if it does, 1 if not."""
    from loomlint.server.lifecycle import daemon_status

    with _reporting_errors(debug=False):
        running, text = daemon_status(_daemon_root(config_path))
        click.echo(text)
    raise SystemExit(EXIT_CLEAN if running else EXIT_FINDINGS)


@daemon_group.command("run", hidden=True)
@_DAEMON_CONFIG_OPTION
def daemon_run_command(config_path: Path | None) -> None:
    """Serve the project in this process (what `start` runs in the background)."""
    from loomlint.server.daemon import run_daemon
    from loomlint.server.endpoint import EndpointError

    with _reporting_errors(debug=False):
        root = _daemon_root(config_path)
        try:
            run_daemon(root)
        except EndpointError as exc:
            raise _Failure(str(exc)) from exc


def _daemon_root(config_path: Path | None) -> Path:
    try:
        return load_settings(Path.cwd(), config_path).project_root
    except ConfigError as exc:
        raise _Failure(str(exc)) from exc


def console_main() -> None:
    """The `loomlint` console script: `main`, then a hard exit once output is flushed.

    After a type-aware run the interpreter holds mypy's whole build in module-level caches;
    tearing that down object by object at exit costs seconds and does nothing useful, so,
    like mypy's own command line, the script leaves without it. (Tests call `main` itself.)
    Ctrl-C and SIGTERM end it at once with 130 and 143 (``loomlint.run.interrupt``).
    """
    exit_on_interrupt()
    try:
        main()
        code = 0
    except SystemExit as exit_request:
        code = exit_request.code if isinstance(exit_request.code, int) else 1
        if exit_request.code is not None and not isinstance(exit_request.code, int):
            click.echo(str(exit_request.code), err=True)
    for stream in (sys.stdout, sys.stderr):
        # Closed, or its reader has gone: there is nothing to flush to.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


class _Selection(NamedTuple):
    """The code options of the command line."""

    select: tuple[str, ...]
    ignore: tuple[str, ...]
    extend_select: tuple[str, ...]
    extend_ignore: tuple[str, ...]


def _overrides(
    selection: _Selection,
    presets: tuple[str, ...],
    no_types: bool,
    report_unused_suppressions: bool | None,
    no_project_plugins: bool,
    report_guesses: bool | None = None,
) -> CliOverrides:
    return CliOverrides(
        select=selection.select or None,
        ignore=(*selection.ignore, *selection.extend_ignore),
        extend_select=selection.extend_select,
        presets=presets or None,
        no_types=no_types,
        report_unused_suppressions=report_unused_suppressions,
        no_project_plugins=no_project_plugins,
        report_guesses=report_guesses,
    )


def _settings_and_files(
    paths: tuple[str, ...],
    overrides: CliOverrides,
    config_path: Path | None,
    *,
    quiet: bool,
    shard_text: str | None = None,
    stdin_filename: str | None = None,
) -> tuple[Settings, list[str]]:
    try:
        shard = parse_shard(shard_text) if shard_text is not None else None
    except ShardError as exc:
        raise _Failure(str(exc)) from exc
    try:
        # Presets not configured are chosen by the run, from what the files it checks import.
        settings = load_settings(Path.cwd(), config_path, overrides, presets_from="run")
        if stdin_filename is not None:
            # The file need not exist (an unsaved buffer): it is named, not discovered.
            return settings, [_display_path(stdin_filename, settings)]
        discovery = discover_files(paths or (".",), settings)
    except (ConfigError, DiscoveryError) as exc:
        raise _Failure(str(exc)) from exc
    for warning in discovery.warnings:
        _stderr(f"warning: {warning}", quiet=quiet)
    for note in discovery.notes:
        _stderr(f"note: {note}", quiet=quiet)
    if not discovery.files:
        _stderr("warning: no Python files found under the given paths", quiet=quiet)
    files = list(discovery.files)
    if shard is not None:
        files = [f for f in files if shard.holds(settings.project_relative(f) or f)]
        _stderr(
            f"note: shard {shard.index}/{shard.count}: checking "
            f"{_count(len(files), 'file')} of {len(discovery.files)}",
            quiet=quiet,
        )
        from loomlint.project.preset_inference import presets_of_files

        # Every shard takes the presets the whole run would: its messages and fix offers
        # are the whole run's.
        settings, presets_note = presets_of_files(settings, discovery.files)
        if presets_note is not None:
            _stderr(f"note: {presets_note}", quiet=quiet)
    return settings, files


def _run(
    files: Sequence[str],
    settings: Settings,
    *,
    debug: bool,
    quiet: bool,
    no_cache: bool,
    sources: Mapping[str, bytes] | None = None,
    daemon: _DaemonUse | None = None,
) -> RunResult:
    run = _run_in_daemon(files, settings, daemon) if daemon is not None else None
    if run is None:
        run = _run_here(
            files, settings, debug=debug, quiet=quiet, no_cache=no_cache, sources=sources
        )
    for note in dict.fromkeys(run.notes):
        _stderr(f"note: {note}", quiet=quiet)
    for warning in dict.fromkeys(run.warnings):
        # Even under --quiet: a run that could not see the SPI's types must never look clean.
        _stderr(f"warning: {warning}")
    return run


def _run_here(
    files: Sequence[str],
    settings: Settings,
    *,
    debug: bool,
    quiet: bool,
    no_cache: bool,
    sources: Mapping[str, bytes] | None,
) -> RunResult:
    run_check = _load_runner()
    with ProgressDisplay.for_stream(sys.stderr, quiet=quiet) as progress:
        progress.start(len(files))
        return run_check(
            list(files),
            settings,
            progress=progress if progress.enabled else None,
            debug=debug,
            use_cache=not no_cache,
            sources=sources,
        )


class _DaemonUse(NamedTuple):
    """How `check` may ask the project's daemon (``loomlint.server.endpoint``)."""

    config_path: Path | None
    overrides: CliOverrides
    verbose: bool
    # Why the daemon is not asked at all (--no-daemon, ...), or None.
    reason_not: str | None


def _why_no_daemon(
    no_daemon: bool, no_cache: bool, stdin_filename: str | None, settings: Settings
) -> str | None:
    if no_daemon:
        return "--no-daemon"
    if os.environ.get("LOOMLINT_NO_DAEMON", "") not in ("", "0"):
        return "LOOMLINT_NO_DAEMON is set"
    if no_cache:
        return "--no-cache asks for every file to be analysed afresh"
    if stdin_filename is not None:
        return "--stdin-filename checks text that is not on disk"
    if settings.types == "none":
        return "a check without types has no warm types to use"
    return None


def _run_in_daemon(
    files: Sequence[str], settings: Settings, daemon: _DaemonUse
) -> RunResult | None:
    """The project daemon's run, or None (said under -v) when the check must run here."""
    if daemon.reason_not is not None:
        if daemon.verbose:
            _stderr(f"note: daemon: not asked ({daemon.reason_not}); checking here")
        return None
    from loomlint.server.endpoint import EndpointError, check_with_daemon

    try:
        run = check_with_daemon(
            files, settings, config_path=daemon.config_path, overrides=daemon.overrides
        )
    except EndpointError as exc:
        if daemon.verbose:
            _stderr(f"note: daemon: {exc}; checking here")
        return None
    if daemon.verbose:
        cold = " (a cold start: it built the project's types first)" if run.cold else ""
        _stderr(f"note: daemon: checked by the daemon (pid {run.pid}) in {run.seconds:.2f} s{cold}")
    return run


def _display_path(path: str, settings: Settings) -> str:
    """A named path as reports show it: relative to the current folder when inside it."""
    absolute = Path(os.path.normpath(settings.cwd / path))
    try:
        return absolute.relative_to(settings.cwd).as_posix()
    except ValueError:
        return absolute.as_posix()


# The options of `check` that `--fix` (which is `loomlint fix`) takes along.
_FIX_OPTIONS = frozenset(
    {
        "paths",
        "select",
        "ignore",
        "extend_select",
        "extend_ignore",
        "presets",
        "no_types",
        "config_path",
        "no_cache",
        "debug",
        "no_project_plugins",
        "show_fixes",
        "quiet",
        "fix_instead",
    }
)


def _check_fix_options(context: click.Context) -> None:
    for parameter in context.command.params:
        if parameter.name in _FIX_OPTIONS:
            continue
        source = context.get_parameter_source(parameter.name)
        if source is not None and source != click.core.ParameterSource.DEFAULT:
            raise _Failure(
                f"--fix (the same as `loomlint fix`) cannot be combined with {parameter.opts[0]}"
            )


def _check_input_options(
    paths: tuple[str, ...],
    stdin_filename: str | None,
    add_noqa: bool,
    write_baseline_file: Path | None,
    shard_text: str | None,
) -> None:
    if stdin_filename == "":
        raise _Failure(
            "--stdin-filename needs the path the source is checked as, e.g. "
            "--stdin-filename src/app.py"
        )
    if stdin_filename is not None:
        if paths:
            raise _Failure(
                "--stdin-filename checks the source read from standard input; "
                "it cannot be combined with PATHS"
            )
        for given, option in ((add_noqa, "--add-noqa"), (shard_text is not None, "--shard")):
            if given:
                raise _Failure(f"--stdin-filename cannot be combined with {option}")
    if add_noqa and write_baseline_file is not None:
        raise _Failure("--add-noqa cannot be combined with --write-baseline")


def _digests(files: Sequence[str]) -> dict[str, str | None]:
    """Each file's bytes as the run will read them, to tell later whether it changed."""
    digests: dict[str, str | None] = {}
    for path in files:
        try:
            digests[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError:
            digests[path] = None
    return digests


def _add_noqa(
    diagnostics: Sequence[Diagnostic],
    analysed: Mapping[str, str | None],
    project_root: Path,
    *,
    quiet: bool,
) -> list[Diagnostic]:
    """Write the suppressions (see ``loomlint.report.add_noqa``); the findings left unsuppressed."""
    from loomlint.fix.edits import FixOutcome
    from loomlint.fix.files import Task, rewrite_file
    from loomlint.fix.meaning import comments_only_changed
    from loomlint.report.add_noqa import add_noqa, suppressible

    remaining = [d for d in diagnostics if not suppressible(d)]
    by_file: dict[str, list[Diagnostic]] = {}
    for diagnostic in diagnostics:
        if suppressible(diagnostic):
            by_file.setdefault(diagnostic.path, []).append(diagnostic)
    added = files = 0
    problems: list[str] = []
    for path, findings in sorted(by_file.items()):

        def suppressions(text: str, findings: Sequence[Diagnostic] = findings) -> FixOutcome:
            edit = add_noqa(text, findings)
            left = {id(d) for d in edit.uncovered}
            done = tuple(d for d in findings if id(d) not in left)
            return FixOutcome(edit.text, done, edit.uncovered)

        written = rewrite_file(
            path,
            analysed.get(path),
            project_root,
            suppressions,
            task=Task("add suppressions to", "no suppression was added to it"),
            keeps_meaning=comments_only_changed,
            write=True,
        )
        if written.changed:
            _stderr(f"warning: '{path}' changed during the run; no suppression was added to it")
        elif written.problem is not None:
            problems.append(written.problem)
        for finding in written.outcome.skipped:
            _stderr(
                f"warning: {finding.path}:{finding.line}:{finding.column}: no suppression of "
                f"{finding.code} could be placed where it covers the finding"
            )
        done = {id(d) for d in written.outcome.fixed}
        remaining.extend(d for d in findings if id(d) not in done)
        if done:
            added += len(done)
            files += 1
    for problem in problems:
        click.echo(f"error: {problem}", err=True)
    _stderr(
        f"Added suppressions of {_count(added, 'finding')} in {_count(files, 'file')}.", quiet=quiet
    )
    if problems:
        raise SystemExit(EXIT_ERROR)
    return sorted(remaining, key=lambda d: d.sort_key)


def _check_gate_options(
    diff_revision: str | None,
    baseline_file: Path | None,
    write_baseline_file: Path | None,
    statistics: bool,
    output_file: Path | None,
) -> None:
    if write_baseline_file is None:
        return
    for given, option in (
        (baseline_file is not None, "--baseline"),
        (diff_revision is not None, "--diff"),
        (statistics, "--statistics"),
        (output_file is not None, "--output-file"),
    ):
        if given:
            raise _Failure(
                f"--write-baseline records every finding and writes no report; "
                f"it cannot be combined with {option}"
            )


def _changed_lines(
    revision: str | None, settings: Settings, files: Sequence[str]
) -> ChangedLines | None:
    if revision is None:
        return None
    try:
        return changed_lines(revision, settings.cwd, files)
    except GitDiffError as exc:
        raise _Failure(str(exc)) from exc


def _load_baseline(path: Path | None) -> Baseline | None:
    if path is None:
        return None
    try:
        return load_baseline(path)
    except BaselineError as exc:
        raise _Failure(str(exc)) from exc


def _record_baseline(
    path: Path, diagnostics: Sequence[Diagnostic], keys: FindingKeys, *, quiet: bool
) -> None:
    try:
        write_baseline(path, build_baseline(diagnostics, keys))
    except BaselineError as exc:
        raise _Failure(str(exc)) from exc
    failed = [d for d in diagnostics if d.code in ANALYSIS_FAILURE_CODES]
    if failed:
        files = len({d.path for d in failed})
        codes = ", ".join(sorted({d.code for d in failed}))
        _stderr(
            f"warning: {_count(files, 'file')} could not be analysed ({codes}); the baseline "
            "records the failure, not the findings such a file may hold",
            quiet=quiet,
        )
    _stderr(
        f"Wrote {_count(len(diagnostics), 'finding')} in "
        f"{_count(len({d.path for d in diagnostics}), 'file')} "
        f"to the baseline '{path}'.",
        quiet=quiet,
    )


def _hide_baselined(
    diagnostics: Sequence[Diagnostic],
    baseline: Baseline,
    keys: FindingKeys,
    settings: Settings,
    files: Sequence[str],
    baseline_file: Path | None,
    *,
    quiet: bool,
) -> list[Diagnostic]:
    match = compare(diagnostics, baseline, keys)
    if match.known:
        _stderr(
            f"note: {_count(match.known, 'finding')} recorded in the baseline "
            f"{'is' if match.known == 1 else 'are'} not shown",
            quiet=quiet,
        )
    # Recorded findings of files checked now, under codes enabled now, that did not occur:
    # fixed. (A file or code left out of this run says nothing about its findings.)
    checked = {keys.path_of(path) for path in files}
    gone = sum(
        count
        for key, count in match.unmatched.items()
        if key.path in checked
        and settings.is_code_enabled(key.code, str(settings.project_root / key.path))
    )
    if gone:
        _stderr(
            f"note: {_count(gone, 'finding')} recorded in the baseline no longer "
            f"{'occurs' if gone == 1 else 'occur'}; `loomlint check --write-baseline "
            f"{baseline_file}` records the current findings",
            quiet=quiet,
        )
    return match.new


def _keep_changed(
    diagnostics: Sequence[Diagnostic], changed: ChangedLines, settings: Settings, *, quiet: bool
) -> list[Diagnostic]:
    kept = keep_changed(diagnostics, changed, settings.cwd)
    hidden = len(diagnostics) - len(kept)
    if hidden:
        _stderr(
            f"note: {_count(hidden, 'finding')} outside the lines changed since "
            f"{changed.revision} {'is' if hidden == 1 else 'are'} not shown",
            quiet=quiet,
        )
    return kept


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def exit_code(diagnostics: Sequence[Diagnostic]) -> int:
    if any(d.code in ANALYSIS_FAILURE_CODES for d in diagnostics):
        return EXIT_ERROR
    return EXIT_FINDINGS if diagnostics else EXIT_CLEAN


def _load_runner() -> RunCheck:
    # Imported when needed, so `rules` and `explain` work without the analysis stack.
    runner = importlib.import_module("loomlint.run.runner")
    return cast(RunCheck, runner.run_check)


def _write(report: str, output_file: Path | None) -> None:
    # A file name that is not valid UTF-8 is written back as the bytes it was.
    data = report.encode("utf-8", "surrogateescape")
    if output_file is None:
        click.echo(data, nl=False)
        return
    try:
        write_atomically(output_file, data)
    except OSError as exc:
        raise _Failure(f"cannot write '{output_file}': {exc.strerror or exc}") from exc


def _stderr(message: str, *, quiet: bool = False) -> None:
    if not quiet:
        click.echo(message, err=True)


def _exit_with_error(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    raise SystemExit(EXIT_ERROR)


@contextmanager
def _reporting_errors(debug: bool) -> Generator[None, None, None]:
    """Turn failures into ``error: ...`` and exit code 2; tracebacks only with ``--debug``."""
    try:
        yield
    except _Failure as exc:
        _exit_with_error(str(exc))
    except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
        raise
    except Exception as exc:
        if debug:
            traceback.print_exc()
        hint = "" if debug else " (run with --debug for the traceback)"
        _exit_with_error(f"internal error: {type(exc).__name__}: {exc}{hint}")
