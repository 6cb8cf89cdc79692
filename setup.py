"""Build configuration beyond pyproject.toml: the optional C extension of the fast evaluator.

``libs.poker.fast._native`` is ``optional``: without a C compiler (or Python headers) the install
still succeeds, with a warning, and ``FastEvaluator`` runs its pure-Python code instead.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "libs.poker.fast._native",
            sources=["libs/poker/fast/_native.c"],
            optional=True,
        )
    ]
)
