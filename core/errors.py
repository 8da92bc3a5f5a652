"""The root of every error runbook-bot raises, and the tree below it.

Each package raises its own subclasses and translates foreign errors at its edge
(``raise ... from exc``); user-facing wording lives only in the CLI, Slack and web
layers. The tree::

    RunbookBotError
    ├── IngestError                      ingest/errors.py
    │   ├── MalformedDocumentError       a source file could not be parsed (path, line)
    │   ├── SourceConfigError            the sources file or a source's settings are wrong
    │   └── SourceUnavailableError       a source (its API) could not be read; nothing changed
    │       └── EmptySourceError         a source read no documents where the index holds some
    ├── RetrievalError                   retrieval/errors.py
    │   ├── EmbeddingError               the embedding model could not be loaded or run
    │   ├── EmbeddingMismatchError       the index was built with another model
    │   ├── IndexUnavailableError        the vector store cannot be reached or opened
    │   │   └── IndexLockedError         the embedded index is held by another process
    │   ├── GlossaryError                retrieval/reading/query.py: the glossary file is invalid
    │   ├── WordsFileError               retrieval/reading/team_words.py: the words file is invalid
    │   ├── AccessMapError               retrieval/permissions.py: the access map is invalid
    │   ├── DirectoryError               retrieval/permissions.py: Slack user groups unreadable
    │   └── UnknownSignalError           switching off a signal retrieval/answer/signals.py lacks
    ├── StateError                       state/errors.py (writes never raise: fail-soft)
    │   └── QueryLogError                the query log could not be read for a report
    ├── OnCallError                      bot/oncall/errors.py: who is on call, paging
    │   ├── PagerDutyError               PagerDuty's API refused or could not be reached
    │   └── ServicesMapError             the services map file is missing or malformed
    └── WebError                         bot/web/errors.py
        ├── WebConfigError               the web settings do not fit together
        ├── SignInError                  Sign in with Slack failed
        └── FormError                    a form body that cannot be read
"""

from __future__ import annotations


class RunbookBotError(Exception):
    """Base for every error runbook-bot raises."""
