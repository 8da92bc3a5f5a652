"""A quote on the web pages: its Markdown rendered, its text and commands unchanged, and
nothing of the runbook's own becoming markup or a link elsewhere."""

from __future__ import annotations

import html
import re

from bot.web.quote_html import quote_html
from tests.bot.corpus_quotes import POD_FAILURE, section
from tests.web.test_present import citation

URL = "https://github.com/acme/runbooks/blob/abc/ops/db.md#L4"
COMMAND = 'kubectl -n db exec -it db-0 -- psql -c \'SELECT 1 < 2 AND "a" <> "b";\''


def shown(quote: str, url: str | None = URL, **fields: object) -> str:
    return str(quote_html(citation(quote=quote, url=url, path="ops/db.md", **fields)))


def test_steps_are_a_list_and_a_command_is_a_code_block_byte_for_byte() -> None:
    out = shown(f"1. Check the pool:\n   ```bash\n   {COMMAND}\n   ```\n2. Restart `pgbouncer`.\n")
    assert out.count("<li>") == 2 and "<ol>" in out
    code = re.search(r'<pre><code class="language-bash">(.*?)</code></pre>', out, re.S)
    assert code is not None and html.unescape(code.group(1)) == COMMAND + "\n"
    assert "<code>pgbouncer</code>" in out


def test_html_in_a_runbook_is_text_and_no_script_link_is_made() -> None:
    out = shown(
        '<script>alert(1)</script> <img src=x onerror="alert(2)"> '
        "[click](javascript:alert(3)) [mail](mailto:dba@example.com)"
    )
    assert "<script" not in out and "<img" not in out
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out
    assert 'href="javascript' not in out and 'href="mailto' not in out
    assert "click" in out and "mail" in out


def test_links_resolve_against_the_quoted_file_as_in_slack() -> None:
    out = shown(
        "See [the restore](../db/restore.md), [the manual](/manual/purge-cache) and "
        "[Grafana](https://grafana.example/d/db)."
    )
    assert '<a href="https://github.com/acme/runbooks/blob/abc/db/restore.md"' in out
    assert '<a href="https://grafana.example/d/db"' in out
    # a documentation site's address quoted from the code host: text, not a broken link
    assert "the manual" in out and "/manual/purge-cache" not in out
    assert 'rel="noopener noreferrer"' in out


def test_an_image_is_linked_never_loaded() -> None:
    out = shown("The pool: ![pool graph](img/pool.png)")
    assert "<img" not in out
    assert '<a href="https://github.com/acme/runbooks/blob/abc/ops/img/pool.png"' in out
    assert "[image: pool graph]" in out
    assert "<img" not in shown("![pool graph](img/pool.png)", url=None)


def test_a_reference_defined_elsewhere_reads_as_its_text() -> None:
    out = shown(
        "Follow [the restore][restore] first, then [Grafana][g].\n\n[g]: https://g.example/"
    )
    assert "the restore" in out and "[the restore]" not in out
    assert '<a href="https://g.example/"' in out and ">Grafana</a>" in out


def test_github_html_reads_as_what_it_stands_for_and_code_stays_as_written() -> None:
    out = shown(
        "1. **Raise the limit**<br />\n   then wait.<br>See <a href='https://x.example/a'>it</a>.\n"
        "<!-- a note\nfor editors -->\n<details>\n<summary>The query</summary>\n\n"
        "```sql\nSELECT '<br>' FROM t; -- <!-- kept -->\n```\n\n</details>\n\n"
        "Run `get -n <namespace>` for <pod-name>.\n\n| a | b |\n|---|---|\n| x<br>y | <b>z</b> |\n"
    )
    assert "<strong>Raise the limit</strong><br>\nthen wait.<br>\nSee" in out
    assert '<a href="https://x.example/a" rel="noopener noreferrer">it</a>' in out
    assert "for editors" not in out and "<strong>The query</strong>" in out
    assert "SELECT '&lt;br&gt;' FROM t; -- &lt;!-- kept --&gt;" in out  # code as written
    assert "<code>get -n &lt;namespace&gt;</code> for &lt;pod-name&gt;." in out
    assert "<td>x y</td>" in out and "<td>z</td>" in out


def test_a_break_before_a_list_is_no_stray_backslash() -> None:
    out = shown("2. **Check the shard size**<br />\n   - When sharding is on, count.\n")
    assert "\\" not in out
    assert "<strong>Check the shard size</strong>" in out and "<li>When sharding" in out


def test_a_task_lists_boxes_show_as_boxes() -> None:
    out = shown("- [ ] Drain the node\n- [x] Page the owner\n\nKeep `- [ ] literal` as code.")
    assert "<li>☐ Drain the node</li>" in out and "<li>☑ Page the owner</li>" in out
    assert "<code>- [ ] literal</code>" in out


def test_indented_sample_output_folds_behind_show_example_as_in_slack() -> None:
    heading = "Writing and reading a termination message"
    out = shown(section(POD_FAILURE, heading))
    folded = re.search(r'<details class="example">(.*?)</details>', out, re.S)
    assert folded is not None
    assert "<summary>Show example (11 lines)</summary>" in folded.group(1)
    assert "<pre><code> apiVersion: v1\n kind: Pod\n" in folded.group(1)
    # the commands around it are no example, and the steps stay one list
    assert out.count('<details class="example">') == 1 and out.count("<ol>") == 1
    assert "<pre><code> kubectl get pod termination-demo --output=yaml\n</code></pre>" in out


def test_indented_code_stays_as_written_like_fenced_code() -> None:
    out = shown(
        "1. Render the config:\n\n       <!-- generated -->\n       echo a<br>b [x][y]\n\n"
        "   Then apply it.\n\n[y]: https://y.example/\n"
    )
    code = re.search(r"<pre><code>(.*?)</code></pre>", out, re.S)
    assert code is not None
    assert html.unescape(code.group(1)) == "<!-- generated -->\necho a<br>b [x][y]\n"
    assert "Then apply it." in out
