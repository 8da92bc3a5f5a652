"""bot.slack.mrkdwn: runbook Markdown as Slack shows it; commands byte for byte."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from bot.slack.answer_view import render_answer
from bot.slack.mrkdwn import first_command, plain_text, to_mrkdwn
from bot.web.quote_html import markdown_html, quote_html
from core.code_blocks import code_blocks
from core.link_references import with_links
from core.markup import DOCUMENT_SUFFIXES, syntax_for
from retrieval.search.embeddings import FastEmbedder
from tests.bot.block_checks import markdown_leaks
from tests.bot.corpus_quotes import (
    CEPH_NODE_DOWN,
    OVN_NODE,
    POD_FAILURE,
    document,
    section,
)
from tests.conftest import SAMPLE_RUNBOOKS, runtime_over
from tests.web.test_present import citation

BASE = "https://git.example.com/runbooks/blob/abc123/checkout/db.md#L40"


def leaks(text: str) -> list[str]:
    return markdown_leaks(
        {"blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": text}}]}
    )


def test_emphasis_headings_and_strikethrough() -> None:
    out = to_mrkdwn(
        "#### Restart **pgbouncer**\n\n**Do** this, *carefully*, __now__; ~~not that~~."
    )
    assert out == "*Restart pgbouncer*\n\n*Do* this, _carefully_, *now*; ~not that~."


def test_links_images_autolinks_and_relative_links() -> None:
    out = to_mrkdwn(
        "See [the **outage**](../incidents/2026-09-14.md#timeline), ![graph](https://x.io/g.png),"
        " <https://status.example.com> and https://grafana.example.com/d/abc?x=1&y=2."
        " [mail](mailto:a@b.c)",
        base_url=BASE,
    )
    assert (
        "<https://git.example.com/runbooks/blob/abc123/incidents/2026-09-14.md#timeline|the outage>"
        in out
    )
    assert "<https://x.io/g.png|graph>" in out
    assert "<https://status.example.com>" in out
    assert "<https://grafana.example.com/d/abc?x=1&amp;y=2>." in out  # the final dot stays text
    assert "mail" in out and "mailto" not in out


def test_a_link_whose_parenthesis_ends_on_the_next_line_or_holds_parentheses() -> None:
    # CommonMark allows a line end between a link's target and its closing parenthesis
    assert to_mrkdwn("1. Connect to [Serial Console](https://a.io/s.md#b\n). Then go on.") == (
        "1. Connect to <https://a.io/s.md#b|Serial Console>. Then go on."
    )
    assert to_mrkdwn("- [Select a key](https://a.io/jj134256(v=ws.11)) first") == (
        "• <https://a.io/jj134256(v=ws.11)|Select a key> first"
    )


def test_wiki_links_read_as_words_and_shell_tests_stay_code() -> None:
    out = to_mrkdwn(
        "See [[Restart-the-pod]] and [[logs|Checking-the-logs#Errors]], not `[[ -f x ]]`.\n\n"
        "```\n[[ -f /etc/x ]] && echo [[Page]]\n```"
    )
    assert out.startswith("See Restart the pod and logs, not `[[ -f x ]]`.")
    assert "[[ -f /etc/x ]] &amp;&amp; echo [[Page]]" in out  # code as written, escaped
    assert not leaks(out)
    url = "https://git.example/wiki/blob/abc/Restart-the-pod.md#L1"
    linked = to_mrkdwn(
        with_links("See [[restart it|Restart-the-pod]].", [("[[restart it|Restart-the-pod]]", url)])
    )
    assert linked == f"See <{url}|restart it>."


def test_code_in_a_links_text_keeps_the_link_whole() -> None:
    out = to_mrkdwn(
        "Find it in the Postgres [`pg_stat_activity` logs](https://log.example.com/r/x),"
        " then run `select 1` and see [docs](https://x.test/d). Keep `[a](b)` as code."
    )
    assert "<https://log.example.com/r/x|pg_stat_activity logs>" in out
    assert "`select 1`" in out and "<https://x.test/d|docs>" in out
    assert "`[a](b)`" in out  # a link inside code stays code
    assert "](" not in out.replace("`[a](b)`", "")


def test_warning_quotes_become_a_visible_warning_line() -> None:
    md = (
        "3. Run the failover:\n\n"
        "> **WARNING:** failover drops every open connection.\n"
        "> Never use `--force` while a replica lags.\n\n"
        "> [!CAUTION]\n> Irreversible.\n\n"
        "> a plain quote"
    )
    out = to_mrkdwn(md)
    assert (
        ":warning: *WARNING:* failover drops every open connection. Never use `--force` while "
        "a replica lags." in out
    )
    assert ":warning: *CAUTION:* Irreversible." in out
    assert "&gt; a plain quote" not in out and "> a plain quote" in out
    assert "**" not in out


def test_a_warning_with_a_command_keeps_the_command_as_code() -> None:
    md = (
        "> [!WARNING] **Data loss**\n"
        "> Deleting the claim removes the volume. Snapshot it first:\n"
        ">\n"
        "> ```\n"
        "> kubectl -n db get pvc data-0 -o yaml > pvc.yaml\n"
        "> ```\n"
        ">\n"
        "> Then delete it.\n\n"
        "> [!INFO]\n> Read-only."
    )
    lines = to_mrkdwn(md).split("\n")
    assert (
        ":warning: *WARNING:* *Data loss* Deleting the claim removes the volume. Snapshot it first:"
        in lines
    )
    code = lines.index("kubectl -n db get pvc data-0 -o yaml &gt; pvc.yaml")
    assert lines[code - 1] == lines[code + 1] == "```"
    assert "> Then delete it." in lines
    assert ":information_source: *INFO:* Read-only." in lines


def test_site_admonitions_and_shortcodes_show_as_warnings_code_and_links() -> None:
    md = syntax_for("content/runbooks/node/NodeRAIDDiskFailure.md").as_markdown(
        '!!! danger "Primary only"\n    Never on a replica.\n\n'
        "{{< highlight bash >}}\nmdadm --detail /dev/md0\n{{< /highlight >}}\n\n"
        'See [Node RAID Degraded]({{< ref "./NodeRAIDDegraded.md" >}})'
    )
    out = to_mrkdwn(md, base_url="https://git.example/o/r/blob/main/content/runbooks/node/x.md")
    assert ":no_entry: *DANGER:* *Primary only* Never on a replica." in out
    assert "```\nmdadm --detail /dev/md0\n```" in out
    target = "https://git.example/o/r/blob/main/content/runbooks/node/NodeRAIDDegraded.md"
    assert f"<{target}|Node RAID Degraded>" in out
    assert "{{" not in out and "!!!" not in out


def test_yaml_in_a_sites_own_code_shortcode_keeps_its_lines_in_slack() -> None:
    # squeezed as a paragraph, an example's YAML would show as one line
    md = syntax_for("content/en/docs/reference/config/analysis/ist0128/index.md").as_markdown(
        "when your cluster has the following destination rule:\n\n"
        "{{< text yaml >}}\nspec:\n  trafficPolicy:\n    tls:\n      mode: SIMPLE\n"
        "{{< /text >}}\n"
    )
    out = to_mrkdwn(md)
    assert "```\nspec:\n  trafficPolicy:\n    tls:\n      mode: SIMPLE\n```" in out
    assert "{{" not in out


def test_a_site_address_is_no_link_on_the_code_host_but_is_on_the_site() -> None:
    md = "See [purge the cache](/manual/purge-cache) and [the CDN](cdn.html.md)."
    forge = "https://github.com/acme/docs/blob/abc123/source/manual/x.html.md#L3"
    out = to_mrkdwn(md, base_url=forge)
    assert "purge the cache" in out and "github.com/manual" not in out
    assert "<https://github.com/acme/docs/blob/abc123/source/manual/cdn.html.md|the CDN>" in out
    site = to_mrkdwn(md, base_url="https://docs.example.com/manual/x/")
    assert "<https://docs.example.com/manual/purge-cache|purge the cache>" in site


def test_html_github_renders_shows_as_its_text_links_and_labels() -> None:
    md = (
        "<details>\n<summary>Show the full query</summary>\n\n"
        "```sql\nSELECT count(*) FROM jobs WHERE state = 'dead';\n```\n\n</details>\n\n"
        'See <a href="https://grafana.example/d/jobs">the jobs dashboard</a> and '
        '<img src="graph.png" alt="queue depth">.\n\n'
        '<p align="center">Page the on-call DBA first.</p>\n\n'
        'Run `curl -s "<a href=x>"` as it is.'
    )
    out = to_mrkdwn(md, base_url="https://git.example/o/r/blob/abc/docs/jobs.md#L1")
    assert "*Show the full query*" in out
    assert "```\nSELECT count(*) FROM jobs WHERE state = 'dead';\n```" in out
    assert "<https://grafana.example/d/jobs|the jobs dashboard>" in out
    assert "<https://git.example/o/r/blob/abc/docs/graph.png|queue depth>" in out
    assert "Page the on-call DBA first." in out
    assert '`curl -s "&lt;a href=x&gt;"`' in out  # code stays as written
    assert not leaks(out), leaks(out)


@pytest.mark.parametrize(
    "base",
    [
        "https://github.com/acme/ops/wiki/Restart-the-pod/0123456789abcdef0123456789abcdef01234567",
        "https://github.com/acme/ops/wiki/Restart-the-pod",
        "https://gitlab.example/acme/ops/-/wikis/Restart-the-pod#L4",
    ],
)
def test_a_wiki_page_resolves_relative_links_against_the_wiki_root(base: str) -> None:
    root = base.split("/Restart-the-pod")[0]
    out = to_mrkdwn(
        "See ![the graph](images/pods.png) and [the rota](files/rota.pdf).", base_url=base
    )
    assert f"<{root}/images/pods.png|the graph>" in out
    assert f"<{root}/files/rota.pdf|the rota>" in out


def test_code_nested_in_a_list_is_unindented_and_byte_for_byte() -> None:
    command = (
        "kubectl -n db exec -it db-0 -- psql -U postgres -c \\\n"
        "  \"SELECT pid FROM pg_stat_activity WHERE age > interval '60 s' AND a <> b;\""
    )
    indented = "\n".join("   " + line for line in command.splitlines())
    md = f"1. Find them:\n   ```bash\n{indented}\n   ```\n2. Kill them."
    out = to_mrkdwn(md)
    block = out.split("```")[1]
    shown = block.strip("\n").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    assert shown == command  # what Slack shows is exactly the command
    assert "```bash" not in out
    assert out.startswith("1. Find them:\n\n```\n")
    assert out.endswith("```\n2. Kill them.")


def test_indented_code_in_a_list_item_is_code_and_its_wrapped_lines_are_not() -> None:
    md = (
        "1. Check the pod. If it is not\n"
        "   running, look at its events:\n\n"
        "   ```shell\n   kubectl get pod web-0\n   ```\n\n"
        "   The output is similar to this:\n\n"
        "           NAME    READY   STATUS    NOMINATED NODE\n"
        "           web-0   0/1     Pending   <none>\n\n"
        "1. Describe it\n"
        "    - with `kubectl describe pod web-0`, whose events\n"
        "      say why it waits\n"
    )
    assert to_mrkdwn(md) == (
        "1. Check the pod. If it is not running, look at its events:\n\n"
        "```\nkubectl get pod web-0\n```\n\n"
        "    The output is similar to this:\n\n"
        # the item's text indent and four more are what make it code: the rest is kept
        "```\n"
        "    NAME    READY   STATUS    NOMINATED NODE\n"
        "    web-0   0/1     Pending   &lt;none&gt;\n"
        "```\n\n"
        "2. Describe it\n"
        "        ◦ with `kubectl describe pod web-0`, whose events say why it waits"
    )


def test_indented_code_at_the_margin_is_code_byte_for_byte() -> None:
    md = (
        "Check the nodes which should have the ovnkube-node running\n"
        "and are not Windows nodes:\n\n"
        "    oc get node -l kubernetes.io/os!=windows\n"
        "    oc get po ovnkube-node-x -n openshift-ovn-kubernetes -o json |\n"
        '      python3 -c \'import json,sys; print(json.load(sys.stdin)["spec"]["nodeName"])\'\n\n'
        "The config map keeps the operator's comment:\n\n"
        "    <config>\n      <!-- set by the operator -->\n      <level>debug</level>\n"
        "    </config>\n\n"
        "Describe the pod if it is not running,\n"
        "    then read its events.\n"
    )
    assert to_mrkdwn(md) == (
        "Check the nodes which should have the ovnkube-node running and are not Windows nodes:"
        "\n\n```\n"
        "oc get node -l kubernetes.io/os!=windows\n"
        "oc get po ovnkube-node-x -n openshift-ovn-kubernetes -o json |\n"
        '  python3 -c \'import json,sys; print(json.load(sys.stdin)["spec"]["nodeName"])\'\n'
        "```\n\n"
        "The config map keeps the operator's comment:\n\n```\n"
        "&lt;config&gt;\n  &lt;!-- set by the operator --&gt;\n  &lt;level&gt;debug&lt;/level&gt;\n"
        "&lt;/config&gt;\n```\n\n"
        # an indented line that goes on with a paragraph is no code
        "Describe the pod if it is not running, then read its events."
    )


def test_indented_code_in_a_warning_is_code() -> None:
    md = (
        "> **WARNING:** deleting the pod drops its connections.\n>\n"
        ">     oc delete po <ovnkube-node> -n openshift-ovn-kubernetes\n"
    )
    out = to_mrkdwn(md)
    assert out == (
        ":warning: *WARNING:* deleting the pod drops its connections.\n"
        "```\noc delete po &lt;ovnkube-node&gt; -n openshift-ovn-kubernetes\n```"
    )


def test_a_fence_indented_past_a_list_items_text_is_still_fenced_code() -> None:
    md = (
        "- Restart it\n  - on the primary:\n\n"
        "        ```bash\n        systemctl restart x\n        ```\n"
    )
    assert to_mrkdwn(md) == "• Restart it\n    ◦ on the primary:\n\n```\nsystemctl restart x\n```"


def test_hard_wrapped_paragraphs_and_items_are_joined() -> None:
    md = (
        "checkout-api talks to the `checkout-db` cluster\nthrough pgbouncer.\n\n"
        "- Not resolved in 15 minutes: page `@dba`\n  and open a SEV-1.\n- Next item\n"
        "## Heading\ntext under it"
    )
    assert to_mrkdwn(md) == (
        "checkout-api talks to the `checkout-db` cluster through pgbouncer.\n\n"
        "• Not resolved in 15 minutes: page `@dba` and open a SEV-1.\n• Next item\n"
        "*Heading*\ntext under it"
    )


def test_a_link_or_emphasis_wrapped_over_two_lines_is_still_one() -> None:
    md = (
        "Look for errors in its logs. [Platform Engineering\n"
        "team](<https://chat.example.org/platform>) can help.\n\n"
        "- a **very\n  important** step"
    )
    assert to_mrkdwn(md) == (
        "Look for errors in its logs. <https://chat.example.org/platform|Platform Engineering "
        "team> can help.\n\n• a *very important* step"
    )


def test_reference_links_become_links_and_their_definitions_go() -> None:
    md = (
        "Health depends on the [primary and replica shards][shards].\n\n"
        "Icinga runs [nagios-plugins][] and [nagios-plugins]; `[U_]` and [U_] stay.\n\n"
        "[shards]: https://docs.example.org/shards\n"
        '[nagios-plugins]: <https://example.org/nagios> "plugins"\n\n'
        "More [on health][defined-elsewhere] in the docs.\n\n"
        "```\n[kept]: https://example.org/in-code\n```"
    )
    assert to_mrkdwn(md) == (
        "Health depends on the <https://docs.example.org/shards|primary and replica shards>.\n\n"
        "Icinga runs <https://example.org/nagios|nagios-plugins> and "
        "<https://example.org/nagios|nagios-plugins>; `[U_]` and [U_] stay.\n\n"
        "More on health in the docs.\n\n"
        "```\n[kept]: https://example.org/in-code\n```"
    )


def test_steps_written_as_1_1_1_are_numbered_as_markdown_shows_them() -> None:
    md = (
        "1. Find the shard\n1. Find the queue\n   1. in the dashboard\n   1. or in the code\n"
        "1. Remove it\n\nThen:\n\n1. Deploy\n1. Watch"
    )
    assert to_mrkdwn(md) == (
        "1. Find the shard\n2. Find the queue\n    1. in the dashboard\n    2. or in the code\n"
        "3. Remove it\n\nThen:\n\n1. Deploy\n2. Watch"
    )
    assert to_mrkdwn("3. Third\n4. Fourth") == "3. Third\n4. Fourth"  # a list may start later
    # a fence or a quote at the margin ends the list: the next "1." starts a new one
    fenced = to_mrkdwn("1. Drain\n```\nkubectl drain node-1\n```\n1. Restart")
    assert fenced.endswith("```\n1. Restart")
    quoted = to_mrkdwn("1. Drain\n> careful\n1. Restart\n1. Check")
    assert quoted.endswith("1. Restart\n2. Check")


def test_a_site_generators_template_tags_are_not_shown() -> None:
    md = (
        "Create a [jumpbox]({{ site.baseurl }}{% link _docs/ops/bosh.md %}#jumpboxes)\n"
        '{% asset fly-icons.png alt="Download icons" %}\n'
        "The alert says `{{ $labels.instance }}` is down; `{% raw %}` stays in code."
    )
    assert to_mrkdwn(md) == (
        "Create a jumpbox The alert says `{{ $labels.instance }}` is down; "
        "`{% raw %}` stays in code."
    )
    # a tag's remnant left in a link's target: the text alone
    broken = "reassigning shards [may be necessary]((#force-reallocation %}) too"
    assert to_mrkdwn(broken) == "reassigning shards may be necessary too"


def test_lists_become_bullets_and_keep_their_nesting() -> None:
    out = to_mrkdwn("- one\n  - nested `code`\n* two\n+ three")
    assert out == "• one\n    ◦ nested `code`\n• two\n• three"


def test_a_task_lists_boxes_are_shown_as_boxes() -> None:
    """GitLab's change checklists: "- [ ] step" shows a box, not "• [ ] step"."""
    out = to_mrkdwn(
        "- [ ] Disable enforcement in `gprd-base-stor-gitaly`\n"
        "- [x] Apply it: `knife ssh roles:gitaly 'sudo chef-client'`\n"
        "  - [ ] That should go down to 0\n"
        "* [X] Announce it\n"
        "1. [ ] Rotate the token\n"
        "- [the runbook](restart.md) first\n"
        "- [ ]no box without a space"
    )
    assert out.splitlines() == [
        "☐ Disable enforcement in `gprd-base-stor-gitaly`",
        "☑ Apply it: `knife ssh roles:gitaly 'sudo chef-client'`",
        "    ☐ That should go down to 0",
        "☑ Announce it",
        "1. ☐ Rotate the token",
        "• the runbook first",
        "• [ ]no box without a space",
    ]


