"""A plugin that reports through ``ctx.api.fail``, as plugins normally do: for the test showing
that mypy swallows such errors on overloaded callees (mypy issue 7367)."""

from __future__ import annotations

from collections.abc import Callable

from mypy.plugin import FunctionContext, Plugin
from mypy.types import Type, UnionType, get_proper_type


class NaivePlugin(Plugin):
    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        if fullname in ("builtins.str", "builtins.repr", "builtins.print"):
            return _report
        return None


def _report(ctx: FunctionContext) -> Type:
    # Report a union argument, as loomlint reports the content union.
    if any(isinstance(get_proper_type(t), UnionType) for ts in ctx.arg_types for t in ts):
        ctx.api.fail("naive finding", ctx.context)
    return ctx.default_return_type


def plugin(version: str) -> type[Plugin]:
    del version
    return NaivePlugin
