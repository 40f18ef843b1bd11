"""The hook functions the plugin hands to mypy: one call of a hook, to the matching check.

Each hook first runs the hook mypy's default plugin has for the same name, if any, and returns
its result: mypy asks plugins in order and uses the first hook it gets, so a hook returned by
loomlint for, say, ``builtins.len`` or ``typing.Mapping.get`` must not replace the default
plugin's. The check itself never changes the inferred type.
"""

from __future__ import annotations

from collections.abc import Callable

from mypy.checker import TypeChecker
from mypy.nodes import CallExpr, ComparisonExpr, Expression, IndexExpr, MemberExpr, OpExpr
from mypy.plugin import FunctionContext, MethodContext
from mypy.types import Type

from loomlint.mypy_checks import calls, operators
from loomlint.mypy_checks.config import PluginConfig

FunctionHook = Callable[[FunctionContext], Type]
MethodHook = Callable[[MethodContext], Type]


def function_hook(fullname: str, config: PluginConfig, inner: FunctionHook | None) -> FunctionHook:
    def hook(ctx: FunctionContext) -> Type:
        result = inner(ctx) if inner is not None else ctx.default_return_type
        checker, call = ctx.api, ctx.context
        if isinstance(checker, TypeChecker) and isinstance(call, CallExpr):
            site = calls.CallSite(checker, call, ctx.arg_types, function=fullname)
            calls.check_call(site, config)
        return result

    return hook


def method_hook(fullname: str, config: PluginConfig, inner: MethodHook | None) -> MethodHook:
    method = fullname.rpartition(".")[2]

    def hook(ctx: MethodContext) -> Type:
        result = inner(ctx) if inner is not None else ctx.default_return_type
        checker = ctx.api
        if isinstance(checker, TypeChecker):
            _dispatch_method(checker, ctx, method, config)
        return result

    return hook


def _dispatch_method(
    checker: TypeChecker, ctx: MethodContext, method: str, config: PluginConfig
) -> None:
    context = ctx.context
    if (
        isinstance(context, CallExpr)
        and isinstance(context.callee, MemberExpr)
        and context.callee.name == method
    ):
        operators.check_method(checker, context, config)
        site = calls.CallSite(checker, context, ctx.arg_types, receiver=ctx.type, method=method)
        calls.check_call(site, config)
    elif method == "__iter__" and isinstance(context, Expression):
        operators.check_iteration(checker, context, config)
    elif method == "__getitem__" and isinstance(context, IndexExpr):
        operators.check_indexing(checker, context, config)
    elif method == "__contains__" and isinstance(context, ComparisonExpr):
        operators.check_membership(checker, context, config)
    elif method == "__mod__" and isinstance(context, OpExpr) and context.op == "%":
        operators.check_percent_format(checker, context, config)
