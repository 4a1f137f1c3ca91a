"""Check tool arguments against the tools' input schemas and name the first bad field.

A small validator for exactly the JSON Schema keywords `tools.py` uses (type, enum, minimum,
maximum, minLength, maxLength, items, minItems, maxItems, anyOf, required,
additionalProperties: false). MCP asks for argument errors as tool results, so the model can
correct itself; this module only produces the message, `handlers.py` turns it into a result.
"""

from __future__ import annotations

from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "boolean": (bool,), "array": (list,),
    "object": (dict,), "number": (int, float),
}


class ArgumentError(ValueError):
    """`field` is the dotted path of the offending argument; `reason` says what is wrong."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"invalid argument `{field}`: {reason}")
        self.field = field
        self.reason = reason


def validate(schema: dict[str, Any], value: Any, path: str = "arguments") -> None:
    """Raise ArgumentError for the first violation; return quietly when `value` conforms."""
    if "anyOf" in schema:
        _any_of(schema["anyOf"], value, path)
        return
    expected = schema.get("type")
    if expected is not None and not _is_type(value, expected):
        raise ArgumentError(path, f"expected {expected}, got {_kind(value)}")
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(repr(v) for v in schema["enum"])
        raise ArgumentError(path, f"must be one of {allowed}")
    if isinstance(value, str):
        _check_length(schema, len(value), path, "character")
    elif isinstance(value, int) and not isinstance(value, bool):
        _check_range(schema, value, path)
    elif isinstance(value, list):
        _check_length(schema, len(value), path, "item", prefix="Items")
        for i, item in enumerate(value):
            validate(schema.get("items", {}), item, f"{path}[{i}]")
    elif isinstance(value, dict):
        _check_object(schema, value, path)


def _any_of(options: list[dict[str, Any]], value: Any, path: str) -> None:
    errors: list[ArgumentError] = []
    for option in options:
        try:
            validate(option, value, path)
            return
        except ArgumentError as exc:
            errors.append(exc)
    # Report the option whose type matched, if any: its message is the useful one, plus the
    # other forms when the value itself (not an item inside it) was wrong.
    for option, error in zip(options, errors, strict=True):
        if _is_type(value, option.get("type", "")):
            others = [_shape(o) for o in options if o is not option]
            if error.field != path or not others:
                raise error
            raise ArgumentError(path, f"{error.reason}; or {' or '.join(others)}")
    raise ArgumentError(path, f"must be {' or '.join(_shape(o) for o in options)}, "
                        f"got {_kind(value)}")


def _shape(schema: dict[str, Any]) -> str:
    """One form an anyOf allows, in words: `one of 'all'`, `an array of integers`."""
    if "enum" in schema:
        return "one of " + ", ".join(repr(v) for v in schema["enum"])
    kind = schema.get("type", "value")
    if kind == "array" and "type" in schema.get("items", {}):
        return f"an array of {schema['items']['type']}s"
    return f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}"


def _check_object(schema: dict[str, Any], value: dict[str, Any], path: str) -> None:
    props: dict[str, Any] = schema.get("properties", {})
    prefix = "" if path == "arguments" else path + "."
    for name in schema.get("required", []):
        if name not in value:
            raise ArgumentError(prefix + name, "is required")
    for name, item in value.items():
        if name not in props:
            if schema.get("additionalProperties", True) is False:
                raise ArgumentError(prefix + name, f"unknown argument; allowed: "
                                    f"{', '.join(props) or 'none'}")
            continue
        validate(props[name], item, prefix + name)


def _check_length(schema: dict[str, Any], n: int, path: str, unit: str,
                  prefix: str = "Length") -> None:
    lo, hi = schema.get(f"min{prefix}"), schema.get(f"max{prefix}")
    if lo is not None and n < lo:
        raise ArgumentError(path, f"needs at least {lo} {unit}{'s' if lo != 1 else ''}")
    if hi is not None and n > hi:
        raise ArgumentError(path, f"allows at most {hi} {unit}s")


def _check_range(schema: dict[str, Any], n: int, path: str) -> None:
    lo, hi = schema.get("minimum"), schema.get("maximum")
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        raise ArgumentError(path, f"must be between {lo} and {hi}, got {n}")


def _is_type(value: Any, expected: str) -> bool:
    if isinstance(value, bool) and expected != "boolean":
        return False  # JSON true is not an integer
    return isinstance(value, _TYPES.get(expected, ()))


def _kind(value: Any) -> str:
    for name, _types in _TYPES.items():
        if _is_type(value, name):
            return name
    return "null" if value is None else type(value).__name__
