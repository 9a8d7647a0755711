"""How deeply the language nests, measured in its own terms.

The parser rejects anything deeper with a positioned "nested too deeply" error, so every
stage after it (transformer, printer, cache, checker, interpreter) only ever meets trees
within these bounds, and the interpreter guarantees everything within them runs.

Expression depth: each expression slot (a condition, an argument, a value) is one level, and
so is each parenthesis, `not`, operator operand, `.attribute`, `count(...)` and function-call
argument inside it. Block depth: each statement body nested inside `each`, `if`,
`simultaneously`, `at next`, a verb, a rule clause or a card entry is one level.
"""

MAX_EXPRESSION_DEPTH = 64
MAX_BLOCK_DEPTH = 32

# An integer literal longer than this is rejected at its position (Python itself refuses to
# convert more than 4,300 digits; no count, damage or turn number comes near either).
MAX_INTEGER_DIGITS = 100
