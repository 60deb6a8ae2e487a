"""The markdown tables the benchmarks print: each row printed as it comes
(a long run shows its progress), the whole table written at the end when
asked for."""
import re
from pathlib import Path


class MarkdownTable:
    def __init__(self, header):
        """`header`: the header row, "| a | b |" (a cell may hold an
        escaped "\\|")."""
        columns = len(re.findall(r"(?<!\\)\|", header)) - 1
        self.rows = [header, "|" + "---|" * columns]
        print(header, flush=True)

    def add(self, *cells):
        """Appends and prints a row of `cells` (anything str() takes)."""
        self.rows.append("| " + " | ".join(str(c) for c in cells) + " |")
        print(self.rows[-1], flush=True)

    def write(self, path):
        """Writes the table to `path`; nothing when `path` is empty."""
        if path:
            Path(path).write_text("\n".join(self.rows) + "\n")
