"""The one detail a question asks to see (a command, a value), and whether a quote shows it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from core.models import MISSING_DETAIL
from retrieval.reading.asked_detail import (
    COMMAND,
    DEFAULT,
    DURATION,
    NUMBER,
    QUERY,
    SETTING,
    SIZE,
    asked_detail,
    asks_for_command,
    shows_command,
    shows_default,
    shows_duration,
    shows_number,
    shows_query,
    shows_setting,
    shows_size,
    value_of,
)


def test_a_question_that_asks_for_the_command_itself() -> None:
    for question in (
        "whats the cmd to flip traffic to adyen",
        "amtool syntax to silence an alert for 2h",
        "how do i unpause a machineconfigpool from the cli",
        "exact oc commands to force the mon to reschedule?",
    ):
        assert asks_for_command(question), question
    assert not asks_for_command("how do i rotate the stripe key")
    assert not asks_for_command("the client keeps timing out")


@pytest.mark.parametrize(
    ("question", "detail"),
    [
        ("whats the cmd to flip traffic to adyen", COMMAND),
        # a command asked for wins over the value it would set
        ("the syntax to silence an alert for 2h", COMMAND),
        ("which flag controls how often alertmanager persists its state?", SETTING),
        ("which gitaly config key sets the concurrency limit", SETTING),
        ("which env var holds the signing token", SETTING),
        ("where's the actual prometheus query behind it? want to widen the window", QUERY),
        ("which metric do i graph for failed kubeconfig copies", QUERY),
        ("the ruler can't write its recording rule results, what do i look at", None),
        ("how many days do we give a customer to export their data?", DURATION),
        ("how often does the backup job take snapshots on the secondaries", DURATION),
        ("what latency threshold in seconds trips it", DURATION),
        ("how long of a maint window do i need", DURATION),
        ("whats the backup retention on dedicated plans?", DURATION),
        ("what key size for the new DKIM key, 1024 or 2048 bits?", SIZE),
        ("what key size for the new DKIM key?", NUMBER),
        ("what queue size does this actually fire at?", NUMBER),
        ("how many ingester replicas can one zone take", NUMBER),
        ("what's the memory limit on the query-frontend", NUMBER),
        ("which port does the admin api listen on", NUMBER),
        ("what's the max number of connections per pool", NUMBER),
        ("at what disk % does it page", NUMBER),
        # a method is asked for, not the value
        ("how do i tell how many MB a defrag would actually give back", None),
        ("how do i work out how many ingester replicas we actually need?", None),
        # the state of the incident: the runbook gives the way to find it out
        ("how many pods are currently crashlooping and what do i do", None),
        ("how long has the checkout queue been stuck, where do i look", None),
        # the default asked for: a value (or a name) that applies when nothing is set
        ("whats the default max_series per ingester if we never set it?", DEFAULT),
        ("what's the default for -compactor.deletion-delay? how long until it's gone", DEFAULT),
        ("what's the default storage class for virt disks", DEFAULT),
        ("default value of the scrape timeout?", DEFAULT),
        # "default" and "target" name things as often as values
        ("how do i mark a storageclass as the default for virt disks", None),
        ("what default is used, the one in the chart?", None),
        ("what's the target cluster for the migration", None),
        ("how do i rotate the stripe key", None),
        # "how much" of a quantity asks for a value; of a judgement, not
        ("how much disk does a defrag free", NUMBER),
        ("how much runway do we have before it goes critical", NUMBER),
        ("how much does this matter for customers", None),
        ("KubePodCrashLooping", None),
    ],
)
def test_the_detail_a_question_asks_for(question: str, detail: object) -> None:
    assert asked_detail(question) == detail


@pytest.mark.parametrize(
    ("shows", "text", "shown"),
    [
        (shows_command, "Run `kubectl rollout restart deploy/api`.", True),
        (shows_command, "```\npatronictl list\n```", True),
        (shows_command, "~~~sh\nvault read secret/x\n~~~", True),
        (shows_command, "On the box:\n\n  $ systemctl restart pgbouncer", True),
        (shows_command, "Restart it:\n\n    systemctl restart pgbouncer\n", True),
        (shows_command, "Steps:\n\n    - restart the pod\n    - wait for it", False),
        (shows_command, "Roll the key in the Stripe dashboard, then restart payments-api.", False),
        (shows_duration, "fires if it averaged one or more in the past 30\nminutes.", True),
        (shows_duration, "```yaml\nfor: 15m\n```", True),
        (shows_duration, "Schedule the window to last at least three hours.", True),
        (shows_duration, "The backup runs daily at 02:00.", True),
        (shows_duration, "It can take up to 10min to register.", True),
        (shows_duration, "Allow half an hour for the restore.", True),
        (shows_duration, "It runs once a week, at 02:30 UTC.", True),
        (shows_duration, "Rotate it every other month.", True),
        (shows_duration, "Wait a couple of minutes before retrying.", True),
        (shows_duration, "The export runs at midnight.", True),
        # no span of time: "and" is not "an" and "d", "as" not "a" and "s"
        (shows_duration, "Ask the tenant and export as soon as possible.", False),
        (shows_duration, "We give customers limited time to export their data.", False),
        (shows_duration, "1. Log in.\n2. Open [step 3](https://x.test/10m).", False),
        (shows_number, "The queue fires at 50,000 jobs.", True),
        (shows_number, "Each ingester takes up to 1.5M series.", True),
        (shows_number, "a default of twenty connections", True),
        (shows_number, "Give it 4Gi of memory.", True),
        (shows_number, "The pool holds 10GB, one replica per zone.", True),
        (shows_number, "Run a single replica.", True),
        # list markers, steps, versions and link targets are not values
        (shows_number, "1. Log in.\n2. See step 3 of the [guide](https://x.test/v2/4).", False),
        (shows_number, "Generate a new key with opendkim-genkey.", False),
        (shows_size, "Generate a 2048-bit key.", True),
        (shows_size, "Pages are 8 KB each.", True),
        (shows_size, "requests:\n  memory: 512Mi", True),
        # a number in another unit, or none
        (shows_size, "Rotate the key every 90 days.", False),
        (shows_size, "Use a strong key.", False),
        (shows_setting, "Raise `-alertmanager.persist-interval` on the command line.", True),
        (shows_setting, "```yaml\ningester_limits:\n  max_series: 5\n```", True),
        (shows_setting, "Export `GITALY_TOKEN` before the run.", True),
        # named in prose, or code that names no setting
        (shows_setting, "Raise the max_series limit.", False),
        (shows_setting, "Clones of `www-gitlab-com` were slow.", False),
        # an indented block is code to its last indented line, and a nested list is no code
        (shows_setting, "Set it:\n\n    ingester.max-series=5\n", True),
        (shows_setting, "Steps:\n\n    - restart the pod\n\nThen raise max_series.", False),
        (shows_setting, "Run:\n\n    restart\n\nThen raise max_series.", False),
        (shows_default, "Defaults to `5m`; raise it with `-x.y`.", True),
        (shows_default, "By default each ingester takes up to 1.5M series.", True),
        (shows_default, "The default storage class is `gp3-csi`.", True),
        # a limit without its default, or the word without any value
        (shows_default, "Each ingester takes up to 1.5M series; raise the limit.", False),
        (shows_default, "Leave the default unless support tells you otherwise.", False),
        (shows_query, "```promql\nrate(copy_failures_total[5m])\n```", True),
        (shows_query, 'Graph `up{job="ingester"}`.', True),
        (shows_query, "The metric is `hypershift_addon_agent_copy_failures`.", True),
        # code that is no query, or a query in prose
        (shows_query, "```bash\nkubectl get policy -A -o json | jq '.items[]'\n```", False),
        (shows_query, "Graph the copy failures rate over five minutes.", False),
    ],
)
def test_what_shows_each_detail(shows: Callable[[str], bool], text: str, shown: bool) -> None:
    assert shows(text) is shown


def test_a_command_asked_of_one_tool_is_shown_only_by_that_tool() -> None:
    amtool = asked_detail("amtool syntax to silence an alert for 2h")
    assert amtool is not None and amtool.name == "command" and amtool.tool == "amtool"
    assert amtool.shows("```\namtool silence add alertname=X --duration=2h\n```")
    # another tool's code, or the tool named in a link's text, does not show it
    assert not amtool.shows("```shell\n$ kubectl logs sts/alertmanager-main\n```")
    assert not amtool.shows("Running [amtool check-config](https://x.test) helps.")
    oc = asked_detail("exact oc cmds to force the mon to reschedule?")
    assert oc is not None and oc.tool == "oc"
    assert not oc.shows("Run `ceph tell mon.ID mon_status` for each monitor.")
    assert oc.shows("Run `oc -n openshift-storage delete pod rook-ceph-mon-b`.")
    assert not oc.shows("Run `ocm describe cluster`.")
    # a longer name may begin the program's; a language names no tool
    redis = asked_detail("whats the redis command to list big keys")
    assert redis is not None and redis.shows("```\nredis-cli --bigkeys\n```")
    assert asked_detail("whats the sql command to find blocking queries") == COMMAND
    # "the command", "the actual commands": any command shows it
    assert asked_detail("give me the actual commands to rotate the etcd signer cert") == COMMAND
    assert asked_detail("then let it back in a bit at a time once it's fixed. syntax?") == COMMAND


def test_the_actual_name_asked_for_is_code_beside_the_word_not_a_placeholder() -> None:
    bucket = asked_detail("what's the actual bucket name for the logsearch archive in prod?")
    assert bucket is not None and bucket.name == "name" and bucket.missing == "no-value"
    assert bucket.shows("The archive bucket is `cg-logs-prod-archive`.")
    # a dotted name does not end the sentence that gives it
    assert bucket.shows("The archive bucket is `logs.prod.acme`, in us-gov-west-1.")
    assert bucket.shows('```\ninput {\n  s3 {\n    bucket => "cg-logs-prod"\n  }\n}\n```')
    # a placeholder for it, or the name of something else, is no answer
    template = '```\ninput {\n  s3 {\n    bucket => ":bucket:"\n    region => "us-gov"\n}\n```'
    assert not bucket.shows(template + "\nThe values for `:bucket:` are in the manifest.")
    assert not bucket.shows("Find the bucket: `<env>-logs`, `${BUCKET}` or `YOUR_BUCKET`.")
    # asked without "actual" or "exact", the way to find it out answers too
    assert asked_detail("whats the bucket name for the archive") is None
    assert asked_detail("the exact name of the configmap?") is not None


def test_every_missing_detail_is_a_reason_that_offers_the_closest_runbooks() -> None:
    missing = {d.missing for d in (COMMAND, DURATION, NUMBER, SIZE, SETTING, QUERY, DEFAULT)}
    # and the steps of an operation asked for (retrieval.reading.asked_operation)
    assert missing | {"no-steps"} == set(MISSING_DETAIL)
    tool = asked_detail("amtool syntax to silence an alert")
    assert tool is not None and tool.missing in MISSING_DETAIL


def test_the_default_of_a_named_setting_is_shown_only_where_that_setting_is_named() -> None:
    asked = asked_detail("what's the default for -compactor.deletion-delay? how long until gone")
    assert asked is not None and asked.name == "default"
    # another setting's default beside the flag's mention is not the flag's default
    assert not asked.shows(
        "It hard-deletes blocks after `-compactor.deletion-delay`. The default retention is 4 days."
    )
    assert not asked.shows("The default for `-compactor.deletion-delay` is set per tenant.")
    # the flag or its config key, with the default value in the same sentence or line
    assert asked.shows("The `-compactor.deletion-delay` defaults to 12h.")
    assert asked.shows("By default `-compactor.deletion-delay` is `12h`.")
    assert asked.shows("```yaml\ncompactor:\n  deletion_delay: 12h  # the default\n```")
    # a setting named in code, or none named: any default with its value shows it
    key = asked_detail("what is the default of `max_series`?")
    assert key is not None and key.shows("By default `max_series` is 1.5M per ingester.")
    assert not key.shows("By default each ingester takes up to 1.5M series.")
    plain = asked_detail("what's the default storage class for virt disks")
    assert plain is not None and plain.shows("The default storage class is `gp3-csi`.")


def test_the_value_of_a_named_quantity_is_shown_where_that_quantity_is_named() -> None:
    asked = asked_detail("what's the kafka session timeout for the order-fulfillment consumer?")
    assert asked is not None and asked.name == "duration"
    # the same runbook's other figures answer other questions
    assert not asked.shows("Nothing is lost while messages sit in Kafka (retention 7 days).")
    assert asked.shows("Consumers are evicted after a 45s session timeout.")
    assert asked.shows("```properties\nsession.timeout.ms=45000 # 45 seconds\n```")
    target = asked_detail("what's the p99 latency target for secret generation")
    assert target is not None and target.name == "number"
    assert not target.shows("- **Target**: ≥ 99.5% of secrets are generated.")
    assert target.shows("The p99 latency stays under 2 seconds.")
    # which value ("the threshold", "the max size") names no quantity: any value shows it
    plain = asked_detail("whats the threshold")
    assert plain is not None and plain.shows("It fires above 90%.")
    assert value_of("what's the max size?") is None
    assert value_of("what queue size does this fire at") == "queue"


def test_a_count_asked_for_is_shown_where_the_thing_counted_is_named() -> None:
    asked = asked_detail("how many replicas does checkout-db run?")
    assert asked is not None and asked.name == "number"
    assert not asked.shows("Wait 5 minutes, then check the pool again.")
    assert asked.shows("checkout-db runs 3 replicas behind pgbouncer.")
    assert asked.shows("```yaml\nreplicas: 3\n```")
    assert value_of("how many partitions can the orders topic take") == "partit"
    # a count is a figure of the thing: not a shard's id, another figure on its line, a
    # port to connect to, nor "at least one"
    shards = asked_detail("how many replica shards does the products index have?")
    assert shards is not None
    assert not shards.shows('```\n{"index": "products-v14", "shard": 0}\n```')
    assert not shards.shows("shard has exceeded the maximum number of retries [5]")
    assert not shards.shows("```\ncurl -s 'localhost:9200/_cat/shards?v'\n```")
    assert not shards.shows("Red means at least one primary shard is unassigned.")
    assert shards.shows("The products index has 2 replica shards per primary.")
    replicas = asked_detail("how many replicas does the products index have?")
    assert replicas is not None
    assert replicas.shows('```\n{"index": {"number_of_replicas": 1}}\n```')
    planes = asked_detail("how many control planes can one hosting cluster take")
    assert planes is not None and planes.shows("It turns red at 80 Hosted Control Planes.")
    # the state of the incident is no count a runbook gives: any part may answer
    assert value_of("how many pods are failing") is None
