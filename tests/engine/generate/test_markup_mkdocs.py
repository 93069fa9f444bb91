"""Markdown as MkDocs Material and Docusaurus write it (issue 49 item 1): admonitions,
details and content tabs read as their titles and text (not as indented code), code
annotations and attribute lists out, MDX imports and JSX tags out with their text kept,
and every block still at its own line of the file."""

from __future__ import annotations

from checkspec.engine.generate.markup import markdown_blocks

MATERIAL = """\
---
title: Setup
---
# Setup

!!! note "Before you start"

    Install the **theme** first.

    ```yaml
    theme: material # (1)!
    ```

???+ tip

    Details, open.

=== "pip"

    Run pip to install it.

=== "docker"

    !!! warning

        Docker needs a volume.

<!-- md:version 9.0.0 -->
## Options { #options }

Click :material-cog: the gear [here](#){ .md-button }.

``` yaml title="mkdocs.yml" hl_lines="2"
plugins:
  - search # (2)
```

1.  The annotation's text.
--8<-- "includes/abbreviations.md"
"""


def _read(text: str) -> list[tuple[str, int, bool]]:
    return [(b.text, b.line, b.code) for b in markdown_blocks(text.splitlines(keepends=True))]


def test_mkdocs_material_blocks_read_as_text_with_their_lines() -> None:
    assert _read(MATERIAL) == [
        ("Setup", 4, False),
        ("Before you start", 6, False),
        ("Install the theme first.", 8, False),
        ("theme: material", 11, True),
        ("Tip", 14, False),
        ("Details, open.", 16, False),
        ("pip", 18, False),
        ("Run pip to install it.", 20, False),
        ("docker", 22, False),
        ("Warning", 24, False),
        ("Docker needs a volume.", 26, False),
        ("Options", 29, False),
        ("Click the gear here.", 31, False),
        ("mkdocs.yml", 33, False),  # the code block's title, shown above it
        ("plugins:\n  - search", 34, True),
        ("- The annotation's text.", 38, False),
    ]


DOCUSAURUS = """\
---
id: intro
sidebar_label: Intro
---
import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';
export const Highlight = ({children}) => <span>{children}</span>;

# Intro

:::tip What You'll Learn

- How to set up the store

:::

:::note[Heads up]
Read this first.
:::

{/* an MDX comment */}

<Tabs groupId="pm">
<TabItem value="npm" label="npm">

Install with npm.

</TabItem>
</Tabs>

/// details | Why?
Because it works.
///

{* ../../docs_src/app.py hl[3] *}
"""


def test_docusaurus_and_pymdownx_blocks_read_as_text() -> None:
    assert _read(DOCUSAURUS) == [
        ("Intro", 9, False),
        ("What You'll Learn", 11, False),
        ("- How to set up the store", 13, False),
        ("Heads up\nRead this first.", 17, False),
        ("Install with npm.", 26, False),
        ("Why?\nBecause it works.", 31, False),
    ]


def test_markers_inside_code_are_code() -> None:
    text = '# Page\n\n```markdown\n!!! note\n\n    body\n=== "tab"\n:::tip\n```\n'
    assert _read(text) == [
        ("Page", 1, False),
        ('!!! note\n\n    body\n=== "tab"\n:::tip', 4, True),
    ]


def test_an_indented_code_block_outside_admonitions_stays_code() -> None:
    text = "# Page\n\nText.\n\n    indented code\n"
    assert _read(text) == [("Page", 1, False), ("Text.", 3, False), ("indented code", 5, True)]


def test_setext_headings_and_bang_lines_of_plain_markdown_are_left_alone() -> None:
    text = "Title\n===\n\nBody text.\n\n!!!\n\nSection\n---\n\nMore.\n"
    blocks = list(markdown_blocks(text.splitlines(keepends=True)))
    assert [(b.text, b.line, b.heading) for b in blocks] == [
        ("Title", 1, 1),
        ("Body text.", 4, 0),
        ("!!!", 6, 0),
        ("Section", 8, 2),
        ("More.", 11, 0),
    ]


MYST = """\
# API

Use {py:class}`~client.Client` or {doc}`the guide <guide/index>`.

```{note} Read first
:class: tip

The **client** is thread-safe.
```

```{code-block} python
:caption: Example

client = Client()
```

```{toctree}
:maxdepth: 2

guide/index
```

:::{warning}
:class: dropdown
Do not share tokens.
:::

```{versionadded} 2.0
Retries.
```
"""


def test_myst_roles_and_directives_read_as_sphinx_shows_them() -> None:
    assert _read(MYST) == [
        ("API", 1, False),
        ("Use Client or the guide.", 3, False),
        ("Read first", 5, False),
        ("The client is thread-safe.", 8, False),
        ("client = Client()", 14, True),
        ("Warning", 23, False),
        ("Do not share tokens.", 25, False),
        ("Added in version 2.0.", 28, False),
        ("Retries.", 29, False),
    ]


def test_myst_targets_and_cell_breaks_are_not_text() -> None:
    text = '(intro)=\n# Intro\n\nFirst cell.\n\n+++ {"tags": []}\n\nSecond cell.\n'
    assert _read(text) == [
        ("Intro", 2, False),
        ("First cell.", 4, False),
        ("Second cell.", 8, False),
    ]


FOOTNOTES = """\
The default type is `note`[^1]:

  [^1]:
    Previously, some types had more than one qualifier.
    Use [`abstract`](#+type:abstract) instead.

Text after[^note].

[^note]: A one-line note.
"""


def test_footnotes_keep_their_text_and_lose_their_markers() -> None:
    # A definition's body is indented by 4 (Python-Markdown): text, not indented code.
    assert _read(FOOTNOTES) == [
        ("The default type is note:", 1, False),
        ("Previously, some types had more than one qualifier.\nUse abstract instead.", 4, False),
        ("Text after.", 7, False),
        ("A one-line note.", 9, False),
    ]


def test_attribute_lists_with_values_and_inline_highlighting_are_out() -> None:
    text = (
        '- :material-circle:{ style="color: red" } `--md-code-hl-number-color`\n'
        "- an image ![logo](logo.png){ width=300 } here\n\n"
        "The `#!python range()` function; `{a=1}` in code stays.\n"
    )
    assert [b.text for b in markdown_blocks(text.splitlines(keepends=True))] == [
        "- --md-code-hl-number-color",
        "- an image logo here",
        "The range() function; {a=1} in code stays.",
    ]


def test_a_link_without_text_shows_its_target_and_code_keeps_its_urls() -> None:
    text = (
        "Check out [](../tutorials/references.md) and [](#top) or [](https://x.org).\n\n"
        "Write `[Book](https://jupyterbook.org)` for a link to https://x.org/y.\n"
    )
    assert [b.text for b in markdown_blocks(text.splitlines(keepends=True))] == [
        "Check out tutorials/references.md and or .",
        "Write [Book](https://jupyterbook.org) for a link to",
    ]
