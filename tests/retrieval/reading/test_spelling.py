from retrieval.reading.lexicon import Lexicon
from retrieval.reading.spelling import corrected, correction, misspelled, typo_targets
from retrieval.reading.tokenize import tokenize

RUNBOOK = """
Check the connection count on the primary. If connections are refused, restart
pgbouncer and confirm the certificate is valid. Free disk space before you retry.
"""


def _doc_freq(text: str) -> dict[str, int]:
    return {t: 1 for t in tokenize(text)}


def _words(text: str) -> dict[str, int]:
    return dict.fromkeys(typo_targets(text), 1)


def test_a_typo_of_a_runbook_word_is_read_as_that_word() -> None:
    df, words = _doc_freq(RUNBOOK), _words(RUNBOOK)
    fixed = corrected(
        "db conection refused after the certifcate rotation", df, set(), lambda: words
    )
    assert fixed.text == "db connection refused after the certificate rotation"
    assert fixed.read_as == (("conection", "connection"), ("certifcate", "certificate"))


def test_the_word_most_runbooks_use_wins() -> None:
    assert correction("restartt", {"restart": 1, "restarts": 5}, set()) == "restarts"
    assert correction("restartt", {"restart": 5, "restarts": 1}, set()) == "restart"


def test_a_short_word_is_corrected_only_for_two_swapped_letters() -> None:
    words = {"space": 3, "thanks": 2}
    assert correction("spcae", words, set()) == "space"
    assert correction("thanos", words, set()) is None  # a product, one letter from a word
    assert correction("spae", words, set()) is None  # too short


def test_a_short_word_missing_or_doubling_a_letter_is_read_as_a_runbook_word() -> None:
    words = {"problem": 2, "error": 4}
    assert correction("poblem", words, set()) == "problem"
    assert correction("errorr", words, set()) == "error"
    # towards a common word no runbook uses, only a swap is trusted
    assert correction("poblem", {}, {"problem"}) is None
    assert correction("porblem", {}, {"problem"}) == "problem"


def test_names_and_known_words_are_left_as_typed() -> None:
    df, words = _doc_freq(RUNBOOK), _words(RUNBOOK)
    lexicon = Lexicon(["morning"], dictionary=False)
    for question in (
        "KubePodConectionErrors firing",  # an identifier
        "checkout-conection is down",  # part of a name
        "see /var/log/conection.log",  # a path
        "wait till morning",  # an ordinary word the runbooks do not use
    ):
        assert corrected(question, df, lexicon, lambda: words).text == question
    assert not misspelled("connection", df, lexicon)
    assert misspelled("Conection", df, lexicon)
    assert misspelled("CONECTION", df, lexicon)


def test_a_product_no_runbook_mentions_stays_unknown() -> None:
    df, words = _doc_freq(RUNBOOK), _words(RUNBOOK)
    assert corrected("coredns timing out", df, set(), lambda: words).read_as == ()
    # a word with one letter in front is a product, not a typo
    assert correction("vsphere", {"sphere": 3}, {"sphere"}) is None
    assert correction("sphree", {"sphere": 3}, set()) == "sphere"


def test_an_everyday_word_is_corrected_from_the_language_when_no_runbook_uses_it() -> None:
    df, words = _doc_freq(RUNBOOK), _words(RUNBOOK)
    fixed = corrected("is it realy urgnet", df, set(), lambda: words, {"urgent", "really"})
    assert fixed.text == "is it realy urgent"  # "realy" is one letter short: left as typed


def test_runbook_words_are_only_read_when_a_word_may_be_misspelled() -> None:
    asked = []

    def words() -> dict[str, int]:
        asked.append(1)
        return {}

    corrected("connection refused", _doc_freq(RUNBOOK), set(), words)
    assert asked == []


def test_a_typo_of_an_inflected_word_is_read_as_it() -> None:
    lexicon = Lexicon(["impact", "enforce", "replica", "posture", "jenkins"], dictionary=False)
    spelled, inflected = lexicon.exact, lexicon.inflected
    # a letter doubled, two swapped: the word the model knows, inflected
    assert correction("impaacting", {}, spelled, inflected) == "impacting"
    assert correction("enfroces", {}, spelled, inflected) == "enforces"
    assert correction("rpelicas", {}, spelled, inflected) == "replicas"
    # never by a letter changed: a product's name is too often one letter from a word
    assert correction("postgres", {}, spelled, inflected) is None
    # nor as a plural of a word ending in "s", or "es" after anything but a hiss
    assert "jenkinss" not in inflected
    assert "posteres" not in inflected
    # a word ending in "s" still has its "es" plural, past and gerund
    process = Lexicon(["process"], dictionary=False).inflected
    for word in ("processes", "processed", "processing"):
        assert word in process, word
    assert correction("impaacting", {}, spelled) is None  # (no inflections offered)


def test_a_long_typo_may_be_read_as_a_dictionary_word() -> None:
    lexicon = Lexicon([])
    assert correction("mitigaation", {}, lexicon.exact, lexicon.inflected) == "mitigation"
    assert "sitio" not in lexicon.inflected  # a short rare word: istio is no typo of it


def test_a_products_name_is_never_read_as_a_typo() -> None:
    lexicon = Lexicon(["consult", "linked", "container"], dictionary=False)
    for name in ("consul", "linkerd", "containerd"):
        assert not misspelled(name, {}, lexicon), name
        fixed = corrected(f"{name} is down", {}, lexicon, dict, lexicon.exact, lexicon.inflected)
        assert fixed.read_as == (), name