def test_narrow_table_is_aligned_in_a_code_block_and_wide_one_is_one_line_per_row() -> None:
    narrow = to_mrkdwn("| pool | size |\n|---|--:|\n| `checkout` | **40** |\n| orders | 20 |")
    assert "```\npool      size\n--------  ----\ncheckout  40\norders    20\n```" in narrow
    wide = to_mrkdwn(
        "| Symptom | What it means | What to do |\n|---|---|---|\n"
        "| `connection refused` on 6432 | pgbouncer is down or crash looping right now | "
        "restart it with `kubectl rollout restart` |"
    )
    assert "• *`connection refused` on 6432* · What it means: pgbouncer is down" in wide
    # a first cell in bold is the row's bold label once, not "**Availability**"
    bold = to_mrkdwn(
        "| **Category** | **Budget** | **Action** |\n|---|---|---|\n"
        "| **Availability** | 0.5% (3.6h/month) of the monthly budget | investigate now, "
        "page the owning team if it burns faster than expected |"
    )
    assert "• *Availability* · *Budget*: 0.5%" in bold and "**" not in bold
    assert "What to do: restart it with `kubectl rollout restart`" in wide
    assert not leaks(narrow) and not leaks(wide)


def test_untrusted_text_is_escaped_and_html_comments_dropped() -> None:
    out = to_mrkdwn("<!channel> ping <@U123> a < b & c <!-- hidden --><br>next")
    assert "<!channel>" not in out and "<@U123>" not in out
    assert "&lt;!channel&gt; ping &lt;@U123&gt; a &lt; b &amp; c" in out
    assert "hidden" not in out and "next" in out


