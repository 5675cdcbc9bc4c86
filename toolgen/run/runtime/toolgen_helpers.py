"""Shared utilities for toolgen's Python tools (docs/sandbox.md#the-runner).

A tool imports them with `from toolgen_helpers import ...`: toolgen's runner puts this module on
the path inside the sandbox. Every failure is a ToolError carrying one of toolgen's deterministic
error codes, with a message that says what to do (the missing column and the available ones,
the path that does not exist), so the caller can fix the call on the first retry.

pandas is imported on first use, so importing this module costs nothing for tools that do not
need it.
"""

import json
import os
import re
import sys

__all__ = [
    "ToolError",
    "InputRequired",
    "ask",
    "form",
    "sampling",
    "roots_list",
    "sample",
    "roots",
    "log",
    "progress",
    "client_can",
    "load_csv_data_with_types",
    "detect_column_types",
    "validate_file_and_columns",
]

# Text values that look like an ISO 8601 date or timestamp. Free-form parsing is avoided on
# purpose: it would read "Sun" or "May" as dates.
ISO_DATETIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$"
)
BOOLEAN_TEXT = {"true": True, "false": False, "True": True, "False": False,
                "TRUE": True, "FALSE": False}
# A column is high-cardinality when it has more distinct values than this and they make up more
# than half of its non-missing values: grouping by it gives almost one group per row.
HIGH_CARDINALITY_MIN = 50


# Answers to earlier questions of this call, filled in by the runner (docs/sandbox.md#asking-for-input).
ANSWERS = {}
# What toolgen serve says of the MCP client of this call, filled in by the runner: which
# requests it can answer ("elicitation", "sampling", "roots") and the lowest "log_level" it
# wants. Empty outside toolgen serve.
CLIENT = {}
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


def _emit(event):
    runner = sys.modules.get("runner")
    emit = getattr(runner, "emit_event", None)
    return bool(emit and emit(event))


def log(level, data, logger=None):
    """Sends a log message to the MCP client while the tool runs, e.g.
    log("info", "read 3 files") or log("warning", {"skipped": 2}, logger="loader").

    level is one of debug, info, notice, warning, error, critical, alert, emergency; data a
    string or any JSON value; logger names the source (default: the tool). The client gets it
    only when it asked for that level or a lower one (legacy clients: logging/setLevel, info by
    default; 2026-07-28 clients: the request's log level, none by default). Outside toolgen
    serve the message goes to stderr.
    """
    if level not in LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LEVELS)}, not {level!r}")
    if not CLIENT:
        print(f"[{level}]{' ' + logger + ':' if logger else ''} {data}", file=sys.stderr)
        return
    want = CLIENT.get("log_level")
    if want not in LEVELS or LEVELS.index(level) < LEVELS.index(want):
        return
    event = {"event": "log", "level": level, "data": data}
    if logger is not None:
        event["logger"] = str(logger)
    _emit(event)


def progress(progress, total=None, message=None):
    """Reports how far the call is, e.g. progress(3, 10, "3 of 10 files"): the MCP client
    gets notifications/progress when it asked for progress. progress must grow from one report
    to the next (a report that does not is dropped); total, when known, is the value progress
    reaches at the end. Once a tool reports progress, the server's own periodic reports stop.
    Outside toolgen serve nothing is sent.
    """
    if not CLIENT:
        return
    event = {"event": "progress", "progress": float(progress)}
    if total is not None:
        event["total"] = float(total)
    if message is not None:
        event["message"] = str(message)
    _emit(event)


def client_can(what):
    """Whether the MCP client of this call can answer a request of kind what: "elicitation"
    (ask), "sampling" (sample) or "roots" (roots). False outside toolgen serve."""
    return bool(CLIENT.get(what))


class InputRequired(BaseException):
    """Raised by ask() (and sample(), roots()) when an answer is not there yet: the runner
    replies with the questions instead of a result. A BaseException, so a tool's
    `except Exception` does not swallow it."""

    def __init__(self, questions):
        super().__init__("; ".join(q.get("params", {}).get("message", q["method"])
                                   for q in questions))
        self.toolgen_ask = questions


