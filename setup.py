"""Build configuration beyond pyproject.toml: the optional C extensions.

Both are ``optional``: without a C compiler (or Python headers) the install still succeeds, with a
warning, and the pure-Python code runs instead: ``libs.poker.fast._native`` (the fast evaluator's
per-call and batch kernels), ``libs.tableproto._wire`` (a table replay's reading of its
commits) and ``libs.eventstore._frames`` (NATS message frames of a stream read, taken from the
connection's buffer).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "libs.poker.fast._native",
            sources=["libs/poker/fast/_native.c"],
            optional=True,
        ),
        Extension(
            "libs.tableproto._wire",
            sources=["libs/tableproto/_wire.c"],
            optional=True,
        ),
        Extension(
            "libs.eventstore._frames",
            sources=["libs/eventstore/_frames.c"],
            optional=True,
        ),
    ]
)