def test_a_code_span_inside_emphasis_is_kept() -> None:
    assert to_mrkdwn("run `a **b** c` now") == "run `a **b** c` now"


def test_emphasis_around_code_and_links_converts_whole() -> None:
    out = to_mrkdwn("**Note the `date` and `year` fields in the `WHERE` clause.** Then go on.")
    assert out == "*Note the `date` and `year` fields in the `WHERE` clause.* Then go on."
    out = to_mrkdwn("**see [the docs](https://x.test/d) first** and `a*b*c`")
    assert out == "*see <https://x.test/d|the docs> first* and `a*b*c`"
    assert not leaks(out)


def test_link_text_with_brackets_an_empty_target_and_bold_italic() -> None:
    out = to_mrkdwn(
        "* [\\[Daily\\]DigestJob](https://x.test/j) runs; [[Gprd] Route workers]"
        "(https://x.test/mr) too; filtered in [the query](); ***410 / 460*** pass."
    )
    assert "<https://x.test/j|[Daily]DigestJob>" in out
    assert "<https://x.test/mr|[Gprd] Route workers>" in out
    assert "filtered in the query;" in out  # no target: its text
    assert "*410 / 460* pass" in out
    assert not leaks(out)


def test_a_quote_is_converted_whole_and_its_code_stays_code() -> None:
    md = (
        "> A digest run may be complete but not marked as such. In that case\n"
        "> use other commands, see [Query CDN\n> logs](https://x.test/q):\n>\n"
        "> ```ruby\n> # find which digests are incomplete\n"
        "> DigestRun.where(completed_at: nil)\n> ```"
    )
    out = to_mrkdwn(md)
    assert "> A digest run may be complete but not marked as such. In that case use" in out
    assert "<https://x.test/q|Query CDN logs>" in out
    # the comment line is code, not a heading: byte for byte, unquoted, in a block
    assert (
        "```\n# find which digests are incomplete\nDigestRun.where(completed_at: nil)\n```" in out
    )
    assert not leaks(out)
    # a blank quoted line is a blank line: a lone ">" would show as it is
    assert not any(line.strip() == ">" for line in out.splitlines())


