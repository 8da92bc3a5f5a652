"""Hugo shortcodes and MkDocs / Docusaurus admonitions read as CommonMark."""

from __future__ import annotations

from core.markup import syntax_for
from core.site_markdown import as_markdown


def test_hugo_refs_become_the_paths_they_name() -> None:
    text = (
        'See [Degraded]({{< ref "./NodeRAIDDegraded.md" >}}) and '
        '[the fix]({{% relref "../fix.md#restart" %}}), '
        '[named]({{< ref path="a/b.md" >}}), [bare]({{< ref other.md >}}).'
    )
    assert as_markdown(text) == (
        "See [Degraded](./NodeRAIDDegraded.md) and [the fix](../fix.md#restart), "
        "[named](a/b.md), [bare](other.md)."
    )


def test_hugo_highlight_is_a_fenced_block_and_a_notice_a_quote() -> None:
    text = """{{< highlight bash "linenos=table" >}}
kubectl drain node-1 --ignore-daemonsets
{{< /highlight >}}

{{% notice warning %}}
Draining evicts every pod.
{{% /notice %}}

{{% alert title="Before you start" color="danger" %}}
Tell the incident channel.
{{% /alert %}}

{{< param BookRepo >}}"""
    assert as_markdown(text).split("\n") == [
        "```bash",
        "kubectl drain node-1 --ignore-daemonsets",
        "```",
        "",
        "> [!WARNING]",
        "> Draining evicts every pod.",
        "",
        "> [!DANGER] **Before you start**",
        "> Tell the incident channel.",
        "",
        "{{< param BookRepo >}}",  # no body, no known meaning: left as written
    ]


def test_a_hugo_note_inside_a_list_item_is_a_quote_there() -> None:
    text = """1. Patch the volume.

    {{< note >}}
    On Windows, double quote the template.
    {{< /note >}}

1. Verify it."""
    assert as_markdown(text).split("\n") == [
        "1. Patch the volume.",
        "",
        "    > [!NOTE]",
        "    > On Windows, double quote the template.",
        "",
        "1. Verify it.",
    ]


def test_mkdocs_admonitions_take_their_indented_body() -> None:
    text = """!!! warning "Data loss"
    Deleting the claim removes the volume.

    ```
    kubectl delete pvc data-0
    ```

1. Scale down.

??? example
    Collapsed by default."""
    assert as_markdown(text).split("\n") == [
        "> [!WARNING] **Data loss**",
        "> Deleting the claim removes the volume.",
        ">",
        "> ```",
        "> kubectl delete pvc data-0",
        "> ```",
        "",
        "1. Scale down.",
        "",
        "> **Example**",
        ">",
        "> Collapsed by default.",
    ]


def test_docusaurus_admonitions_end_at_their_own_colons_not_inside_code() -> None:
    text = """:::tip[Faster]
Use the script:

```bash
echo ':::'
:::
```
:::

::: danger Primary only
Never on a replica.
:::

:::note
never closed"""
    assert as_markdown(text).split("\n") == [
        "> [!TIP] **Faster**",
        "> Use the script:",
        ">",
        "> ```bash",
        "> echo ':::'",
        "> :::",
        "> ```",
        "",
        "> [!DANGER] **Primary only**",
        "> Never on a replica.",
        "",
        ":::note",
        "never closed",
    ]


def test_fenced_code_is_left_as_it_is() -> None:
    text = '```\n!!! warning "x"\n    body\n{{< ref "a.md" >}}\n:::tip\n:::\n```'
    assert as_markdown(text) == text


def test_markdown_and_mdx_read_them_asciidoc_does_not() -> None:
    text = ":::warning\nStop.\n:::"
    assert syntax_for("a.md").as_markdown(text) == "> [!WARNING]\n> Stop."
    assert syntax_for("a.mdx").as_markdown(text) == "> [!WARNING]\n> Stop."
    assert syntax_for("a.adoc").as_markdown(text) != "> [!WARNING]\n> Stop."


def test_a_line_that_only_starts_like_an_admonition_is_prose() -> None:
    text = "??? what does this alert even mean\n\nNobody knows."
    assert as_markdown(text) == text


