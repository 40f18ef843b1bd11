"""The ``loomlint`` command: a thin shell over configuration, discovery, the runner and output.

Exit codes a CI gate can trust: 0 no findings, 1 findings, 2 a usage or configuration error, a
file that could not be analysed (LML901-LML903), or an internal error. Errors are printed as
``error: <message>`` on stderr, with a traceback only under ``--debug``.
"""

from __future__ import annotations

import importlib
import json
import traceback
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn, Protocol, cast

import click

from loomlint import __version__
from loomlint.catalog import Rule, load_catalog
from loomlint.config import CliOverrides, ConfigError, Settings, load_settings
from loomlint.diagnostics import Diagnostic, FileResult
from loomlint.discovery import DiscoveryError, discover_files
from loomlint.docs import render_rule_page, rule_url
from loomlint.output import OUTPUT_FORMATS, OutputFormat
from loomlint.output.report import STATISTICS_FORMATS, render_report

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2

# A file that could not be analysed at all fails the gate like a usage error: its findings are
# unknown. (LML904, checked without types, is an ordinary finding.)
ANALYSIS_FAILURE_CODES = frozenset({"LML901", "LML902", "LML903"})


class RunResult(Protocol):
    """What ``loomlint.runner.run_check`` returns."""

    @property
    def results(self) -> Sequence[FileResult]: ...

    @property
    def notes(self) -> Sequence[str]: ...


class RunCheck(Protocol):
    def __call__(self, files: Sequence[Path | str], settings: Settings) -> RunResult: ...


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


@main.command("check")
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(OUTPUT_FORMATS),
    default="text",
    show_default=True,
    help="text: path:line:col lines and a summary; json: an array of findings; "
    "sarif: SARIF 2.1.0 for GitHub code scanning; github: workflow annotations.",
)
@click.option(
    "--select",
    multiple=True,
    callback=_split_codes,
    metavar="CODES",
    help="Report only these codes or prefixes, comma-separated, repeatable "
    "(e.g. --select LML003 or --select LML0). Replaces `select` from the configuration.",
)
@click.option(
    "--ignore",
    multiple=True,
    callback=_split_codes,
    metavar="CODES",
    help="Do not report these codes or prefixes, comma-separated, repeatable "
    "(e.g. --ignore LML001,LML002). Added to `ignore` from the configuration.",
)
@click.option(
    "--preset",
    "presets",
    multiple=True,
    metavar="NAME",
    help="The SPI whose content types and accessors apply (repeatable; default: `preset` "
    "from the configuration, else loom). Replaces `preset` from the configuration.",
)
@click.option(
    "--no-types",
    is_flag=True,
    help="Do not run mypy for types: faster, with less precision (see each rule's known problems).",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="PATH",
    help="Read configuration from PATH (a pyproject.toml with [tool.loomlint], or a "
    "loomlint.toml) instead of the nearest one above the current folder.",
)
@click.option(
    "--report-unused-suppressions",
    is_flag=True,
    default=None,
    help="Report `# loomlint: ignore[...]` and `# noqa: LML...` comments that suppress "
    "nothing (LML100).",
)
@click.option(
    "--statistics",
    is_flag=True,
    help="Print the number of findings per code instead of the findings (text or json).",
)
@click.option("-q", "--quiet", is_flag=True, help="Print the findings only: no summary, no notes.")
@click.option(
    "-o",
    "--output-file",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    metavar="PATH",
    help="Write the report to PATH instead of standard output.",
)
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
def check_command(
    paths: tuple[str, ...],
    output_format: OutputFormat,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    presets: tuple[str, ...],
    no_types: bool,
    config_path: Path | None,
    report_unused_suppressions: bool | None,
    statistics: bool,
    quiet: bool,
    output_file: Path | None,
    debug: bool,
) -> None:
    """Check PATHS (files or folders; default: the current folder) for unsafe content use.

    Folders are walked honouring .gitignore and the configured `exclude`; named files are
    checked even when .gitignore lists them, but never when `exclude` does.

    Exit status: 0 no findings, 1 findings, 2 a usage or configuration error, a file that
    could not be analysed (LML901-LML903), or an internal error.

    \b
    Examples:
      loomlint check
      loomlint check src/ tests/ --select LML003
      loomlint check --no-types --format json
      loomlint check --format sarif --output-file loomlint.sarif
      loomlint check --format github          (in GitHub Actions)
    """
    with _reporting_errors(debug):
        if statistics and output_format not in STATISTICS_FORMATS:
            raise _Failure("--statistics works with --format text or json")
        overrides = CliOverrides(
            select=select or None,
            ignore=ignore,
            presets=presets or None,
            no_types=no_types,
            report_unused_suppressions=report_unused_suppressions,
        )
        try:
            settings = load_settings(Path.cwd(), config_path, overrides)
            discovery = discover_files(paths or (".",), settings)
        except (ConfigError, DiscoveryError) as exc:
            raise _Failure(str(exc)) from exc
        for warning in discovery.warnings:
            _stderr(f"warning: {warning}", quiet=quiet)
        if not discovery.files:
            _stderr("warning: no Python files found under the given paths", quiet=quiet)
        run_check = _load_runner()
        run = run_check(list(discovery.files), settings)
        for note in dict.fromkeys(run.notes):
            _stderr(f"note: {note}", quiet=quiet)
        diagnostics = sorted(
            (d for result in run.results for d in result.diagnostics), key=lambda d: d.sort_key
        )
        report = render_report(
            output_format,
            diagnostics,
            source_root=settings.project_root,
            cwd=settings.cwd,
            statistics=statistics,
            quiet=quiet,
        )
        _write(report, output_file)
    raise SystemExit(exit_code(diagnostics))


def exit_code(diagnostics: Sequence[Diagnostic]) -> int:
    if any(d.code in ANALYSIS_FAILURE_CODES for d in diagnostics):
        return EXIT_ERROR
    return EXIT_FINDINGS if diagnostics else EXIT_CLEAN


def _load_runner() -> RunCheck:
    # Imported when needed, so `rules` and `explain` work without the analysis stack.
    runner = importlib.import_module("loomlint.runner")
    return cast(RunCheck, runner.run_check)


def _write(report: str, output_file: Path | None) -> None:
    if output_file is None:
        click.echo(report, nl=False)
        return
    try:
        with output_file.open("w", encoding="utf-8", newline="\n") as handle:
            handle.write(report)
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