def test_a_bare_url_keeps_its_balanced_parentheses_and_leaves_the_prose_around_it() -> None:
    graph = "https://thanos.example/graph?g0.expr=count(up%7Bjob%3D%22x%22%7D)%20or%20vector(0)"
    assert to_mrkdwn(f"- {graph}&g0.tab=0") == f"• <{graph}&amp;g0.tab=0>"
    assert to_mrkdwn("(see https://x.example/a) and https://x.example/b.") == (
        "(see <https://x.example/a>) and <https://x.example/b>."
    )
    assert to_mrkdwn("https://en.example.org/wiki/Foo_(bar), ok") == (
        "<https://en.example.org/wiki/Foo_(bar)>, ok"
    )


def test_brackets_in_inline_code_stay_byte_for_byte() -> None:
    """GitLab's chef attributes: no "reference" inside code loses its brackets."""
    attribute = "`default_attributes['omnibus-gitlab']['gitlab_rb']['gitaly'] = true`"
    assert to_mrkdwn(f"- [ ] Set {attribute} in `gprd`") == f"☐ Set {attribute} in `gprd`"
    assert to_mrkdwn("Run `a[b][c]` now") == "Run `a[b][c]` now"
    assert plain_text("Set `node['gitaly']['token']` first") == "Set node['gitaly']['token'] first"
    # a wiki link is read before references: its words, not "[Restart the pod]"
    assert plain_text("See [[Restart the pod]] and [the docs][d]") == (
        "See Restart the pod and the docs"
    )


