"""What a write to an attribute can change, as bits, worked out once per attribute and
rulebook and or-ed together over an object's writes.

`ObjectWriter.put_all` reads them to know which caches and checks a batch reaches, and
`Statics.touched` to know whether a static ability's source or reach changed.
"""

from __future__ import annotations

WRITTEN = 1  # every write has it, so that no write is 0
REACHES = 2  # what a static ability reaches (its selection reads the attribute)
CHECKED = 4  # what a state check finds
HIDES = 8  # whether a hide rule hides the object
SOURCES = 16  # what a source's abilities are and whose they are: its card and its controller
ANY = WRITTEN | REACHES | CHECKED | HIDES | SOURCES  # an object replaced whatever changed in it


def bits_of(attr: str, program) -> int:
    """The bits of a write to `attr` under a program (`interpreter.program.program.Program`)."""
    return (WRITTEN | REACHES * (attr in program.static_reach) | CHECKED * (attr in program.check_inputs)
            | HIDES * (attr in program.hide_inputs) | SOURCES * (attr in ("card", "controller")))
