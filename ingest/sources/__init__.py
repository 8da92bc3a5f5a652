"""Where documents come from: a small :class:`~ingest.sources.base.Source` protocol and
its implementations, one module each, listed in :mod:`ingest.sources.registry`.

- ``markdown_dir``: a folder of Markdown files (git dates and blob ids, CODEOWNERS and
  OWNERS, ``.runbookignore``; nothing outside the folder is read)
- ``notion``: pages of Notion databases, or single pages, rendered as Markdown
- ``confluence``: pages of a Confluence space, page tree or label, rendered as Markdown,
  with their view restrictions mapped to access groups
"""
