"""Words a question may use that say nothing about what it is about.

A question word that no runbook contains is evidence that the runbooks do not
cover the question only when it names something: a product (``istio``,
``velero``), an alert, a component. An ordinary English word the runbooks
happen not to use ("culprit", "hogging", "swears"), chat shorthand ("ppl",
"creds"), a word of computing that names no product ("backend", "hotfix") or a
contraction typed without its apostrophe ("doesnt") is not. The lexicon knows
the embedding model's whole words, an English dictionary (the ``english-words``
package, loaded on first use), and the plain inflections of both, so confidence
does not fall because an engineer wrote informally.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType

from retrieval.reading.tokenize import tokenize

# Contractions typed without the apostrophe, and what tokenizing "hasn't" leaves behind.
CONTRACTIONS = frozenset(
    """
    dont doesnt didnt cant couldnt shouldnt wouldnt wont isnt arent wasnt werent hasnt havent
    hadnt aint mustnt neednt im ive youre youve youll theyre theyve theyll weve thats whats
    theres heres wheres whos hows lets
    don doesn didn couldn shouldn wouldn isn aren wasn weren hasn haven hadn mustn needn ve ll re
    """.split()
)

# Shorthand engineers type in chat; none of it names a system.
SHORTHAND = frozenset(
    """
    ppl pls plz thx ty btw asap fyi imo afaik tbh rn atm eod wfh
    creds cred mgmt msg msgs cmd cmds crit warn info config configs conf env envs prod prd stg
    repo repos admin admins auth db dbs svc svcs ns pod pods deps dep perf approx
    """.split()
)

# On-call slang for what runbooks write plainly ("bounce the pod": restart it), read with
# the runbooks' word beside it as shorthand is.
SLANG: Mapping[str, str] = MappingProxyType(
    {
        "bounce": "restart",
        "bounced": "restarted",
        "bouncing": "restarting",
        "kick": "restart",
        "kicked": "restarted",
        "kicking": "restarting",
        "nuke": "delete",
        "wipe": "delete",
        "grow": "resize expand",
        "bump": "increase",
        "hung": "stuck",
        "flipping": "flapping",
    }
)
# ... except where the word, with a particle, means something else: "kick them off all
# their devices" logs a user out, "kick off the backup" starts it; neither restarts
_OTHER_SENSE: Mapping[str, re.Pattern[str]] = MappingProxyType(
    dict.fromkeys(
        ("kick", "kicked", "kicking"),
        re.compile(r"(?:[ \t]+[\w'-]+){0,3}?[ \t]+(?:off|out)\b", re.I),
    )
)
# Shorthand for a word runbooks also write out (several words: each is a long form): a
# question's "prod" or "creds" is read with the long form beside it, so "Production" or
# "Rotating credentials" matches too.
LONG_FORMS: Mapping[str, str] = MappingProxyType(
    {
        **SLANG,
        "prod": "production",
        "prd": "production",
        "stg": "staging",
        "db": "database",
        "dbs": "databases",
        "cred": "credential",
        "creds": "credentials",
        "config": "configuration",
        "configs": "configurations",
        "cfg": "configuration",
        "env": "environment",
        "envs": "environments",
        "k8s": "kubernetes",
        "ns": "namespace",
        "svc": "service",
        "svcs": "services",
        "mgmt": "management",
        "repo": "repository",
        "repos": "repositories",
        "perf": "performance",
        "auth": "authentication",
        "msg": "message",
        "msgs": "messages",
        "cmd": "command",
        "cmds": "commands",
        "cert": "certificate",
        "certs": "certificates",
        "dep": "dependency",
        "deps": "dependencies",
        "sa": "serviceaccount",
        "sas": "serviceaccounts",
        "pv": "persistentvolume",
        "pvc": "persistentvolumeclaim",
        "pvcs": "persistentvolumeclaims",
        # a pod's state, as on-call speech says it: "pgbouncer is crashlooping"
        "crashloop": "crashloopbackoff",
        "crashloops": "crashloopbackoff",
        "crashlooping": "crashloopbackoff",
        "crashlooped": "crashloopbackoff",
        "oomed": "oomkilled",
    }
)


def _other_sense(m: re.Match[str]) -> bool:
    """Is the slang word matched here said in another sense ("kick them off")?"""
    sense = _OTHER_SENSE.get(m.group(1).lower())
    return sense is not None and sense.match(m.string, m.end()) is not None


# a word alone, not part of a name, a path, a flag or a file ("bump.sh", "prod.example")
_ALONE = r"(?<![\w./-])({})(?![\w/-]|\.\w)"
_SHORT_WORD = re.compile(_ALONE.format("|".join(LONG_FORMS)), re.I)


def written_in(doc_freq: Mapping[str, int]) -> Callable[[str], bool]:
    """Whether the runbooks (their document frequencies) use a word, every token of it."""

    def used(word: str) -> bool:
        tokens = tokenize(word)
        return bool(tokens) and all(doc_freq.get(t, 0) > 0 for t in tokens)

    return used


# Operations a runbook names in one word and a question says as a verb and its particle
# ("how do i roll back the deploy" of a runbook's "Rollback" section). Not those an
# on-call engineer says of something else: "the queue is backed up" is no backup,
# "take over the incident" no account takeover, "look up the owner" no DNS lookup. Nor
# the third person: "errors in the logs in grafana" are no login.
CLOSED_COMPOUNDS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "rollback": ("roll", "back"),
        "rollout": ("roll", "out"),
        "failover": ("fail", "over"),
        "failback": ("fail", "back"),
        "setup": ("set", "up"),
        "shutdown": ("shut", "down"),
        "startup": ("start", "up"),
        "login": ("log", "in"),
        "logout": ("log", "out"),
        "signin": ("sign", "in"),
        "cleanup": ("clean", "up"),
        "teardown": ("tear", "down"),
        "cutover": ("cut", "over"),
        "handover": ("hand", "over"),
        "handoff": ("hand", "off"),
        "warmup": ("warm", "up"),
        "workaround": ("work", "around"),
    }
)
_IRREGULAR = MappingProxyType({"tear": "tore torn"})


def _verb_forms(verb: str) -> list[str]:
    """The verb as a question says it ("roll", "rolled", "rolling", "setting", "tore"),
    never in the third person; a form that is no word matches nothing."""
    doubled = verb + verb[-1]
    suffixed = [verb + "ed", verb + "ing", doubled + "ed", doubled + "ing"]
    return [verb, *suffixed, *_IRREGULAR.get(verb, "").split()]


_PHRASAL = {
    compound: re.compile(
        r"\b(?:" + "|".join(dict.fromkeys(_verb_forms(verb))) + r")[ -]" + particle + r"\b", re.I
    )
    for compound, (verb, particle) in CLOSED_COMPOUNDS.items()
}


def with_long_forms(text: str, used: Callable[[str], bool] = lambda w: True) -> str:
    """``text`` with each shorthand word read as the runbooks write it: followed by its
    long forms the runbooks ``used`` ("prod production"), replaced by them when the
    runbooks never write the shorthand, left alone when they use no long form. A verb
    and its particle are followed by the one word the runbooks write for them ("rolled
    back rollback") when they use it."""

    def read(m: re.Match[str]) -> str:
        short = m.group(1)
        if _other_sense(m):
            return short
        longs = [w for w in LONG_FORMS[short.lower()].split() if used(w)]
        if not longs:
            return short
        return " ".join(([short] if used(short) else []) + longs)

    text = _SHORT_WORD.sub(read, text)
    for compound, phrase in _PHRASAL.items():
        if used(compound):
            text = phrase.sub(rf"\g<0> {compound}", text)
    return text


# Words of computing and operations that name no product: a runbook set that never
# says "backend" or "hotfix" is not thereby silent about the question.
COMPUTING = frozenset(
    """
    backend backends frontend frontends middleware timeout timeouts hostname hostnames
    localhost url urls uri dns tls ssl ssh sudo cron crontab plugin plugins addon addons
    hotfix hotfixes downtime uptime failover failback webhook webhooks subnet subnets
    healthcheck healthchecks runbook runbooks datastore datastores workspace workspaces
    autoscaling autoscaler loadbalancer syslog cert certs vm vms ttl oom ips login logout
    username usernames filesystem filesystems codebase changelog dataset datasets
    namespace namespaces rollout rollouts failovers inbox inboxes
    """.split()
)

# Products and projects of operations whose names the language model or the dictionary
# also knows (a surname, an author, a myth, a trade): in a question they name a system,
# so a runbook set that never mentions one is silent about it. Words whose ordinary sense
# an engineer may well mean ("chef", "flux", "varnish", "confluence") are left out.
PRODUCTS = frozenset(
    """
    kafka jenkins consul vault nomad sentry puppet helm envoy cassandra mongo
    mongodb celery apache tomcat jetty prometheus loki jaeger zipkin linkerd traefik
    haproxy fastly akamai netlify gitlab bitbucket jira opsgenie kubernetes openshift
    spinnaker zookeeper memcached rabbitmq airflow bigquery redshift splunk nagios
    zabbix ansible saltstack pulumi argocd containerd fluentd
    slack terraform cortex thanos mimir calico flannel cilium packer vagrant presto pulsar
    """.split()
)

# What an engineer asks to carry out on a system. Ordinary words, but when no runbook of a
# set ever speaks of one ("upgrade", "migrate", "decommission"), none says how to do it:
# unlike "wake" or "morning", such a word is the task itself, so it counts as missing.
# Words for turning a value up or down ("raise", "increase", "extend") are not on it: the
# runbooks say those in too many ways. Nor are a word's synonyms taken for it: "update"
# in a runbook says nothing of how to upgrade a cluster.
OPERATIONS = frozenset(
    """
    install uninstall upgrade downgrade update patch migrate provision deprovision
    decommission deploy redeploy rollback rotate renew revoke reissue restore backup
    snapshot clone replicate failover failback promote demote fence scale resize
    rebalance reindex reshard compact defrag vacuum purge flush drain cordon
    uncordon evict reboot restart enable disable configure reconfigure register
    deregister assign unassign grant encrypt decrypt mount unmount import export archive
    upload delete recreate cancel
    """.split()
)

# Verbs that open an instruction in a runbook ("Run …", "Check …", "1. Open the console",
# "see the restore playbook"): the operations above and the everyday verbs of a procedure.
INSTRUCTION_VERBS = OPERATIONS | frozenset(
    """
    run check use set go open click choose select add remove create edit change ensure
    make find look log ssh connect copy wait verify confirm contact ask follow identify
    apply execute navigate login list get kill stop start pause resume trigger raise
    increase lower reduce roll revert fetch pull push merge replace reset recover switch
    move mark label annotate silence acknowledge escalate notify post send call retry
    rerun generate attach detach take expand grow shrink bump extend save enter paste
    download modify review inspect query filter tail grep exec describe watch sign
    submit approve see refer
    """.split()
)

_SUFFIXES = ("ies", "iest", "ier", "es", "s", "ing", "ed", "er", "est", "ly")
MIN_STEM = 3
# a typo this long may be read as a dictionary word as spelled ("mitigaation"): a product's
# name this long is seldom one edit from one
MIN_DICTIONARY_TYPO = 8


def _inflection_of(word: str, words: AbstractSet[str]) -> bool:
    """Is ``word`` one of ``words``, or a plural, past or gerund of one (none a product)
    as spelled: "replicas", "enforces", "impacting", "regenerating", "processes"?
    Stricter than :func:`_stems`, which reads what was typed: no plural "s" after an "s"
    ("jenkinss"), and "es" only after a hissing sound ("posteres" is no "poster")."""
    if word in words:
        return True
    for suffix in ("s", "es", "ed", "ing"):
        base = word[: -len(suffix)]
        if not word.endswith(suffix) or len(base) < MIN_STEM + 1:
            continue
        if suffix == "s" and base.endswith("s"):
            continue
        if suffix == "es" and not base.endswith(("s", "x", "z", "ch", "sh", "o")):
            continue
        bases = [base]
        if suffix in ("ed", "ing"):
            bases.append(base + "e")  # "regenerating"
            if base[-1] == base[-2]:
                bases.append(base[:-1])  # "logging"
        if any(b in words and b not in PRODUCTS for b in bases):
            return True
    return False


def _stems(word: str) -> Iterable[str]:
    """``word`` and the bases it may be an inflection of (hogging -> hog, tallies -> tally,
    quickest -> quick, easiest -> easy)."""
    yield word
    for suffix in _SUFFIXES:
        if not word.endswith(suffix) or len(word) - len(suffix) < MIN_STEM:
            continue
        base = word[: -len(suffix)]
        yield base
        yield base + "e"
        if suffix in ("ies", "iest", "ier"):
            yield base + "y"
        if len(base) > MIN_STEM and base[-1] == base[-2]:  # doubled consonant
            yield base[:-1]


def _english() -> AbstractSet[str]:
    from english_words import get_english_words_set

    return get_english_words_set(["web2"], lower=True)  # read only from here on


class Lexicon:
    """``word in lexicon``: an ordinary word (any case), not a name."""

    def __init__(
        self,
        model_words: Iterable[str] | Callable[[], Iterable[str]] = (),
        *,
        dictionary: bool = True,
    ) -> None:
        # a callable is asked on first use: reading the model's vocabulary loads the model
        self._model_source = model_words
        self._use_dictionary = dictionary

    @cached_property
    def _model(self) -> frozenset[str]:
        source = self._model_source
        words = source() if callable(source) else source
        return frozenset(w.lower() for w in words)

    @cached_property
    def _dictionary(self) -> AbstractSet[str]:
        return _english() if self._use_dictionary else frozenset()

    def warm(self) -> None:
        """Load both word lists now (a server does this before its first question)."""
        _ = self._model, self._dictionary

    @property
    def exact(self) -> Container[str]:
        """The language model's whole words as spelled: common words, without the
        dictionary's rare ones (``sitio`` is one swap from ``istio``), contractions,
        shorthand or inflections."""
        return self._model

    @property
    def inflected(self) -> Container[str]:
        """What a typo with a letter swapped, dropped or doubled may also be read as:
        the plain inflections of the language model's whole words ("impacting",
        "enforces", "replicas") and, of eight letters or more, the dictionary's words as
        spelled ("mitigation"). Not its shorter rare words (``sitio`` is one swap from
        ``istio``)."""
        return _Inflected(self)

    def inflection(self, word: str) -> bool:
        """Is ``word`` (lowercase letters) one that :attr:`inflected` holds?"""
        if not word.isalpha() or word in PRODUCTS:
            return False
        if _inflection_of(word, self._model):
            return True
        return len(word) >= MIN_DICTIONARY_TYPO and word in self._dictionary

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        w = word.lower().replace("'", "")
        if w in PRODUCTS:
            return False
        if w in CONTRACTIONS or w in SHORTHAND or w in COMPUTING:
            return True
        candidates = list(_stems(w))
        if any(c in self._model for c in candidates):
            return True
        if not w.isalpha():
            return False
        return any(c in self._dictionary for c in candidates)


@dataclass(frozen=True)
class _Inflected:
    lexicon: Lexicon

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self.lexicon.inflection(word)


def spelled_words(vocabulary: Container[str]) -> Container[str]:
    """The words of ``vocabulary`` as spelled (a :class:`Lexicon`'s without inflections)."""
    return vocabulary.exact if isinstance(vocabulary, Lexicon) else vocabulary


def inflected_words(vocabulary: Container[str]) -> Container[str]:
    """The inflections of ``vocabulary``'s words a typo may be read as (a
    :class:`Lexicon`'s; none of another container's)."""
    return vocabulary.inflected if isinstance(vocabulary, Lexicon) else frozenset()
