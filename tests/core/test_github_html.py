"""GitHub's HTML in Markdown as the Markdown it stands for."""

from __future__ import annotations

from core.github_html import HTML_BREAK, HTML_COMMENT, html_as_markdown, without_comments


def test_links_images_and_labels_read_as_markdown() -> None:
    assert html_as_markdown('See <a href="https://x.example/a"><p>the doc</p></a>.') == (
        "See [the doc](https://x.example/a)."
    )
    assert html_as_markdown('<img src="g.png" alt="pool graph">') == "![pool graph](g.png)"
    assert html_as_markdown("<img alt='no source'>") == "no source"
    assert html_as_markdown("<summary>Show it</summary>") == "**Show it**"
    assert html_as_markdown('<p align="center">Page the DBA.</p>') == "Page the DBA."


def test_placeholders_are_no_html() -> None:
    line = "kubectl -n <namespace> logs <pod-name>"
    assert html_as_markdown(line) == line
    assert HTML_BREAK.sub("|", "a<br>b<br/>c<BR />d") == "a|b|c|d"
    assert HTML_COMMENT.sub("", "a<!-- x\ny -->b") == "ab"


def test_comments_go_from_prose_and_stay_in_code() -> None:
    text = (
        "Restart it. <!-- ask the DBA\nfirst --> Then wait.\n\n"
        "```xml\n<config><!-- keep --></config>\n```\n\n"
        "Set `<!-- a literal -->` in the template."
    )
    out = without_comments(text)
    assert "ask the DBA" not in out and "Restart it.  Then wait." in out
    assert "<config><!-- keep --></config>" in out
    assert "`<!-- a literal -->`" in out
