"""The rule files: one folder per CR version (named by its effective date), and the card library.

This package holds data only; `interpreter.rulebook.loading` reads it.
"""
