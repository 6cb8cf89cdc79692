"""The metric names a PromQL expression reads, so the dashboard and the alert rules can be
checked against the metrics the code exports (without a Prometheus to parse them)."""

from __future__ import annotations

import re

# fmt: off
FUNCTIONS = frozenset({
    "abs", "absent", "absent_over_time", "avg", "avg_over_time", "bottomk", "ceil", "changes",
    "clamp", "clamp_max", "clamp_min", "count", "count_over_time", "count_values", "delta",
    "deriv", "floor", "group", "histogram_quantile", "idelta", "increase", "irate", "label_join",
    "label_replace", "last_over_time", "ln", "max", "max_over_time", "min", "min_over_time",
    "predict_linear", "quantile", "quantile_over_time", "rate", "resets", "round", "scalar",
    "sort", "sort_desc", "stddev", "stdvar", "sum", "sum_over_time", "time", "timestamp", "topk",
    "vector",
})
KEYWORDS = frozenset({
    "and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "bool",
    "offset",
})
# fmt: on
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_BRACES = re.compile(r"\{[^{}]*\}")
_RANGE = re.compile(r"\[[^\]]*\]")
_GROUPING = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)")
_IDENTIFIER = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*(\s*\()?")
_NUMBER_SUFFIX = re.compile(r"\b\d+(\.\d+)?(e[+-]?\d+)?\b", re.I)


class UnknownFunction(ValueError):
    pass


def metric_names(expr: str) -> set[str]:
    """Every metric name in ``expr``; raises UnknownFunction for a call to an unknown function
    (a typo there would otherwise be taken for a metric)."""
    text = _STRING.sub('""', expr)
    text = _BRACES.sub(" ", text)
    text = _RANGE.sub(" ", text)
    text = _GROUPING.sub(" ", text)
    text = _NUMBER_SUFFIX.sub(" ", text)
    text = text.replace("$__rate_interval", " ").replace("$__range", " ")
    names: set[str] = set()
    for match in _IDENTIFIER.finditer(text):
        word = match.group(0).rstrip("( \t\n")
        if match.group(1):
            if word not in FUNCTIONS:
                raise UnknownFunction(f"{word}() in {expr!r}")
        elif word not in KEYWORDS and word not in FUNCTIONS:
            names.add(word)
    return names
