"""`loads`: json.loads for text anyone may have written (config, hashes, state files, host
configs, MCP request states).

An integer longer than Python's int conversion limit (4,300 digits) makes `json.loads` raise a
plain ValueError, which handlers of `json.JSONDecodeError` miss; here it is a JSONDecodeError
like any other fault of the text, so every caller reports the file instead of a traceback.
"""

from __future__ import annotations

import json
from typing import Any


def loads(text: str | bytes) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # "Exceeds the limit (4300 digits) for integer string conversion"
        doc = text if isinstance(text, str) else text.decode("utf-8", "replace")
        raise json.JSONDecodeError("a number is too long", doc, 0) from exc
