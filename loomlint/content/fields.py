"""Reading one field of a content object, whatever state the object is in.

`to_json` and `guard_request` promise to raise only their own errors on any value, including
a half-built one: made with ``__new__`` and never initialised (its slots are empty), or of a
subclass whose field is a property that raises. Both read every field through `read_field`,
and check a role with `as_role`, so they judge such objects alike.
"""

from __future__ import annotations

from loomlint.content.parts import Role

__all__ = ["ROLES", "UnreadableFieldError", "as_role", "one_of", "read_field"]

ROLES: tuple[Role, ...] = ("system", "user", "assistant")


class UnreadableFieldError(ValueError):
    """A field of an object cannot be read; the message says why, without naming the path."""


def read_field(owner: object, name: str) -> object:
    """``owner.<name>``, or `UnreadableFieldError` if reading it raises anything."""
    try:
        return getattr(owner, name)
    except AttributeError:
        kind = type(owner).__name__
        raise UnreadableFieldError(f"is not set (a half-built {kind}?)") from None
    except Exception as error:  # a subclass's property: any error is a broken object
        raise UnreadableFieldError(f"cannot be read ({type(error).__name__})") from None


def as_role(value: object) -> Role | None:
    """``value`` as one of the three roles, or None. Exact ``str`` only: a subclass could
    compare equal to a role and be something else."""
    if type(value) is str:
        for role in ROLES:
            if value == role:
                return role
    return None


def one_of(names: tuple[str, ...]) -> str:
    """``'a', 'b' or 'c'``: the choices an error message lists."""
    quoted = [repr(name) for name in names]
    return ", ".join(quoted[:-1]) + f" or {quoted[-1]}"
