#!/usr/bin/env python3
"""Writes Markdown shapes known to drive Markdown parsers into superlinear work, each at about
SIZE bytes, to DIR/<shape>.md: `pathological.py DIR SIZE`.

The shapes are the kinds cmark's pathological tests exercise (nested and unmatched emphasis,
brackets, backticks, unclosed links and comments, deep quotes and lists, many references),
then GFM's extensions (tables, autolinks, strikethrough, footnotes, task lists) and what this
engine adds (alerts, shortcodes, front matter, `<details>`, component fences). Each is built
by repeating a unit, so doubling SIZE doubles the document.
"""
import json
import os
import sys

CHOICE = json.dumps({"version": "1", "question": "Which?", "options": ["A", "B"]})


def shapes(size):
    def rep(unit, head="", tail=""):
        n = max(1, (size - len(head) - len(tail)) // len(unit))
        return head + unit * n + tail

    half = lambda unit: max(1, size // (2 * len(unit)))
    return {
        "nested_emphasis": "*a **a " * half("*a **a ") + "b" + " a** a*" * half(" a** a*"),
        "emphasis_closers": rep("a_ "),
        "emphasis_openers": rep("_a "),
        "emphasis_mismatched": rep("*a_ "),
        "emphasis_multiple_of_3": rep("c* ", head="a**b"),
        "link_closers": rep("a]"),
        "link_openers": rep("[a"),
        "link_openers_emphasis_closers": rep("[ a_"),
        "bracket_paren": rep("[ (]("),
        "nested_brackets": "[" * half("[") + "a" + "]" * half("]"),
        "image_openers": rep("!["),
        "unclosed_links_angle": rep("[a](<b"),
        "unclosed_links": rep("[a](b"),
        "link_destination_parens": rep("(", head="[a](", tail=")"),
        "backticks": "".join("e" + "`" * i for i in range(1, int((2 * size) ** 0.5))),
        "unclosed_comments": rep("<!--", head="</"),
        "inline_html_openers": rep("<a "),
        "entities": rep("&#"),
        "nested_quotes": rep("> ", tail="a"),
        "quote_marker_run": rep(">", tail=" a\n"),
        "quote_marker_runs": rep(">" * 200 + " a\n"),
        "nested_lists": "".join(
            "  " * i + "* a\n" for i in range(int((size / 2) ** 0.5))
        ),
        "indented_lists": "".join(" " * (i % 40) + "- a\n" for i in range(size // 24)),
        "lazy_quote": rep("b\n", head="> a\n"),
        "references": "".join(f"[r{i}]: /u{i}\n" for i in range(size // 24))
        + "".join(f"[r{i}]" for i in range(size // 24)),
        "setext_headings": rep("a\n" * 100 + "=\n"),
        "table_rows": rep("|x|y|\n", head="|a|b|\n|-|-|\n"),
        "table_short_rows": rep("|b\n", head="|" + "a|" * 100 + "\n|" + "-|" * 100 + "\n"),
        "autolink_www": rep("www.a"),
        "autolink_colons": rep("a:"),
        "autolink_ats": rep("a@"),
        "strikethrough": rep("~~a "),
        "tildes": rep("~a~~"),
        "footnotes": "".join(f"[^{i}]" for i in range(size // 16))
        + "\n\n"
        + "".join(f"[^{i}]: n\n" for i in range(size // 16)),
        "footnote_definitions_nested": rep("[^a]: ", tail="x"),
        "task_lists": rep("- [ ] a\n"),
        "alerts": rep("> [!NOTE]\n> a\n\n"),
        "shortcodes": rep(":a:"),
        "front_matter": rep("a: b\n", head="---\n", tail="---\nx\n"),
        "front_matter_unclosed": rep("a: b\n", head="---\n"),
        "details": "<details><summary>a</summary>\n\n" * half("<details><summary>a</summary>\n\n")
        + "x\n"
        + "</details>\n" * half("</details>\n"),
        "headings": rep("# a\n"),
        "code_fences_in_quotes": rep("> ```\n"),
        "component_fences": rep(f"```single-choice\n{CHOICE}\n```\n\n"),
    }


def main():
    out, size = sys.argv[1], int(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    for name, text in shapes(size).items():
        with open(os.path.join(out, name + ".md"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
