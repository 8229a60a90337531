"""A function of the caller's code named so that another process can import it.

The function runs in the child the CLI supervises, not in the caller's process: that is what
makes a crash, a hang or an exception in it a finding like any program's. So it travels as a name,
`module:qualname`, and the child imports it; what has no such name (a lambda, a function defined
inside another, a bound method, a partial) is refused here, before anything runs.
"""

import importlib
import importlib.util


def reference(function):
    """`module:qualname` of `function` (a callable, or that text already), checked to lead back."""
    if isinstance(function, str):
        return _checked_text(function)
    if not callable(function):
        raise TypeError(f"ctxfuzz.fuzz needs a function or a 'module:function' text, not {function!r}")
    module = getattr(function, "__module__", None)
    qualname = getattr(function, "__qualname__", None)
    if not module or not qualname:
        raise TypeError(
            f"ctxfuzz.fuzz cannot name {function!r} for the child process that runs it: pass a "
            "function defined at the top level of a module, or a 'module:function' text"
        )
    if "<lambda>" in qualname or "<locals>" in qualname:
        kind = "a lambda" if "<lambda>" in qualname else "a function defined inside another"
        raise TypeError(
            f"ctxfuzz.fuzz runs your function in a child process, which imports it by name; "
            f"{module}:{qualname} is {kind} and has none: define it at the top level of a module"
        )
    if module == "__main__":
        raise TypeError(
            f"ctxfuzz.fuzz runs your function in a child process, which imports it by name; "
            f"{qualname} is defined in the script being run (__main__), which the child cannot "
            "import without running it again: move it into a module"
        )
    text = f"{module}:{qualname}"
    try:
        found = load(text)
    except (ImportError, AttributeError) as error:
        raise TypeError(f"ctxfuzz.fuzz cannot import {text} back by name: {error}") from None
    if found is not function:
        raise TypeError(
            f"ctxfuzz.fuzz imports your function by name in a child process, and {text} names "
            f"another object than the one given ({found!r}); pass the function the module defines"
        )
    return text


def _checked_text(text):
    """A `module:qualname` text, its module found without running it (importing could be slow)."""
    module, colon, qualname = text.partition(":")
    if not colon or not module or not qualname:
        raise ValueError(f"ctxfuzz.fuzz: {text!r} is not of the form 'module:function'")
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError) as error:
        raise ValueError(f"ctxfuzz.fuzz: cannot find module {module!r} of {text!r}: {error}") from None
    if spec is None:
        raise ValueError(f"ctxfuzz.fuzz: no module {module!r} (of {text!r}) on sys.path")
    return text


def load(text):
    """The object `module:qualname` names (attributes followed through the dots of qualname)."""
    module, _, qualname = text.partition(":")
    found = importlib.import_module(module)
    for name in qualname.split("."):
        found = getattr(found, name)
    return found