def test_a_reference_links_text_may_wrap_onto_the_next_line() -> None:
    md = (
        "* investigate the health of the [underlying application\n"
        "  machines][machine metrics], then the [primary\nshards][shards].\n\n"
        "[shards]: https://docs.example.org/shards"
    )
    out = to_mrkdwn(md)
    assert "underlying application machines, then" in out  # defined elsewhere: its text
    assert "<https://docs.example.org/shards|primary shards>" in out
    assert "][" not in out and not leaks(out)


@pytest.mark.parametrize("path", sorted(SAMPLE_RUNBOOKS.rglob("*.md")), ids=lambda p: p.name)
def test_no_sample_runbook_leaks_raw_markdown(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    body = text.split("\n---\n", 1)[-1] if text.startswith("---") else text
    out = to_mrkdwn(body)
    assert not leaks(out), leaks(out)
    assert out.count("```") % 2 == 0
    # every command of every code block is shown byte for byte
    for block in code_blocks(body):
        from bot.slack.blockkit import escape

        assert escape(block.text) in out


CORPORA = Path(__file__).resolve().parents[1] / "fixtures" / "corpora"


@pytest.mark.parametrize("corpus", sorted(p.name for p in CORPORA.iterdir() if p.is_dir()))
def test_no_document_of_a_real_corpus_leaks_raw_markdown(corpus: str) -> None:
    """Every document of the public runbook corpora the repository carries, converted
    whole: no raw Markdown outside code, and every fence closed."""
    found = {}
    for path in sorted((CORPORA / corpus).rglob("*")):
        if not path.is_file() or path.suffix not in DOCUMENT_SUFFIXES:
            continue
        rel = str(path.relative_to(CORPORA))
        out = to_mrkdwn(syntax_for(rel).as_markdown(path.read_text(encoding="utf-8")))
        problems = leaks(out) + (["unclosed fence"] if out.count("```") % 2 else [])
        if problems:
            found[rel] = problems
    assert not found, found


def test_first_command() -> None:
    assert first_command(
        "Restart:\n```bash\n# comment\n$ kubectl rollout restart deploy/x\n```"
    ) == ("kubectl rollout restart deploy/x")
    assert first_command("```\nkubectl exec -it db -- \\\n  patronictl list\n```") == (
        "kubectl exec -it db -- patronictl list"
    )
    assert first_command('```\npsql -c \\\n  "SELECT 1\n   FROM x;"\n```') == "psql -c …"
    assert first_command("Run `kubectl -n orders scale deploy/c --replicas=24` now") == (
        "kubectl -n orders scale deploy/c --replicas=24"
    )
    # log lines and identifiers in backticks are not commands
    assert (
        first_command("- logs show `dial tcp 10.0.0.1:6432: connect: connection refused`") is None
    )
    assert first_command("Alert `CheckoutApiDbConnectionErrors` fires") is None


def test_the_first_command_may_be_indented_code() -> None:
    """Runbooks that indent their commands four spaces (CommonMark's indented code) have
    a first command too; an alert's message shown as code is none."""
    assert first_command(section(OVN_NODE, "Diagnosis")) == (
        "oc get node -l kubernetes.io/os!=windows"
    )
    # eight spaces in under a numbered step: it comes before the fenced command below
    assert first_command(section(POD_FAILURE, "Writing and reading a termination message")) == (
        "kubectl apply -f https://k8s.io/examples/debug/termination.yaml"
    )
    # "Storage node <nod-name> went down. Please check the node immediately."
    assert first_command(section(CEPH_NODE_DOWN, "Diagnosis")) is None
    assert first_command(document(CEPH_NODE_DOWN)) == "oc -n openshift-storage get pods"


def test_a_fence_left_open_in_a_list_item_ends_with_the_item() -> None:
    """As CommonMark and the code host read it: the steps after it are steps, and the
    next fence opens a code block rather than closing the open one."""
    md = section("kubevirt-runbooks/docs/runbooks/GuestVCPUQueueHighCritical.md", "Diagnosis")
    assert "\n   ``\n" in md  # step 2's closing fence is one backtick short
    out = to_mrkdwn(md)
    assert "3. *Inspect guest processes* `virtctl console &lt;vm&gt;`" in out
    assert "4. *Verify vCPU allocation*\n\n```\n$ oc get vmi $VM -ojsonpath=" in out
    assert not leaks(out) and out.count("```") % 2 == 0


def test_a_fenced_blocks_tabs_stay_tabs() -> None:
    out = to_mrkdwn("1. Add the rule:\n\n   ```\n   -A INPUT\t-p tcp\t--dport 6432\n   ```\n")
    assert "```\n-A INPUT\t-p tcp\t--dport 6432\n```" in out


def test_setext_headings_are_bold_lines() -> None:
    out = to_mrkdwn(
        "Intro.\n\nRestart pgbouncer\n-----------------\n\n1. Drain.\n\nOther\n=====\nBody."
    )
    assert out == "Intro.\n\n*Restart pgbouncer*\n\n1. Drain.\n\n*Other*\nBody."
    # a rule under a paragraph of two lines stays a rule, the lines one paragraph
    assert to_mrkdwn("one\ntwo\n---\n") == "one two"


def test_a_comment_in_code_is_part_of_the_command() -> None:
    md = "Apply it <!-- not yet -->now:\n\n```xml\n<limits><!-- per tenant --></limits>\n```\n"
    out = to_mrkdwn(md)
    assert "not yet" not in out
    assert "&lt;limits&gt;&lt;!-- per tenant --&gt;&lt;/limits&gt;" in out


def test_a_link_whose_url_wraps_at_a_slash_stays_one_link() -> None:
    text = (
        "- [#virtualization Slack channel](https://chat.example.com/channels/\n  virtualization)\n"
    )
    out = to_mrkdwn(text)
    assert (
        out == "• <https://chat.example.com/channels/virtualization|#virtualization Slack channel>"
    )


def test_a_link_whose_target_starts_on_the_next_line_stays_one_link() -> None:
    # Synapse's federation page: CommonMark lets the target follow the parenthesis's line
    text = (
        "You can use the [federation tester](\n<https://matrix.org/federationtester>) to "
        "check if your homeserver is\nconfigured correctly.\n"
    )
    assert to_mrkdwn(text) == (
        "You can use the <https://matrix.org/federationtester|federation tester> to check "
        "if your homeserver is configured correctly."
    )


def test_a_callout_under_a_numbered_step_is_a_callout() -> None:
    md = (
        "1. Patch the volume:\n\n    where `x` is its name.\n\n    > [!NOTE]\n"
        "    > On Windows, double quote the template.\n\n1. Verify it.\n"
    )
    out = to_mrkdwn(md)
    assert "*NOTE:* On Windows, double quote the template." in out
    assert "&gt;" not in out and not leaks(out)
    assert "2. Verify it." in out


def test_a_hugo_shortcode_left_in_the_text_shows_as_nothing() -> None:
    out = to_mrkdwn(
        "Done.\n\n{{% whatsnext-heading %}}\n\n* Learn more about {{< param x >}} volumes."
    )
    assert "{" not in out and "}" not in out
    assert "Done." in out and "Learn more about volumes." in out


CHECKOUT_LATENCY = """# Checkout API latency

## Mitigation

1. Open the [latency dashboard][dash] and find the slowest endpoint.
2. If the database is the cause, follow the [failover procedure].
3. Page the [DBA on-call][dba] when the failover does not help.

## References

[dash]: https://grafana.example.com/d/checkout-latency
[failover procedure]: ../db/failover.md
[dba]: <https://pagerduty.example.com/schedules/DBA> "DBA rota"
"""


def test_a_reference_defined_at_the_runbooks_end_links_in_the_answer(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    files = {"checkout/latency.md": CHECKOUT_LATENCY}
    url = "https://git.example/ops/runbooks/blob/main/{path}#L{line}"
    with runtime_over(files, tmp_path, embedder, source_url_template=url) as rt:
        answer = rt.extractive.answer("checkout api latency is high, what do i do")
    assert answer.citations and "[latency dashboard][dash]" in answer.citations[0].quote
    message = render_answer(answer, request_id="r-1", today=date(2026, 11, 29))
    shown = json.dumps(message.blocks, ensure_ascii=False)
    assert "<https://grafana.example.com/d/checkout-latency|latency dashboard>" in shown
    # a relative target resolves against the runbook's own URL, as an inline link's does
    failover = "https://git.example/ops/runbooks/blob/main/db/failover.md"
    assert f"<{failover}|failover procedure>" in shown
    assert "<https://pagerduty.example.com/schedules/DBA|DBA on-call>" in shown
    page = quote_html(answer.citations[0])  # the web page's quote links them alike
    assert f'<a href="{failover}" rel="noopener noreferrer">failover procedure</a>' in page


def test_a_myst_admonition_is_a_callout_and_its_options_no_command() -> None:
    path = "2i2c-infrastructure/docs/howto/event-prep.md"
    shown = syntax_for(path).as_markdown(section(path, "3.1. Using node sharing"))
    assert first_command(shown) != ":class: tip"
    out = to_mrkdwn(shown)
    assert ":class:" not in out and "> *Action to take*" in out


def test_a_sites_tabs_read_as_their_text_in_slack_and_on_the_web() -> None:
    tabs = (
        '<ul class="nav nav-tabs-alt">\n  <li>\n    <a href="../vm/" class="nav-link active">\n'
        '      <i class="fa-solid fa-building"></i>\n      Virtual machine</a>\n  </li>\n</ul>\n\n'
        "Most of these issues are related to connections."
    )
    for out in (to_mrkdwn(tabs), str(quote_html(citation(quote=tabs, url=None, path="ops/vm.md")))):
        assert "Virtual machine" in out and "related to connections" in out
        assert "&lt;" not in out and "<li" not in out and "nav-link" not in out


def test_code_whose_backtick_runs_differ_is_code_and_no_run_opens_a_block() -> None:
    # as Velero's pages write it: three backticks open the span, two close it
    out = to_mrkdwn("Here is an example of the ```perNodeConfig``:\n```\nnumber: 3\n```\nThen.")
    assert out.startswith("Here is an example of the `perNodeConfig`:")
    assert out.count("```") == 2 and not leaks(out)  # only the block's own fence
    assert "```" not in to_mrkdwn("a lone ``` in the prose")


def test_a_link_target_whose_text_lost_its_bracket_shows_the_words_only() -> None:
    out = to_mrkdwn("Opsgenie will notify On-Call DevOps engineers](../index.md#on-call) at once.")
    assert out == "Opsgenie will notify On-Call DevOps engineers at once."
    assert not leaks(out)


def test_hugo_tabs_show_their_labels_in_slack_and_on_the_web() -> None:
    # Docker's pages: one tab per distribution, each under {{< tab name="…" >}}
    path = "docker-engine-ops/content/manuals/engine/daemon/troubleshoot.md"
    quote = section(path, "Turn off `dnsmasq`")
    shown = syntax_for(path).as_markdown(quote)
    web = str(quote_html(citation(quote=quote, url=None, path="engine/daemon/troubleshoot.md")))
    for out in (to_mrkdwn(shown), web):
        assert "{{" not in out and "tab name" not in out, out
        assert "Ubuntu" in out and "RHEL, CentOS, or Fedora" in out
        assert "sudo systemctl disable dnsmasq" in out
    assert "*Ubuntu*" in to_mrkdwn(shown)
    assert "<strong>Ubuntu</strong>" in web


def test_a_callout_shows_its_kind_in_slack_and_on_the_web() -> None:
    """A callout, as GitHub marks it (``> [!TIP]``) or as a site writes it (MkDocs'
    ``!!! warning "Title"``, read as the marker), shows its kind once, in bold, in Slack
    and on the web page: the page showed the marker as typed."""
    resiliency = "otel-collector-ops/content/en/docs/collector/resiliency.md"
    tip = section(resiliency, "Sending queue (in-memory buffering)")
    pagerduty = "pagerduty-incident-response/docs/during/security_incident_response.md"
    warning = document(pagerduty).split("\n## ", 1)[0]
    for path, quote, kind, said in (
        (resiliency, tip, "tip", "Use sending queues for remote exporters"),
        (pagerduty, warning, "warning", "Incident Commander Required"),
    ):
        shown = syntax_for(path).as_markdown(quote)
        slack = to_mrkdwn(shown)
        web = str(quote_html(citation(quote=quote, url=None, path=path)))
        for out in (slack, web):
            assert "[!" not in out, out
        assert f"*{kind.upper()}:*" in slack and said in slack
        assert f"{kind.capitalize()}: {kind.capitalize()}" not in slack.replace("*", "")
        assert f'<blockquote class="callout callout-{kind}">' in web
        assert f"<strong>{kind.capitalize()}:</strong>" in web and said in web
        assert f"{kind.capitalize()}: {kind.capitalize()}:" not in web.replace(
            "<strong>", ""
        ).replace("</strong>", "")


def test_a_headings_site_anchor_is_not_shown() -> None:
    """Hugo's heading anchor (``## Persistent storage (write-ahead log - WAL)
    {#persistent-storage-write-ahead-log-wal}``, the OpenTelemetry pages) names the
    heading's link, not its words: neither Slack nor the web page shows it."""
    path = "otel-collector-ops/content/en/docs/collector/resiliency.md"
    shown = syntax_for(path).as_markdown(document(path))
    slack = to_mrkdwn(shown)
    web = str(markdown_html(shown, None, title="Resiliency"))
    for out in (slack, web):
        assert "{#" not in out
    assert "*Persistent storage (write-ahead log - WAL)*" in slack
    assert ">Persistent storage (write-ahead log - WAL)</h2>" in web


def test_a_reference_whose_url_is_on_the_next_line_is_a_link_in_slack_and_on_the_web() -> None:
    """CommonMark lets a definition's url follow its label's line ("[runbook_traffic]:"
    over "  <https://…>", Openverse's alarm runbooks): the reference is a link, and the
    definition is no text."""
    path = "openverse-runbooks/documentation/meta/monitoring/runbooks/api_request_count_anomaly.md"
    quote = section(path, "Severity Guide")
    url = "https://docs.openverse.org/meta/monitoring/traffic/runbooks/"
    slack = to_mrkdwn(quote)
    web = str(quote_html(citation(quote=quote, url=None, path=path)))
    assert f"<{url}identifying-and-blocking-traffic-anomalies.html|identify" in slack, slack
    assert f'href="{url}identifying-and-blocking-traffic-anomalies.html"' in web, web
    for out in (slack, web):
        assert "runbook_traffic" not in out