def form(message, properties, required=None):
    """A form for the user (MCP elicitation): message, and properties {name: JSON Schema} of
    type string, number, integer, boolean, or array of enum values; required defaults to every
    property. Its answer is the dict of the user's values. For ask({...})."""
    return {"method": "elicitation/create",
            "params": {"mode": "form", "message": str(message),
                       "requestedSchema": {"type": "object", "properties": properties,
                                           "required": list(properties) if required is None
                                           else list(required)}}}


def sampling(messages, max_tokens=1000, system_prompt=None, temperature=None,
             stop_sequences=None, model_preferences=None):
    """A request for the client's model (MCP sampling): messages are [{"role": "user" or
    "assistant", "content": {"type": "text", "text": ...}}] or plain strings (user text). Its
    answer is the client's CreateMessageResult: {"role", "content", "model", "stopReason"}.
    For ask({...})."""
    params = {"messages": [{"role": "user", "content": {"type": "text", "text": m}}
                           if isinstance(m, str) else m for m in messages],
              "maxTokens": int(max_tokens)}
    for key, value in (("systemPrompt", system_prompt), ("temperature", temperature),
                       ("stopSequences", stop_sequences), ("modelPreferences", model_preferences)):
        if value is not None:
            params[key] = value
    return {"method": "sampling/createMessage", "params": params}


def roots_list():
    """A request for the client's roots (MCP roots): its answer is the list of roots, each
    {"uri": "file://...", "name"?}. For ask({...})."""
    return {"method": "roots/list", "params": {}}


def ask(key, message=None, schema=None):
    """The user's answer to a question the tool cannot decide alone, e.g.
    ask("column", "Which column should be summarised?", {"type": "string", "enum": names}).

    key names the answer (letters, digits, _); schema is one JSON Schema of type string,
    number, integer or boolean (default: a string). The first time, the call ends here and the
    MCP client is asked; the call then runs again from the start, and ask() returns the answer.

    Several questions at once: ask({key: form(...) | sampling(...) | roots_list(), ...})
    returns {key: answer} once every one is answered (the client sees them together).

    Only toolgen serve can answer: elsewhere the call fails with INVALID_INPUT.
    """
    if isinstance(key, dict):
        missing = [dict(q, key=k) for k, q in key.items() if k not in ANSWERS]
        if missing:
            raise InputRequired(missing)
        return {k: ANSWERS[k] for k in key}
    if key in ANSWERS:
        return ANSWERS[key]
    question = form(message, {key: schema or {"type": "string"}})
    question["key"], question["field"] = key, key
    raise InputRequired([question])


def sample(messages, max_tokens=1000, key="sample", **options):
    """The client's model's answer to messages (see sampling()): its CreateMessageResult. key
    names the answer, so that a tool asking twice asks two different keys."""
    return ask({key: sampling(messages, max_tokens, **options)})[key]


def roots(key="roots"):
    """The client's roots: a list of {"uri", "name"?}."""
    return ask({key: roots_list()})[key]