def test_mdx_components_show_their_tabs_and_admonitions() -> None:
    text = """<Tabs>
  <TabItem value="aws" label="AWS">

Run `aws rds reboot-db-instance --db-instance-identifier db-1`.

  </TabItem>
  <TabItem value="gcp">

Run `gcloud sql instances restart db-1`.

  </TabItem>
</Tabs>

<Admonition type="danger" title="Primary only">
Never on a replica.
</Admonition>

Text with <Inline /> in it."""
    assert syntax_for("a.md").as_markdown(text) == text  # Markdown: "<Namespace>" is text
    assert syntax_for("docs/restart.mdx").as_markdown(text).split("\n") == [
        "**AWS**",
        "",
        "Run `aws rds reboot-db-instance --db-instance-identifier db-1`.",
        "",
        "**gcp**",
        "",
        "Run `gcloud sql instances restart db-1`.",
        "",
        "",
        "> [!DANGER] **Primary only**",
        "> Never on a replica.",
        "",
        "Text with <Inline /> in it.",  # inside a line: left as written
    ]


def test_myst_directives_read_as_callouts_code_and_figures() -> None:
    text = (
        "```{note}\n:class: tip\nRemember to **save**.\n```\n\n"
        "````{warning}\nDanger here.\n````\n\n"
        "```{code-block} bash\n:linenos:\nkubectl get pods\n```\n\n"
        "```{figure} ../img/a.png\nThe console\n```\n\n"
        ":::{admonition} Before you start\n:class: tip\nHave access.\n:::\n\n"
        "```{include} ../x.md\n```"
    )
    assert as_markdown(text) == (
        "> [!NOTE]\n> Remember to **save**.\n\n"
        "> [!WARNING]\n> Danger here.\n\n"
        "```bash\nkubectl get pods\n```\n\n"
        "![The console](../img/a.png)\n\n"
        "> **Before you start**\n>\n> Have access.\n\n"
        "```{include} ../x.md\n```"  # a directive that shows nothing of its own: as written
    )


def test_a_myst_admonition_in_a_list_item_stays_in_it() -> None:
    text = (
        "1. Check the pods.\n\n"
        "   ```{admonition} Action to take\n   :class: tip\n\n   Resize.\n   ```\n"
    )
    assert as_markdown(text) == (
        "1. Check the pods.\n\n   > **Action to take**\n   >\n   > Resize.\n"
    )


def test_a_sites_own_code_shortcode_is_a_fenced_block() -> None:
    # Istio's docs write code as {{< text LANG >}}, Datadog's as {{< code-block lang= >}}:
    # a shortcode that names a language holds code, whatever the site calls it
    text = """You will receive this message:

{{< text plain >}}
Error [IST0128] DestinationRule default/db-tls has no caCertificates
{{< /text >}}

{{< text yaml >}}
spec:
  trafficPolicy:
    tls:
      mode: SIMPLE
{{< /text >}}

{{< code-block lang="json" filename="datadog.json" >}}
{"logs_enabled": true}
{{< /code-block >}}"""
    assert as_markdown(text).split("\n") == [
        "You will receive this message:",
        "",
        "```plain",
        "Error [IST0128] DestinationRule default/db-tls has no caCertificates",
        "```",
        "",
        "```yaml",
        "spec:",
        "  trafficPolicy:",
        "    tls:",
        "      mode: SIMPLE",
        "```",
        "",
        "```json",
        '{"logs_enabled": true}',
        "```",
    ]


def test_hugo_tabs_show_each_tab_label_over_its_prose() -> None:
    # a tab names the platform it is for, not a language: its body is prose, under its
    # label; the tags around it are no text
    text = """{{< tabs >}}
{{< tab name="Ubuntu" >}}

1. Restart NetworkManager.

{{< /tab >}}
{{% tab "RHEL, CentOS, or Fedora" %}}
Restart the agent.
{{% /tab %}}
{{< /tabs >}}"""
    assert as_markdown(text).split("\n") == [
        "**Ubuntu**",
        "",
        "1. Restart NetworkManager.",
        "",
        "**RHEL, CentOS, or Fedora**",
        "Restart the agent.",
    ]
    docsy = '{{< tabpane text=true >}}\n  {{< tab header="Helm" >}}\n  Upgrade the chart.'
    assert as_markdown(docsy).split("\n") == ["  **Helm**", "  Upgrade the chart."]


def test_a_shortcode_that_names_no_language_is_left_as_written() -> None:
    # one named after a markup language wraps text to render, not code
    wrapped = "{{< md >}}\nRestart **the agent**.\n{{< /md >}}"
    assert as_markdown(wrapped) == wrapped


def test_code_holding_a_fence_gets_a_longer_one() -> None:
    text = """{{< highlight markdown >}}
```bash
make test
```
{{< /highlight >}}"""
    lines = as_markdown(text).split("\n")
    assert lines[0] == "````markdown" and lines[-1] == "````"
    assert lines[1:-1] == ["```bash", "make test", "```"]
