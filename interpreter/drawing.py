"""Drawing a table of rows on the console: rich's drawing, made fast enough for thousands of rows.

Rich draws a table's title and header; the rows are drawn here from rich's own wrapping of
each cell, between the borders of the table's box, so that the output is rich's drawing of the
whole table (tests/test_console.py holds it to that) at a fraction of its cost.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

NARROWEST_CELL = 4
"""Below this many characters a column (plus its 3 of border and padding) is not worth drawing."""


def show_table(table: Table, console: Console) -> None:
    """Print `table` on `console`; on a console too narrow to give every column
    NARROWEST_CELL characters, as a list instead (each row's first cell, then its other cells as
    `column: value`), so that no cell is cut or left empty.

    The columns get the widths `column_widths` chooses. Rich draws the title and the header
    (a table of no rows, with those widths); the rows are drawn here, each cell wrapped by rich
    (`Text.wrap`, as rich wraps a cell) and each row as tall as its tallest cell, between the
    borders of the table's box: rich's own drawing of a row takes about a millisecond for six
    cells, and `versions` over 5,000 variants spent longer drawing its table than parsing their
    files. The output is rich's drawing of the whole table (tests/test_console.py)."""
    columns = table.columns
    if console.width < len(columns) * (NARROWEST_CELL + 3) + 1:
        cells = [list(column.cells) for column in columns]
        if table.title is not None:
            console.print(table.title)
        for row in range(table.row_count):
            console.print(cells[0][row])
            for column, values in zip(columns[1:], cells[1:]):
                if values[row].plain:
                    console.print(Text.assemble("  ", column.header, ": ", values[row]))
        return
    console.print(_Drawn(table, column_widths(table, console.width)))


class _Drawn:
    """`table` drawn with columns `widths` wide (`show_table`)."""

    def __init__(self, table: Table, widths: list[int]):
        self.table = table
        self.widths = widths

    def __rich_console__(self, console: Console, options):
        table, widths = self.table, self.widths
        head = Table(title=table.title, title_justify=table.title_justify, box=table.box, safe_box=table.safe_box)
        for column, width in zip(table.columns, widths):
            head.add_column(column.header, overflow=column.overflow, width=width)
        drawn = console.render_lines(head, options, pad=False, new_lines=True)  # (title, top, header, rule, bottom)
        for line in drawn[:-1] if table.row_count else drawn:
            yield from line
        if not table.row_count:
            return
        box = table.box.substitute(options, safe=table.safe_box if table.safe_box is not None else console.safe_box)
        padded = [width + 2 for width in widths]
        cells = [list(column.cells) for column in table.columns]
        last = len(widths) - 1
        for row in range(table.row_count):
            wrapped = [_wrapped(values[row], width, column, console)
                       for values, width, column in zip(cells, widths, table.columns)]
            for k in range(max(len(cell) for cell in wrapped)):
                line = [box.mid_left, " "]
                for j, (cell, width) in enumerate(zip(wrapped, widths)):
                    text = cell[k] if k < len(cell) else _BLANK
                    if text.spans or text.style:
                        yield Segment("".join(line))
                        yield from text.render(console, end="")
                        line = []
                    else:
                        line.append(text.plain)
                    line += [" " * (width - cell_len(text.plain)), " ", box.mid_vertical if j < last else box.mid_right]
                    if j < last:
                        line.append(" ")
                line.append("\n")
                yield Segment("".join(line))
        yield Segment(box.get_bottom(padded) + "\n")


_BLANK = Text("")


def _wrapped(cell, width: int, column, console: Console) -> list[Text]:
    """The lines rich draws `cell` in, in a column `width` wide."""
    if not isinstance(cell, Text):
        cell = Text(str(cell))
    plain = cell.plain
    if "\n" not in plain and "\t" not in plain and cell_len(plain) <= width:
        return [cell]
    return list(cell.wrap(console, width, justify=column.justify, overflow=column.overflow))


def column_widths(table: Table, console_width: int) -> list[int]:
    """Each column's width: its widest cell (or header) where they all fit the console; where
    they do not, the widest columns are narrowed to one common width, the largest that lets the
    table fit, so that the narrow columns keep their cells on one line and the wide ones wrap."""
    natural = [max((_widest_line(cell) for cell in (column.header, *column.cells)), default=1) or 1
               for column in table.columns]
    room = console_width - (3 * len(natural) + 1)  # (a border and two spaces of padding a column, and the last border)
    if sum(natural) <= room:
        return natural
    ordered = sorted(natural)
    cap, narrower = NARROWEST_CELL, 0  # (the common width, and the total of the columns narrower than it)
    for k, width in enumerate(ordered):  # (the columns below `width` keep theirs; the rest share what is left)
        share = (room - narrower) // (len(ordered) - k)
        if share < width:
            cap = max(cap, share)
            break
        narrower += width
    widths = [min(width, cap) for width in natural]
    spare = room - sum(widths)
    for k, width in enumerate(natural):  # (what the division left over, a character each to the capped columns)
        if spare > 0 and width > widths[k]:
            widths[k] += 1
            spare -= 1
    return widths


def _widest_line(cell) -> int:
    text = cell.plain if isinstance(cell, Text) else str(cell)
    return max((cell_len(line) for line in text.split("\n")), default=0)
