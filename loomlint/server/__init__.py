"""The language server (``loomlint server``) and the daemon behind ``loomlint check``: a front
end over ``run``, for editors and for repeated checks. May import every wing but the other
front ends (``cli``, ``mypy_plugin``).
"""
