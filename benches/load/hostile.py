"""Writes the worst-case documents of benches/hostile-load.sh into the directory given, each
just under 1 MB (the default --max-body is 1 MiB)."""
import json
import sys

SIZE = 1_000_000
CHOICE = '```single-choice\n{ "version": "1", "question": "Which?", "options": ["A", "B"] }\n```\n'


def fill(unit, head=""):
    n = (SIZE - len(head)) // len(unit)
    return head + unit * n


def side(prefix):
    return "&".join(f"{prefix}{i}" for i in range(587))


chain = f"graph TD\n{side('l')} --> {side('r')}"
fence = "```mermaid\n" + json.dumps({"version": "1", "source": chain}) + "\n```\n\n"
docs = {
    # GFM fills every `|b` row out to the header's 300 cells.
    "table": fill("|b\n", "|" + "a|" * 300 + "\n|" + "-|" * 300 + "\n"),
    # 587 x 587 = 344,569 edges per fence, as written.
    "mermaid": fill(fence),
    "quotes": ">" * (SIZE - 10) + " deep\n",
    "fences": fill(CHOICE + "\n"),
}
for name, text in docs.items():
    with open(f"{sys.argv[1]}/{name}.md", "w", encoding="utf-8") as f:
        f.write(text)