class ToolError(Exception):
    """An error with a deterministic code (INVALID_INPUT, NOT_FOUND, ...) for the caller."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def _read_csv(file_path, **kwargs):
    import pandas as pd
    try:
        return pd.read_csv(file_path, **kwargs)
    except FileNotFoundError:
        raise ToolError("NOT_FOUND", f"File not found: {file_path}") from None
    except IsADirectoryError:
        raise ToolError("INVALID_INPUT", f"{file_path} is a directory, not a CSV file") from None
    except PermissionError:
        raise ToolError("FORBIDDEN", f"{file_path} cannot be read (permission denied)") from None
    except pd.errors.EmptyDataError:
        raise ToolError("INVALID_INPUT",
                        f"{file_path} is empty: a CSV file needs at least a header row") from None
    except pd.errors.ParserError as e:
        raise ToolError("INVALID_INPUT", f"{file_path} is not a valid CSV file: {e}") from None
    except UnicodeDecodeError:
        raise ToolError("INVALID_INPUT", f"{file_path} is not UTF-8 text") from None


def validate_file_and_columns(file_path, required_columns=None):
    """Raise a ToolError unless file_path is a readable CSV file whose header names every
    column of required_columns. Reads the header only."""
    if not isinstance(file_path, str) or not file_path:
        raise ToolError("INVALID_INPUT", "file_path must be a non-empty string")
    if not os.path.exists(file_path):
        raise ToolError("NOT_FOUND", f"File not found: {file_path}")
    if not os.path.isfile(file_path):
        raise ToolError("INVALID_INPUT", f"{file_path} is not a regular file")
    if not required_columns:
        return
    header = [str(c) for c in _read_csv(file_path, nrows=0).columns]
    missing = [str(c) for c in required_columns if str(c) not in header]
    if missing:
        raise ToolError(
            "INVALID_INPUT",
            f"Column(s) not found in {file_path}: {', '.join(missing)}. "
            f"Available columns: {', '.join(header)}")


def _all_json_objects(values):
    parsed = []
    for v in values:
        if not isinstance(v, str) or not v.lstrip().startswith("{"):
            return None
        try:
            obj = json.loads(v)
        except ValueError:
            return None
        if not isinstance(obj, dict):
            return None
        parsed.append(obj)
    return parsed


def load_csv_data_with_types(file_path, auto_expand_json=True):
    """Load a CSV file into a DataFrame with typed columns.

    Beyond pandas' own inference: text columns holding only true/false become booleans, text
    columns holding only ISO 8601 dates or timestamps become datetimes, and (with
    auto_expand_json) text columns holding only JSON objects are expanded into one column per
    key, named "<column>.<key>".
    """
    import pandas as pd
    df = _read_csv(file_path)
    for name in list(df.columns):
        series = df[name]
        if series.dtype != object:
            continue
        values = series.dropna()
        if values.empty:
            continue
        if values.isin(list(BOOLEAN_TEXT)).all():
            df[name] = series.map(BOOLEAN_TEXT).astype("boolean")
            continue
        text = values.astype(str)
        if text.str.match(ISO_DATETIME).all():
            try:
                df[name] = pd.to_datetime(series)
            except (ValueError, TypeError):
                pass
            continue
        if auto_expand_json:
            objects = _all_json_objects(values.tolist())
            if objects is not None:
                expanded = pd.json_normalize(objects)
                expanded.index = values.index
                expanded.columns = [f"{name}.{c}" for c in expanded.columns]
                position = df.columns.get_loc(name)
                df = df.drop(columns=[name])
                for offset, col in enumerate(expanded.columns):
                    df.insert(position + offset, col, expanded[col].reindex(df.index))
    return df


def detect_column_types(df):
    """Classify the columns of df.

    Returns {"numeric": [...], "categorical": [...], "datetime": [...], "boolean": [...],
    "high_cardinality": [...], "column_types": {name: type}}; high_cardinality lists the
    categorical columns with more than 50 distinct values that make up more than half of their
    non-missing values (poor grouping keys).
    """
    import pandas as pd
    kinds = {"numeric": [], "categorical": [], "datetime": [], "boolean": []}
    column_types = {}
    high = []
    for name in df.columns:
        series = df[name]
        if pd.api.types.is_bool_dtype(series):
            kind = "boolean"
        elif pd.api.types.is_numeric_dtype(series):
            kind = "numeric"
        elif pd.api.types.is_datetime64_any_dtype(series):
            kind = "datetime"
        else:
            values = series.dropna().astype(str)
            kind = "datetime" if len(values) and values.str.match(ISO_DATETIME).all() \
                else "categorical"
        kinds[kind].append(str(name))
        column_types[str(name)] = kind
        if kind == "categorical":
            distinct = series.nunique(dropna=True)
            present = int(series.notna().sum())
            if distinct > HIGH_CARDINALITY_MIN and distinct > present / 2:
                high.append(str(name))
    return {**kinds, "high_cardinality": high, "column_types": column_types}
